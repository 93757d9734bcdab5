"""Tests for the relation engine (loop.oracles) and the three task oracles, with in-process candidates (no sandbox).
Correct algorithms must pass; plausible wrong ones must be caught by the right relation with a small input.
"""

from __future__ import annotations

import copy
import itertools
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

import pytest

from loop import oracles as R
from loop.oracles import Oracle

ROOT = Path(__file__).resolve().parents[2]
INT_MIN, INT_MAX = R.INT32_MIN, R.INT32_MAX


def load_task(name: str) -> Oracle:
    return Oracle.load(ROOT / "harness" / "tasks" / name / "relations.py")


PY = load_task("merge_intervals_py")
CPP = load_task("merge_intervals_cpp")
DEDUPE = load_task("dedupe_words_py")


def as_call(fn: Callable[[Any], Any], *, by_value: bool = False) -> R.Call:
    """Wrap a plain function into the Call interface: runs on a deep copy, reports the copy afterwards."""

    def call(x: Any) -> R.Returned:
        arg = copy.deepcopy(x)
        try:
            value = fn(arg)
        except Exception as exc:  # the candidate's own exception
            raise R.CandidateRaised(f"{type(exc).__name__}: {exc}") from exc
        value = json.loads(json.dumps(value))  # tuples come back as lists, like the sandbox
        return R.Returned(value, None if by_value else arg)

    return call


def run(task: Oracle, fn: Callable, ref: Callable, *, seed: int = 0, by_value: bool = False,
        trials: int = 200) -> list[R.RelationFailure]:
    return R.run_relations(task, as_call(fn, by_value=by_value), as_call(ref, by_value=by_value),
                           seed=seed, trials=trials)


def by_name(failures: list[R.RelationFailure]) -> dict[str, R.RelationFailure]:
    return {f.relation: f for f in failures}


# --------------------------------------------------------------------------- candidates: closed intervals


def merge_closed(intervals: list[list[int]]) -> list[list[int]]:
    out: list[list[int]] = []
    for lo, hi in sorted(intervals):
        if out and lo <= out[-1][1]:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return out


def merge_backward(intervals: list[list[int]]) -> list[list[int]]:
    """Sort by hi descending, sweep backwards, extending the current piece's lo."""
    out: list[list[int]] = []
    for lo, hi in sorted(intervals, key=lambda iv: iv[1], reverse=True):
        if out and hi >= out[-1][0]:
            out[-1][0] = min(out[-1][0], lo)
        else:
            out.append([lo, hi])
    return out[::-1]


def merge_events(intervals: list[list[int]]) -> list[list[int]]:
    """Depth sweep over endpoint events; starts sort before ends at one coordinate, so touching merges."""
    events = sorted([(lo, 0) for lo, _ in intervals] + [(hi, 1) for _, hi in intervals])
    out, depth, start = [], 0, 0
    for at, kind in events:
        if kind == 0:
            if depth == 0:
                start = at
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                out.append([start, at])
    return out


def merge_adjacent_ints(intervals: list[list[int]]) -> list[list[int]]:
    """Wrong: treats [1, 2] and [3, 4] as touching (integer thinking)."""
    out: list[list[int]] = []
    for lo, hi in sorted(intervals):
        if out and lo <= out[-1][1] + 1:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return out


def merge_sorts_in_place(intervals: list[list[int]]) -> list[list[int]]:
    """Wrong: sorts the caller's list."""
    intervals.sort()
    return merge_closed(intervals)


def merge_mutates_inner(intervals: list[list[int]]) -> list[list[int]]:
    """Wrong: extends the caller's inner lists while merging."""
    out: list[list[int]] = []
    for iv in sorted(intervals):
        if out and iv[0] <= out[-1][1]:
            out[-1][1] = max(out[-1][1], iv[1])
        else:
            out.append(iv)
    return [list(iv) for iv in out]


def merge_drops_points(intervals: list[list[int]]) -> list[list[int]]:
    """Wrong: 'optimisation' that drops zero-length intervals from longer lists."""
    if len(intervals) > 5:
        intervals = [iv for iv in intervals if iv[0] != iv[1]]
    return merge_closed(intervals)


def merge_friday_patch(intervals: list[list[int]]) -> list[list[int]]:
    """Wrong (seed 000): assumes the input is already sorted."""
    out: list[list[int]] = []
    for lo, hi in intervals:
        if out and lo <= out[-1][1]:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return out


# --------------------------------------------------------------------------- candidates: half-open 32-bit


def merge_half_open(intervals: list[list[int]]) -> list[list[int]]:
    return merge_closed(intervals)  # same sweep: b.lo <= a.hi merges touching half-open pieces


def merge_segments(intervals: list[list[int]]) -> list[list[int]]:
    """Coordinate compression: mark covered elementary segments [p_i, p_i+1), then stitch runs."""
    points = sorted({v for iv in intervals for v in iv})
    covered = [any(lo <= a and b <= hi for lo, hi in intervals) for a, b in zip(points, points[1:])]
    out: list[list[int]] = []
    for (a, b), on in zip(zip(points, points[1:]), covered):
        if on:
            if out and out[-1][1] == a:
                out[-1][1] = b
            else:
                out.append([a, b])
    return out


def _wrap32(v: int) -> int:
    return (v + 2**31) % 2**32 - 2**31


def merge_overflows(intervals: list[list[int]]) -> list[list[int]]:
    """Wrong (C++ semantics): `lo < hi + 1` with 32-bit wrap-around; breaks at INT_MAX."""
    out: list[list[int]] = []
    for lo, hi in sorted(intervals):
        if out and lo < _wrap32(out[-1][1] + 1):
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return out


def merge_no_touch(intervals: list[list[int]]) -> list[list[int]]:
    """Wrong: only strict overlap merges, so [0, 1) and [1, 2) stay apart."""
    out: list[list[int]] = []
    for lo, hi in sorted(intervals):
        if out and lo < out[-1][1]:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return out


# --------------------------------------------------------------------------- candidates: dedupe


def dedupe(words: list[str]) -> list[str]:
    seen: set[str] = set()
    out = []
    for w in words:
        key = w.casefold()
        if key not in seen:
            seen.add(key)
            out.append(w)
    return out


def dedupe_dict(words: list[str]) -> list[str]:
    first: dict[str, str] = {}
    for w in words:
        first.setdefault(w.casefold(), w)
    return list(first.values())


def dedupe_quadratic(words: list[str]) -> list[str]:
    return [w for i, w in enumerate(words) if all(v.casefold() != w.casefold() for v in words[:i])]


def dedupe_groupby(words: list[str]) -> list[str]:
    keyed = sorted((w.casefold(), i) for i, w in enumerate(words))
    firsts = sorted(min(i for _, i in group) for _, group in itertools.groupby(keyed, key=lambda t: t[0]))
    return [words[i] for i in firsts]


def dedupe_lower(words: list[str]) -> list[str]:
    """Wrong: lower() is not casefold() (ß/ss, ς/σ, µ/μ ...)."""
    seen: set[str] = set()
    out = []
    for w in words:
        if w.lower() not in seen:
            seen.add(w.lower())
            out.append(w)
    return out


def dedupe_last_spelling(words: list[str]) -> list[str]:
    """Wrong: keeps the first position but the last spelling."""
    d: dict[str, str] = {}
    for w in words:
        d[w.casefold()] = w
    return list(d.values())


def dedupe_in_place(words: list[str]) -> list[str]:
    """Wrong: rewrites the caller's list."""
    words[:] = dedupe(words)
    return words


# --------------------------------------------------------------------------- correct candidates pass


@pytest.mark.parametrize("fn", [merge_closed, merge_backward, merge_events])
def test_merge_py_correct_candidates_pass(fn: Callable) -> None:
    assert run(PY, fn, merge_closed) == []


@pytest.mark.parametrize("fn", [merge_half_open, merge_backward, merge_events, merge_segments])
def test_merge_cpp_correct_candidates_pass(fn: Callable) -> None:
    assert run(CPP, fn, merge_half_open, by_value=True) == []


@pytest.mark.parametrize("fn", [dedupe, dedupe_dict, dedupe_quadratic, dedupe_groupby])
def test_dedupe_correct_candidates_pass(fn: Callable) -> None:
    assert run(DEDUPE, fn, dedupe) == []


def test_references_pass_other_seeds() -> None:
    for seed in (1, 12345):
        assert run(PY, merge_closed, merge_closed, seed=seed) == []
        assert run(CPP, merge_half_open, merge_half_open, seed=seed, by_value=True) == []
        assert run(DEDUPE, dedupe, dedupe, seed=seed) == []


# --------------------------------------------------------------------------- wrong candidates are caught small


def test_adjacent_integer_merge_caught_by_cover() -> None:
    found = by_name(run(PY, merge_adjacent_ints, merge_closed))
    assert {"interval_cover", "agrees_with_reference"} <= found.keys()
    cover = found["interval_cover"]
    assert len(cover.minimal) == 2
    (a, b), (c, d) = sorted(cover.minimal)
    assert c == b + 1  # two closed pieces one integer apart, wrongly glued
    assert cover.seed == 0 and cover.original != cover.minimal and cover.shrink_steps > 0
    assert PY.validate_input(cover.minimal) is None


def test_in_place_sort_caught_by_input_not_mutated() -> None:
    failures = run(PY, merge_sorts_in_place, merge_closed)
    assert [f.relation for f in failures] == ["input_not_mutated"]
    assert len(failures[0].minimal) == 2
    assert failures[0].minimal != sorted(failures[0].minimal)


def test_inner_list_mutation_caught() -> None:
    found = by_name(run(PY, merge_mutates_inner, merge_closed))
    assert "input_not_mutated" in found
    assert len(found["input_not_mutated"].minimal) <= 2


def test_dropping_points_caught_by_cover_not_measure() -> None:
    found = by_name(run(PY, merge_drops_points, merge_closed))
    assert "interval_cover" in found and "interval_measure" not in found  # points have measure 0
    minimal = found["interval_cover"].minimal
    assert len(minimal) == 6 and any(lo == hi for lo, hi in minimal)
    assert all(abs(v) <= 2 for iv in minimal for v in iv)


def test_friday_patch_caught_by_permutation() -> None:
    found = by_name(run(PY, merge_friday_patch, merge_closed))
    assert "permutation" in found
    failure = found["permutation"]
    assert len(failure.minimal) <= 3 and failure.reason.split()[0] in ("reversed", "sorted", "shuffled")


def test_cpp_overflow_at_int_max_caught() -> None:
    found = by_name(run(CPP, merge_overflows, merge_half_open, by_value=True))
    assert "output_contract" in found and "agrees_with_reference" in found
    minimal = found["output_contract"].minimal
    assert len(minimal) <= 3 and any(hi == INT_MAX for _, hi in minimal)
    assert "overlap" in found["output_contract"].reason


def test_cpp_not_merging_touching_caught() -> None:
    found = by_name(run(CPP, merge_no_touch, merge_half_open, by_value=True))
    minimal = found["output_contract"].minimal
    assert len(minimal) == 2 and sorted(minimal)[0][1] == sorted(minimal)[1][0]


def test_dedupe_lower_caught_with_casefold_pair() -> None:
    found = by_name(run(DEDUPE, dedupe_lower, dedupe))
    assert "casefold_distinct" in found
    a, b = found["casefold_distinct"].minimal
    assert a.casefold() == b.casefold() and a.lower() != b.lower()


def test_dedupe_last_spelling_caught() -> None:
    found = by_name(run(DEDUPE, dedupe_last_spelling, dedupe))
    assert "prefix_consistency" in found and "agrees_with_reference" in found
    for name in ("prefix_consistency", "agrees_with_reference"):
        a, b = found[name].minimal
        assert a != b and a.casefold() == b.casefold()


def test_dedupe_in_place_caught() -> None:
    found = by_name(run(DEDUPE, dedupe_in_place, dedupe))
    assert list(found) == ["input_not_mutated"]
    assert len(found["input_not_mutated"].minimal) == 2


def test_candidate_exception_fails_and_shrinks() -> None:
    def crashes_on_empty_word(words: list[str]) -> list[str]:
        if "" in words:
            raise IndexError("string index out of range")
        return dedupe(words)

    failures = run(DEDUPE, crashes_on_empty_word, dedupe)
    assert failures and all(f.reason.startswith("raised: IndexError") for f in failures)
    assert all(f.minimal == [""] for f in failures)


def test_infrastructure_errors_propagate_unchanged() -> None:
    class SandboxTimeout(Exception):
        pass

    boom = SandboxTimeout("wall clock")

    def call(x: Any) -> R.Returned:
        if len(x) > 3:
            raise boom
        return R.Returned(merge_closed(copy.deepcopy(x)), copy.deepcopy(x))

    with pytest.raises(SandboxTimeout) as info:
        R.run_relations(PY, call, as_call(merge_closed), seed=0)
    assert info.value is boom


def test_reference_raising_is_not_blamed_on_candidate() -> None:
    def bad_ref(intervals: list[list[int]]) -> list[list[int]]:
        raise RuntimeError("reference bug")

    with pytest.raises(R.ReferenceFailed):
        run(PY, merge_closed, bad_ref)


def test_calls_are_shared_across_relations() -> None:
    count = 0
    inner = as_call(merge_closed)

    def counting(x: Any) -> R.Returned:
        nonlocal count
        count += 1
        return inner(x)

    R.run_relations(PY, counting, as_call(merge_closed), seed=0, trials=200)
    # per trial: x once, <= 3 reorderings, the output fed back once -> at most 5, not 7 relations x that
    assert count <= 200 * 5


def test_context_memoizes_and_keeps_semantics() -> None:
    import random

    calls: list[Any] = []

    def fn(x: Any) -> R.Returned:
        calls.append(x)
        return R.Returned(sorted(x), list(x))

    ctx = R.Context(fn, fn, random.Random(1))
    assert ctx.call([3, 1]) == R.Returned([1, 3], [3, 1])
    assert ctx.call([3, 1]).value == [1, 3] and ctx.call([1, 3]).value == [1, 3]
    assert calls == [[3, 1], [1, 3]]


# --------------------------------------------------------------------------- determinism


def test_same_seed_same_inputs_and_failures() -> None:
    for task in (PY, CPP, DEDUPE):
        assert R.generated_inputs(task, seed=7) == R.generated_inputs(task, seed=7)
        assert R.generated_inputs(task, seed=7) != R.generated_inputs(task, seed=8)
    first = run(PY, merge_adjacent_ints, merge_closed, seed=3)
    assert first and first == run(PY, merge_adjacent_ints, merge_closed, seed=3)
    assert run(DEDUPE, dedupe_lower, dedupe, seed=3) == run(DEDUPE, dedupe_lower, dedupe, seed=3)


def test_trial_input_depends_only_on_seed_and_trial() -> None:
    assert R.trial_input(PY, 5, 150) == R.generated_inputs(PY, seed=5, trials=151)[150]
    assert R.trial_size(0, 40) == 1 and R.trial_size(199, 40) == 40
    sizes = [R.trial_size(t, 40) for t in range(200)]
    assert sizes == sorted(sizes)


_SCRIPT = """
import copy, importlib.util, json, sys
sys.path.insert(0, {tests!r})
import test_relations as T
from loop import oracles as R
out = []
for task, fn, ref in ((T.PY, T.merge_adjacent_ints, T.merge_closed), (T.DEDUPE, T.dedupe_lower, T.dedupe),
                      (T.CPP, T.merge_overflows, T.merge_half_open)):
    out.append(R.json_repr([f.__dict__ for f in T.run(task, fn, ref, seed=11, by_value=task is T.CPP)]))
    out.append(R.json_repr(R.generated_inputs(task, seed=11)))
print(json.dumps(out))
"""


def test_byte_identical_across_processes_and_hash_seeds() -> None:
    outputs = []
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        proc = subprocess.run([sys.executable, "-c", _SCRIPT.format(tests=str(Path(__file__).resolve().parent))],
                              capture_output=True, text=True, env=env, cwd=ROOT, check=True)
        outputs.append(proc.stdout)
    assert outputs[0] == outputs[1] and len(outputs[0]) > 1000


# --------------------------------------------------------------------------- generator coverage


def _pairs_of(x: list[list[int]]) -> list[tuple[list[int], list[int]]]:
    return [(a, b) for i, a in enumerate(x) for j, b in enumerate(x) if i != j]


def test_closed_generator_reaches_the_edges() -> None:
    inputs = R.generated_inputs(PY, seed=0)
    assert all(PY.validate_input(x) is None for x in inputs)
    assert [] in inputs and any(len(x) == 1 for x in inputs)
    assert any(lo == hi for x in inputs for lo, hi in x)  # points
    assert any(b[0] == a[1] and a != b for x in inputs for a, b in _pairs_of(x))  # touching
    assert any(b[0] == a[1] + 1 for x in inputs for a, b in _pairs_of(x))  # [1, 2], [3, 4]
    assert any(a[0] < b[0] and b[1] < a[1] for x in inputs for a, b in _pairs_of(x))  # contained
    assert any(a == b for x in inputs for a, b in _pairs_of(x))  # duplicates
    assert any(v < 0 for x in inputs for iv in x for v in iv)
    assert any(v == -10**9 for x in inputs for iv in x for v in iv)
    assert any(v == 10**9 for x in inputs for iv in x for v in iv)
    assert any(len(x) >= 3 and x == sorted(x, reverse=True) and len(set(map(tuple, x))) > 2 for x in inputs)
    assert any(len(x) >= 3 and x != sorted(x) and x != sorted(x, reverse=True) for x in inputs)
    assert max(len(x) for x in inputs) >= 30 and all(len(x) <= 2 for x in inputs[:5])


def test_half_open_generator_reaches_int_limits() -> None:
    inputs = R.generated_inputs(CPP, seed=0)
    assert all(CPP.validate_input(x) is None for x in inputs)
    assert [] in inputs and any(len(x) == 1 for x in inputs)
    assert any(lo == INT_MIN and hi < INT_MAX for x in inputs for lo, hi in x)
    assert any(hi == INT_MAX and lo > INT_MIN for x in inputs for lo, hi in x)
    assert any(iv == [INT_MIN, INT_MAX] for x in inputs for iv in x)
    assert any(b[0] == a[1] for x in inputs for a, b in _pairs_of(x))  # touching
    assert any(b[0] == a[1] == INT_MAX - 1 or b[1] == INT_MAX == a[1] for x in inputs for a, b in _pairs_of(x))


def test_word_generator_reaches_casefold_traps() -> None:
    inputs = R.generated_inputs(DEDUPE, seed=0)
    assert all(DEDUPE.validate_input(x) is None for x in inputs)
    assert [] in inputs and any(len(x) == 1 for x in inputs)
    assert any(a.casefold() == b.casefold() and a.lower() != b.lower() for x in inputs for a in x for b in x)
    assert any("" in x for x in inputs)
    assert any(any(not w.isascii() for w in x) for x in inputs)
    assert any(len(x) != len(set(x)) for x in inputs)  # exact repeats
    assert any(w in ("ß", "ﬁ", "ς", "İ") for x in inputs for w in x)


def test_casefold_trap_tables() -> None:
    for group in R.CASEFOLD_TRAPS:
        assert len({w.casefold() for w in group}) == 1, group
    assert sum(len({w.lower() for w in g}) > 1 for g in R.CASEFOLD_TRAPS) >= 8
    for group in R.CASEFOLD_DISTRACTORS:
        assert len({w.casefold() for w in group}) > 1, group


# --------------------------------------------------------------------------- interval oracles


def test_measure_and_cover_are_instant_on_wide_domains() -> None:
    import random

    wide = [[-10**9, 10**9], [INT_MIN, INT_MAX], [-10**18, 10**18], [5, 5]]
    ctx = R.Context(as_call(merge_closed), as_call(merge_closed), random.Random(0))
    started = time.process_time()  # CPU: a relation walking the points of 10**18-wide intervals would never end
    for closed in (True, False):
        for rel in (R.interval_measure(closed), R.interval_cover(closed)):
            assert rel.check(wide, ctx) is None
            assert rel.check([[-10**9, 10**9]], ctx) is None
    assert R.union_measure(R.canonical_union(wide, True)) == 2 * 10**18
    assert time.process_time() - started < 0.5


def test_canonical_union_semantics() -> None:
    assert R.canonical_union([[3, 4], [1, 2]], closed=True) == [[1, 2], [3, 4]]  # adjacent ints stay apart
    assert R.canonical_union([[2, 3], [1, 2]], closed=True) == [[1, 3]]  # a shared point merges
    assert R.canonical_union([[3, 3], [1, 5], [7, 7], [7, 7]], closed=True) == [[1, 5], [7, 7]]
    assert R.canonical_union([[2, 3], [1, 2]], closed=False) == [[1, 3]]  # touching half-open merges
    assert R.canonical_union([[3, 4], [1, 2], [5, 5]], closed=False) == [[1, 2], [3, 4]]  # empty dropped
    assert R.canonical_union([], closed=True) == []
    with pytest.raises(ValueError):
        R.canonical_union([[2, 1]], closed=True)
    with pytest.raises(ValueError):
        R.canonical_union([[1, "2"]], closed=True)


def test_cover_catches_a_lost_point_measure_does_not() -> None:
    import random

    ctx = R.Context(as_call(lambda iv: [[1, 4]]), as_call(merge_closed), random.Random(0))
    x = [[1, 4], [9, 9]]
    assert R.interval_measure(True).check(x, ctx) is None
    assert "input union" in (R.interval_cover(True).check(x, ctx) or "")


def test_validate_input_reasons() -> None:
    assert PY.validate_input([[1, 2], [3, 3]]) is None
    assert PY.validate_input([[10**12, 10**13]]) is None
    assert PY.validate_input("x") == "not a list: \"x\""
    assert PY.validate_input([[1, 2], [1, 2, 3]]) == "interval 1 is not two integers: [1,2,3]"
    assert PY.validate_input([[1, True]]).startswith("interval 0 is not two integers")
    assert PY.validate_input([[5, 1]]) == "interval [5, 1] is reversed"
    assert CPP.validate_input([[3, 3]]) == "interval [3, 3) is empty"
    assert CPP.validate_input([[0, 2**31]]) == "interval 0 has a value out of 32-bit range"
    assert CPP.validate_input([[INT_MIN, INT_MAX]]) is None
    assert DEDUPE.validate_input(["a", 1]) == "word 1 is not a string"
    assert DEDUPE.validate_input(("a",)) == "input is not a list"
    assert DEDUPE.validate_input([]) is None


def test_canonicalize_sorts_and_rejects_malformed_output() -> None:
    assert PY.canonicalize([[5, 6], [1, 2], [3, 3]]) == [[1, 2], [3, 3], [5, 6]]
    assert PY.canonicalize([(1, 2), (3, 4)]) == [[1, 2], [3, 4]]
    assert CPP.canonicalize([[3, 4], [1, 2]]) == [[1, 2], [3, 4]]
    for bad in ([[1, 5], [3, 8]], [[1, 2], [2, 3]], [[2, 1]], [[1, 2, 3]], None, [["1", 2]]):
        with pytest.raises(ValueError):
            PY.canonicalize(bad)
    for bad in ([[1, 2], [2, 3]], [[4, 4]], [[0, 5], [1, 2]], [[0, 2**31]]):
        with pytest.raises(ValueError):
            CPP.canonicalize(bad)
    assert DEDUPE.canonicalize(("b", "a")) == ["b", "a"]
    with pytest.raises(ValueError):
        DEDUPE.canonicalize(["a", None])
    assert R.check_sorted_disjoint([[3, 4], [1, 2]], closed=True).startswith("output is not sorted")


def test_generic_shrink_stays_deterministic_and_smaller() -> None:
    cands = list(R.generic_shrink([5, "ab"]))
    assert cands == list(R.generic_shrink([5, "ab"]))
    assert [] in cands and [0, "ab"] in cands and [5, "a"] in cands
    assert list(R.generic_shrink(-8))[:2] == [0, 8]


# --------------------------------------------------------------------------- the Oracle


def test_oracle_reads_relations_py_once_with_defaults_in_one_place() -> None:
    from loop.oracles import fuzz

    assert PY.relations and PY.argument_lists is False and PY.discard_reference_failures is False
    assert PY.max_size == 40 and PY.admits is None and PY.equivalent is None
    assert (PY.reference_limit, PY.time_floor, PY.time_factor) == (
        fuzz.REFERENCE_LIMIT, fuzz.TIME_FLOOR, fuzz.TIME_FACTOR)
    assert Oracle().shrink is R.generic_shrink and Oracle().relations == ()
    assert PY.module.CLOSED is True  # names only the task itself reads stay on its module


@pytest.mark.parametrize("body, says", [
    ("RELATIONS = [1]", "RELATIONS holds int"),
    ("from loop.oracles.common import permutation\nRELATIONS = [permutation()]", "RELATIONS needs generate"),
    ("from loop.oracles.common import permutation\nRELATIONS = [permutation(), permutation()]\n"
     "def generate(rng, size):\n    return []", "relation names must be unique"),
    ("ARGS = 'yes'", "ARGS must be True or False"),
    ("MAX_SIZE = 0", "MAX_SIZE must be a positive number"),
    ("canonicalize = 3", "canonicalize must be a function"),
    ("import nowhere_to_be_found", "cannot load (ModuleNotFoundError"),
])
def test_malformed_relations_py_is_a_task_error_naming_the_file(tmp_path: Path, body: str, says: str) -> None:
    from loop.errors import TaskError

    path = tmp_path / "relations.py"
    path.write_text(body + "\n")
    with pytest.raises(TaskError) as err:
        Oracle.load(path)
    assert str(err.value).startswith(f"{path}: ") and says in str(err.value)


def test_equal_is_exact_where_python_is_and_tolerant_only_for_floats():
    """fuzz.equal: `==` where it holds (answered in C, also for deep lists), element by element otherwise:
    floats within the tolerance, NaN equal to NaN, a list never equal to a tuple."""
    from loop.oracles import fuzz

    deep = [[i, (i, "x" * i)] for i in range(2000)]
    assert fuzz.equal(deep, [[i, (i, "x" * i)] for i in range(2000)])
    assert not fuzz.equal(deep, [[i, [i, "x" * i]] for i in range(2000)])
    assert fuzz.equal([{"a": 0.1 + 0.2}], [{"a": 0.3}]) and not fuzz.equal([{"a": 0.31}], [{"a": 0.3}])
    assert fuzz.equal([float("nan")], [float("nan")]) and not fuzz.equal([float("nan")], [0.0])
    assert not fuzz.equal(10 ** 400, 1e308) and not fuzz.equal("1", 1)
