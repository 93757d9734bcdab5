"""Rate-limit headers in the dialects providers send, read as a hint: the request and token rates they imply.

OpenAI (`x-ratelimit-limit|remaining|reset-requests|tokens`, reset a duration such as `6m0s`, `20ms`, `1.5s`),
Anthropic (`anthropic-ratelimit-requests|tokens|input-tokens-limit|remaining|reset`, reset an RFC 3339 time) and
Azure OpenAI (remaining counts only: no rate to read). Both documented limits are per minute, and their reset is
the time to a full refill, so a limit L with R left and T to go refills at (L - R) / T: the smaller of that and
L / 60 is the rate (a per-day limit then reads as one). The rate is a hint for loop.ask.ratelimit, which trusts
429s over it. Anything unparseable is no hint, never an error.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timezone

from loop.ask.retry_hints import parse_duration

PERIOD = 60.0  # seconds a documented limit counts over


@dataclass(frozen=True)
class Hint:
    requests: float | None = None  # per second
    tokens: float | None = None  # per second


def _number(value) -> float | None:
    try:
        x = float(str(value).strip())
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) and x >= 0 else None


def _reset_seconds(value, now: datetime) -> float | None:
    """A reset as a duration (`1.5s`, `6m0s`, `250ms`, `2`) or an RFC 3339 time (`2026-12-02T08:00:01Z`)."""
    if value is None:
        return None
    seconds = parse_duration(str(value))
    if seconds is not None:
        return seconds
    try:
        when = datetime.fromisoformat(str(value).strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - now).total_seconds())


def _rate(limit, remaining, reset, now: datetime) -> float | None:
    lim = _number(limit)
    if not lim:
        return None
    rate = lim / PERIOD
    left, seconds = _number(remaining), _reset_seconds(reset, now)
    if left is not None and seconds and lim - left >= 1:
        refill = (lim - left) / seconds
        if refill < 0.5 * rate:  # a limit over a longer period than a minute (per day, say)
            rate = refill
    return rate


def read(headers, now: datetime | None = None) -> Hint:
    """The rates a response's headers imply (per second), in whichever dialect it speaks."""
    if not headers:
        return Hint()
    h = {str(k).lower(): v for k, v in headers.items()}
    now = now or datetime.now(timezone.utc)
    out = {}
    for kind, anthropic in (("requests", ("requests",)), ("tokens", ("tokens", "input-tokens"))):
        rate = _rate(h.get(f"x-ratelimit-limit-{kind}"), h.get(f"x-ratelimit-remaining-{kind}"),
                     h.get(f"x-ratelimit-reset-{kind}"), now)
        for name in anthropic:
            if rate is None:
                rate = _rate(h.get(f"anthropic-ratelimit-{name}-limit"), h.get(f"anthropic-ratelimit-{name}-remaining"),
                             h.get(f"anthropic-ratelimit-{name}-reset"), now)
        out[kind] = rate
    return Hint(**out)
