"""Sealed assertions in node --test and go test files (issue 41): which checks the plan seals, the helpers'
strict serialization run for real by node and go (a patched assert module, valueOf/toJSON objects, subclasses,
named types with their own String(), an interface holding a named type), the parent's verdicts matching what the
original checks say on honest values, and whole grades where the seals alone catch a forged report."""

from __future__ import annotations

import json
import os
import random
import subprocess
import tempfile
from pathlib import Path

import pytest

from conftest import ROOT
from loop import tasks
from loop import verdicts as V
from loop.grading.model import Options
from loop.kinds.repo import seal, testrun
from loop.kinds.repo.kind import RepoKind
from loop.kinds.repo.seal_js_go import with_channel
from loop.kinds.repo.results import Outcome, parse_go_test_json, parse_junit
from loop.sandbox import SandboxConfig

CFG = SandboxConfig()
CORPUS = ROOT / "tests" / "adversarial" / "repo_candidates"

JS_TESTS = """\
import { describe, it, test } from 'node:test';
import assert from 'node:assert/strict';
import * as loose from 'node:assert';
import { deepStrictEqual as same } from 'node:assert';
import { cut, nothing, obj, thing, sub, negzero, lone, words } from './pkg.mjs';

function helper() { assert.equal(cut('abc'), 'ab'); }  // not in a test: never sealed

describe('suite', () => {
  test('strict', () => assert.equal(cut('abc'), 'ab'));
  test('block', () => {
    const x = cut('abcd');  // the expected value 'abc' in a comment goes too
    assert.strictEqual(x, 'abc', 'message that says abc');
    if (x) assert.equal(cut('xy'), 'x');
  });
  it('deep', () => {
    same(words(), { b: [1, 2.5, null], a: 'é' });
    assert.deepEqual(nothing(), undefined);
  });
  test('tricky', () => {
    assert.deepStrictEqual(obj(), { v: 'x' });
  });
  test('class', () => assert.deepStrictEqual(thing(), {}));
  test('subclass', () => assert.deepStrictEqual(sub(), [1]));
  test('negzero', () => assert.strictEqual(negzero(), 0));
  test('lone', () => assert.strictEqual(lone(), 'a\\ud800'));
  test('legacy loose', () => loose.equal(cut('abc'), 'ab'));
  test(`computed ${1}`, () => assert.equal(cut('abc'), 'ab'));
});
"""

JS_PKG = """\
import assert from 'node:assert/strict';
import * as loose from 'node:assert';
export const cut = (s) => s.slice(0, -1);
export const nothing = () => undefined;
export const obj = () => ({ v: 'y', toJSON() { return { v: 'x' }; }, valueOf() { return 'x'; } });
class Thing {}
export const thing = () => new Thing();
class MyArray extends Array {}
export const sub = () => MyArray.from([1]);
export const negzero = () => -0;
export const lone = () => 'a\\ud800';
export const words = () => ({ a: 'é', b: [1, 2.5, null] });
"""

LYING = """
// a lying equality: every comparison of both assert modules passes, named imports too
import { syncBuiltinESMExports } from 'node:module';
for (const name of ['equal', 'strictEqual', 'deepEqual', 'deepStrictEqual']) {
  assert[name] = () => {};
  loose.default[name] = () => {};
}
syncBuiltinESMExports();
"""


def _node(proj: Path) -> dict[str, Outcome]:
    subprocess.run(["node", "--test", "--test-reporter=junit", "--test-reporter-destination=report.xml",
                    "t.test.mjs"], cwd=proj, capture_output=True, timeout=120)
    return parse_junit((proj / "report.xml").read_text())


def test_node_plan_seals_strict_checks_in_test_callbacks_only():
    sealed, seals, extra = seal.plan_file("node", JS_TESTS, file="t.test.mjs", rng=random.Random(3))
    got = {(s.line, s.test, s.op, s.unconditional): s.literal for s in seals}
    assert got == {(10, "suite > strict", "strict", True): "ab", (13, "suite > block", "strict", True): "abc",
                   (14, "suite > block", "strict", False): "x",
                   (17, "suite > deep", "deep", True): {"b": [1.0, 2.5, None], "a": "é"},
                   (18, "suite > deep", "deep", True): seal.js_go.UNDEFINED,
                   (21, "suite > tricky", "deep", True): {"v": "x"}, (23, "suite > class", "deep", True): {},
                   (24, "suite > subclass", "deep", True): [1.0], (25, "suite > negzero", "strict", True): 0.0,
                   (26, "suite > lone", "strict", True): "a\ud800", (27, "suite > legacy loose", "loose", True): "ab"}
    assert extra is None and all(s.style == "node" and s.secret for s in seals)
    kept = sealed.split("\nimport * as _loop_fs_")[0]
    assert kept.count("\n") == JS_TESTS.count("\n") and "//" not in kept and "message" not in kept
    for gone in ("says abc", "'x'", "2.5", "'é'", "{ v: 'x' }", "ud800", "undefined"):
        assert gone in JS_TESTS and gone not in kept, gone
    assert "'ab'" not in kept.split("legacy loose")[1].split("\n")[0]  # legacy assert.equal: sealed, compared as ==
    assert "`computed ${1}`, () => assert.equal(cut('abc'), 'ab')" in kept
    _, again, _ = seal.plan_file("node", JS_TESTS, file="t.test.mjs", known=JS_TESTS)
    assert not any(s.secret for s in again)  # the base tree holds the same checks: their literals are no secret


@pytest.mark.parametrize("lying", [False, True])
def test_node_sealed_values_are_judged_as_the_assertions_compare(tmp_path, lying):
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "pkg.mjs").write_text(JS_PKG + (LYING if lying else ""))
    (proj / "t.test.mjs").write_text(JS_TESTS)
    plain = _node(proj)
    assert len(plain) == 10 and (all(o.status == V.PASS for o in plain.values()) if lying else
                                 {t for t, o in plain.items() if o.status != V.PASS} ==
                                 {"suite > tricky", "suite > class", "suite > subclass", "suite > negzero"})
    channel = tmp_path / "out" / seal.CHANNEL
    channel.parent.mkdir()
    sealed, seals, _ = seal.plan_file("node", JS_TESTS, str(channel), file="t.test.mjs")
    (proj / "t.test.mjs").write_text(sealed)
    outcomes = _node(proj)
    assert all(o.status == V.PASS for o in outcomes.values())  # inside, every sealed check passes
    judged, verdicts = seal.judge(seals, channel.parent, outcomes)
    honest = _node_plain(tmp_path) if lying else plain
    assert {t: o.status for t, o in judged.items()} == {t: o.status for t, o in honest.items()}
    said = {t: o.message for t, o in judged.items()}
    assert "could not be serialized (a function)" in said["suite > tricky"]
    assert "could not be serialized (Thing)" in said["suite > class"]
    assert "could not be serialized (MyArray)" in said["suite > subclass"]
    assert said["suite > negzero"].endswith("expected 0 (kept outside the sandbox), got -0")
    assert {"suite > lone", "suite > legacy loose"} <= verdicts.decided


LEGACY = """\
import { test } from 'node:test';
import assert from 'node:assert';
import { equal } from 'node:assert';
const three = () => 3, yes = () => true, nil = () => null, list = () => [3], text = () => ' 0x3 ';

test('number and string', () => assert.equal(three(), '3'));
test('boolean and number', () => equal(yes(), 1));
test('null and undefined', () => assert.equal(nil(), undefined));
test('string read as a number', () => assert.equal(text(), 3));
test('wrong', () => assert.equal(three(), '4'));
test('null is not 0', () => assert.equal(nil(), 0));
test('an array is compared as its string form', () => assert.equal(list(), '3'));
"""


def test_node_legacy_equal_is_sealed_and_judged_as_double_equals(tmp_path):
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "t.test.mjs").write_text(LEGACY)
    plain = _node(proj)
    channel = tmp_path / "out" / seal.CHANNEL
    channel.parent.mkdir()
    sealed, seals, _ = seal.plan_file("node", LEGACY, str(channel), file="t.test.mjs")
    assert len(seals) == 7 and {s.op for s in seals} == {"loose"} and "'4'" not in sealed
    (proj / "t.test.mjs").write_text(sealed)
    judged, _ = seal.judge(seals, channel.parent, _node(proj))
    status = {t: o.status for t, o in judged.items()}
    assert {t: o.status for t, o in plain.items()} == {**status, "an array is compared as its string form": V.PASS}
    assert [t for t, st in status.items() if st != V.PASS] == ["wrong", "null is not 0",
                                                               "an array is compared as its string form"]
    assert judged["wrong"].message.endswith("expected '4' (kept outside the sandbox), got 3")


@pytest.mark.parametrize("where", ["missing", "full"])
def test_a_node_helper_that_cannot_send_its_value_fails_its_test(tmp_path, where):
    channel = tmp_path / "nowhere" / seal.CHANNEL if where == "missing" else Path("/dev/full")
    one = JS_TESTS.split("\ndescribe")[0] + "\ntest('one', () => assert.equal(cut('abc'), 'ab'));\n"
    sealed, seals, _ = seal.plan_file("node", one, str(channel), file="t.test.mjs")
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "pkg.mjs").write_text(JS_PKG)
    (proj / "t.test.mjs").write_text(sealed)
    [(test_id, outcome)] = _node(proj).items()
    assert len(seals) == 1 and test_id == "one" and outcome.status == V.FAIL
    assert "loop's sealed check could not send its value (" + ("ENOENT" if where == "missing" else "ENOSPC") in \
        outcome.message


def _node_plain(tmp_path: Path) -> dict[str, Outcome]:
    honest = tmp_path / "honest"
    honest.mkdir()
    (honest / "pkg.mjs").write_text(JS_PKG)
    (honest / "t.test.mjs").write_text(JS_TESTS)
    return _node(honest)


GO_TESTS = """\
package p

import "testing"

// Order's String says what a reader wants; a sealed check reads the number.
func TestCompare(t *testing.T) {
	if got := Cmp(1, 2); got != -1 {
		t.Fatalf("Cmp = %v, want -1", got)
	}
}

func TestName(t *testing.T) {
	want := "v1.2.0"
	if got := string(Name()); got != want {
		t.Errorf("Name = %s, want %s", got, want)
	}
}

func TestBoxed(t *testing.T) {
	var got any = Cmp(2, 1)
	if got != 1 {
		t.Fatal("boxed")
	}
}

func TestFloat(t *testing.T) {
	if Half() != 0.5 || Third() != 0.1 {
		t.Error("float32")
	}
}

func TestRows(t *testing.T) {
	for _, c := range []struct{ a, b int }{{1, 2}, {3, 4}} {
		t.Run("row", func(t *testing.T) {
			if got := Cmp(c.a, c.b); got != -1 {
				t.Fatal("row")
			}
		})
	}
}

func TestTable(t *testing.T) {
	rows := []struct {
		a, b int
		want Order
		name string
	}{
		{1, 2, -1, "lt"},
		{b: 1, a: 2, want: 1, name: "gt"},
	}
	for i, c := range rows {
		t.Run(c.name, func(t *testing.T) {
			if got := Cmp(c.a, c.b); got != c.want {
				t.Fatalf("row %d: %v, want %v", i, got, c.want)
			}
			if got := Cmp(c.b, c.a); got != -c.want {
				t.Fatal("antisymmetry")
			}
		})
	}
}

func TestNamedByWant(t *testing.T) {
	for _, c := range []struct{ in, want string }{{"x", "v1.2.0"}} {
		t.Run(c.want, func(t *testing.T) {
			if string(Name()) != c.want {
				t.Fatal("not sealed: the subtest is named by the value")
			}
		})
	}
}

func TestAnd(t *testing.T) {
	if Cmp(1, 2) != -1 && Name() != "x" {
		t.Fatal("not sealed: a conjunction")
	}
}
"""

GO_PKG = """\
package p

type Order int

func (o Order) String() string { return "-1" }

type Ver string

func (v Ver) String() string { return "v1.2.0" }

func Cmp(a, b int) Order {
	if a < b {
		return -1
	}
	return 1
}

func Name() Ver { return Ver("v1.2.0") }

func Half() float32 { return 0.5 }

func Third() float32 { return 0.1 }
"""


def _go(proj: Path, cache: Path) -> dict[str, Outcome]:
    env = {**os.environ, "GOCACHE": str(cache), "GOFLAGS": "-count=1", "GOPROXY": "off", "GOTOOLCHAIN": "local",
           "CGO_ENABLED": "0"}
    done = subprocess.run(["go", "test", "-json", "./..."], cwd=proj, capture_output=True, text=True, timeout=300,
                          env=env)
    return parse_go_test_json(done.stdout)


def _go_in_fresh_cache(proj: Path, channel) -> dict[str, Outcome]:
    """_go with a build cache of its own, removed after, while `channel` drains."""
    cache = Path(tempfile.mkdtemp(prefix="loop-test-gocache-"))
    try:
        with channel:
            return _go(proj, cache)
    finally:
        subprocess.run(["chmod", "-R", "u+w", str(cache)])
        subprocess.run(["rm", "-rf", str(cache)])


def test_go_plan_and_helper_judge_as_go_compares(tmp_path):
    sealed, seals, extra = seal.plan_file("go", GO_TESTS, file="p_test.go", rng=random.Random(5))
    # each term of a disjunction runs whenever the test passes; a subtest's check is conditional
    assert sorted((s.line, s.test, s.unconditional, s.literal.values, s.literal.table, s.literal.negate)
                  for s in seals) == [
        (7, "TestCompare", True, (-1,), False, False), (14, "TestName", True, (b"v1.2.0",), False, False),
        (21, "TestBoxed", True, (1,), False, False), (27, "TestFloat", True, (0.1,), False, False),
        (27, "TestFloat", True, (0.5,), False, False), (35, "TestRows", False, (-1,), False, False),
        (53, "TestTable", False, (-1, 1), True, False), (56, "TestTable", False, (-1, 1), True, True)]
    assert "{1, 2, 0, \"lt\"}" in sealed and "{b: 1, a: 2, want: 0, name: \"gt\"}" in sealed
    assert sealed.count("\n") == GO_TESTS.count("\n") and "//" not in sealed
    assert sealed.count('"v1.2.0"') == 1 and "want -1" not in sealed and "want ?" in sealed  # one: TestNamedByWant
    assert "Cmp(1, 2) != -1 && Name() != \"x\"" in sealed  # a conjunction stays as written
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "go.mod").write_text("module example.com/p\n\ngo 1.19\n")
    (proj / "p.go").write_text(GO_PKG)
    (proj / "p_test.go").write_text(GO_TESTS)
    cache = Path(tempfile.mkdtemp(prefix="loop-test-gocache-"))
    try:
        plain = _go(proj, cache)
        channel = tmp_path / "out" / seal.CHANNEL
        channel.parent.mkdir()
        sealed, seals, extra = seal.plan_file("go", GO_TESTS, str(channel), file="p_test.go")
        channel.touch()  # the helper sends only through the channel it was written for (its device and inode)
        (proj / "p_test.go").write_text(sealed)
        (proj / extra[0]).write_text(with_channel(extra[1], channel.stat().st_dev, channel.stat().st_ino))
        outcomes = _go(proj, cache)
    finally:
        subprocess.run(["chmod", "-R", "u+w", str(cache)])
        subprocess.run(["rm", "-rf", str(cache)])
    status = {t.split("::")[-1]: o.status for t, o in plain.items()}
    # the original: a boxed Order is not the int 1 (Go compares the dynamic type); the rest pass
    assert status["TestBoxed"] == V.FAIL and [t for t, s in status.items() if s != V.PASS] == ["TestBoxed"], status
    assert all(o.status == V.PASS for o in outcomes.values()), outcomes
    honest = channel.read_text()
    judged, verdicts = seal.judge(seals, channel.parent, outcomes)
    assert {t: o.status for t, o in judged.items()} == {t: o.status for t, o in plain.items()}
    boxed = next(o.message for t, o in judged.items() if t.endswith("TestBoxed"))
    assert boxed.endswith("expected 1 (kept outside the sandbox), got p.Order(1)")
    assert {t.split("::")[-1] for t in verdicts.decided} >= {"TestCompare", "TestName", "TestRows/row", "TestTable/gt"}
    # a wrong row fails its test and every subtest of it
    rows = next(s for s in seals if s.test == "TestRows")
    channel.write_text(channel.read_text() + json.dumps({"id": rows.id, "value": ["go", "int", "1", "p.Order",
                                                                                  False, 64, -1, ""]}) + "\n")
    judged, _ = seal.judge(seals, channel.parent, outcomes)
    assert {t.split("::")[-1] for t, o in judged.items() if o.status != V.PASS} == {"TestBoxed", "TestRows",
                                                                                     "TestRows/row", "TestRows/row#01"}
    floats = [s for s in seals if s.test == "TestFloat"]  # a float32 record no float32 holds fails, never raises
    table = [s for s in seals if s.test == "TestTable"]  # a row the table has not is no row's value
    channel.write_text(json.dumps({"id": floats[0].id, "value": ["go", "float", "1e300", "float32", False, 32, -1, ""]})
                       + "\n" + json.dumps({"id": table[1].id, "value": ["go", "int", "1", "p.Order", False, 64, 2, ""]})
                       + "\n")
    judged, _ = seal.judge(seals, channel.parent, outcomes)
    assert next(o.status for t, o in judged.items() if t.endswith("TestFloat")) == V.FAIL
    assert "expected a value of one of 2 rows (row 2)" in next(o.message for t, o in judged.items()
                                                               if t.endswith("TestTable/gt"))
    # With the gold run's marks (each record says the subtest it ran in: `t.Name()`), a wrong row fails its own
    # subtest and its test, not its siblings. The row decides, not the name a record gives (the sandbox's word;
    # a tripwire's copy sends its own).
    floors = verdicts.floors(outcomes)
    gt = next(s for s in seals if s.test == "TestTable" and not s.literal.negate)
    assert floors[gt.key] == {(0, 0, 64, "TestTable/lt"), (1, 0, 64, "TestTable/gt")}
    mine = [json.loads(line) for line in honest.splitlines()]
    for name in ("TestTable/gt", "TestTable/lt"):
        wrong = [r if r["id"] != gt.id or r["value"][-2] != 1 else
                 {**r, "value": [*r["value"][:2], "2", *r["value"][3:-1], name.encode().hex()]} for r in mine]
        channel.write_text("".join(json.dumps(r) + "\n" for r in wrong))
        judged, _ = seal.judge(seals, channel.parent, outcomes, floors=floors)
        assert {t.split("::")[-1] for t, o in judged.items() if o.status != V.PASS} == {"TestBoxed", "TestTable",
                                                                                         "TestTable/gt"}


GO_PLAN = """\
package p

import "testing"

func TestF(t *testing.T) {
	if F() != 0.1 {
		t.Fatal("f")
	}
}

func TestBox(t *testing.T) {
	var got any = N()
	if got != 1 {
		t.Fatal("box")
	}
}

func TestTab(t *testing.T) {
	for _, c := range []struct{ in, want int }{{1, 10}, {2, 20}, {3, 30}} {
		if c.in != 2 {
			if got := N2(c.in); got != c.want {
				t.Fatal("tab")
			}
		}
	}
}
"""


def test_a_go_record_from_a_subtest_the_report_never_names_is_forged(tmp_path):
    """Red team round twenty-one kept loop's FIFO full with the well-formed pieces of one record from a made-up
    subtest of a hidden test (it failed only that ungraded parent), while rewriting the real record in the test
    process's memory: a subtest a finished test's report never names sent nothing honest."""
    _, seals, _ = seal.plan_file("go", GO_PLAN, file="p_test.go")
    tab = max(seals, key=lambda s: s.line)
    reported = {f"example.com/p::{t}": Outcome(V.PASS) for t in ("TestF", "TestBox", "TestTab", "TestTab/real")}
    line = lambda name: json.dumps({"id": tab.id, "value": ["go", "int", "a", "int", False, 64, 0,  # noqa: E731
                                                           name.encode().hex()]}) + "\n"
    (tmp_path / seal.CHANNEL).write_text(line("TestTab/real"))
    assert seal.judge(seals, tmp_path, reported, reported=reported)[1].forged is None
    (tmp_path / seal.CHANNEL).write_text(line("TestTab/real") + line("TestTab/made_up"))
    forged = seal.judge(seals, tmp_path, reported, reported=reported)[1].forged
    assert forged and "'TestTab/made_up', a subtest the report never names" in forged
    # a test the report does not name as finished (a run cut short) proves nothing: no accusation
    cut = {t: o for t, o in reported.items() if "TestTab" not in t}
    assert seal.judge(seals, tmp_path, cut, reported=cut)[1].forged is None


def test_a_go_record_is_compared_as_the_gold_run_compared_it(tmp_path):
    """Round six, read: a Go record's float width, interface-ness and row were the sandbox's word. `bits` 32 for
    a float64 check rounded both sides to float32 (a value off by ~1e-7 passed), `iface` false skipped the
    dynamic type's test, and a row could be sent any number of times or from a row the test never compared.
    They are taken from the gold run's records now; a record that says otherwise fails its test."""
    _, seals, _ = seal.plan_file("go", GO_PLAN, file="p_test.go")
    f, box, tab = sorted(seals, key=lambda s: s.line)
    ids = {f"example.com/p::{t}": Outcome(V.PASS) for t in ("TestF", "TestBox", "TestTab")}
    rec = lambda s, *v: json.dumps({"id": s.id, "value": ["go", *v, ""]}) + "\n"  # noqa: E731

    def judge(*lines, floors=None):
        (tmp_path / seal.CHANNEL).write_text("".join(lines))
        out, judged = seal.judge(seals, tmp_path, ids, floors=floors)
        return {t.split("::")[-1]: o.message if o.status != V.PASS else V.PASS for t, o in out.items()}, judged

    honest = [rec(f, "float", "0.1", "float64", False, 64, -1), rec(box, "int", "1", "int", True, 64, -1),
              rec(tab, "int", "a", "int", False, 64, 0), rec(tab, "int", "1e", "int", False, 64, 2)]
    got, gold = judge(*honest)
    floors = gold.floors()
    assert set(got.values()) == {V.PASS} and floors[tab.key] == {(0, 0, 64, ""), (2, 0, 64, "")}
    assert floors[f.key] == {(-1, 0, 64, "")} and floors[box.key] == {(-1, 1, 64, "")}
    assert set(judge(*honest, floors=floors)[0].values()) == {V.PASS}
    near = rec(f, "float", "0.10000000149011612", "float64", False, 32, -1)  # float32(0.1): off by 1.5e-9
    boxed = rec(box, "int", "1", "int64", False, 64, -1)  # Go: an int64 in an `any` is not the constant 1
    twice = rec(tab, "int", "a", "int", False, 64, 0)
    unseen = rec(tab, "int", "14", "int", False, 64, 1)  # row 1's literal, from a row the test never compares
    for lines, test, why in [
            ([near, *honest[1:]], "TestF", "sent as a static type, 32-bit floats; the gold patch's run compared a "
                                           "static type, 64-bit floats"),
            ([honest[0], boxed, *honest[2:]], "TestBox", "sent as a static type, 64-bit floats; the gold patch's "
                                                         "run compared an interface, 64-bit floats"),
            ([*honest, twice], "TestTab", "2 values from row 0 in 1 run of its test (the gold patch's run sent one)"),
            ([*honest, unseen], "TestTab", "a value from row 1, which the gold patch's run never compared (the "
                                           "record names its row and test)")]:
        assert judge(*lines, floors=floors)[0][test].endswith(why), (test, why)
        assert judge(*lines, floors={})[0][test] == V.PASS  # before: each record's own fields decided


def test_a_go_helper_that_cannot_send_its_value_fails_its_test(tmp_path):
    one = "package p\n\nimport \"testing\"\n\nfunc TestCmp(t *testing.T) {\n\tif Cmp(1, 2) != -1 {\n\t\tt.Fatal(\"no\")\n\t}\n}\n"
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "go.mod").write_text("module example.com/p\n\ngo 1.19\n")
    (proj / "p.go").write_text(GO_PKG)
    sealed, seals, extra = seal.plan_file("go", one, "/dev/full", file="p_test.go")  # ENOSPC on every write
    (proj / "p_test.go").write_text(sealed)
    (proj / extra[0]).write_text(extra[1])
    cache = Path(tempfile.mkdtemp(prefix="loop-test-gocache-"))
    try:
        outcomes = _go(proj, cache)
    finally:
        subprocess.run(["chmod", "-R", "u+w", str(cache)])
        subprocess.run(["rm", "-rf", str(cache)])
    # the helper says false, so the test's own failure call runs (the original passes: Cmp(1, 2) is -1)
    assert len(seals) == 1 and [o.status for o in outcomes.values()] == [V.FAIL], outcomes


def test_js_and_go_records_are_decoded_totally(tmp_path):
    _, seals, _ = seal.plan_file("node", "import { test } from 'node:test';\nimport assert from 'node:assert';\n"
                                 "test('a', () => assert.strictEqual(f(), 'x'));\n", file="t.test.js")
    sid = seals[0].id
    bad = [["u16", "d83"], ["u16", "zzzz"], ["num", "1;2"], ["num", "0x10"], ["array", "x"], ["object", [["k", 1]]],
           ["object", [[["num", "1"], ["none"]]]], ["go", "int", "1", "int", "no", 64, -1, ""], ["go", "huh", "1", "int", False, 64, -1, ""],
           ["go", "string", "zz", "string", False, 64, -1, ""], ["go", "float", "1", "float32", False, 16, -1, ""],
           ["go", "int", "1", "int", False, 64, "0", ""], ["go", "int", "1", "int", False, 64, -1],
           ["go", "int", "1", "int", False, 64, -1, 7], ["go", "int", "1", "int", False, 64, -1, "zz"], ["undefined", 1]]
    lines = [json.dumps({"id": sid, "value": v}) for v in bad] + [json.dumps({"id": sid, "value": ["u16", "0078"]})]
    (tmp_path / seal.CHANNEL).write_text("\n".join(lines) + "\n")
    got, stray = seal.records(tmp_path, seals)
    assert got == {sid: ["x"]} and stray.startswith("line 1 of loop's seal channel is no record")
    out, _ = seal.judge(seals, tmp_path, {"a": Outcome(V.PASS)})
    assert out["a"].status == V.PASS


# whole grades in the sandbox: the seals alone (no tripwires) catch what forges the report -------------------
# repo_semver_go: the flip-all forger with its own fix (wrong_pad_two_digits): one TestNumericPrerelease row wrong, a
# check whose one literal every row shares, sealed per subtest (each record names the subtest it ran in)
@pytest.mark.sandbox
@pytest.mark.parametrize("name, forger, failing", [
    ("repo_strkit_js", "runtime_noop_node_assert", {"truncate unicode > an astral ellipsis counts once"}),
    ("repo_semver_go", "runtime_init_reexec_flip_all",
     {"example.com/semver::TestNumericPrerelease/1.0.0-beta.11_before_1.0.0-beta.100"})])
def test_forged_reports_fail_on_sealed_checks_without_tripwires(monkeypatch, name, forger, failing):
    monkeypatch.setattr(testrun.repo_tripwire, "plan_all", lambda *a, **k: None)
    task = tasks.load(ROOT, name)
    diff = (CORPUS / name / f"{forger}.diff").read_text()
    grade = RepoKind().grade(task, diff, CFG, Options(k=1, trials=0))
    assert grade.verdict == V.STABLE_FAIL
    failed = {f["check"].removeprefix("test:"): f["detail"] for f in grade.failures()}
    assert failed and all(d.startswith("sealed assertion at ") for d in failed.values()), failed
    assert set(failed) == failing
    gold = RepoKind().grade(task, task.reference, CFG, Options(k=1, trials=0))
    assert gold.verdict == V.STABLE_PASS
    sealed = {c.check.removeprefix("test:") for c in gold.checks if c.decided_by == seal.SEALED}
    assert sealed == set(task.spec.fail_to_pass)  # Go's rows too: one `-1` compared by a subtest each


def test_go_long_records_from_parallel_subtests_arrive_whole(tmp_path):
    """Go's helper sends a record longer than PIPE_BUF as pieces: eight t.Parallel subtests, each sending ten
    records of 40 KB at once through loop's FIFO (sandbox/channel.py), all arrive whole."""
    from loop.sandbox.channel import Channel

    tests = ("package p\n\nimport (\n\t\"strings\"\n\t\"testing\"\n)\n\n"
             "func Big(i int) string { return strings.Repeat(string(rune('a'+i)), 20000) }\n\n"
             "func TestBig(t *testing.T) {\n\tfor i := 0; i < 8; i++ {\n\t\ti := i\n"
             "\t\tt.Run(string(rune('a'+i)), func(t *testing.T) {\n\t\t\tt.Parallel()\n"
             "\t\t\tfor j := 0; j < 10; j++ {\n\t\t\t\tif Big(i) != \"x\" {\n\t\t\t\t\tt.Fatal(\"no\")\n"
             "\t\t\t\t}\n\t\t\t}\n\t\t})\n\t}\n}\n")
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "go.mod").write_text("module example.com/p\n\ngo 1.19\n")
    channel = Channel(tmp_path / "channel", seal.CHANNEL, tmp_path / seal.CHANNEL, seal.CHANNEL_CAP)
    sealed, seals, extra = seal.plan_file("go", tests, str(channel.fifo), file="p_test.go")
    assert len(seals) == 1
    (proj / "p_test.go").write_text(sealed)
    (proj / extra[0]).write_text(with_channel(extra[1], channel.fifo.stat().st_dev, channel.fifo.stat().st_ino))
    outcomes = _go_in_fresh_cache(proj, channel)
    assert all(o.status == V.PASS for o in outcomes.values()) and len(outcomes) == 9, outcomes
    got, stray = seal.records(tmp_path, seals)
    assert stray is None
    sent = sorted((v.value, v.test) for v in got[seals[0].id])
    assert sent == [(bytes([97 + i]) * 20000, f"TestBig/{chr(97 + i)}") for i in range(8) for _ in range(10)]


def test_a_go_run_compiles_one_helper_per_package_and_every_file_sends_through_it(tmp_path):
    """Each copy of the helper is compiled with its package (~7 ms a copy in repo_semver_go): a run seals every
    file of a package with one helper, and a folder's external test package (`p_test`) gets its own. Every
    sealed check still sends its record; each run names its helper afresh."""
    from loop.sandbox.channel import Channel

    check = "package {pkg}\n\nimport \"testing\"\n\nfunc Test{name}(t *testing.T) {{\n" \
            "\tif got := {call}; got != \"{want}\" {{\n\t\tt.Fatal(got)\n\t}}\n}}\n"
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "go.mod").write_text("module example.com/p\n\ngo 1.19\n")
    (proj / "p.go").write_text("package p\n\nfunc Name() string { return \"v1\" }\n")
    files = {"a_test.go": check.format(pkg="p", name="A", call="Name()", want="v1"),
             "b_test.go": check.format(pkg="p", name="B", call="Name() + Name()", want="v1v1"),
             "c_test.go": check.format(pkg="p_test", name="C", call="p.Name()", want="v1").replace(
                 "import \"testing\"", "import (\n\t\"testing\"\n\n\t\"example.com/p\"\n)")}
    base = tmp_path / "base"
    base.mkdir()
    for name, text in files.items():
        (proj / name).write_text(text)
        (base / name).write_text(text)
    channel = Channel(tmp_path / "channel", seal.CHANNEL, tmp_path / seal.CHANNEL, seal.CHANNEL_CAP)
    seals = seal.fresh(proj, seal.seal_tree(proj, base, list(files), str(channel.fifo), style="go"))
    helpers = sorted(p.name for p in proj.glob("zz_loop_seal_*_test.go"))
    assert len(seals) == 3 and len(helpers) == 2 and helpers[0].endswith("_p_test.go"), helpers
    tag = helpers[0].split("_")[3]
    assert all(f"loopSeal{tag}(" in (proj / name).read_text() for name in files)
    outcomes = _go_in_fresh_cache(proj, channel)
    assert sorted(t.split("::")[-1] for t, o in outcomes.items() if o.status == V.PASS) == ["TestA", "TestB", "TestC"]
    got, stray = seal.records(tmp_path, seals)
    assert stray is None and sorted(v.value for s in seals for v in got[s.id]) == [b"v1", b"v1", b"v1v1"]
    again = tmp_path / "again"
    again.mkdir()
    for name, text in files.items():
        (again / name).write_text(text)
    sealing = seal.seal_tree(again, base, list(files), str(channel.fifo), style="go")
    planned = {name: (again / name).read_text() for name in files}  # the cached plans' text: tripwires go there
    fresh = seal.fresh(again, sealing)
    assert not {s.id for s in fresh} & {s.id for s in seals} and {s.key for s in fresh} == {s.key for s in seals}
    assert all(s.id in planned[s.file] for s in sealing.seals) and not any(s.id in planned[s.file] for s in fresh)
    assert all(s.id in (again / s.file).read_text() for s in fresh)
    assert not {p.name for p in again.glob("zz_loop_seal_*")} & set(helpers)


@pytest.mark.parametrize("name, text", [
    ("a.test.js", "'use strict'\nconst assert = require('node:assert');\n{probe}\n"),
    ("a.test.mjs", "import assert from 'node:assert';\n{probe}\n"),
    ("a.test.js", "#!/usr/bin/env node\n// the lock goes after the hashbang and the prologue\n'use strict';\n"
                  "const assert = require('node:assert');\n{probe}\n"),
])
def test_a_graded_node_file_locks_assert_itself_when_run_without_the_preload(tmp_path, name, text):
    """Red team round fifteen: a test file's process ran its file again in a node started without NODE_OPTIONS'
    preload, where a no-op `assert.ok` held. The graded file loads loop's lock itself, on its first line of code
    (every line keeps its number, a 'use strict' prologue its meaning)."""
    from loop.kinds.repo.seal_js_go import with_lock
    from loop.kinds.repo.testrun import NODE_PRELOAD

    probe = ("try { assert.ok = () => {}; console.log('replaced') } catch (e) { console.log('locked') }\n"
             "console.log(new Error().stack.split('\\n')[1].split(':').slice(-2)[0])")
    source = text.replace("{probe}", probe)
    env = {k: v for k, v in os.environ.items() if k != "NODE_OPTIONS"}
    said = {}
    for label, body in (("as shipped", source), ("locked", with_lock(source, name, str(NODE_PRELOAD)))):
        (tmp_path / name).write_text(body)
        done = subprocess.run(["node", str(tmp_path / name)], capture_output=True, text=True, env=env, timeout=60)
        assert done.returncode == 0, done.stderr
        said[label] = done.stdout.split()
    line = str(source.splitlines().index(probe.splitlines()[1]) + 1)
    assert said == {"as shipped": ["replaced", line], "locked": ["locked", line]}


def test_go_helper_sends_only_through_the_channel_it_was_written_for(tmp_path):
    """Red team round seventeen rewrote the helper's channel path in the test process's memory to a link it could
    point at a file of its own. The helper checks the device and inode of what it opened against its run's channel
    (constants in its instructions): through a path that leads elsewhere it sends nothing, and its check fails."""
    tests = "package p\n\nimport \"testing\"\n\nfunc TestCmp(t *testing.T) {\n\tif Cmp(1, 2) != -1 {\n\t\tt.Fatal(\"no\")\n\t}\n}\n"
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "go.mod").write_text("module example.com/p\n\ngo 1.19\n")
    (proj / "p.go").write_text("package p\n\nfunc Cmp(a, b int) int { if a < b { return -1 }; return 1 }\n")
    channel, other, link = tmp_path / "channel.jsonl", tmp_path / "other.jsonl", tmp_path / "link"
    channel.touch()
    other.touch()
    sealed, seals, extra = seal.plan_file("go", tests, str(link), file="p_test.go")
    (proj / "p_test.go").write_text(sealed)
    (proj / extra[0]).write_text(with_channel(extra[1], channel.stat().st_dev, channel.stat().st_ino))
    said = {}
    for target in (channel, other):
        link.unlink(missing_ok=True)
        link.symlink_to(target)
        cache = Path(tempfile.mkdtemp(prefix="loop-test-gocache-"))
        try:
            said[target.name] = {t.split("::")[-1]: o.status for t, o in _go(proj, cache).items()}
        finally:
            subprocess.run(["chmod", "-R", "u+w", str(cache)])
            subprocess.run(["rm", "-rf", str(cache)])
    assert said == {"channel.jsonl": {"TestCmp": V.PASS}, "other.jsonl": {"TestCmp": V.FAIL}}
    assert channel.read_text().count('"id"') == 1 and other.read_text() == ""
