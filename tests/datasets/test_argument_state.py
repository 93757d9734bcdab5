"""Argument state (issue 31): an imported task's candidate must leave its arguments as the reference leaves
them, on the slow path (`loop grade`) and on the fork servers (`loop grade --samples`) alike, with a shrunk
counterexample; where the reference changes an argument, or the task allows it, nothing is checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from loop import tasks
from loop import verdicts as V
from loop.datasets.humaneval import tasks as humaneval
from loop.executors.fork import grade_batch
from loop.grading.model import Options
from loop.kinds import grade
from loop.sandbox import SandboxConfig

pytestmark = pytest.mark.sandbox
SANDBOX = SandboxConfig()
CHECK = "relation:argument_state"

# HumanEval/47 (median): the docstring asks for a value; sorting the caller's list is a side effect it hides
SORTS_IN_PLACE = '''def median(l: list):
    l.sort()
    n = len(l)
    return l[n // 2] if n % 2 else (l[n // 2 - 1] + l[n // 2]) / 2.0
'''
SORTED_COPY = SORTS_IN_PLACE.replace("    l.sort()\n", "    l = sorted(l)\n")
# HumanEval/70 (strange_sort_list): its reference empties the list it is given; a candidate may too, or not
EMPTIES = '''def strange_sort_list(lst):
    out, low = [], True
    while lst:
        out.append(min(lst) if low else max(lst))
        lst.remove(out[-1])
        low = not low
    return out
'''
KEEPS = EMPTIES.replace("    out, low = [], True\n", "    out, low = [], True\n    lst = list(lst)\n")


def _load(root: Path, ids: list[int]) -> dict[int, tasks.Task]:
    problems = [p for p in humaneval.read_problems() if int(p["task_id"].split("/")[1]) in ids]
    humaneval.import_humaneval(tasks.tasks_root(root), problems)
    return {i: tasks.load(root, humaneval.task_name(f"HumanEval/{i}")) for i in ids}


@pytest.fixture(scope="module")
def imported(tmp_path_factory) -> dict[int, tasks.Task]:
    return _load(tmp_path_factory.mktemp("arguments"), [47, 70])


def _failure(g):
    (check,) = [c for c in g.checks if c.check == CHECK and not c.passed][:1]
    return check


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_caller_list_sorted_in_place_fails_with_a_shrunk_counterexample(imported, seed):
    task = imported[47]
    g = grade(task, SORTS_IN_PLACE, SANDBOX, Options(k=2, trials=100, seed=seed))
    assert g.verdict == V.STABLE_FAIL, g.failures()
    assert {f["check"] for f in g.failures()} == {CHECK}  # the values are right: only the side effect fails
    check = _failure(g)
    assert "argument 1 changed from" in check.detail
    (minimal,) = check.minimal  # the smallest unsorted list: two items out of order
    assert len(minimal) == 2 and minimal != sorted(minimal), check.minimal
    assert grade(task, SORTED_COPY, SANDBOX, Options(k=2, trials=100, seed=seed)).verdict == V.STABLE_PASS


def test_the_fork_servers_check_it_too(imported):
    task = imported[47]
    slow = grade(task, SORTS_IN_PLACE, SANDBOX, Options(k=2, trials=100, seed=5))
    wrong, right, ref = grade_batch([(task, SORTS_IN_PLACE), (task, SORTED_COPY), (task, task.reference)],
                                    SANDBOX, seed=5, k=2, trials=100)
    assert (right.verdict, ref.verdict) == (V.STABLE_PASS, V.STABLE_PASS)
    assert wrong.verdict == V.STABLE_FAIL and {f["check"] for f in wrong.failures()} == {CHECK}
    assert _failure(wrong).minimal == _failure(slow).minimal  # the same counterexample on either path


def test_no_false_fail_where_the_reference_changes_the_argument(imported):
    task = imported[70]
    for source in (EMPTIES, KEEPS):
        assert grade(task, source, SANDBOX, Options(k=2, trials=100, seed=1)).verdict == V.STABLE_PASS
    graded = grade_batch([(task, EMPTIES), (task, KEEPS)], SANDBOX, seed=1, k=2, trials=100)
    assert [g.verdict for g in graded] == [V.STABLE_PASS] * 2


def test_a_task_may_allow_its_arguments_to_change(tmp_path, monkeypatch):
    source, mod = humaneval._contract("HumanEval/47")
    monkeypatch.setattr(mod, "ARGUMENTS_MAY_CHANGE", True, raising=False)
    monkeypatch.setattr(humaneval, "_contract", lambda task_id: (source, mod))
    task = _load(tmp_path, [47])[47]
    assert "argument_state" not in (task.oracle_path.read_text())
    assert grade(task, SORTS_IN_PLACE, SANDBOX, Options(k=2, trials=100, seed=1)).verdict == V.STABLE_PASS
