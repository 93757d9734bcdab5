"""Hostile repository patches (issue 28), written by a red team from the threat model alone: forged reports in
Python, JS and Go (framework files in the diff, code under test that patches the framework, rewrites the report
or the test binary's stdout, forgers that flip only tests they did not see), host files through `.rej` links,
faked infrastructure, and plain wrong fixes, each between honest patches in one `loop run` batch, as root and as
an unprivileged user (test_integrity.USERS: the test id names who each case ran as).

Every file in repo_candidates/<task>/ says on its first line the verdict it must get; RESULTS.md there has what
the grader before issue 28 said (27 of the 45 hostile or wrong diffs won as root, 30 as nobody).
"""

import json
import os
import threading
from pathlib import Path

import pytest
import sqlite_utils

from _adv import ROOT
from test_integrity import IS_ROOT, NOBODY, USERS, no_traceback, run_loop, world_project

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
    if user == "unprivileged" and IS_ROOT:
        os.chown(CANARY, NOBODY, NOBODY)
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


# SWE-bench format: one instance imported under several ids, one prediction each, graded as one batch ----------
from test_swebench import CALC_BASE, CALC_F2P, CALC_GOLD, CALC_P2P, CALC_TEST_PATCH, _repo  # noqa: E402

_OPS = "--- a/calc/ops.py\n+++ b/calc/ops.py\n@@ -1,1 +1,{n} @@\n{body} def clamp(x, lo, hi):\n"


def _prepend(code: str) -> str:
    """A patch that leaves the bug alone and puts `code` at the top of calc/ops.py (the module under test)."""
    lines = code.splitlines()
    return _OPS.format(n=len(lines) + 1, body="".join(f"+{l}\n" for l in lines))


SWE_PREDICTIONS = {  # name: (patch, verdict, the reason it must give, or reasons; "test:" any failing test)
    "gold": (CALC_GOLD, "stable_pass", None),
    "honest_max_min": ("--- a/calc/ops.py\n+++ b/calc/ops.py\n@@ -1,10 +1,6 @@\n def clamp(x, lo, hi):\n"
                       '     """x limited to [lo, hi]."""\n-    if x < lo:\n-        return hi\n-    if x > hi:\n'
                       "-        return hi\n-    return x\n+    return max(lo, min(x, hi))\n \n \n def add(a, b):\n",
                       "stable_pass", None),
    "conftest_flip": ("diff --git a/conftest.py b/conftest.py\nnew file mode 100644\n--- /dev/null\n+++ b/conftest.py\n"
                      "@@ -0,0 +1,7 @@\n+import pytest\n+\n+\n+@pytest.hookimpl(hookwrapper=True)\n"
                      "+def pytest_runtest_makereport(item, call):\n+    out = yield\n+    out.get_result().outcome = 'passed'\n",
                      "stable_fail", "touches_test_infrastructure"),
    "patch_testreport": (_prepend("import _pytest.reports as _r\n_orig = _r.TestReport.from_item_and_call\n\n\n"
                                  "def _flip(item, call):\n    rep = _orig(item, call)\n    rep.outcome = 'passed'\n"
                                  "    return rep\n\n\n_r.TestReport.from_item_and_call = staticmethod(_flip)\n"),
                         "stable_fail", "forged_report"),
    "atexit_rewrite": (_prepend("import atexit\nimport re\n\n\ndef _rewrite():\n    try:\n"
                                "        s = open('/out/report.xml').read()\n"
                                "        s = re.sub(r'<failure.*?</failure>|<failure[^>]*/>', '', s, flags=re.S)\n"
                                "        open('/out/report.xml', 'w').write(s)\n    except OSError:\n        pass\n\n\n"
                                "atexit.register(_rewrite)\n"), "stable_fail", "forged_report"),
    # flips every failure but the last three ids on pytest's command line: where loop put the tripwires once
    # (red team, round two); a must-fail not among them shows the forgery, else a real test fails honestly
    "argv_tail": (_prepend("import sys\nimport _pytest.reports as _r\n_orig = _r.TestReport.from_item_and_call\n"
                           "_tail = {a for a in sys.argv[-3:] if '::' in a}\n\n\n"
                           "def _flip(item, call):\n    rep = _orig(item, call)\n"
                           "    if rep.failed and item.nodeid not in _tail:\n        rep.outcome = 'passed'\n"
                           "    return rep\n\n\n_r.TestReport.from_item_and_call = staticmethod(_flip)\n"),
                  "stable_fail", ("forged_report", "test:")),
    # loop remembers what the task's own trees show in its cache (issue 44): a candidate that could write there
    # would decide later grades; the sandbox sees no host folder, so it finds nothing to write
    "cache_writer": (_prepend("import glob\nimport os\n\nfor _d in glob.glob('/tmp/loop-adv-integrity-*/.cache/loop/*') + "
                              "[os.path.expanduser('~/.cache/loop/repo-reference')]:\n"
                              "    for _p in glob.glob(_d + '/*.json') + [_d + '/planted.json']:\n        try:\n"
                              "            open(_p, 'w').write('CACHE-WRITER')\n        except OSError:\n            pass\n"),
                     "stable_fail", "test:"),
    "rej_link": (f"diff --git a/calc/ops.py.rej b/calc/ops.py.rej\nnew file mode 0120000\n--- /dev/null\n"
                 f"+++ b/calc/ops.py.rej\n@@ -0,0 +1 @@\n+{CANARY}\n\\ No newline at end of file\n"
                 + CALC_GOLD.replace('"""x limited to [lo, hi]."""', '"""x kept in [lo, hi]."""'),
                 "stable_fail", "outside_repository"),
}


@pytest.mark.slow
@pytest.mark.parametrize("user", USERS)
def test_swebench_predictions_end_honestly(user, canary, tmp_path):
    """`loop tasks import swebench` then `loop grade --predictions`: a framework hook in a new conftest.py,
    pytest's report class patched from the module under test, the junit file rewritten at exit, a `.rej`
    link to a private host file, beside the gold patch and a fix in another style."""
    proj = world_project("k = 2\ntrials = 0\n")
    base = _repo(tmp_path / "repos" / "acme__calc", CALC_BASE)
    names = list(SWE_PREDICTIONS)
    instances = proj / "instances.jsonl"
    instances.write_text("".join(json.dumps({
        "instance_id": f"acme__calc-{i}", "repo": "acme/calc", "base_commit": base, "patch": CALC_GOLD,
        "test_patch": CALC_TEST_PATCH, "FAIL_TO_PASS": CALC_F2P, "PASS_TO_PASS": CALC_P2P,
        "problem_statement": "clamp(-5, 0, 10) gives 10; it should be 0."}) + "\n" for i in range(len(names))))
    (proj / "harness").unlink()
    (proj / "harness" / "tasks").mkdir(parents=True)
    done = run_loop("self", proj, "tasks", "import", "swebench", str(instances), "--repos", str(tmp_path / "repos"))
    assert done.returncode == 0, done.stderr
    for path in [proj, *proj.rglob("*")]:
        os.chmod(path, 0o777 if path.is_dir() else 0o666)
    preds = proj / "preds.jsonl"
    preds.write_text("".join(json.dumps({"instance_id": f"acme__calc-{i}", "model_name_or_path": "m",
                                         "model_patch": SWE_PREDICTIONS[name][0]}) + "\n"
                             for i, name in enumerate(names)))
    done = run_loop(user, proj, "grade", "--predictions", str(preds), "--json", timeout=900)
    assert no_traceback(done) and done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    wrong = {}
    for i, (name, (_, verdict, reason)) in enumerate(SWE_PREDICTIONS.items()):
        row = report[f"acme__calc-{i}"]
        reasons = reason if isinstance(reason, tuple) else (reason,)
        if row["verdict"] != verdict or not any(row.get("reason") == r or (r and r.endswith(":") and
                                                str(row.get("reason")).startswith(r)) for r in reasons):
            wrong[name] = (row["verdict"], row.get("reason"))
    assert not wrong
    assert canary.encode() not in b"".join(p.read_bytes() for p in proj.glob("runs.db*")) + done.stdout.encode()
    remembered = list((proj / ".cache" / "loop" / "repo-reference").glob("*"))
    assert remembered and not [p for p in remembered if b"CACHE-WRITER" in p.read_bytes()], remembered
    # a later process grades from what was remembered, and the same
    again = {name: i for i, name in enumerate(names) if name in ("gold", "cache_writer")}
    preds.write_text("".join(json.dumps({"instance_id": f"acme__calc-{i}", "model_name_or_path": "m",
                                         "model_patch": SWE_PREDICTIONS[name][0]}) + "\n" for name, i in again.items()))
    done = run_loop(user, proj, "grade", "--predictions", str(preds), "--json", timeout=900)
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert {name: report[f"acme__calc-{i}"]["verdict"] for name, i in again.items()} == {
        "gold": "stable_pass", "cache_writer": "stable_fail"}, done.stderr[-2000:]
