"""A `repo` candidate is a unified diff: take it from a reply (or turn a reply of whole files into one), refuse
one that leaves the repository or touches tests, and apply it with `git apply` to a copy of the tree (never
the task folder).

Every path the diff names is checked before git sees it; git's own refusal of paths outside the tree
and of writes through symlinks is the second fence, not the only one.
"""

from __future__ import annotations

import difflib
import fnmatch
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

PATCH_DOES_NOT_APPLY = "patch_does_not_apply"
TOUCHES_TESTS = "touches_tests"
OUTSIDE_REPOSITORY = "outside_repository"

_FENCE = re.compile(r"```[ \t]*(diff|patch|udiff)[^\n]*\n(.*?)```", re.S | re.I)
_SYMLINK_MODE = re.compile(r"^(new file mode|new mode|old mode|deleted file mode|index [0-9a-f]+\.\.[0-9a-f]+) 120000\b")


def extract_diff(reply: str, tree: Path | None = None) -> str | None:
    """The diff in a reply: its fenced ```diff blocks (joined), else the whole reply when it is one, else
    (given the base tree) the diff that turns the tree into the whole files the reply holds."""
    blocks = [m.group(2) for m in _FENCE.finditer(reply)]
    text = "\n".join(b if b.endswith("\n") else b + "\n" for b in blocks) if blocks else reply
    if re.search(r"^--- ", text, re.M) and re.search(r"^\+\+\+ ", text, re.M) and re.search(r"^@@ ", text, re.M):
        return text if text.endswith("\n") else text + "\n"
    if tree is not None:
        files = whole_files(reply)
        if files:
            return diff_files(files, tree)
    return None


# A fenced block that names its path: in the info string (```js src/a.js, ```src/a.js, ```js path=src/a.js,
# ```js title="src/a.js") or on the line just before the fence (`src/a.js`:, **src/a.js**, # src/a.js).
_BLOCK = re.compile(r"(?:^|\n)(?P<before>[^\n]*)\n?```(?P<info>[^\n`]*)\n(?P<body>.*?)^```[ \t]*$", re.S | re.M)
# (a path that climbs out or is absolute is still read as a path: refuse() turns it into outside_repository)
_PATHLIKE = re.compile(r"^[\w.@+/-][\w./@+-]*\.[\w]+$|^[\w.@+/-]+/[\w./@+-]+$")


def _block_path(info: str, before: str) -> str | None:
    for word in info.split():
        value = word.split("=", 1)[-1].strip("\"'")
        if _PATHLIKE.match(value):
            return value
    words = before.strip().strip("#*`: ").split()
    label = words[-1].strip("*`:") if words else ""
    return label if _PATHLIKE.match(label) else None


WHOLE_FILES_MAX = (64, 1 << 20)  # files, characters: diffing is done in loop's own process, so it is bounded


def whole_files(reply: str) -> dict[str, str]:
    """{path: content} of a reply made of whole files, one fenced block per path; {} when any block of
    code names no path or a path repeats (then the reply is not of this form), or past WHOLE_FILES_MAX."""
    if len(reply) > WHOLE_FILES_MAX[1]:
        return {}
    files: dict[str, str] = {}
    for m in _BLOCK.finditer(reply):
        path = _block_path(m.group("info"), m.group("before"))
        if path is None or path in files:
            return {}
        files[path] = m.group("body")
    return files if len(files) <= WHOLE_FILES_MAX[0] else {}


def diff_files(files: dict[str, str], tree: Path) -> str:
    """The unified diff (git apply's dialect) from `tree` to `files`; unchanged files add nothing. Paths are
    checked later, like any diff's (refuse): here a path outside the tree is simply a new file."""
    out = []
    for path, new in files.items():
        old_file = tree / path
        inside = ".." not in PurePosixPath(path).parts and not path.startswith("/")
        old = old_file.read_text(encoding="utf-8", errors="replace") if inside and old_file.is_file() \
            and not old_file.is_symlink() else None
        if old == new:
            continue
        a = _lines(old or "")
        b = _lines(new)
        body = list(difflib.unified_diff(a, b, "/dev/null" if old is None else f"a/{path}", f"b/{path}", n=3))
        head = [f"diff --git a/{path} b/{path}\n"] + (["new file mode 100644\n"] if old is None else [])
        out += head + body
    return "".join(out)


def _lines(text: str) -> list[str]:
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n\\ No newline at end of file\n"
    return lines


def _unquote(path: str) -> str:
    """git quotes unusual paths C-style ("a/t\\303\\251st"); undo it (totally: odd escapes stay as they are)."""
    if len(path) >= 2 and path[0] == path[-1] == '"':
        body = path[1:-1]
        try:
            return body.encode("latin-1", "backslashreplace").decode("unicode_escape").encode("latin-1").decode("utf-8")
        except (UnicodeError, ValueError):
            return body
    return path


def _strip(path: str) -> str:
    """The path as `git apply -p1` sees it: the first component (a/, b/) dropped; an absolute path kept."""
    path = _unquote(path.split("\t")[0].strip())
    if path.startswith("/"):
        return path
    return path.split("/", 1)[1] if "/" in path else path


@dataclass(frozen=True)
class Refusal:
    check: str  # touches_tests | outside_repository
    detail: str


def paths_in(diff: str) -> tuple[list[str], bool]:
    """Every path the diff names (old and new sides, renames, copies) and whether it makes a symlink."""
    paths, symlink = [], False
    for line in diff.splitlines():
        if line.startswith("diff --git "):
            parts = line[len("diff --git "):].split(" ")
            if len(parts) == 2:
                paths += [_strip(parts[0]), _strip(parts[1])]
        elif line.startswith(("--- ", "+++ ")):
            raw = line[4:].split("\t")[0].strip()
            if raw != "/dev/null":
                paths.append(_strip(raw))
        elif line.startswith(("rename from ", "rename to ", "copy from ", "copy to ")):
            paths.append(_unquote(line.split(" ", 2)[2].strip()))
        elif _SYMLINK_MODE.match(line):
            symlink = True
    return paths, symlink


def _outside(path: str, tree: Path) -> str | None:
    if not path or path.startswith("/") or "\\" in path or "\0" in path:
        return f"path {path!r} is absolute or malformed"
    parts = PurePosixPath(path).parts
    if ".." in parts:
        return f"path {path!r} climbs out of the repository"
    if parts and parts[0] == ".git":
        return f"path {path!r} is inside .git"
    here = tree
    for part in parts:  # a write through a symlink in the tree would land wherever it points
        here = here / part
        if here.is_symlink():
            return f"path {path!r} goes through a symlink ({here.relative_to(tree)})"
    return None


def refuse(diff: str, tree: Path, protected: list[str], hidden: list[str]) -> Refusal | None:
    """Why the diff may not be applied at all: it leaves the repository, or it touches a test."""
    paths, symlink = paths_in(diff)
    if symlink:
        return Refusal(OUTSIDE_REPOSITORY, "the patch creates or edits a symlink")
    for path in paths:
        why = _outside(path, tree)
        if why:
            return Refusal(OUTSIDE_REPOSITORY, why)
    for path in paths:
        norm = str(PurePosixPath(path))
        if norm in hidden:
            return Refusal(TOUCHES_TESTS, f"the patch edits {norm}, a hidden test")
        for prefix in protected:
            p = prefix.rstrip("/")
            if any(c in p for c in "*?["):  # a glob ("*_test.go", "**/*.test.js"): '*' also spans folders
                if fnmatch.fnmatchcase(norm, p) or fnmatch.fnmatchcase(PurePosixPath(norm).name, p):
                    return Refusal(TOUCHES_TESTS, f"the patch edits {norm}, a test file ({prefix})")
            elif norm == p or norm.startswith(p + "/"):
                return Refusal(TOUCHES_TESTS, f"the patch edits {norm}, under the test path {prefix}")
    return None


def _git(args: list[str], cwd: Path, patch: Path) -> subprocess.CompletedProcess:
    # Outside any repository on purpose: with a ceiling at the copy's parent, git cannot find a
    # repository above it and apply the patch relative to that one's root.
    env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C", "HOME": str(cwd), "GIT_CEILING_DIRECTORIES": str(cwd.parent),
           "GIT_CONFIG_NOSYSTEM": "1"}
    return subprocess.run(["git", "apply", "--recount", "--whitespace=nowarn", "-p1", *args, str(patch)],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=60)


def apply(diff: str, tree: Path) -> str | None:
    """Apply the diff to `tree` (a copy); None when it applied, else the rejected hunk(s) or git's reason."""
    with tempfile.TemporaryDirectory(prefix="loop-patch-") as tmp:
        patch = Path(tmp) / "candidate.diff"
        patch.write_text(diff, encoding="utf-8")
        check = _git(["--check"], tree, patch)
        if check.returncode != 0:
            return _rejected(diff, tree, Path(tmp), patch) or (check.stderr.strip() or "git apply refused the patch")
        done = _git([], tree, patch)
        if done.returncode != 0:
            return done.stderr.strip() or "git apply failed"
    return None


def _rejected(diff: str, tree: Path, tmp: Path, patch: Path) -> str:
    """The hunks git could not place, as `git apply --reject` writes them (.rej files), in a throwaway copy."""
    scratch = tmp / "reject"
    shutil.copytree(tree, scratch, symlinks=True)
    out = _git(["--reject"], scratch, patch)
    rejects = sorted(scratch.rglob("*.rej"))
    if not rejects:
        return out.stderr.strip()
    parts = [f"{r.relative_to(scratch)}:\n{r.read_text(errors='replace')}" for r in rejects]
    return "\n".join(parts)[:4000]


def chmod_tree(folder: Path, writable: bool) -> None:
    """Every folder and file under `folder` open to the sandbox's uid (not ours when loop runs as root):
    readable, or also writable; execute bits are kept, links are left alone."""
    dir_mode, file_mode = (0o777, 0o666) if writable else (0o755, 0o644)
    for root, _, files in os.walk(folder):
        os.chmod(root, dir_mode)
        for f in files:
            p = os.path.join(root, f)
            if not os.path.islink(p):
                os.chmod(p, file_mode | (os.stat(p).st_mode & 0o111))


def fresh_copy(src: Path, dest: Path) -> Path:
    """A copy of `src` the sandbox uid may read and write (it runs as another uid when loop is root)."""
    shutil.copytree(src, dest, symlinks=True, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    chmod_tree(dest, writable=True)
    return dest
