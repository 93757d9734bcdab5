"""Build a git-apply-able diff from {relpath: new content (str) | None (delete)} against a task's repo/."""
import os, shutil, subprocess, sys, tempfile
from pathlib import Path
BASE = Path("/tmp/attack-base/harness/tasks")
OUT = Path("/work/main/tests/adversarial/repo_candidates")

def make(task, name, header, files, raw=None):
    dest = OUT / task / f"{name}.diff"
    if raw is not None:
        dest.write_text(header.rstrip("\n") + "\n" + raw)
        return dest
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "r"
        shutil.copytree(BASE / task / "repo", repo)
        env = {"PATH": "/usr/bin:/bin", "HOME": tmp, "GIT_AUTHOR_NAME": "x", "GIT_AUTHOR_EMAIL": "x@x",
               "GIT_COMMITTER_NAME": "x", "GIT_COMMITTER_EMAIL": "x@x", "GIT_CONFIG_NOSYSTEM": "1"}
        g = lambda *a: subprocess.run(["git", *a], cwd=repo, env=env, check=True, capture_output=True, text=True).stdout
        g("init", "-q"); g("add", "-A"); g("commit", "-qm", "base")
        for rel, content in files.items():
            p = repo / rel
            if content is None:
                p.unlink(); continue
            if callable(content):
                content = content(p.read_text())
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(content)
        g("add", "-A")
        diff = g("diff", "--cached")
    assert diff.strip(), name
    dest.write_text(header.rstrip("\n") + "\n" + diff)
    return dest

def sub(old, new, count=1):
    def f(text):
        assert old in text, old
        return text.replace(old, new, count)
    return f
