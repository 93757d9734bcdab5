"""A `repo` candidate is a unified diff: take it from a reply (or turn a reply of whole files into one), refuse
one that leaves the repository or touches tests, and apply it with `git apply` to a copy of the tree (never
the task folder).

The names the diff gives (read as git reads each header form) are a first fence before git sees it; git's own
refusal of paths outside the tree and of writes through symlinks is the second; what decides is what the patch
changed in the copy (changes.between), screened after it applied.
"""

from __future__ import annotations

import difflib
import fnmatch
import os
import re
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from loop.errors import SandboxUnavailable
from loop.kinds.repo.changes import NOT_COPIED, Change
from loop.sandbox import Limits, SandboxConfig, clean_env, make_scratch, run, stage

PATCH_DOES_NOT_APPLY = "patch_does_not_apply"
TOUCHES_TESTS = "touches_tests"
OUTSIDE_REPOSITORY = "outside_repository"

_FENCE = re.compile(r"```[ \t]*(diff|patch|udiff)[^\n]*\n(.*?)```", re.S | re.I)
# Every line that carries a file mode; git reads the mode as octal digits, leading zeros and all.
_MODE_LINE = re.compile(r"^(?:new file mode|new mode|old mode|deleted file mode|index [^.\n]*\.\.[^ \n]*)\s+(\S+)")


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


_C_ESCAPES = {"a": 7, "b": 8, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11, "\\": 92, '"': 34}


def _unquote_c(text: str) -> tuple[str, int] | None:
    """git's unquote_c_style: the name a C-quoted string at the start of `text` spells, and where the string
    ends; None where git refuses it (an unknown escape, no closing quote)."""
    out, i = bytearray(), 1
    while i < len(text):
        c = text[i]
        if c == '"':
            return os.fsdecode(bytes(out)), i + 1
        if c != "\\":
            out += c.encode("utf-8", "surrogateescape")
            i += 1
            continue
        nxt = text[i + 1:i + 2]
        if nxt in _C_ESCAPES:
            out.append(_C_ESCAPES[nxt])
            i += 2
        elif nxt in "0123" and nxt and len(text) >= i + 4 and all(d in "01234567" for d in text[i + 1:i + 4]):
            out.append(int(text[i + 1:i + 4], 8))
            i += 4
        else:
            return None
    return None


def _unquote(path: str) -> str:
    """A name as git reads it: C-quoted ("a/t\\303\\251st") or as written."""
    got = _unquote_c(path) if path.startswith('"') else None
    return got[0] if got else path


def _skip_prefix(name: str) -> str | None:
    """git's skip_tree_prefix at -p1: what follows the first '/', None when there is none or it comes first."""
    cut = name.find("/")
    return name[cut + 1:] if cut > 0 else None


def _header_name(rest: str) -> str | None:
    """The name git takes from `diff --git <rest>` (apply.c git_header_name at -p1): both sides must name the
    same path; they are split at any space or tab (so `a/x  b/x` and `a/x<TAB>b/x` name x) and either may be
    C-quoted. None when git finds no such name (a rename: its names are on other lines)."""
    if rest.startswith('"'):
        got = _unquote_c(rest)
        first = _skip_prefix(got[0]) if got else None
        if first is None:
            return None
        second = rest[got[1]:].lstrip(" \t\v\f\r")
        if second.startswith('"'):
            got = _unquote_c(second)
            second = got[0] if got else ""
        return first if _skip_prefix(second) == first else None
    name = _skip_prefix(rest)
    if name is None:
        return None
    quote = name.find('"')
    if quote >= 0:  # an unquoted first name: a quote can only open the second
        got = _unquote_c(name[quote:])
        np = _skip_prefix(got[0]) if got else None
        ok = np is not None and len(np) < quote and name.startswith(np) and name[len(np)] in " \t\v\f\r"
        return np if ok else None
    for i, c in enumerate(name):
        if c in " \t" and _skip_prefix(name[i + 1:]) == name[:i]:
            return name[:i]
    return None


def _strip(path: str) -> str:
    """A ---/+++ name as `git apply -p1` sees it: C-quoted or up to a tab, the first component (a/, b/) dropped.
    An absolute name is kept whole (git would drop its first slash): the fence refuses it."""
    path = _unquote(path) if path.startswith('"') else path.split("\t")[0]
    if path.startswith("/"):
        return path
    return path.split("/", 1)[1] if "/" in path else path


@dataclass(frozen=True)
class Refusal:
    check: str  # touches_tests | outside_repository
    detail: str


def paths_in(diff: str) -> tuple[list[str], bool]:
    """Every path the diff names, read as git reads its lines (a superset: a ---/+++ name both up to a tab and
    up to a space, renames and copies on both sides), and whether any mode line makes something other than a
    regular file (a symlink, a submodule). The first fence only: the screens that decide read the tree."""
    paths, symlink = [], False
    for line in diff.split("\n"):  # git splits lines at LF only: a form feed or CR is part of a name
        if line.startswith("diff --git "):
            name = _header_name(line[len("diff --git "):])
            if name is not None:
                paths.append(name)
        elif line.startswith(("--- ", "+++ ")):
            raw = line[4:]
            if raw.startswith("/dev/null") and raw[9:10] in ("", " ", "\t", "\r"):
                continue
            paths.append(_strip(raw))
            if not raw.startswith('"') and " " in raw.split("\t")[0]:  # a traditional diff's date after a space
                paths.append(_strip(raw.split(" ")[0]))
        elif line.startswith(("rename from ", "rename to ", "copy from ", "copy to ", "rename old ", "rename new ")):
            paths.append(_unquote(line.split(" ", 2)[2]))
        elif (m := _MODE_LINE.match(line)) and not _regular_mode(m.group(1)):
            symlink = True
    return paths, symlink


def _regular_mode(mode: str) -> bool:
    """A regular file's mode (git's 100644 / 100755, however spelled); a link, a submodule or anything git
    might read another way is not."""
    try:
        value = int(mode, 8)
    except ValueError:
        return False
    return value & 0o170000 == 0o100000


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
    """The first fence, on the names the diff gives: it leaves the repository, makes a link, or touches a test.
    Checked before the patch is applied, so these reasons hold for a patch that does not apply too."""
    paths, symlink = paths_in(diff)
    if symlink:
        return Refusal(OUTSIDE_REPOSITORY, "the patch creates or edits a symlink or another non-regular file")
    return _refuse_paths(paths, tree, protected, hidden)


def refuse_changes(changes: list[Change], tree: Path, protected: list[str], hidden: list[str]) -> Refusal | None:
    """What decides, on what the patch changed in the tree (changes.between): a link or special file it made,
    a test it touched, whatever the diff's text said."""
    planted = next((c.path for c in changes if c.special), None)
    if planted:
        return Refusal(OUTSIDE_REPOSITORY, f"the patch creates a symlink or special file ({planted})")
    return _refuse_paths([c.path for c in changes], tree, protected, hidden)


def _refuse_paths(paths: list[str], tree: Path, protected: list[str], hidden: list[str]) -> Refusal | None:
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


# One sandboxed run: apply (all or nothing: git touches no file unless every hunk applies, so no --check run
# first); when that fails, apply what can be with --reject (the tree is thrown away then) and print the .rej
# files (regular files only, capped). Nothing of the candidate's tree is read on the host: a .rej may be a link
# to anywhere, a folder or /dev/zero.
_APPLY = r"""cd "$1" || exit 125
git apply $GIT_OPTS "$2" || {
  git apply $GIT_OPTS --reject "$2" >/dev/null 2>&1
  find . -name '*.rej' -type f | LC_ALL=C sort | head -n 20 | while IFS= read -r f; do
    printf '%s:\n' "${f#./}"; head -c 4000 "$f"; echo
  done
  exit 1
}
"""
_APPLY_LIMITS = Limits(wall=60.0, memory_mb=2048, fsize_mb=256, output_bytes=1 << 16, tmpfs_mb=16)


TRUSTED = SandboxConfig(enabled=False)  # for patches that are not a candidate's (a dataset's own, a test's)


def apply(diff: str, tree: Path, cfg: SandboxConfig) -> str | None:
    """Apply the diff to `tree` (a copy) in the sandbox `cfg` describes; None when it applied, else the
    rejected hunk(s) or git's reason."""
    folder = make_scratch("loop-patch-")
    try:
        stage(folder, "candidate.diff", diff)
        # Outside any repository on purpose: with a ceiling at the copy's parent, git cannot find a
        # repository above it and apply the patch relative to that one's root.
        env = {**clean_env(), "GIT_CEILING_DIRECTORIES": "/" if cfg.enabled else str(tree.parent),
               "GIT_CONFIG_NOSYSTEM": "1", "GIT_OPTS": "--recount --whitespace=nowarn -p1"}
        try:
            res = run(cfg, ["/bin/sh", "-c", _APPLY, "sh", "/repo", "/patch/candidate.diff"], limits=_APPLY_LIMITS,
                      env=env, ro={"/patch": str(folder)}, rw={"/repo": str(tree)}, cwd="/repo", address_space=False)
        except SandboxUnavailable as exc:
            return f"the patch could not be applied: {exc}"
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if res.returncode == 0 and res.fault is None:
        return None
    rejects = res.stdout.decode("utf-8", errors="replace").strip()
    reason = res.stderr.decode("utf-8", errors="replace").strip()
    if res.fault is not None:
        reason = f"git apply did not finish ({res.fault.detail})"
    return (rejects or reason or "git apply refused the patch")[:4000]


def files(tree: Path, limit: int = 5000) -> list[str]:
    """Regular files under `tree` (relative, sorted, at most `limit`), never through a link."""
    out = []
    for root, dirs, names in os.walk(tree):
        dirs[:] = sorted(d for d in dirs if d not in (".git", "node_modules", "__pycache__"))
        out += [os.path.relpath(os.path.join(root, n), tree) for n in sorted(names)
                if stat.S_ISREG(os.lstat(os.path.join(root, n)).st_mode)]
        if len(out) >= limit:
            break
    return out[:limit]


def read_capped(path: Path, cap: int) -> bytes | None:
    """A file the candidate's process may have written: a regular file opened without following a link,
    read up to `cap` bytes; None when it is anything else, missing, or larger."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        chunks, size = [], 0
        while chunk := os.read(fd, 1 << 20):
            size += len(chunk)
            if size > cap:
                return None
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


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


def fresh_copy(src: Path, dest: Path, into: bool = False) -> Path:
    """A copy of `src` the sandbox uid may read and write (it runs as another uid when loop is root); `into`:
    into the folders and over the files already at `dest` (in place: a file keeps its inode)."""
    shutil.copytree(src, dest, symlinks=True, ignore=shutil.ignore_patterns(*NOT_COPIED), dirs_exist_ok=into)
    chmod_tree(dest, writable=True)
    return dest


def moved(src: Path, dest: Path, into: bool = False) -> Path:
    """`src` itself at `dest` (its owner's last use of it, on the same file system), as fresh_copy would leave a
    copy: what a copy leaves out removed (a patch's `.pytest_cache`), open to the sandbox's uid. A copy where it
    cannot be moved. `into`: into the folders already at `dest`, each file there filled in place (it keeps its
    inode: a sandbox started early binds it), every other entry moved."""
    try:
        _move_into(src, dest) if into else src.rename(dest)
    except OSError:
        return fresh_copy(src, dest, into)  # (what is left of `src`, after a move into stopped part way)
    for root, dirs, _ in os.walk(dest):
        for name in [d for d in dirs if d in NOT_COPIED]:
            dirs.remove(name)
            shutil.rmtree(os.path.join(root, name))
    chmod_tree(dest, writable=True)
    return dest


def _move_into(src: Path, dest: Path) -> None:
    for entry in os.scandir(src):
        there = dest / entry.name
        if not os.path.lexists(there):
            os.rename(entry.path, there)
        elif entry.is_dir(follow_symlinks=False) and there.is_dir() and not there.is_symlink():
            _move_into(Path(entry.path), there)
        elif entry.is_file(follow_symlinks=False) and there.is_file() and not there.is_symlink():
            shutil.copyfile(entry.path, there)  # opened and truncated: the same inode
        else:
            raise IsADirectoryError(f"{entry.path} does not fit {there}")
