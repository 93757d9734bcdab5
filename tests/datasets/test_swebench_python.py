"""A repository task's own interpreter (task.toml `python`, issue 44): found by version or path, bound read-only
into the sandbox whatever its prefix (one under a home the sandbox uid cannot enter, as pyenv's under /root),
the environment built with it, and one line saying what to install when it is missing."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest
from test_swebench import _import, _instances, _repo, project  # noqa: F401 (a fixture)

from loop.sandbox import pythons


def _private_python(home: Path, version: str) -> str:
    """An interpreter at home/.pyenv/versions/<version>/bin, home closed to everyone else (mode 0700): a
    second path to this machine's Python, laid out as pyenv lays one out."""
    exe = home / ".pyenv" / "versions" / version / "bin" / f"python{version.rsplit('.', 1)[0]}"
    exe.parent.mkdir(parents=True)
    real = os.path.realpath(sys.executable)
    try:
        os.link(real, exe)
    except OSError:
        shutil.copy2(real, exe)
    home.chmod(0o700)
    return str(exe)


def test_find_by_version_and_path(tmp_path, monkeypatch):
    mine = "%d.%d" % sys.version_info[:2]
    exe = _private_python(tmp_path / "home", f"{mine}.99")
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path / "home" / ".pyenv"))
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.setattr(pythons.shutil, "which", lambda *a, **k: None)  # not on PATH: pyenv's is found
    assert pythons.find(mine) == exe and pythons.find(exe) == exe
    assert pythons.find("2.1") is None and pythons.find(str(tmp_path / "nope")) is None
    line = pythons.missing("2.1")
    assert "\n" not in line and "uv python install 2.1" in line and str(tmp_path / "home" / ".pyenv") in line


@pytest.mark.sandbox
def test_task_runs_on_its_own_interpreter_under_a_closed_home(loop_cli, project, tmp_path):
    """The original bug: bubblewrap, started as the sandbox uid, could not open a prefix under /root
    (`Can't find source path ...: Permission denied`). The tests must run on that interpreter, at its path."""
    mine = "%d.%d" % sys.version_info[:2]
    exe = _private_python(tmp_path / "home", f"{mine}.99")
    base = _repo(project["repos"] / "acme__which", {
        "which.py": "def two():\n    return 1\n",
        "tests/test_which.py": ("import sys\n\nfrom which import two\n\n\n"
                                f"def test_interpreter():\n    assert sys.executable == {exe!r}\n\n\n"
                                "def test_two():\n    assert two() == 2\n")})
    row = {"instance_id": "acme__which-1", "repo": "acme/which", "base_commit": base, "test_patch": "",
           "patch": "--- a/which.py\n+++ b/which.py\n@@ -1,2 +1,2 @@\n def two():\n-    return 1\n+    return 2\n",
           "FAIL_TO_PASS": ["tests/test_which.py::test_two"], "PASS_TO_PASS": ["tests/test_which.py::test_interpreter"],
           "problem_statement": "two is one"}
    code, out = _import(loop_cli, project, "--python", exe, instances=_instances(project, "w.jsonl", [row]))
    assert code == 0 and f"acme__which-1: Python {exe}: found at {exe}" in out, out
    code, out = loop_cli("tasks", "check", "acme__which-1", config=project["cfg"])
    assert code == 0 and "ok   acme__which-1" in out, out
    # a version this machine does not have: one line saying what to install, the task skipped, not failed
    toml = project["root"] / "harness" / "tasks" / "acme__which-1" / "task.toml"
    toml.write_text(toml.read_text().replace(f'python = "{exe}"', 'python = "2.1"'))
    code, out = loop_cli("tasks", "check", "acme__which-1", config=project["cfg"])
    lines = out.strip().splitlines()
    assert code == 0 and lines[0].startswith("skip acme__which-1: Python 2.1 is not installed"), out
    assert "uv python install 2.1" in lines[0] and lines[-1] == "0 ok, 0 failed, 1 skipped of 1 tasks"


def test_config_outside_the_project_says_where_tasks_are_looked_up(loop_cli, tmp_path, monkeypatch):
    project = tmp_path / "proj"
    (project / "harness" / "tasks" / "t1").mkdir(parents=True)
    (project / "harness" / "tasks" / "t1" / "task.toml").write_text('name = "t1"\n')
    cfg = tmp_path / "elsewhere" / "config.toml"
    cfg.parent.mkdir()
    cfg.write_text("[loop]\nk = 1\n")
    monkeypatch.chdir(project)
    code, out = loop_cli("tasks", "check", "t1", config=cfg)
    assert code == 2 and out.count("\n") == 1, out
    assert f"tasks are looked up beside the config file {cfg}" in out and f"put the config file in {project}" in out
