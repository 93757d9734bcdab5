"""A repository task's base tree from a git bundle and a commit: the commit's files, extracted once per
(bundle content, commit) into a cache beside the environments and never written to again.

The bundle's bytes are in the task folder, so the task hash covers them; the commit pins which tree of the
bundle is the base. Grading copies this tree, exactly as it copies a plain `repo/` folder.
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

from loop.errors import TaskError
from loop.kinds.repo.env import cache_root
from loop.kinds.repo.patch import chmod_tree


def _git(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C", "HOME": str(cwd), "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_CEILING_DIRECTORIES": str(cwd.parent)}
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, timeout=300)


def from_bundle(bundle: Path, commit: str) -> Path:
    """The tree of `commit` in `bundle`; TaskError naming the bundle when it is unreadable or lacks the commit."""
    if not bundle.is_file():
        raise TaskError(f"{bundle}: the repository bundle is missing")
    if not (7 <= len(commit) <= 64 and all(c in "0123456789abcdef" for c in commit)):
        raise TaskError(f"{bundle}: commit {commit!r} is not a hexadecimal commit id")
    digest = hashlib.sha256(bundle.read_bytes()).hexdigest()[:24]
    dest = cache_root().parent / "trees" / f"{digest}-{commit}"
    if (dest / ".complete").is_file():
        return dest / "tree"
    dest.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="loop-bundle-") as tmp:
        git_dir = Path(tmp) / "repo.git"
        cloned = _git(["clone", "--quiet", "--bare", str(bundle.resolve()), str(git_dir)], Path(tmp))
        if cloned.returncode != 0:
            raise TaskError(f"{bundle}: not a readable git bundle ({cloned.stderr.decode(errors='replace').strip()[:200]})")
        archive = _git(["archive", "--format=tar", f"{commit}^{{commit}}"], git_dir)
        if archive.returncode != 0:
            raise TaskError(f"{bundle}: commit {commit} is not in the bundle")
        staging = dest.parent / f".{dest.name}.{os.getpid()}.tmp"
        shutil.rmtree(staging, ignore_errors=True)
        with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
            tar.extractall(staging / "tree", filter="data")  # no absolute paths, no links leaving the tree
        chmod_tree(staging, writable=False)
        (staging / ".complete").write_text(f"{bundle.name} {commit}\n")
        try:
            os.rename(staging, dest)
        except OSError:  # another process extracted the same tree first
            shutil.rmtree(staging, ignore_errors=True)
    return dest / "tree"
