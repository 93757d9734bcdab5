"""Wait hints in HTTP responses: how long a server asks a client to wait before it retries.

Used by loop.ask.endpoint for its retries and handed to loop.ask.ratelimit for the adaptive window; plain parsing, no I/O.
"""

from __future__ import annotations

import email.utils
import math
import re
from datetime import datetime, timezone

import httpx

_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")


def parse_duration(value: str | None) -> float | None:
    """Parse an OpenAI reset duration ("1s", "6m0s", "20ms", "1h2m3.5s", bare "2.5") into seconds."""
    if value is None:
        return None
    text = value.strip().lower()
    if not text:
        return None
    try:
        seconds = float(text)
    except ValueError:
        pass
    else:
        return seconds if math.isfinite(seconds) and seconds >= 0 else None
    pos, total = 0, 0.0
    scale = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}
    for match in _DURATION_PART.finditer(text):
        if match.start() != pos:
            return None
        total += float(match.group(1)) * scale[match.group(2)]
        pos = match.end()
    return total if pos == len(text) and pos > 0 else None


def _parse_http_date(value: str) -> datetime | None:
    try:
        parsed = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if parsed is None:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=timezone.utc)
    return parsed


def _after_seconds(value: str, h: httpx.Headers) -> float | None:
    """A Retry-After value: seconds, or an HTTP date (relative to the response's Date)."""
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        when = _parse_http_date(value)
        if when is None:
            return None
        now = _parse_http_date(h.get("date", "")) or datetime.now(timezone.utc)
        return max(0.0, (when - now).total_seconds())
    return seconds if math.isfinite(seconds) and seconds >= 0 else None


def retry_hint(headers: httpx.Headers | dict[str, str]) -> float | None:
    """Seconds the server asks us to wait before retrying, or None when it gives no usable hint.

    `retry-after-ms` and `Retry-After` first, then the variants gateways send for the provider behind
    them (LiteLLM: `llm_provider-retry-after`; any `*-retry-after` / `*-retry-after-ms`), then OpenAI's
    `x-ratelimit-reset-*` for the limit that ran out."""
    h = headers if isinstance(headers, httpx.Headers) else httpx.Headers(headers)
    names = [n.lower() for n in h.keys()]
    for name in ["retry-after-ms", *sorted(n for n in names if n.endswith("-retry-after-ms"))]:
        try:
            value = float(h[name]) / 1000.0 if name in h else -1.0
        except ValueError:
            continue
        if math.isfinite(value) and value >= 0:
            return value
    for name in ["retry-after", *sorted(n for n in names if n.endswith("-retry-after"))]:
        value = _after_seconds(h[name], h) if name in h else None
        if value is not None:
            return value
    resets: list[float] = []
    for kind in ("requests", "tokens"):
        remaining = h.get(f"x-ratelimit-remaining-{kind}")
        if remaining is not None and remaining.strip() not in ("0", "0.0"):
            continue  # that limit is not the one we hit
        reset = parse_duration(h.get(f"x-ratelimit-reset-{kind}"))
        if reset is not None:
            resets.append(reset)
    return max(resets) if resets else None
