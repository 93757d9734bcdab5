"""The first hour with loop (issue 47): every mistake a new user makes is one line on stderr naming the thing
and what to do, exit 2, nothing written; an imported dataset never breaks the demo."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import sqlite_utils
from click.testing import CliRunner

from loop.cli import cli
from loop.datasets.humaneval import tasks as humaneval
from loop.store.db import RunStore

ROOT = Path(__file__).resolve().parent.parent
_EVEN = {"task_id": "Local/2", "entry_point": "first_even",  # the small import fixture of tests/datasets
         "prompt": "def first_even(xs):\n    \"\"\"The index of the first even number in xs.\"\"\"\n",
         "canonical_solution": "    for i, x in enumerate(xs):\n        if x % 2 == 0:\n            return i\n",
         "test": "def check(candidate):\n    assert candidate([1, 2]) == 1\n"}


def invoke(*args, cwd: Path | None = None, monkeypatch=None):
    """(exit code, stdout, stderr) of `loop ARGS`, run from `cwd`."""
    if cwd is not None:
        monkeypatch.chdir(cwd)
        monkeypatch.delenv("LOOP_CONFIG", raising=False)
    result = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def one_line(err: str) -> str:
    assert len(err.strip().splitlines()) == 1, err
    return err.strip()


# ------------------------------------------------------------------ no tasks where loop looks
@pytest.mark.parametrize("command", [["run"], ["generate"], ["tasks", "list"], ["tasks", "list", "--json"],
                                     ["tasks", "prepare"], ["tasks", "check"]])
def test_a_run_in_a_folder_without_tasks_says_where_it_looked(tmp_path, monkeypatch, command):
    code, out, err = invoke(*command, cwd=tmp_path, monkeypatch=monkeypatch)
    line = one_line(err)
    assert code == 2 and out in ("", '{"error": "%s", "exit": 2}\n' % line.removeprefix("error: "))
    assert f"no tasks in {tmp_path}/harness/tasks" in line and "no ./config.toml" in line and "--config" in line
    assert list(tmp_path.iterdir()) == []  # no runs.db, no empty batch marked done


def test_a_config_elsewhere_names_the_folder_beside_it(tmp_path, monkeypatch):
    cfg = tmp_path / "elsewhere" / "config.toml"
    cfg.parent.mkdir()
    cfg.write_text(f'[loop]\ndb = "{tmp_path / "runs.db"}"\n')
    code, _, err = invoke("--config", cfg, "run", "--base-url", "http://127.0.0.1:9", cwd=tmp_path,
                          monkeypatch=monkeypatch)
    line = one_line(err)
    assert code == 2 and f"no tasks in {cfg.parent}/harness/tasks" in line and f"beside {cfg}" in line
    assert not (tmp_path / "runs.db").exists()
    code, _, err = invoke("--config", cfg, "tasks", "check")
    assert code == 2 and "no tasks in" in one_line(err)


# ------------------------------------------------------------------ typo'd names
def test_a_typod_task_gets_a_near_match_not_every_name(tmp_path, monkeypatch):
    proj = tmp_path / "proj"
    shutil.copytree(ROOT / "harness" / "tasks" / "dedupe_words_py", proj / "harness" / "tasks" / "dedupe_words_py")
    humaneval.import_humaneval(proj / "harness" / "tasks", [dict(_EVEN, task_id=f"Local/{i}") for i in range(20)])
    (proj / "config.toml").write_text(f'[loop]\ndb = "{tmp_path / "runs.db"}"\n')
    code, out, err = invoke("tasks", "check", "dedupe_word_py", cwd=proj, monkeypatch=monkeypatch)
    assert code == 2 and out == ""
    assert one_line(err) == "error: unknown task 'dedupe_word_py'; did you mean 'dedupe_words_py'?"
    code, out, err = invoke("grade", "zzz", ROOT / "harness" / "examples" / "merge_intervals_py" / "correct_repair.py")
    line = one_line(err)
    assert code == 2 and "unknown task 'zzz' (21 in" in line and "`loop tasks list` lists them" in line
    assert "humaneval_001" not in line  # never the whole list
    assert not (tmp_path / "runs.db").exists()


# ------------------------------------------------------------------ report names what does not exist
@pytest.fixture
def runs_db(tmp_path) -> Path:
    db = tmp_path / "runs.db"
    with RunStore(db) as store:
        b = store.start_batch("grade", seed=1)
        cid = store.add_candidate(b, "merge_intervals_py", 0, source="x", status="graded")
        store.db["candidates"].update(cid, {"verdict": "stable_pass"})
    return db


@pytest.mark.parametrize("args,message", [
    (["--batch", "99"], "runs.db: no batch 99"),
    (["--task", "merge_interval_py"], "no candidates for task 'merge_interval_py' in {db}; did you mean "
                                      "'merge_intervals_py'?"),
    (["--task", "xyzzy", "--format", "html"], "no candidates for task 'xyzzy' in {db} (known: merge_intervals_py)"),
    (["--batch", "1", "--task", "zz", "--format", "json"], "no candidates for task 'zz' in batch 1"),
])
def test_report_on_what_does_not_exist_is_one_line(runs_db, args, message):
    code, out, err = invoke("report", "--db", runs_db, *args)
    assert code == 2 and out == "" and message.format(db=runs_db) in one_line(err)


def test_report_on_a_missing_db_creates_none(tmp_path, runs_db):
    typo = tmp_path / "typo.db"
    code, out, err = invoke("report", "--db", typo)
    assert code == 2 and out == "" and f"{typo}: no such file" in one_line(err)
    assert not typo.exists()
    code, out, _ = invoke("report", "--db", runs_db, "--task", "merge_intervals_py")
    assert code == 0 and "merge_intervals_py" in out


def test_tasks_check_refuses_a_typo_before_checking_anything(monkeypatch):
    code, out, err = invoke("tasks", "check", "no_such_task", "merge_intervals_py", cwd=ROOT, monkeypatch=monkeypatch)
    assert code == 2 and out == "" and "unknown task 'no_such_task'" in one_line(err)


# ------------------------------------------------------------------ an import never breaks the demo
def _project_with_an_import(tmp_path: Path) -> tuple[Path, Path]:
    proj = tmp_path / "proj"
    shutil.copytree(ROOT / "harness", proj / "harness", ignore=shutil.ignore_patterns("humaneval_*", "mbpp_*"))
    shutil.copy(ROOT / "config.toml", proj / "config.toml")
    shutil.copytree(ROOT / "prompts", proj / "prompts")
    humaneval.import_humaneval(proj / "harness" / "tasks", [_EVEN])  # as `loop tasks import humaneval` does
    return proj, tmp_path / "runs.db"


def test_the_demo_cassette_picks_the_tasks_it_answers(tmp_path):
    from loop import config as config_mod
    from loop.run.batch import every_task

    proj, _ = _project_with_an_import(tmp_path)
    config = config_mod.load(proj / "config.toml")
    warned = []
    names = every_task(config, proj / "harness" / "cassettes" / "demo.jsonl", warned.append)
    shipped = sorted(p.name for p in (ROOT / "harness" / "tasks").iterdir() if not p.name.startswith(("humaneval_",
                                                                                                       "mbpp_")))
    assert names == shipped and "humaneval_002" not in names
    assert len(warned) == 1 and f"answers {len(shipped)} of the {len(shipped) + 1} tasks" in warned[0]
    assert every_task(config, None, warned.append) == sorted(shipped + ["humaneval_002"])  # a live endpoint: all


@pytest.mark.sandbox
def test_after_an_import_the_demo_still_generates(tmp_path, monkeypatch):
    """`loop generate` with the shipped config after an import: the demo's tasks only, every reply answered."""
    proj, db = _project_with_an_import(tmp_path)
    monkeypatch.setenv("LOOP_DB", str(db))
    code, out, err = invoke("generate", "--json", cwd=proj, monkeypatch=monkeypatch)
    assert code == 0, err
    assert "answers 7 of the 8 tasks" in err
    tasks = {r["task"] for r in sqlite_utils.Database(db).query("select distinct task from candidates")}
    assert len(tasks) == 7 and "humaneval_002" not in tasks
    assert json.loads(out)["candidates"] == 49 and json.loads(out)["infra_unknown"] == 1  # the demo's 429 storm


@pytest.mark.sandbox
def test_tasks_check_with_named_tasks_prints_a_summary(monkeypatch):
    code, out, _ = invoke("tasks", "check", "dedupe_words_py", cwd=ROOT, monkeypatch=monkeypatch)
    assert code == 0 and out.splitlines() == ["ok   dedupe_words_py", "1 ok, 0 failed, 0 skipped of 1 tasks"]


# ------------------------------------------------------------------ a failing check shows its evidence
DEMO = ROOT / "harness" / "examples" / "demo"


@pytest.mark.sandbox
def test_a_flaky_test_shows_its_failing_attempt(tmp_path):
    code, out, _ = invoke("grade", "merge_intervals_py", DEMO / "flaky.py", "--db", tmp_path / "runs.db")
    assert code == 1 and "merge_intervals_py: flaky" in out
    (line,) = [l for l in out.splitlines() if "FAIL test:separated_ranges_stay_ascending" in l]
    assert "expected [[1,2],[5,6],[10,12]], got " in line and "failed in 2 of 5 repeats" in line, line
    code, out, _ = invoke("grade", "merge_intervals_py", DEMO / "flaky.py", "--db", tmp_path / "runs.db", "--json")
    (failure,) = [f for f in json.loads(out)["failures"] if f["check"] == "test:separated_ranges_stay_ascending"]
    assert failure["detail"].startswith("expected [[1,2],[5,6],[10,12]], got ")


@pytest.mark.sandbox
def test_a_build_failure_shows_the_first_compiler_error(tmp_path):
    code, out, _ = invoke("grade", "merge_intervals_cpp", DEMO / "does_not_compile.cpp", "--k", "1",
                          "--db", tmp_path / "runs.db")
    (line,) = [l for l in out.splitlines() if "FAIL build" in l]
    assert code == 1 and "error: expected ';' before 'return'" in line, out


# ------------------------------------------------------------------ no silent wait
def test_a_stalled_batch_says_what_it_waits_for(capsys):
    import time

    from loop.cli.output import Progress

    progress = Progress(True, quiet=0.3, every=0.6)
    progress({"done": 1, "total": 3, "verdicts": {}})
    time.sleep(1.2)
    err = capsys.readouterr().err
    waits = [line for line in err.splitlines() if line.startswith("still working (")]
    assert waits and "(1/3 done, nothing finished for" in waits[0] and "wall-clock limit" in waits[0]
    assert "endpoint" not in waits[0]  # a samples file asks none
    assert len(waits) <= 3  # a reminder now and then, not a line a second
    progress({"done": 3, "total": 3, "verdicts": {}})  # finished: the watch stops
    time.sleep(0.8)
    assert "still working" not in capsys.readouterr().err


def test_a_batch_that_asks_says_so_before_anything_is_graded(capsys):
    import time

    from loop.cli.output import Progress

    progress = Progress(True, quiet=0.3, asks=True)
    time.sleep(0.8)
    progress.stop.set()
    (line, *_) = [l for l in capsys.readouterr().err.splitlines() if l.startswith("still working (")]
    assert "nothing graded yet): waiting on the tasks' polarity checks, the endpoint's replies" in line


def test_a_quick_batch_prints_no_wait_line(capsys):
    import time

    from loop.cli.output import Progress

    progress = Progress(True, quiet=0.5)
    for done in range(1, 4):
        progress({"done": done, "total": 3, "verdicts": {}})
        time.sleep(0.1)
    time.sleep(0.8)
    assert "still working" not in capsys.readouterr().err


def test_a_scheduler_wait_is_said_before_it_starts(tmp_path):
    cfg = tmp_path / "config.toml"
    cfg.write_text(f'[loop]\ndb = "{tmp_path / "runs.db"}"\n')
    code, out, err = invoke("--config", cfg, "grade", "--samples", tmp_path / "none.jsonl",
                            "--cluster", "tcp://127.0.0.1:9")
    lines = err.strip().splitlines()
    assert code == 2 and lines[0] == ("connecting to the Dask scheduler at tcp://127.0.0.1:9 (up to 10 s, "
                                      "[cluster] connect_timeout)")
    assert lines[1].startswith("error: ") and "none.jsonl" in lines[1]


# ------------------------------------------------------------------ smaller things
def test_tasks_list_cuts_descriptions_between_words(monkeypatch):
    code, out, _ = invoke("tasks", "list", cwd=ROOT, monkeypatch=monkeypatch)
    rows = {line.split()[0]: line for line in out.splitlines()}
    assert code == 0 and rows["dedupe_words_py"].endswith("Drop words equal to an earlier word under ...")
    for line in out.splitlines():
        description = line.split(" goldens  ", 1)[1]
        assert len(description) <= 60 and (description.endswith(" ...") or not description.endswith(" "))


def test_a_seed_rotation_leaves_the_git_tree_clean():
    import subprocess

    ignored = subprocess.run(["git", "check-ignore", "-q", "harness/seeds/current.seed"], cwd=ROOT)
    tracked = subprocess.run(["git", "ls-files", "harness/seeds"], cwd=ROOT, capture_output=True, text=True)
    assert ignored.returncode == 0 and tracked.stdout == ""


def test_the_report_names_pass_at_k_by_its_k_not_k_equals(runs_db):
    code, out, _ = invoke("report", "--db", runs_db, "--pass-k", "3")
    head = out.splitlines()[0].split()
    assert code == 0 and head[-4:] == ["pass@1", "pass@3", "fail", "reasons"] and "k=" not in out  # k= is a grade's repeats
