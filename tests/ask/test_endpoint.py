"""Endpoint behaviour against a real scripted HTTP server on 127.0.0.1 (and MockTransport where enough).

Waits are asserted through an injected sleep, so retries cost no real time.
"""

from __future__ import annotations

import asyncio
import json
import socket
import struct
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from loop.ask.endpoint import (
    RATE_HEADROOM,
    RETRY_STATUSES,
    Completion,
    Endpoint,
    EndpointSettings,
    InfraUnknown,
    RequestRecord,
)
from loop.ask.retry_hints import parse_duration, retry_hint
from loop.errors import CassetteError, EndpointFatal
from loop.verdicts import BAD_RESPONSE, CONNECTION, ENDPOINT_TIMEOUT, RATE_LIMITED, SERVER_ERROR

KEY = "sk-test-SECRET-0123456789"
MESSAGES = [{"role": "user", "content": "fix it"}]


def ok_body(*texts: str, prompt_tokens: int = 7, completion_tokens: int = 5) -> dict:
    return {
        "id": "cmpl-1",
        "object": "chat.completion",
        "choices": [
            {"index": i, "message": {"role": "assistant", "content": t}, "finish_reason": "stop"}
            for i, t in enumerate(texts or ("hello",))
        ],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens},
    }


def reply(status: int = 200, body: str | dict | None = None, headers: dict | None = None, delay: float = 0.0) -> dict:
    if body is None:
        body = ok_body() if status == 200 else {"error": {"message": "nope", "type": "x", "code": None}}
    return {"status": status, "body": body, "headers": headers or {}, "delay": delay}


RESET = {"reset": True}


class ScriptedServer:
    """Serves scripted replies in order (the last one repeats), counting hits and in-flight requests."""

    def __init__(self, script: list[dict]) -> None:
        self.script = list(script)
        self.hits = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self.requests: list[dict] = []
        self.arrivals: list[float] = []
        self.lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", 0))
                raw = self.rfile.read(length)
                with outer.lock:
                    outer.arrivals.append(time.monotonic())
                    index = min(outer.hits, len(outer.script) - 1)
                    outer.hits += 1
                    outer.in_flight += 1
                    outer.max_in_flight = max(outer.max_in_flight, outer.in_flight)
                    outer.requests.append(
                        {"path": self.path, "headers": dict(self.headers), "body": json.loads(raw)}
                    )
                action = outer.script[index]
                try:
                    if action.get("delay"):
                        time.sleep(action["delay"])
                    if action.get("reset"):
                        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                        self.connection.close()
                        self.close_connection = True
                        return
                    body = action["body"]
                    data = (body if isinstance(body, str) else json.dumps(body)).encode()
                    self.send_response_only(action["status"])
                    headers = {"Content-Type": "application/json", **action["headers"]}
                    for name, value in headers.items():
                        self.send_header(name, value)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                finally:
                    with outer.lock:
                        outer.in_flight -= 1

        class Server(ThreadingHTTPServer):
            daemon_threads = True
            block_on_close = False

            def handle_error(self, request: object, client_address: object) -> None:
                pass  # resets and timed-out clients are expected here

        self.httpd = Server(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.01,), daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> ScriptedServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class Harness:
    """Collects sleeps and RequestRecords for one Endpoint. Sleeps return at once but move its clock on,
    so a record's `wait` (measured, not planned) reads as if the sleep had happened."""

    def __init__(self) -> None:
        self.sleeps: list[float] = []
        self.records: list[RequestRecord] = []
        self.slept = 0.0

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.slept += seconds

    def clock(self) -> float:
        return time.monotonic() + self.slept

    def settings(self, base_url: str, **kw: object) -> EndpointSettings:
        defaults: dict = {"model": "m1", "api_key": KEY, "max_attempts": 6, "adaptive": False}  # test_ratelimit.py has it
        defaults.update(kw)
        return EndpointSettings(base_url=base_url, **defaults)

    def endpoint(self, settings: EndpointSettings, **kw: object) -> Endpoint:
        return Endpoint(settings, sleep=self.sleep, clock=self.clock, on_request=self.records.append, **kw)

    def run(self, settings: EndpointSettings, messages: list[dict] = MESSAGES, **kw: object):
        async def go():
            async with self.endpoint(settings) as ep:
                return await ep.complete(messages, **kw)

        return asyncio.run(go())

    @property
    def statuses(self) -> list[int | None]:
        return [r.status_code for r in self.records]


def serve_and_run(script: list[dict], **settings_kw: object):
    h = Harness()
    with ScriptedServer(script) as server:
        result = h.run(h.settings(server.base_url, **settings_kw), tag="cand-1")
    return h, server, result


class VirtualClockLoop(asyncio.SelectorEventLoop):
    """An event loop whose clock moves only by the waits the code asks for: with nothing ready it jumps to the
    next timer instead of sleeping, so spacing and timeouts read exactly, however loaded the machine. Only for
    code without real I/O (httpx.MockTransport): a socket's answer would come at no particular virtual time."""

    def __init__(self) -> None:
        super().__init__()
        self.now = 0.0
        real, loop = self._selector, self

        class Jumping:
            def select(self, timeout: float | None = None):
                events = real.select(0)
                if events or timeout == 0:
                    return events
                if timeout is None:  # nothing scheduled: a wait that would never end
                    events = real.select(10)
                    if not events:
                        raise RuntimeError("deadlock: nothing is ready and no timer is set")
                    return events
                loop.now += timeout
                return events

            def __getattr__(self, name: str):
                return getattr(real, name)

        self._selector = Jumping()

    def time(self) -> float:
        return self.now


def run_virtual(coro):
    with asyncio.Runner(loop_factory=VirtualClockLoop) as runner:
        return runner.run(coro)


# ---------------------------------------------------------------- retries and waits


def test_retry_after_seconds_then_success():
    h, server, result = serve_and_run([reply(429, headers={"Retry-After": "2"}), reply(200, ok_body("a", "b"))])
    assert isinstance(result, Completion)
    assert result.texts == ["a", "b"] and result.attempts == 2
    assert (result.prompt_tokens, result.completion_tokens) == (7, 5)
    assert h.sleeps == [2.0]
    assert server.hits == 2
    assert h.statuses == [429, 200]
    assert [r.error_class for r in h.records] == [RATE_LIMITED, None]
    assert [r.wait for r in h.records] == pytest.approx([2.0, 0.0], abs=0.05)  # measured: the sleep and a little
    assert [r.attempt for r in h.records] == [1, 2]
    assert all(r.tag == "cand-1" for r in h.records)
    assert h.records[1].completion_tokens == 5
    assert server.requests[0]["path"] == "/v1/chat/completions"


def test_retry_after_ms_wins():
    h, server, result = serve_and_run(
        [reply(503, headers={"retry-after-ms": "1500", "Retry-After": "9"}), reply(200)]
    )
    assert isinstance(result, Completion)
    assert h.sleeps == [1.5]


def test_retry_after_http_date_relative_to_date_header():
    headers = {"Date": "Wed, 21 Oct 2015 07:28:00 GMT", "Retry-After": "Wed, 21 Oct 2015 07:28:05 GMT"}
    h, server, result = serve_and_run([reply(429, headers=headers), reply(200)])
    assert isinstance(result, Completion)
    assert h.sleeps == [5.0]


def test_retry_after_http_date_without_date_header_uses_local_clock():
    from email.utils import formatdate

    h, server, result = serve_and_run([reply(429, headers={"Retry-After": formatdate(time.time() + 3, usegmt=True)}), reply(200)])
    assert isinstance(result, Completion)
    assert len(h.sleeps) == 1 and 1.5 < h.sleeps[0] <= 3.0


def test_retry_after_beyond_budget_gives_up_without_sleeping():
    h, server, result = serve_and_run([reply(429, headers={"Retry-After": "3600"}), reply(200)])
    assert result == InfraUnknown(RATE_LIMITED, result.detail, 1)
    assert "429" in result.detail
    assert h.sleeps == []
    assert server.hits == 1
    assert [r.wait for r in h.records] == [0.0]


def test_wait_budget_is_cumulative():
    h, server, result = serve_and_run([reply(429, headers={"Retry-After": "2"})], max_wait=5.0)
    assert isinstance(result, InfraUnknown) and result.reason == RATE_LIMITED
    assert h.sleeps == [2.0, 2.0]  # a third 2 s wait would pass the 5 s budget
    assert server.hits == 3 and result.attempts == 3


def test_server_error_until_attempts_run_out_uses_backoff():
    h, server, result = serve_and_run([reply(503, body="<html>busy</html>")], max_attempts=4)
    assert isinstance(result, InfraUnknown)
    assert result.reason == SERVER_ERROR and result.attempts == 4
    assert server.hits == 4
    assert h.statuses == [503] * 4
    assert len(h.sleeps) == 3
    for k, wait in enumerate(h.sleeps):  # 1, 2, 4 seconds plus up to 1 s of jitter
        assert 2**k <= wait <= 2**k + 1
    assert [r.wait for r in h.records] == pytest.approx(h.sleeps + [0.0], abs=0.05)


@pytest.mark.parametrize("status", [408, 409, 500, 502, 504, 529])
def test_other_retryable_statuses(status):
    h, server, result = serve_and_run([reply(status), reply(200)])
    assert isinstance(result, Completion) and result.attempts == 2
    assert server.hits == 2


@pytest.mark.parametrize("status", [501, 505, 507, 508, 511, 520, 521, 524, 530, 598, 599])
def test_every_5xx_is_retried_then_succeeds(status):
    """Any status from 500 up is the server's trouble, not only the ones RETRY_STATUSES names."""
    assert status not in RETRY_STATUSES
    h, server, result = serve_and_run([reply(status), reply(status), reply(200, ok_body("late"))])
    assert isinstance(result, Completion) and result.texts == ["late"] and result.attempts == 3
    assert server.hits == 3 and h.statuses == [status, status, 200]
    assert [r.error_class for r in h.records] == [SERVER_ERROR, SERVER_ERROR, None]
    assert len(h.sleeps) == 2


FATAL_4XX = sorted(set(range(400, 500)) - {408, 409, 429})  # endpoint.py retries 408, 409 and 429 only


@pytest.mark.slow
def test_no_other_4xx_is_retried():
    assert RETRY_STATUSES & set(range(400, 500)) == {408, 409, 429}
    retried = {}
    for status in FATAL_4XX:
        h = Harness()
        with ScriptedServer([reply(status), reply(200)]) as server:
            try:
                outcome = type(h.run(h.settings(server.base_url))).__name__
            except EndpointFatal:
                outcome = "EndpointFatal"
        if outcome != "EndpointFatal" or server.hits != 1 or h.sleeps or h.statuses != [status]:
            retried[status] = (outcome, server.hits, h.sleeps)
    assert retried == {}  # status: (outcome, requests, waits)


def test_ratelimit_reset_headers_parsed():
    assert parse_duration("1s") == 1.0
    assert parse_duration("6m0s") == 360.0
    assert parse_duration("20ms") == pytest.approx(0.02)
    assert parse_duration("1h2m3.5s") == 3723.5
    assert parse_duration("2.5") == 2.5
    assert parse_duration("soon") is None and parse_duration("") is None and parse_duration("1s2") is None
    # only the exhausted limit's reset counts
    assert retry_hint({"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "1m30s",
                       "x-ratelimit-remaining-tokens": "5000", "x-ratelimit-reset-tokens": "6m0s"}) == 90.0
    assert retry_hint({"x-ratelimit-reset-tokens": "20ms"}) == pytest.approx(0.02)
    assert retry_hint({"retry-after": "garbage"}) is None
    h, server, result = serve_and_run(
        [reply(429, headers={"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "1m30s",
                             "x-ratelimit-remaining-tokens": "5000", "x-ratelimit-reset-tokens": "6m0s"}),
         reply(200)]
    )
    assert isinstance(result, Completion)
    assert h.sleeps == [90.0]


# ---------------------------------------------------------------- transport failures


def test_connection_reset_is_retried_then_connection():
    h, server, result = serve_and_run([RESET], max_attempts=3)
    assert isinstance(result, InfraUnknown) and result.reason == CONNECTION
    assert server.hits == 3 and result.attempts == 3
    assert h.statuses == [None] * 3
    assert all(r.error_class for r in h.records)
    assert len(h.sleeps) == 2


def test_connection_reset_then_success():
    h, server, result = serve_and_run([RESET, reply(200)])
    assert isinstance(result, Completion) and result.attempts == 2


def test_read_timeout_is_retried_then_timeout():
    h, server, result = serve_and_run([reply(200, delay=3.0)], max_attempts=2, read_timeout=0.1)
    assert isinstance(result, InfraUnknown) and result.reason == ENDPOINT_TIMEOUT
    assert server.hits == 2
    assert [r.error_class for r in h.records] == ["ReadTimeout", "ReadTimeout"]
    assert all(0.09 < r.latency < 3.0 for r in h.records)  # waited out the timeout, never the answer


def test_connect_error_is_connection():
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()  # nothing listens there now
    h = Harness()
    result = h.run(h.settings(f"http://127.0.0.1:{port}/v1", max_attempts=2))
    assert isinstance(result, InfraUnknown) and result.reason == CONNECTION
    assert [r.error_class for r in h.records] == ["ConnectError", "ConnectError"]


# ---------------------------------------------------------------- fatal answers


def test_401_is_fatal_and_never_shows_the_key():
    h = Harness()
    body = {"error": {"message": f"Incorrect API key provided: {KEY}", "type": "invalid_request_error"}}
    with ScriptedServer([reply(401, body)]) as server:
        with pytest.raises(EndpointFatal) as info:
            h.run(h.settings(server.base_url, key_hint="$OPENAI_API_KEY"))
    message = str(info.value)
    assert "401" in message and "$OPENAI_API_KEY" in message and "\n" not in message
    assert KEY not in message
    assert server.hits == 1
    assert h.statuses == [401] and h.sleeps == []


def test_insufficient_quota_429_is_fatal():
    body = {"error": {"message": "You exceeded your current quota", "type": "insufficient_quota",
                      "code": "insufficient_quota"}}
    h = Harness()
    with ScriptedServer([reply(429, body, headers={"Retry-After": "1"})]) as server:
        with pytest.raises(EndpointFatal, match="insufficient_quota"):
            h.run(h.settings(server.base_url))
    assert server.hits == 1 and h.sleeps == []
    assert [r.error_class for r in h.records] == ["insufficient_quota"]


@pytest.mark.parametrize("status,words", [(403, "API key"), (404, "model"), (400, "nope"), (422, "nope"), (405, "405")])
def test_client_errors_are_fatal(status, words):
    h = Harness()
    with ScriptedServer([reply(status)]) as server:
        with pytest.raises(EndpointFatal, match=words):
            h.run(h.settings(server.base_url))
    assert server.hits == 1


def test_bad_scheme_is_fatal():
    h = Harness()
    with pytest.raises(EndpointFatal, match="base_url"):
        h.run(h.settings("ftp://127.0.0.1:1/v1"))


# ---------------------------------------------------------------- malformed bodies


@pytest.mark.parametrize(
    "body",
    [
        "<html><body>502 Bad Gateway</body></html>",
        '{"choices": [{"message": {"content": "trunc',
        {"choices": []},
        {"object": "chat.completion"},
        {"choices": [{"index": 0, "message": {"role": "assistant", "content": None}}]},
        [1, 2],
    ],
    ids=["html", "truncated", "empty-choices", "no-choices", "null-content", "not-object"],
)
def test_malformed_200_is_bad_response_without_retry(body):
    h, server, result = serve_and_run([reply(200, body), reply(200)])
    assert isinstance(result, InfraUnknown)
    assert result.reason == BAD_RESPONSE and result.attempts == 1
    assert server.hits == 1
    assert [r.error_class for r in h.records] == [BAD_RESPONSE]


# ---------------------------------------------------------------- request shape, key handling, limits


def test_request_body_and_authorization():
    h = Harness()
    with ScriptedServer([reply(200)]) as server:
        s = h.settings(server.base_url + "/", temperature=0.3, max_tokens=99, samples_per_request=2)
        h.run(s)
        h.run(s, n=5)
        h.run(EndpointSettings(base_url=server.base_url, model="m1"))
    first, second, third = server.requests
    assert first["body"] == {"model": "m1", "messages": MESSAGES, "temperature": 0.3, "max_tokens": 99, "n": 2}
    assert second["body"]["n"] == 5
    assert first["headers"].get("Authorization") == f"Bearer {KEY}"
    assert "Authorization" not in third["headers"]
    assert KEY not in repr(s)
    assert all(KEY not in repr(r) for r in h.records)


def test_choices_sorted_by_index_and_usage_optional():
    body = {"choices": [{"index": 1, "message": {"content": "second"}}, {"index": 0, "message": {"content": "first"}}]}

    async def go():
        transport = httpx.MockTransport(lambda request: httpx.Response(200, json=body))
        async with Endpoint(EndpointSettings(base_url="http://x/v1", model="m"), transport=transport) as ep:
            return await ep.complete(MESSAGES)

    result = asyncio.run(go())
    assert result.texts == ["first", "second"]
    assert result.prompt_tokens is None and result.completion_tokens is None
    assert result.raw == body


def test_max_concurrency_is_respected():
    h = Harness()

    async def go(base_url: str):
        async with h.endpoint(h.settings(base_url, max_concurrency=3)) as ep:
            return await asyncio.gather(*(ep.complete(MESSAGES, tag=i) for i in range(9)))

    with ScriptedServer([reply(200, delay=0.08)]) as server:
        results = asyncio.run(go(server.base_url))
    assert all(isinstance(r, Completion) for r in results)
    assert server.hits == 9
    assert server.max_in_flight == 3
    assert sorted(r.tag for r in h.records) == list(range(9))


def test_requests_per_minute_spaces_requests():
    """Five requests at once under 1200 requests a minute go out evenly spaced, at RATE_HEADROOM of the limit
    (on a virtual clock: the spacing is what the pacer waited, not what a busy machine let through)."""
    arrivals = []

    def handler(request: httpx.Request) -> httpx.Response:
        arrivals.append(asyncio.get_running_loop().time())
        return httpx.Response(200, json=ok_body())

    async def go():
        s = EndpointSettings(base_url="http://api.test/v1", model="m1", api_key=KEY, requests_per_minute=1200,
                             max_concurrency=8, adaptive=False)
        async with Endpoint(s, transport=httpx.MockTransport(handler)) as ep:
            return await asyncio.gather(*(ep.complete(MESSAGES) for _ in range(5)))

    assert all(isinstance(r, Completion) for r in run_virtual(go()))
    gaps = [b - a for a, b in zip(arrivals, arrivals[1:])]
    assert gaps == pytest.approx([60 / (1200 * RATE_HEADROOM)] * 4)  # 0.0508 s apart; unpaced they would be 0


def test_token_estimate_is_capped_to_limiter():
    async def go():
        transport = httpx.MockTransport(lambda request: httpx.Response(200, json=ok_body()))
        s = EndpointSettings(base_url="http://x/v1", model="m", tokens_per_minute=100, max_tokens=4096)
        async with Endpoint(s, transport=transport) as ep:
            return await ep.complete(MESSAGES, n=4)

    assert isinstance(asyncio.run(go()), Completion)


def test_non_http_errors_from_transport_propagate():
    def handler(request: httpx.Request) -> httpx.Response:
        raise CassetteError("cassette x has no answer")

    records: list[RequestRecord] = []

    async def go():
        async with Endpoint(EndpointSettings(base_url="http://x/v1", model="m"),
                            transport=httpx.MockTransport(handler), on_request=records.append) as ep:
            return await ep.complete(MESSAGES)

    with pytest.raises(CassetteError):
        asyncio.run(go())
    assert [r.error_class for r in records] == ["CassetteError"]


def test_complete_outside_context_is_a_programming_error():
    ep = Endpoint(EndpointSettings(base_url="http://x/v1", model="m"))
    with pytest.raises(RuntimeError):
        asyncio.run(ep.complete(MESSAGES))


# ---------------------------------------------------------------- pacing by actual send time


def test_pacer_spaces_from_the_late_send_and_caps_the_wait():
    from loop.ask.pacing import Pacer as _Pacer

    async def go():
        loop = asyncio.get_running_loop()
        pacer = _Pacer(0.05, grace=0.1)
        mark = await pacer.acquire()
        first = loop.time()
        await asyncio.sleep(0.08)  # the first request only goes out now (say, a slow connect)
        mark()
        sent = loop.time()
        await pacer.acquire()  # never marked: the third waits at most `grace` for it
        second = loop.time()
        await pacer.acquire()
        third = loop.time()
        return first, sent, second, third

    first, sent, second, third = run_virtual(go())  # a virtual clock: only the waits asked for pass
    assert sent - first == pytest.approx(0.08)
    assert second - sent == pytest.approx(0.05)  # interval counted from the send, not from the slot (0.05)
    assert third - second == pytest.approx(0.1)  # grace; the interval from the unmarked slot has passed by then


@pytest.mark.slow
def test_pacer_uses_trace_so_slow_answers_do_not_slow_sends():
    """Sends are paced from when each request is on the wire (httpcore's trace), not from its answer: three
    requests 0.05 s apart all reach a server that takes 1.2 s to answer each before it answers the first.
    Paced from the answers, the second would wait out the pacer's grace (1 s) and the third would leave only
    after the first answer: never three at the server at once."""
    h = Harness()

    async def go(base_url: str):
        async with h.endpoint(h.settings(base_url, requests_per_minute=1200, max_concurrency=4)) as ep:
            return await asyncio.gather(*(ep.complete(MESSAGES) for _ in range(3)))

    with ScriptedServer([reply(200, delay=1.2)]) as server:
        results = asyncio.run(go(server.base_url))
    assert all(isinstance(r, Completion) for r in results)
    assert server.hits == 3 and server.max_in_flight == 3


# ---------------------------------------------------------------- issue 33: pacing never costs a sample


def test_rate_limits_do_not_use_up_the_attempts_of_a_request():
    """max_attempts counts failures that are not rate limits: eight 429s in a row, then an answer, is served."""
    h, server, result = serve_and_run([*[reply(429, headers={"Retry-After": "0"})] * 8, reply(200, ok_body("a"))],
                                      max_attempts=2)
    assert isinstance(result, Completion) and result.texts == ["a"] and result.attempts == 9
    assert h.statuses == [429] * 8 + [200]


def test_a_refused_request_waits_on_while_others_get_through():
    """A request refused five times, 2 s each, with max_wait 5 s: each wait, another request gets through, so
    the endpoint is not refusing (only pacing) and the refused request is served in the end. With nothing
    getting through, the same script gives up on the third refusal (test_wait_budget_is_cumulative)."""
    hits = {"victim": 0}

    def handler(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        if body["messages"][0]["content"] == "victim":
            hits["victim"] += 1
            if hits["victim"] <= 5:
                return httpx.Response(429, json={"error": {"message": "slow down"}}, headers={"Retry-After": "2"})
        return httpx.Response(200, json=ok_body("ok"))

    async def go():
        ep = None

        async def sleep(seconds: float) -> None:
            await ep.complete([{"role": "user", "content": "other"}])  # someone else's request, answered

        settings = EndpointSettings(base_url="http://api.test/v1", model="m1", api_key=KEY, max_wait=5.0,
                                    adaptive=False)
        async with Endpoint(settings, transport=httpx.MockTransport(handler), sleep=sleep) as ep:
            return await ep.complete([{"role": "user", "content": "victim"}])

    result = asyncio.run(go())
    assert isinstance(result, Completion) and result.attempts == 6 and hits["victim"] == 6


def test_tokens_per_request_are_learned_from_the_answers():
    """A request's expected cost against a tokens-per-minute limit: an estimate at first, then the answers'
    own usage (prompt, plus completion per choice times n)."""
    asked = []

    def handler(request: httpx.Request) -> httpx.Response:
        n = json.loads(request.content)["n"]
        return httpx.Response(200, json=ok_body(*["x"] * n, prompt_tokens=100, completion_tokens=300 * n))

    async def go():
        settings = EndpointSettings(base_url="http://api.test/v1", model="m1", api_key=KEY, adaptive=True,
                                    limit_state="memory", max_tokens=2048)
        async with Endpoint(settings, transport=httpx.MockTransport(handler)) as ep:
            real = ep._adaptive.acquire

            async def acquire(tokens: float = 0.0):
                asked.append(tokens)
                return await real(tokens)

            ep._adaptive.acquire = acquire
            await ep.complete(MESSAGES)
            await ep.complete(MESSAGES)
            await ep.complete(MESSAGES, n=3)

    asyncio.run(go())
    assert asked[0] > 2048  # the estimate: the prompt's characters / 4 plus max_tokens
    assert asked[1:] == [pytest.approx(100 + 300), pytest.approx(100 + 300 * 3)]


# ---------------------------------------------------------------- issue 43: hooks a CLI and a store hang on


def test_a_long_wait_is_announced_and_every_attempt_is_recorded_before_it_leaves():
    answers = iter([httpx.Response(429, headers={"Retry-After": "30"}, json={"error": {"message": "slow"}}),
                    httpx.Response(429, headers={"Retry-After": "2"}, json={"error": {"message": "slow"}}),
                    httpx.Response(200, json=ok_body("done"))])
    sent, done, waits, slept = [], [], [], []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    async def go():
        transport = httpx.MockTransport(lambda request: next(answers))
        settings = EndpointSettings(base_url="http://x/v1", model="m", api_key=KEY, adaptive=False)
        async with Endpoint(settings, transport=transport, sleep=sleep, on_send=sent.append,
                            on_request=done.append, on_wait=waits.append) as ep:
            return await ep.complete(MESSAGES)

    assert asyncio.run(go()).texts == ["done"]
    assert slept == [30.0, 2.0]
    (wait,) = waits  # 2 s is not worth a word
    assert wait.seconds == 30.0 and "429 Too Many Requests" in wait.reason and str(wait).startswith("waiting 30 s, until ")
    assert [r.error_class for r in sent] == ["in_flight"] * 3 and [r.status_code for r in done] == [429, 429, 200]
    assert [r.key for r in sent] == [r.key for r in done] == [1, 2, 3]
    assert [r.billed_completion_tokens for r in done] == [None, None, 5]
