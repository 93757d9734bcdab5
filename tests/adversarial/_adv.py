"""Helpers for the adversarial suite: a tmp project with small limits, a grade through `loop grade`, survivor checks."""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import shutil
import time
from pathlib import Path

from click.testing import CliRunner

from loop.cli import cli

ROOT = Path(__file__).resolve().parents[2]
GRACE = 6.0  # seconds past the task's limit for startup, the import check and a loaded CI box

# Every Python candidate names itself (comm, inherited by forks) so its processes can be found afterwards.
NAME_SELF = 'import ctypes as _c\n_c.CDLL(None).prctl(15, b"{marker}", 0, 0, 0)\n'


def new_marker() -> str:
    return "adv" + secrets.token_hex(6)  # 15 chars: fits in /proc/<pid>/comm


def project(tmp_path: Path, task: str, *, sandbox: str = "", **limits) -> dict:
    """Copy a shipped task into tmp_path/proj with the given [limits] (appended over the task's own)."""
    proj = tmp_path / "proj"
    dest = proj / "harness" / "tasks" / task
    shutil.copytree(ROOT / "harness" / "tasks" / task, dest)
    toml = dest / "task.toml"
    text = toml.read_text()
    head, _, rest = text.partition("[limits]")
    old = {}
    body_lines, tail = [], ""
    lines = rest.split("\n")
    for i, line in enumerate(lines):
        if line.startswith("["):
            tail = "\n".join(lines[i:])
            break
        if "=" in line:
            k, v = line.split("=", 1)
            old[k.strip()] = v.strip()
    old.update({k: json.dumps(v) for k, v in limits.items()})
    body_lines = [f"{k} = {v}" for k, v in old.items()]
    toml.write_text(head + "[limits]\n" + "\n".join(body_lines) + "\n\n" + tail)
    db = tmp_path / "runs.db"
    cfg = proj / "config.toml"
    cfg.write_text(f'[loop]\ndb = "{db}"\nk = 1\ntrials = 0\n\n[sandbox]\nuid = 65534\n{sandbox}')
    return {"proj": proj, "task": dest, "cfg": cfg, "db": db, "name": task}


def grade(p: dict, source: str, *extra) -> tuple[int, dict, float, str]:
    """`loop grade` in-process; returns (exit code, JSON, seconds, raw output)."""
    ext = ".cpp" if p["name"].endswith("_cpp") else ".py"
    path = p["proj"] / f"candidate_{secrets.token_hex(3)}{ext}"
    path.write_text(source)
    start = time.monotonic()
    result = CliRunner().invoke(cli, ["--config", str(p["cfg"]), "grade", p["name"], str(path), "--json", *extra],
                                catch_exceptions=False)
    took = time.monotonic() - start
    return result.exit_code, json.loads(result.output.strip().splitlines()[-1]), took, result.output


def checks(g: dict) -> list[str]:
    return [f["check"] for f in g["failures"]]


def _procs():
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
            if stat.rsplit(")", 1)[1].split()[0] == "Z":
                continue  # a zombie runs nothing
            comm = Path(f"/proc/{pid}/comm").read_text().strip()
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, IndexError):
            continue
        yield int(pid), comm, cmd


def survivors(marker: str, wait: float = 3.0) -> list:
    """Processes whose name or command line holds `marker`, after giving kills `wait` seconds to land."""
    deadline = time.monotonic() + wait
    while True:
        found = [p for p in _procs() if marker in p[1] or marker in p[2]]
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.1)


def tree_digest(*paths: Path) -> dict:
    out = {}
    for root in paths:
        files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
        for f in files:
            out[str(f)] = hashlib.sha256(f.read_bytes()).hexdigest()
    return out


def db_bytes(db: Path) -> bytes:
    return b"".join(p.read_bytes() for p in db.parent.glob(db.name + "*") if p.is_file())


def world_dir(prefix: str) -> Path:
    """A host folder the sandbox uid could read if it could see it (so 'not visible' is what stops it)."""
    import tempfile

    d = Path(tempfile.mkdtemp(prefix=prefix))
    os.chmod(d, 0o755)
    return d
