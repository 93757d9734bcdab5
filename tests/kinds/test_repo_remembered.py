"""What a repository task's own trees show (base-tree outcomes per repeat, tripwire probes, seals) is remembered
across processes in loop's cache (issue 44): a later process runs only the candidate's tree; an entry that is
stale, corrupted or written without the sandbox is never trusted."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest

from conftest import ROOT
from loop import tasks
from loop import verdicts as V
from loop.errors import CandidateFault
from loop.grading.model import Options
from loop.kinds.repo import kind as repo_kind
from loop.kinds.repo import reference, remembered
from loop.sandbox import SandboxConfig

CFG = SandboxConfig()
LEDGER = ROOT / "harness" / "tasks" / "repo_ledger_py"
F2P = "tests/test_tax_rounding.py::test_half_cent_rounds_up"


@pytest.fixture
def runs(monkeypatch):
    """Counts the sandboxed runs by whose tree: the task's own (reference.py) or the candidate's (kind.py)."""
    seen = {"reference": 0, "candidate": 0}

    def counting(who, real):
        def run(*args, **kw):
            seen[who] += 1
            return real(*args, **kw)
        return run

    monkeypatch.setattr(reference, "run_tests", counting("reference", reference.run_tests))
    monkeypatch.setattr(repo_kind, "run_tests", counting("candidate", repo_kind.run_tests))
    return seen


def _new_process() -> None:
    """What a fresh process starts with: nothing of the task in memory (the trees are made again too)."""
    for memo in (reference._BASELINES, reference._TRIPWIRE_POINTS, reference._SEALS, reference._BASE_TREES,
                 reference._GOLD_TREES):
        memo.clear()


def _grade(task, k: int = 2, cfg: SandboxConfig = CFG):
    grade = repo_kind.KIND.grade(task, task.reference, cfg, Options(k=k, trials=0))
    return grade, [[(c.check, c.baseline, c.candidate, c.decided_by) for c in a.checks] for a in grade.attempts]


def _entries() -> list[Path]:
    return sorted((remembered.cachedir.cache_dir() / remembered.FOLDER).glob("*.json"))


@pytest.fixture
def task(tmp_path):
    folder = tmp_path / "repo_ledger_py"
    shutil.copytree(LEDGER, folder)
    _new_process()
    yield tasks.load_folder(folder)
    _new_process()


@pytest.mark.sandbox
def test_a_later_process_runs_only_the_candidates_tree(task, runs):
    cold, cold_checks = _grade(task)
    assert cold.verdict == V.STABLE_PASS and runs["candidate"] == 2
    assert runs["reference"] >= 4  # the base tree per repeat, the probes on the base and gold trees, the seals
    kinds = {json.loads(p.read_text())["value"].__class__ for p in _entries()}
    assert len(_entries()) == 4 and kinds == {dict, list}, _entries()  # two baselines, the points, the seals
    _new_process()
    runs.update(reference=0, candidate=0)
    warm, warm_checks = _grade(task)
    assert runs == {"reference": 0, "candidate": 2}
    assert warm.verdict == V.STABLE_PASS and warm_checks == cold_checks  # sealed and guarded as before
    assert any(c[3] == "sealed" for c in warm_checks[0]) and all(c[1] for c in warm_checks[0] if c[0].startswith("test:"))
    runs.update(reference=0, candidate=0)
    _grade(task, k=3)  # a third repeat: its base tree's run, once
    assert runs == {"reference": 1, "candidate": 3}


@pytest.mark.sandbox
@pytest.mark.parametrize("damage", ["garbage", "truncated", "edited", "wrong_shape"])
def test_a_corrupted_entry_is_recomputed(task, runs, damage):
    _grade(task, k=1)
    for path in _entries():
        entry = json.loads(path.read_text())
        value = entry["value"]
        if damage == "garbage":
            path.write_bytes(b"\x00\xff not json")
        elif damage == "truncated":
            path.write_text(path.read_text()[:len(path.read_text()) // 2])
        elif damage == "edited":  # the f2p test said to pass on the base tree: with the old checksum
            if isinstance(value, dict) and F2P in value:
                value[F2P] = ["pass", ""]
            path.write_text(json.dumps({"value": value, "sum": entry["sum"]}))
        else:  # the checksum agrees, the value is not one loop wrote: a number where outcomes go
            path.write_text(json.dumps({"value": 7, "sum": remembered._sum(path.stem, 7)}))
    _new_process()
    runs.update(reference=0, candidate=0)
    grade, checks = _grade(task, k=1)
    # every entry damaged is run again ("edited": the baseline alone, the others kept their checksums)
    assert runs["reference"] >= (1 if damage == "edited" else 3) and grade.verdict == V.STABLE_PASS
    assert (f"test:{F2P}", V.FAIL, V.PASS, "sealed") in checks[0]  # the base tree's outcome, run again


@pytest.mark.sandbox
def test_a_changed_task_misses(task, runs, tmp_path):
    """Stale: an edited hidden test (what decides every remembered value) is a new key."""
    _grade(task, k=1)
    hidden = task.path / "hidden" / "tests" / "test_tax_rounding.py"
    hidden.write_text(hidden.read_text() + "\n\ndef test_added_later():\n    assert 1 + 1 == 2\n")
    task = tasks.load_folder(task.path)
    _new_process()
    runs.update(reference=0, candidate=0)
    grade, _ = _grade(task, k=1)
    assert runs["reference"] >= 3 and grade.verdict == V.STABLE_PASS
    assert len(_entries()) == 6  # the old three beside the new three


@pytest.mark.sandbox
def test_nothing_is_remembered_without_the_sandbox(task, runs):
    """--no-sandbox: a candidate's code runs as the user and could write the cache itself."""
    for _ in range(2):
        _new_process()
        assert _grade(task, k=1, cfg=SandboxConfig(enabled=False))[0].verdict == V.STABLE_PASS
    assert _entries() == [] and runs["reference"] >= 6


@pytest.mark.sandbox
def test_nothing_is_remembered_from_a_run_cut_short(task, monkeypatch):
    """A timeout may be the machine's load: what such a run showed, and what was found beside it, is run again
    by the next process (this one keeps it: its grades go on)."""
    real = reference.run_tests
    cut = []

    def base_cut_short(*args, **kw):  # the base tree's plain run (no tripwires, no seals), the first time
        res = real(*args, **kw)
        if len(args) == 6 and not kw and not cut:
            cut.append(args[3])
            return dataclasses.replace(res, fault=CandidateFault("timeout", "load"))
        return res

    monkeypatch.setattr(reference, "run_tests", base_cut_short)
    assert _grade(task, k=1)[0].verdict == V.STABLE_PASS
    kept = [json.loads(p.read_text())["value"] for p in _entries()]
    # the baseline and the probes compared with it are not kept; the seals' gold run is
    assert cut and len(kept) == 1 and isinstance(kept[0], list), kept


def test_keys_round_trip_and_refuse_anything_else():
    keys = frozenset({(("TestA",), "test_x"), ("same", (), "test_y"), ("f.py", 3, 4)})
    assert remembered.keys(json.loads(json.dumps(remembered.plain(keys)))) == keys
    for bad in (None, 3, "x", [1.5], [[True]], [{"a": 1}]):
        with pytest.raises(ValueError):
            remembered.keys(bad)
