"""Issue 9: `loop tests judge` classes, every rejection reason on each shipped task, the curated suites and
their demo cassette, and synthesize() recording suites and tests in runs.db."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sqlite_utils

from conftest import ROOT
from loop import config, tasks
from loop import verdicts as V
from loop.run.synthesis import (
    CURATED_LABELS, CURATED_MODEL, CURATED_SAMPLES, INVALID, MAX_ITEMS, MAX_STRING, MAX_TESTS,
    curated_cassette, demo_cassette, extract_suite, render_synthesize, synthesize,
)

SUITES = ROOT / "harness" / "suites"
CASSETTE = demo_cassette(ROOT)
TASKS = ("merge_intervals_py", "merge_intervals_cpp", "dedupe_words_py")

# Per task: a test that reproduces the bug, one that reproduces nothing, an input item, a badly shaped input
# and an input with an invalid value (None where the task's contract has no such value).
CASES = {
    "merge_intervals_py": {
        "bug": ([[1, 3], [3, 5]], [[1, 5]]), "nothing": ([[1, 4], [2, 6]], [[1, 6]]),
        "item": lambda i: [3 * i, 3 * i + 1], "bad_shape": [[1, 2, 3]], "reversed": [[5, 1]],
    },
    "merge_intervals_cpp": {
        "bug": ([[5, 7], [1, 3]], [[1, 3], [5, 7]]), "nothing": ([[1, 3], [3, 5]], [[1, 5]]),
        "item": lambda i: [3 * i, 3 * i + 1], "bad_shape": [[1, "2"]], "reversed": [[5, 1]],
    },
    "dedupe_words_py": {
        "bug": (["Apple", "apple", "APPLE"], ["Apple"]), "nothing": (["a", "b", "a"], ["a", "b"]),
        "item": lambda i: f"w{i}", "bad_shape": ["a", 5], "reversed": None,
    },
}


def t(name, case):
    return {"name": name, "input": case[0], "expected": case[1]}


def judge(loop_cli, tmp_path, task, suite):
    path = tmp_path / "suite.json"
    path.write_text(suite if isinstance(suite, str) else json.dumps(suite), encoding="utf-8")
    code, out = loop_cli("tests", "judge", task, path, "--json")
    return code, json.loads(out)


def by_name(result):
    return {x["name"]: x for x in result["tests"]}


# --------------------------------------------------------------------------- the three classes
@pytest.mark.parametrize("task", TASKS)
@pytest.mark.parametrize("label", CURATED_LABELS)
@pytest.mark.sandbox
def test_curated_suites_are_judged_as_labelled(loop_cli, task, label):
    code, out = loop_cli("tests", "judge", task, SUITES / task / f"{label}.json", "--json")
    result = json.loads(out)
    classes = [x["class"] for x in result["tests"]]
    assert all(set(x) >= {"name", "class", "reason"} for x in result["tests"])
    if label == V.ACCEPTED:
        assert (code, result["verdict"]) == (0, V.ACCEPTED), out
        assert V.REPRODUCES_BUG in classes and V.REPRODUCES_NOTHING in classes
        assert V.WRONG_EXPECTATION not in classes
    elif label == V.WRONG_EXPECTATION:
        assert (code, result["verdict"]) == (1, V.REJECTED), out
        assert V.WRONG_EXPECTATION in classes and V.REPRODUCES_BUG in classes
        wrong = next(x for x in result["tests"] if x["class"] == V.WRONG_EXPECTATION)
        assert wrong["name"] in result["reason"] and "reference returned" in wrong["reason"]
        assert wrong["reference"] == V.FAIL
    else:
        assert (code, result["verdict"]) == (1, V.REJECTED), out
        assert set(classes) == {V.REPRODUCES_NOTHING}
        assert "no test reproduces the bug" in result["reason"]
        assert all(x["baseline"] == x["reference"] == V.PASS for x in result["tests"])


@pytest.mark.parametrize("task", TASKS)
@pytest.mark.sandbox
def test_each_class_through_the_cli(loop_cli, tmp_path, task):
    c = CASES[task]
    wrong = (c["bug"][0], [["not", "what", "it", "returns"]])
    code, result = judge(loop_cli, tmp_path, task, [t("bug", c["bug"]), t("nothing", c["nothing"])])
    assert (code, result["verdict"]) == (0, V.ACCEPTED)
    tests = by_name(result)
    assert tests["bug"]["class"] == V.REPRODUCES_BUG
    assert (tests["bug"]["baseline"], tests["bug"]["reference"]) == (V.FAIL, V.PASS)
    assert tests["nothing"]["class"] == V.REPRODUCES_NOTHING
    # A wrong expectation on an input that does reproduce the bug still rejects the suite.
    code, result = judge(loop_cli, tmp_path, task, [t("bug", c["bug"]), t("wrong", wrong)])
    assert (code, result["verdict"]) == (1, V.REJECTED)
    assert by_name(result)["wrong"]["class"] == V.WRONG_EXPECTATION and "'wrong'" in result["reason"]
    code, result = judge(loop_cli, tmp_path, task, [t("nothing", c["nothing"])])
    assert (code, result["verdict"]) == (1, V.REJECTED)


@pytest.mark.parametrize("task", TASKS)
@pytest.mark.sandbox
def test_bounds_themselves_are_allowed(loop_cli, tmp_path, task):
    c = CASES[task]
    big = [c["item"](i) for i in range(MAX_ITEMS)]
    suite = [t("bug", c["bug"])] + [t(f"n{i:02d}", (big, big)) for i in range(MAX_TESTS - 2)]
    suite.append({"name": "x" * MAX_STRING, "input": c["nothing"][0], "expected": c["nothing"][1]})
    code, result = judge(loop_cli, tmp_path, task, suite)
    assert (code, result["verdict"]) == (0, V.ACCEPTED), result["reason"]
    assert len(result["tests"]) == MAX_TESTS


# --------------------------------------------------------------------------- every rejection reason
def rejections(task):
    c = CASES[task]
    bug = t("bug", c["bug"])
    items = [c["item"](i) for i in range(MAX_ITEMS + 1)]
    out = {
        "too_many_tests": ([bug] + [t(f"n{i}", c["nothing"]) for i in range(MAX_TESTS)], None,
                           f"{MAX_TESTS + 1} tests (at most {MAX_TESTS})"),
        "too_many_items": ([bug, {"name": "huge", "input": items, "expected": []}], "huge",
                           f"{MAX_ITEMS + 1} items (at most {MAX_ITEMS})"),
        "too_long_string": ([bug, {"name": "long", "input": c["nothing"][0], "expected": [["y" * (MAX_STRING + 1)]]}],
                            "long", f"{MAX_STRING + 1} characters (at most {MAX_STRING})"),
        "too_long_name": ([bug, {"name": "n" * (MAX_STRING + 1), "input": c["nothing"][0], "expected": []}],
                          "n" * (MAX_STRING + 1), f"{MAX_STRING + 1} characters long (at most {MAX_STRING})"),
        "malformed_json": ('[{"name": "bug", "input": [[1, 3], [3, 5]], "expected": [[1, 5]]}', None, "malformed JSON"),
        "nan_is_not_json": ('[{"name": "nan", "input": [], "expected": NaN}]', None, "malformed JSON"),
        "not_a_list": ('{"name": "bug"}', None, "must be a JSON list"),
        "empty_suite": ("[]", None, "no tests"),
        "bad_shape": ([bug, {"name": "shape", "input": c["bad_shape"], "expected": []}], "shape",
                      "does not fit the contract"),
        "input_not_a_list": ([bug, {"name": "scalar", "input": 7, "expected": []}], "scalar",
                             "does not fit the contract"),
        "duplicate_name": ([bug, t("bug", c["nothing"])], "bug", "duplicate name, already used by test 1"),
        "missing_key": ([bug, {"name": "partial", "input": c["nothing"][0]}], "partial", "has no 'expected'"),
        "missing_name": ([bug, {"input": c["nothing"][0], "expected": c["nothing"][1]}], "#2", "has no 'name'"),
        "unknown_key": ([bug, {**t("extra", c["nothing"]), "kind": "f2p"}], "extra", "unknown key 'kind'"),
        "not_an_object": ([bug, ["name", "input", "expected"]], "#2", "is not an object"),
    }
    if c["reversed"] is not None:
        out["reversed_interval"] = ([bug, {"name": "backwards", "input": c["reversed"], "expected": [[1, 5]]}],
                                    "backwards", "[5, 1")
    if task == "dedupe_words_py":
        out["long_word_in_input"] = ([bug, {"name": "word", "input": ["z" * (MAX_STRING + 1)], "expected": []}],
                                     "word", f"{MAX_STRING + 1} characters")
    if task == "merge_intervals_cpp":  # half-open and 32-bit: these values are invalid too
        out["empty_half_open"] = ([bug, {"name": "empty_iv", "input": [[3, 3]], "expected": []}], "empty_iv", "is empty")
        out["beyond_32_bits"] = ([bug, {"name": "wide", "input": [[0, 2 ** 31]], "expected": [[0, 2 ** 31]]}],
                                 "wide", "out of 32-bit range")
    return out


ALL_REJECTIONS = [(task, reason) for task in TASKS for reason in rejections(task)]


@pytest.mark.parametrize("task,reason", ALL_REJECTIONS, ids=[f"{a}-{b}" for a, b in ALL_REJECTIONS])
@pytest.mark.sandbox
def test_every_rejection_reason(loop_cli, tmp_path, task, reason):
    suite, bad_name, words = rejections(task)[reason]
    code, result = judge(loop_cli, tmp_path, task, suite)
    assert (code, result["verdict"]) == (1, V.REJECTED), result
    assert words in result["reason"], result["reason"]
    if bad_name is None:  # the suite as a whole is refused: nothing runs
        assert result["tests"] == []
        return
    bad = [x for x in result["tests"] if x["class"] == INVALID]
    assert len(bad) == 1 and bad[0]["name"] == bad_name and words in bad[0]["reason"]
    assert "test 2" in bad[0]["reason"]  # the reason names the test
    assert bad[0]["baseline"] is None and bad[0]["reference"] is None  # an invalid test never runs
    assert result["reason"].startswith(bad[0]["reason"])
    # The valid test beside it still ran and reproduces the bug: the invalid one alone rejects the suite.
    assert result["tests"][0]["class"] == V.REPRODUCES_BUG


def test_unreadable_input_exits_2(loop_cli, tmp_path):
    code, out = loop_cli("tests", "judge", "merge_intervals_py", tmp_path / "missing.json")
    assert code == 2 and out.strip() == f"error: {tmp_path / 'missing.json'}: suite file not found"
    latin = tmp_path / "latin1.json"
    latin.write_bytes(b'[{"name": "caf\xe9", "input": [], "expected": []}]')
    code, out = loop_cli("tests", "judge", "dedupe_words_py", latin, "--json")
    assert code == 2 and "not UTF-8" in out and len(out.strip().splitlines()) == 1
    code, out = loop_cli("tests", "judge", "merge_intervals_py", tmp_path)
    assert code == 2 and "is a directory" in out
    good = SUITES / "merge_intervals_py" / "accepted.json"
    code, out = loop_cli("tests", "judge", "no_such_task", good)
    assert code == 2 and "unknown task 'no_such_task'" in out and len(out.strip().splitlines()) == 1


@pytest.mark.sandbox
def test_text_output_lists_every_test(loop_cli):
    code, out = loop_cli("tests", "judge", "merge_intervals_py", SUITES / "merge_intervals_py" / "wrong_expectation.json")
    assert code == 1
    lines = out.strip().splitlines()
    assert lines[0].startswith("merge_intervals_py: rejected")
    assert lines[1].split()[:2] == [V.REPRODUCES_BUG, "touching_pair_merges:"]
    assert lines[2].split()[:2] == [V.WRONG_EXPECTATION, "adjacent_integers_merge:"]


# --------------------------------------------------------------------------- prompt and reply
@pytest.mark.parametrize("task", TASKS)
def test_prompt_shows_contract_baseline_and_bug_report_never_the_reference(task):
    loaded = tasks.load(ROOT, task)
    text = "\n".join(m["content"] for m in render_synthesize(loaded))
    assert loaded.bug_report.strip() in text and loaded.contract.strip() in text and loaded.baseline.strip() in text
    assert loaded.reference.strip() not in text
    for test in loaded.tests:  # nor the task's own named tests (names with "_" cannot occur by accident)
        assert "_" not in test.name or test.name not in text
    assert f"at most {MAX_TESTS} tests" in text and "json" in text


def test_extract_suite():
    assert extract_suite('Sure.\n```json\n[{"name": "a"}]\n```\nDone.') == '[{"name": "a"}]\n'
    assert extract_suite('```python\nx = 1\n```\n```\n[1]\n```') == "[1]\n"
    assert extract_suite('```json\n[1]\n```\n```json\n[1, 2, 3]\n```') == "[1, 2, 3]\n"
    assert extract_suite("[1, 2]") == "[1, 2]\n"
    assert extract_suite("I would rather not.") is None
    assert extract_suite("") is None


# --------------------------------------------------------------------------- the demo cassette and synthesize()
def repo_config():
    return config.load(ROOT / "config.toml", env={})


def test_demo_cassette_is_up_to_date():
    """Rebuild with `.venv/bin/python harness/suites/build_cassette.py` when this fails."""
    lines = [json.loads(line) for line in CASSETTE.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert lines == curated_cassette(repo_config())
    assert all(line["curated"] is True for line in lines)
    assert sorted(line["label"] for line in lines) == sorted(f"{t}/{label}" for t in TASKS for label in CURATED_LABELS)


@pytest.mark.sandbox
def test_synthesize_replays_the_demo_cassette_and_records_rows(tmp_path):
    db = tmp_path / "runs.db"
    entries = [json.loads(line) for line in CASSETTE.read_text(encoding="utf-8").splitlines() if line.strip()]
    expect = {json.loads(e["body"])["choices"][0]["message"]["content"]: e for e in entries}
    done = synthesize(repo_config(), list(TASKS), samples=CURATED_SAMPLES, model=CURATED_MODEL,
                      replay_path=CASSETTE, db=db, concurrency=2)
    assert (done.suites, done.accepted, done.rejected, done.infra_unknown) == (9, 3, 6, 0)
    rows = sqlite_utils.Database(db)
    batch = rows["batches"].get(done.batch_id)
    assert (batch["kind"], batch["status"], batch["model"]) == ("synthesize", "done", CURATED_MODEL)
    suites = list(rows["suites"].rows_where("batch_id = ?", [done.batch_id], order_by="id"))
    assert len(suites) == 9
    seen = set()
    for s in suites:
        entry = expect[s["reply"]]  # every reply came from the cassette and is judged as it is labelled
        assert entry["label"].startswith(s["task"] + "/") and s["verdict"] == entry["expect"], (s, entry["label"])
        assert s["model"] == CURATED_MODEL
        seen.add(entry["label"])
        tests = list(rows["synth_tests"].rows_where("suite_id = ?", [s["id"]], order_by="id"))
        suite = json.loads(extract_suite(s["reply"]))
        assert [x["name"] for x in tests] == [x["name"] for x in suite]
        assert [json.loads(x["input"]) for x in tests] == [x["input"] for x in suite]
        label = entry["label"].split("/")[1]
        classes = {x["class"] for x in tests}
        if label == V.WRONG_EXPECTATION:
            assert V.WRONG_EXPECTATION in classes
        elif label == V.REPRODUCES_NOTHING:
            assert classes == {V.REPRODUCES_NOTHING}
        else:
            assert V.REPRODUCES_BUG in classes and V.WRONG_EXPECTATION not in classes
    assert len(seen) == 9
    bugs = rows.execute("select count(*) from synth_tests t join suites s on s.id = t.suite_id "
                        "where s.batch_id = ? and t.class = ?", [done.batch_id, V.REPRODUCES_BUG]).fetchone()[0]
    assert bugs == done.reproduces_bug > 0
    assert rows["requests"].count == 9 and {r["status_code"] for r in rows["requests"].rows} == {200}


def test_synthesize_rejects_a_reply_without_a_suite(tmp_path):
    from loop.ask.cassette import exchange

    cfg = repo_config()
    loaded = tasks.load(ROOT, "dedupe_words_py")
    body = {"model": "m-none", "messages": render_synthesize(loaded), "temperature": cfg.endpoint.temperature,
            "max_tokens": cfg.endpoint.max_tokens, "n": 1}
    answer = {"choices": [{"index": 0, "message": {"role": "assistant", "content": "No tests today."}}]}
    cassette = tmp_path / "c.jsonl"
    cassette.write_text(json.dumps(exchange(body, 200, answer)) + "\n")
    done = synthesize(cfg, ["dedupe_words_py"], samples=1, model="m-none", replay_path=cassette,
                      db=tmp_path / "runs.db")
    assert (done.suites, done.rejected, done.tests) == (1, 1, 0)
    (row,) = sqlite_utils.Database(tmp_path / "runs.db")["suites"].rows
    assert row["verdict"] == V.REJECTED and "no JSON test suite" in row["reason"]


@pytest.mark.sandbox
def test_run_mode_synthesize_and_report(loop_cli, db):
    """`loop run --mode synthesize` replays the curated suites; `loop report` shows the shares per model and task."""
    code, out = loop_cli("run", "--mode", "synthesize", "--db", db, "--json")
    assert code == 0, out
    summary = json.loads(out)
    assert summary["suites"] == 9 and summary["accepted"] == 3 and summary["rejected"] == 6
    code, out = loop_cli("report", "--db", db, "--format", "json")
    synth = json.loads(out)["synthesis"]
    assert {r["task"] for r in synth} == {"merge_intervals_py", "merge_intervals_cpp", "dedupe_words_py"}
    assert all(r["suites"] == 3 and r["accepted"] == 1 and abs(r["accepted_share"] - 1 / 3) < 1e-9 for r in synth)
    assert sum(r["reproducing"] for r in synth) == summary["reproduces_bug"]
    code, out = loop_cli("report", "--db", db)
    assert "accepted share" in out and "demo-curated" in out


def test_synthesize_asks_samples_per_request_suites_at_once(tmp_path):
    """endpoint.samples_per_request = 2 and 3 samples: requests with n=2 and n=1, one suite per choice."""
    from conftest import ChatServer

    server = ChatServer(lambda body: (200, {"choices": [
        {"index": i, "message": {"role": "assistant", "content": f"No tests today ({server.hits}.{i})."}}
        for i in range(body["n"])]}, {}))
    path = tmp_path / "config.toml"
    path.write_text("[endpoint]\nsamples_per_request = 2\napi_key_env = \"\"\n")
    try:
        done = synthesize(config.load(path, root=ROOT, env={}), ["dedupe_words_py"], samples=3, model="m",
                          base_url=server.url, db=tmp_path / "runs.db")
    finally:
        server.close()
    assert sorted(b["n"] for b in server.bodies) == [1, 2]
    assert (done.suites, done.rejected, done.infra_unknown) == (3, 3, 0)
    rows = list(sqlite_utils.Database(tmp_path / "runs.db")["suites"].rows_where(order_by="sample"))
    assert [r["sample"] for r in rows] == [0, 1, 2] and len({r["reply"] for r in rows}) == 3


def test_a_suite_with_lone_surrogates_is_judged_and_printed_as_json(loop_cli, tmp_path):
    """A suite is model-written: a lone surrogate in a test (valid JSON, no valid UTF-8) must come back in
    the --json output, escaped, never as a traceback while printing."""
    suite = '[{"name": "odd", "input": [["a\\ud800", "A\\ud800"]], "expected": ["a\\ud800"]}]'
    code, result = judge(loop_cli, tmp_path, "dedupe_words_py", suite)
    assert code in (0, 1) and result["tests"][0]["name"] == "odd", result
