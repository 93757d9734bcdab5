"""Repair prompt rendering and code-block extraction."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from loop import kinds, prompts, tasks
from loop.kinds.task import Golden
from loop.kinds.task import Test as NamedTest
from loop.prompts.render import extract_code, load_template, render_repair
from loop.sandbox import SandboxConfig

ROOT = Path(__file__).resolve().parents[2]
BASELINE = "def add(a, b):\n    return a - b\n"
CONTRACT = "add(a, b) returns the sum of two ints."


def render(**kw: object) -> list[dict]:
    args = {
        "task_name": "add-two",
        "description": "Add two numbers.",
        "language": "python",
        "contract": CONTRACT,
        "baseline": BASELINE,
        "candidate_file": "solution.py",
        "example": {"input": "add(2, 3)", "expected": "5", "actual": "-1"},
    }
    args.update(kw)
    return render_repair(**args)


def test_render_includes_what_it_is_given():
    messages = render()
    assert [m["role"] for m in messages] == ["system", "user"]
    system, user = messages[0]["content"], messages[1]["content"]
    assert "python" in system and "single fenced code block" in system
    for piece in ("add-two", "Add two numbers.", CONTRACT, "solution.py", "return a - b", "add(2, 3)", "-1"):
        assert piece in user
    assert "```python\ndef add(a, b):\n    return a - b\n```" in user
    assert "$" not in user and "<!--" not in user and "<!--" not in system


def test_render_without_example():
    messages = render(example=None)
    text = "\n".join(m["content"] for m in messages)
    assert "failing example" not in text.lower()
    assert "golden" not in text.lower() and "hidden" not in text.lower()


# Values no shipped task holds, given to the renderer as a hidden test, a golden and a line of the reference.
HIDDEN_TEST = NamedTest("hidden_canary_test", "p2p", ("smoke", "full"), ([[7340031, 7340032]],), [[7340031, 7340033]])
HIDDEN_GOLDEN = Golden("golden_canary_case", ([[9110011, 9110013]],), [[9110011, 9110019]])
CANARIES = ["hidden_canary_test", "7340031", "7340032", "7340033", "golden_canary_case", "9110011", "9110013",
            "9110019", "REFERENCE-CANARY"]


def _shown(value) -> str:
    return value if isinstance(value, str) else repr(value)


@pytest.mark.parametrize("name", ["merge_intervals_py", "merge_intervals_cpp", "dedupe_words_py"])
@pytest.mark.sandbox
def test_the_prompt_a_batch_sends_never_leaks_the_reference_hidden_tests_or_goldens(name):
    """The prompt as a batch renders it (runner: the task's kind, handed the whole Task: its reference, every
    named test and the goldens) holds the contract, the baseline and the one demonstrated example, and no
    line of the reference, no hidden test's name or values and no golden."""
    task = tasks.load(ROOT, name)
    comment = "//" if task.language == "cpp" else "#"
    task = dataclasses.replace(task, reference=f"{task.reference}\n{comment} REFERENCE-CANARY\n",
                               tests=(*task.tests, HIDDEN_TEST), goldens=(*task.goldens, HIDDEN_GOLDEN))
    messages = kinds.get(task.kind).prompt(task, SandboxConfig(enabled=True))
    text = "\n".join(m["content"] for m in messages)
    example = next(t for t in task.tests if t.name == task.example)
    assert task.baseline.strip() in text and _shown(example.expected) in text  # what it is meant to show

    public = "\n".join([prompts.template("repair.md").read_text(), task.description, task.bug_report, task.contract, task.baseline, *map(_shown, example.args),
                        _shown(example.expected), "[" + ", ".join(map(_shown, example.args)) + "]"])
    own = [line.strip() for line in task.reference.splitlines() if line.strip() and line.strip() not in public]
    assert len(own) >= 2  # the fix, and the canary
    assert [line for line in own if line in text] == []
    hidden = [t for t in task.tests if t.name != task.example]
    values = {_shown(v) for t in hidden for v in (*t.args, t.expected)} | {t.name for t in hidden}
    values |= {_shown(v) for g in task.goldens for v in (*g.args, g.expected)} | {g.case for g in task.goldens}
    secret = sorted(v for v in values if v not in public)  # `[]`, `empty` or `single` are public words too
    assert set(CANARIES[:-1]) <= {c for c in CANARIES if any(c in v for v in secret)}
    assert [v for v in secret if v in text] == []
    assert [c for c in CANARIES if c in text] == []


def test_render_handles_braces_dollars_and_backticks():
    baseline = "int f() { return 1; } // costs $5\n// ``` inside\n"
    messages = render(language="cpp", baseline=baseline, contract="keep ${x} and {y}", candidate_file="f.cpp",
                      example={"input": [1, 2], "expected": 3, "actual": "```"})
    user = messages[1]["content"]
    assert "int f() { return 1; } // costs $5" in user and "keep ${x} and {y}" in user
    assert "````cpp\n" in user  # fence longer than the backticks inside the file
    assert extract_code(user, "cpp") == baseline


def test_custom_template(tmp_path: Path):
    path = tmp_path / "t.md"
    path.write_text("<!-- system -->\nsys $language\n<!-- user -->\nfix $candidate_file\n")
    messages = render(template=path)
    assert messages == [{"role": "system", "content": "sys Python"}, {"role": "user", "content": "fix solution.py\n"}]
    bad = tmp_path / "bad.md"
    bad.write_text("<!-- user -->\nonly user\n")
    with pytest.raises(ValueError, match="system"):
        load_template(bad)
    assert set(load_template(prompts.template("repair.md"))) == {"system", "user", "example"}


@pytest.mark.parametrize(
    "reply,language,expected",
    [
        ("Here:\n```python\nprint(1)\n```\n", "python", "print(1)\n"),
        ("```py\nx = 1\n```", "python", "x = 1\n"),
        ("```cpp\nint x;\n```", "cpp", "int x;\n"),
        ("```c++\nint y;\n```", "cpp", "int y;\n"),
        ("```C++ title=f.cpp\nint z;\n```", "c++", "int z;\n"),
        ("~~~python\nprint(2)\n~~~\n", "python", "print(2)\n"),
        ("```\nbare()\n```", "python", "bare()\n"),
        ("```python   \n\n\nprint(3)   \n\n```   \n", "python", "print(3)\n"),
        ("no code here", "python", None),
        ("```bash\nls\n```", "python", None),
        ("```python\n```", "python", None),
        ("```python\nprint('cut off'", "python", "print('cut off'\n"),
        ("````python\na = '```'\n````", "python", "a = '```'\n"),
        ("~~~python\nx = '```'\n~~~", "python", "x = '```'\n"),
        ("  ```python\n  def f():\n      pass\n  ```", "python", "def f():\n    pass\n"),
    ],
)
def test_extract_code(reply, language, expected):
    assert extract_code(reply, language) == expected


def test_extract_prefers_longest_matching_then_longest_bare():
    reply = (
        "```python\nshort()\n```\n"
        "```\nbare_block_that_is_the_longest_of_all()\n```\n"
        "```python\nlonger_python()\n```\n"
        "```bash\npip install something_really_long_really_long\n```\n"
    )
    assert extract_code(reply, "python") == "longer_python()\n"
    assert extract_code(reply, "cpp") == "bare_block_that_is_the_longest_of_all()\n"
    two_bare = "```\na\n```\ntext\n```\nbbb\n```"
    assert extract_code(two_bare, "python") == "bbb\n"


def test_extract_handles_crlf():
    assert extract_code("```python\r\nprint(1)\r\n```\r\n", "python") == "print(1)\n"
