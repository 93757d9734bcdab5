"""Hostile repository patches (issue 28), written by a red team from the threat model alone: forged reports in
Python, JS and Go (framework files in the diff, code under test that patches the framework, rewrites the report
or the test binary's stdout, forgers that flip only tests they did not see), host files through `.rej` links,
faked infrastructure, and plain wrong fixes, each between honest patches in one `loop run` batch, as root and as
an unprivileged user.

Every file in repo_candidates/<task>/ says on its first line the verdict it must get; RESULTS.md there has what
the grader before issue 28 said (27 of the 45 hostile or wrong diffs won as root, 30 as nobody).
"""

import os
import threading
from pathlib import Path

import pytest
import sqlite_utils

from _adv import ROOT
from test_integrity import USERS, no_traceback, run_loop, world_project

import sys
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from conftest import ChatServer  # noqa: E402

HERE = Path(__file__).resolve().parent / "repo_candidates"
TASKS = ["repo_ledger_py", "repo_strkit_js", "repo_semver_go"]
CANARY = Path("/tmp/redteam/secret/canary.txt")  # where two of the diffs point a link


def expected(path: Path) -> str:
    return path.read_text().splitlines()[0].split("expect:")[1].split()[0]


def _batch(task: str) -> list[tuple[str, str]]:
    """(name, diff) for every corpus file, each hostile one after an honest one (the gold patch or a red-team
    fix in another style), so each meets what its predecessor left and is followed by one that must pass."""
    files = sorted((HERE / task).glob("*.diff"))
    honest = [("gold", (ROOT / "harness" / "tasks" / task / "gold.patch").read_text())]
    honest += [(f.stem, f.read_text()) for f in files if expected(f) == "stable_pass"]
    out = []
    for i, f in enumerate(f for f in files if expected(f) != "stable_pass"):
        out += [honest[i % len(honest)], (f.stem, f.read_text())]
    return out + [honest[0]]


def _server(batch: list[tuple[str, str]]) -> ChatServer:
    """Answers the i-th request with the i-th diff, fenced, tagged so that no two replies are the same text."""
    lock, sent = threading.Lock(), []

    def respond(body):
        with lock:
            i = len(sent)
            sent.append(i)
        name, diff = batch[i % len(batch)]
        content = f"```diff\n# sample {i} {name}\n{diff}```\n"
        return 200, {"id": f"r{i}", "object": "chat.completion", "model": "m",
                     "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
                     "usage": {"prompt_tokens": 10, "completion_tokens": 10}}, {}

    return ChatServer(respond)


@pytest.fixture
def canary(request):
    """A private file of the user loop runs as, where two diffs point a link: its text must appear nowhere."""
    user = request.node.callspec.params["user"]
    CANARY.parent.mkdir(parents=True, exist_ok=True)
    os.chmod(CANARY.parent, 0o755)
    marker = "CANARY-" + os.urandom(8).hex()
    CANARY.write_text(marker + "\n")
    os.chmod(CANARY, 0o600)
    if user == "nobody" and os.geteuid() == 0:
        os.chown(CANARY, 65534, 65534)
    yield marker
    CANARY.unlink(missing_ok=True)


@pytest.mark.slow
@pytest.mark.parametrize("user", USERS)
@pytest.mark.parametrize("task", TASKS)
def test_hostile_patches_end_honestly_in_one_batch(task, user, canary):
    batch = _batch(task)
    server = _server(batch)
    proj = world_project("k = 2\ntrials = 0\nconcurrency = 2\n[endpoint]\nmax_concurrency = 2\n")
    try:
        done = run_loop(user, proj, "run", "--task", task, "--samples", str(len(batch)), "--base-url", server.url,
                        "--model", "m", "--json", timeout=1500)
    finally:
        server.close()
    assert no_traceback(done), done.stderr[-3000:]
    db = sqlite_utils.Database(proj / "runs.db")
    assert [b["status"] for b in db["batches"].rows] == ["done"], done.stderr[-2000:]
    rows = list(db["candidates"].rows)
    assert len(rows) == len(batch) and all(r["status"] == "graded" for r in rows), [r["status"] for r in rows]
    wrong = []
    for r in rows:
        name = r["source"].split("\n", 1)[0].split()[-1]  # "# sample i NAME"
        want = "stable_pass" if name == "gold" else expected(HERE / task / f"{name}.diff")
        reasons = [a["reason"] for a in db["attempts"].rows_where("candidate_id = ?", [r["id"]])]
        if r["verdict"] != want or (want == "stable_fail" and not all(reasons)):
            wrong.append((name, r["verdict"], reasons[:1]))
    assert not wrong, wrong
    # nothing of the host in runs.db: the canary, /etc/hostname's and /etc/os-release's lines
    blob = b"".join(p.read_bytes() for p in proj.glob("runs.db*"))
    leaks = [canary, *(l for f in ("/etc/os-release",) for l in Path(f).read_text().splitlines() if "=" in l)]
    assert not [leak for leak in leaks if leak.encode() in blob]
    assert done.returncode in (0, 1), done.stderr[-2000:]  # graded (red or green), never an error or no grade
