"""Record/replay transports: a replay reproduces the live run, unknown or malformed input fails fast.

The live side is an httpx MockTransport, which is all a transport wrapper needs.
"""

from __future__ import annotations

import asyncio
import gzip
import json
from pathlib import Path

import httpx
import pytest

from loop.ask.cassette import RecordingTransport, ReplayTransport, exchange, match_key
from loop.ask.endpoint import Completion, Endpoint, EndpointSettings, InfraUnknown, RequestRecord
from loop.errors import CassetteError
from loop.verdicts import CONNECTION, RATE_LIMITED

KEY = "sk-cassette-SECRET-42"


def settings(**kw: object) -> EndpointSettings:
    base = {"base_url": "https://api.example.test/v1", "model": "m1", "api_key": KEY, "max_attempts": 3}
    base.update(kw)
    return EndpointSettings(**base)


def chat(text: str, n: int = 1) -> dict:
    return {
        "choices": [{"index": i, "message": {"role": "assistant", "content": f"{text}#{i}"}} for i in range(n)],
        "usage": {"prompt_tokens": 3, "completion_tokens": 4},
    }


def live_handler(log: list[dict]):
    """First request for each prompt gets a 429, later ones a gzip-encoded 200."""
    seen: set[str] = set()

    def handle(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        log.append({"headers": dict(request.headers), "body": body})
        prompt = body["messages"][0]["content"]
        if prompt == "boom":
            raise httpx.ReadTimeout("slow", request=request)
        if prompt not in seen:
            seen.add(prompt)
            return httpx.Response(429, headers={"Retry-After": "1"}, json={"error": {"message": "slow down"}})
        data = gzip.compress(json.dumps(chat(prompt, body["n"])).encode())
        return httpx.Response(200, headers={"content-encoding": "gzip", "content-type": "application/json",
                                            "set-cookie": "session=abc"}, content=data)

    return handle


async def drive(transport: httpx.AsyncBaseTransport, prompts: list[str], **kw: object):
    sleeps: list[float] = []
    records: list[RequestRecord] = []

    async def sleep(s: float) -> None:
        sleeps.append(s)

    async with Endpoint(settings(**kw), transport=transport, sleep=sleep, on_request=records.append) as ep:
        results = [await ep.complete([{"role": "user", "content": p}], n=2, tag=p) for p in prompts]
    return results, records, sleeps


def strip_latency(result: object) -> object:
    return (result.texts, result.prompt_tokens, result.completion_tokens, result.attempts, result.raw) \
        if isinstance(result, Completion) else result


@pytest.mark.slow
def test_record_then_replay_matches_live(tmp_path: Path):
    path = tmp_path / "run.jsonl"
    log: list[dict] = []
    live = asyncio.run(drive(RecordingTransport(httpx.MockTransport(live_handler(log)), path), ["a", "b", "boom"]))
    replay = asyncio.run(drive(ReplayTransport(path), ["a", "b", "boom"]))

    live_results, live_records, live_sleeps = live
    replay_results, replay_records, replay_sleeps = replay
    assert [strip_latency(r) for r in replay_results] == [strip_latency(r) for r in live_results]
    assert live_results[0].texts == ["a#0", "a#1"]
    assert isinstance(live_results[2], InfraUnknown) and live_results[2].reason == "timeout"
    statuses = [r.status_code for r in live_records]
    assert statuses == [429, 200, 429, 200, None, None, None]
    assert [r.status_code for r in replay_records] == statuses
    assert [r.error_class for r in replay_records] == [r.error_class for r in live_records]
    assert replay_sleeps[:2] == live_sleeps[:2] == [1.0, 1.0]  # later ones are jittered backoff

    text = path.read_text()
    assert KEY not in text and "authorization" not in text.lower()
    assert "session=abc" not in text
    assert log[0]["headers"]["authorization"] == f"Bearer {KEY}"  # the live server did get the key
    lines = [json.loads(line) for line in text.splitlines()]
    assert len(lines) == 7
    assert lines[0]["status"] == 429 and lines[0]["headers"]["retry-after"] == "1"
    assert lines[1]["request"]["body"]["messages"] == [{"role": "user", "content": "a"}]
    assert json.loads(lines[1]["body"])["choices"][0]["message"]["content"] == "a#0"
    assert "content-encoding" not in lines[1]["headers"]
    assert lines[4] == {"request": lines[4]["request"], "error": "ReadTimeout", "message": "slow"}


def test_recording_flushes_each_line(tmp_path: Path):
    path = tmp_path / "c.jsonl"

    async def go():
        transport = RecordingTransport(httpx.MockTransport(lambda r: httpx.Response(200, json=chat("x"))), path)
        async with Endpoint(settings(), transport=transport) as ep:
            await ep.complete([{"role": "user", "content": "x"}])
            return path.read_text()  # before the transport is closed

    assert len(asyncio.run(go()).splitlines()) == 1


def test_unknown_request_raises_fast(tmp_path: Path):
    path = tmp_path / "c.jsonl"
    body = {"model": "m1", "messages": [{"role": "user", "content": "known"}], "temperature": 0.8,
            "max_tokens": 2048, "n": 1}
    path.write_text(json.dumps(exchange(body, 200, chat("k"))) + "\n")
    transport = ReplayTransport(path)

    slept = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    async def go(prompt: str):
        async with Endpoint(settings(), transport=transport, sleep=sleep) as ep:
            return await ep.complete([{"role": "user", "content": prompt}])

    assert asyncio.run(go("known")).texts == ["k#0"]
    with pytest.raises(CassetteError) as info:
        asyncio.run(go("never recorded question"))
    assert slept == []  # raised at once: no retry, no wait
    message = str(info.value)
    assert str(path) in message and "#2" in message and "m1" in message and "never recorded" in message
    with pytest.raises(CassetteError, match="used up"):
        asyncio.run(go("known"))
    # the task the prompt names, as the shipped templates name it (issue 47: the message named no task)
    with pytest.raises(CassetteError, match="task 'humaneval_012'"):
        asyncio.run(go("Fix the function.\n\nTask: humaneval_012\n\nThe function..."))


@pytest.mark.slow
def test_curated_lines_with_labels_and_volatile_fields(tmp_path: Path):
    body = {"model": "m1", "messages": [{"role": "user", "content": "q"}], "temperature": 0.8,
            "max_tokens": 2048, "n": 1}
    lines = [
        exchange(body, 429, {"error": {"message": "later"}}, {"Retry-After": "3"}, label="rate limit", curated=True),
        exchange(body, 200, chat("q"), label="then fine"),
    ]
    assert lines[0]["headers"] == {"retry-after": "3"} and lines[0]["label"] == "rate limit"
    path = tmp_path / "demo.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n\n")
    assert match_key({**body, "user": "someone"}) == match_key(body)
    assert match_key({**body, "n": 2}) != match_key(body)
    transport = ReplayTransport(path)
    assert transport.remaining() == 2

    async def go():
        out = []
        async def sleep(s: float) -> None:
            out.append(s)
        async with Endpoint(settings(), transport=transport, sleep=sleep) as ep:
            return await ep.complete([{"role": "user", "content": "q"}]), out

    result, waits = asyncio.run(go())
    assert result.texts == ["q#0"] and result.attempts == 2 and waits == [3.0]
    assert transport.remaining() == 0


@pytest.mark.slow
def test_replayed_rate_limit_exhausts_like_live(tmp_path: Path):
    body = {"model": "m1", "messages": [{"role": "user", "content": "q"}], "temperature": 0.8,
            "max_tokens": 2048, "n": 1}
    path = tmp_path / "c.jsonl"
    path.write_text("".join(json.dumps(exchange(body, 429, "{}", {"retry-after": "1"})) + "\n" for _ in range(3)))

    async def go():
        async def sleep(s: float) -> None:
            pass
        # nothing else gets through: the endpoint stays refused, 1 s at a time, past max_wait on the third
        async with Endpoint(settings(max_wait=2.5), transport=ReplayTransport(path), sleep=sleep) as ep:
            return await ep.complete([{"role": "user", "content": "q"}])

    result = asyncio.run(go())
    assert isinstance(result, InfraUnknown) and result.reason == RATE_LIMITED and result.attempts == 3


@pytest.mark.parametrize(
    "content,line,words",
    [
        ('{"request": {"body": {}}, "status": 200, "body": ""}\nnot json\n', 2, "not valid JSON"),
        ('\n{"status": 200, "body": ""}\n', 2, "request.body"),
        ('{"request": {"body": {}}, "status": "200", "body": ""}\n', 1, "status"),
        ('{"request": {"body": {}}, "error": "Meteor"}\n', 1, "Meteor"),
        ("[1]\n", 1, "object"),
    ],
)
def test_malformed_cassette_names_file_and_line(tmp_path: Path, content: str, line: int, words: str):
    path = tmp_path / "bad.jsonl"
    path.write_text(content)
    with pytest.raises(CassetteError) as info:
        ReplayTransport(path)
    assert f"{path}:{line}" in str(info.value) and words in str(info.value)


def test_missing_cassette(tmp_path: Path):
    with pytest.raises(CassetteError, match="nowhere.jsonl"):
        ReplayTransport(tmp_path / "nowhere.jsonl")


def test_replayed_connection_error(tmp_path: Path):
    body = {"model": "m1", "messages": [{"role": "user", "content": "q"}], "temperature": 0.8,
            "max_tokens": 2048, "n": 1}
    path = tmp_path / "c.jsonl"
    path.write_text(json.dumps({"request": {"method": "POST", "url": "/x", "body": body}, "error": "ConnectError"}) + "\n")

    async def go():
        async def sleep(s: float) -> None:
            pass
        async with Endpoint(settings(max_attempts=1), transport=ReplayTransport(path), sleep=sleep) as ep:
            return await ep.complete([{"role": "user", "content": "q"}])

    result = asyncio.run(go())
    assert isinstance(result, InfraUnknown) and result.reason == CONNECTION
