"""An adaptive request rate for an endpoint whose limit nobody told us, shared by every process on one key.

Evenly spaced sends at a learned rate: from the `x-ratelimit-*` headers when the server sends them (the
limit over the longest reset seen: the window), otherwise from 429s (cut to what the server admitted in
the last second, then probed upward slowly). Until a rate is known, one request goes out at a time (its
answer says whether the server sends the headers). A 429's Retry-After pauses every sender, not only the
request that got it. The state lives in a small SQLite file keyed by a
hash of the base URL and key (never the key), so two `loop` processes on one key pace as one.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import sqlite3
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from loop.cachedir import cache_dir

HEADROOM = 0.95  # pace at this share of the learned limit
CUT = 0.95  # a 429 despite the headers: the window they implied x 1/CUT
PROBE_EVERY = 5.0  # seconds between upward probes
PROBE_STEP = 1.04  # rate x PROBE_STEP per probe (never past the header limit)
QUIET = 15.0  # seconds after a 429 before probing again
PROBE_LEASE = 5.0  # seconds a probe may stay unanswered before another request goes out instead
LATE = 0.005  # seconds past its slot after which a send counts as late
DEFAULT_PAUSE = 1.0  # a 429 without any wait hint pauses everyone this long


def default_path() -> Path:
    return cache_dir() / "limits.db"


def limit_key(base_url: str, api_key: str | None) -> str:
    """Who shares a limit: one endpoint and one key. A hash, so the key itself is never written."""
    return hashlib.sha256(f"{base_url.rstrip('/')}\0{api_key or ''}".encode()).hexdigest()[:32]


def _float(headers, name: str) -> float | None:
    try:
        value = float(headers.get(name, ""))
    except ValueError:
        return None
    return value if value >= 0 else None


def _busiest_second(times: list[float]) -> int:
    """The most successes sent within any one second: what the server admits, read off our own sends
    (by send time, so a refusal that overtakes the successes sent with it does not hide them)."""
    times, best, lo = sorted(times), 0, 0
    for hi, t in enumerate(times):
        while t - times[lo] >= 1.0:
            lo += 1
        best = max(best, hi - lo + 1)
    return best


class AdaptiveLimit:
    """One endpoint-and-key's pacing state, in SQLite (shared between processes) or in memory."""

    def __init__(self, key: str, path: Path | None = None, *, clock: Callable[[], float] = time.time,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
                 parse_duration: Callable[[str | None], float | None] = lambda v: None) -> None:
        self.key, self._clock, self._sleep, self._duration = key, clock, sleep, parse_duration
        self._db: sqlite3.Connection | None = None
        self._memory: dict = {}
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            # The default rollback journal: switching to WAL takes a lock that two processes starting at
            # once can fail to get, and these transactions are a few rows a second.
            self._db = sqlite3.connect(path, timeout=30.0, isolation_level=None)
            self._db.execute("pragma synchronous=off")  # a cache: losing it to a power cut costs nothing
            self._db.execute("create table if not exists limits (key text primary key, state text not null)")

    # ---- the shared state: one JSON object per key, read and written in one IMMEDIATE transaction

    def _update(self, change: Callable[[dict], object]):
        if self._db is None:
            return change(self._memory)
        self._db.execute("begin immediate")
        try:
            row = self._db.execute("select state from limits where key = ?", [self.key]).fetchone()
            state = json.loads(row[0]) if row else {}
            result = change(state)
            self._db.execute("insert or replace into limits (key, state) values (?, ?)", [self.key, json.dumps(state)])
            self._db.execute("commit")
            return result
        except BaseException:
            self._db.execute("rollback")
            raise

    @property
    def estimate(self) -> float | None:
        """The rate sends are paced at now (requests per second), or None while nothing is known."""
        return self._update(lambda s: s.get("rate"))

    async def acquire(self, tokens: float = 0.0) -> tuple[float, float]:
        """Wait for the slot of a request expected to use `tokens`; returns (seconds waited, when it left)."""
        def spacing(s: dict) -> float:
            gap = 1.0 / s["rate"] if s.get("rate") else 0.0
            return max(gap, tokens / s["trate"]) if s.get("trate") else gap

        def reserve(s: dict) -> tuple[float, float, bool]:
            """(slot, delay, final): while no rate is known one request at a time goes out (a probe with
            a lease); the others wait for its answer and ask again."""
            now = self._clock()
            if "measure" in s and now >= s.get("pause", 0.0):
                # The pause after a 429 is over, so the answers to everything sent around the refused
                # request are in: the busiest second of successes then is the server's rate, as far as
                # anyone can see without headers (every process's successes count).
                ref = s.pop("measure")
                guess = HEADROOM * max(1, _busiest_second([t for t in s.get("oks", []) if ref - 3.0 <= t < ref + 0.5]))
                s["rate"] = max(0.05, min(guess, s["rate"] * 0.98) if s.get("rate") else guess)
            slot = max(now, s.get("next", 0.0), s.get("pause", 0.0))
            if "measure" in s:  # a rate is about to be measured: ask again once the pause is over
                return slot, slot - now, False
            if s.get("rate") or s.get("trate"):
                s["next"] = slot + spacing(s)
                return slot, slot - now, True
            if s.get("open"):  # answered without rate headers: unpaced (concurrency-bound) until a 429
                return slot, slot - now, True
            if s.get("lease", 0.0) > now:
                return slot, min(s["lease"], now + 0.05) - now, False
            s["lease"] = slot + PROBE_LEASE
            return slot, slot - now, True

        def late(s: dict) -> None:  # a send that left late pushes the next slot back: no bunching
            s["next"] = max(s.get("next", 0.0), sent + spacing(s))

        waited = 0.0
        while True:
            slot, delay, final = self._update(reserve)
            if delay > 0:
                await self._sleep(delay)
                waited += delay
            sent = self._clock()
            # A pause that began while this request waited (a 429 to one sent before it) holds it too:
            # slots are handed out ahead, and the pause must not let the queued ones out in lockstep.
            if final and self._update(lambda s: s.get("pause", 0.0)) <= sent:
                break
        if sent - slot > LATE:
            self._update(late)
        return waited, sent

    def observe(self, sent: float, status: int | None, headers, retry_after: float | None) -> None:
        """Learn from the response to a request sent at `sent`: its rate-limit headers, a 429, or a success
        (a chance to probe upward). 429s to requests sent before the last cut do not cut again: they
        were paced at the old rate."""
        headers = headers if headers is not None else {}
        limit = _float(headers, "x-ratelimit-limit-requests")
        reset = self._duration(headers.get("x-ratelimit-reset-requests"))
        token_limit = _float(headers, "x-ratelimit-limit-tokens")
        token_reset = self._duration(headers.get("x-ratelimit-reset-tokens"))

        def learn(s: dict) -> None:
            now = self._clock()
            s["lease"] = 0.0  # the probe (if this was it) is answered
            known = bool(s.get("rate"))
            fresh = status == 429 and sent >= s.get("cut", 0.0)  # not one of a burst already answered
            if limit and reset is not None:
                # The window is the longest reset seen (just after a window opens, or with the bucket
                # empty), widened a little by each fresh 429 and narrowed slowly (probing); the rate is
                # the limit over it.
                window = max(s.get("window", 0.0) * (1 - 0.001), reset, 1e-3)
                s["window"] = window * (1 / CUT if fresh else 1.0)
                s["ceiling"] = s["rate"] = HEADROOM * limit / s["window"]
            elif fresh:
                s["measure"] = sent  # the rate is measured when the pause ends (see reserve)
            if token_limit and token_reset is not None:  # tokens per second, learned the same way
                s["twindow"] = max(s.get("twindow", 0.0) * (1 - 0.001), token_reset, 1e-3) * (1 / CUT if fresh else 1.0)
                s["trate"] = HEADROOM * token_limit / s["twindow"]
            if s.get("rate") and not known:  # the first rate: the probe's send was the first slot
                s["next"] = max(s.get("next", 0.0), sent + 1.0 / s["rate"])
            if status == 429:
                if fresh:
                    s["cut"] = now
                s["pause"] = max(s.get("pause", 0.0), now + (retry_after if retry_after is not None else DEFAULT_PAUSE))
                s["next"] = max(s.get("next", 0.0), s["pause"])
                s["last_429"] = now
            elif status is not None and 200 <= status < 300:
                s["open"] = not s.get("rate") and "measure" not in s
                s["oks"] = [t for t in s.get("oks", []) if t > now - 5.0][-511:] + [sent]
            if status is not None and 200 <= status < 300 and s.get("rate") and not limit:
                quiet = now - s.get("last_429", 0.0) > QUIET and now - s.get("probed", 0.0) > PROBE_EVERY
                if quiet:
                    s["rate"] *= PROBE_STEP
                    s["probed"] = now

        self._update(learn)

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None
