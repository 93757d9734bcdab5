"""Find and load task folders (`harness/tasks/<name>/`): task.toml names the kind, which loads the rest.

A task is data in a folder, so adding one never means editing `loop/`; every malformed piece is a
`TaskError` naming the file and the problem.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from loop import kinds
from loop import verdicts as V
from loop.errors import TaskError, near
from loop.kinds.task import Task


def tasks_root(root: Path) -> Path:
    return root / "harness" / "tasks"


def list_tasks(root: Path) -> list[str]:
    base = tasks_root(root)
    return sorted(p.name for p in base.iterdir() if (p / "task.toml").is_file()) if base.is_dir() else []


def summaries(root: Path) -> list[dict]:
    """One row per task, as `loop tasks list` shows it (the kind says how each is graded)."""
    rows = []
    for name in list_tasks(root):
        t = load(root, name)
        # "tests" are the tests the task names, whatever its kind; a repo task that names no pass-to-pass
        # tests grades every test passing on its base tree as one (`pass_to_pass` null)
        p2p = getattr(getattr(t, "spec", None), "pass_to_pass", ())
        rows.append({"name": t.name, "kind": t.kind, "language": t.language, "tests": len(t.tests),
                     "pass_to_pass": None if p2p is None else sum(x.test_kind == V.P2P for x in t.tests),
                     "goldens": len(t.goldens), "baseline": t.baseline is not None,
                     "relations": t.oracle_path is not None, "description": t.description})
    return rows


def load(root: Path, name: str) -> Task:
    folder = tasks_root(root) / name
    if not (folder / "task.toml").is_file():
        raise TaskError(unknown_task(root, name))
    return load_folder(folder)


def unknown_task(root: Path, name: str) -> str:
    """The one line for a task name no folder has: a near match when there is one, never the whole list
    (after a HumanEval import that is 170 names)."""
    return f"unknown task '{name}'" + near(name, list_tasks(root), f"in {tasks_root(root)}", "`loop tasks list`")


def chosen(config, names: tuple | list) -> list[str]:
    """The tasks a command named, each one existing, else every task (one at least): a TaskError otherwise."""
    for name in names:
        if not (tasks_root(config.root) / name / "task.toml").is_file():
            raise TaskError(unknown_task(config.root, name) + _elsewhere(config, name))
    every = list(names) or list_tasks(config.root)
    if not every:
        raise TaskError(no_tasks(config))
    return every


def _elsewhere(config, name: str) -> str:
    """When --config names a file away from the project: tasks are looked up beside it, and here is the task."""
    here = tasks_root(Path.cwd()) / name / "task.toml"
    if config.path is None or Path.cwd().resolve() == config.root.resolve() or not here.is_file():
        return ""
    return (f" (tasks are looked up beside the config file {config.path}; {here.parent} is in the current folder: "
            f"put the config file in {Path.cwd()}, or run loop where the config file is)")


def no_tasks(config) -> str:
    """Why a command that runs every task found none: where it looked and how to point loop elsewhere."""
    where = (f"beside {config.path}" if config.path is not None
             else "in the current folder: no ./config.toml (or $LOOP_CONFIG) was found")
    return (f"no tasks in {tasks_root(config.root)} (loop looks for harness/tasks/<name>/task.toml {where}): "
            "run loop from the project folder, or pass --config PROJECT/config.toml")


def load_folder(folder: Path) -> Task:
    """Read task.toml and let the task's kind (`kind`, default "function") load the rest."""
    meta_path = folder / "task.toml"
    try:
        meta = tomllib.loads(meta_path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise TaskError(f"{meta_path}: not valid TOML ({exc})") from None
    kind = meta.get("kind", kinds.DEFAULT)
    if not isinstance(kind, str):
        raise TaskError(f"{meta_path}: key 'kind' must be a string")
    if not isinstance(meta.get("name"), str):
        raise TaskError(f"{meta_path}: key 'name' must be a string")
    if meta["name"] != folder.name:
        raise TaskError(f"{meta_path}: name '{meta['name']}' does not match the folder '{folder.name}'")
    return kinds.get(kind).load(folder, meta)


