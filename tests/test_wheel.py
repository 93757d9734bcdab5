"""The built wheel is a working loop on its own: build it, install it into a fresh venv outside the checkout,
and from an empty folder render a prompt from the packaged templates and grade candidates in the sandbox.

A checkout hides packaging mistakes (everything is on disk beside the code), so every step here runs the
installed copy, with the checkout nowhere on its path and nowhere as its working directory.
"""

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PY_TASK = "dedupe_words_py"
CPP_TASK = "dedupe_words_cpp"

# Files the installed package reads at run time that are not Python modules imported from `loop`, and
# modules it stages into the sandbox by path: a wheel without any of them breaks only when it is installed.
PACKAGED = [
    "loop/prompts/templates/repair.md",
    "loop/prompts/templates/repair_repo.md",
    "loop/prompts/templates/feedback.md",
    "loop/prompts/templates/synthesize.md",
    "loop/report/datasette.yaml",
    "loop/sandbox/inside/cppwire.hpp",
    "loop/sandbox/inside/worker.py",
    "loop/sandbox/inside/codec.py",
    "loop/sandbox/inside/forkserver.py",
    "loop/datasets/humaneval/contracts/__init__.py",
    "loop/datasets/humaneval/contracts/p000.py",
]

# Run by the installed interpreter: where loop and its data files resolve from, and the repair prompt of a task.
PROBE = r"""
import json, sys
from importlib import resources
from pathlib import Path
import loop, loop.kinds, loop.prompts, loop.tasks
from loop.kinds.function.cppwire import WIRE_HEADER
from loop.kinds.function.programs import CODEC_SOURCE, WORKER_SOURCE
from loop.kinds.function.fork.server import SERVER_SOURCE
from loop.report.datasette import METADATA
from loop.sandbox import SandboxConfig

task = loop.tasks.load(Path.cwd(), sys.argv[1])
contract = resources.files("loop.datasets.humaneval.contracts") / "p000.py"
print(json.dumps({
    "loop": loop.__file__,
    "templates": {name: str(loop.prompts.template(name)) for name in loop.prompts.NAMES},
    "files": [str(p) for p in (WIRE_HEADER, WORKER_SOURCE, CODEC_SOURCE, SERVER_SOURCE, METADATA)],
    "contract": contract.read_text(encoding="utf-8"),
    "messages": loop.kinds.get(task.kind).prompt(task, SandboxConfig()),
}))
"""


def _run(argv, *, cwd, env, timeout=120):
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def _checked(argv, **kw):
    done = _run(argv, **kw)
    shown = " ".join(a if len(a) < 200 else a[:60] + "..." for a in map(str, argv))
    assert done.returncode == 0, f"{shown} exited {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def _source_tree(dst: Path) -> Path:
    """A clean copy of the checkout's sources (tracked and untracked, minus what .gitignore drops), as a fresh
    clone with the working tree's edits would hold them. Building in the checkout itself would reuse its
    build/lib, which keeps every file an earlier build put there: a template dropped from package-data would
    still ship from a developer's machine. (It would also write build/ and *.egg-info into the checkout.)"""
    try:
        listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                                capture_output=True, check=True, timeout=60).stdout.decode().split("\0")
        files = [ROOT / name for name in listed if name]
    except (OSError, subprocess.SubprocessError):  # not a git checkout (an unpacked sdist): all but build output
        skip = {".git", ".venv", "build", "dist", "__pycache__", ".pytest_cache"}
        files = [p for p in ROOT.rglob("*") if p.is_file() and not skip & set(p.relative_to(ROOT).parts)
                 and not any(part.endswith(".egg-info") for part in p.relative_to(ROOT).parts)]
    for src in files:
        if src.is_file():  # a tracked file deleted in the working tree is listed but absent
            target = dst / src.relative_to(ROOT)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, target)
    return dst


def _env() -> dict:
    """The caller's environment (PATH for bwrap and g++, pip's index settings and cache) without anything that
    would let the checkout or the caller's venv leak in."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("LOOP_") and k not in {"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP"}}
    env.update(PYTHONNOUSERSITE="1", PYTHONDONTWRITEBYTECODE="1")
    return env


def _under(path, folder: Path) -> bool:
    return Path(path).resolve().is_relative_to(folder.resolve())


def _grade(loop_bin: Path, task: str, candidate: Path, *, cwd: Path, env: dict) -> tuple[int, dict]:
    done = _run([str(loop_bin), "grade", task, str(candidate), "--k", "1", "--json"], cwd=cwd, env=env)
    lines = done.stdout.strip().splitlines()
    assert lines, f"loop grade printed nothing (exit {done.returncode}):\n{done.stderr[-3000:]}"
    try:
        return done.returncode, json.loads(lines[-1])
    except json.JSONDecodeError:
        pytest.fail(f"loop grade did not print JSON (exit {done.returncode}):\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")


@pytest.mark.slow
def test_wheel_installs_and_grades_outside_the_checkout(tmp_path):
    env = _env()

    # 1. The wheel, built the way a user builds one (pip, isolated: the [build-system] requirements apply).
    src = _source_tree(tmp_path / "src")
    dist = tmp_path / "dist"
    _checked([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(dist), str(src)],
             cwd=src, env=env, timeout=300)
    (wheel,) = dist.glob("loop-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        missing = [name for name in PACKAGED if name not in names]
        assert not missing, f"{wheel.name} lacks {missing}"
        shipped = {name: zf.read(name) for name in PACKAGED}
    for name, data in shipped.items():  # what the wheel ships is the checkout's file, not some other copy
        assert data == (ROOT / name).read_bytes(), name

    # 2. A plain venv outside the checkout, with the wheel and its dependencies (from the configured index).
    venv = tmp_path / "venv"
    _checked([sys.executable, "-m", "venv", str(venv)], cwd=tmp_path, env=env)
    python, loop_bin = venv / "bin" / "python", venv / "bin" / "loop"
    _checked([str(python), "-m", "pip", "install", "-q", str(wheel)], cwd=tmp_path, env=env, timeout=300)
    assert loop_bin.is_file(), "the wheel installed no `loop` script"

    # 3. An empty project folder: no config.toml, no prompts/, only the task folders it grades. loop's caches
    # start empty in tmp; the C++ one cold, so the driver is built, from the installed cppwire.hpp.
    env = {**env, "XDG_CACHE_HOME": str(tmp_path / "cache"), "LOOP_CPP_CACHE": str(tmp_path / "cpp-cache")}
    proj = tmp_path / "proj"
    assert not _under(proj, ROOT)
    for task in (PY_TASK, CPP_TASK):
        shutil.copytree(ROOT / "harness" / "tasks" / task, proj / "harness" / "tasks" / task)
    assert not (proj / "config.toml").exists() and not (proj / "prompts").exists()

    # The prompt, rendered by the installed loop from its packaged templates.
    probe = json.loads(_checked([str(python), "-c", PROBE, PY_TASK], cwd=proj, env=env).stdout)
    assert _under(probe["loop"], venv) and not _under(probe["loop"], ROOT), probe["loop"]
    for path in [*probe["templates"].values(), *probe["files"]]:
        assert _under(path, venv) and Path(path).is_file(), path
    assert probe["contract"] == (ROOT / "loop/datasets/humaneval/contracts/p000.py").read_text(encoding="utf-8")
    system, user = (m["content"] for m in probe["messages"])
    template = (ROOT / "loop/prompts/templates/repair.md").read_text(encoding="utf-8")
    first_system_line = template.split("<!-- system -->\n", 1)[1].splitlines()[0]
    assert system.splitlines()[0] == first_system_line.replace("${language}", "Python")
    assert f"Task: {PY_TASK}" in user and "has a bug:" in user  # the template's user section
    baseline = (proj / "harness/tasks" / PY_TASK / "baseline.py").read_text(encoding="utf-8")
    assert baseline.strip() in user

    # Grades, sandboxed: the reference passes; a wrong candidate (the baseline, edited so it is not the
    # baseline itself, which loop rejects without running it) fails its tests in the sandbox.
    folder = proj / "harness" / "tasks" / PY_TASK
    code, grade = _grade(loop_bin, PY_TASK, folder / "reference.py", cwd=proj, env=env)
    assert (code, grade["verdict"], grade["sandboxed"]) == (0, "stable_pass", True), grade
    wrong = proj / "wrong.py"
    wrong.write_text(baseline + "# edited\n", encoding="utf-8")
    code, grade = _grade(loop_bin, PY_TASK, wrong, cwd=proj, env=env)
    assert (code, grade["verdict"], grade["sandboxed"]) == (1, "stable_fail", True), grade
    assert grade["transitions"]["fail_to_pass"]["still_broken"] > 0, grade  # it ran, and failed the bug's tests

    # A C++ task: the driver is built from the installed cppwire.hpp (the C++ cache is cold, in tmp).
    if shutil.which("g++"):
        folder = proj / "harness" / "tasks" / CPP_TASK
        code, grade = _grade(loop_bin, CPP_TASK, folder / "reference.cpp", cwd=proj, env=env)
        assert (code, grade["verdict"], grade["sandboxed"]) == (0, "stable_pass", True), grade
        assert any((tmp_path / "cpp-cache").iterdir()), "no C++ driver was built"
