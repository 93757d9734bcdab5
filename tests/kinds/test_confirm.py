"""The confirmation rule for split trials (kinds/function/confirm.py), on plain attempts."""

from __future__ import annotations

from loop.grading.model import Attempt, Check
from loop.kinds.function.confirm import confirm


def _attempts(*checks_per_repeat):
    return [Attempt(r, "pass", None, None, "d", 0.0, 1, {}, list(cs)) for r, cs in enumerate(checks_per_repeat)]


def _rel(trial, name="relation:agrees"):
    return Check(name, "relation", False, f"trial {trial}", input=[trial], minimal=[0], seed=1, trial=trial)


def test_a_counterexample_fails_the_repeats_where_it_fails_again():
    attempts = _attempts([_rel(3)], [], [])
    asked = []

    def again(check, repeat):
        asked.append(repeat)
        return repeat in (0, 1)

    assert confirm(attempts, 3, again) == []
    assert sorted(asked) == [0, 1, 2]  # its own repeat too
    assert [[c.detail for c in a.checks] for a in attempts] == [["trial 3"], ["trial 3"], []]


def test_one_that_does_not_fail_again_under_its_own_repeat_is_noted():
    attempts = _attempts([_rel(3)], [])
    notes = confirm(attempts, 2, lambda check, repeat: False)
    assert notes and "did not fail again" in notes[0]
    assert attempts[1].checks == []


def test_the_earliest_trial_goes_on_and_a_repeat_keeps_its_own_where_that_one_does_not_fail_there():
    attempts = _attempts([_rel(6)], [_rel(4)], [])
    confirm(attempts, 3, lambda check, repeat: repeat != 0)
    assert [[c.detail for c in a.checks] for a in attempts] == [["trial 6"], ["trial 4"], ["trial 4"]]


def test_nothing_runs_where_every_attempt_already_fails():
    failed = Check("test:x", "test", False)
    attempts = _attempts([_rel(3)], [failed], [failed])
    assert confirm(attempts, 3, lambda check, repeat: 1 / 0) == []


def test_one_repeat_confirms_nothing():
    attempts = _attempts([_rel(3)])
    assert confirm(attempts, 1, lambda check, repeat: 1 / 0) == []
