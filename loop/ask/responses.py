"""Reading what an endpoint sent back, totally: a completion's choices and usage, an error body's code and message,
one-line details for records; and the token estimate a request is paced by before its usage is known.

Total means any depth, any charset header and any usage value: what cannot be read is BadResponse, never
another exception.
"""

from __future__ import annotations

import http
import json
from dataclasses import dataclass

DETAIL_MAX = 300
USAGE_MAX = 10**9  # a token count above this is no count (SQLite integers end at 2**63; no request is that big)
_JSON_ERRORS = (ValueError, RecursionError)  # JSON nested past Python's recursion limit raises the latter


class BadResponse(Exception):
    """A 2xx whose body is not a chat completion."""


def phrase(status: int) -> str:
    try:
        return http.HTTPStatus(status).phrase
    except ValueError:
        return {529: "Overloaded"}.get(status, "")


def one_line(text: str, limit: int = DETAIL_MAX) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def redact(text: str, secret: str | None) -> str:
    """`text` without `secret` (the API key): what loop writes never holds it, whatever the endpoint echoed."""
    return text.replace(secret, "***") if secret and text else text


def decode_text(content: bytes, charset: str | None) -> str:
    """A body's text: UTF-8 (what JSON is, RFC 8259) unless it is not, then the declared charset; bytes
    neither reads become U+FFFD. Never raises, whatever the Content-Type claims."""
    content = content.removeprefix(b"\xef\xbb\xbf")
    for encoding in ("utf-8", charset):
        if encoding:
            try:
                return content.decode(encoding).encode("utf-8", "surrogatepass").decode("utf-8", "replace")
            except (UnicodeError, LookupError):
                pass
    return content.decode("utf-8", "replace")


def error_info(text: str) -> tuple[str, str]:
    """(code-or-type, message) from an OpenAI-style JSON error body; empty strings when absent."""
    try:
        data = json.loads(text)
    except _JSON_ERRORS:
        return "", ""
    if not isinstance(data, dict):
        return "", ""
    err = data.get("error", data)
    if isinstance(err, str):
        return "", err
    if not isinstance(err, dict):
        return "", ""
    codes = [str(err.get(k) or "") for k in ("code", "type")]
    code = "insufficient_quota" if "insufficient_quota" in codes else (codes[0] or codes[1])
    message = err.get("message")
    return code, message if isinstance(message, str) else ""


@dataclass(frozen=True)
class Parsed:
    """A completion as read: one text and finish_reason per choice (in index order) and the usage, None where
    the endpoint gave none or a count that cannot be one (negative, non-integer, absurd)."""

    texts: list[str]
    finish_reasons: list[str | None]
    prompt_tokens: int | None
    completion_tokens: int | None
    raw: dict


def _content(message) -> str | None:
    """A message's content: a string, or the newer shape, a list of parts whose text parts are joined."""
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list):
        parts = [p.get("text") for p in content if isinstance(p, dict) and p.get("type", "text") == "text"]
        if parts and all(isinstance(p, str) for p in parts):
            return "".join(parts)
        return None
    return content if isinstance(content, str) else None


def _count(value) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value if 0 <= value <= USAGE_MAX else None


def parse_completion(text: str) -> Parsed:
    try:
        data = json.loads(text)
    except _JSON_ERRORS as exc:
        why = "nested too deep" if isinstance(exc, RecursionError) else str(exc)
        raise BadResponse(f"body is not JSON ({why}): {one_line(text, 120)!r}") from None
    if not isinstance(data, dict):
        raise BadResponse(f"body is JSON but not an object: {one_line(text, 120)!r}")
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices:
        raise BadResponse("body has no choices")
    indexed: list[tuple[int, str, str | None]] = []
    for pos, choice in enumerate(choices):
        content = _content(choice.get("message") if isinstance(choice, dict) else None)
        if content is None:
            raise BadResponse(f"choice {pos} has no message content string")
        index = choice.get("index")
        finish = choice.get("finish_reason")
        # A lone surrogate ("\ud800" in the JSON) is valid JSON but no UTF-8: it would fail hashing and
        # storing the candidate, so it becomes U+FFFD here, at the boundary; a leading BOM would hide a fence.
        content = content.encode("utf-8", "surrogatepass").decode("utf-8", "replace").removeprefix("\ufeff")
        indexed.append((index if isinstance(index, int) and not isinstance(index, bool) else pos, content,
                        one_line(finish, 40) if isinstance(finish, str) else None))
    indexed.sort(key=lambda item: item[0])
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    return Parsed([t for _, t, _ in indexed], [f for _, _, f in indexed], _count(usage.get("prompt_tokens")),
                  _count(usage.get("completion_tokens")), data)


class Reply(str):
    """One choice's text, as stored (cut to max_reply_bytes), with why the model stopped. A str, since every
    caller reads a reply as its text; `truncated` when the model ran out of tokens or loop cut it."""

    finish_reason: str | None = None
    truncated: bool = False

    @classmethod
    def of(cls, text: str, finish_reason: str | None, limit: int) -> Reply:
        data = text.encode("utf-8")
        cut = len(data) > limit
        reply = cls(data[:limit].decode("utf-8", "ignore") if cut else text)
        reply.finish_reason, reply.truncated = finish_reason, cut or finish_reason == "length"
        return reply


def estimate_tokens(messages: list[dict], max_tokens: int, n: int) -> float:
    chars = 0
    for message in messages:
        content = message.get("content")
        if isinstance(content, str):
            chars += len(content)
        elif isinstance(content, list):
            chars += sum(len(str(part.get("text", ""))) for part in content if isinstance(part, dict))
    return chars / 4 + max_tokens * n
