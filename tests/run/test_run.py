"""Issue 6: the batch loop end to end — the demo cassette, resume after kill -9, concurrent writers, reports."""

import json
import os
import signal
import subprocess
import sys
import time
from html.parser import HTMLParser

import pytest
import sqlite_utils
from loop.ask.endpoint import RATE_LIMIT_ATTEMPTS

from conftest import EXAMPLES, ROOT, ChatServer

LOOP = [sys.executable, "-m", "loop"]
CODE = (EXAMPLES / "merge_intervals_py" / "correct_repair.py").read_text()


@pytest.mark.sandbox
def test_demo_cassette_covers_every_outcome(loop_cli, db):
    code, out = loop_cli("run", "--db", db, "--json")
    assert code == 0, out
    result = json.loads(out.strip().splitlines()[-1])
    # the three repo tasks add 7 samples each: their gold patch 3 times, the other two patches twice each;
    # dedupe_words_cpp adds 7: its correct repair 4 times, the lower-casing one 3 times
    assert result["verdicts"] == {"stable_pass": 7 + 9 + 4, "stable_pass_varying": 1, "flaky": 1,
                                  "stable_fail": 11 + 12 + 3, "infra_unknown": 1}
    d = sqlite_utils.Database(db)
    rows = list(d["candidates"].rows_where("batch_id = ?", [result["batch_id"]]))
    assert len(rows) == 21 + 21 + 7
    reasons = {r["reason"] for r in rows if r["verdict"] == "stable_fail"}
    assert {"no_code", "build", "test:unsorted_touching_chain", "test:separated_ranges_stay_ascending",
            "test:unsorted_overlap", "relation:casefold_distinct"} <= reasons
    storm = [r for r in rows if r["verdict"] == "infra_unknown"]
    assert storm[0]["status"] == "infra_unknown" and storm[0]["reason"] == "rate_limited"
    statuses = [r["status_code"] for r in d["requests"].rows_where("candidate_id = ?", [storm[0]["id"]])]
    assert statuses == [429] * RATE_LIMIT_ATTEMPTS  # refused every time while other requests got through
    # Identical sources are graded once; every duplicate carries the verdict and points at the graded one.
    dups = [r for r in rows if r["duplicate_of"]]
    assert len(dups) >= 5
    for r in dups:
        original = d["candidates"].get(r["duplicate_of"])
        assert original["source_sha256"] == r["source_sha256"] and original["verdict"] == r["verdict"]
        assert d["attempts"].count_where("candidate_id = ?", [r["id"]]) == 0
    graded = {r["source_sha256"] for r in rows if r["source_sha256"] and not r["duplicate_of"]}
    assert len(graded) == len({r["source_sha256"] for r in rows if r["source_sha256"]})
    rate = result["batch"]
    assert rate["decided"] == 48 and rate["passed"] == 21 and rate["coverage"] == pytest.approx(48 / 49)



@pytest.mark.sandbox
def test_k1_without_relations_grades_python_on_fork_servers(loop_cli, db, monkeypatch):
    """`loop run --k 1 --trials 0`: Python candidates go to fork servers and get exactly the verdict, reason
    and checks (transitions included) that `grade` gives them with k=1 and no relations; C++ does not."""
    from loop import tasks
    from loop.kinds.function.fork import ForkPool
    from loop.grading.model import Options
    from loop.kinds import grade
    from loop.sandbox import SandboxConfig

    submitted = []
    submit = ForkPool.submit
    monkeypatch.setattr(ForkPool, "submit", lambda self, task, *a: submitted.append(task.name) or submit(self, task, *a))
    code, out = loop_cli("run", "--db", db, "--json", "--k", "1", "--trials", "0")
    assert code == 0, out
    d = sqlite_utils.Database(db)
    batch = d["batches"].get(json.loads(out.strip().splitlines()[-1])["batch_id"])
    assert (batch["k"], batch["trials"]) == (1, 0)
    rows = [r for r in d["candidates"].rows_where("batch_id = ? and duplicate_of is null and verdict != ?",
                                                  [batch["id"], "infra_unknown"])]
    kinds = {r["task"]: (t.kind, t.language) for r in rows for t in [tasks.load(ROOT, r["task"])]}
    python = [r for r in rows if kinds[r["task"]] == ("function", "python")]  # repo tasks grade on the pool
    assert sorted(submitted) == sorted(r["task"] for r in python) and len(python) >= 8
    for r in python:
        slow = grade(tasks.load(ROOT, r["task"]), r["source"], SandboxConfig(enabled=True),
                     Options(suite=r["suite"], seed=r["seed"], trials=0, k=1))
        assert (r["verdict"], r["reason"]) == (slow.verdict, slow.failures()[0]["check"] if slow.failures() else None)
        stored = [(c["check"], c["passed"], c["transition"])
                  for c in d["checks"].rows_where("candidate_id = ? and repeat is null", [r["id"]], order_by="id")]
        assert stored == [(c.check, int(c.passed), c.transition) for c in slow.checks], r["task"]
    assert {r["verdict"] for r in python} >= {"stable_pass", "stable_fail"}

def _insert(db, verdicts, seed=7):
    from loop.store.db import RunStore

    with RunStore(db) as store:
        b = store.start_batch("run", seed=seed, model="m")
        for i, v in enumerate(verdicts):
            cid = store.add_candidate(b, "t", i, source=f"s{i}")
            store.update_candidate(cid, verdict=v, status="graded")
    return b


def test_report_figures_match_hand_computation(loop_cli, db):
    batch = _insert(db, ["stable_pass", "stable_pass_varying", "stable_pass", "stable_fail", "infra_unknown",
                         "inconclusive"])
    code, out = loop_cli("report", "--db", db, "--format", "json", "--pass-k", "2")
    (row,) = json.loads(out)["pass_rates"]
    # 3 passes of 4 decided; infra_unknown and inconclusive stay out of the denominator.
    assert row["candidates"] == 6 and row["decided"] == 4 and row["pass_rate"] == 0.75
    assert row["coverage"] == pytest.approx(4 / 6)
    assert row["wilson_low"] == pytest.approx(0.3006, abs=1e-4) and row["wilson_high"] == pytest.approx(0.9544, abs=1e-4)
    assert row["pass@1"] == 0.75
    assert row["pass@k"] == 1.0  # n - c = 1 < k = 2: every 2-subset holds a pass
    same = list(sqlite_utils.Database(db).query("select * from pass_rates where batch_id = ?", [batch]))[0]
    assert same["wilson_low"] == pytest.approx(row["wilson_low"]) and same["decided"] == 4
    code, out = loop_cli("report", "--db", db, "--format", "csv")
    assert out.splitlines()[0].startswith("batch_id,task,model,seed,candidates,decided")


def test_pass_at_k_estimator():
    from loop.report.stats import pass_at_k

    assert pass_at_k(6, 2, 2) == pytest.approx(1 - 6 / 15)
    assert pass_at_k(10, 0, 5) == 0.0 and pass_at_k(3, 1, 5) is None and pass_at_k(5, 1, 5) == 1.0


class _Tables(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.classes, self.text = [], [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.classes += [v for k, v in attrs if k == "class"]

    def handle_data(self, data):
        self.text.append(data)


@pytest.mark.sandbox
def test_html_report_holds_the_transition_matrix(loop_cli, db, tmp_path):
    loop_cli("grade", "merge_intervals_py", EXAMPLES / "merge_intervals_py" / "descending_order.py", "--db", db,
             "--k", "1")
    out = tmp_path / "report.html"
    code, _ = loop_cli("report", "--db", db, "--format", "html", "-o", out)
    text = out.read_text()
    parser = _Tables()
    parser.feed(text)
    assert "script" not in parser.tags and "http://" not in text.replace("http://www.w3.org/2000/svg", "")
    assert "svg" in parser.tags and "regressed" in parser.classes and "repaired" in parser.classes
    assert "separated_ranges_stay_ascending" in "".join(parser.text)
    assert "relation:output_contract" in "".join(parser.text)


@pytest.mark.sandbox
def test_bad_config_unknown_task_and_cassettes_exit_2_nothing_written(loop_cli, db, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[loop]\nk = 'five'\n")
    code, out = loop_cli("--config", bad, "run", "--db", db)
    assert code == 2 and "bad.toml: key 'loop.k' must be int" in out
    bad.write_text("[loop]\nbogus = 1\n")
    code, out = loop_cli("--config", bad, "run", "--db", db)
    assert code == 2 and "unknown key 'bogus' in [loop]" in out
    code, out = loop_cli("run", "--task", "nope", "--db", db)
    assert code == 2 and "unknown task 'nope'" in out
    code, out = loop_cli("run", "--replay", tmp_path / "missing.jsonl", "--db", db)
    assert code == 2 and "missing.jsonl" in out
    bad_cassette = tmp_path / "bad.jsonl"
    bad_cassette.write_text("not json\n")
    code, out = loop_cli("run", "--replay", bad_cassette, "--db", db)
    assert code == 2 and f"{bad_cassette}:1" in out
    assert not db.exists()  # refused before runs.db was opened
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"request": {"method": "POST", "url": "/chat/completions", "body": {"model": "x"}},
                                 "status": 200, "headers": {}, "body": "{}"}) + "\n")
    code, out = loop_cli("run", "--replay", other, "--task", "dedupe_words_py", "--db", db)
    assert code == 2 and "has no answer" in out and len(out.strip().splitlines()) == 1
    other.write_text("not json\n")
    code, out = loop_cli("run", "--replay", other, "--db", db)
    assert code == 2 and f"{other}:1" in out
    if db.exists():
        d = sqlite_utils.Database(db)
        assert d["batches"].count == 0 and d["candidates"].count == 0


REPAIR = EXAMPLES / "merge_intervals_py" / "correct_repair.py"


@pytest.mark.parametrize("args,message", [
    (["run", "--task", "no_such_task"], "unknown task 'no_such_task'"),
    (["generate", "--task", "no_such_task"], "unknown task 'no_such_task'"),
    pytest.param(["run", "--task", "merge_intervals_py", "--replay", "missing.jsonl"], "missing.jsonl",
                 marks=pytest.mark.sandbox),  # the task's polarity is checked (sandboxed) before the cassette is read
    (["run", "--resume", "7"], "runs.db: no batch 7"),
    (["grade", "--batch", "7"], "runs.db: no batch 7"),
    (["replay", "7"], "runs.db: no candidate 7"),
    (["run", "--k", "0"], "'--k': 0 is not in the range"),
    (["grade", "no_such_task", REPAIR], "unknown task 'no_such_task'"),
    (["grade", "merge_intervals_py", REPAIR, "--suite", "bogus"], "'bogus' is not one of"),
    (["grade", "merge_intervals_py", REPAIR, "--k", "0"], "'--k': 0 is not in the range"),
], ids=["run-task", "generate-task", "run-cassette", "run-resume", "grade-batch", "replay", "run-k", "grade-task",
        "grade-suite", "grade-k"])
def test_refused_input_creates_no_database(loop_cli, tmp_path, args, message):
    """A refused command says so in one line naming what it refused, exits 2 and creates no runs.db (a batch to
    resume or a candidate to replay is looked for in a database that exists, never in a new empty one)."""
    db = tmp_path / "runs.db"
    code, out = loop_cli(*[tmp_path / a if a == "missing.jsonl" else a for a in args], "--db", db)
    errors = [line for line in out.splitlines() if line.lower().startswith("error:")]
    assert code == 2 and len(errors) == 1 and message in errors[0], out
    if not out.startswith("Usage:"):  # click's own refusals come with its usage lines
        assert len(out.strip().splitlines()) == 1, out
    assert list(tmp_path.glob("runs.db*")) == []


class SlowServer(ChatServer):
    """Answers every request after `delay` seconds with a distinct correct repair."""

    def __init__(self, delay: float):
        def respond(body):
            n = self.hits
            time.sleep(delay)
            return 200, {"choices": [{"index": 0, "message": {"role": "assistant",
                                                              "content": f"```python\n{CODE}```\n# sample {n}"}}],
                         "usage": {"prompt_tokens": 1, "completion_tokens": 1}}, {}

        super().__init__(respond)


SANDBOX_UID = 3_000_000  # this test's sandboxes, told apart from other tests' by their uid range


def _sandbox_procs() -> list[int]:
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                live = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] != "Z"  # zombies hold nothing
                if live and SANDBOX_UID <= os.stat(f"/proc/{pid}").st_uid < SANDBOX_UID + 8192:
                    found.append(int(pid))
            except OSError:
                pass
    return found


@pytest.mark.slow
def test_resume_after_kill_9(tmp_path):
    server = SlowServer(0.25)
    db = tmp_path / "runs.db"
    cfg = tmp_path / "config.toml"
    cfg.write_text(f'[loop]\ndb = "{db}"\nk = 2\ntrials = 30\n[endpoint]\nmax_concurrency = 1\n'
                   f'[sandbox]\nuid = {SANDBOX_UID}\n')
    (tmp_path / "harness").symlink_to(ROOT / "harness")
    args = [*LOOP, "--config", str(cfg), "run", "--task", "merge_intervals_py", "--samples", "8",
            "--base-url", server.url, "--model", "m", "--concurrency", "1"]
    proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.time() + 60
    while time.time() < deadline:
        time.sleep(0.1)
        if db.exists():
            try:
                got = sqlite_utils.Database(db).execute(
                    "select count(*) from candidates where status != 'pending'").fetchone()[0]
            except Exception:
                continue
            if got >= 3:
                break
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    gone = time.time() + 5
    while _sandbox_procs() and time.time() < gone:
        time.sleep(0.1)
    assert _sandbox_procs() == []  # no orphaned sandbox outlives the killed run
    d = sqlite_utils.Database(db)
    batch = d.execute("select id from batches").fetchone()[0]
    received = {r["sample"]: r["reply"] for r in d["candidates"].rows_where("status != 'pending'")}
    pending = d["candidates"].count_where("status = 'pending'")
    assert received and pending, "the kill should land mid-batch"
    hits_before = server.hits
    done = subprocess.run([*LOOP, "--config", str(cfg), "run", "--resume", str(batch), "--base-url", server.url,
                           "--json"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert server.hits - hits_before == pending  # nothing received was asked for again
    rows = list(d["candidates"].rows_where("batch_id = ?", [batch], order_by="sample"))
    assert [r["sample"] for r in rows] == list(range(8))
    assert all(r["verdict"] == "stable_pass" for r in rows)
    for sample, reply in received.items():
        assert rows[sample]["reply"] == reply
    per_candidate = d.execute("select candidate_id, count(*) from attempts group by candidate_id").fetchall()
    assert all(n == 2 for _, n in per_candidate)
    assert d.execute("pragma integrity_check").fetchone()[0] == "ok"
    assert d["batches"].get(batch)["status"] == "done"
    server.httpd.shutdown()


@pytest.mark.slow
def test_two_writers_at_once(tmp_path):
    db = tmp_path / "runs.db"
    procs = [subprocess.Popen([*LOOP, "grade", "merge_intervals_py", str(EXAMPLES / "merge_intervals_py" / name),
                               "--db", str(db), "--k", "2", "--trials", "50"], cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for name in ("correct_repair.py", "descending_order.py", "example_only.py")]
    codes = [p.wait(timeout=120) for p in procs]
    assert codes == [0, 1, 1], [p.communicate() for p in procs]
    d = sqlite_utils.Database(db)
    assert d["candidates"].count == 3 and d["attempts"].count == 6
    assert d.execute("pragma integrity_check").fetchone()[0] == "ok"



WRITER = """
import sys
from loop.store.db import RunStore
with RunStore(sys.argv[1]) as store:
    b = store.start_batch("grade", seed=1)
    store.add_candidate(b, "t", 0, source=sys.argv[2])
    store.finish_batch(b)
"""


@pytest.mark.slow
def test_writers_racing_on_a_new_database_lose_nothing(tmp_path):
    """Processes that create and write one runs.db at the same moment all succeed, with every row kept
    (deferred transactions used to fail at once with "database is locked" under WAL)."""
    for round_ in range(5):
        db = tmp_path / f"runs{round_}.db"
        procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(db), f"w{i}"], cwd=ROOT,
                                  stderr=subprocess.PIPE, text=True) for i in range(4)]
        errors = [p.communicate(timeout=120)[1] for p in procs]
        assert [p.returncode for p in procs] == [0] * 4, errors
        rows = sqlite_utils.Database(db)["candidates"].rows
        assert sorted(r["source"] for r in rows) == [f"w{i}" for i in range(4)]

def test_grade_batch_refuses_flags_it_would_ignore(loop_cli, db):
    for flag in (["--k", "1"], ["--trials", "0"], ["--no-sandbox"]):
        code, out = loop_cli("grade", "--batch", "1", *flag, "--db", db)
        assert code == 2 and f"{flag[0]} cannot be combined with --batch" in out
    assert not os.path.exists(db)
