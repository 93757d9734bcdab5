"""Pacing requests as the server sees them: each slot counted from when the previous request was on the wire."""

from __future__ import annotations

import asyncio
import collections
import statistics
from collections.abc import Callable


class Pacer:
    """Spaces requests `interval` apart as the server sees them: by when each one actually went out.

    aiolimiter spaces *acquisitions*; a request that then waits for a new connection or a busy event
    loop reaches the server late and bunches with the next ones inside a strict sliding window. Here
    each request reports when its headers are on the wire (httpcore's trace extension; transports
    without it report when the request returns), and the next slot is `interval` after that moment,
    less the usual (median) slot-to-wire delay, so a normal request costs nothing extra. The wait for that
    report is capped at `grace` seconds so a hung connect cannot stall everyone else.
    """

    def __init__(self, interval: float, grace: float = 1.0) -> None:
        self.interval = interval
        self.grace = grace
        self._lock = asyncio.Lock()
        self._ref: float | None = None  # loop time the previous request counts as sent
        self._pending: asyncio.Event | None = None  # set once the previous request is on the wire
        self._delays: collections.deque[float] = collections.deque(maxlen=16)  # recent slot-to-wire delays

    async def acquire(self) -> Callable[[], None]:
        """Wait for a slot; returns mark_sent(), to call once the request is on the wire (idempotent)."""
        loop = asyncio.get_running_loop()
        async with self._lock:
            if self._pending is not None and not self._pending.is_set():
                try:
                    await asyncio.wait_for(self._pending.wait(), self.grace)
                except asyncio.TimeoutError:
                    pass
            if self._ref is not None:
                delay = self._ref + self.interval - loop.time()
                if delay > 0:
                    await asyncio.sleep(delay)
            slot = self._ref = loop.time()
            event = self._pending = asyncio.Event()

        def mark_sent() -> None:
            if event.is_set():
                return
            event.set()
            now = loop.time()
            self._delays.append(now - slot)
            # Only a delay beyond the usual one (a new connection, a busy loop) pushes the next slot back;
            # until a few delays are known, every one does.
            usual = statistics.median(self._delays) if len(self._delays) >= 4 else 0.0
            if self._pending is event:
                self._ref = max(slot, now - usual)

        return mark_sent


async def warm_up() -> None:
    """Pay httpcore's lazy anyio imports (~50 ms) now, so they do not delay the first paced request.

    Otherwise the first request reaches the server late and the next ones bunch up behind it inside a
    strict sliding window.
    """
    try:
        import anyio

        anyio.Lock()
        anyio.Event()
        anyio.Semaphore(1)
        await anyio.sleep(0)
    except Exception:  # pragma: no cover - an optimisation only; never worth failing a run over
        pass
