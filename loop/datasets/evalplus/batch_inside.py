"""Runs inside the sandbox: many trusted references on many inputs in one process (an import's expected
outputs), one result line per input, as soon as it is known.

Standard library only, started by path with `python -s -S -P`; values cross in codec.py's tagged JSON, staged
beside this file; results go to stdout. A job is {"source", "entry", "inputs": [encoded argument lists], "start",
"limit" or "limits" (one per input), "not_none" (EvalPlus's output_not_none: the output becomes whether it is not None), "fast" (stop at
the first input that does not return)}; a line
is [job, input, ok, encoded value or why not, changed an argument?, seconds]. What a reference prints is
discarded. A reference that kills the process loses only the line being computed: the host starts again
after it (loop.datasets.evalplus.references).
"""

import json
import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
try:
    from codec import dec, enc
finally:
    del sys.path[0]


CAP = 1 << 20  # bytes of one encoded output; a larger one makes no test (tests.json would carry it)
BIG_INT_BITS = 14000  # about 4,200 digits: Python reads no longer int from JSON by default (sys.int_info)


class _Late(BaseException):
    """The per-input time limit (BaseException: a reference's `except Exception` does not swallow it)."""


def _alarm(signum, frame):
    raise _Late()


def _within(value, budget):
    """Whether value's encoding may fit in budget bytes with no int too long to read back (a cheap walk that
    stops once over it): a huge output is refused before it is encoded, which can cost more than computing it."""
    stack = [value]
    while stack:
        v = stack.pop()
        budget -= 8
        if isinstance(v, (str, bytes)):
            budget -= len(v) * (2 if isinstance(v, bytes) else 1)
        elif isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, (list, tuple, set, frozenset)):
            if len(v) * 2 > budget:
                return False
            stack.extend(v)
        elif isinstance(v, int) and not isinstance(v, bool):
            if v.bit_length() > BIG_INT_BITS:
                return False
            budget -= v.bit_length() // 3
        if budget < 0:
            return False
    return True


def _why(exc):
    return (type(exc).__name__ + ": " + str(exc))[:300]


def main(batch_path):
    out = os.fdopen(os.dup(1), "w", buffering=1)
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)  # what a reference prints goes nowhere, never into the results
    os.dup2(null, 2)
    signal.signal(signal.SIGALRM, _alarm)
    sys.setrecursionlimit(10000)
    if hasattr(sys, "set_int_max_str_digits"):
        sys.set_int_max_str_digits(0)  # a reference's big int is a value like any other
    with open(batch_path) as fh:
        jobs = json.load(fh)
    for j, job in enumerate(jobs):
        space = {"__name__": "reference"}
        try:
            exec(compile(job["source"], "<reference>", "exec"), space)
            fn = space[job["entry"]]
            loaded = None
        except BaseException as exc:  # noqa: BLE001 - a reference that does not load fails every input
            loaded = "the reference does not load: " + _why(exc)
        for i in range(job["start"], len(job["inputs"])):
            if loaded is not None:
                out.write(json.dumps([j, i, False, loaded, False, 0.0]) + "\n")
                continue
            text = json.dumps(job["inputs"][i])
            args = dec(job["inputs"][i])
            limit = job["limits"][i] if "limits" in job else job["limit"]
            signal.setitimer(signal.ITIMER_REAL, limit)
            start = time.perf_counter()
            try:
                value = fn(*args)
                seconds = time.perf_counter() - start
                signal.setitimer(signal.ITIMER_REAL, 0)
                not_none = job.get("not_none", 0)  # EvalPlus's: 1 its ground truth, 2 a solution (a bool stays)
                if not_none == 1 or (not_none == 2 and not isinstance(value, bool)):
                    value = value is not None
                if _within(value, CAP):
                    ok, value = True, enc(value)
                else:
                    ok, value = False, "its output is too large to keep (over %d bytes, or an int over 4,200 digits)" % CAP
            except _Late:
                ok, value, seconds = False, "did not return within %gs" % limit, limit
            except TypeError as exc:  # enc's (an unsupported value) or the reference's own
                signal.setitimer(signal.ITIMER_REAL, 0)
                ok, value, seconds = False, _why(exc), time.perf_counter() - start
            except BaseException as exc:  # noqa: BLE001 - SystemExit, RecursionError, ...: the reference's
                signal.setitimer(signal.ITIMER_REAL, 0)
                ok, value, seconds = False, _why(exc), time.perf_counter() - start
            try:
                changed = json.dumps(enc(args)) != text
            except BaseException:  # noqa: BLE001 - an argument the reference turned into something odd
                changed = True
            line = json.dumps([j, i, ok, value, changed, seconds])
            if len(line) > CAP:
                line = json.dumps([j, i, False, "its output is %d bytes, over %d" % (len(line), CAP), changed, seconds])
            out.write(line + "\n")
            if job.get("fast") and not ok:
                break
    out.flush()


if __name__ == "__main__":
    main(sys.argv[1])
