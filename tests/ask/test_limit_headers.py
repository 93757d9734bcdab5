"""Rate-limit headers in each provider's dialect, read as the rates they imply (loop/limit_headers.py)."""

from datetime import datetime, timedelta, timezone

import pytest

from loop.ask.limit_headers import Hint, read

NOW = datetime(2026, 12, 2, 8, 0, 0, tzinfo=timezone.utc)


def test_openai_per_minute_limits_with_durations():
    h = read({"x-ratelimit-limit-requests": "300", "x-ratelimit-remaining-requests": "295",
              "x-ratelimit-reset-requests": "1s", "x-ratelimit-limit-tokens": "150000",
              "x-ratelimit-remaining-tokens": "149000", "x-ratelimit-reset-tokens": "400ms"}, NOW)
    assert h == Hint(requests=pytest.approx(5.0), tokens=pytest.approx(2500.0))


@pytest.mark.parametrize("reset", ["6m0s", "1h2m3.5s", "20ms", "1.5s", "2.5"])
def test_every_duration_spelling_is_read(reset):
    # a full minute's bucket nearly spent and minutes to refill: still the per-minute rate, never a burst
    assert read({"x-ratelimit-limit-requests": "60", "x-ratelimit-reset-requests": reset}, NOW).requests == 1.0


def test_a_short_window_reset_does_not_inflate_the_rate():
    """reset = time to the next token (200 ms), remaining over a one-second window: L / reset would be 1,500/s."""
    h = read({"x-ratelimit-limit-requests": "300", "x-ratelimit-remaining-requests": "0",
              "x-ratelimit-reset-requests": "200ms"}, NOW)
    assert h.requests == pytest.approx(5.0)


def test_a_limit_over_a_day_reads_as_its_refill_rate():
    """Some gateways send requests per day under the same names: 14,400 a day, one used, 6 s to refill it."""
    h = read({"x-ratelimit-limit-requests": "14400", "x-ratelimit-remaining-requests": "14399",
              "x-ratelimit-reset-requests": "6s"}, NOW)
    assert h.requests == pytest.approx(1 / 6)


def test_anthropic_reset_is_an_rfc3339_time():
    later = (NOW + timedelta(seconds=2)).isoformat().replace("+00:00", "Z")
    h = read({"anthropic-ratelimit-requests-limit": "50", "anthropic-ratelimit-requests-remaining": "49",
              "anthropic-ratelimit-requests-reset": later, "anthropic-ratelimit-tokens-limit": "40000",
              "anthropic-ratelimit-tokens-remaining": "39000", "anthropic-ratelimit-tokens-reset": later,
              "retry-after": "3"}, NOW)
    assert h.requests == pytest.approx(50 / 60) and h.tokens == pytest.approx(40000 / 60)


def test_anthropic_input_tokens_when_there_is_no_combined_limit():
    h = read({"anthropic-ratelimit-input-tokens-limit": "60000"}, NOW)
    assert h.tokens == pytest.approx(1000.0)


def test_azure_sends_remaining_counts_only_and_gives_no_rate():
    assert read({"x-ratelimit-remaining-requests": "4", "x-ratelimit-remaining-tokens": "9000"}, NOW) == Hint()


@pytest.mark.parametrize("headers", [
    {"x-ratelimit-limit-requests": "lots", "x-ratelimit-reset-requests": "soon"},
    {"x-ratelimit-limit-requests": "-5"}, {"x-ratelimit-limit-requests": "nan"},
    {"x-ratelimit-limit-requests": "inf"}, {"x-ratelimit-limit-requests": "0"},
    {"anthropic-ratelimit-requests-limit": "50", "anthropic-ratelimit-requests-remaining": "x",
     "anthropic-ratelimit-requests-reset": "not a time"},
    {}, None,
])
def test_unparseable_headers_are_no_hint_never_an_error(headers):
    h = read(headers, NOW)
    assert h.requests in (None, pytest.approx(50 / 60)) and h.tokens is None


def test_a_bad_reset_leaves_the_limit_itself():
    h = read({"x-ratelimit-limit-requests": "120", "x-ratelimit-remaining-requests": "100",
              "x-ratelimit-reset-requests": "whenever"}, NOW)
    assert h.requests == pytest.approx(2.0)
