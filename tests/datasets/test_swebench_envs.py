"""Published SWE-bench rows as users bring them (issue 44): requirements read as SWE-bench reads them (tox
factors, both spellings, `-r` inside the repository), the project installed when its tests look it up,
per-instance --requirements, and `loop tasks check` ending every task with a line whatever broke."""

from __future__ import annotations

import json
import shutil

import pytest
from test_swebench import _import, _instances, _repo, project  # noqa: F401 (a fixture)

from loop.datasets import swebench

# a project whose tests find its plugins through its entry points (as sqlfluff's do), the project's own
# requirement files in the underscore spelling, tox lines only a factor selects, an `-r` inside the repository
PLUGGED = {
    "setup.py": ("from setuptools import setup\n"
                 "setup(name='plugged', version='1.2', packages=['plugged'],\n"
                 "      entry_points={'plugged': ['core = plugged.core', 'extra = plugged.core']})\n"),
    "requirements_test.txt": "-r requirements/base.txt\npytest==8.3.4\n-e .\n--index-url https://example.org/simple\n",
    "requirements/base.txt": "-r ../requirements_test.txt  # a cycle is read once\n",
    "requirements_dev.txt": "sphinx\n",  # a test file exists: the dev file is not read
    "tox.ini": "[testenv]\ndeps =\n    click7: click<8\n    -r requirements_test.txt\n    examples/app[test]\n    {env:X:}\n",
    "plugged/__init__.py": "",
    "plugged/core.py": "NAME = 'core'\n",
    "plugged/find.py": ("from importlib.metadata import entry_points\n\n\n"
                        "def plugins():\n    return sorted(e.name for e in entry_points(group='plugged'))[:1]\n"),
    "tests/test_find.py": ("from plugged.find import plugins\n\n\n"
                           "def test_core_is_found():\n    assert 'core' in plugins()\n\n\n"
                           "def test_two():\n    assert plugins() == ['core', 'extra']\n"),
}
PLUGGED_GOLD = """\
--- a/plugged/find.py
+++ b/plugged/find.py
@@ -4,2 +4,2 @@
 def plugins():
-    return sorted(e.name for e in entry_points(group='plugged'))[:1]
+    return sorted(e.name for e in entry_points(group='plugged'))
"""


def test_requirements_are_read_as_swebench_reads_them(tmp_path):
    clone = tmp_path / "plugged"
    base = _repo(clone, PLUGGED)
    found = swebench.find_requirements(clone, base)
    assert found.found == [("requirements_test.txt", ["pytest==8.3.4"])]  # base.txt holds nothing else
    assert any("'-e .' (the project itself, which is installed)" in d for d in found.dropped), found.dropped
    assert any("click7: click<8" in d and "examples/app[test]" in d for d in found.dropped), found.dropped
    assert any("--index-url" in d for d in found.dropped)
    assert "sphinx" not in found.requirements
    # the dev file is read when there is no test file; an `-r` naming no file is said, not followed
    other = tmp_path / "other"
    base = _repo(other, {"requirements_dev.txt": "-r missing.txt\nfreezegun\n", "requirements.txt": "six\n"})
    found = swebench.find_requirements(other, base)
    assert found.requirements == ["six", "freezegun"]
    assert found.warnings == ["requirements_dev.txt: '-r missing.txt' names no file of the repository: not followed"]
    # pytest is pinned only where the project names none
    assert swebench.requirements_text(["six"]) == f"six\n{swebench.PYTEST}\n"
    assert swebench.requirements_text(["pytest", "six"]) == "pytest\nsix\n"


def _plugged_row(repos, name="acme__plugged", iid="acme__plugged-1"):
    base = _repo(repos / name, PLUGGED)
    return {"instance_id": iid, "repo": name.replace("__", "/"), "base_commit": base, "patch": PLUGGED_GOLD,
            "test_patch": "", "FAIL_TO_PASS": ["tests/test_find.py::test_two"],
            "PASS_TO_PASS": ["tests/test_find.py::test_core_is_found"], "problem_statement": "extra is not found"}


@pytest.mark.sandbox  # the import applies the patches in the sandbox
def test_import_says_what_it_chose_and_records_it(loop_cli, project):
    row = _plugged_row(project["repos"])
    code, out = _import(loop_cli, project, instances=_instances(project, "p.jsonl", [row]))
    assert code == 0, out
    folder = project["root"] / "harness" / "tasks" / "acme__plugged-1"
    assert "acme__plugged-1: dependencies from acme/plugged" in out and "names no pytest" not in out
    assert "acme__plugged-1: left out tox.ini: 3 line(s)" in out and "'click7: click<8'" in out
    assert "the project is installed, editable" in out
    assert (folder / "requirements.txt").read_text() == "pytest==8.3.4\n"
    assert 'install = "editable"' in (folder / "task.toml").read_text()
    chosen = json.loads((folder / "swebench.json").read_text())["loop_environment"]
    assert chosen["install"] == "editable" and chosen["requirements"]["found"] == ["requirements_test.txt"]
    assert chosen["requirements"]["added"] == []


@pytest.mark.sandbox
def test_requirements_per_instance_or_per_repository(loop_cli, project, tmp_path):
    """--requirements DIR: `<instance_id>.txt` first, then `<owner>__<name>.txt`, else what the project declares."""
    reqs = tmp_path / "reqs"
    reqs.mkdir()
    (reqs / "acme__calc-1.txt").write_text("pytest==8.3.4\nsix\n")
    (reqs / "acme__units.txt").write_text("pytest==8.3.4\nattrs\n")
    code, out = _import(loop_cli, project, "--requirements", reqs)
    assert code == 0, out
    root = project["root"] / "harness" / "tasks"
    assert (root / "acme__calc-1" / "requirements.txt").read_text() == "pytest==8.3.4\nsix\n"
    assert (root / "acme__units-2" / "requirements.txt").read_text() == "pytest==8.3.4\nattrs\n"
    assert f"acme__units-2: dependencies from {reqs / 'acme__units.txt'} (--requirements)" in out
    empty = tmp_path / "empty"
    empty.mkdir()
    code, out = _import(loop_cli, project, "--requirements", empty, "--force")
    assert code == 2 and "holds no <instance_id>.txt" in out


@pytest.mark.sandbox
def test_tasks_check_gives_every_task_a_line_pointing_the_right_way(loop_cli, project):
    """No traceback whatever breaks: requirements pip refuses, the project's own package not importable, an
    entry point the tests look up; the installed project passes; a summary ends it."""
    rows = [_plugged_row(project["repos"])]
    assert _import(loop_cli, project, instances=_instances(project, "p.jsonl", rows))[0] == 0
    root = project["root"] / "harness" / "tasks"
    # a tox line copied into requirements.txt (what import did before issue 44)
    bad_req = root / "acme__plugged-1"
    broken = root / "zz_tox_line"
    shutil.copytree(bad_req, broken)
    toml = (broken / "task.toml").read_text().replace('name = "acme__plugged-1"', 'name = "zz_tox_line"')
    (broken / "task.toml").write_text(toml)
    (broken / "requirements.txt").write_text("pytest==8.3.4\nclick7: click<8\n")
    # the project's own package moved under src/, which the test command does not put on the path, not installed
    lost = root / "zz_not_on_path"
    shutil.copytree(bad_req, lost)
    (lost / "task.toml").write_text(toml.replace('"zz_tox_line"', '"zz_not_on_path"')
                                    .replace('"plugged/find.py"', '"src/plugged/find.py"')
                                    .replace('install = "editable"\n', ''))
    (lost / "repo" / "src").mkdir()
    (lost / "repo" / "plugged").rename(lost / "repo" / "src" / "plugged")
    code, out = loop_cli("tasks", "check", config=project["cfg"])
    assert "Traceback" not in out, out
    lines = out.strip().splitlines()
    assert "ok   acme__plugged-1" in lines, out  # installed: its entry points are found
    tox = next(x for x in lines if x.startswith("FAIL zz_tox_line"))
    assert "'click7: click<8'" in tox and "requirements.txt" in tox and "--requirements" in tox, tox
    path = next((x for x in lines if x.startswith("FAIL zz_not_on_path")), out)
    assert "project's own package 'plugged'" in path and "add it to" not in path, path
    assert code == 2 and lines[-1].startswith("1 ok, 2 failed, 0 skipped of 3 tasks"), out


@pytest.mark.sandbox
def test_versions_resolve_as_they_stood_on_the_rows_date(loop_cli, project, tmp_path):
    """An unpinned requirement resolves to what was published before the row's created_at (uv's
    --exclude-newer), so an old project meets the dependencies of its time; without created_at, the base
    commit's date."""
    base = _repo(project["repos"] / "acme__old", {
        "requirements_test.txt": "pytest\n",
        "old.py": "def one():\n    return 0\n",
        "tests/test_old.py": ("import pytest\n\nfrom old import one\n\n\n"
                              "def test_pytest_of_then():\n    assert pytest.__version__ == '7.2.0'\n\n\n"
                              "def test_one():\n    assert one() == 1\n")})
    row = {"instance_id": "acme__old-1", "repo": "acme/old", "base_commit": base, "test_patch": "",
           "patch": "--- a/old.py\n+++ b/old.py\n@@ -1,2 +1,2 @@\n def one():\n-    return 0\n+    return 1\n",
           "FAIL_TO_PASS": ["tests/test_old.py::test_one"], "PASS_TO_PASS": ["tests/test_old.py::test_pytest_of_then"],
           "problem_statement": "one is zero", "created_at": "2023-01-01T12:00:00Z"}  # pytest 7.2.0's time
    code, out = _import(loop_cli, project, instances=_instances(project, "o.jsonl", [row]))
    assert code == 0 and "acme__old-1: versions as they stood on 2023-01-01T12:00:00Z (the row's created_at)" in out
    folder = project["root"] / "harness" / "tasks" / "acme__old-1"
    assert 'exclude_newer = "2023-01-01T12:00:00Z"' in (folder / "task.toml").read_text()
    code, out = loop_cli("tasks", "check", "acme__old-1", config=project["cfg"])
    assert code == 0 and "ok   acme__old-1" in out, out
    del row["created_at"]
    code, out = _import(loop_cli, project, "--force", instances=_instances(project, "o.jsonl", [row]))
    assert code == 0 and "(the base commit's date; the row has no created_at)" in out, out


@pytest.mark.sandbox
def test_loops_pytest_keeps_its_own_date_under_a_rows_cutoff(loop_cli, project):
    """A project that names no pytest gets loop's pinned one; under a 2019 cutoff that pin and what it needs
    keep their own date (else uv finds no pluggy for pytest 8.3.4: no solution, the task never checked, as
    marshmallow-1359 in bench_swebench_history), while the project's own requirements resolve as of 2019."""
    base = _repo(project["repos"] / "acme__era", {
        "requirements.txt": "six\n",
        "era.py": "def one():\n    return 0\n",
        "tests/test_era.py": ("import pytest\nimport six\n\nfrom era import one\n\n\n"
                              "def test_versions():\n    assert (pytest.__version__, six.__version__) == "
                              "('8.3.4', '1.12.0')\n\n\n"
                              "def test_one():\n    assert one() == 1\n")})
    row = {"instance_id": "acme__era-1", "repo": "acme/era", "base_commit": base, "test_patch": "",
           "patch": "--- a/era.py\n+++ b/era.py\n@@ -1,2 +1,2 @@\n def one():\n-    return 0\n+    return 1\n",
           "FAIL_TO_PASS": ["tests/test_era.py::test_one"], "PASS_TO_PASS": ["tests/test_era.py::test_versions"],
           "problem_statement": "one is zero", "created_at": "2019-08-20T09:44:59Z"}  # six 1.12.0's time
    code, out = _import(loop_cli, project, instances=_instances(project, "era.jsonl", [row]))
    assert code == 0 and f"(+ {swebench.PYTEST}: the project names no pytest)" in out, out
    code, out = loop_cli("tasks", "check", "acme__era-1", config=project["cfg"])
    assert code == 0 and "ok   acme__era-1" in out, out


def test_a_cut_id_has_the_status_swebench_records_for_it():
    """SWE-bench keys each `-rA` summary line by the id cut at its first space: ids cut alike share one key
    and the last line wins (FAILED and ERROR after PASSED; a SKIPPED line names no id)."""
    from loop.kinds.repo.results import SKIP, Outcome, with_truncated
    from loop import verdicts as V

    cut = "t.py::test_f[My"
    def graded(*statuses):
        outcomes = {f"t.py::test_f[My {n}]": Outcome(s, s) for n, s in enumerate(statuses)}
        return with_truncated(outcomes, [cut]).get(cut)

    assert graded(V.PASS, V.PASS).status == V.PASS
    assert graded(V.PASS, V.FAIL, V.PASS).status == V.FAIL  # one failing case fails the cut id
    assert graded(SKIP, V.PASS).status == V.PASS
    assert graded(SKIP, SKIP) is None and graded() is None  # nothing recorded: a failing test
    assert graded(V.FAIL).message == V.FAIL and graded(SKIP) is None


def test_what_pytest_is_given_for_an_id_it_cannot_select():
    """pytest before 8 splits a node id at every `::`, and an id cut at a space names no test: for both it is
    given the test's function (every parameter), and the report's full ids are read back. sqlfluff-1517's
    `[ExpressionSegment-NULL::INT]` under its row's pytest (6.2.5) was "not found", and no test ran."""
    from loop.kinds.repo.results import selector

    sql = "test/dialects/ansi_test.py::test__dialect__ansi_specific_segment_parses[ExpressionSegment-NULL::INT]"
    assert selector(sql) == "test/dialects/ansi_test.py::test__dialect__ansi_specific_segment_parses"
    assert selector("t.py::test_f[My") == "t.py::test_f"
    for whole in ("t.py::test_f[a-b]", "t.py::TestX::test_f[x]", "t.py::test_f", "pkg/a[1].py::test_f"):
        assert selector(whole) == whole


def test_project_metadata_is_read_never_run_and_never_a_path():
    from loop.kinds.repo import metadata

    files = {"setup.cfg": "[metadata]\nname = sql-thing\nversion = 1.0\n[options.entry_points]\n"
                          "sqlthing =\n    core = sqlthing.core\n",
             "setup.py": "import os\nos.system('touch /tmp/pwned')\nsetup(name='other', entry_points=make())\n"}
    project = metadata.read_project(files.get)
    assert (project.name, project.version) == ("sql-thing", "1.0")
    assert project.entry_points == {"sqlthing": ["core = sqlthing.core"]}
    (meta, _, eps) = metadata.dist_info(project)
    assert meta[0] == "sql_thing-1.0.dist-info/METADATA" and eps[1] == "[sqlthing]\ncore = sqlthing.core\n\n"
    for name in ("../../etc", "a/b", ""):
        assert metadata.dist_info(metadata.Project(name=name)) == []
    pyproject = {"pyproject.toml": '[project]\nname = "p"\ndynamic = ["version"]\n[project.scripts]\np = "p.cli:main"\n'}
    assert metadata.dist_info(metadata.read_project(pyproject.get))[0][0] == "p-0+loop.dist-info/METADATA"
