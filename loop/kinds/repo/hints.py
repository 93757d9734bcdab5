"""What `loop tasks check` tells a user when a repository task cannot run on its base tree: which way the fix
points (a module the environment lacks, the project itself not importable, requirements pip refuses)."""

from __future__ import annotations

import re
from pathlib import Path

from loop.kinds.task import Task

_NO_MODULE = re.compile(r"No module named '([^'.]+)")
_TOX_FACTOR = re.compile(r"^[A-Za-z0-9_.!,{}-]+:\s")  # a tox line (`click7: click<8`), not a requirement
_REFUSED = "a module is missing from the task's environment"  # reference.baseline's own hint begins so


def own_packages(tree: Path) -> set[str]:
    """The project's own top-level import names: packages and modules at the top or under src/."""
    out = set()
    for top in (tree, tree / "src"):
        if not top.is_dir():
            continue
        for p in top.iterdir():
            if p.is_dir() and (p / "__init__.py").is_file():
                out.add(p.name)
            elif p.suffix == ".py" and p.stem not in ("setup", "conftest", "noxfile"):
                out.add(p.stem)
    return out


def missing_module(task: Task, said: str) -> str:
    """The way out of a `No module named X` on the base tree. X the project's own package: the test command
    does not see the project (it must be installed, or its folder put on the path), so no requirements
    line helps. Otherwise the environment lacks a dependency."""
    m = _NO_MODULE.search(said)
    name = m.group(1) if m else None
    req = task.path / "requirements.txt"
    if name and name in own_packages(task.spec.tree):
        return (f"the project's own package '{name}' cannot be imported by the test command ({said[:160]}): it "
                f"must be installed, not listed: set `install = \"editable\"` under [environment] in "
                f"{task.path / 'task.toml'} (a SWE-bench import sets it for every project whose name it can read), "
                "or give the test command the folder that holds it (-o pythonpath=...)")
    return (f"a module is missing from the task's environment ({said[:160]}): add the project that provides "
            f"{name or 'it'} to {req}, or re-import the SWE-bench instance with --requirements FILE --force")


def redirect(task: Task, message: str) -> str:
    """A base-tree refusal whose hint names requirements.txt, pointed the right way when the missing module
    is the project's own."""
    if _REFUSED not in message:
        return message
    head, _, rest = message.partition(_REFUSED)
    said = rest[rest.find("(") + 1:]
    return head + missing_module(task, said.rsplit("):", 1)[0])


def build_failed(task: Task, detail: str) -> str:
    """An environment pip (or npm, go) could not build: what it said, and which file to fix."""
    env = task.spec.environment
    files = str(task.path / "requirements.txt") if env.kind == "requirements" else \
        ", ".join(str(task.spec.tree / n) for n, _ in env.files)
    if re.search(r"Failed building wheel|Could not build wheels|legacy-install-failure|requires a different Python|"
                 r"Requires-Python", detail):
        return (f"the environment cannot be built: a package {files} asks for does not install on this "
                f"task's interpreter ({_last(detail)}); name the Python of the project's era in "
                f"{task.path / 'task.toml'} (python = \"3.9\"), or pin a version that does")
    m = re.search(r"Invalid requirement: '([^']*)'", detail)
    factor = next((line for line in dict(env.files).get("requirements.txt", "").splitlines()
                   if _TOX_FACTOR.match(line)), None) if env.kind == "requirements" else None
    if m or factor:  # pip names the line; uv reads `click7: click<8` as a path and says only that it is missing
        return (f"the environment cannot be built: {files} has a line pip does not take "
                f"({(m.group(1) if m else factor)!r}); remove it, or re-import with --requirements FILE --force")
    if re.search(r"No matching distribution|Could not find a version|ResolutionImpossible|conflicting dependencies",
                 detail):
        return (f"the environment cannot be built: pip cannot satisfy {files} ({_last(detail)}); pin what "
                "conflicts, or re-import with --requirements FILE --force")
    return f"the environment cannot be built ({_last(detail)}); check {files}"


def _last(detail: str) -> str:
    lines = [x.strip() for x in detail.splitlines() if x.strip()]
    keep = [x for x in lines if x.startswith("ERROR")] or lines
    return (keep[-1] if keep else detail)[:300]
