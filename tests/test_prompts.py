"""Repair prompt rendering and code-block extraction."""

from __future__ import annotations

from pathlib import Path

import pytest

from loop.prompts import DEFAULT_TEMPLATE, extract_code, load_template, render_repair

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


def test_render_without_example_and_never_leaks_other_material():
    reference = "def add(a, b):\n    return a + b  # REFERENCE-SOLUTION"
    messages = render(example=None)
    text = "\n".join(m["content"] for m in messages)
    assert "failing example" not in text.lower()
    assert "REFERENCE-SOLUTION" not in text and reference not in text
    assert "golden" not in text.lower() and "hidden" not in text.lower()


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
    assert set(load_template(DEFAULT_TEMPLATE)) == {"system", "user", "example"}


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
