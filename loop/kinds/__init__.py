"""Task kinds: what a task folder holds, how a candidate for it is graded, asked for and checked.

`task.toml` names its kind (`kind = "function"` by default, so older folders load unchanged). A kind is an
object with the `TaskKind` methods; loop ships `function` (call a Python or C++ function with arguments,
compare values) and `answer` (a plain-text answer, the smallest example of a kind). Other packages add
kinds through the entry-point group `loop.kinds`, the way `llm` loads its plugins:

    [project.entry-points."loop.kinds"]
    regex = "my_package.kind:KIND"      # a TaskKind instance (or a class, instantiated once)
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from loop.errors import TaskError

if TYPE_CHECKING:
    from loop.grading.model import Grade, Options
    from loop.kinds.task import Task
    from loop.sandbox import SandboxConfig

GROUP = "loop.kinds"
BUILTIN = {"function": "loop.kinds.function.kind:KIND", "answer": "loop.kinds.answer:KIND", "repo": "loop.kinds.repo.kind:KIND"}
DEFAULT = "function"


@runtime_checkable
class TaskKind(Protocol):
    """One kind of task. Grading is the kind's own business; what comes back is always a `Grade`, so
    triage, storage, reports and executors never look inside a kind."""

    name: str

    def load(self, folder: Path, meta: dict) -> "Task":
        """The task in `folder`, from its parsed task.toml (`meta`); TaskError naming the file on bad input."""

    def grade(self, task: "Task", source: str | None, cfg: "SandboxConfig", opts: "Options",
              quarantined: frozenset = frozenset()) -> "Grade":
        """Grade one candidate: k attempts, the verdict, the checks worth reporting."""

    def prompt(self, task: "Task", cfg: "SandboxConfig") -> list[dict]:
        """The chat messages that ask a model for a candidate."""

    def extract(self, task: "Task", reply: str) -> str | None:
        """The candidate in a model's reply, or None when it holds none."""

    def polarity(self, task: "Task", cfg: "SandboxConfig") -> list[str]:
        """Problems with the task itself (a test the reference fails, ...), each naming the task; [] = sound."""


_LOADED: dict[str, TaskKind] = {}
_METHODS = ("name", "load", "grade", "prompt", "extract", "polarity")


def _instance(obj, where: str) -> TaskKind:
    kind = obj() if isinstance(obj, type) else obj
    if not isinstance(kind, TaskKind):
        raise TaskError(f"task kind {where} does not provide {', '.join(_METHODS)}")
    return kind


def plugins() -> dict[str, object]:
    """Entry points of the `loop.kinds` group, by name (not loaded). importlib.metadata is imported here, not at
    start-up: it reads every installed distribution's metadata, and the built-in kinds need none of it."""
    from importlib.metadata import entry_points

    return {ep.name: ep for ep in entry_points(group=GROUP)}


def names() -> list[str]:
    return sorted(set(BUILTIN) | set(plugins()))


def get(name: str) -> TaskKind:
    """The kind registered under `name`: built in, else from the `loop.kinds` entry points."""
    if name in _LOADED:
        return _LOADED[name]
    if name in BUILTIN:
        module, _, attr = BUILTIN[name].partition(":")
        kind = _instance(getattr(importlib.import_module(module), attr), repr(name))
    else:
        ep = plugins().get(name)
        if ep is None:
            raise TaskError(f"unknown task kind '{name}' (known: {', '.join(names())})")
        try:
            obj = ep.load()
        except Exception as exc:  # a broken plugin is that plugin's error, named, not loop's crash
            raise TaskError(f"task kind '{name}' ({ep.value}) does not load: {type(exc).__name__}: {exc}") from None
        kind = _instance(obj, f"'{name}' ({ep.value})")
    _LOADED[name] = kind
    return kind


def unavailable(task: "Task") -> str | None:
    """Why this machine cannot grade `task` (a kind's optional `unavailable`, e.g. a missing toolchain), or None."""
    method = getattr(get(task.kind), "unavailable", None)
    return method(task) if method else None


def prepare(task: "Task", cfg: "SandboxConfig") -> str | None:
    """Build what grading `task` needs ahead of a batch (a kind's optional `prepare`); None when nothing is needed."""
    method = getattr(get(task.kind), "prepare", None)
    return method(task, cfg) if method else None


def pool(name: str):
    """The executor class a kind offers for its own tasks on this machine (a kind's optional `pool`: the function
    kind's fork servers), or None. It is built as `pool(cfg, workers, k)` and says which grades it takes with
    `pool.accepts(task, opts)`; the executors place grades on it without looking inside the kind."""
    return getattr(get(name), "pool", None)


def grade(task: "Task", source: str | None, cfg: "SandboxConfig", opts: "Options",
          quarantined: set[str] = frozenset()) -> "Grade":
    """Grade one candidate the way its task's kind grades."""
    return get(task.kind).grade(task, source, cfg, opts, frozenset(quarantined))
