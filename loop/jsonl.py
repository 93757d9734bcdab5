"""The one JSON Lines reader: every non-blank line one JSON object, decoded totally; a bad line is the caller's
error class (a LoopError) with a one-line message naming the file and the line."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator


def parse(line: str, where: str, error: type[Exception]) -> dict:
    """One line as a JSON object, or `error("WHERE: ...")`: not JSON, nested too deeply, or not an object."""
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError) as exc:
        raise error(f"{where}: not valid JSON ({getattr(exc, 'msg', 'nested too deeply')})") from None
    if not isinstance(obj, dict):
        raise error(f"{where}: expected a JSON object")
    return obj


def objects(lines: Iterable[str], name: str, error: type[Exception]) -> Iterator[tuple[int, dict]]:
    """(line number, object) for each non-blank line of `lines`; `name` (the file) starts each message."""
    for number, line in enumerate(lines, 1):
        if line.strip():
            yield number, parse(line, f"{name}:{number}", error)
