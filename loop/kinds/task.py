"""The task as data: what a kind loads from a folder (Task, its named tests and goldens) and the folder's digest.

Every kind builds a `Task`; executors, grading and the store read it, never the folder.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from loop.cachedir import files_digest
from loop.errors import TaskError
from loop.oracles.oracle import Oracle
from loop.sandbox import Limits

if TYPE_CHECKING:
    from loop.kinds.function.cppwire import Signature


NOTE = "note: "  # a polarity line that is said, not a problem (`loop tasks check` prints it as a note)


class CheckSource(str):
    """A test given as Python source defining `check(candidate)`, run inside the sandbox against the
    candidate function (pass = no exception). Only for imported tasks whose assertions cannot be split
    into (args, expected) pairs: the expected values of that one test then live in the sandbox."""


@dataclass(frozen=True)
class Test:
    name: str
    test_kind: str  # f2p | p2p | gen (generation tasks without a baseline)
    suites: tuple[str, ...]
    args: tuple
    expected: Any
    # run in one repeat's share, as a trial is (tests.json "shared": an EvalPlus plus input; decide.shares)
    shared: bool = False


@dataclass(frozen=True)
class Golden:
    case: str
    args: tuple
    expected: Any


@dataclass(frozen=True)
class Task:
    name: str
    path: Path
    language: str
    entry_point: str
    candidate_file: str
    description: str
    bug_report: str
    contract: str
    contract_file: str
    baseline: str | None
    reference: str | None
    tests: tuple[Test, ...]
    goldens: tuple[Golden, ...]
    limits: Limits
    build_flags: tuple[str, ...] = ()
    sanitizer_flags: tuple[str, ...] = ()
    signature: Signature | None = None  # C++: the entry point's types, from which its wire codec and driver come
    default_suite: str = "full"
    example: str | None = None
    oracle_path: Path | None = field(default=None, compare=False, repr=False)
    kind: str = "function"  # the TaskKind that loads and grades it (loop.kinds)

    @functools.cached_property
    def oracle(self) -> Oracle | None:
        """relations.py as an Oracle, loaded once, on first use: a grade without relations or goldens never
        executes it. A malformed file is a TaskError naming it."""
        return Oracle.load(self.oracle_path) if self.oracle_path is not None else None

    @functools.cached_property
    def digest(self) -> str:
        """sha256 of the folder's files, read once per loaded task (refs, caches and clusters key on it)."""
        return task_digest(self.path)

    def selected(self, suite: str) -> list[Test]:
        return [t for t in self.tests if suite in t.suites]

    def canonical(self, output):
        """The task's canonical form of an output (raises ValueError on malformed output)."""
        if self.oracle is not None and self.oracle.canonicalize is not None:
            return self.oracle.canonicalize(output)
        return output


def task_files(folder: Path) -> list[Path]:
    """The files that make a task (what its digest covers and what a cluster ships): no bytecode caches."""
    return sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts)


def task_digest(folder: Path) -> str:
    return files_digest(folder, task_files(folder))


def check_keys(where: Path, meta: dict, known: set[str], strings: tuple[str, ...]) -> None:
    """task.toml's keys for a kind: none unknown, and each of `strings` a string; a TaskError naming the file."""
    unknown = set(meta) - known
    if unknown:
        raise TaskError(f"{where}: unknown key '{sorted(unknown)[0]}'")
    for key in strings:
        if not isinstance(meta.get(key), str):
            raise TaskError(f"{where}: key '{key}' must be a string")
