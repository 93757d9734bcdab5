"""An adaptive request rate for an endpoint whose limit nobody told us, shared by every process on one key.

Evenly spaced sends, never a burst. Rate-limit headers (loop.ask.limit_headers, any dialect) give a first rate
and a ceiling; a 429 is ground truth: once the pause it asks for is over, the rate is at most what the server
admitted in the busiest second of successes around it, whatever the headers said, and it rises again only by
probing (slowly, never past the headers' ceiling). Without headers, one request goes out at a time until the
first answer, then sends are unpaced (bound by concurrency) until a 429 measures the rate. A 429's wait pauses
every sender. The state lives in a small SQLite file keyed by a hash of the base URL and key (never the key),
so two `loop` processes on one key pace as one.

Nothing the endpoint says can hold a sender for long: a pause is at most `max_pause` from now, a rate at least
`min_rate`, and a state nobody updated for `ttl` seconds is forgotten; all three are applied whenever the state
is read, so a process never inherits a longer wait from another (or from an older loop).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import sqlite3
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from loop.ask import limit_headers
from loop.cachedir import cache_dir

HEADROOM = 0.95  # pace at this share of the learned limit
PROBE_EVERY = 5.0  # seconds between upward probes
PROBE_STEP = 1.04  # rate x PROBE_STEP per probe (never past the headers' ceiling)
QUIET = 15.0  # seconds after a 429 before probing again
PROBE_LEASE = 5.0  # seconds a probe may stay unanswered before another request goes out instead
LATE = 0.005  # seconds past its slot after which a send counts as late
DEFAULT_PAUSE = 1.0  # a 429 without any wait hint pauses everyone this long
# the defaults of endpoint.max_pause, min_requests_per_minute / 60 and limit_state_ttl
MAX_PAUSE, MIN_RATE, TTL = 60.0, 0.05, 3600.0


def default_path() -> Path:
    return cache_dir() / "limits.db"


def limit_key(base_url: str, api_key: str | None) -> str:
    """Who shares a limit: one endpoint and one key. A hash, so the key itself is never written."""
    return hashlib.sha256(f"{base_url.rstrip('/')}\0{api_key or ''}".encode()).hexdigest()[:32]


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
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep, max_pause: float = MAX_PAUSE,
                 min_rate: float = MIN_RATE, ttl: float = TTL) -> None:
        self.key, self._clock, self._sleep = key, clock, sleep
        self.max_pause, self.min_rate, self.ttl = max_pause, min_rate, ttl
        self._db: sqlite3.Connection | None = None
        self._memory: dict = {}
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            # The default rollback journal: switching to WAL takes a lock that two processes starting at
            # once can fail to get, and these transactions are a few rows a second.
            self._db = sqlite3.connect(path, timeout=30.0, isolation_level=None)
            self._db.execute("pragma synchronous=off")  # a cache: losing it to a power cut costs nothing
            _create(self._db)

    # ---- the shared state: one JSON object per key, read and written in one IMMEDIATE transaction

    def _bounded(self, s: dict) -> dict:
        """The state as this process may trust it: forgotten once expired, no wait past max_pause from now
        (whoever wrote it and whatever hint it came from), no rate below min_rate."""
        now = self._clock()
        if not isinstance(s.get("expires"), (int, float)) or s["expires"] < now:
            return {}
        for name in ("pause", "next", "lease"):
            if name in s:
                s[name] = min(_finite(s[name]), now + self.max_pause)
        for name in ("rate", "ceiling"):
            if s.get(name):
                s[name] = max(_finite(s[name]), self.min_rate)
        return s

    def _update(self, change: Callable[[dict], object]):
        if self._db is None:
            self._memory = self._bounded({**self._memory, "expires": self._clock() + self.ttl})
            return change(self._memory)
        self._db.execute("begin immediate")
        try:
            row = self._db.execute("select state from limits where key = ?", [self.key]).fetchone()
            state = self._bounded(_load(row[0]) if row else {})
            result = change(state)
            state["expires"] = self._clock() + self.ttl
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
        def spacing(s: dict) -> float:  # never more than one send per 1 / min_rate, whatever a header implied
            gap = 1.0 / s["rate"] if s.get("rate") else 0.0
            return min(max(gap, tokens / s["trate"]) if s.get("trate") else gap, 1.0 / self.min_rate)

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
                s["rate"] = max(self.min_rate, min(guess, s["rate"] * 0.98) if s.get("rate") else guess)
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
        """Learn from the response to a request sent at `sent`: its rate-limit headers (a hint), a 429 (the
        truth), or a success (a chance to probe upward). 429s to requests sent before the last cut do not cut
        again: they were paced at the old rate."""
        hint = limit_headers.read(headers)

        def learn(s: dict) -> None:
            now = self._clock()
            s["lease"] = 0.0  # the probe (if this was it) is answered
            known = bool(s.get("rate"))
            fresh = status == 429 and sent >= s.get("cut", 0.0)  # not one of a burst already answered
            if hint.requests:
                s["ceiling"] = max(self.min_rate, HEADROOM * hint.requests)
                if not s.get("observed") and "measure" not in s:
                    s["rate"] = s["ceiling"]  # a first rate, until a 429 says otherwise
            if hint.tokens:
                s["trate"] = HEADROOM * hint.tokens
            if fresh:
                s["measure"] = sent  # the rate is measured when the pause ends (see reserve)
                s["observed"] = True  # from now on only probing raises it
            if s.get("rate") and not known:  # the first rate: the probe's send was the first slot
                s["next"] = max(s.get("next", 0.0), sent + 1.0 / s["rate"])
            if status == 429:
                if fresh:
                    s["cut"] = now
                wait = min(retry_after if retry_after is not None else DEFAULT_PAUSE, self.max_pause)
                s["pause"] = max(s.get("pause", 0.0), now + wait)
                s["next"] = max(s.get("next", 0.0), s["pause"])
                s["last_429"] = now
            elif status is not None and 200 <= status < 300:
                s["open"] = not s.get("rate") and "measure" not in s
                s["oks"] = [t for t in s.get("oks", []) if t > now - 5.0][-511:] + [sent]
                quiet = now - s.get("last_429", 0.0) > QUIET and now - s.get("probed", 0.0) > PROBE_EVERY
                if s.get("observed") and s.get("rate") and "measure" not in s and quiet:
                    s["rate"] = min(s["rate"] * PROBE_STEP, s.get("ceiling") or math.inf)
                    s["probed"] = now

        self._update(learn)

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None


# ---- what loop learned, for `loop endpoint limits` / `loop endpoint forget`


def _create(db: sqlite3.Connection) -> None:
    db.execute("create table if not exists limits (key text primary key, state text not null)")


def _load(text: str) -> dict:
    try:
        state = json.loads(text)
    except ValueError:
        return {}
    return state if isinstance(state, dict) else {}


def _finite(value) -> float:
    return float(value) if isinstance(value, (int, float)) and math.isfinite(value) else 0.0


def learned(path: Path, key: str | None = None, *, clock: Callable[[], float] = time.time) -> list[dict]:
    """What the state file at `path` holds (for one key, or every key): per key the rate paced at and the
    headers' ceiling (requests/s), the token rate (tokens/s), the pause's end and the expiry (epoch seconds),
    as stored: a process reading it applies its own caps."""
    if not path.is_file():
        return []
    with sqlite3.connect(path, timeout=30.0) as db:
        _create(db)
        rows = db.execute("select key, state from limits" + (" where key = ?" if key else "") + " order by key",
                          [key] if key else []).fetchall()
    now = clock()
    out = []
    for k, text in rows:
        s = {name: _finite(value) or None for name, value in _load(text).items()}  # whatever was written there
        out.append({"key": k, "rate": s.get("rate"), "ceiling": s.get("ceiling"), "token_rate": s.get("trate"),
                    "pause_until": s["pause"] if (s.get("pause") or 0) > now else None, "expires": s.get("expires"),
                    "expired": (s.get("expires") or 0) < now})
    return out


def forget(path: Path, key: str | None = None) -> int:
    """Delete what was learned (for one key, or every key); returns how many keys were forgotten."""
    if not path.is_file():
        return 0
    with sqlite3.connect(path, timeout=30.0) as db:
        _create(db)
        return db.execute("delete from limits" + (" where key = ?" if key else ""), [key] if key else []).rowcount
