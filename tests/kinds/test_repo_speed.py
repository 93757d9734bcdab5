"""What a repository grade no longer repeats per run (issue 41: k=1 within 1.3x a bare test run), each cut
beside the behaviour it must keep: the same tripwire plans, the same parsed report, the same Go cache entries."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from loop.kinds.repo import pysyntax
from loop.kinds.repo import tripwire as T

COMMAND = ("python", "-m", "pytest", "--junitxml={report}", "{tests}")
HOST = "tests/test_x.py"
SOURCE = '''from x import f


def test_one():
    assert f(1) == 2


class TestMore:
    def test_two(self):
        values = [1, 2]
        assert f(values[0]) == 2

    def test_three(self):
        assert f(3) == 4


def test_four():
    assert f(4) == 5
'''


def _tree(tmp_path: Path, text: str = SOURCE) -> Path:
    (tmp_path / "tests").mkdir(parents=True, exist_ok=True)
    (tmp_path / HOST).write_text(text)
    return tmp_path


def _allowed(tree: Path) -> dict[str, T.Safe]:
    points = T.points_of("pytest", (tree / HOST).read_text())
    return {HOST: T.Safe(frozenset(p.key for p in points))}


def test_a_host_file_is_parsed_once_per_text(tmp_path, monkeypatch):
    """Tripwire planning read a host file's syntax tree in four places per run (points, copies, twins, the
    one-line share): ~27 ms of a Python grade's 37 ms planning. Now once per text, and never for a host file
    whose text an earlier run already planned (every host the run does not seal)."""
    tree = _tree(tmp_path, SOURCE.replace("f(4) == 5", f"f(4) == {random.randrange(10**9)}"))  # a text never seen
    parsed = []
    real = pysyntax.parse
    monkeypatch.setattr(pysyntax, "parse", lambda source: parsed.append(source) or real(source))
    allowed = _allowed(tree)
    assert T.plan_all(COMMAND, tree, allowed, ()) is not None
    assert len(parsed) == 1
    assert T.plan_all(COMMAND, tree, allowed, ()) is not None
    assert len(parsed) == 1


def test_a_cached_syntax_tree_plans_what_a_fresh_one_does(tmp_path):
    """The cached tree is shared between runs and threads: planning never changes it, so a plan from it is a
    plan from a fresh parse (same rng, same tripwires, same text)."""
    tree = _tree(tmp_path)
    allowed = _allowed(tree)
    first = T.plan_all(COMMAND, tree, allowed, (), random.Random(7))
    for _ in range(3):  # planned again and again from the cache
        T.plan_all(COMMAND, tree, allowed, ())
    T._module.cache_clear()
    T._one_line_share.cache_clear()
    fresh = T.plan_all(COMMAND, tree, allowed, (), random.Random(7))
    assert first == fresh
    assert [w.name for w in first.wires] and first.plans[0].text != SOURCE
