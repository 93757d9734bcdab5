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
    """--json prints one line per model (one batch each): merged here, keyed by instance_id."""
    code, out = loop_cli("grade", "--predictions", preds, "--json", "--k", "1", *extra, config=p["cfg"])
    merged = {}
    for line in out.splitlines():
        if line.startswith("{"):
            merged.update(json.loads(line))
    return code, merged


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
    (calc / "mine.txt").write_text("kept")
    line = _refused(loop_cli, project, ["tasks", "import", "swebench", project["instances"], "--repos",
                                        project["repos"]], "acme__calc-1 exists (2 of the 2 instances")
    assert "--force replaces them" in line and (calc / "mine.txt").exists()
    assert _import(loop_cli, project, "--force")[0] == 0 and tasks.load_folder(calc).spec.digest == digest
    (calc / "repo" / "calc" / "ops.py").write_text("# edited\n")
    assert tasks.load_folder(calc).spec.digest != digest

    code, out = loop_cli("tasks", "list", "--json", config=project["cfg"])
    assert code == 0
    assert {(r["name"], r["kind"]) for r in json.loads(out)} == {("acme__calc-1", "repo"), ("acme__units-2", "repo")}
    assert all(r["pass_to_pass"] is not None and r["tests"] >= r["pass_to_pass"] for r in json.loads(out))


@pytest.mark.sandbox
def test_declared_requirements_and_override(loop_cli, project, tmp_path):
    clone = tmp_path / "repos" / "acme__deps"
    base = _repo(clone, {
        "pyproject.toml": '[project]\nname = "d"\ndependencies = ["attrs>=21"]\n'
                          '[project.optional-dependencies]\ntest = ["pytest>=7", "hypothesis"]\ndocs = ["sphinx"]\n',
        "setup.py": "from setuptools import setup\nsetup(install_requires=['six'], extras_require={'tests': ['mock']})\n"})
    assert swebench.declared_requirements(clone, base) == ["attrs>=21", "pytest>=7", "hypothesis", "six", "mock"]
    # setup.py building its lists from names, test requirement files, tox.ini; what cannot be read is said
    other = tmp_path / "repos" / "acme__vars"
    base = _repo(other, {
        "setup.py": ("from setuptools import setup\nBASE = ['six']\nTESTS = BASE + ['simplejson']\n"
                     "EXTRAS = {'test': TESTS, 'docs': ['sphinx']}\n"
                     "setup(install_requires=BASE, extras_require=EXTRAS, tests_require=open('t.txt').read())\n"),
        "requirements-dev.txt": "-r requirements.txt\nfreezegun  # time\n",
        "tox.ini": "[testenv]\ndeps =\n    mock\n    {env:EXTRA:}\n"})
    found = swebench.find_requirements(other, base)
    assert found.found == [("setup.py install_requires", ["six"]), ("setup.py extras_require['test']", ["six", "simplejson"]),
                           ("requirements-dev.txt", ["freezegun"]), ("tox.ini [testenv] deps", ["mock"])]
    assert found.requirements == ["six", "simplejson", "freezegun", "mock"]
    assert [w.split(":")[0] for w in found.warnings] == ["setup.py", "requirements-dev.txt"]
    assert "tests_require is computed (open('t.txt').read())" in found.warnings[0]
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
    # one candidate per prediction, one checks row per test id
    con = sqlite3.connect(project["db"])
    # one batch per model, each with the seed given
    assert con.execute("SELECT kind, status, k, model, seed FROM batches").fetchall() == [
        ("predictions", "done", 1, "gold", 11), ("predictions", "done", 1, "noop", 11)]
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
    edits_test = ("--- a/test_convert.py\n+++ b/test_convert.py\n@@ -1,3 +1,3 @@\n"
                  "-from units.convert import km_to_m, m_to_cm\n+from units.convert import km_to_m, m_to_cm  # x\n \n \n")
    preds = _preds(project, "preds.json", [_pred("acme__calc-1", stale), _pred("acme__units-2", edits_test)],
                   as_list=True)
    code, report = _grade(loop_cli, project, preds)
    assert code == 0
    stale_r, touch_r = report["acme__calc-1"], report["acme__units-2"]
    assert (stale_r["resolved"], stale_r["reason"], stale_r["patch_successfully_applied"]) == (
        False, "patch_does_not_apply", False)
    assert "x kept in" in stale_r["detail"] and "rejected hunks" in stale_r["detail"]  # the rejected hunk
    # it never ran: no test is reported failing, as SWE-bench writes no test status for it
    assert stale_r["tests_ran"] is False and stale_r["tests_status"]["FAIL_TO_PASS"] == {"success": [], "failure": []}
    # SWE-bench's rules run a patch that edits a test file; loop's judgement stays beside it
    assert (touch_r["resolved"], touch_r["reason"], touch_r["verdict"]) == (False, "touches_tests", V.STABLE_FAIL)
    assert touch_r["patch_successfully_applied"] and touch_r["tests_ran"]
    assert [i["check"] for i in touch_r["integrity"]] == ["touches_tests"]
    assert touch_r["tests_status"]["FAIL_TO_PASS"]["failure"] == ["test_convert.py::test_km"]

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
def test_a_refused_task_is_reported_and_the_others_graded(loop_cli, project):
    """One instance whose task cannot be graded (its parser finds no tests; an id pytest cannot find) does not
    stop the file: it is an error with an infrastructure failure and its reason, as SWE-bench 5 reports one."""
    assert _import(loop_cli, project)[0] == 0
    toml = project["root"] / "harness" / "tasks" / "acme__units-2" / "task.toml"
    toml.write_text(toml.read_text().replace('"--junitxml={report}",', '"--junitxml={report}", "-k", "no_test_has_this",'))
    preds = _preds(project, "preds.jsonl", [_pred("acme__calc-1", CALC_GOLD), _pred("acme__units-2", UNITS_GOLD)])
    code, report = _grade(loop_cli, project, preds)
    assert code == 0 and report["acme__calc-1"]["resolved"] and report["acme__calc-1"]["infra_failure"] is False
    units = report["acme__units-2"]
    assert units["infra_failure"] is True and not units["resolved"] and not units["tests_ran"]
    assert "junit parser found no tests" in units["infra_failure_reason"] and units["reason"] == "task_refused"
    (run,) = project["db"].parent.glob("m.loop-batch-*.json")
    run = json.loads(run.read_text())
    assert run["error_ids"] == run["infra_failure_ids"] == ["acme__units-2"] and run["resolved_ids"] == ["acme__calc-1"]
    assert "junit parser found no tests" in run["failure_reasons"]["acme__units-2"]


@pytest.mark.slow
def test_an_id_pytest_cannot_find_refuses_the_task_naming_it(loop_cli, project):
    rows = [{**project["rows"][0], "PASS_TO_PASS": CALC_P2P + ["tests/test_ops.py::test_gone"]}]
    assert _import(loop_cli, project, instances=_instances(project, "gone.jsonl", rows))[0] == 0
    preds = _preds(project, "preds.jsonl", [_pred("acme__calc-1", CALC_GOLD)])
    code, report = _grade(loop_cli, project, preds)
    assert "ERROR: not found: /repo/tests/test_ops.py::test_gone" in report["acme__calc-1"]["infra_failure_reason"]
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


@pytest.mark.sandbox
def test_no_field_of_a_predictions_or_instances_file_ends_in_a_traceback(loop_cli, project):
    """Issue 41: a NUL in model_name_or_path once ended `loop grade --predictions` in a ValueError (the model names
    the report file), after the batch was in runs.db. Every such value is now one line naming file, line and key."""
    assert _import(loop_cli, project)[0] == 0
    grade = ["grade", "--predictions"]
    for n, (row, said) in enumerate([
        (_pred("acme__calc-1", CALC_GOLD, model="m\0x"), "field 'model_name_or_path' holds a control character (U+0000)"),
        (_pred("acme__calc-1", CALC_GOLD, model="m\nx"), "field 'model_name_or_path' holds a control character (U+000A)"),
        (_pred("acme__calc-1", CALC_GOLD, model="m\u2028"), "field 'model_name_or_path' holds a control character"),
        (_pred("acme__calc-1", CALC_GOLD, model="m" * 300), "field 'model_name_or_path' is 300 characters long"),
        (_pred("acme__calc-1", CALC_GOLD, model=7), "field 'model_name_or_path' must be a string, got int"),
        (_pred("acme__calc-1", CALC_GOLD, model=None), "field 'model_name_or_path' must be a string, got NoneType"),
        (_pred("acme__calc-1\0", CALC_GOLD), "field 'instance_id' holds a control character (U+0000)"),
        (_pred("x" * 10**6, CALC_GOLD), "field 'instance_id' is 1000000 characters long"),
        (_pred(["acme__calc-1"], CALC_GOLD), "field 'instance_id' must be a string, got list"),
        (_pred("acme__calc-1", {"diff": CALC_GOLD}), "field 'model_patch' must be a string or null, got dict"),
    ]):
        preds = _preds(project, f"bad{n}.jsonl", [_pred("acme__units-2", UNITS_GOLD), row])
        line = _refused(loop_cli, project, [*grade, preds], said)
        assert line.startswith(f"error: {preds}:2: ") and len(line) < 300, line
    assert not project["db"].exists()  # nothing written
    rows = project["rows"]
    imp = ["tasks", "import", "swebench"]
    repos = ["--repos", project["repos"]]
    for n, (row, said) in enumerate([
        ({**rows[0], "base_commit": rows[0]["base_commit"] + "\0"}, "field 'base_commit' holds a control character"),
        ({**rows[0], "environment_setup_commit": "v1\0"}, "field 'environment_setup_commit' holds a control"),
        ({**rows[0], "repo": "acme/calc\0"}, "field 'repo' holds a control character"),
        ({**rows[0], "instance_id": "acme__calc-9\n"}, "field 'instance_id' 'acme__calc-9\\n' cannot name a task folder"),
        ({**rows[0], "FAIL_TO_PASS": ["tests/test_clamp.py::test_below\0"]}, "item 1 of: field 'FAIL_TO_PASS' holds"),
    ]):
        bad = _instances(project, f"inst{n}.jsonl", [row])
        line = _refused(loop_cli, project, [*imp, bad, *repos, "--force"], said)
        assert line.startswith(f"error: {bad}:1: "), line


# end to end: a project's real history, two models in one predictions file, SWE-bench's answer ------------
MINI_SETUP = ('from setuptools import setup\n\nTEST_DEPS = ["pytest==8.3.4"]\n\n'
              'setup(name="mini", version="0.1", packages=["mini"], extras_require={"test": TEST_DEPS})\n')
MINI_TEXT = ("def shout(s):\n    return s.upper() + '!'\n\n\n"
             "def count_words(s):\n    return len(s.split(' '))\n\n\n"  # bug 1: runs of spaces count as words
             "def initials(name):\n    return ''.join(p[0] for p in name.split())\n\n\n"  # bug 2: not upper-cased
             "def clip(s, n):\n    return s[:n - 1]\n")  # bug 3: one character short
MINI_TESTS = ("from mini.text import clip, count_words, initials, shout\n\n\n"
              "def test_shout():\n    assert shout('hi') == 'HI!'\n\n\n"
              "def test_count_simple():\n    assert count_words('a b') == 2\n")
MINI_FIXES = [  # (old, new) in mini/text.py, the test the fix's commit adds
    ("len(s.split(' '))", "len(s.split())", "def test_count_spaces():\n    assert count_words('a  b') == 2\n"),
    ("p[0] for p", "p[0].upper() for p", "def test_initials():\n    assert initials('ada lovelace') == 'AL'\n"),
    ("s[:n - 1]", "s[:n]", "def test_clip():\n    assert clip('abc', 2) == 'ab'\n"),
]


def _commit(repo: Path, files: dict[str, str], message: str) -> str:
    for rel, body in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(body)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", message)
    return _git(repo, "rev-parse", "HEAD")


def _side_patch(repo: Path, base: str, files: dict[str, str]) -> str:
    """A patch made as a developer makes one: a commit on a branch from `base`, diffed against it."""
    _git(repo, "checkout", "-q", "-B", "side", base)
    head = _commit(repo, files, "side")
    _git(repo, "checkout", "-q", "main")
    return _git(repo, "diff", base, head) + "\n"


@pytest.mark.slow
def test_swebench_users_get_swebenchs_answer(loop_cli, project):
    """Three instances from a small project's real bug-fix commits (a setup.py whose extras come from a
    variable); gold, gold + a test edit, empty, not applying, wrong and null predictions of two models in
    one file: `resolved` is what SWE-bench's rules give, each model's run report has SWE-bench's keys and
    counts, and loop's stricter judgement stays beside them."""
    clone = project["repos"] / "acme__mini"
    clone.mkdir(parents=True)
    _git(clone, "init", "-q", "-b", "main")
    commits = [_commit(clone, {"setup.py": MINI_SETUP, "mini/__init__.py": "", "mini/text.py": MINI_TEXT,
                               "tests/test_text.py": MINI_TESTS}, "base")]
    text_, tests_ = MINI_TEXT, MINI_TESTS
    for old, new, test in MINI_FIXES:
        text_, tests_ = text_.replace(old, new), tests_ + "\n\n" + test
        commits.append(_commit(clone, {"mini/text.py": text_, "tests/test_text.py": tests_}, f"fix {old}"))
    p2p = ["tests/test_text.py::test_shout", "tests/test_text.py::test_count_simple"]
    rows = []
    for n, (old, new, test) in enumerate(MINI_FIXES, 1):
        base, fix = commits[n - 1], commits[n]
        f2p = ["tests/test_text.py::" + test.split("(")[0].removeprefix("def ")]
        rows.append({"instance_id": f"acme__mini-{n}", "repo": "acme/mini", "base_commit": base,
                     "patch": _git(clone, "diff", base, fix, "--", "mini") + "\n",
                     "test_patch": _git(clone, "diff", base, fix, "--", "tests") + "\n",
                     "FAIL_TO_PASS": f2p, "PASS_TO_PASS": list(p2p), "environment_setup_commit": commits[0],
                     "problem_statement": f"{old} is wrong"})
        p2p += f2p
    assert _import(loop_cli, project)[0] == 0  # the dataset's other instances, not predicted
    code, out = _import(loop_cli, project, instances=_instances(project, "mini.jsonl", rows))
    assert code == 0, out
    # the import says what each environment is made of, and where it was found: here a variable's extras
    assert f"acme__mini-1: dependencies from acme/mini at {commits[0][:12]}: setup.py extras_require['test']: " \
        f"{swebench.PYTEST}" in out, out
    assert (project["root"] / "harness" / "tasks" / "acme__mini-1" / "requirements.txt").read_text() == swebench.PYTEST + "\n"
    gold = {r["instance_id"]: r["patch"] for r in rows}
    # gold + an edit to the test patch's file that would fail a pass-to-pass test if it were kept
    rigged = _side_patch(clone, commits[1], {
        "mini/text.py": MINI_TEXT.replace(*MINI_FIXES[0][:2]).replace(*MINI_FIXES[1][:2]),
        "tests/test_text.py": (MINI_TESTS + "\n\n" + MINI_FIXES[0][2]).replace("== 'HI!'", "== 'nope'")})
    stale = gold["acme__mini-1"].replace(" def count_words(s):", " def count_words(text):")
    wrong = _side_patch(clone, commits[1], {"mini/text.py": MINI_TEXT.replace(*MINI_FIXES[0][:2]).replace(
        "p[0] for p", "p[:1] for p")})
    preds = _preds(project, "merged.jsonl", [
        _pred("acme__mini-1", gold["acme__mini-1"], "org/alpha"), _pred("acme__mini-2", rigged, "org/alpha"),
        _pred("acme__mini-3", "", "org/alpha"),
        _pred("acme__mini-1", stale, "beta"), _pred("acme__mini-2", wrong, "beta"),
        _pred("acme__mini-3", gold["acme__mini-3"], "beta")])
    code, out = loop_cli("grade", "--predictions", preds, "--json", "--k", "1", config=project["cfg"])
    assert code == 0, out
    per_model = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    assert len(per_model) == 2  # one batch (and one JSON line) per model
    alpha, beta = per_model
    # SWE-bench's rules: the rigged test edit is discarded before the hidden tests go in, so it is resolved
    assert {i: (r["resolved"], r["patch_successfully_applied"]) for i, r in alpha.items()} == {
        "acme__mini-1": (True, True), "acme__mini-2": (True, True), "acme__mini-3": (False, False)}
    assert {i: (r["resolved"], r["patch_successfully_applied"]) for i, r in beta.items()} == {
        "acme__mini-1": (False, False), "acme__mini-2": (False, True), "acme__mini-3": (True, True)}
    # loop's own judgement, beside: the test edit is refused, the tests it ran are still reported
    rigged_r = alpha["acme__mini-2"]
    assert (rigged_r["verdict"], rigged_r["loop_resolved"], rigged_r["reason"]) == (V.STABLE_FAIL, False, "touches_tests")
    assert [i["check"] for i in rigged_r["integrity"]] == ["touches_tests"]
    assert rigged_r["tests_status"]["PASS_TO_PASS"]["success"] == p2p[:3] and rigged_r["tests_ran"]
    assert alpha["acme__mini-1"]["loop_resolved"] and alpha["acme__mini-1"]["integrity"] == []
    # issue 41: the new test's check is sealed; the base tree shows the old tests' literals, so their sealed
    # records could be written by the candidate, and the helper that replaced their checks returned true in the
    # sandbox, where a tripwire would have seen them: unguarded. runs.db says the same.
    decided = {"tests/test_text.py::test_count_spaces": "sealed", "tests/test_text.py::test_shout": "unguarded",
               "tests/test_text.py::test_count_simple": "unguarded"}
    assert alpha["acme__mini-1"]["loop_decided_by"] == decided
    con = sqlite3.connect(project["db"])
    stored = con.execute('SELECT DISTINCT "check", decided_by FROM checks WHERE candidate_id = ? AND kind = "test"',
                         (alpha["acme__mini-1"]["candidate_id"],)).fetchall()
    assert dict(stored) == {f"test:{t}": d for t, d in decided.items()}
    assert not alpha["acme__mini-3"]["tests_ran"] and alpha["acme__mini-3"]["reason"] == V.NO_CODE
    assert beta["acme__mini-1"]["reason"] == "patch_does_not_apply" and not beta["acme__mini-1"]["tests_ran"]
    assert beta["acme__mini-2"]["tests_status"]["FAIL_TO_PASS"] == {"success": [], "failure": ["tests/test_text.py::test_initials"]}

    # each model's run report, in SWE-bench's shape, beside runs.db under SWE-bench's name
    con = sqlite3.connect(project["db"])
    batches = dict(con.execute("SELECT model, id FROM batches WHERE kind = 'predictions'").fetchall())
    assert set(batches) == {"org/alpha", "beta"}
    recorded = json.loads(con.execute("SELECT config FROM batches WHERE id = ?", (batches["beta"],)).fetchone()[0])
    assert recorded["loop"]["rules"] == "swebench"  # `loop grade --batch` finishes it under the same rules
    reports = {m: json.loads((project["db"].parent / f"{m.replace('/', '__')}.loop-batch-{b}.json").read_text())
               for m, b in batches.items()}
    # swebench 5.0.2's make_run_report (harness/reporting.py), in its order, then loop's own keys
    swebench_keys = ["total_instances", "submitted_instances", "completed_instances", "resolved_instances",
                     "unresolved_instances", "infra_failure_instances", "ambiguous_failure_instances",
                     "empty_patch_instances", "error_instances", "completed_ids", "incomplete_ids", "empty_patch_ids",
                     "submitted_ids", "resolved_ids", "unresolved_ids", "infra_failure_ids", "ambiguous_failure_ids",
                     "failure_reasons", "error_ids", "schema_version"]
    ids = [f"acme__mini-{n}" for n in (1, 2, 3)]
    a, b = reports["org/alpha"], reports["beta"]
    assert list(a)[:len(swebench_keys)] == swebench_keys and a["schema_version"] == 2
    # total: every imported instance (the calc and units ones too), as SWE-bench counts the whole dataset
    assert {k: a[k] for k in swebench_keys if k.endswith("instances")} == {
        "total_instances": 5, "submitted_instances": 3, "completed_instances": 2, "resolved_instances": 2,
        "unresolved_instances": 0, "infra_failure_instances": 0, "ambiguous_failure_instances": 0,
        "empty_patch_instances": 1, "error_instances": 0}
    assert a["failure_reasons"] == {} and all(r["infra_failure"] is False for r in alpha.values())
    assert (a["resolved_ids"], a["empty_patch_ids"], a["incomplete_ids"]) == (ids[:2], ids[2:], ["acme__calc-1", "acme__units-2"])
    assert {k: b[k] for k in swebench_keys if k.endswith("instances")} == {
        "total_instances": 5, "submitted_instances": 3, "completed_instances": 2, "resolved_instances": 1,
        "unresolved_instances": 1, "infra_failure_instances": 0, "ambiguous_failure_instances": 0,
        "empty_patch_instances": 0, "error_instances": 1}
    assert (b["resolved_ids"], b["unresolved_ids"], b["error_ids"]) == (ids[2:], ids[1:2], ids[:1])
    # loop's own counts
    assert (a["loop_resolved_instances"], a["integrity_instances"], a["integrity_ids"]) == (1, 1, ids[1:2])
    assert (a["flaky_instances"], a["inconclusive_instances"], a["infra_unknown_instances"]) == (0, 0, 0)
    assert b["loop_resolved_instances"] == 1 and b["model_name_or_path"] == "beta"
    # `loop report`: why candidates failed, per task; no cost table for batches that asked no endpoint
    code, out = loop_cli("report", "--batch", batches["org/alpha"], "--db", project["db"], config=project["cfg"])
    assert code == 0 and "fail reasons" in out and "Tokens and cost" not in out
    assert [x for x in out.splitlines() if "acme__mini-2" in x][0].rstrip().endswith("touches_tests 1")
    assert [x for x in out.splitlines() if "acme__mini-3" in x][0].rstrip().endswith("no_code 1")

    # --report FILE, a file of several models: one report per model, named after it; a duplicate within a model
    code, out = loop_cli("grade", "--predictions", preds, "--k", "1", "--report", project["tmp"] / "out" / "run.json",
                         config=project["cfg"])
    assert code == 0, out
    assert "org/alpha (batch 3): 2 of 3 resolved (SWE-bench's rules); 1 by loop's" in out
    assert json.loads((project["tmp"] / "out" / "run.org__alpha.json").read_text())["resolved_ids"] == ids[:2]
    assert json.loads((project["tmp"] / "out" / "run.beta.json").read_text())["error_ids"] == ids[:1]
    twice = _preds(project, "twice.jsonl", [_pred("acme__mini-1", "", "beta"), _pred("acme__mini-1", "", "org/alpha"),
                                             _pred("acme__mini-1", stale, "beta")])
    line = _refused(loop_cli, project, ["grade", "--predictions", twice], "already predicted at")
    assert f"{twice}:3:" in line and f"{twice}:1" in line and "'beta'" in line


@pytest.mark.slow
def test_ids_swebench_truncated_at_a_space_match_the_one_full_id(loop_cli, project):
    """SWE-bench's log parser cuts pytest ids at the first space (`test_x[My`): such an id is the unique full
    id it was cut from; one that could be several is refused at check, naming them."""
    files = {"pyproject.toml": '[project]\nname = "p"\nversion = "0.1"\ndependencies = []\n',
             "words.py": "def shout(s):\n    return s.lower()\n",
             "tests/test_w.py": ("import pytest\n\nfrom words import shout\n\n\n"
                                 "@pytest.mark.parametrize('s', ['one word', 'plain'])\n"
                                 "def test_shout(s):\n    assert shout(s) == s.upper()\n\n\n"
                                 "@pytest.mark.parametrize('s', ['two words', 'My case', 'My other'])\n"
                                 "def test_len(s):\n    assert len(s) > 3\n")}
    base = _repo(project["repos"] / "acme__words", files)
    gold = ("--- a/words.py\n+++ b/words.py\n@@ -1,2 +1,2 @@\n def shout(s):\n-    return s.lower()\n"
            "+    return s.upper()\n")
    row = {"instance_id": "acme__words-1", "repo": "acme/words", "base_commit": base, "patch": gold, "test_patch": "",
           "FAIL_TO_PASS": ["tests/test_w.py::test_shout[one", "tests/test_w.py::test_shout[plain]"],
           "PASS_TO_PASS": ["tests/test_w.py::test_len[two"], "problem_statement": "shout whispers"}
    assert _import(loop_cli, project, instances=_instances(project, "words.jsonl", [row]))[0] == 0
    preds = _preds(project, "words-preds.jsonl", [_pred("acme__words-1", gold)])
    code, report = _grade(loop_cli, project, preds)
    assert code == 0
    r = report["acme__words-1"]
    assert r["resolved"] and r["verdict"] == V.STABLE_PASS
    assert r["tests_status"]["FAIL_TO_PASS"]["success"] == row["FAIL_TO_PASS"]  # the dataset's ids, as given
    assert r["tests_status"]["PASS_TO_PASS"]["success"] == ["tests/test_w.py::test_len[two"]
    # `test_len[My` was cut from two ids: a note at check, naming both, and graded as SWE-bench records it
    ambiguous = {**row, "instance_id": "acme__words-2", "PASS_TO_PASS": ["tests/test_w.py::test_len[My"]}
    assert _import(loop_cli, project, instances=_instances(project, "amb.jsonl", [ambiguous]))[0] == 0
    code, out = loop_cli("tasks", "check", "acme__words-2", config=project["cfg"])
    assert code == 0 and "note acme__words-2: test id 'tests/test_w.py::test_len[My' (cut at a space" in out, out
    assert "'tests/test_w.py::test_len[My case]', 'tests/test_w.py::test_len[My other]'" in out
    code, report = _grade(loop_cli, project, _preds(project, "amb-preds.jsonl", [_pred("acme__words-2", gold)]))
    assert code == 0 and report["acme__words-2"]["resolved"], report
    assert report["acme__words-2"]["tests_status"]["PASS_TO_PASS"]["success"] == ["tests/test_w.py::test_len[My"]
    # every task is checked, a broken one first in line included, and a summary ends it
    broken = project["root"] / "harness" / "tasks" / "aaa_broken"
    broken.mkdir()
    (broken / "task.toml").write_text('name = "aaa_broken"\nkind = "repo"\n')
    code, out = loop_cli("tasks", "check", config=project["cfg"])
    lines = out.strip().splitlines()
    assert code == 2 and lines[0].startswith("FAIL ") and "aaa_broken" in lines[0], out
    assert "ok   acme__words-1" in out
    assert lines[-1] == "2 ok, 1 failed, 0 skipped of 3 tasks; failed: aaa_broken"


def test_swebench_resolution_rule_on_stored_checks():
    """SWE-bench's rule: a fail-to-pass test must pass, a pass-to-pass test may also be skipped; a forged
    report is never resolved; a grade with no test checks never ran."""
    from loop.datasets.predictions import Prediction
    from loop.run.predictions import instance_report

    def check(name, passed, detail="", kind="test"):
        return {"check": name, "kind": kind, "passed": passed, "detail": detail, "quarantined": 0, "excluded": 0}

    ids = {"FAIL_TO_PASS": ["t.py::f"], "PASS_TO_PASS": ["t.py::p"]}
    pred = Prediction("x:1", "i", "m", "diff")
    row = {"id": 1, "verdict": V.STABLE_FAIL, "resolved": 0, "reason": "test:t.py::p"}
    skipped = [check("test:t.py::f", True), check("test:t.py::p", False, "skipped")]
    assert instance_report(ids, pred, row, skipped)["resolved"] is True
    f2p_skipped = [check("test:t.py::f", False, "skipped"), check("test:t.py::p", True)]
    assert instance_report(ids, pred, row, f2p_skipped)["resolved"] is False
    forged = [check("test:t.py::f", True), check("test:t.py::p", True), check("forged_report", False, "x", "fault")]
    r = instance_report(ids, pred, row, forged)
    assert (r["resolved"], r["reason"], r["integrity"][0]["check"]) == (False, "forged_report", "forged_report")
    never = instance_report(ids, pred, {**row, "reason": "patch_does_not_apply"}, [check("patch_does_not_apply", False, "", "patch_does_not_apply")])
    assert (never["tests_ran"], never["patch_successfully_applied"], never["resolved"]) == (False, False, False)


@pytest.mark.slow
def test_a_missing_dependency_names_requirements(loop_cli, project):
    """A test module importing what the environment lacks: the refusal says which module, and how to add it."""
    files = {"setup.py": "from setuptools import setup\nsetup(name='j', extras_require=make_extras())\n",
             "j.py": "def one():\n    return 2\n",
             "tests/test_j.py": "import simplejson\n\nfrom j import one\n\n\ndef test_one():\n    assert one() == 1\n"}
    base = _repo(project["repos"] / "acme__j", files)
    gold = "--- a/j.py\n+++ b/j.py\n@@ -1,2 +1,2 @@\n def one():\n-    return 2\n+    return 1\n"
    row = {"instance_id": "acme__j-1", "repo": "acme/j", "base_commit": base, "patch": gold, "test_patch": "",
           "FAIL_TO_PASS": ["tests/test_j.py::test_one"], "PASS_TO_PASS": [], "problem_statement": "one is two"}
    code, out = _import(loop_cli, project, instances=_instances(project, "j.jsonl", [row]))
    assert code == 0 and "acme__j-1: dependencies from acme/j" in out and "none declared" in out, out
    assert "warning: acme__j-1: setup.py: extras_require is computed (make_extras())" in out
    assert "give --requirements FILE" in out
    code, out = loop_cli("tasks", "check", "acme__j-1", config=project["cfg"])
    assert code == 2 and "No module named 'simplejson'" in out and "--requirements FILE --force" in out, out
