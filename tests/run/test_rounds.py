"""Issue 19: feedback rounds. A scripted endpoint on 127.0.0.1 answers round 2 differently once the feedback
is in the conversation; the batch runs through the real client, grader, sandbox and runs.db."""

from __future__ import annotations

import json
import os
import runpy
import shutil
import signal
import subprocess
import sys
import threading
import time

import pytest
import sqlite_utils

from conftest import EXAMPLES, ROOT, ChatServer
from loop import config, tasks
from loop.run import feedback
from loop.report import html as report_html, rounds as report_rounds, stats, tables as report
from loop.kinds.function.decide import show
from loop.grading.model import Options
from loop.kinds import grade
from loop.grading.model import Check, Grade
from loop.run.settings import sandbox_config

LOOP = [sys.executable, "-m", "loop"]
PY = EXAMPLES / "merge_intervals_py"
SOURCES = {
    "descending": (PY / "descending_order.py").read_text(),   # fails a relation: repaired in round 2
    "example_only": (PY / "example_only.py").read_text(),     # never repaired
    "flaky": (EXAMPLES / "demo" / "flaky.py").read_text(),    # flaky: gets no round
    "correct": (PY / "correct_repair.py").read_text(),
}
TASK = tasks.load(ROOT, "merge_intervals_py")


def _reply(label: str, source: str) -> str:
    return f"Attempt ({label}):\n\n```python\n{source.rstrip()}\n```\n"


def _answer(content: str, tokens: int) -> tuple[int, dict, dict]:
    return 200, {"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}],
                 "usage": {"prompt_tokens": tokens, "completion_tokens": 10 * tokens}}, {}


class RoundServer(ChatServer):
    """Round 1 (two messages): the n-th request gets FIRST[n] (descending, example_only, flaky, then a 500
    for every attempt: infra_unknown). Later rounds: the descending conversation is repaired once its
    feedback carries the minimal counterexample; any other conversation repeats its last reply.
    `hold` (an Event) keeps later-round requests waiting, to kill the batch in the middle of round 2."""

    FIRST = ["descending", "example_only", "flaky", None]

    def __init__(self, hold: threading.Event | None = None):
        self.lock, self.first = threading.Lock(), 0
        self.hold = hold

        def respond(body):
            messages = body["messages"]
            if len(messages) == 2:
                with self.lock:
                    label = self.FIRST[min(self.first, len(self.FIRST) - 1)]
                    self.first += label is not None
                if label is None:
                    return 500, {"error": {"message": "down"}}, {}
                return _answer(_reply(label, SOURCES[label]), 100)
            if self.hold is not None:
                self.hold.wait(120)
            last, said = messages[-2]["content"], messages[-1]["content"]
            if "(descending)" in messages[2]["content"] and "Minimal counterexample" in said:
                return _answer(_reply("correct", SOURCES["correct"]), 300)
            return _answer(last, 200 * (len(messages) // 2))

        super().__init__(respond)


def _config(tmp_path, rounds: int) -> tuple:
    db = tmp_path / "runs.db"
    cfg = tmp_path / "config.toml"
    cfg.write_text(f'[loop]\ndb = "{db}"\nk = 5\ntrials = 40\nrounds = {rounds}\nmin_coverage = 0.5\n'
                   '[endpoint]\nmax_attempts = 2\nmax_wait = 5.0\nmax_concurrency = 1\nadaptive = false\n')
    if not (tmp_path / "harness").exists():
        (tmp_path / "harness").symlink_to(ROOT / "harness")
    return db, cfg


def _run(cfg, *args, server) -> subprocess.CompletedProcess:
    return subprocess.run([*LOOP, "--config", str(cfg), "run", *args, "--base-url", server.url, "--json"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)


def _label(row: dict) -> str:
    first = row["reply"] or ""
    return first.split("(", 1)[1].split(")", 1)[0] if first.startswith("Attempt (") else "infra"


def _conversations(d) -> dict[str, list[dict]]:
    """Rows per conversation, keyed by the round-1 label, round 1 first."""
    rows = list(d["candidates"].rows_where(order_by="round, id"))
    by_sample: dict[int, list[dict]] = {}
    for r in rows:
        by_sample.setdefault(r["sample"], []).append(r)
    return {_label(chain[0]): chain for chain in by_sample.values()}


@pytest.fixture(scope="module")
def three_rounds(tmp_path_factory):
    """One batch, --rounds 3, four samples: descending, example_only, flaky and an infra failure."""
    tmp = tmp_path_factory.mktemp("rounds")
    db, cfg = _config(tmp, rounds=1)
    server = RoundServer()
    done = _run(cfg, "--task", "merge_intervals_py", "--samples", "4", "--model", "m", "--rounds", "3",
                server=server)
    server.close()
    assert done.returncode == 0, done.stderr
    return sqlite_utils.Database(db), server, json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_each_round_sends_the_whole_conversation(three_rounds):
    d, server, _ = three_rounds
    chains = _conversations(d)
    first = [b["messages"] for b in server.bodies if len(b["messages"]) == 2][0]
    assert [m["role"] for m in first] == ["system", "user"]
    for label in ("descending", "example_only"):
        chain = chains[label]
        for depth, row in enumerate(chain[1:], 1):
            sent = [b["messages"] for b in server.bodies if len(b["messages"]) == 2 + 2 * depth
                    and chain[0]["reply"] == b["messages"][2]["content"]]
            assert len(sent) == 1, (label, depth)  # one request per follow-up, never repeated
            expected = list(first)
            for parent, child in zip(chain[:depth], chain[1:depth + 1]):
                expected += [{"role": "assistant", "content": parent["reply"]},
                             {"role": "user", "content": child["feedback"]}]
            assert sent[0] == expected
    # The descending candidate's feedback: its relation, the shrunk input and its own output.
    fb = chains["descending"][1]["feedback"]
    assert "Relation `output_contract` does not hold" in fb and "Minimal counterexample (shrunk input):" in fb
    assert "output is not sorted" in fb and "test:separated_ranges_stay_ascending (test)" in fb
    assert chains["descending"][1]["evidence"] == "relation"


def test_rows_rounds_seeds_and_verdicts(three_rounds):
    d, _, summary = three_rounds
    chains = _conversations(d)
    assert [r["verdict"] for r in chains["descending"]] == ["stable_fail", "stable_pass"]
    assert [r["verdict"] for r in chains["example_only"]] == ["stable_fail"] * 3
    assert [r["verdict"] for r in chains["flaky"]] == ["flaky"]          # no round for flakiness
    assert [r["verdict"] for r in chains["infra"]] == ["infra_unknown"]  # nor for the endpoint's failure
    batch = d["batches"].get(1)
    for chain in chains.values():
        assert len({r["sample"] for r in chain}) == 1
        assert [r["round"] for r in chain] == list(range(1, len(chain) + 1))
        assert [r["parent_id"] for r in chain] == [None] + [r["id"] for r in chain[:-1]]
        for r in chain:
            if r["verdict"] != "infra_unknown":
                assert r["seed"] == feedback.round_seed(batch["seed"], r["round"])
                assert set(d.execute("select distinct seed from attempts where candidate_id = ?",
                                     [r["id"]]).fetchall()) == {(r["seed"],)}
    assert len({r["seed"] for r in chains["example_only"]}) == 3  # a fresh seed per round
    assert json.loads(batch["config"])["loop"]["rounds"] == 3
    assert summary["candidates"] == 4  # the batch's samples; follow-ups are counted per round


def test_per_round_rates_tokens_and_repairs(three_rounds):
    d, _, _ = three_rounds
    rows = report_rounds.round_rates(_path(d), batch=1)
    overall = [r for r in rows if r["task"] == "(all)"]
    assert [(r["round"], r["samples"], r["decided"], r["passed"], r["asked"]) for r in overall] == [
        (1, 4, 3, 0, 4), (2, 4, 3, 1, 2), (3, 4, 3, 1, 1)]
    low, high = stats.wilson(1, 3)
    assert overall[1]["wilson_low"] == pytest.approx(low, abs=1e-4)
    assert overall[1]["wilson_high"] == pytest.approx(high, abs=1e-4)
    assert overall[0]["pass_rate"] == 0 and overall[1]["pass_rate"] == pytest.approx(1 / 3)
    # tokens the server reported, per round: 100 a request in round 1 (3 answered), 300 + 400 in round 2, 600 in 3
    assert [r["prompt_tokens"] for r in overall] == [300, 700, 600]
    assert [r["completion_tokens"] for r in overall] == [3000, 7000, 6000]
    by_round = dict(d.execute("select round, sum(prompt_tokens) from requests group by round").fetchall())
    assert by_round == {1: 300, 2: 700, 3: 600}
    repairs = {(r["round"], r["evidence"]): (r["follow_ups"], r["repaired"])
               for r in d.query("select * from round_repairs")}
    assert repairs[(2, "relation")] == (2, 1)
    assert sum(n for n, _ in repairs.values()) == 3 and sum(k for _, k in repairs.values()) == 1
    # pass_rates keeps meaning the first answers
    first = d.execute("select candidates, decided, passed from pass_rates").fetchone()
    assert first == (4, 3, 0)


def _path(d) -> str:
    return d.execute("pragma database_list").fetchone()[2]


def test_report_formats_show_the_curve(three_rounds, tmp_path):
    d, _, _ = three_rounds
    db = _path(d)
    table = report.render_report(db, "table", batch=1)
    assert "Feedback rounds" in table and "0.33 [0.06, 0.79]" in table
    data = json.loads(report.render_report(db, "json", batch=1))
    assert [r["passed"] for r in data["rounds"]["rates"] if r["task"] == "(all)"] == [0, 1, 1]
    assert any(r["evidence"] == "relation" and r["round"] == 2 and r["repaired"] == 1
               for r in data["rounds"]["repairs"])
    csv = report.render_report(db, "csv", batch=1)
    assert "round,samples,asked,decided,passed" in csv.replace("batch_id,task,", "")
    # the summary printed after the batch reads the curve only for a batch that sent follow-ups
    summary = report.batch_summary(db, 1, 4, {})
    assert [r["passed"] for r in summary["rounds"] if r["task"] == "(all)"] == [0, 1, 1]
    first = tmp_path / "first-answers.db"  # the same batch without its follow-ups
    shutil.copyfile(db, first)
    sqlite_utils.Database(first).execute("delete from candidates where round > 1").connection.commit()
    assert "rounds" not in report.batch_summary(first, 1, 4, {})
    page = report_html.render(db, batch=1)
    svg = page[page.index("<svg", page.index("Feedback rounds")):]
    svg = svg[:svg.index("</svg>")]
    assert "<polyline" in svg and ">round<" in svg and ">pass rate<" in svg and "legend" in svg
    assert "<script" not in page


def _hidden_strings(task, minimal_inputs) -> list[str]:
    """Every hidden value of the task (goldens, non-example tests) and the reference's output on each
    shown counterexample, as compact JSON; values under 5 characters ("[]") tell nothing."""
    values = []
    for g in task.goldens:
        values += [g.expected, g.args[0]]
    values += [t.expected for t in task.tests if t.name != task.example]
    ref = runpy.run_path(str(task.path / "reference.py"))[task.entry_point]
    values += [ref(json.loads(json.dumps(x))) for x in minimal_inputs]
    return [s for s in {show(v).replace(" ", "") for v in values} if len(s) >= 5]


def test_nothing_hidden_leaks_into_feedback(three_rounds):
    d, _, _ = three_rounds
    for r in d["candidates"].rows_where("feedback is not null"):
        parent = r["parent_id"]
        minimal = [json.loads(m) for (m,) in d.execute(
            "select minimal from checks where candidate_id = ? and minimal is not null", [parent])]
        flat = r["feedback"].replace(" ", "").replace("\n", "")
        shown = {show(m).replace(" ", "") for m in minimal}  # the counterexample itself is shown by design
        leaks = [s for s in _hidden_strings(TASK, minimal) if s in flat and s not in shown]
        assert leaks == [], (r["feedback"], leaks)
        assert "expected" not in r["feedback"].split("Minimal counterexample")[-1]  # no reference answer


HOSTILE = '''
SEEN = []

def merge_intervals(intervals):
    """Hostile: remembers every input it is called with and returns them all on the demonstrated example."""
    SEEN.append([list(iv) for iv in intervals])
    if intervals == [[1, 3], [3, 5]]:
        return SEEN
    return sorted(intervals)[::-1]
'''


@pytest.mark.sandbox
def test_a_candidate_cannot_smuggle_hidden_inputs_through_its_output():
    """Goldens run before the named tests: a candidate that echoes what it saw on the example test would put
    golden inputs into the feedback, so that text is withheld whole."""
    sandbox = sandbox_config(config.load(ROOT / "config.toml"))
    g = grade(TASK, HOSTILE, sandbox, Options(seed=1, k=1, trials=20))
    assert g.verdict == "stable_fail"
    example = next(c for c in g.checks if c.check == "test:touching_pair")
    assert show(TASK.goldens[0].args[0]).replace(" ", "") in show(example.actual).replace(" ", "")  # it did echo
    fb = feedback.render(TASK, g, 1)
    assert feedback.WITHHELD in fb.text and fb.evidence in ("relation", "example_test")
    flat = fb.text.replace(" ", "").replace("\n", "")
    assert [s for s in _hidden_strings(TASK, []) if s in flat] == []


@pytest.mark.slow
def test_resume_in_the_middle_of_round_two(tmp_path):
    """kill -9 while round 2's request is in flight; --resume asks only for the follow-ups still pending."""
    db, cfg = _config(tmp_path, rounds=2)
    hold = threading.Event()
    server = RoundServer(hold=hold)
    proc = subprocess.Popen([*LOOP, "--config", str(cfg), "run", "--task", "merge_intervals_py", "--samples", "3",
                             "--base-url", server.url, "--model", "m"], cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.time() + 180
    while time.time() < deadline:  # both follow-ups stored, one of them asked (and held by the server)
        time.sleep(0.1)
        if any(len(b["messages"]) == 4 for b in server.bodies) and db.exists():
            try:
                if sqlite_utils.Database(db).execute("select count(*) from candidates where round = 2").fetchone()[0] == 2:
                    break
            except Exception:  # noqa: BLE001 - the database is being written; look again
                continue
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    hold.set()
    d = sqlite_utils.Database(db)
    pending = list(d["candidates"].rows_where("status = 'pending'"))
    assert pending and all(r["round"] == 2 and r["feedback"] for r in pending), "the kill should land in round 2"
    before = [b for b in server.bodies]
    status = d["batches"].get(1)["status"]
    refused = subprocess.run([*LOOP, "--config", str(cfg), "run", "--resume", "1", "--rounds", "3"], cwd=ROOT,
                             capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2 and "started with --rounds 2" in refused.stderr
    assert d["batches"].get(1)["status"] == status and d["candidates"].count_where("status = 'pending'") == len(pending)
    resumed = RoundServer()
    done = subprocess.run([*LOOP, "--config", str(cfg), "run", "--resume", "1", "--base-url", resumed.url, "--json"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert len(resumed.bodies) == len(pending)  # round 1 is not asked again
    assert all(len(b["messages"]) == 4 for b in resumed.bodies)
    # the resumed request is the very conversation the killed run sent
    killed = [b for b in before if len(b["messages"]) == 4]
    assert [b["messages"] for b in resumed.bodies if b["messages"][2] == killed[0]["messages"][2]] == [killed[0]["messages"]]
    keys = d.execute("select task, sample, round, count(*) from candidates group by task, sample, round").fetchall()
    assert all(n == 1 for *_, n in keys)
    assert d.execute("select count(*) from candidates where round = 2").fetchone()[0] == 2
    assert d["candidates"].count_where("verdict is null") == 0
    chains = _conversations(d)
    assert [r["verdict"] for r in chains["descending"]] == ["stable_fail", "stable_pass"]
    assert all(n == 5 for (n,) in d.execute("select count(*) from attempts group by candidate_id"))
    assert d["batches"].get(1)["status"] == "done"
    server.close()
    resumed.close()


def test_bad_rounds_are_refused_before_anything_runs(loop_cli, tmp_path):
    db = tmp_path / "runs.db"
    for value, says in (("0", "'loop.rounds' must be at least 1"), ('"two"', "'loop.rounds' must be int")):
        cfg = tmp_path / "bad.toml"
        cfg.write_text(f'[loop]\ndb = "{db}"\nrounds = {value}\n')
        code, out = loop_cli("run", config=cfg)
        assert code == 2 and says in out, out
    code, out = loop_cli("run", "--rounds", "0", "--db", db)
    assert code == 2 and "--rounds" in out
    code, out = loop_cli("run", "--mode", "synthesize", "--rounds", "2", "--db", db)  # suites get no follow-ups
    assert code == 2 and "--rounds applies to repair batches" in out, out
    assert not db.exists()


@pytest.mark.slow
def test_demo_cassette_rounds(tmp_path, monkeypatch, loop_cli):
    """`make run` (--rounds 2): the first answers keep today's verdicts (tests/data/demo_batch.json); the
    descending-order patch passes after its shrunk counterexample, the example-only patch never does."""
    db = tmp_path / "runs.db"
    monkeypatch.setenv("LOOP_DB", str(db))
    code, out = loop_cli("run", "--rounds", "2")
    assert code == 0, out
    assert "after round 2: pass rate 0.77 [0.63, 0.87] (37/48 decided; 26 asked" in out
    d = sqlite_utils.Database(db)
    first = [{"task": r["task"], "sample": r["sample"], "verdict": r["verdict"], "reason": r["reason"]}
             for r in d.query("select * from candidates where round = 1 order by task, sample")]
    snapshot = json.loads((ROOT / "tests" / "data" / "demo_batch.json").read_text())
    assert first == [{k: s[k] for k in ("task", "sample", "verdict", "reason")} for s in snapshot]
    second = {(r["task"], r["sample"]): r for r in d.query("select * from candidates where round = 2")}
    parent = {r["id"]: r for r in d.query("select * from candidates where round = 1")}
    assert {k for k in second} == {(s["task"], s["sample"]) for s in snapshot if s["verdict"] == "stable_fail"}
    descending = second[("merge_intervals_py", 2)]
    assert descending["verdict"] == "stable_pass" and descending["evidence"] == "relation"
    assert "Minimal counterexample (shrunk input)" in descending["feedback"]
    assert parent[descending["parent_id"]]["sample"] == 2
    assert second[("merge_intervals_py", 1)]["verdict"] == "stable_fail"  # example-only: never repaired
    assert second[("merge_intervals_py", 5)]["evidence"] == "no_code"
    assert second[("merge_intervals_cpp", 1)]["evidence"] == "build"
    assert "error: expected ';' before 'return'" in second[("merge_intervals_cpp", 1)]["feedback"]


def test_repository_feedback_quotes_visible_tests_and_names_hidden_ones():
    """A repository task: visible failing tests with their assertion messages, hidden ones (the hidden tests
    folder) by name and kind; a visible message that quotes a hidden test file's line is withheld."""
    task = tasks.load(ROOT, "repo_ledger_py")
    hidden = "tests/test_tax_rounding.py::test_half_cent_rounds_up"
    checks = [Check(f"test:{hidden}", "test", False, "assert 12 == 13", test_kind="f2p"),
              Check("test:tests/test_tax.py::test_food_rate", "test", False, "AssertionError: assert 5 == 6",
                    test_kind="p2p"),
              Check("test:tests/test_invoice.py::test_total", "test", False,
                    'AssertionError: assert compute_tax(250, "food") == 13  # 12.5', test_kind="p2p")]
    g = Grade(task.name, "stable_fail", False, 1, 1, "full", "", True, [], checks)
    fb = feedback.render(task, g, 1)
    assert f"- test:{hidden} (test)" in fb.text and "12 == 13" not in fb.text
    assert "Test tests/test_tax.py::test_food_rate fails: AssertionError: assert 5 == 6" in fb.text
    assert f"Test tests/test_invoice.py::test_total fails: {feedback.WITHHELD}" in fb.text
    assert fb.evidence == "visible_tests" and "unified diff" in fb.text


def test_answer_feedback_never_shows_the_accepted_answers(tmp_path):
    """The answer kind's check says "expected one of [...]": that detail is a hidden value, named only."""
    from loop.kinds.answer import KIND

    folder = tmp_path / "capital"
    folder.mkdir()
    task = KIND.load(folder, {"name": "capital", "kind": "answer", "description": "Capital of France?",
                              "accepted": ["Paris", "Paris, France"]})
    g = KIND.grade(task, "Lyon", sandbox_config(config.load(ROOT / "config.toml")), Options(k=1))
    assert g.verdict == "stable_fail" and "Paris" in g.checks[0].detail
    fb = feedback.render(task, g, 1)
    assert "Paris" not in fb.text and "- test:answer (test)" in fb.text and fb.evidence == "hidden_only"


def test_sanitizer_report_and_faults():
    """The sanitizer report is shown; a crash or a timeout only by name (its text may echo hidden inputs)."""
    task = tasks.load(ROOT, "merge_intervals_cpp")
    report_text = "merge_intervals.cpp:9:17: runtime error: signed integer overflow: 2147483647 + 1"
    checks = [Check("sanitizer", "sanitizer", False, report_text),
              Check("crash", "fault", False, "terminate called after throwing: input [[5, 9], [1, 2]]")]
    fb = feedback.render(task, Grade(task.name, "stable_fail", False, 1, 1, "full", "", True, [], checks), 1)
    assert report_text in fb.text and fb.evidence == "sanitizer"
    assert "- crash (fault)" in fb.text and "terminate called" not in fb.text
    assert "tagged cpp" in fb.text


def test_feedback_text_survives_lone_surrogates():
    """A candidate's output with a lone surrogate ends as U+FFFD: the feedback is stored and sent as UTF-8."""
    check = Check("relation:output_contract", "relation", False, "", minimal=[[1, 1]], actual="output \ud800 is odd")
    fb = feedback.render(TASK, Grade(TASK.name, "stable_fail", False, 1, 1, "full", "", True, [], [check]), 1)
    assert "What your code did on it: output \ufffd" in fb.text and "\ud800" not in fb.text
    fb.text.encode("utf-8")
