"""Record and replay endpoint exchanges as httpx async transports over a JSONL cassette.

Replays let runs, tests and demos exercise the real Endpoint (retries, limits, logging) offline and deterministically.
"""

from __future__ import annotations

import json
import re
from collections import deque
from pathlib import Path
from typing import IO, Any

import httpx

from loop import jsonl
from loop.ask.responses import decode_text, redact
from loop.errors import CassetteError

# One line per exchange:
#
#     {"request": {"method": "POST", "url": "...", "body": {...}},
#      "status": 200, "headers": {"content-type": "..."}, "body": "<response text>"}
#
# or, for a transport failure, {"request": {...}, "error": "ReadTimeout", "message": "..."} (replayed by
# raising that httpx exception). Request headers are never recorded, and the key never reaches disk: a
# response's credential headers are dropped and the key is redacted from everything written (a gateway
# may echo it in a body or a header). Extra keys ("label", "curated": true, ...) are allowed and ignored.
#
# Matching: the key is the canonical JSON (sorted keys) of the request body minus VOLATILE_FIELDS;
# model, messages, n, temperature and max_tokens all take part. Each key owns a queue of recorded answers
# served in recorded order, so a recorded 429 then 200 replays as 429 then 200.

VOLATILE_FIELDS = frozenset({"user", "metadata", "store", "stream_options"})
# Response headers not worth keeping: the body is stored decoded, and cookies are session state.
_DROP_HEADERS = frozenset({"content-encoding", "content-length", "transfer-encoding", "connection", "set-cookie",
                           "authorization", "proxy-authorization", "api-key", "x-api-key"})
_REPLAYABLE_ERRORS: dict[str, type[httpx.TransportError]] = {
    cls.__name__: cls
    for cls in (
        httpx.ConnectTimeout,
        httpx.ReadTimeout,
        httpx.WriteTimeout,
        httpx.PoolTimeout,
        httpx.ConnectError,
        httpx.ReadError,
        httpx.WriteError,
        httpx.RemoteProtocolError,
        httpx.ProxyError,
    )
}


def match_key(body: Any) -> str:
    """Canonical matching key of a request body."""
    if isinstance(body, dict):
        body = {k: v for k, v in body.items() if k not in VOLATILE_FIELDS}
    return json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def exchange(
    request_body: dict,
    status: int,
    body: str | dict,
    headers: dict | None = None,
    *,
    method: str = "POST",
    url: str = "/chat/completions",
    **extra: Any,
) -> dict:
    """Build one cassette line (e.g. for curated demo cassettes); `extra` keys such as label are kept."""
    return {
        "request": {"method": method, "url": url, "body": request_body},
        "status": status,
        "headers": {str(k).lower(): str(v) for k, v in (headers or {}).items()},
        "body": body if isinstance(body, str) else json.dumps(body),
        **extra,
    }


def _request_body(request: httpx.Request) -> Any:
    content = request.content
    if not content:
        return None
    try:
        return json.loads(content)
    except ValueError:
        return content.decode("utf-8", "replace")


_TASK_LINE = re.compile(r"^(?:Repository task|Task): (\S+)", re.M)  # as the shipped prompt templates name it


def _describe(body: Any) -> str:
    """What a user needs to find the request: its model, the task its prompt names, its first message."""
    if not isinstance(body, dict):
        return "non-JSON body"
    first, task = "", None
    messages = body.get("messages")
    if isinstance(messages, list) and messages and isinstance(messages[0], dict):
        first = " ".join(str(messages[0].get("content", "")).split())
        first = first if len(first) <= 60 else first[:57] + "..."
        task = next((m.group(1) for message in messages if isinstance(message, dict)
                     for m in [_TASK_LINE.search(str(message.get("content", "")))] if m), None)
    return f"model={body.get('model')!r}" + (f", task {task!r}" if task else "") + f", first message {first!r}"


class RecordingTransport(httpx.AsyncBaseTransport):
    """Forward to `inner` (a live transport) and append every exchange to the cassette at `path`, with
    `secret` (the API key) redacted wherever the endpoint echoed it."""

    def __init__(self, inner: httpx.AsyncBaseTransport | None, path: str | Path, *, secret: str | None = None) -> None:
        self.inner = inner if inner is not None else httpx.AsyncHTTPTransport()
        self.path = Path(path)
        self.secret = secret
        self._file: IO[str] | None = None

    def _write(self, line: dict) -> None:
        if self._file is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = self.path.open("a", encoding="utf-8")
        # redacted in the JSON text (the key as JSON spells it), so no field (body, header, message) escapes
        secret = json.dumps(self.secret, ensure_ascii=False)[1:-1] if self.secret else None
        self._file.write(redact(json.dumps(line, ensure_ascii=False), secret) + "\n")
        self._file.flush()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        await request.aread()
        recorded = {"method": request.method, "url": str(request.url), "body": _request_body(request)}
        try:
            response = await self.inner.handle_async_request(request)
            await response.aread()
        except httpx.TransportError as exc:
            if type(exc).__name__ in _REPLAYABLE_ERRORS:
                self._write({"request": recorded, "error": type(exc).__name__, "message": str(exc)})
            raise
        headers = {k.lower(): v for k, v in response.headers.items() if k.lower() not in _DROP_HEADERS}
        body = decode_text(response.content, response.charset_encoding)
        self._write({"request": recorded, "status": response.status_code, "headers": headers, "body": body})
        return response

    async def aclose(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
        await self.inner.aclose()


class ReplayTransport(httpx.AsyncBaseTransport):
    """Answer requests from a cassette; an unmatched request raises CassetteError at once."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        # Each recorded answer is kept as the place of its line (offset, line number), read again when it is
        # served: a 20,000-exchange cassette, each holding a whole prompt, would otherwise stay in memory.
        self._queues: dict[str, deque[tuple[int, int]]] = {}
        self._served = 0
        try:
            with self.path.open("rb") as fh:
                offset = 0
                for number, raw in enumerate(fh, start=1):
                    line = raw.decode("utf-8")
                    if line.strip():
                        entry = self._check(line, number)
                        self._queues.setdefault(match_key(entry["request"]["body"]), deque()).append((offset, number))
                    offset += len(raw)
        except FileNotFoundError:
            raise CassetteError(f"cassette {self.path} does not exist") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise CassetteError(f"cassette {self.path} cannot be read: {exc}") from None

    def _entry(self, offset: int, number: int) -> dict:
        try:
            with self.path.open("rb") as fh:
                fh.seek(offset)
                return self._check(fh.readline().decode("utf-8"), number)
        except (OSError, UnicodeDecodeError) as exc:
            raise CassetteError(f"cassette {self.path} cannot be read: {exc}") from None

    def _check(self, line: str, number: int) -> dict:
        where = f"cassette {self.path}:{number}"
        entry = jsonl.parse(line, where, CassetteError)
        request = entry.get("request")
        if not isinstance(request, dict) or "body" not in request:
            raise CassetteError(f"{where} lacks request.body")
        if "error" in entry:
            if entry["error"] not in _REPLAYABLE_ERRORS:
                raise CassetteError(f"{where} has unknown error {entry['error']!r}")
            return entry
        if not isinstance(entry.get("status"), int) or not isinstance(entry.get("body"), str):
            raise CassetteError(f"{where} lacks an integer status and a string body")
        if not isinstance(entry.get("headers", {}), dict):
            raise CassetteError(f"{where} has headers that are not an object")
        return entry

    def remaining(self) -> int:
        """How many recorded answers have not been served yet."""
        return sum(len(q) for q in self._queues.values())

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        await request.aread()
        self._served += 1
        body = _request_body(request)
        queue = self._queues.get(match_key(body))
        if not queue:
            used = " (all its recorded answers are used up)" if queue is not None else ""
            raise CassetteError(
                f"cassette {self.path} has no answer for request #{self._served} ({_describe(body)}){used}"
            )
        entry = self._entry(*queue.popleft())
        if "error" in entry:
            message = str(entry.get("message") or "replayed from cassette")
            raise _REPLAYABLE_ERRORS[entry["error"]](message, request=request)
        return httpx.Response(
            entry["status"],
            headers={k: str(v) for k, v in entry.get("headers", {}).items()},
            content=entry["body"].encode("utf-8"),
            request=request,
        )
