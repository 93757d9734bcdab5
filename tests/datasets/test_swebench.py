"""SWE-bench format: real git repositories made here (nothing fetched), instance files with lists and with
JSON-string lists, `loop tasks import swebench`, `loop grade --predictions [--json]`, and the bad input."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import tomllib
from pathlib import Path

import pytest

from loop.datasets import swebench

from loop import tasks
from loop import verdicts as V

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org", "PATH": "/usr/bin:/bin", "HOME": "/nonexistent"}

CALC_BASE = {
    "pyproject.toml": '[project]\nname = "calc"\nversion = "0.1"\ndependencies = []\n',
    "calc/__init__.py": "",
    "calc/ops.py": (
        "def clamp(x, lo, hi):\n"
        "    \"\"\"x limited to [lo, hi].\"\"\"\n"
        "    if x < lo:\n"
        "        return hi\n"  # the bug: below the range goes to the top
        "    if x > hi:\n"
        "        return hi\n"
        "    return x\n\n\n"
        "def add(a, b):\n"
        "    return a + b\n"),
    "tests/__init__.py": "",
    "tests/helpers.py": "LIMITS = (0, 10)\n",
    "tests/test_ops.py": (
        "import pytest\n\nfrom calc.ops import add, clamp\n\n\n"
        "def test_add():\n    assert add(2, 3) == 5\n\n\n"
        "@pytest.mark.parametrize('x', [3, 7])\n"
        "def test_inside(x):\n    assert clamp(x, 0, 10) == x\n\n\n"
        "class TestAbove:\n"
        "    def test_above(self):\n        assert clamp(12, 0, 10) == 10\n"),
}
# test_patch: a new test file, a new test in an existing file, and a helper it edits
CALC_TEST_PATCH = """\
diff --git a/tests/helpers.py b/tests/helpers.py
--- a/tests/helpers.py
+++ b/tests/helpers.py
@@ -1 +1,2 @@
 LIMITS = (0, 10)
+BELOW = -5
diff --git a/tests/test_clamp.py b/tests/test_clamp.py
new file mode 100644
--- /dev/null
+++ b/tests/test_clamp.py
@@ -0,0 +1,6 @@
+from calc.ops import clamp
+from tests.helpers import BELOW, LIMITS
+
+
+def test_below():
+    assert clamp(BELOW, *LIMITS) == 0
diff --git a/tests/test_ops.py b/tests/test_ops.py
--- a/tests/test_ops.py
+++ b/tests/test_ops.py
@@ -14,3 +14,6 @@
 class TestAbove:
     def test_above(self):
         assert clamp(12, 0, 10) == 10
+
+    def test_far_below(self):
+        assert clamp(-100, 0, 10) == 0
"""
CALC_GOLD = """\
diff --git a/calc/ops.py b/calc/ops.py
--- a/calc/ops.py
+++ b/calc/ops.py
@@ -1,7 +1,7 @@
 def clamp(x, lo, hi):
     \"\"\"x limited to [lo, hi].\"\"\"
     if x < lo:
-        return hi
+        return lo
     if x > hi:
         return hi
     return x
"""
CALC_F2P = ["tests/test_clamp.py::test_below", "tests/test_ops.py::TestAbove::test_far_below"]
CALC_P2P = ["tests/test_ops.py::test_add", "tests/test_ops.py::test_inside[3]", "tests/test_ops.py::test_inside[7]",
            "tests/test_ops.py::TestAbove::test_above"]

# a src layout, a root-level test file, setup.cfg dependencies
UNITS_BASE = {
    "setup.cfg": "[metadata]\nname = units\n\n[options]\ninstall_requires =\n    # none needed at runtime\n",
    "src/units/__init__.py": "",
    "src/units/convert.py": "def km_to_m(km):\n    return km * 100\n\n\ndef m_to_cm(m):\n    return m * 100\n",
    "test_convert.py": "from units.convert import km_to_m, m_to_cm\n\n\n"
                       "def test_cm():\n    assert m_to_cm(2) == 200\n\n\n"
                       "def test_km():\n    assert km_to_m(2) == 2000\n",
}
UNITS_GOLD = """\
--- a/src/units/convert.py
+++ b/src/units/convert.py
@@ -1,5 +1,5 @@
 def km_to_m(km):
-    return km * 100
+    return km * 1000
 
 
 def m_to_cm(m):
"""


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], env=GIT_ENV, check=True, capture_output=True,
                          text=True).stdout.strip()


def _repo(path: Path, files: dict[str, str]) -> str:
    """A real git repository with `files` committed; a later commit on top that the import must not take."""
    path.mkdir(parents=True)
    _git(path, "init", "-q", "-b", "main")
    for rel, body in files.items():
        (path / rel).parent.mkdir(parents=True, exist_ok=True)
        (path / rel).write_text(body)
    _git(path, "add", "-A")
    _git(path, "commit", "-q", "-m", "base")
    base = _git(path, "rev-parse", "HEAD")
    (path / "LATER.txt").write_text("a later commit\n")
    _git(path, "add", "-A")
    _git(path, "commit", "-q", "-m", "later")
    return base


@pytest.fixture
def project(tmp_path):
    """A tmp loop project (config.toml, harness/tasks), clones in repos/, and an instance file: one
    instance with lists, one with JSON strings of lists (as the published dataset stores them)."""
    proj = tmp_path / "proj"
    (proj / "harness" / "tasks").mkdir(parents=True)
    cfg = proj / "config.toml"
    cfg.write_text(f'[loop]\ndb = "{tmp_path / "runs.db"}"\nk = 1\ntrials = 0\n')
    repos = tmp_path / "repos"
    calc = _repo(repos / "acme__calc", CALC_BASE)
    units = _repo(repos / "acme" / "units", UNITS_BASE)
    instances = [
        {"instance_id": "acme__calc-1", "repo": "acme/calc", "base_commit": calc, "patch": CALC_GOLD,
         "test_patch": CALC_TEST_PATCH, "FAIL_TO_PASS": CALC_F2P, "PASS_TO_PASS": CALC_P2P,
         "environment_setup_commit": calc, "problem_statement": "clamp(-5, 0, 10) gives 10; it should be 0."},
        {"instance_id": "acme__units-2", "repo": "acme/units", "base_commit": units, "patch": UNITS_GOLD,
         "test_patch": "", "FAIL_TO_PASS": json.dumps(["test_convert.py::test_km"]),
         "PASS_TO_PASS": json.dumps(["test_convert.py::test_cm"]), "environment_setup_commit": units,
         "problem_statement": "km_to_m(2) says 200."},
    ]
    inst = tmp_path / "instances.jsonl"
    inst.write_text("".join(json.dumps(i) + "\n" for i in instances))
    return {"root": proj, "cfg": cfg, "repos": repos, "instances": inst, "rows": instances, "db": tmp_path / "runs.db",
            "tmp": tmp_path}


def _import(loop_cli, p, *extra, instances=None):
    return loop_cli("tasks", "import", "swebench", instances or p["instances"], "--repos", p["repos"], *extra,
                    config=p["cfg"])


def _preds(p, name: str, rows: list[dict], as_list: bool = False) -> Path:
    path = p["tmp"] / name
    path.write_text(json.dumps(rows) if as_list else "".join(json.dumps(r) + "\n" for r in rows))
    return path


def _pred(iid: str, patch: str | None, model: str = "m") -> dict:
    return {"instance_id": iid, "model_name_or_path": model, "model_patch": patch}


def _grade(loop_cli, p, preds: Path, *extra):
    code, out = loop_cli("grade", "--predictions", preds, "--json", "--k", "1", *extra, config=p["cfg"])
    return code, json.loads(out.strip().splitlines()[-1])


# import --------------------------------------------------------------------------------------------------
@pytest.mark.sandbox
def test_import_writes_repo_tasks_pinned_at_the_base_commit(loop_cli, project):
    code, out = _import(loop_cli, project)
    assert code == 0, out
    root = project["root"] / "harness" / "tasks"
    calc = root / "acme__calc-1"
    assert not (calc / "repo" / "LATER.txt").exists()  # the base commit, not the clone's HEAD
    assert (calc / "repo" / "calc" / "ops.py").read_text() == CALC_BASE["calc/ops.py"]
    assert not (calc / "repo" / ".git").exists()
    # test_patch -> hidden files (its result, staged after the candidate's patch); patch -> gold
    assert (calc / "hidden" / "tests" / "test_clamp.py").is_file()
    assert "test_far_below" in (calc / "hidden" / "tests" / "test_ops.py").read_text()
    assert "test_far_below" not in (calc / "repo" / "tests" / "test_ops.py").read_text()
    assert (calc / "gold.patch").read_text() == CALC_GOLD
    meta = tomllib.loads((calc / "task.toml").read_text())
    assert meta["kind"] == "repo" and meta["fail_to_pass"] == CALC_F2P and meta["pass_to_pass"] == CALC_P2P
    assert meta["test_command"][-1] == "{tests}"  # the ids: the prompt shows the command, never a hidden file
    assert meta["test_paths"] == ["tests/helpers.py", "tests/test_clamp.py", "tests/test_ops.py"]
    assert meta["context"] == ["calc/ops.py"]
    assert meta["bug_report"] == "clamp(-5, 0, 10) gives 10; it should be 0."
    assert (calc / "requirements.txt").read_text() == swebench.PYTEST + "\n"
    # the JSON-string lists, the owner/name clone layout, a src layout
    units = tomllib.loads((root / "acme__units-2" / "task.toml").read_text())
    assert units["fail_to_pass"] == ["test_convert.py::test_km"] and units["pass_to_pass"] == ["test_convert.py::test_cm"]
    assert units["test_command"][-3:] == ["-o", "pythonpath=src", "{tests}"]
    assert "hidden_tests" not in units
    # the tree is covered by the task hash: the same import gives the same digest, an edit another
    digest = tasks.load_folder(calc).spec.digest
    assert _import(loop_cli, project)[0] == 0 and tasks.load_folder(calc).spec.digest == digest
    (calc / "repo" / "calc" / "ops.py").write_text("# edited\n")
    assert tasks.load_folder(calc).spec.digest != digest

    code, out = loop_cli("tasks", "list", "--json", config=project["cfg"])
    assert code == 0
    assert {(r["name"], r["kind"]) for r in json.loads(out)} == {("acme__calc-1", "repo"), ("acme__units-2", "repo")}


@pytest.mark.sandbox
def test_declared_requirements_and_override(loop_cli, project, tmp_path):
    clone = tmp_path / "repos" / "acme__deps"
    base = _repo(clone, {
        "pyproject.toml": '[project]\nname = "d"\ndependencies = ["attrs>=21"]\n'
                          '[project.optional-dependencies]\ntest = ["pytest>=7", "hypothesis"]\ndocs = ["sphinx"]\n',
        "setup.py": "from setuptools import setup\nsetup(install_requires=['six'], extras_require={'tests': ['mock']})\n"})
    assert swebench.declared_requirements(clone, base) == ["attrs>=21", "pytest>=7", "hypothesis", "six", "mock"]
    # the project names its own pytest: no second pin
    assert swebench.requirements_text(["pytest>=7", "six"]) == "pytest>=7\nsix\n"
    req = tmp_path / "req.txt"
    req.write_text("pytest==8.3.4\n")
    code, out = _import(loop_cli, project, "--requirements", req)
    assert code == 0, out
    assert (project["root"] / "harness" / "tasks" / "acme__units-2" / "requirements.txt").read_text() == "pytest==8.3.4\n"


def test_toml_strings_round_trip_whatever_the_dataset_holds():
    """A problem statement may hold any character (control characters, DEL, quotes, lone surrogates)."""
    import random

    from loop.grading.model import text

    rng = random.Random(15)
    pool = [0, 0x7F, 0x22, 0x5C, 0x0A, 0x1F, 0xE9, 0xD800, 0x1F600]
    for _ in range(3000):
        s = "".join(chr(rng.choice(pool + [rng.randrange(0x110000)])) for _ in range(rng.randrange(12)))
        assert tomllib.loads("x = " + swebench._toml(s))["x"] == text(s)
    assert tomllib.loads("x = " + swebench._toml(["a", "b\x7f"]))["x"] == ["a", "b\x7f"]


# grade --predictions -------------------------------------------------------------------------------------
@pytest.mark.slow
def test_predictions_gold_resolved_noop_unresolved(loop_cli, project):
    assert _import(loop_cli, project)[0] == 0
    noop = CALC_GOLD.replace("-        return hi\n+        return lo\n", "-        return hi\n+        return hi  # ok\n")
    preds = _preds(project, "preds.jsonl", [_pred("acme__units-2", UNITS_GOLD, "gold"),
                                            _pred("acme__calc-1", noop, "noop")])
    code, report = _grade(loop_cli, project, preds, "--seed", "11")
    assert code == 0
    assert set(report) == {"acme__units-2", "acme__calc-1"}
    gold = report["acme__units-2"]
    assert gold["resolved"] is True and gold["verdict"] == V.STABLE_PASS and "reason" not in gold
    assert gold["patch_successfully_applied"] is True and gold["model_name_or_path"] == "gold"
    assert gold["tests_status"]["FAIL_TO_PASS"] == {"success": ["test_convert.py::test_km"], "failure": []}
    assert gold["tests_status"]["PASS_TO_PASS"] == {"success": ["test_convert.py::test_cm"], "failure": []}
    bad = report["acme__calc-1"]
    assert bad["resolved"] is False and bad["verdict"] == V.STABLE_FAIL and bad["patch_successfully_applied"]
    assert bad["tests_status"]["FAIL_TO_PASS"] == {"success": [], "failure": CALC_F2P}
    assert bad["tests_status"]["PASS_TO_PASS"] == {"success": CALC_P2P, "failure": []}  # parametrized and class ids
    assert bad["reason"] == ", ".join(f"test:{t}" for t in CALC_F2P)
    # one batch in runs.db, one candidate per prediction, one checks row per test id
    con = sqlite3.connect(project["db"])
    assert con.execute("SELECT kind, status, k, seed FROM batches").fetchall() == [("predictions", "done", 1, 11)]
    rows = con.execute("SELECT task, model, verdict, resolved, seed FROM candidates ORDER BY task").fetchall()
    assert rows == [("acme__calc-1", "noop", V.STABLE_FAIL, 0, 11), ("acme__units-2", "gold", V.STABLE_PASS, 1, 11)]
    transitions = dict(con.execute('SELECT "check", transition FROM checks WHERE "repeat" IS NULL AND kind = ?',
                                   ("test",)).fetchall())
    assert transitions["test:tests/test_clamp.py::test_below"] == "still_broken"
    assert transitions["test:tests/test_ops.py::test_inside[7]"] == "preserved"


@pytest.mark.slow
def test_predictions_refused_patches(loop_cli, project):
    assert _import(loop_cli, project)[0] == 0
    stale = CALC_GOLD.replace('    """x limited to [lo, hi]."""', '    """x kept in [lo, hi]."""')
    edits_test = ("--- a/test_convert.py\n+++ b/test_convert.py\n@@ -1,1 +1,1 @@\n"
                  "-from units.convert import km_to_m, m_to_cm\n+from units.convert import km_to_m, m_to_cm  # x\n")
    preds = _preds(project, "preds.json", [_pred("acme__calc-1", stale), _pred("acme__units-2", edits_test)],
                   as_list=True)
    code, report = _grade(loop_cli, project, preds)
    assert code == 0
    stale_r, touch_r = report["acme__calc-1"], report["acme__units-2"]
    assert (stale_r["resolved"], stale_r["reason"], stale_r["patch_successfully_applied"]) == (
        False, "patch_does_not_apply", False)
    assert "x kept in" in stale_r["detail"] and "rejected hunks" in stale_r["detail"]  # the rejected hunk
    assert stale_r["tests_status"]["FAIL_TO_PASS"]["failure"] == CALC_F2P
    assert (touch_r["resolved"], touch_r["reason"], touch_r["verdict"]) == (False, "touches_tests", V.STABLE_FAIL)

    # a file the test patch touches, though it holds no named test; a path out of the tree; an empty patch
    helper = "--- a/tests/helpers.py\n+++ b/tests/helpers.py\n@@ -1 +1 @@\n-LIMITS = (0, 10)\n+LIMITS = (0, 9)\n"
    climb = "--- a/../x.py\n+++ b/../x.py\n@@ -0,0 +1 @@\n+x = 1\n"
    preds = _preds(project, "more.jsonl", [_pred("acme__calc-1", helper), _pred("acme__units-2", climb)])
    report = _grade(loop_cli, project, preds)[1]
    assert report["acme__calc-1"]["reason"] == "touches_tests"
    assert report["acme__units-2"]["reason"] == "outside_repository"
    # an empty prediction; a hostile one (a lone surrogate, a NUL, no diff at all) fails itself, not loop
    preds = _preds(project, "empty.jsonl", [_pred("acme__calc-1", None), _pred("acme__units-2", "\ud800\x00 no diff")])
    report = _grade(loop_cli, project, preds)[1]
    empty, hostile = report["acme__calc-1"], report["acme__units-2"]
    assert (empty["patch_is_None"], empty["patch_exists"], empty["resolved"], empty["reason"]) == (
        True, False, False, V.NO_CODE)
    assert (hostile["resolved"], hostile["reason"], hostile["verdict"]) == (False, "patch_does_not_apply", V.STABLE_FAIL)
    con = sqlite3.connect(project["db"])
    assert con.execute("SELECT count(*), count(distinct batch_id) FROM candidates").fetchone() == (6, 3)


@pytest.mark.slow
def test_an_interrupted_predictions_batch_is_finished_by_grade_batch(loop_cli, project, monkeypatch):
    """A crash after the batch and its candidates are stored, before any grade: `loop grade --batch` grades
    them, once each."""
    from loop.run.pipeline import _Pipeline

    assert _import(loop_cli, project)[0] == 0
    preds = _preds(project, "preds.jsonl", [_pred("acme__calc-1", CALC_GOLD), _pred("acme__units-2", UNITS_GOLD)])

    class Crash(Exception):
        pass

    def crash(*a, **kw):
        raise Crash

    monkeypatch.setattr(_Pipeline, "run", crash)
    with pytest.raises(Crash):
        loop_cli("grade", "--predictions", preds, "--k", "1", config=project["cfg"])
    monkeypatch.undo()
    con = sqlite3.connect(project["db"])
    assert con.execute("SELECT status, verdict FROM candidates").fetchall() == [("generated", None)] * 2
    code, out = loop_cli("grade", "--batch", "1", config=project["cfg"])
    assert code == 0, out
    rows = con.execute("SELECT task, verdict, resolved FROM candidates ORDER BY task").fetchall()
    assert rows == [("acme__calc-1", V.STABLE_PASS, 1), ("acme__units-2", V.STABLE_PASS, 1)]
    assert con.execute("SELECT count(*), count(distinct candidate_id) FROM attempts").fetchone() == (2, 2)


# bad input: one line, exit 2, nothing written ---------------------------------------------------------------
def _refused(loop_cli, p, args, expect: str):
    code, out = loop_cli(*args, config=p["cfg"])
    lines = [x for x in out.splitlines() if x.strip()]
    assert code == 2 and len(lines) == 1 and expect in lines[0], out
    return lines[0]


def _instances(p, name: str, rows: list[dict]) -> Path:
    path = p["tmp"] / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.mark.sandbox
def test_bad_instances_are_refused_whole(loop_cli, project):
    rows = project["rows"]
    imp = ["tasks", "import", "swebench"]
    repos = ["--repos", project["repos"]]
    missing = _instances(project, "missing.jsonl", [rows[0], {k: v for k, v in rows[1].items() if k != "PASS_TO_PASS"}])
    line = _refused(loop_cli, project, [*imp, missing, *repos], "missing field 'PASS_TO_PASS'")
    assert f"{missing}:2:" in line
    notalist = _instances(project, "str.jsonl", [{**rows[0], "FAIL_TO_PASS": "tests/test_clamp.py::test_below"}])
    _refused(loop_cli, project, [*imp, notalist, *repos], "field 'FAIL_TO_PASS' is a string but not a JSON list")
    django = _instances(project, "dj.jsonl", [{**rows[0], "FAIL_TO_PASS": ["test_below (tests.Clamp)"]}])
    _refused(loop_cli, project, [*imp, django, *repos], "is not a pytest node id")
    noclone = _instances(project, "noclone.jsonl", [rows[0], {**rows[1], "repo": "acme/gone"}])
    line = _refused(loop_cli, project, [*imp, noclone, *repos], "no clone of acme/gone")
    assert f"{noclone}:2:" in line
    nocommit = _instances(project, "nocommit.jsonl", [{**rows[0], "base_commit": "0" * 40}])
    _refused(loop_cli, project, [*imp, nocommit, *repos], "commit '0000000000000000000000000000000000000000' is not in the clone")
    noenv = _instances(project, "noenv.jsonl", [{**rows[0], "environment_setup_commit": "v9.9"}])
    _refused(loop_cli, project, [*imp, noenv, *repos], "field 'environment_setup_commit'")
    notest = _instances(project, "notest.jsonl", [{**rows[0], "PASS_TO_PASS": ["tests/test_gone.py::test_x"]}])
    _refused(loop_cli, project, [*imp, notest, *repos], "test file tests/test_gone.py is not in acme/calc")
    _refused(loop_cli, project, [*imp, project["instances"], *repos, "--test-command",
                                 "no-such-pytest --junitxml={report}"], "program 'no-such-pytest' does not exist")
    assert list((project["root"] / "harness" / "tasks").iterdir()) == []  # the good first lines were not kept


@pytest.mark.slow
def test_a_parser_finding_no_tests_refuses_the_batch(loop_cli, project):
    command = "python3 -m pytest -p no:cacheprovider --junitxml={report} -k no_test_has_this_name"
    assert _import(loop_cli, project, "--test-command", command)[0] == 0
    preds = _preds(project, "preds.jsonl", [_pred("acme__units-2", UNITS_GOLD)])
    _refused(loop_cli, project, ["grade", "--predictions", preds, "--k", "1"], "junit parser found no tests")
    assert not project["db"].exists() or sqlite3.connect(project["db"]).execute(
        "SELECT count(*) FROM batches").fetchone() == (0,)


@pytest.mark.slow
def test_an_id_pytest_cannot_find_refuses_the_task_naming_it(loop_cli, project):
    rows = [{**project["rows"][0], "PASS_TO_PASS": CALC_P2P + ["tests/test_ops.py::test_gone"]}]
    assert _import(loop_cli, project, instances=_instances(project, "gone.jsonl", rows))[0] == 0
    preds = _preds(project, "preds.jsonl", [_pred("acme__calc-1", CALC_GOLD)])
    _refused(loop_cli, project, ["grade", "--predictions", preds, "--k", "1"],
             "ERROR: not found: /repo/tests/test_ops.py::test_gone")
    assert not project["db"].exists()
    code, out = loop_cli("tasks", "check", "acme__calc-1", config=project["cfg"])
    assert code == 2 and "test_gone" in out


@pytest.mark.sandbox
def test_bad_predictions_are_refused(loop_cli, project):
    assert _import(loop_cli, project)[0] == 0
    grade = ["grade", "--predictions"]
    nofield = _preds(project, "a.jsonl", [_pred("acme__calc-1", CALC_GOLD), {"instance_id": "acme__units-2"}])
    assert f"{nofield}:2:" in _refused(loop_cli, project, [*grade, nofield], "missing field 'model_name_or_path'")
    unknown = _preds(project, "b.jsonl", [_pred("acme__nope-9", CALC_GOLD)])
    _refused(loop_cli, project, [*grade, unknown], "instance 'acme__nope-9' is not imported")
    twice = _preds(project, "c.jsonl", [_pred("acme__calc-1", CALC_GOLD), _pred("acme__calc-1", CALC_GOLD)])
    _refused(loop_cli, project, [*grade, twice], "already predicted at")
    _refused(loop_cli, project, [*grade, project["tmp"] / "none.jsonl"], "predictions file not found")
    code, out = loop_cli(*grade, nofield, "--trials", "3", config=project["cfg"])  # click's usage error
    assert code == 2 and "Error: --trials cannot be combined with --predictions" in out
    nested = project["tmp"] / "nested.jsonl"
    nested.write_text("[" * 100000 + "\n")
    _refused(loop_cli, project, [*grade, nested], "not valid JSON")
    assert not project["db"].exists()
