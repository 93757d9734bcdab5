"""Named tests marked shared (EvalPlus's plus inputs) run as trials do on the fork servers: each in one repeat,
after the goldens and the other tests, which every repeat runs and the digest covers; one that fails is run
again in every other repeat's environment after the calls before it (decide.confirm_shared), so a
deterministic failure is stable_fail wherever it lands and a right answer that prints stays stable_pass."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest

from loop import verdicts as V
from loop.grading.model import Options
from loop.kinds.function.decide import shares
from loop.kinds.function.fork import ForkPool
from loop.sandbox import SandboxConfig

from conftest import HE003_RIGHT, import_he003

RIGHT = HE003_RIGHT
PRINTS = "    print(operations)\n" + RIGHT


@pytest.fixture(scope="module")
def task(tmp_path_factory):
    loaded = import_he003(tmp_path_factory.mktemp("shared"))
    # every test but the first shared, as the import marks EvalPlus's plus inputs
    return replace(loaded, tests=tuple([loaded.tests[0]] + [replace(t, shared=True) for t in loaded.tests[1:]]))


def _grades(task, bodies: dict, opts: Options) -> dict:
    with ForkPool(SandboxConfig(enabled=True), servers=3, k=opts.k) as pool:
        futures = {name: pool.submit(task, task.contract + body, opts) for name, body in bodies.items()}
    return {name: f.result() for name, f in futures.items()}


def _tests_run(attempt) -> list[str]:
    return [c.check for c in attempt.checks if c.category == "test"]


def test_each_repeat_runs_the_common_cases_then_its_share():
    """Positions among the goldens, then the tests: the golden and the unshared tests, then shared r, r+k, ..."""
    from types import SimpleNamespace as NS

    task = NS(goldens=(1,), baseline=None)
    tests = [NS(shared=False), NS(shared=True), NS(shared=True), NS(shared=False), NS(shared=True)]
    assert [shares(task, tests, (r, 2)) for r in range(2)] == [[0, 1, 4, 2, 5], [0, 1, 4, 3]]
    assert shares(task, tests, None) is None and shares(NS(goldens=(), baseline="b"), tests, (0, 2)) is None


@pytest.mark.sandbox
@pytest.mark.parametrize("trials", [0, 40])
def test_shared_tests_run_once_and_a_deterministic_failure_fails_every_repeat(task, trials):
    target = task.tests[2]  # a shared test in repeat 1's share (k=3): repeat 0 passes it without confirmation
    args = target.args[0]
    wrong_once = f"    if operations == {args!r}:\n        return {not target.expected!r}\n" + RIGHT
    opts = Options(k=3, trials=trials, seed=1)
    position = len(task.goldens) + 2
    assert position in shares(task, list(task.tests), opts.part(1))
    assert position not in shares(task, list(task.tests), opts.part(0))
    graded = _grades(task, {"right": RIGHT, "prints": PRINTS, "wrong_once": wrong_once}, opts)
    for name in ("right", "prints"):
        g = graded[name]
        assert g.verdict == V.STABLE_PASS, (name, g.verdict, g.notes)
        runs = Counter(c for a in g.attempts for c in _tests_run(a))
        assert runs[f"test:{task.tests[0].name}"] == 3  # the unshared test: every repeat
        assert all(runs[f"test:{x.name}"] == 1 for x in task.tests[1:])  # a shared one: once
        assert len({a.digest for a in g.attempts}) == 1
    g = graded["wrong_once"]
    assert g.verdict == V.STABLE_FAIL, (g.verdict, [(a.repeat, a.status) for a in g.attempts])
    assert all(a.status == V.FAIL for a in g.attempts)
    if trials == 0:  # (with trials, the fuzzing may find the same input first)
        assert f"test:{target.name}" in [c.check for c in g.attempts[0].checks if not c.passed]  # confirmed there


def test_a_failing_shared_test_is_run_again_after_the_calls_before_it_in_every_passing_repeat():
    """decide.confirm_shared's rule on plain attempts: the origin's calls up to the failing shared test (all of
    them after a fault) run in each repeat that passed, whose failing checks then join it; a failure of a case
    every repeat runs, or attempts that all fail already, run nothing."""
    from types import SimpleNamespace as NS

    from loop.grading.model import Attempt, Check
    from loop.kinds.function.decide import confirm_shared

    task = NS(goldens=(), baseline=None)
    tests = [NS(name="base", shared=False)] + [NS(name=f"plus_{i}", shared=True) for i in range(4)]
    ran = {0: [0, 1, 3], 1: [0, 2, 4]}

    def attempts(*failing):
        return [Attempt(r, V.FAIL if f else V.PASS, None, None, "d", 0.0, 1, {}, [Check(f, "test", False)] if f else [])
                for r, f in enumerate(failing)]

    asked = []

    def again(cases, repeat):
        asked.append((cases, repeat))
        return [Check("test:plus_1", "test", False)]

    graded = attempts(None, "test:plus_1")
    confirm_shared(task, tests, graded, ran, again)
    assert asked == [([0, 2], 0)] and [c.check for c in graded[0].checks] == ["test:plus_1"]
    asked.clear()
    graded = attempts(None, "timeout")
    graded[1].checks[0] = Check("timeout", "fault", False)
    confirm_shared(task, tests, graded, ran, again)
    assert asked == [([0, 2, 4], 0)]
    asked.clear()
    for graded in attempts(None, "test:base"), attempts("test:plus_0", "test:plus_1"):
        confirm_shared(task, tests, graded, ran, again)
    assert asked == []
