"""What the base and gold trees of a repository task showed (reference.py), remembered across processes in
loop's cache: keyed by everything that decides it, checked on every read, recomputed when anything is off.

An entry is written only from runs of the task's own trees (never a candidate's), and only with the sandbox
on: without it a candidate's code runs as the user and could write the cache itself. The key covers the task
folder's content (hidden tests and gold patch included), the trees' digest, the environment (its content
hash), the toolchain programs as installed, the sandbox settings, what is remembered (and the repeat, whose
environment differs) and loop's own code (cachedir.key), so a change to any of them misses. An entry carries
a checksum of its key and value: a truncated, edited or misplaced file reads as no entry."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path
from typing import Any

from loop import cachedir
from loop.kinds.repo.env import Env
from loop.kinds.repo.spec import RepoSpec
from loop.kinds.task import Task
from loop.sandbox import SandboxConfig

FOLDER = "repo-reference"


def _installed(tool: str) -> str:
    """A toolchain program as installed: its resolved path, size and change time (an upgrade misses)."""
    found = tool if tool.startswith("/") else shutil.which(tool, path="/usr/bin:/bin")
    try:
        real = os.path.realpath(found) if found else tool
        st = os.stat(real)
        return f"{real}:{st.st_size}:{st.st_mtime_ns}"
    except OSError:
        return f"{tool}:missing"


def key(task: Task, cfg: SandboxConfig, env: Env | None, what: str, *parts) -> str | None:
    """The entry's name, or None: nothing is remembered without the sandbox."""
    if not cfg.enabled:
        return None
    spec: RepoSpec = task.spec
    tools = [_installed(t) for t in (*spec.toolchain, *([spec.python] if spec.python else []))]
    return cachedir.key(FOLDER, what, task.digest, spec.digest, spec.command, env.path.name if env else "",
                        *tools, repr(cfg), *parts)


def _path(name: str) -> Path:
    return cachedir.cache_dir() / FOLDER / f"{name}.json"


def _sum(name: str, value: Any) -> str:
    return hashlib.sha256(name.encode() + b"\0" + json.dumps(value, sort_keys=True).encode()).hexdigest()


def recall(name: str | None) -> Any:
    """The value stored under `name` (plain JSON), or None: missing, unreadable, or not what was written."""
    if name is None:
        return None
    try:
        entry = json.loads(_path(name).read_text(encoding="utf-8"))
        if isinstance(entry, dict) and entry.get("sum") == _sum(name, entry.get("value")):
            return entry["value"]
    except (OSError, ValueError):
        pass
    return None


def remember(name: str | None, value: Any) -> None:
    """Best effort: a cache that cannot be written is a slower next run, never an error."""
    if name is None:
        return
    path = _path(name)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.{id(value)}.tmp")
        tmp.write_text(json.dumps({"value": value, "sum": _sum(name, value)}), encoding="utf-8")
        tmp.replace(path)
    except (OSError, TypeError, ValueError):
        pass


def plain(value: Any) -> Any:
    """Tuples and frozensets (the keys of points, copies and seals) as JSON lists, sets sorted."""
    if isinstance(value, frozenset):
        return sorted((plain(v) for v in value), key=json.dumps)
    if isinstance(value, (tuple, list)):
        return [plain(v) for v in value]
    if value is None or isinstance(value, (str, int)) and not isinstance(value, bool):
        return value
    raise TypeError(f"not a key: {value!r}")


def keys(value: Any) -> frozenset:
    """plain()'s frozenset of tuples back, lists as tuples; ValueError on anything else (None included)."""
    if not isinstance(value, list):
        raise ValueError("not a list")
    return frozenset(_tuple(v) for v in value)


def _tuple(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_tuple(v) for v in value)
    if value is None or isinstance(value, str) or isinstance(value, int) and not isinstance(value, bool):
        return value
    raise ValueError(f"not a key: {value!r}")
