"""The one JSON Lines reader: every non-blank line one JSON object, decoded totally; a bad line is the caller's
error class (a LoopError) with a one-line message naming the file and the line."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator


def parse(line: str, where: str, error: type[Exception]) -> dict:
    """One line as a JSON object, or `error("WHERE: ...")`: not JSON, nested too deeply, or not an object."""
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError) as exc:
        at = f": column {exc.colno}" if isinstance(exc, json.JSONDecodeError) else ""  # the line is in `where`
        raise error(f"{where}: not valid JSON ({getattr(exc, 'msg', 'nested too deeply')}{at})") from None
    if not isinstance(obj, dict):
        raise error(f"{where}: expected a JSON object")
    return obj


def objects(lines: Iterable[str], name: str, error: type[Exception]) -> Iterator[tuple[int, dict]]:
    """(line number, object) for each non-blank line of `lines`; `name` (the file) starts each message."""
    for number, line in enumerate(lines, 1):
        if line.strip():
            yield number, parse(line, f"{name}:{number}", error)


# Characters no one-line field may hold: C0 and C1 controls, DEL, line and paragraph separators, lone surrogates
# (they end a path, an argv entry or a terminal line where loop does not expect it).
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")


def show(value: str, width: int = 60) -> str:
    """A value for a one-line message: repr'd, cut at `width` characters."""
    return repr(value[:width]) + ("..." if len(value) > width else "")


def one_line(obj: dict, key: str, where: str, error: type[Exception], limit: int = 200) -> str:
    """obj[key] as a one-line string of at most `limit` characters, or `error("WHERE: field 'KEY' ...")`."""
    if key not in obj:
        raise error(f"{where}: missing key '{key}'")
    value = obj[key]
    if not isinstance(value, str):
        raise error(f"{where}: field '{key}' must be a string, got {type(value).__name__}")
    if len(value) > limit:
        raise error(f"{where}: field '{key}' is {len(value)} characters long (at most {limit})")
    bad = _CONTROL.search(value)
    if bad:
        raise error(f"{where}: field '{key}' holds a control character (U+{ord(bad.group()):04X}): {show(value)}")
    return value
