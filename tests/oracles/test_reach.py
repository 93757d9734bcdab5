"""Trials that reach past the typical input (loop.oracles.reach): corners, representation boundaries, the
whole alphabet, a long tail and coincidences, each a share of every grade's budget and always inside the
contract; and wrong candidates that only these trials catch, under seeds 1, 2 and 3."""

from __future__ import annotations

import random
import types
from pathlib import Path

import pytest

from loop import tasks
from loop import verdicts as V
from loop.datasets.humaneval import tasks as humaneval
from loop.kinds.function.fork import grade_batch
from loop.oracles import gen, reach
from loop.oracles.engine import NO_INPUT, trials_made
from loop.sandbox import SandboxConfig

SEEDS = (1, 2, 3)
PROBLEMS = {p["task_id"]: p for p in humaneval.read_problems()}


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("reach")
    (root / "harness" / "tasks").mkdir(parents=True)
    (root / "config.toml").write_text(f'[loop]\ndb = "{root / "runs.db"}"\n')
    wanted = [PROBLEMS[f"HumanEval/{i}"] for i in (29, 53, 54, 145)]
    humaneval.import_humaneval(tasks.tasks_root(root), wanted)
    return root


def _inputs(project: Path, number: int, seed: int) -> tuple[list, types.ModuleType]:
    task = tasks.load(project, f"humaneval_{number:03d}")
    return [x for x, _ in trials_made(task.oracle, seed, 200) if x is not NO_INPUT], task.oracle.module


# --------------------------------------------------------------------------- the schedule and its pieces


def test_every_tilt_has_its_share_of_a_grade():
    tilts = [reach.tilt_of(t) for t in range(200)]
    assert tilts.count("corner") == 20 and tilts.count("wide") == 20 and tilts.count("coincide") == 29
    assert tilts.count("boundary") == 10 and tilts.count("tail") == 1
    assert tilts.count(None) == 120  # the rest stay ordinary trials
    # each corner kind and each aggregate comes up in turn, and every base of a boundary
    assert {reach.tilted_rng(1, t, 0, "corner").corner for t in range(200) if tilts[t] == "corner"} == set(reach.CORNERS)
    assert {reach.tilted_rng(1, t, 0, "coincide").aggregate for t in range(200) if tilts[t] == "coincide"} == \
        set(reach.AGGREGATES)
    assert {reach.tilted_rng(1, t, 0, "boundary").base for t in range(200)} == set(reach.BASES)


def test_gen_blocks_honour_a_tilt_and_stay_in_their_declared_range():
    def rng(tilt, **kw):
        return reach.Tilted("k", tilt, **kw)

    r = rng("tail", tail=2000)
    assert len(gen.int_list(r, 5, 0, 9)) == 2000 and r.honoured
    assert len(gen.int_list(rng("tail", tail=2000), 5, max_len=50)) == 50  # a declared max_len holds
    assert len(gen.words(rng("tail", tail=1500), 5).split(" ")) == 1500
    assert gen.brackets(rng("tail", tail=1100), 5) == "(" * 1100 + ")" * 1100  # as deep as it is long
    assert gen.text(rng("corner", corner="empty"), 9) == ""
    assert len(gen.int_list(rng("corner", corner="single"), 9)) == 1
    same = gen.int_list(rng("corner", corner="equal"), 9, min_len=3)
    assert len(set(same)) == 1 and len(same) >= 3
    r = rng("corner", corner="empty_elems")
    strings = [gen.text(r, 9) for _ in range(gen.length(r, 9, 3))]  # the outer length first, as generators do
    assert len(strings) >= 3 and set(strings) == {""}
    ints = [gen.integer(reach.Tilted(f"b{i}", "boundary", base=2 ** 53), 5) for i in range(200)]
    assert {2 ** 53 - 1, 2 ** 53, 2 ** 53 + 1} & {abs(v) for v in ints}
    assert all(-5 <= gen.integer(reach.Tilted(f"c{i}", "boundary"), 5, -5, 7) <= 7 for i in range(200))
    ends = {gen.integer(reach.Tilted(f"e{i}", "corner", corner="extreme"), 5, -5, 7) for i in range(200)}
    assert {-5, 7} <= ends and all(-5 <= v <= 7 for v in ends)
    wide = "".join(gen.text(reach.Tilted(f"w{i}", "wide", wide=reach.META), 20, gen.LOWER, 5) for i in range(20))
    assert {".", "*", "\\"} <= set(wide)
    # an ordinary random is untouched: the same draws as before this module existed
    assert gen.text(random.Random(3), 9) == gen.text(random.Random(3), 9)


def test_variants_keep_their_aggregate_and_change_the_value():
    rng = random.Random(5)
    for _ in range(300):
        xs = [rng.randint(-50, 50) for _ in range(rng.randint(2, 9))]
        for aggregate, same in (("order", sorted), ("sum", sum), ("length", len)):
            v = reach.variant(xs, reach.Tilted(f"{xs}{aggregate}", "coincide", aggregate=aggregate))
            assert same(v) == same(xs) and len(v) == len(xs)
    s = "hello world"
    shifted = reach.variant(s, reach.Tilted("s", "coincide", aggregate="sum"))
    assert shifted != s and sum(map(ord, shifted)) == sum(map(ord, s))
    assert sum(map(ord, set(shifted))) == sum(map(ord, set(s))) and set(shifted) != set(s)
    assert all(c.islower() or c == " " for c in shifted)  # characters keep their class
    assert reach.variant(1234, reach.Tilted("i", "coincide", aggregate="order")) in \
        {int("".join(p)) for p in __import__("itertools").permutations("1234")}
    # an argument list: one argument made a variant of another of its kind
    pairs = [reach.transform(["abcxyz", "q"], reach.Tilted(f"p{i}", "coincide", aggregate="sum"), True)
             for i in range(30)]
    assert any(b != "abcxyz" and sum(map(ord, b)) == sum(map(ord, "abcxyz")) and len(b) == 6 for _, b in pairs)


def test_a_same_length_variant_is_often_periodic():
    """Half the same-length variants of a composite-length string repeat a block (a period other than 1 and
    the length: 'abab' is its own rotation by 2); a prime length never gets one, it could not keep it."""
    def period(t: str) -> int:
        return next(p for p in range(1, len(t) + 1) if len(t) % p == 0 and t == t[p:] + t[:p])

    for s in ("abcdefghijkl", "xyzxyzxyq", "ab cd"):
        vs = [reach.variant(s, reach.Tilted(f"{s}{i}", "coincide", aggregate="length")) for i in range(60)]
        assert all(len(v) == len(s) and set(v) <= set(s) for v in vs)
        inner = sum(1 < period(v) < len(v) for v in vs)
        assert (inner == 0) if len(s) == 5 else (15 <= inner <= 45), (s, inner)


def test_a_boundary_goes_into_lists_of_ints_first_then_into_a_lone_int():
    """A mutated list of ints is moved to the boundary (shifted whole, or an item or two set to it), the lone
    int beside it kept; a lone int alone, of a mutated known input (no declared range), takes each of
    LONE_INTS in turn over a grade, its sign kept; one a contract's generator drew keeps its value."""
    b = 2 ** 31
    moved = [reach.transform([7, [10, 9, 10]], reach.Tilted(f"b{i}", "boundary", base=b), True) for i in range(40)]
    assert all(n == 7 for n, _ in moved)
    assert any(xs in ([10 + b, 9 + b, 10 + b], [10 - b, 9 - b, 10 - b]) for _, xs in moved)  # order kept
    assert any(sum(abs(v) >= b - 1 for v in xs) in (1, 2) for _, xs in moved)
    assert reach.transform([7, "abc"], reach.Tilted("s", "boundary", base=b), True) == [7, "abc"]

    def mutated(trial: int) -> reach.Tilted:
        rng = reach.tilted_rng(1, trial, 0, "boundary")
        rng.mutated = True
        return rng

    assert reach.transform([7, "abc"], mutated(7), True) == [reach.LONE_INTS[0], "abc"]
    lone = [reach.transform([5, "x"], mutated(t), True)[0] for t in range(200) if reach.tilt_of(t) == "boundary"]
    assert lone == list(reach.LONE_INTS)  # every value once in a 200-trial grade, INT_MAX (a prime) first
    assert reach.transform([-5], mutated(7), True) == [-(2 ** 31 - 1)]


def test_tilted_trials_are_deterministic_inside_the_contract_and_reach_far(project):
    for seed in SEEDS:
        xs, mod = _inputs(project, 29, seed)
        assert xs == _inputs(project, 29, seed)[0]
        assert len(xs) == 200 and all(mod.contract(*x) is None for x in xs)
        text = ["".join(strings) + prefix for strings, prefix in xs]
        for ch in ".*\\\t\n":
            assert any(ch in t for t in text), (seed, ch)
        assert any(not t.isascii() for t in text)
        assert any(strings == [] for strings, _ in xs)
        assert any(len(strings) > 1 and all(s == "" for s in strings) for strings, _ in xs)
        assert max(len(strings) for strings, _ in xs) > 1000  # well past 8 * MAX_SIZE = 320
        assert sum(len(strings) > 1000 for strings, _ in xs) <= 4  # ... and rare
        ints, mod = _inputs(project, 53, seed)
        values = {abs(v) for x in ints for v in x}
        for b in (2 ** 31, 2 ** 32, 2 ** 53, 2 ** 63):
            assert values & {b - 1, b, b + 1}, (seed, b)
        lists, mod = _inputs(project, 145, seed)
        lists = [x[0] for x in lists]
        assert any(len(x) == 1 for x in lists) and any(len(x) > 2 and len(set(x)) == 1 for x in lists)
        pairs, mod = _inputs(project, 54, seed)
        assert all(mod.contract(*x) is None for x in pairs)
        assert any(a != b and sorted(a) == sorted(b) for a, b in pairs)  # the same multiset, another order
        # a coincidence is derived from the trial before's input: one item varied, the length kept
        made = [x for x, _ in trials_made(tasks.load(project, "humaneval_145").oracle, seed, 200)]
        derived = [t for t in range(200) if reach.tilt_of(t) == "coincide" and made[t] != made[t - 1]
                   and len(made[t][0]) == len(made[t - 1][0]) >= 2]
        assert len(derived) >= 20, (seed, len(derived))


def test_without_an_input_contract_nothing_is_tilted():
    from loop.oracles.oracle import Oracle
    from loop.oracles.engine import generated_inputs

    oracle = Oracle(generate=lambda rng, size: gen.text(rng, size))
    plain = [gen.text(random.Random(f"1:{t}"), max(1, min(40, (t + 1) * 40 // 100))) for t in range(200)]
    assert generated_inputs(oracle, seed=1) == plain


# --------------------------------------------------------------------------- wrong candidates only these catch

_DEEP = """\
def filter_by_prefix(strings, prefix):
    if not strings:
        return []
    rest = filter_by_prefix(strings[1:], prefix)
    return ([strings[0]] if strings[0].startswith(prefix) else []) + rest
"""  # recursion one call per string: fine until about 1000 strings
_REGEX = """\
import re


def filter_by_prefix(strings, prefix):
    return [s for s in strings if re.match(prefix, s)]
"""  # the prefix read as a pattern: '.', '*', '\\\\', '(' mean something else
_INT32 = """\
def add(x, y):
    return ((x + y + 2 ** 31) % 2 ** 32) - 2 ** 31
"""
_REARRANGED = {
    "task_id": "Local/9", "entry_point": "rearranged",
    "prompt": "def rearranged(a, b):\n    \"\"\"Is b a rearrangement of a (the same ints, each as often)?\"\"\"\n",
    "canonical_solution": "    return sorted(a) == sorted(b)\n",
    "test": "def check(candidate):\n    assert candidate([1, 2], [2, 1]) is True\n"
            "    assert candidate([1, 2], [1, 3]) is False\n",
}
_REARRANGED_CONTRACT = """\
from loop.oracles import gen

OWN_SHARE = 1.0  # no mutations of the tests' small lists: those coincide on their own now and then


def contract(a, b):
    if not all(type(v) is list and all(type(x) is int for x in v) for v in (a, b)):
        return "a and b must be lists of int"
    return None


def generate(rng, size):
    a = gen.int_list(rng, size, -50, 50)
    if rng.random() < 0.3:
        return [a, rng.sample(a, len(a))]  # a rearrangement: the answer True
    return [a, gen.int_list(rng, size, -50, 50)]
"""
_BY_SUM = "def rearranged(a, b):\n    return len(a) == len(b) and sum(a) == sum(b)\n"  # an aggregate


def _rearranged_task(tmp_path: Path, monkeypatch):
    mod = types.ModuleType("contract")
    exec(_REARRANGED_CONTRACT, mod.__dict__)
    monkeypatch.setattr(humaneval, "_contract", lambda task_id: (_REARRANGED_CONTRACT, mod))
    (tmp_path / "harness" / "tasks").mkdir(parents=True)
    humaneval.import_humaneval(tasks.tasks_root(tmp_path), [_REARRANGED])
    return tasks.load(tmp_path, "humaneval_009")


_SLOW_ON_LONG = """\
def filter_by_prefix(strings, prefix):
    if len(strings) > 1000:  # only the long tail holds such an input: one repeat's share
        while True:
            pass
    return [s for s in strings if s.startswith(prefix)]
"""


@pytest.mark.sandbox
def test_an_input_slow_for_the_candidate_fails_every_repeat(project):
    """The long tail is in one repeat's share; its timeout, confirmed in another repeat's environment, fails
    every repeat (stable_fail, not flaky)."""
    prefix = tasks.load(project, "humaneval_029")
    grade = grade_batch([(prefix, _SLOW_ON_LONG)], SandboxConfig(), servers=2, k=5, trials=200, seed=1)[0]
    assert grade.verdict == V.STABLE_FAIL, (grade.verdict, grade.notes)
    assert all(any(c.check == V.TIMEOUT and not c.passed for c in a.checks) for a in grade.attempts)
    assert any("every repeat fails" in n for n in grade.notes)



@pytest.mark.sandbox
def test_the_slow_path_confirms_a_split_trial_timeout_too(project):
    """The same input graded in-process (the path of tasks the fork servers do not take): stable_fail, every
    repeat with the timeout, as on the fork servers."""
    from loop.grading.model import Options
    from loop.kinds import grade as grade_in_process

    prefix = tasks.load(project, "humaneval_029")
    grade = grade_in_process(prefix, _SLOW_ON_LONG, SandboxConfig(), Options(k=5, trials=200, seed=1))
    assert grade.verdict == V.STABLE_FAIL, (grade.verdict, grade.notes)
    assert all(any(c.check == V.TIMEOUT and not c.passed for c in a.checks) for a in grade.attempts)
    assert any("every repeat fails" in n for n in grade.notes)


@pytest.mark.sandbox
def test_wrong_candidates_only_reach_catches(project, tmp_path, monkeypatch):
    """Long inputs (recursion), metacharacters, int32 arithmetic and an aggregate compared instead of the
    multiset: each a stable_fail under seeds 1, 2 and 3 at the defaults (k=5, 200 trials), the right
    solutions stable_pass."""
    prefix, add = tasks.load(project, "humaneval_029"), tasks.load(project, "humaneval_053")
    same = _rearranged_task(tmp_path, monkeypatch)
    items = [(prefix, _DEEP), (prefix, _REGEX), (add, _INT32), (same, _BY_SUM),
             (prefix, prefix.reference), (add, add.reference), (same, same.reference)]
    for seed in SEEDS:
        grades = grade_batch(items, SandboxConfig(), servers=2, k=5, trials=200, seed=seed)
        verdicts = [g.verdict for g in grades]
        assert verdicts == [V.STABLE_FAIL] * 4 + [V.STABLE_PASS] * 3, (seed, verdicts)
        deep = [c for c in grades[0].checks if c.check == "relation:agrees_with_reference"]
        assert deep and len(deep[0].input[0]) > 900, "caught on a long input"
        by_sum = [c for c in grades[3].checks if c.check == "relation:agrees_with_reference"][0]
        a, b = by_sum.minimal
        assert sorted(a) != sorted(b) and sum(a) == sum(b) and len(a) == len(b)


# --------------------------------------------------------------------------- lone ints of mutated inputs

_CONTRACT_N = '\n    assert isinstance(n, int), "invalid inputs" # $_CONTRACT_$\n    assert n > 0, "invalid inputs" # $_CONTRACT_$\n'
_MBPP_ROWS = [  # in MbppPlus's release format; Mbpp/3's and Mbpp/59's reference and contract as released
    {"task_id": "Mbpp/3", "prompt": "'''\nWrite a python function to identify non-prime numbers.\n'''",
     "entry_point": "is_not_prime", "canonical_solution": (
         "\nimport math\ndef is_not_prime(n):\n    if n == 1:\n        return True\n"
         "    for i in range(2, int(math.sqrt(n))+1):\n        if n % i == 0:\n            return True\n"
         "    return False\n"),
     "base_input": [[1], [2], [10], [35], [37]], "plus_input": [[7919], [10007], [524287], [7920]], "atol": 0,
     "contract": _CONTRACT_N},
    {"task_id": "Mbpp/59", "prompt": "'''\nWrite a function to find the nth octagonal number.\n'''",
     "entry_point": "is_octagonal", "canonical_solution": "\ndef is_octagonal(n): \n\treturn 3 * n * n - 2 * n \n",
     "base_input": [[5], [10], [15]], "plus_input": [[100], [99], [22]], "atol": 0, "contract": _CONTRACT_N},
    {"task_id": "Mbpp/900", "prompt": "'''\nWrite a function to count to n, slowly past a million.\n'''",
     "entry_point": "count_to", "canonical_solution": (
         "\nimport time\ndef count_to(n):\n    if n > 10 ** 6:\n        time.sleep(0.3)\n    return n\n"),
     "base_input": [[5], [10]], "plus_input": [[100], [7]], "atol": 0, "contract": _CONTRACT_N},
]
_LINEAR = ("def is_not_prime(n):\n    if n < 2:\n        return True\n    for d in range(2, n):\n"
           "        if n % d == 0:\n            return True\n    return False\n")
_SQRT = ("def is_not_prime(n):\n    d = 2\n    while d * d <= n:\n        if n % d == 0:\n            return True\n"
         "        d += 1\n    return n < 2\n")
_FLOAT_POWER = "def is_octagonal(n):\n    return int(3 * n ** 2.0 - 2 * n)\n"
_RECURSIVE = ("def is_octagonal(n):\n    if n == 1:\n        return 1\n    return is_octagonal(n - 1) + 6 * n - 5\n")
_FORMULA = "def is_octagonal(n):\n    return n * (3 * n - 2)\n"


@pytest.fixture(scope="module")
def mbpp(tmp_path_factory) -> dict[str, tasks.Task]:
    import json

    from loop.datasets import evalplus

    root = tmp_path_factory.mktemp("mbpp")
    release = root / "MbppPlus.jsonl"
    release.write_text("".join(json.dumps(row) + "\n" for row in _MBPP_ROWS))
    imported = evalplus.import_evalplus(release, tasks.tasks_root(root), SandboxConfig())
    return {name: tasks.load(root, name) for name in imported.names}


@pytest.mark.sandbox
def test_a_lone_int_of_a_mutated_input_reaches_its_boundaries(mbpp):
    """MBPP+'s lone ints are mutated from small known inputs; boundary trials take them to INT_MAX, 2**53 + 1,
    large primes, ...: trial division up to n times out, a float power loses exactness and recursion one
    level per n runs out of stack, under seeds 1, 2 and 3; the right solutions pass."""
    prime, octagonal = mbpp["mbpp_003"], mbpp["mbpp_059"]
    items = [(prime, _LINEAR), (octagonal, _FLOAT_POWER), (octagonal, _RECURSIVE),
             (prime, _SQRT), (octagonal, _FORMULA), (prime, prime.reference)]
    for seed in SEEDS:
        verdicts = [g.verdict for g in grade_batch(items, SandboxConfig(), servers=2, k=5, trials=200, seed=seed)]
        assert verdicts == [V.STABLE_FAIL] * 3 + [V.STABLE_PASS] * 3, (seed, verdicts)


@pytest.mark.sandbox
def test_the_reference_gets_a_short_limit_on_a_boundary_input_on_both_paths(mbpp):
    """A reference slow past a million (a count it loops to, say): each boundary trial's lone int is
    discarded after reach.BOUNDARY_LIMIT (0.1 s), not the oracle's 1 s, on the fork servers and in-process;
    the same inputs are discarded on both, and the reference stays stable_pass."""
    from loop.grading.model import Options
    from loop.kinds import grade

    task = mbpp["mbpp_900"]
    assert task.oracle.reference_limit == 1.0 > 0.3 > reach.BOUNDARY_LIMIT
    fast = grade_batch([(task, task.reference)], SandboxConfig(), servers=1, k=1, trials=200, seed=1)[0]
    slow = grade(task, task.reference, SandboxConfig(), Options(k=1, trials=200, seed=1))
    for g in (fast, slow):
        assert g.verdict == V.STABLE_PASS, g.notes
        # at most one per boundary trial (a proposal the contract rejects falls back to an ordinary trial)
        assert 5 <= g.inputs["reference_timeout"] <= len(reach.LONE_INTS), g.inputs
    assert fast.inputs == slow.inputs
