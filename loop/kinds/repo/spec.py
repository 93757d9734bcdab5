"""What a repo task is: the tree, the hidden tests, the command and its report parser, the named test ids, the
environment; as read from task.toml by the kind."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from loop.kinds.repo.env import EnvSpec
from loop.kinds.task import Task


@dataclass(frozen=True)
class RepoSpec:
    tree: Path
    hidden: Path | None
    hidden_files: tuple[str, ...]
    context: tuple[str, ...]
    command: tuple[str, ...]
    parser: str
    test_paths: tuple[str, ...]
    fail_to_pass: tuple[str, ...]
    pass_to_pass: tuple[str, ...] | None  # None: every test passing on the base tree
    requirements: str | None
    toolchain: tuple[str, ...]
    digest: str = field(compare=False)
    environment: EnvSpec | None = None
    stdout_report: bool = False  # no {report} in the command: its standard output is the report
    allowed: tuple[str, ...] = ()  # test infrastructure (globs) a patch may edit: allow_test_infrastructure
    python: str | None = None  # the task's own interpreter (task.toml `python`), found on this machine
    paths: tuple[str, ...] = ()  # on PYTHONPATH after the environment: an editable install's src/


@dataclass(frozen=True)
class RepoTask(Task):
    spec: RepoSpec | None = None
