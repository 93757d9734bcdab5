"""Sealed assertions (issue 41): the plan from the syntax tree, the helper's strict serialization run for real in
a pytest process, the parent's total decoding and verdicts, and whole grades in the sandbox (a lying value and a
forged report caught by the seals alone; honest patches and a value loop cannot serialize never failed by them)."""

from __future__ import annotations

import ast
import json
import random
import shutil
import subprocess
import sys
from pathlib import Path
from unittest import mock

import pytest

from conftest import ROOT
from loop import tasks
from loop import verdicts as V
from loop.grading.model import Options
from loop.kinds.repo import kind as repo_kind
from loop.kinds.repo import reference, seal
from loop.kinds.repo import testrun
from loop.kinds.repo.kind import RepoKind
from loop.kinds.repo.results import Outcome
from loop.sandbox import SandboxConfig

TASK = ROOT / "harness" / "tasks" / "repo_ledger_py"
CORPUS = ROOT / "tests" / "adversarial" / "repo_candidates" / "repo_ledger_py"
CFG = SandboxConfig()

TRICKY = '''\
# -*- coding: utf-8 -*-
"""Tricky, on purpose."""
from __future__ import annotations

import pytest

from pkg import f, g, h


def helper(x):
    assert f(x) == 1  # not a test: never sealed


@pytest.mark.parametrize(
    "x",
    [1, 2],
)
def test_param(x):
    assert f(x) == 1


class TestGroup:
    @pytest.fixture
    def value(self):
        return 3

    def test_method(self, value):
        assert g(value) == (
            "é",
            -2.5,
        )  # the tuple spans lines

    class TestInner:
        def test_nested_class(self):
            assert (h() == {"a": [1, None], "b": {1, 2}})


def test_message_and_fstring():
    name = "x"
    assert f(1) == 1, f"{name} should be one (1)"
    assert 1 == f(2), "literal first"
    assert f"{name}" == "x"
    if f(3):
        assert f(3) == 1
    assert f(4) is None


def test_nested_function():
    def inner():
        assert g(2) == "two"
    inner()


def test_not_sealed(y=1):
    assert f(1) == y
    assert 1 == 1
    assert f(1) != 2
    assert f(1) < 3
    assert f(1) == 1 == f(1)


@pytest.mark.xfail(reason="known")
def test_xfail():
    assert f(1) == 99


def test_after_return():
    if f(0):
        return
    assert f(5) == 5
'''


def _positions(seals):
    return sorted((s.line, s.test, s.op, s.literal, s.unconditional) for s in seals)


def test_plan_seals_literal_checks_in_tests_only():
    sealed, seals = seal.plan(TRICKY, "/out/seals.jsonl", rng=random.Random(1))
    assert _positions(seals) == [
        (19, "test_param", "==", 1, True),
        (28, "TestGroup::test_method", "==", ("é", -2.5), True),
        (35, "TestGroup::TestInner::test_nested_class", "==", {"a": [1, None], "b": {1, 2}}, True),
        (40, "test_message_and_fstring", "==", 1, True),
        (41, "test_message_and_fstring", "==", 1, True),
        (42, "test_message_and_fstring", "==", "x", True),
        (44, "test_message_and_fstring", "==", 1, False),
        (45, "test_message_and_fstring", "is", None, True),
        (50, "test_nested_function", "==", "two", False),
        (70, "test_after_return", "==", 5, False),
    ]
    # every line keeps its number: the helper is appended after the last one
    old, new = TRICKY.splitlines(), sealed.splitlines()
    assert len(new) > len(old) and new[0] == old[0]  # the coding cookie stays
    for i, line in enumerate(old):
        if not any(s.line <= i + 1 <= s.line + 3 for s in seals):
            assert new[i] == line.split("  #")[0].rstrip() or line.lstrip().startswith("#"), (i + 1, line, new[i])
    # no literal, message or comment of a sealed check is left in the file
    for gone in ('"é"', "-2.5", "should be one", "literal first", "the tuple spans lines", '"two"', "== 1, f"):
        assert gone not in sealed
    assert "assert f(1) == y" in sealed and "assert f(1) == 99" in sealed  # unsealed ones stay as they were
    tree = ast.parse(sealed)
    helper = tree.body[-1]  # one statement: the helper's definition, loaded compiled (or compiled from its text)
    assert isinstance(helper, ast.Assign) and helper.targets[0].id.startswith("_loop_seal_")
    for magic in (True, False):  # this interpreter's bytecode, and one whose magic number differs
        namespace = {"__name__": "sealed"}
        line = compile(ast.Module([helper], []), "sealed", "exec")
        with mock.patch.dict(sys.modules, {} if magic else {"_frozen_importlib_external": None}):
            exec(line, namespace)
        fn = namespace[helper.targets[0].id]
        assert fn.__name__ == "_loop_seal" and fn.__code__.co_filename == "<loop's sealed check>"
        text = seal._HELPER.format(name="_loop_seal", channel=repr("/out/seals.jsonl"), cap=seal.VALUE_CAP,
                                   depth=seal.DEPTH_CAP, atomic=seal.PIPE_BUF, piece=seal.PIECE)
        assert fn.__code__.co_code == next(c for c in compile(text, "x", "exec").co_consts if hasattr(c, "co_code")).co_code


def test_plan_ids_are_fresh_and_the_shape_is_kept():
    a, seals_a = seal.plan(TRICKY)
    b, seals_b = seal.plan(TRICKY)
    assert {s.id for s in seals_a}.isdisjoint({s.id for s in seals_b})
    assert a != b and [s.key for s in seals_a] == [s.key for s in seals_b]
    only = {seals_a[0].key}
    _, some = seal.plan(TRICKY, only=only)
    assert [s.key for s in some] == [seals_a[0].key]
    assert seal.plan("def test_x(:\n", ) == ("def test_x(:\n", ())  # no syntax tree: left as it is
    known = "def test_method():\n    assert f(1) == 1, 'other message'\n"
    _, seals = seal.plan("def test_method():\n    assert f(1) == 1\n    assert f(2) == 2\n", known=known)
    assert [s.secret for s in seals] == [False, True]  # the base tree shows the first literal


def _project(tmp_path: Path, test_source: str, pkg_source: str) -> Path:
    proj = tmp_path / "proj"
    (proj / "pkg").mkdir(parents=True)
    (proj / "pkg" / "__init__.py").write_text(pkg_source)
    (proj / "tests").mkdir()
    (proj / "tests" / "test_it.py").write_text(test_source)
    return proj


def _pytest(proj: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args], cwd=proj,
                          capture_output=True, text=True, timeout=120)


PKG = ("def f(x):\n    return {0: 1, 1: 1, 2: 1, 3: 1, 4: None, 5: 5}.get(x, 0) if x != 4 else None\n\n\n"
       "def g(v):\n    return ('é', -2.5) if v == 3 else 'two'\n\n\n"
       "def h():\n    return {'a': [1, None], 'b': {1, 2}}\n")


def test_sealed_file_collects_the_same_tests_and_passes_where_the_original_does(tmp_path):
    proj = _project(tmp_path, TRICKY, PKG)
    before = _pytest(proj, "--collect-only")
    plain = _pytest(proj, "--junitxml=plain.xml")
    channel = tmp_path / "out" / seal.CHANNEL
    channel.parent.mkdir()
    sealed, seals = seal.plan(TRICKY, str(channel), file="tests/test_it.py")
    (proj / "tests" / "test_it.py").write_text(sealed)
    after = _pytest(proj, "--collect-only")
    assert before.returncode == after.returncode == 0, after.stdout + after.stderr
    ids = [x for x in before.stdout.splitlines() if "::" in x]
    assert len(ids) == 9 and ids == [x for x in after.stdout.splitlines() if "::" in x]
    run = _pytest(proj, "--junitxml=sealed.xml")
    assert run.returncode == plain.returncode == 0, run.stdout + plain.stdout
    from loop.kinds.repo.results import parse_junit

    outcomes = parse_junit((proj / "sealed.xml").read_text(), proj)
    judged_outcomes, judged = seal.judge(seals, channel.parent, outcomes)
    assert judged_outcomes == parse_junit((proj / "plain.xml").read_text(), proj)
    assert judged.verified() == frozenset(s.key for s in seals if s.test != "test_after_return")
    assert "tests/test_it.py::test_param[1]" in judged.decided and not judged.failed


LYING = ("class Cents(int):\n    def __eq__(self, other):\n        return abs(int(self) - int(other)) <= 1\n"
         "    __hash__ = int.__hash__\n\n\n"
         "class Shout(str):\n    def __eq__(self, other):\n        return True\n    __hash__ = str.__hash__\n\n\n"
         "class Opaque:\n    def __eq__(self, other):\n        return True\n\n\n"
         "class Sneaky(list):\n    def __iter__(self):\n        return iter([1, 2, 3])\n\n\n"
         "def tax():\n    return Cents(12)\n\n\ndef word():\n    return Shout('no')\n\n\n"
         "def opaque():\n    return Opaque()\n\n\ndef sneaky():\n    return Sneaky([9])\n\n\n"
         "def deep():\n    x = []\n    y = x\n    for _ in range(100):\n        y.append([])\n        y = y[0]\n    return x\n\n\n"
         "def nan():\n    return float('nan')\n")
LYING_TESTS = ("from pkg import deep, nan, opaque, sneaky, tax, word\n\n\n"
               "def test_tax():\n    assert tax() == 13\n\n\ndef test_word():\n    assert word() == 'yes'\n\n\n"
               "def test_opaque():\n    assert opaque() == 3\n\n\ndef test_sneaky():\n    assert sneaky() == [1, 2, 3]\n\n\n"
               "def test_deep():\n    assert deep() == []\n\n\ndef test_nan():\n    assert nan() == 0.0\n")


def test_lying_values_send_their_builtin_value_and_the_rest_is_unserializable(tmp_path):
    proj = _project(tmp_path, LYING_TESTS, LYING)
    assert "3 passed" in _pytest(proj, "tests/test_it.py::test_tax", "tests/test_it.py::test_word",
                                 "tests/test_it.py::test_opaque").stdout  # the original checks are fooled
    channel = tmp_path / "out" / seal.CHANNEL
    channel.parent.mkdir()
    sealed, seals = seal.plan(LYING_TESTS, str(channel), file="tests/test_it.py")
    (proj / "tests" / "test_it.py").write_text(sealed)
    assert _pytest(proj).returncode == 0  # every sealed check passes inside: the parent decides
    ids = [f"tests/test_it.py::{s.test}" for s in seals]
    out, judged = seal.judge(seals, channel.parent, {t: Outcome(V.PASS) for t in ids})
    said = {t.split("::")[-1]: o.message for t, o in out.items()}
    assert said["test_tax"] == ("sealed assertion at tests/test_it.py:5: expected 13 (kept outside the sandbox), "
                                "got 12")
    assert said["test_word"].endswith("expected 'yes' (kept outside the sandbox), got 'no'")
    assert "could not be serialized (Opaque)" in said["test_opaque"]
    assert said["test_sneaky"].endswith("got [9]")  # list's own items, not its __iter__
    assert "could not be serialized (value nested deeper than 64)" in said["test_deep"]
    assert said["test_nan"].endswith("got nan")
    assert judged.failed == set(ids) and not judged.verified()


def test_records_are_decoded_totally(tmp_path):
    _, seals = seal.plan("def test_a():\n    assert f() == 3\n", file="t.py")
    sid = seals[0].id
    nested = '["list", [' * 5000 + '["none"]' + "]]" * 5000  # deeper than json and decode go
    lines = [b"\xff\xfe garbage", b"{}", b"[1]", json.dumps({"id": "other", "value": ["int", "4"]}).encode(),
             json.dumps({"id": sid, "value": ["int", "zz"]}).encode(), f'{{"id": "{sid}", "value": {nested}}}'.encode(),
             json.dumps({"id": sid, "value": ["set", [["list", []]]]}).encode(),
             json.dumps({"id": sid, "value": ["float", "1" * 100]}).encode(),
             json.dumps({"id": sid, "value": ["int", "f" * 60000]}).encode(),
             json.dumps({"id": sid, "value": ["float", "3.0"]}).encode()]
    (tmp_path / seal.CHANNEL).write_bytes(b"\n".join(lines) + b"\n")
    got, stray = seal.records(tmp_path, seals)
    assert got[sid][-1] == 3.0 and len(got[sid]) == 2  # the huge int decodes; the rest is no record
    assert stray.startswith("line 1 of loop's seal channel is no record") and "the code under test wrote" in stray
    out, judged = seal.judge(seals, tmp_path, {"t.py::test_a": Outcome(V.PASS)})
    assert "got a int too large to show" in out["t.py::test_a"].message and judged.forged == stray
    (tmp_path / seal.CHANNEL).unlink()
    (tmp_path / seal.CHANNEL).symlink_to("/etc/hostname")  # never followed
    assert seal.records(tmp_path, seals) == ({}, None)


def _pieces(sid: str, line: bytes, nonce: str = "n1", size: int = 5) -> list[dict]:
    n = -(-len(line) // size)
    return [{"id": sid, "part": [nonce, i, n], "hex": line[i * size:(i + 1) * size].hex()} for i in range(n)]


def test_a_long_record_is_put_back_from_its_pieces_and_a_garbled_piece_is_tampering(tmp_path):
    """The helpers send a record longer than PIPE_BUF as pieces (one atomic write each); loop reassembles them in
    any order, interleaved with other records and pieces; a piece missing, sent twice, malformed, or pieces that
    make no record of the seal they name is the code under test writing to the channel."""
    _, seals = seal.plan("def test_a():\n    assert f() == 3\n\n\ndef test_b():\n    assert g() == 4\n", file="t.py")
    a, b = (s.id for s in seals)
    rec = lambda sid, v: (json.dumps({"id": sid, "value": ["int", v]}) + "\n").encode()  # noqa: E731
    one, two = _pieces(a, rec(a, "3")), _pieces(b, rec(b, "4"), "n2")
    mixed = [one[2], two[0], *two[1:][::-1], {"id": a, "value": ["int", "3"]}, *one[:2], *one[3:]]

    def run(items) -> tuple:
        (tmp_path / seal.CHANNEL).write_text("".join(json.dumps(x) + "\n" for x in items))
        return seal.records(tmp_path, seals)

    assert run(mixed) == ({a: [3, 3], b: [4]}, None)
    assert run(_pieces(a, rec(a, "3"), "same") + _pieces(a, rec(a, "3"), "same")) == ({a: [3, 3]}, None)  # reused
    bad = {"missing": mixed[:-1], "twice": [*mixed, one[0]],
           "garbled": [*mixed[:-1], {**one[-1], "hex": one[-1]["hex"][:-2] + "zz"}],
           "malformed": [*mixed, {"id": a, "part": ["n", 2, 1], "hex": ""}],
           "no line": _pieces(a, rec(a, "3")[:-1]),
           "another seal's": _pieces(b, rec(a, "3")),
           "padded inside": _pieces(a, rec(a, "3").replace(b", ", b",       "))}  # each piece well-formed
    for why, items in bad.items():
        got, stray = run(items)
        assert stray is not None and "the code under test wrote to it" in stray, why
        out, judged = seal.judge(seals, tmp_path, {"t.py::test_a": Outcome(V.PASS), "t.py::test_b": Outcome(V.PASS)})
        assert judged.forged == stray, why


@pytest.mark.parametrize("channel, line", [(b"#", 1), (b"", 0), (b"\n", 1), (b"x\n", 1), (b"{}\n", 1),
                                           (b'{"id": "ID", "value": ["int", "3"], "more": 1}\n', 1),
                                           (b'{"id": "ID", "value": ["int", "3"]}', 1), (b'"x"\n', 1),
                                           (b'{"id": "ID", "value": ["int", "3"]}\n{"id": "ID"', 2),
                                           (b" " * 4000, 1), (b'{"id": "ID", "value": ["int", "3"]} \n', 1),
                                           (b'{"id": "ID",   "value": ["int", "3"]}\n', 1),
                                           (b'{"id":"ID","value":\t["int","3"]}\n', 1),
                                           (b'{' + b'"\\' * 100_000 + b"\n", 1)])  # unclosed: linear, not quadratic
def test_a_line_no_helper_wrote_makes_the_run_forged(tmp_path, channel, line):
    """Red team round six: a `#` with no newline, appended before a helper's record, made that record unreadable
    and `records()` skipped it: now any line that is not a whole record of the run's seals is tampering. Rounds
    nineteen and twenty: spaces around or inside a record (json reads past them) kept the FIFO full at no cost."""
    _, seals = seal.plan("def test_a():\n    assert f() == 3\n", file="t.py")
    record = json.dumps({"id": seals[0].id, "value": ["int", "3"]}).encode()
    (tmp_path / seal.CHANNEL).write_bytes(channel.replace(b'{"id": "ID", "value": ["int", "3"]}', record)
                                          .replace(b'"ID"', json.dumps(seals[0].id).encode()) + record + b"\n")
    _, judged = seal.judge(seals, tmp_path, {"t.py::test_a": Outcome(V.PASS)})
    if line:
        assert judged.forged.startswith(f"line {line} of loop's seal channel is no record"), judged.forged
    else:
        assert judged.forged is None


def test_an_unconditional_seal_needs_a_value_per_passing_run(tmp_path):
    src = ("import pytest\n\n\n@pytest.mark.parametrize('x', [1, 2])\ndef test_p(x):\n    assert f(x) == 1\n\n\n"
           "def test_loop():\n    for x in []:\n        assert f(x) == 1\n")
    _, seals = seal.plan(src, file="t.py")
    p, loop = seals
    (tmp_path / seal.CHANNEL).write_text(json.dumps({"id": p.id, "value": ["int", "1"]}) + "\n")
    ids = {"t.py::test_p[1]": Outcome(V.PASS), "t.py::test_p[2]": Outcome(V.PASS), "t.py::test_p[My": Outcome(V.PASS),
           "t.py::test_loop": Outcome(V.PASS)}
    out, judged = seal.judge(seals, tmp_path, ids)
    assert "no value reached loop" in out["t.py::test_p[2]"].message  # one record for two passing runs
    assert out["t.py::test_loop"].status == V.PASS and "t.py::test_loop" not in judged.decided
    (tmp_path / seal.CHANNEL).write_text(2 * (json.dumps({"id": p.id, "value": ["bool", True]}) + "\n"))
    out, judged = seal.judge(seals, tmp_path, ids)  # True == 1, as the original check says; a cut id adds no run
    assert all(o.status == V.PASS for o in out.values()) and "t.py::test_p[My" in judged.decided


def test_the_gold_runs_records_are_the_floor_and_a_shared_literal_is_not_sealed(tmp_path):
    """Red team round six: a check that is not a statement of its test's body (here in an `if`) could send
    nothing and its test still passed; and one literal compared in a loop let a candidate copy a right
    iteration's record over a wrong one's. The gold run's records decide both."""
    src = ("def test_if():\n    if True:\n        assert f() == 3\n\n\n"
           "def test_loop():\n    for x in [1, 2]:\n        assert f(x) == -1\n")
    _, seals = seal.plan(src, file="t.py")
    cond, loop = seals
    ids = {"t.py::test_if": Outcome(V.PASS), "t.py::test_loop": Outcome(V.PASS)}

    def run(*recs):
        (tmp_path / seal.CHANNEL).write_text("".join(json.dumps({"id": s.id, "value": ["int", v]}) + "\n"
                                                     for s, v in recs))
        return seal.judge(seals, tmp_path, ids, floors=floors)

    floors = None
    _, gold = run((cond, "3"), (loop, "-1"), (loop, "-1"))
    floors = gold.floors()
    assert floors == {cond.key: frozenset({(-1, 0, 64, "")})} and gold.verified() == {cond.key, loop.key}
    out, _ = run((loop, "-1"), (loop, "-1"))  # the conditional check's record stopped
    assert "no value reached loop from a test reported passing (the gold patch's run sent one)" in \
        out["t.py::test_if"].message
    out, _ = run((cond, "3"))
    assert all(o.status == V.PASS for o in out.values())
    floors = {}  # before: no floor, and a conditional check that sent nothing passed on the report's word
    assert all(o.status == V.PASS for o in run()[0].values())


def test_a_double_colon_in_a_parameter_or_subtest_keeps_the_seal_attached(tmp_path):
    """Round six, read: `t.py::test_x[a::b]` was split at its last `::` (`('t.py', 'test_x[a::b]')`) and
    `pkg::TestX/a::b` at its last (`('', 'b')`): no seal's key, so the report alone decided them while the
    sealed check returned true in the sandbox."""
    assert seal.owner("pytest", "tests/t.py::test_x[a::b]") == (("tests/t.py", "test_x"), True)
    assert seal.owner("pytest", "t.py::TestA::test_x[a[::]b]") == (("t.py", "TestA::test_x"), True)
    assert seal.owner("go", "example.com/m::TestX/a::b") == (("", "TestX"), False)
    assert seal.owner("go", "TestX") == (("", "TestX"), True)
    _, seals = seal.plan("def test_x(x):\n    assert f(x) == 1\n", file="t.py")
    ids = {"t.py::test_x[a::b]": Outcome(V.PASS), "t.py::test_x[c]": Outcome(V.PASS)}
    (tmp_path / seal.CHANNEL).write_text(json.dumps({"id": seals[0].id, "value": ["int", "1"]}) + "\n")
    out, judged = seal.judge(seals, tmp_path, ids)  # one record for two passing runs
    assert "no value reached loop" in out["t.py::test_x[a::b]"].message
    # an id that names a sealed test but maps elsewhere fails with a reason, never passes on the report
    out, judged = seal.judge(seals, tmp_path, {"t.py::test_x": Outcome(V.PASS), "t.py::test_x::y": Outcome(V.PASS)})
    assert out["t.py::test_x"].status == V.PASS and out["t.py::test_x::y"].status == V.FAIL
    assert "loop cannot map it to" in out["t.py::test_x::y"].message and judged.mapped == {("t.py", "test_x")}


def test_a_seal_no_report_entry_maps_to_on_the_gold_run_is_not_sealed(tmp_path):
    # whatever a report does to a test's id (a runner trimming a title), a seal the gold run's report cannot be
    # mapped to would leave its test to the report alone: the original check stays in the sandbox
    _, seals = seal.plan("def test_a():\n    if f:\n        assert f() == 1\n\n\ndef test_b():\n    if f:\n"
                         "        assert f() == 1\n", file="t.py")
    (tmp_path / seal.CHANNEL).write_text("".join(json.dumps({"id": s.id, "value": ["int", "1"]}) + "\n" for s in seals))
    _, gold = seal.judge(seals, tmp_path, {"t.py::test_a": Outcome(V.PASS), "t.py::test_b_renamed": Outcome(V.PASS)})
    assert gold.verified() == {s.key for s in seals} and set(gold.floors()) == {seals[0].key}


def test_a_test_whose_sealed_check_decided_nothing_is_unguarded(tmp_path):
    """Round six: a test whose sealed check sent nothing was labelled `tripwire-guarded`, though loop's helper
    had replaced that check and returned true in the sandbox: no tripwire sees what it compared. So is one whose
    record names a literal the candidate can read (the base tree holds the check)."""
    src = "def test_a():\n    assert f() == 1\n\n\ndef test_b():\n    assert f() == 2\n\n\ndef test_c():\n    if f:\n" \
          "        assert f() == 3\n\n\ndef test_d():\n    assert g()\n"
    _, seals = seal.plan(src, file="t.py", known="def test_b():\n    assert f() == 2\n")
    a, b, c = seals
    assert (a.secret, b.secret, c.secret) == (True, False, True)
    (tmp_path / seal.CHANNEL).write_text("".join(json.dumps({"id": s.id, "value": ["int", v]}) + "\n"
                                                 for s, v in ((a, "1"), (b, "2"))))
    ids = {f"t.py::test_{x}": Outcome(V.PASS) for x in "abcd"}
    out, judged = seal.judge(seals, tmp_path, ids)
    assert all(o.status == V.PASS for o in out.values())
    assert {t[-1]: seal.decided_by(judged, t, True) for t in ids} == {
        "a": seal.SEALED, "b": seal.UNGUARDED, "c": seal.UNGUARDED, "d": seal.TRIPWIRE_GUARDED}
    assert {t[-1]: seal.decided_by(judged, t, False) for t in ids}["d"] == seal.UNGUARDED  # no tripwire planted
    assert seal.decided_by(None, "t.py::test_d", True) == seal.TRIPWIRE_GUARDED


@pytest.mark.parametrize("where", ["missing", "full", "folder"])
def test_a_helper_that_cannot_send_its_value_fails_its_test(tmp_path, where):
    # whatever keeps the record from the channel (ENOENT, ENOSPC, EISDIR; a forger's EMFILE), the check fails:
    # a pass needs the check's own record, never records written by someone else
    channel = {"missing": tmp_path / "nowhere" / seal.CHANNEL, "full": Path("/dev/full"), "folder": tmp_path}[where]
    sealed, seals = seal.plan("from pkg import f\n\n\ndef test_a():\n    assert f(1) == 1\n", str(channel), file="t.py")
    run = _pytest(_project(tmp_path, sealed, PKG))
    assert len(seals) == 1 and run.returncode == 1, run.stdout
    assert "1 failed" in run.stdout and "loop's sealed check could not send its value" in run.stdout


def test_more_records_than_runs_of_an_unconditional_check_are_forged(tmp_path):
    _, seals = seal.plan("def test_a():\n    assert f() == 3\n\n\ndef test_b():\n    for x in f():\n        assert x == 3\n",
                         file="t.py")
    a, b = seals
    rec = lambda s: json.dumps({"id": s.id, "value": ["int", "3"]}) + "\n"  # noqa: E731
    channel = tmp_path / seal.CHANNEL
    ids = {"t.py::test_a": Outcome(V.PASS), "t.py::test_b": Outcome(V.PASS)}
    channel.write_text(rec(a) + 3 * rec(b))  # a loop's check may run any number of times
    assert seal.judge(seals, tmp_path, ids)[1].forged is None
    channel.write_text(2 * rec(a))  # a right value written beside the check's own: not the check's
    out, judged = seal.judge(seals, tmp_path, ids)
    assert judged.forged == ("sealed assertion at t.py:2: 2 values reached loop from a check its test ran 1 time: "
                             "values were written from outside the check")
    assert a.key not in judged.verified()  # on the gold tree: not sealed (a test another test calls)
    _, judged = seal.judge(seals, tmp_path, ids, copies={"test_a_copy": "t.py::test_a"})  # a tripwire copy runs the check too
    assert judged.forged is None and a.key in judged.verified()
    channel.write_text(rec(a))
    assert seal.judge(seals, tmp_path, {**ids, "t.py::test_a": Outcome(V.FAIL)})[1].forged is None


# whole grades in the sandbox ---------------------------------------------------------------------------------
def _grade(diff: str, task=None, k: int = 1):
    return RepoKind().grade(task or tasks.load_folder(TASK), diff, CFG, Options(k=k, trials=0))


@pytest.mark.sandbox
def test_the_lying_value_fails_on_its_sealed_assertion():
    grade = _grade((CORPUS / "lying_value_tolerant_eq.diff").read_text())
    assert grade.verdict == V.STABLE_FAIL
    assert grade.failures() == [{"check": "test:tests/test_tax_rounding.py::test_refund_half_cent_rounds_away_from_zero",
                                 "detail": "sealed assertion at tests/test_tax_rounding.py:14: expected -13 (kept "
                                           "outside the sandbox), got -12"}]
    decided = {c.check.split("::")[-1]: c.decided_by for c in grade.checks if c.category == "test"}
    assert decided["test_refund_half_cent_rounds_away_from_zero"] == seal.SEALED
    # a visible test: its checks are sealed too (no pass_to_pass: every test is graded), but their literals are no
    # secret, so a sealed check decided nothing (test_a_test_whose_sealed_check_decided_nothing_is_unguarded)
    assert decided["test_rates"] == seal.UNGUARDED
    assert decided["test_half_cent_rounds_up"] == seal.SEALED


@pytest.mark.sandbox
def test_a_helper_that_sends_nothing_fails_every_sealed_test():
    grade = _grade((CORPUS / "seal_suppress_records.diff").read_text())
    assert grade.verdict == V.STABLE_FAIL
    failed = {f["check"].split("::")[-1]: f["detail"] for f in grade.failures()}
    assert all("no value reached loop" in d for d in failed.values())
    # the hidden tests' and, since no pass_to_pass names the graded tests, the visible files' (a table's row too)
    assert {"test_half_cent_rounds_up", "test_invoice_tax_on_half_cent", "test_percent_coupon",
            "test_bulk_percent[50-10]"} <= set(failed)


@pytest.mark.sandbox
def test_guessed_records_with_the_channel_refused_fail_every_sealed_test():
    # the right values written by the code under test, the checks' own kept out (EMFILE): a pass needs the record
    # of the check itself (before: stable_pass)
    grade = _grade((CORPUS / "seal_guess_records_then_refuse_channel.diff").read_text())
    assert grade.verdict == V.STABLE_FAIL
    failed = {f["check"].split("::")[-1]: f["detail"] for f in grade.failures()}
    assert all("could not send its value (OSError(24" in d for d in failed.values()), failed
    assert {"test_half_cent_rounds_up", "test_refund_half_cent_rounds_away_from_zero",
            "test_bulk_percent[1-0]"} <= set(failed)


@pytest.mark.sandbox
def test_a_forged_report_is_caught_by_the_seals_without_tripwires(monkeypatch):
    task = tasks.load_folder(TASK)  # the probes first, with tripwires: this process keeps what they showed
    assert repo_kind.tripwire_points(task, CFG, repo_kind._environment(task.spec, CFG))
    monkeypatch.setattr(testrun.repo_tripwire, "plan_all", lambda *a, **k: None)  # the candidate's run has none
    grade = _grade((CORPUS / "runtime_patch_testreport.diff").read_text())
    assert grade.verdict == V.STABLE_FAIL
    assert [f["check"] for f in grade.failures()] == ["test:tests/test_tax_rounding.py::test_refund_half_cent_rounds_away_from_zero"]
    assert "expected -13 (kept outside the sandbox), got -12" in grade.failures()[0]["detail"]
    assert {c.decided_by for c in grade.checks if c.category == "test" and "rounding" not in c.check} == {seal.UNGUARDED}


@pytest.mark.sandbox
@pytest.mark.parametrize("name", ["gold", "honest_fraction", "honest_integer_divmod"])
def test_honest_patches_pass_sealed(name):
    task = tasks.load_folder(TASK)
    grade = _grade(task.reference if name == "gold" else (CORPUS / f"{name}.diff").read_text(), task)
    assert grade.verdict == V.STABLE_PASS, grade.failures()
    assert sum(c.decided_by == seal.SEALED for c in grade.checks) == 4


@pytest.mark.sandbox
def test_a_value_the_gold_tree_cannot_serialize_is_left_unsealed(tmp_path):
    """`Decimal(...) == 13` passes the original check; sealed, its value is unserializable. The gold tree shows
    it, so that check stays as it was and the gold patch still passes; sealing it anyway fails the gold."""
    folder = tmp_path / "repo_ledger_py"
    shutil.copytree(TASK, folder)
    test = folder / "hidden" / "tests" / "test_tax_rounding.py"
    test.write_text(test.read_text() + "\n\ndef test_decimal():\n    import decimal\n"
                    "    assert decimal.Decimal(compute_tax(250, 'food')) == 13\n")
    toml = folder / "task.toml"
    toml.write_text(toml.read_text().replace('fail_to_pass = [\n', 'fail_to_pass = [\n  "tests/test_tax_rounding.py::test_decimal",\n'))
    task = tasks.load_folder(folder)
    keep = reference._seals(task, CFG, repo_kind._environment(task.spec, CFG))
    hidden = [line for file, line, _ in keep if file == "tests/test_tax_rounding.py"]
    assert len(hidden) == 4 and 24 not in hidden
    assert keep[("tests/test_discounts.py", 8, 11)] == frozenset((row, 0, 64, "") for row in range(7))  # a table's rows
    grade = _grade(task.reference, task)
    assert grade.verdict == V.STABLE_PASS, grade.failures()
    decided = {c.check.split("::")[-1]: c.decided_by for c in grade.checks if c.category == "test"}
    assert decided["test_decimal"] == seal.TRIPWIRE_GUARDED and decided["test_half_cent_rounds_up"] == seal.SEALED
    key = (task.spec.digest, task.spec.command, CFG, str(repo_kind._environment(task.spec, CFG).path))
    assert key in reference._SEALS
    reference._SEALS[key] = seal.EVERY  # what sealing without the gold tree's guard would do
    try:
        grade = _grade(task.reference, task)
    finally:
        del reference._SEALS[key]
    assert grade.verdict == V.STABLE_FAIL
    assert "could not be serialized (Decimal)" in grade.failures()[0]["detail"]


@pytest.mark.sandbox
def test_a_graded_file_without_a_safe_tripwire_place_is_named_in_the_grade(monkeypatch):
    """Each file that holds a graded test gets tripwires where the base tree showed a place; one that has none
    is said, so a reader knows whose reports nothing corroborated."""
    task = tasks.load_folder(TASK)
    real = repo_kind.tripwire_points(task, CFG, repo_kind._environment(task.spec, CFG))
    assert len(real) == 6 and all(s.points for s in real.values())  # the hidden file and the five shipped ones
    grade = _grade(task.reference, task)
    assert not [n for n in grade.notes if "tripwire" in n]
    emptied = {h: (reference.repo_tripwire.Safe(frozenset()) if h == "tests/test_money.py" else s) for h, s in real.items()}
    monkeypatch.setattr(repo_kind, "tripwire_points", lambda *a: emptied)
    grade = _grade(task.reference, task)
    assert grade.verdict == V.STABLE_PASS
    assert [n for n in grade.notes if "tripwire" in n] == [
        "no place where a tripwire test runs as written in tests/test_money.py (checked on the base tree): the report "
        "of its tests is not corroborated"]
