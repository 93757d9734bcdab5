"""The confirmation rule for split trials (kinds/function/confirm.py), on plain attempts."""

from __future__ import annotations

from loop.grading.model import Attempt, Check
from loop.kinds.function.confirm import confirm


def _attempts(*checks_per_repeat):
    return [Attempt(r, "pass", None, None, "d", 0.0, 1, {}, list(cs)) for r, cs in enumerate(checks_per_repeat)]


def _rel(trial, name="relation:agrees"):
    return Check(name, "relation", False, f"trial {trial}", input=[trial], minimal=[0], seed=1, trial=trial)


def NO_SHARE(repeat):
    raise AssertionError("asked for a share")


def SHARE(repeat):  # every repeat's process ran inputs [1], [2], [3], [4] in this order
    return ["[1]", "[2]", "[1]", "[3]", "[4]"]


def test_a_counterexample_fails_the_repeats_where_it_fails_again():
    attempts = _attempts([_rel(3)], [], [])
    asked = []

    def again(check, repeat, keys=None):
        asked.append(repeat)
        return repeat in (0, 1)

    assert confirm(attempts, 3, again, NO_SHARE) == []
    assert sorted(asked) == [0, 1, 2]  # its own repeat too
    assert [[c.detail for c in a.checks] for a in attempts] == [["trial 3"], ["trial 3"], []]


def test_one_that_does_not_fail_again_under_its_own_repeat_is_noted():
    attempts = _attempts([_rel(3)], [])
    notes = confirm(attempts, 2, lambda check, repeat, keys=None: False, SHARE)
    assert notes and "did not fail again" in notes[0]
    assert attempts[1].checks == []


def test_the_earliest_trial_goes_on_and_a_repeat_keeps_its_own_where_that_one_does_not_fail_there():
    attempts = _attempts([_rel(6)], [_rel(4)], [])
    confirm(attempts, 3, lambda check, repeat, keys=None: repeat != 0, NO_SHARE)
    assert [[c.detail for c in a.checks] for a in attempts] == [["trial 6"], ["trial 4"], ["trial 4"]]


def test_nothing_runs_where_every_attempt_already_fails():
    failed = Check("test:x", "test", False)
    attempts = _attempts([_rel(3)], [failed], [failed])
    assert confirm(attempts, 3, lambda check, repeat, keys=None: 1 / 0, NO_SHARE) == []


def test_one_repeat_confirms_nothing():
    attempts = _attempts([_rel(3)])
    assert confirm(attempts, 1, lambda check, repeat, keys=None: 1 / 0, NO_SHARE) == []


def test_one_that_fails_only_after_the_calls_before_it_fails_every_repeat_with_the_sequence_shown():
    """A memo filled by earlier inputs: alone the counterexample passes everywhere; after [1], [2] (the
    distinct inputs before [3] in its share, in order) it fails in every environment: stable."""
    attempts = _attempts([], [_rel(3)], [])
    asked = []

    def again(check, repeat, keys=None):
        asked.append((repeat, keys))
        return keys == ["[1]", "[2]"]

    assert confirm(attempts, 3, again, SHARE) == []
    assert asked == [(1, None), (1, ["[1]", "[2]"]), (0, None), (0, ["[1]", "[2]"]), (2, None), (2, ["[1]", "[2]"])]
    details = [[c.detail for c in a.checks] for a in attempts]
    assert details[0] == details[1] == details[2] and len(details[0]) == 1
    assert details[0][0].startswith("trial 3; it fails only after the calls before it in repeat 1's process")
    assert "then its share's 2 inputs before it" in details[0][0]
    assert details[0][0].endswith("the sequence [[1],[2],[3]]")


def test_a_sequence_that_fails_in_some_environments_only_is_flaky():
    attempts = _attempts([_rel(3)], [])
    assert confirm(attempts, 2, lambda check, repeat, keys=None: repeat == 0 and keys is not None, SHARE) == []
    assert len(attempts[0].checks) == 1 and "the sequence" in attempts[0].checks[0].detail
    assert attempts[1].checks == []


def test_one_that_fails_neither_alone_nor_after_its_sequence_is_noted():
    attempts = _attempts([_rel(3)], [])
    asked = []
    notes = confirm(attempts, 2, lambda check, repeat, keys=None: asked.append(keys) and False, SHARE)
    assert asked == [None, ["[1]", "[2]"], None]  # the others: alone only, the sequence did not fail at home
    assert notes and "alone or after the calls before it" in notes[0]
