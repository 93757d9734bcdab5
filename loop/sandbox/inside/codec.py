"""The value codec of the wire between loop and sandboxed code: tagged JSON, so tuples, sets, dicts,
bytes and non-finite floats survive the trip and task files, runs.db and replies share one encoding.

Standard library only: it also runs inside the sandbox, staged beside the worker (see worker.py).
"""

import json
import math

_SELF = frozenset((int, str, bool, type(None)))  # exact types that are their own encoding (and decoding)
_PLAIN = _SELF | {float}                          # what dec returns as it is


def enc(v):
    """Tagged JSON: lists, ints, strs, bools, None and finite floats are themselves; the rest are tagged."""
    t = type(v)
    if t in _SELF:
        return v
    if t is list:  # the common cases, element by element without a call each (fuzzed inputs and outputs)
        return [x if type(x) in _SELF else enc(x) for x in v]
    if t is tuple:
        return {"t": [x if type(x) in _SELF else enc(x) for x in v]}
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        return v if math.isfinite(v) else {"f": repr(v)}
    if isinstance(v, list):
        return [enc(x) for x in v]
    if isinstance(v, tuple):
        return {"t": [enc(x) for x in v]}
    if isinstance(v, dict):
        return {"d": [[enc(k), enc(x)] for k, x in v.items()]}
    if isinstance(v, (set, frozenset)):
        items = [enc(x) for x in v]
        try:
            items.sort(key=lambda x: json.dumps(x, sort_keys=True))
        except TypeError:
            pass
        return {"s": items}
    if isinstance(v, bytes):
        return {"b": v.hex()}
    raise TypeError("unsupported value of type " + type(v).__name__)


def dec(v):
    """The inverse of enc; raises ValueError (or another Exception) on what enc never writes."""
    if type(v) is list:
        return [x if type(x) in _PLAIN else dec(x) for x in v]
    if isinstance(v, list):
        return [dec(x) for x in v]
    if isinstance(v, dict):
        (tag, body), = v.items()
        if tag == "t":
            return tuple([x if type(x) in _PLAIN else dec(x) for x in body])
        if tag == "d":
            return {_hashable(dec(k)): dec(x) for k, x in body}
        if tag == "s":
            return {_hashable(dec(x)) for x in body}
        if tag == "f":
            return float(body)
        if tag == "b":
            return bytes.fromhex(body)
        raise ValueError("unknown tag " + tag)
    return v


def _hashable(v):
    return tuple(_hashable(x) for x in v) if isinstance(v, list) else v
