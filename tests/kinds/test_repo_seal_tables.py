"""Sealed pytest parametrize tables (issue 41, red team round seven, root cause 2): a column a test only compares
with is replaced in the sandbox by row indexes, its rows get fresh ids, each check sends its value tagged with its
row, and the parent compares with that row's literal under pytest's own id for the row."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from loop import verdicts as V
from loop.kinds.repo import seal
from loop.kinds.repo.results import Outcome, parse_junit

TABLE = '''\
import pytest

from pkg import kind, pct, split


@pytest.mark.parametrize("qty, percent", [(1, 0), (10, 5), (50, 10), pytest.param(100, 15, id="big")])
def test_percent(qty, percent):
    assert pct(qty) == percent  # 50 -> 10


@pytest.mark.parametrize(
    "word, want",
    [
        ("a b", {"n": 2,
                 "w": ["a", "b"]}),
        ("x", {"n": 1, "w": ["x"]}),
    ],
    ids=["two", None],
)
def test_split(word, want):
    assert want == split(word)


@pytest.mark.parametrize("x, y", [(1.5, None), (True, "s p"), (-3, (1, 2))])
def test_kinds(x, y):
    assert kind(x) == y
'''

PKG = '''\
def pct(q):
    return 15 if q >= 100 else 10 if q >= 50 else 5 if q >= 10 else 0


def split(word):
    return {"n": len(word.split()), "w": word.split()}


def kind(x):
    return {1.5: None, True: "s p", -3: (1, 2)}[x]
'''

FILE = "tests/test_it.py"
IDS = {"test_percent": ("1-0", "10-5", "50-10", "big"), "test_split": ("two", "x-want1"),
       "test_kinds": ("1.5-None", "True-s p", "-3-y2")}


def _rows(seals):
    return {s.test: s.literal for s in seals if s.op == "rows"}


def test_a_compared_column_becomes_row_indexes_and_its_rows_get_fresh_ids():
    sealed, seals = seal.plan(TABLE, file=FILE, rng=random.Random(7))
    rows = _rows(seals)
    assert {t: r.ids for t, r in rows.items()} == IDS
    assert rows["test_percent"].values == (0, 5, 10, 15)
    assert rows["test_split"].values == ({"n": 2, "w": ["a", "b"]}, {"n": 1, "w": ["x"]})
    assert rows["test_kinds"].values == (None, "s p", (1, 2))
    # the placeholders carry nothing: no expected value, no id restating one; the inputs stay
    for gone in ('"big"', '"two"', '"w"', '"s p"', "None", "(1, 2)", "15"):
        assert gone not in sealed.split("\n_loop_seal_")[0], gone
    assert "[(1, 0), (10, 1), (50, 2), pytest.param(100, 3, id=" in sealed
    assert '("a b", 0' in sealed and "(1.5, 0), (True, 1), (-3, 2)" in sealed
    for r in rows.values():
        assert len(set(r.tokens)) == len(r.tokens) and all(f"'{t}'" in sealed for t in r.tokens)
    assert "assert pct(qty) == percent" not in sealed and ", percent)" in sealed  # the check sends its row
    # every line keeps its number
    old, new = TABLE.splitlines(), sealed.splitlines()
    for i, line in enumerate(old):
        if line.startswith("def "):
            assert new[i] == line
    # fresh tokens per plan
    assert _rows(seal.plan(TABLE, file=FILE)[1])["test_percent"].tokens != rows["test_percent"].tokens


def test_a_runs_plan_is_planned_once_and_gets_fresh_ids_each_time():
    (a, seals_a, _), (b, seals_b, _) = (seal.plan_file("pytest", TABLE, file=FILE) for _ in range(2))
    assert re.sub(r"[0-9a-f]{10,16}", "X", a) == re.sub(r"[0-9a-f]{10,16}", "X", b)  # the cached template
    helpers = [re.search(r"^(_loop_seal_\w+) = ", t, re.M).group(1) for t in (a, b)]
    assert helpers[0] != helpers[1] and f"{helpers[0]}((pct(qty))" in a and f"{helpers[1]}((pct(qty))" in b
    assert {s.id for s in seals_a}.isdisjoint({s.id for s in seals_b})
    for text, seals in ((a, seals_a), (b, seals_b)):
        assert all(f"'{s.id}'" in text for s in seals)
        assert all(f"'{t}'" in text for r in _rows(seals).values() for t in r.tokens)
    assert set(_rows(seals_a)["test_percent"].tokens).isdisjoint(_rows(seals_b)["test_percent"].tokens)


def _project(tmp_path: Path, source: str) -> Path:
    proj = tmp_path / "proj"
    (proj / "pkg").mkdir(parents=True)
    (proj / "pkg" / "__init__.py").write_text(PKG)
    (proj / "tests").mkdir()
    (proj / FILE).write_text(source)
    return proj


def _pytest(proj: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args], cwd=proj,
                          capture_output=True, text=True, timeout=120)


def _sealed_run(tmp_path: Path):
    """(the plain run's outcomes, the sealed run's outcomes renamed, the seals, the channel's folder)."""
    proj = _project(tmp_path, TABLE)
    plain = _pytest(proj, "--junitxml=plain.xml")
    assert plain.returncode == 0, plain.stdout
    out = tmp_path / "out"
    out.mkdir()
    sealed, seals = seal.plan(TABLE, str(out / seal.CHANNEL), file=FILE)
    (proj / FILE).write_text(sealed)
    run = _pytest(proj, "--junitxml=sealed.xml")
    assert run.returncode == 0, run.stdout
    raw = parse_junit((proj / "sealed.xml").read_text(), proj)
    assert not any(i in t for t in raw for ids in IDS.values() for i in ids)  # the sandbox saw tokens only
    return parse_junit((proj / "plain.xml").read_text(), proj), seal.renamed(seals, raw), seals, out


def test_loops_row_ids_are_pytests_and_every_row_sends_its_own_value(tmp_path):
    plain, outcomes, seals, out = _sealed_run(tmp_path)
    assert set(outcomes) == set(plain) == {f"{FILE}::{t}[{i}]" for t, ids in IDS.items() for i in ids}
    judged_outcomes, judged = seal.judge(seals, out, outcomes)
    assert judged_outcomes == plain and not judged.failed and judged.forged is None
    assert judged.decided == set(plain)
    floors = judged.floors()
    assert {k: floors[k] for k in floors if k[1] == 8} == {(FILE, 8, 11): frozenset((r, 0, 64, "") for r in range(4))}
    assert len(floors) == 3
    # a selection names rows by pytest's ids; the sealed copy's run needs them by its tokens
    rows = _rows(seals)["test_percent"]
    assert seal.selecting(seals, [f"{FILE}::test_percent[50-10]", f"{FILE}::test_split"]) == [
        f"{FILE}::test_percent[{rows.tokens[2]}]", f"{FILE}::test_split"]


def test_a_table_a_row_of_which_failed_on_the_gold_run_is_not_sealed(tmp_path):
    plain, outcomes, seals, out = _sealed_run(tmp_path)
    judged = seal.judge(seals, out, outcomes)[1]
    assert (FILE, 8, 11) in judged.floors(outcomes)
    failed = {**outcomes, f"{FILE}::test_percent[big]": Outcome(V.FAIL, "a snapshot keyed by the test's id")}
    assert (FILE, 8, 11) not in judged.floors(failed) and len(judged.floors(failed)) == 2


def _records(out: Path) -> list[dict]:
    return [json.loads(x) for x in (out / seal.CHANNEL).read_text().splitlines()]


def _write(out: Path, records: list[dict]) -> None:
    (out / seal.CHANNEL).write_text("".join(json.dumps(r) + "\n" for r in records))


def _percent_rows(records, seals):
    sid = next(s.id for s in seals if s.test == "test_percent")
    return sid, {int(r["value"][1]): r for r in records if r["id"] == sid}


def test_a_row_sent_twice_or_from_another_row_fails_and_a_missing_row_fails(tmp_path):
    plain, outcomes, seals, out = _sealed_run(tmp_path)
    records = _records(out)
    sid, by_row = _percent_rows(records, seals)
    floors = seal.judge(seals, out, outcomes)[1].floors()
    # row 2's record sent for row 1 too (the right value of a row the code under test could read): one per row
    forged = [r for r in records if r is not by_row[1]] + [by_row[2]]
    _write(out, forged)
    got, judged = seal.judge(seals, out, outcomes, floors=floors)
    assert judged.forged is None
    assert "no value reached loop from row 1" in got[f"{FILE}::test_percent[10-5]"].message
    assert "2 values from row 2 in one run" in got[f"{FILE}::test_percent[50-10]"].message
    # a row planted by loop but tagged otherwise by the code under test: a record from a row the table has not
    _write(out, [r for r in records if r is not by_row[3]] + [{"id": sid, "value": ["row", "9", ["int", "f"]]}])
    got, _ = seal.judge(seals, out, outcomes, floors=floors)
    assert got[f"{FILE}::test_percent[big]"].status == V.FAIL
    assert "expected a value of one of 4 rows" in got[f"{FILE}::test_percent[1-0]"].message
    # a row's record left out: its test id fails, though the report passes it
    _write(out, [r for r in records if r is not by_row[0]])
    got, _ = seal.judge(seals, out, outcomes, floors=floors)
    assert "no value reached loop from row 0" in got[f"{FILE}::test_percent[1-0]"].message
    # the right value tagged with the wrong row: compared with that row's literal
    _write(out, [r for r in records if r is not by_row[0]] + [{"id": sid, "value": ["row", "0", ["int", "f"]]}])
    got, _ = seal.judge(seals, out, outcomes, floors=floors)
    assert "expected 0 (row 0, test [1-0])" in got[f"{FILE}::test_percent[1-0]"].message
    # one row's wrong value fails that row's id alone (a regression of one row is one regressed test)
    _write(out, [r for r in records if r is not by_row[1]] + [{"id": sid, "value": ["row", "1", ["int", "6"]]}])
    got, _ = seal.judge(seals, out, outcomes, floors=floors)
    assert [t for t, o in got.items() if o.status != V.PASS] == [f"{FILE}::test_percent[10-5]"]
    assert "expected 5 (row 1, test [10-5])" in got[f"{FILE}::test_percent[10-5]"].message
    # a row tag that is no index: not a helper's record
    _write(out, records + [{"id": sid, "value": ["row", "x", ["int", "0"]]}])
    assert seal.judge(seals, out, outcomes, floors=floors)[1].forged


def test_a_report_naming_a_rows_own_id_or_no_row_fails_it(tmp_path):
    plain, outcomes, seals, out = _sealed_run(tmp_path)
    rows = _rows(seals)["test_percent"]
    raw = {f"{FILE}::test_percent[{t}]": Outcome(V.FAIL, "") for t in rows.tokens}
    raw[f"{FILE}::test_percent[50-10]"] = Outcome(V.PASS)  # the sealed copy has no such test: written by a forger
    got = seal.renamed(seals, raw)
    assert got[f"{FILE}::test_percent[50-10]"].status == V.FAIL
    assert got[f"{FILE}::test_percent[1-0]"].status == V.FAIL
    extra = {(t.replace("[big]", "[zzz]")): o for t, o in outcomes.items()}  # a row's id the report renamed
    judged_outcomes, _ = seal.judge(seals, out, extra)
    assert "none of the rows loop planted" in judged_outcomes[f"{FILE}::test_percent[zzz]"].message


def test_an_unserializable_value_on_the_gold_tree_leaves_the_table_unsealed(tmp_path):
    plain, outcomes, seals, out = _sealed_run(tmp_path)
    records = _records(out)
    sid, by_row = _percent_rows(records, seals)
    by_row[1]["value"][2] = ["unserializable", "Decimal"]
    _write(out, records)
    floors = seal.judge(seals, out, outcomes)[1].floors()
    assert (FILE, 8, 11) not in floors and len(floors) == 2


@pytest.mark.parametrize("source", [
    # a value loop cannot keep (not a literal): nothing to compare in the parent
    'import decimal\n@pytest.mark.parametrize("q, want", [(1, decimal.Decimal(1)), (2, 2)])\n'
    "def test_x(q, want):\n    assert f(q) == want\n",
    # the name read elsewhere too: it would see the placeholder
    '@pytest.mark.parametrize("q, want", [(1, 1), (2, 2)])\ndef test_x(q, want):\n    assert f(q) == want\n'
    "    assert g(want)\n",
    '@pytest.mark.parametrize("q, want", [(1, 1), (2, 2)])\ndef test_x(q, want):\n    want = want + 1\n'
    "    assert f(q) == want\n",
    # ids loop cannot tell as pytest would: an empty string, duplicates, a callable
    '@pytest.mark.parametrize("q, want", [("", 1), ("a", 2)])\ndef test_x(q, want):\n    assert f(q) == want\n',
    '@pytest.mark.parametrize("q, want", [(1, 1), (1, 1)])\ndef test_x(q, want):\n    assert f(q) == want\n',
    '@pytest.mark.parametrize("q, want", [(1, 1), (2, 2)], ids=str)\ndef test_x(q, want):\n    assert f(q) == want\n',
    # marks on a row, indirect, stacked tables, a class's table
    '@pytest.mark.parametrize("q, want", [(1, 1), pytest.param(2, 3, marks=pytest.mark.xfail)])\n'
    "def test_x(q, want):\n    assert f(q) == want\n",
    '@pytest.mark.parametrize("q, want", [(1, 1), (2, 2)], indirect=["q"])\ndef test_x(q, want):\n'
    "    assert f(q) == want\n",
    '@pytest.mark.parametrize("q", [1, 2])\n@pytest.mark.parametrize("want", [1, 2])\ndef test_x(q, want):\n'
    "    assert f(q) == want\n",
    '@pytest.mark.parametrize("z", [1])\nclass TestA:\n    @pytest.mark.parametrize("q, want", [(1, 1), (2, 2)])\n'
    "    def test_x(self, q, want, z):\n        assert f(q) == want\n",
])
def test_a_table_loop_cannot_seal_stays_as_it_is(source):
    source = "import pytest\nfrom pkg import f, g\n\n\n" + source
    sealed, seals = seal.plan(source, file=FILE)
    assert (sealed, seals) == (source, ())


def test_a_table_is_sealed_only_with_every_check_of_its_column_and_every_id_known():
    source = ('import pytest\n\n\n@pytest.mark.parametrize("q, want", [(1, 1), (2, 2)])\ndef test_x(q, want):\n'
              "    assert f(q) == want\n    assert f(q + 0) == want\n")
    _, seals = seal.plan(source, file=FILE)
    assert [s.op for s in seals] == ["rows", "rows"]
    assert seal.plan(source, only={seals[0].key}, file=FILE) == (source, ())
    assert seal.plan(source, only=seal.Every(frozenset({f"{FILE}::test_x[1-1]"})), file=FILE) == (source, ())
    _, again = seal.plan(source, only=seal.Every(frozenset({f"{FILE}::test_x[1-1]", f"{FILE}::test_x[2-2]"})),
                         file=FILE)
    assert len(again) == 2


def test_the_files_sealed_are_the_base_trees_tests_when_no_pass_to_pass_names_them(tmp_path):
    for rel in ("tests/test_a.py", "tests/b_test.py", "tests/conftest.py", "pkg/mod.py", "test_top.py",
                "test/pad.test.js", "lib/pad.js", "compare_test.go", "compare.go"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    hidden, named = ("tests/test_hidden.py",), ("tests/test_n.py::test_x",)
    assert seal.files_of(hidden, named) == ["tests/test_hidden.py", "tests/test_n.py"]
    # every runner's test files by their default names (round eight: node's and Go's visible files too)
    assert seal.files_of(hidden, named, tmp_path) == ["tests/test_hidden.py", "tests/test_n.py", "compare_test.go",
                                                      "test_top.py", "test/pad.test.js", "tests/b_test.py",
                                                      "tests/test_a.py"]


# whole grades in the sandbox ------------------------------------------------------------------------------------
TASK = Path(__file__).resolve().parents[2] / "harness" / "tasks" / "repo_ledger_py"
FRAME = TASK.parents[2] / "tests" / "adversarial" / "repo_candidates" / "repo_ledger_py" / \
    "r7_parametrize_expected_from_frame.diff"
ROWS = ("1-0", "9-0", "10-5", "49-5", "50-10", "100-15", "1000-15")


def _grade(task, diff: str):
    from loop.grading.model import Options
    from loop.kinds.repo.kind import RepoKind
    from loop.sandbox import SandboxConfig

    return RepoKind().grade(task, diff, SandboxConfig(), Options(k=1, trials=0))


def _named(tmp_path: Path):
    """The ledger task with a pass_to_pass naming the table's rows (a run selects them by id)."""
    import shutil

    from loop import tasks

    folder = tmp_path / "repo_ledger_py"
    shutil.copytree(TASK, folder)
    toml = folder / "task.toml"
    named = ", ".join(f'"tests/test_discounts.py::test_bulk_percent[{r}]"' for r in ROWS)
    toml.write_text(toml.read_text().replace("# pass_to_pass omitted", f"pass_to_pass = [{named}]\n#"))
    return tasks.load_folder(folder)


@pytest.mark.sandbox
@pytest.mark.parametrize("named", [False, True])
def test_the_want_read_from_the_frame_fails_on_its_row_and_the_gold_patch_passes(tmp_path, named):
    from loop import tasks

    task = _named(tmp_path) if named else tasks.load_folder(TASK)
    grade = _grade(task, FRAME.read_text())
    assert grade.verdict == V.STABLE_FAIL
    failed = {f["check"]: f["detail"] for f in grade.failures()}
    assert failed["test:tests/test_discounts.py::test_bulk_percent[50-10]"] == (
        "sealed assertion at tests/test_discounts.py:8: expected 10 (row 4, test [50-10]) (kept outside the "
        "sandbox), got 5 (row 4)")
    gold = _grade(task, task.reference)
    assert gold.verdict == V.STABLE_PASS, gold.failures()
    assert {c.check for c in gold.checks if "bulk_percent" in c.check} == {
        f"test:tests/test_discounts.py::test_bulk_percent[{r}]" for r in ROWS}
