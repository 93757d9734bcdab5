"""Reading what an endpoint sent back, totally: a completion's choices and usage, an error body's code and message,
one-line details for records; and the token estimate a request is paced by before its usage is known."""

from __future__ import annotations

import http
import json

DETAIL_MAX = 300


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


def error_info(text: str) -> tuple[str, str]:
    """(code-or-type, message) from an OpenAI-style JSON error body; empty strings when absent."""
    try:
        data = json.loads(text)
    except ValueError:
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


def parse_completion(text: str) -> tuple[list[str], int | None, int | None, dict]:
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise BadResponse(f"body is not JSON ({exc}): {one_line(text, 120)!r}") from None
    if not isinstance(data, dict):
        raise BadResponse(f"body is JSON but not an object: {one_line(text, 120)!r}")
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices:
        raise BadResponse("body has no choices")
    indexed: list[tuple[int, str]] = []
    for pos, choice in enumerate(choices):
        message = choice.get("message") if isinstance(choice, dict) else None
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, str):
            raise BadResponse(f"choice {pos} has no message content string")
        index = choice.get("index")
        # A lone surrogate ("\ud800" in the JSON) is valid JSON but no UTF-8: it would fail hashing and
        # storing the candidate, so it becomes U+FFFD here, at the boundary.
        content = content.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
        indexed.append((index if isinstance(index, int) else pos, content))
    indexed.sort(key=lambda item: item[0])
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}

    def _int(key: str) -> int | None:
        value = usage.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    return [t for _, t in indexed], _int("prompt_tokens"), _int("completion_tokens"), data


def estimate_tokens(messages: list[dict], max_tokens: int, n: int) -> float:
    chars = 0
    for message in messages:
        content = message.get("content")
        if isinstance(content, str):
            chars += len(content)
        elif isinstance(content, list):
            chars += sum(len(str(part.get("text", ""))) for part in content if isinstance(part, dict))
    return chars / 4 + max_tokens * n
