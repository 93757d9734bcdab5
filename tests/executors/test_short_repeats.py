"""Repeats after a failed repeat 0 run only its failed case first (decide.first_failure): a repeat failing it
again fails as its whole run would, without the other named tests; a repeat passing it runs whole. The same
on both paths (the fork servers and fresh sandboxes), the verdicts the ones every named test gives."""

from __future__ import annotations

import pytest

from loop import verdicts as V
from loop.grading.model import Options
from loop.kinds import grade
from loop.kinds.function.fork import ForkPool
from loop.sandbox import SandboxConfig

from conftest import HE003_RIGHT, import_he003

RIGHT = HE003_RIGHT
WRONG = "    return sum(operations) < 0\n"  # fails test:assert_03 (and others) under every hash seed
# wrong under the repeats whose PYTHONHASHSEED makes hash('b') even (repeat 0's), right elsewhere (repeat 1's)
SOMETIMES = "    if hash('b') % 2 == 0 and len(operations) > 3:\n        return not operations\n" + RIGHT


@pytest.fixture(scope="module")
def task(tmp_path_factory):
    return import_he003(tmp_path_factory.mktemp("short"))


def _tests_run(attempt) -> list[str]:
    return [c.check for c in attempt.checks if c.category == "test"]


def _both_paths(task, bodies: dict, opts: Options) -> dict:
    cfg = SandboxConfig(enabled=True)
    with ForkPool(cfg, servers=3, k=opts.k) as pool:
        futures = {name: pool.submit(task, task.contract + body, opts) for name, body in bodies.items()}
    return {name: (f.result(), grade(task, task.contract + bodies[name], cfg, opts)) for name, f in futures.items()}


@pytest.mark.sandbox
@pytest.mark.slow
def test_a_repeat_that_fails_repeat_0s_case_again_runs_no_other_named_test(task):
    for trials in (0, 40):  # named tests alone, and with the trials split across the repeats
        graded = _both_paths(task, {"wrong": WRONG, "right": RIGHT}, Options(k=3, trials=trials, seed=1))
        for fork_grade, slow_grade in graded["wrong"], graded["right"]:
            assert fork_grade.verdict == slow_grade.verdict
            assert [(a.status, _tests_run(a)) for a in fork_grade.attempts] == \
                [(a.status, _tests_run(a)) for a in slow_grade.attempts]
        for g in graded["wrong"]:
            assert g.verdict == V.STABLE_FAIL
            first = _tests_run(g.attempts[0])
            assert len(first) == len(task.tests)
            failed = [c.check for c in g.attempts[0].checks if c.category == "test" and not c.passed]
            assert [_tests_run(a) for a in g.attempts[1:]] == [[failed[0]]] * 2
            # the grade's rows still name every failing test, from repeat 0's whole run
            assert {c.check for c in g.checks if c.category == "test" and not c.passed} == set(failed)
        for g in graded["right"]:
            assert g.verdict == V.STABLE_PASS and all(len(_tests_run(a)) == len(task.tests) for a in g.attempts)


@pytest.mark.sandbox
@pytest.mark.slow
def test_a_repeat_that_passes_repeat_0s_case_runs_whole_and_the_grade_stays_flaky(task):
    opts = Options(k=3, trials=0, seed=1)
    for g in _both_paths(task, {"sometimes": SOMETIMES}, opts)["sometimes"]:
        assert g.attempts[0].status == V.FAIL, "repeat 0's hash seed no longer makes hash('b') even: pick another"
        assert g.verdict == V.FLAKY
        passed = [a for a in g.attempts if a.status == V.PASS]
        assert passed and all(len(_tests_run(a)) == len(task.tests) for a in passed)
