"""What loop remembers between runs lives under one folder, keyed by what would change it: the cache root
($XDG_CACHE_HOME/loop, else ~/.cache/loop) and the identity of loop's own code."""

from __future__ import annotations

import hashlib
import os
from importlib import metadata
from pathlib import Path

_CODE: str | None = None


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "loop"


def files_digest(folder: Path, paths) -> str:
    """sha256 over each file's path relative to folder and its bytes (a task's content, loop's code)."""
    h = hashlib.sha256()
    for path in paths:
        h.update(str(path.relative_to(folder)).encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def code_version() -> str:
    """loop's version and a digest of its code: two checkouts both called 0.1.0 may still grade differently."""
    global _CODE
    if _CODE is None:
        package = Path(__file__).resolve().parent
        _CODE = f"{metadata.version('loop')} (code {files_digest(package, sorted(package.rglob('*.py')))[:12]})"
    return _CODE


def key(*parts) -> str:
    """A cache entry's name: sha256 over the parts and loop's code identity (an edited loop misses)."""
    return hashlib.sha256("\0".join(map(str, (*parts, code_version()))).encode()).hexdigest()
