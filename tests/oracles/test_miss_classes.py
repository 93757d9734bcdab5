"""The misses of issue 45 caught by class, not by problem: non-ASCII text where the docstring allows any
string (a solution that Unicode-normalises, counts bytes or folds only ASCII), several arguments of one kind
sharing keys with other values ("the last one wins" where the first should), and monotone runs that start
with or hold a tie. Wrong solutions written from the problem statements, each a stable_fail under seeds 1, 2
and 3 at the defaults (k=5, 200 trials); the right ones stable_pass. Before the change the non-ASCII ones all
passed (their contracts were ASCII-only); Mbpp/68's and Mbpp/87's were caught already (mutations of their
small inputs collide often): the unit tests below show the new ties and shared keys themselves."""

from __future__ import annotations

import json
import random

import pytest

from loop import tasks
from loop import verdicts as V
from loop.datasets.humaneval import tasks as humaneval
from loop.kinds.function.fork import grade_batch
from loop.oracles import fuzz, gen, reach
from loop.sandbox import SandboxConfig

SEEDS = (1, 2, 3)

# Mbpp/68 and Mbpp/87 as MbppPlus.jsonl (commit 767efcc) releases them, their plus inputs left out: the base
# inputs of Mbpp/87 share no key between two dicts, and none of Mbpp/68's starts with a tie.
_MBPP_ROWS = [
    {"task_id": "Mbpp/68", "prompt": "'''\nWrite a python function to check whether the given array is monotonic or not.\n'''",
     "entry_point": "is_Monotonic", "canonical_solution": (
         "\ndef is_Monotonic(A): \n    return all(a <= b for a, b in zip(A, A[1:])) or all(a >= b for a, b in "
         "zip(A, A[1:]))\n"),
     "base_input": [[[6, 5, 4, 4]], [[1, 2, 2, 3]], [[1, 3, 2]]], "plus_input": [], "atol": 0,
     "contract": ('\n    assert isinstance(A, list), "invalid inputs" # $_CONTRACT_$\n    assert all(isinstance(item, '
                  '(int, float)) for item in A), "invalid inputs" # $_CONTRACT_$\n')},
    {"task_id": "Mbpp/87", "prompt": "'''\nWrite a function to merge three dictionaries into a single dictionary.\n'''",
     "entry_point": "merge_dictionaries_three", "canonical_solution": (
         "\nimport collections as ct\ndef merge_dictionaries_three(dict1,dict2, dict3):\n    merged_dict = "
         "dict(ct.ChainMap({},dict1,dict2,dict3))\n    return merged_dict\n"),
     "base_input": [[{"R": "Red", "P": "Pink"}, {"G": "Green"}, {"O": "Orange", "W": "White", "B": "Black"}],
                    [{"R": "Red", "P": "Pink"}, {"G": "Green", "W": "White"}, {"L": "lavender", "B": "Blue"}],
                    [{"R": "Red", "P": "Pink"}, {"L": "lavender", "B": "Blue"}, {"G": "Green", "W": "White"}]],
     "plus_input": [], "atol": 0,
     "contract": "".join(f'\n    assert isinstance(dict{i}, dict), "invalid inputs" # $_CONTRACT_$' for i in (1, 2, 3)) + "\n"},
]

# the first two items decide the direction, a tie counting as rising
_DIRECTION = ("def is_Monotonic(A):\n    if len(A) < 3:\n        return True\n    if A[0] <= A[1]:\n"
              "        return all(a <= b for a, b in zip(A, A[1:]))\n    return all(a >= b for a, b in zip(A, A[1:]))\n")
_MONOTONE = ("def is_Monotonic(A):\n    pairs = list(zip(A, A[1:]))\n"
             "    return all(a <= b for a, b in pairs) or all(a >= b for a, b in pairs)\n")
_LAST_WINS = "def merge_dictionaries_three(dict1, dict2, dict3):\n    return {**dict1, **dict2, **dict3}\n"
_FIRST_WINS = "def merge_dictionaries_three(dict1, dict2, dict3):\n    return {**dict3, **dict2, **dict1}\n"

_NFKC_16 = ("import unicodedata\ndef count_distinct_characters(string):\n"
            "    return len(set(unicodedata.normalize('NFKC', string).lower()))\n")
_NFKD_51 = ("import unicodedata\ndef remove_vowels(text):\n"
            "    return ''.join(c for c in unicodedata.normalize('NFKD', text) if c.lower() not in 'aeiou')\n")
_BYTES_74 = ("def total_match(lst1, lst2):\n    n1 = sum(len(s.encode()) for s in lst1)\n"
             "    n2 = sum(len(s.encode()) for s in lst2)\n    return lst1 if n1 <= n2 else lst2\n")
_NFKC_161 = ("import unicodedata\ndef solve(s):\n    s = unicodedata.normalize('NFKC', s)\n"
             "    if not any(c.isalpha() for c in s):\n        return s[::-1]\n    return s.swapcase()\n")
_NFKD_48 = ("import unicodedata\ndef is_palindrome(text):\n    t = unicodedata.normalize('NFKD', text)\n"
            "    return t == t[::-1]\n")
_ASCII_140 = ("def fix_spaces(text):\n    import re\n    text = text.encode('ascii', 'ignore').decode()\n"
              "    return re.sub(' {3,}', '-', text).replace(' ', '_')\n")


@pytest.fixture(scope="module")
def loaded(tmp_path_factory) -> dict[str, tasks.Task]:
    from loop.datasets import evalplus

    root = tmp_path_factory.mktemp("classes")
    problems = {p["task_id"]: p for p in humaneval.read_problems()}
    humaneval.import_humaneval(tasks.tasks_root(root), [problems[f"HumanEval/{i}"] for i in (16, 48, 51, 74, 140, 161)])
    release = root / "MbppPlus.jsonl"
    release.write_text("".join(json.dumps(row) + "\n" for row in _MBPP_ROWS))
    evalplus.import_evalplus(release, tasks.tasks_root(root), SandboxConfig())
    return {name: tasks.load(root, name) for name in tasks.list_tasks(root)}


def test_a_sorted_run_gets_ties_at_its_start_and_inside_it():
    rng = random.Random(7)
    runs = [gen.tie(rng, sorted(rng.sample(range(100), 6), reverse=rng.random() < 0.5)) for _ in range(400)]
    assert all(r == sorted(r) or r == sorted(r, reverse=True) for r in runs)
    assert 0.2 < sum(r[0] == r[1] for r in runs) / len(runs) < 0.4  # half tied, half of those at the start
    assert any(r[0] != r[1] and len(set(r)) < len(r) for r in runs)


def test_keyed_arguments_share_keys_with_other_values():
    x = [{"R": "Red", "P": "Pink"}, {"G": "Green"}, {"O": "Orange", "W": "White"}]
    shared = [reach._share(x, [0, 1, 2], random.Random(s)) for s in range(50)]
    clashes = [y for y in shared if y is not None and any(
        k in a and k in b and a[k] != b[k] for a in y for b in y if a is not b for k in a)]
    assert len(clashes) > 40
    sets = reach._share([{1, 2}, {3}], [0, 1], random.Random(1))
    assert sets is not None and sets[0] & sets[1]
    pairs = reach._share([[(1, "a")], [(2, "b")]], [0, 1], random.Random(1))
    assert pairs is not None and {k for k, _ in pairs[0]} & {k for k, _ in pairs[1]}


def test_contracts_admit_non_ascii_where_the_docstring_does(loaded):
    """Each widened contract admits the non-ASCII text whose answer its docstring fixes, and still rejects the
    text whose answer is a matter of taste (the reason written beside it)."""
    admitted = {"humaneval_016": ["½ü中😀"], "humaneval_051": ["ñ½中\xa0"], "humaneval_074": [["é中"], ["😀"]],
                "humaneval_140": ["é  ½"], "humaneval_161": ["ab½€"]}
    rejected = {"humaneval_016": ["ßs"], "humaneval_051": ["é"], "humaneval_074": [["e\u0301"], []],
                "humaneval_140": ["a\xa0b"], "humaneval_161": ["é"]}
    for name, args in admitted.items():
        assert loaded[name].oracle.module.contract(*args) is None, (name, args)
    for name, args in rejected.items():
        assert loaded[name].oracle.module.contract(*args) is not None, (name, args)


def test_a_sorted_mutation_is_monotone_either_way_with_ties():
    pools = fuzz._Pools([[[5, 1, 4, 2, 3]]])
    rng = random.Random(3)
    runs = [fuzz._mutate_seq([5, 1, 4, 2, 3], rng, pools, 0) for _ in range(3000)]
    assert any(r[:2] == [5, 5] for r in runs) and any(r[:2] == [1, 1] for r in runs)


@pytest.mark.sandbox
def test_wrong_solutions_of_each_class_fail_and_right_ones_pass(loaded):
    t = loaded
    wrong = [(t["mbpp_068"], _DIRECTION), (t["mbpp_087"], _LAST_WINS), (t["humaneval_016"], _NFKC_16),
             (t["humaneval_051"], _NFKD_51), (t["humaneval_048"], _NFKD_48), (t["humaneval_074"], _BYTES_74), (t["humaneval_161"], _NFKC_161),
             (t["humaneval_140"], _ASCII_140)]
    right = [(t["mbpp_068"], _MONOTONE), (t["mbpp_087"], _FIRST_WINS)] + [(task, task.reference) for task, _ in wrong]
    for seed in SEEDS:
        verdicts = [g.verdict for g in grade_batch(wrong + right, SandboxConfig(), servers=2, k=5, trials=200, seed=seed)]
        assert verdicts == [V.STABLE_FAIL] * len(wrong) + [V.STABLE_PASS] * len(right), (seed, verdicts)


def test_lowercase_letters_include_non_ascii_ones_no_reader_disputes():
    assert all(map(gen.lowercase_letter, "abzéßж中"))
    assert not any(map(gen.lowercase_letter, "AÉﬁſǅ\u0301 1_"))

