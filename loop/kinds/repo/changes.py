"""What a patch changed, read from the trees: the base tree beside the patched copy, never from the diff's text
(a header git reads one way and a parser another hides nothing here). Every screen of a patch reads this list.

A rename is a deletion and an addition; a folder counts only where it replaced, or was replaced by, a file or link.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

ADDED, DELETED, MODIFIED, MODE, TYPE = "added", "deleted", "modified", "mode", "type"
# What a copy of a tree leaves out (patch.fresh_copy, patch.moved): absent from the patched tree because it was
# never copied, not deleted.
NOT_COPIED = frozenset({"__pycache__", ".pytest_cache"})


@dataclass(frozen=True)
class Change:
    path: str  # relative to the tree, '/'-separated
    what: str  # added | deleted | modified | mode | type
    special: bool = False  # the patched tree has a link, a FIFO, a device... there (git makes links from mode lines)


def _kind(mode: int) -> str:
    return "dir" if stat.S_ISDIR(mode) else "file" if stat.S_ISREG(mode) else "link" if stat.S_ISLNK(mode) else "other"


def _entries(root: Path, skip: frozenset) -> dict[str, os.stat_result]:
    """lstat of every entry under `root` by relative path, never through a link; `.git` (git apply never writes
    there: it refuses any path with a .git component) and the names in `skip` are left out."""
    out: dict[str, os.stat_result] = {}
    stack = [("", str(root))]
    while stack:
        rel, folder = stack.pop()
        with os.scandir(folder) as it:
            for entry in it:
                if entry.name == ".git" or entry.name in skip:
                    continue
                path = f"{rel}{entry.name}"
                st = entry.stat(follow_symlinks=False)
                out[path] = st
                if stat.S_ISDIR(st.st_mode):
                    stack.append((path + "/", entry.path))
    return out


def _same_bytes(a: Path, b: Path) -> bool:
    with open(a, "rb") as fa, open(b, "rb") as fb:
        while True:
            x, y = fa.read(1 << 20), fb.read(1 << 20)
            if x != y:
                return False
            if not x:
                return True


def between(base: Path, patched: Path) -> list[Change]:
    """Every path whose entry differs between `base` and `patched` (a copy of it made by fresh_copy, then
    patched), sorted. copytree keeps modification times, so a file is read only when its size or time moved."""
    old, new = _entries(base, NOT_COPIED), _entries(patched, frozenset())
    out = []
    for path in sorted(old.keys() | new.keys()):
        a, b = old.get(path), new.get(path)
        if b is None:
            if not stat.S_ISDIR(a.st_mode):  # a folder gone: its files say what was deleted
                out.append(Change(path, DELETED))
            continue
        special = _kind(b.st_mode) in ("link", "other")
        if a is None:
            what = ADDED
        elif _kind(a.st_mode) != _kind(b.st_mode):
            what = TYPE
        elif _kind(b.st_mode) == "dir":
            continue
        elif special:  # a link the base has too: changed if it points elsewhere
            what = MODIFIED if stat.S_ISLNK(b.st_mode) and os.readlink(base / path) != os.readlink(patched / path) \
                else None
        elif bool(a.st_mode & 0o111) != bool(b.st_mode & 0o111):  # git keeps one bit: 100644 or 100755
            what = MODE
        elif (a.st_size, a.st_mtime_ns) == (b.st_size, b.st_mtime_ns):
            what = None
        else:
            what = None if a.st_size == b.st_size and _same_bytes(base / path, patched / path) else MODIFIED
        if what == ADDED and _kind(b.st_mode) == "dir":
            continue  # a new folder: its files say what was added
        if what:
            out.append(Change(path, what, special))
    return out
