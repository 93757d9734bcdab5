"""OpenAI-compatible chat-completions client with retries, client-side rate limits and per-attempt records.

It turns every endpoint misbehaviour into a Completion, an InfraUnknown or an EndpointFatal so callers never see raw HTTP.
The retry policy and the per-attempt records meet in one attempt function; pacing, response parsing and
wait hints live beside it (pacing, responses, retry_hints).
"""

from __future__ import annotations

import asyncio
import itertools
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import httpx
from aiolimiter import AsyncLimiter
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception_type
from tenacity.stop import stop_base
from tenacity.wait import wait_base, wait_exponential_jitter

from loop.ask.pacing import Pacer, warm_up
from loop.ask.ratelimit import AdaptiveLimit, default_path, limit_key
from loop.ask.responses import (BadResponse, Reply, decode_text, error_info, estimate_tokens, one_line,
                                parse_completion, phrase, redact)
from loop.ask.retry_hints import retry_hint
from loop.ask.transport import ACCEPT_ENCODING, live_transport
from loop.ask.waits import Announcer, Wait
from loop.config import EndpointSettings  # the one endpoint schema, shared with config.toml
from loop.errors import EndpointFatal
from loop.verdicts import BAD_RESPONSE, CONNECTION, ENDPOINT_TIMEOUT, RATE_LIMITED, SERVER_ERROR

RETRY_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504, 529})
# Fraction of requests_per_minute actually used: leaves slack for network jitter against servers that
# enforce the limit over a strict sliding window (a 1 s window at 10 req/s gets 15 ms of slack).
RATE_HEADROOM = 0.985
BACKOFF_MAX = 60.0  # cap of one exponential-backoff wait, seconds
BACKOFF_JITTER = 1.0  # uniform jitter added to each backoff wait, seconds
IN_FLIGHT = "in_flight"  # error_class of an attempt's record written before it is sent (on_send)


@dataclass(frozen=True)
class Completion:
    """A successful answer: one text per choice."""

    texts: list[str]
    prompt_tokens: int | None
    completion_tokens: int | None
    latency: float
    attempts: int
    raw: dict
    finish_reasons: list[str | None] = field(default_factory=list)


@dataclass(frozen=True)
class InfraUnknown:
    """The endpoint could not be made to answer; says nothing about the candidate."""

    reason: str
    detail: str
    attempts: int


@dataclass(frozen=True)
class RequestRecord:
    """One HTTP attempt, for the `requests` table."""

    tag: object
    attempt: int
    started_at: str
    latency: float
    status_code: int | None
    error_class: str | None
    wait: float
    prompt_tokens: int | None
    completion_tokens: int | None
    limiter_wait: float = 0.0  # seconds this attempt waited in the adaptive limiter before it was sent
    rate_estimate: float | None = None  # the adaptive limiter's rate (requests/s) when it was sent
    key: int = 0  # this attempt among the Endpoint's: on_send's record and on_request's share it
    # What a budget counts: the usage when the endpoint reported a valid one, else for an answer (2xx: billed)
    # the estimate (prompt characters / 4, and max_tokens x n); None for a request that got no answer.
    billed_prompt_tokens: int | None = None
    billed_completion_tokens: int | None = None


class _Retryable(Exception):
    """An attempt failed in a way worth retrying; carries the reason and the server's wait hint."""

    def __init__(self, reason: str, detail: str, hint: float | None = None) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail
        self.hint = hint


@dataclass
class _Call:
    """Per-complete() state shared between the attempt function and the tenacity callbacks."""

    tag: object
    body: dict
    tokens: float
    prompt_estimate: int = 0
    attempts: int = 0
    pending: RequestRecord | None = None  # the last attempt's record, written once its wait is known
    ended: float = 0.0  # when the last attempt ended (clock)
    n: int = 1
    # the retry budgets (_stop_budget): failures that are not rate limits, and refusals since the last success
    failures: int = 0
    failure_wait: float = 0.0
    refusals: int = 0
    refused_wait: float = 0.0
    oks_seen: int = 0  # the endpoint's successes when this request's refused wait last restarted


_REQUEST_FIELDS = re.compile(r"\b(model|max_tokens|temperature|n)\b")


# --------------------------------------------------------------------------- tenacity pieces


RATE_LIMIT_ATTEMPTS = 100  # 429s one request may meet while others get through (one too big ever to pass)


class _stop_budget(stop_base):
    """When one logical request gives up. Failures that are not rate limits count against max_attempts and
    max_wait. 429s are pacing, not failures: they count only while the endpoint refuses everyone (the refused
    wait restarts whenever any request got through), so a sample is never lost to a client that went too fast;
    an endpoint that stays refused for max_wait is `rate_limited`."""

    def __init__(self, endpoint: Endpoint) -> None:
        self.endpoint = endpoint

    def __call__(self, retry_state: RetryCallState) -> bool:
        call: _Call = retry_state.args[0]
        s = self.endpoint.settings
        exc = retry_state.outcome.exception() if retry_state.outcome is not None else None
        upcoming = retry_state.upcoming_sleep
        if isinstance(exc, _Retryable) and exc.reason == RATE_LIMITED:
            call.refusals += 1
            if self.endpoint.successes != call.oks_seen:
                call.oks_seen, call.refused_wait = self.endpoint.successes, 0.0
            if call.refusals >= RATE_LIMIT_ATTEMPTS or call.refused_wait + upcoming > s.max_wait + 1e-9:
                return True
            call.refused_wait += upcoming
            return False
        call.failures += 1
        if call.failures >= s.max_attempts or call.failure_wait + upcoming > s.max_wait + 1e-9:
            return True
        call.failure_wait += upcoming
        return False


class _wait_server_hint(wait_base):
    """Use the server's hint when it gave one, else the fallback backoff."""

    def __init__(self, fallback: wait_base) -> None:
        self.fallback = fallback

    def __call__(self, retry_state: RetryCallState) -> float:
        outcome = retry_state.outcome
        exc = outcome.exception() if outcome is not None and outcome.failed else None
        if isinstance(exc, _Retryable) and exc.hint is not None:
            return exc.hint  # never beyond max_wait: _stop_budget gives up instead of waiting that long
        return float(self.fallback(retry_state))


# --------------------------------------------------------------------------- helpers


def _now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


# --------------------------------------------------------------------------- the client


class Endpoint:
    """One batch's connection to the endpoint: a shared httpx client, semaphore and rate limiters.

    Retry policy (built once per Endpoint as a tenacity ``AsyncRetrying``; each call runs on a ``copy()`` so
    concurrent calls never share iteration state):

    * retried: 408, 409, 429, every 5xx (incl. 529) and transport failures (timeouts, connect errors,
      resets, protocol errors);
    * fatal (``EndpointFatal``, never retried): 401/403, 402, 404, 400/422, any other status, a 429 whose
      JSON error code/type is ``insufficient_quota``, and a base_url httpx cannot speak to;
    * a 2xx whose body is not a valid completion gives ``InfraUnknown("bad_response")`` at once, without a
      retry: the server already generated (and billed) that answer, and a broken proxy tends to stay broken;
    * waits honour ``retry-after-ms``, ``Retry-After`` (seconds or HTTP date, relative to the response's
      ``Date`` header when present), ``x-ratelimit-reset-requests`` / ``-tokens`` (only for the limit whose
      ``x-ratelimit-remaining-*`` is 0 or absent), else exponential backoff with jitter;
    * stop after ``max_attempts`` failures that are not rate limits, or as soon as the next wait would push
      their sum of waits past ``max_wait`` (so a Retry-After beyond the budget gives up at once); 429s count
      only while nothing gets through: a request gives up on them once the endpoint has refused for ``max_wait``
      without a single success from any request (``_stop_budget``).

    Client-side limits, shared by every concurrent complete() on one Endpoint and applied per HTTP attempt:
    a semaphore of ``max_concurrency`` (not held during retry waits); ``tokens_per_minute`` through
    ``aiolimiter.AsyncLimiter(tpm, 60)`` charged prompt chars/4 + max_tokens*n (capped at tpm); and
    ``requests_per_minute`` through ``Pacer``: no burst, sends evenly spaced at RATE_HEADROOM of the limit
    as measured from when each request actually leaves, so strict per-second windows never refuse us.

    Bounded, whatever the endpoint does (docs/endpoint.md, "Caps"): each attempt ends within
    ``attempt_timeout`` (a drip is a ``timeout``), its body is read through ``loop.ask.transport`` (over
    ``max_response_bytes`` decompressed is ``bad_response``), a reply is stored cut to ``max_reply_bytes``, and the
    adaptive limiter caps what it learns (``max_pause``, ``min_requests_per_minute``, ``limit_state_ttl``). The key
    is never in what it hands on: replies and details are redacted.

    Hooks: ``on_send(record)`` before each attempt leaves (its ``error_class`` is IN_FLIGHT), so a killed process
    leaves evidence of what may have been billed; ``on_request(record)`` once the attempt is over (the same
    ``key``); ``on_wait(Wait)`` before a wait worth announcing (loop.ask.waits: a retry hint, a backoff, the limiter).

    ``CassetteError`` (and any other non-HTTP exception) raised by the transport propagates unchanged.
    """

    def __init__(
        self,
        settings: EndpointSettings,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        on_request: Callable[[RequestRecord], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
        on_send: Callable[[RequestRecord], None] | None = None,
        on_wait: Callable[[Wait], None] | None = None,
    ) -> None:
        if settings.max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        if settings.max_concurrency < 1:
            raise ValueError("max_concurrency must be at least 1")
        self.settings = settings
        self._transport = transport
        self._sleep = sleep
        self._on_request = on_request
        self._on_send = on_send
        self._announce = Announcer(on_wait, clock, self._scrub)
        self._keys = itertools.count(1)
        self._clock = clock
        self._client: httpx.AsyncClient | None = None
        self._url = settings.base_url.rstrip("/") + "/chat/completions"
        self._semaphore = asyncio.Semaphore(settings.max_concurrency)
        rpm = settings.requests_per_minute
        # Evenly spaced sends, no burst: a strict per-second or sliding-window server never sees more than
        # its rate (an AsyncLimiter(rpm, 60) would let a whole minute's requests out at once).
        self._pacer = Pacer(60.0 / (rpm * RATE_HEADROOM)) if rpm else None
        tpm = settings.tokens_per_minute
        self._token_limiter = AsyncLimiter(tpm, 60.0) if tpm else None
        self.successes = 0  # 2xx answers so far (the retry budget of a rate-limited request restarts on one)
        self._usage = [0.0, 0.0, 0]  # prompt tokens, completion tokens per choice, answers with usage
        self._adaptive = None
        if settings.adaptive and not rpm:  # an explicit limit wins
            path = None if settings.limit_state == "memory" else Path(settings.limit_state or default_path())
            self._adaptive = AdaptiveLimit(
                limit_key(settings.base_url, settings.api_key), path, max_pause=settings.max_pause,
                min_rate=settings.min_requests_per_minute / 60.0, ttl=settings.limit_state_ttl,
                sleep=self._limiter_sleep)
        self._retrying = AsyncRetrying(
            sleep=self._tenacity_sleep,
            before_sleep=self._before_retry,
            stop=_stop_budget(self),
            wait=_wait_server_hint(wait_exponential_jitter(max=BACKOFF_MAX, jitter=BACKOFF_JITTER)),
            retry=retry_if_exception_type(_Retryable),
            reraise=True,
        )

    # ---- lifecycle

    async def __aenter__(self) -> Endpoint:
        s = self.settings
        headers = {"Accept-Encoding": ACCEPT_ENCODING}
        if s.api_key:
            headers["Authorization"] = f"Bearer {s.api_key}"
        timeout = httpx.Timeout(s.read_timeout, connect=s.connect_timeout, pool=None)
        transport = self._transport if self._transport is not None else live_transport(s)
        self._client = httpx.AsyncClient(headers=headers, timeout=timeout, transport=transport)
        await warm_up()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        if self._adaptive is not None:
            self._adaptive.close()
        client, self._client = self._client, None
        if client is not None:
            await client.aclose()

    # ---- public

    async def complete(
        self, messages: list[dict], *, n: int | None = None, tag: object = None
    ) -> Completion | InfraUnknown:
        """Ask for `n` (default samples_per_request) completions; retry per the module's policy."""
        if self._client is None:
            raise RuntimeError("use `async with Endpoint(...)` before calling complete()")
        s = self.settings
        n = s.samples_per_request if n is None else n
        body = {
            "model": s.model,
            "messages": messages,
            "temperature": s.temperature,
            "max_tokens": s.max_tokens,
            "n": n,
        }
        tokens = estimate_tokens(messages, s.max_tokens, n)
        call = _Call(tag=tag, body=body, tokens=tokens, prompt_estimate=round(tokens - s.max_tokens * n), n=n,
                     oks_seen=self.successes)
        try:
            return await self._retrying.copy()(self._attempt, call)
        except _Retryable as exc:
            return InfraUnknown(exc.reason, self._scrub(exc.detail), call.attempts)
        except BadResponse as exc:
            return InfraUnknown(BAD_RESPONSE, self._scrub(str(exc)), call.attempts)
        finally:
            self._flush(call, 0.0)

    async def complete_each(
        self, messages: list[dict], count: int, *, tag: object = None
    ) -> list[Reply | InfraUnknown]:
        """Exactly `count` answers to one prompt, in one request with n=count where the server honours `n`.

        A server that answers with fewer choices (llama.cpp and Ollama ignore `n`) is asked again for the
        rest; extra choices are dropped. Answers the endpoint could not give are its InfraUnknown.
        """
        replies: list[Reply] = []
        while len(replies) < count:
            result = await self.complete(messages, n=count - len(replies), tag=tag)
            if isinstance(result, InfraUnknown):
                return [*replies, *[result] * (count - len(replies))]
            reasons = result.finish_reasons or [None] * len(result.texts)
            replies += [Reply.of(text, why, self.settings.max_reply_bytes)
                        for text, why in zip(result.texts, reasons)][: count - len(replies)]
        return replies

    # ---- internals

    async def _tenacity_sleep(self, seconds: float) -> None:
        await self._sleep(float(seconds))

    def _before_retry(self, retry_state: RetryCallState) -> None:
        exc = retry_state.outcome.exception() if retry_state.outcome is not None else None
        why = exc.detail if isinstance(exc, _Retryable) else "the last attempt failed"
        self._announce(retry_state.upcoming_sleep, f"retrying after {one_line(why, 120)}")

    async def _limiter_sleep(self, seconds: float) -> None:
        self._announce(seconds, f"the adaptive rate limit for {self.settings.base_url} (`loop endpoint limits`)")
        await asyncio.sleep(seconds)  # the limiter's clock is real time (`sleep` is the retries')

    def _flush(self, call: _Call, wait: float) -> None:
        record, call.pending = call.pending, None
        if record is not None and self._on_request is not None:
            self._on_request(replace(record, wait=wait))

    def _scrub(self, text: str) -> str:
        return redact(text, self.settings.api_key)

    async def _attempt(self, call: _Call) -> Completion:
        assert self._client is not None
        call.attempts += 1
        async with self._semaphore:
            tokens = self._expected_tokens(call)
            if self._token_limiter is not None:
                await self._token_limiter.acquire(min(tokens, self._token_limiter.max_rate))
            mark_sent = await self._pacer.acquire() if self._pacer is not None else None
            limiter_wait, sent = await self._adaptive.acquire(tokens) if self._adaptive is not None else (0.0, 0.0)
            # The previous attempt's record, with the time actually waited before this one goes out
            # (backoff plus any queueing behind the limits), not the backoff that was planned.
            self._flush(call, self._clock() - call.ended)
            s = self.settings
            record = RequestRecord(tag=call.tag, attempt=call.attempts, started_at=_now_iso(), latency=0.0,
                                   status_code=None, error_class=IN_FLIGHT, wait=0.0, prompt_tokens=None,
                                   completion_tokens=None, limiter_wait=limiter_wait, key=next(self._keys))
            if self._on_send is not None:  # before it leaves: a kill from here on leaves this row
                self._on_send(record)
            start = self._clock()
            status: int | None = None
            error: str | None = None
            usage: tuple[int | None, int | None] = (None, None)
            billed = False  # an answer came back: the server may bill it, whatever its body
            extensions: dict[str, Any] = {}
            if mark_sent is not None:

                async def trace(event: str, info: dict) -> None:
                    if event.endswith(("send_request_headers.complete", "send_request_headers.failed")):
                        mark_sent()

                extensions["trace"] = trace
            try:
                try:
                    # one deadline for the whole attempt: httpx's timeouts are per socket read, so a body
                    # dripping a byte a second would never end
                    async with asyncio.timeout(s.attempt_timeout):
                        response = await self._client.post(self._url, json=call.body, extensions=extensions)
                finally:
                    if mark_sent is not None:
                        mark_sent()
                status = response.status_code
                text = decode_text(response.content, response.charset_encoding)
            except TimeoutError:
                error = "AttemptTimeout"
                raise _Retryable(ENDPOINT_TIMEOUT, f"no whole answer within {s.attempt_timeout:g} s "
                                                   "(endpoint.attempt_timeout)") from None
            except httpx.TimeoutException as exc:
                error = type(exc).__name__
                raise _Retryable(ENDPOINT_TIMEOUT, f"{error}: {exc}".rstrip(": ")) from None
            except (httpx.UnsupportedProtocol, httpx.LocalProtocolError) as exc:
                error = type(exc).__name__
                raise EndpointFatal(
                    f"cannot talk to {self._url}: {self._scrub(str(exc))}; check base_url"
                ) from None
            except httpx.DecodingError as exc:
                error, billed = BAD_RESPONSE, True
                raise BadResponse(f"undecodable body: {exc}") from None
            except httpx.TransportError as exc:
                error = type(exc).__name__
                raise _Retryable(CONNECTION, f"{error}: {exc}".rstrip(": ")) from None
            except BaseException as exc:  # CassetteError and friends: record, then propagate untouched
                error = type(exc).__name__
                raise
            else:
                if 200 <= status < 300:
                    billed = True
                    try:
                        parsed = parse_completion(text)
                    except BadResponse:
                        error = BAD_RESPONSE
                        raise
                    usage = (parsed.prompt_tokens, parsed.completion_tokens)
                    self._answered(call, *usage)
                    return Completion([self._scrub(t) for t in parsed.texts], *usage, self._clock() - start,
                                      call.attempts, parsed.raw, parsed.finish_reasons)
                error, failure = self._classify(status, text, response.headers)
                raise failure
            finally:
                if self._adaptive is not None:  # an answer, or none (that too ends a probe's lease)
                    headers = response.headers if status is not None else None
                    self._adaptive.observe(sent, status, headers, retry_hint(headers) if status == 429 else None)
                call.ended = self._clock()
                estimate = (call.prompt_estimate, s.max_tokens * call.n)
                call.pending = replace(
                    record,
                    latency=self._clock() - start,
                    status_code=status,
                    error_class=error,
                    prompt_tokens=usage[0],
                    completion_tokens=usage[1],
                    rate_estimate=self._adaptive.estimate if self._adaptive is not None else None,
                    billed_prompt_tokens=(estimate[0] if usage[0] is None else usage[0]) if billed else None,
                    billed_completion_tokens=(estimate[1] if usage[1] is None else usage[1]) if billed else None,
                )

    def _answered(self, call: _Call, prompt_tokens: int | None, completion_tokens: int | None) -> None:
        self.successes += 1
        if prompt_tokens is not None and completion_tokens is not None:
            self._usage[0] += prompt_tokens
            self._usage[1] += completion_tokens / max(1, call.n)
            self._usage[2] += 1

    def _expected_tokens(self, call: _Call) -> float:
        """What a request is expected to cost against a tokens-per-minute limit: from the usage of the answers
        so far (prompt, and completion per choice times n), else an estimate from its text and max_tokens."""
        prompt, per_choice, answers = self._usage
        return (prompt + per_choice * call.n) / answers if answers else call.tokens

    def _classify(self, status: int, text: str, headers: httpx.Headers) -> tuple[str, Exception]:
        """(error_class, exception to raise) for a non-2xx response: _Retryable or EndpointFatal."""
        s = self.settings
        code, message = error_info(text)
        label = f"{status} {phrase(status)}".rstrip()
        said = f": {one_line(self._scrub(message or text), 200)}" if (message or text.strip()) else ""
        if status == 429 and code == "insufficient_quota":
            return "insufficient_quota", EndpointFatal(
                f"endpoint returned 429 insufficient_quota: the account behind the API key has no quota "
                f"left; check its plan and billing"
            )
        if status in RETRY_STATUSES or status >= 500:
            reason = {429: RATE_LIMITED, 408: ENDPOINT_TIMEOUT}.get(status, SERVER_ERROR)
            return reason, _Retryable(reason, f"endpoint returned {label}{said}", retry_hint(headers))
        fatal = f"http_{status}"
        where = f"the API key in {s.key_hint}" if s.key_hint else "the API key"
        if status in (401, 403):
            unset = f"set {s.key_hint}" if s.key_hint else "configure one"
            check = f"check {where}" if s.api_key else f"no API key is set; {unset}"
            return fatal, EndpointFatal(f"endpoint returned {label}: {check}")
        if status == 402:
            return fatal, EndpointFatal(f"endpoint returned {label}: check the plan and billing behind {where}")
        if status == 404:
            return fatal, EndpointFatal(
                f"endpoint returned {label} for {self._url} (model {s.model!r}): check base_url and the model name"
            )
        if status in (400, 422):
            # A hint only where the body points at the request's own fields: gateways answer 400 for
            # their own trouble too (LiteLLM: a bad key is `no_db_connection`).
            about = _REQUEST_FIELDS.findall(f"{code or ''} {message or text}".lower())
            hint = f"; check {', '.join(sorted(set(about)))}" if about else ""
            return fatal, EndpointFatal(f"endpoint returned {label}{said}{hint}")
        return fatal, EndpointFatal(f"endpoint returned unexpected {label}{said}; check base_url")
