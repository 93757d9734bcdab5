"""Read EvalPlus's release files (HumanEvalPlus, MbppPlus: one JSON object per line), checked line by line: every
problem is an ImportFailed naming the file, the line and the key. MBPP+ inputs get back the Python types (tuples,
sets) their problem takes, as evalplus rebuilds them.
"""

from __future__ import annotations

import ast
import gzip
import math
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from loop import jsonl
from loop.datasets.humaneval import tasks as humaneval
from loop.errors import ImportFailed, read_text

MBPP_PREFIX = "mbpp_"
KEYS = ("task_id", "prompt", "entry_point", "canonical_solution", "base_input", "plus_input", "atol", "contract")


@dataclass(frozen=True)
class Problem:
    """One checked line of a release file."""

    where: str             # "FILE:LINE"
    task_id: str           # "HumanEval/12" or "Mbpp/2"
    dataset: str           # "humaneval" | "mbpp"
    number: int
    prompt: str
    entry_point: str
    canonical_solution: str
    base_input: list[list]
    plus_input: list[list]
    atol: float
    contract: str
    assertion: str | None = None
    test: str | None = None

    @property
    def inputs(self) -> list[tuple[str, list]]:
        """(test name, argument list) of every input, numbered as in the file."""
        return ([(f"base_{i:03d}", x) for i, x in enumerate(self.base_input)]
                + [(f"plus_{i:03d}", x) for i, x in enumerate(self.plus_input)])



def task_name(task_id: str) -> str | None:
    """loop's task name of an EvalPlus task id (HumanEval/12 -> humaneval_012, Mbpp/2 -> mbpp_002), else None."""
    prefix, _, number = task_id.partition("/")
    if not number.isdigit():
        return None
    if prefix == "HumanEval":
        return humaneval.task_name(task_id)
    if prefix == "Mbpp":
        return f"{MBPP_PREFIX}{int(number):03d}"
    return None


# --------------------------------------------------------------------------- reading


def read_release(path: Path) -> list[Problem]:
    """Every line of a HumanEvalPlus / MbppPlus release file (.jsonl or .jsonl.gz), checked: a missing or
    mistyped key, an unreadable line, or a mix of the two datasets is an ImportFailed naming file, line and key."""
    text = read_text(path, "EvalPlus", ImportFailed, gzip.decompress if path.suffix == ".gz" else None)
    problems, seen = [], {}
    for number, obj in jsonl.objects(text.splitlines(), str(path), ImportFailed):
        problem = _problem(f"{path}:{number}", obj)
        if problem.task_id in seen:
            raise ImportFailed(f"{problem.where}: key 'task_id': {problem.task_id} already on line {seen[problem.task_id]}")
        seen[problem.task_id] = number
        if problems and problem.dataset != problems[0].dataset:
            raise ImportFailed(f"{problem.where}: key 'task_id': {problem.task_id} in a {problems[0].dataset} file "
                               f"({problems[0].task_id} on an earlier line)")
        problems.append(problem)
    if not problems:
        raise ImportFailed(f"{path}: no problems")
    return problems


def _problem(where: str, obj: dict) -> Problem:
    for key in KEYS:
        if key not in obj:
            raise ImportFailed(f"{where}: missing key '{key}'")
    task_id = obj["task_id"]
    if not isinstance(task_id, str) or task_name(task_id) is None:
        raise ImportFailed(f"{where}: key 'task_id' must look like \"HumanEval/12\" or \"Mbpp/2\", got {task_id!r}")
    dataset = "humaneval" if task_id.startswith("HumanEval/") else "mbpp"
    for key in ("prompt", "entry_point", "canonical_solution", "contract"):
        if not isinstance(obj[key], str):
            raise ImportFailed(f"{where}: key '{key}' must be a string, got {type(obj[key]).__name__}")
    if not obj["entry_point"].isidentifier():
        raise ImportFailed(f"{where}: key 'entry_point' must be a Python name, got {obj['entry_point']!r}")
    atol = obj["atol"]
    if isinstance(atol, bool) or not isinstance(atol, (int, float)) or not math.isfinite(atol) or atol < 0:
        raise ImportFailed(f"{where}: key 'atol' must be a number >= 0, got {atol!r}")
    for key in ("assertion", "test"):
        if obj.get(key) is not None and not isinstance(obj[key], str):
            raise ImportFailed(f"{where}: key '{key}' must be a string, got {type(obj[key]).__name__}")
    number = int(task_id.split("/")[1])
    inputs = {}
    for key in ("base_input", "plus_input"):
        value = obj[key]
        if value == {}:  # Mbpp/793's plus_input in every MbppPlus release: no inputs, as evalplus reads it
            value = []
        if not isinstance(value, list) or not all(isinstance(x, list) for x in value):
            raise ImportFailed(f"{where}: key '{key}' must be a list of argument lists")
        try:
            inputs[key] = [_mbpp_arguments(number, x) for x in value] if dataset == "mbpp" else value
        except (TypeError, ValueError, IndexError, AttributeError) as exc:
            raise ImportFailed(f"{where}: key '{key}': an input does not have Mbpp/{number}'s shape ({exc})") from None
    if dataset == "mbpp":  # its contract becomes loop's: both must parse before anything runs
        entry_def(obj["canonical_solution"], obj["entry_point"], f"{where}: key 'canonical_solution'")
        try:
            ast.parse(textwrap.dedent(obj["contract"]))
        except SyntaxError as exc:
            raise ImportFailed(f"{where}: key 'contract': not valid Python ({exc.msg}, line {exc.lineno})") from None
    return Problem(where, task_id, dataset, number, obj["prompt"], obj["entry_point"], obj["canonical_solution"],
                   inputs["base_input"], inputs["plus_input"], float(atol), obj["contract"], obj.get("assertion"),
                   obj.get("test"))


# MBPP+ writes tuples, sets and complex numbers as JSON lists and strings; evalplus rebuilds them per problem
# (evalplus/data/mbpp.py). The same shapes here, by problem number.
_ALL_TUPLES = {2, 116, 132, 143, 222, 261, 273, 394, 399, 421, 424, 429, 470, 560, 579, 596, 616, 630, 726, 740,
               744, 809}
_ALL_TUPLE_LISTS = {63, 64, 70, 94, 120, 237, 272, 299, 400, 409, 417, 438, 473, 614, 780}
_FIRST_TUPLE_LIST = {75, 413, 444, 753}
_SECOND_TUPLE = {106, 750}
_FIRST_TUPLE = {250, 307, 405, 446, 617, 720, 763, 808}
_ALL_TUPLE_TUPLES = {259, 401, 445}
_DEEP_TUPLES = {580, 615, 791}
UNSUPPORTED = {124: "complex numbers", 252: "complex numbers"}  # loop's value codec has no complex


def _deep_tuple(v: Any) -> Any:
    return tuple(_deep_tuple(x) for x in v) if isinstance(v, list) else v


def _mbpp_arguments(number: int, args: list) -> list:
    """One MBPP+ argument list with the Python types its problem takes."""
    if number in _ALL_TUPLES:
        return [tuple(a) for a in args]
    if number in _ALL_TUPLE_LISTS:
        return [[tuple(x) for x in a] for a in args]
    if number in _FIRST_TUPLE_LIST:
        return [[tuple(x) for x in args[0]], *args[1:]]
    if number in _SECOND_TUPLE:
        return [args[0], tuple(args[1]), *args[2:]]
    if number in _FIRST_TUPLE:
        return [tuple(args[0]), *args[1:]]
    if number in _ALL_TUPLE_TUPLES:
        return [tuple(tuple(x) for x in a) for a in args]
    if number in _DEEP_TUPLES:
        return [_deep_tuple(a) for a in args]
    if number == 115:  # a list of sets; evalplus writes an empty one as {} (a dict), and so does this
        return [[set(x) if isinstance(x, list) and x else {} for x in args[0]]]
    if number == 278:
        return [tuple(tuple(x) if isinstance(x, list) else x for x in args[0])]
    if number == 722:
        return [{k: tuple(v) for k, v in args[0].items()}, *args[1:]]
    return args


def entry_def(source: str, entry: str, where: str) -> ast.FunctionDef:
    try:
        module = ast.parse(source)
    except SyntaxError as exc:
        raise ImportFailed(f"{where}: not valid Python ({exc.msg}, line {exc.lineno})") from None
    for node in module.body:
        if isinstance(node, ast.FunctionDef) and node.name == entry:
            return node
    raise ImportFailed(f"{where}: defines no function '{entry}' at the top level")
