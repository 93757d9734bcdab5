"""Waits worth a word: one longer than ANNOUNCE_AFTER becomes a Wait (how long, why, until when) handed to a hook,
so the CLI can say it on stderr; concurrent waits ending about together are said once."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

ANNOUNCE_AFTER = 5.0  # seconds


@dataclass(frozen=True)
class Wait:
    seconds: float
    reason: str
    until: datetime

    def __str__(self) -> str:
        return f"waiting {self.seconds:.0f} s, until {self.until:%H:%M:%S} UTC: {self.reason}"


class Announcer:
    """Calls `hook(Wait)` before a wait longer than ANNOUNCE_AFTER, unless one ending within a second of it
    was said already; `clean` makes the reason fit to print (the key redacted)."""

    def __init__(self, hook: Callable[[Wait], None] | None, clock: Callable[[], float],
                 clean: Callable[[str], str] = str) -> None:
        self.hook, self.clock, self.clean = hook, clock, clean
        self.said_until = 0.0  # on `clock`

    def __call__(self, seconds: float, reason: str) -> None:
        end = self.clock() + seconds
        if self.hook is None or seconds <= ANNOUNCE_AFTER or end <= self.said_until + 1.0:
            return
        self.said_until = end
        self.hook(Wait(seconds, self.clean(reason), datetime.now(timezone.utc) + timedelta(seconds=seconds)))
