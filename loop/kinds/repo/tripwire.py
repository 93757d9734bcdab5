"""Tripwire tests: written into a hidden test file of each patched run, among its tests, with names and bodies
shaped like its neighbours; one to three must fail on every tree, one must pass. Their expected outcomes live only in loop's process.

The test command runs the candidate's code in the framework's own process, so anything it reports could be
forged (a hook that flips failures, a patched assert, a rewritten report or stdout). A forgery that does not
know which tests are tripwires flips them too: a must-fail reported passing, or a report that passes the
fail-to-pass tests without the must-pass among them, is `forged_report`. Fresh names every run.

One module on purpose: how a tripwire is named, copied and placed per framework (pytest, node, go) and how its
outcome is read back must agree on every name and line, so they are reviewed together.
"""

from __future__ import annotations

import ast
import functools
import itertools
import random
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath

from loop import verdicts as V
from loop.kinds.repo import pysyntax
from loop.kinds.repo.results import NODE_SEP

FORGED_REPORT = "forged_report"
SAME = "same"  # a must-pass that is an unchanged copy of a test: it passes wherever its original passes
_RNG = random.SystemRandom()  # never the grade's seed: a candidate may know that
_SUFFIXES = ("empty", "twice", "boundary", "negative", "large", "single", "mixed", "repeated", "zero", "unicode",
             "order", "default", "limit", "minimal", "nested", "again", "long", "small", "odd", "even")
_TEST_NAME = {"pytest": re.compile(r"^\s*def (test\w*)\s*\(", re.M),
              "go": re.compile(r"^func (Test\w*)\s*\(\s*\w+\s+\*testing\.T\s*\)", re.M),
              "node": re.compile(r"\b(?:test|it)\s*\(\s*(['\"])((?:(?!\1).){1,200})\1")}


@dataclass(frozen=True)
class Wire:
    name: str  # the test's own name: unique in the run
    expect: str  # pass | fail | same (as its original)
    test_id: str | None  # what {tests} names, for runners given ids
    source: str | None = None  # a copy's original test (its id or name): see contradiction
    point: int | None = None  # the index of its place among the host's points
    copy: tuple | None = None  # a copy's key: which check of which test it copies (see _choose)
    rows: frozenset = frozenset()  # a must-fail copy's subtests (Go's `t.Run` rows) that failed on the gold tree


@dataclass(frozen=True)
class Safe:
    """What probes showed of a host file: where tripwires may go, and which copies fail on the gold tree."""
    points: frozenset  # keys of the points at which a probe's must-pass passed (Point.key)
    copies: frozenset | None = None  # keys of the copies that failed there; None: no gold tree to show it
    twins: frozenset | None = None  # keys of the unchanged copies whose outcome was their original's on the base
    # and gold trees (a probe plants those); None: every one (the first probe; no probe at all)
    rows: frozenset = frozenset()  # (copy key, subtest) of the copies' subtests that failed on the gold tree


@dataclass(frozen=True)
class Plan:
    host: str  # the file (relative to the tree) that holds the tripwires, among its own tests, or new
    text: str  # its whole text
    wires: tuple[Wire, ...]
    lines: tuple[int | None, ...] = ()  # per line of text (1-based, index 0 unused): its line in the original
    origin: str = ""  # the host whose points the wires' `point` index (Go's may write a file of its own)

    @property
    def plans(self) -> tuple[Plan, ...]:
        return (self,)


@dataclass(frozen=True)
class Planted:
    """A run's tripwires: a plan per file that holds a graded test (see hosts)."""
    plans: tuple[Plan, ...]

    @property
    def wires(self) -> tuple[Wire, ...]:
        return tuple(w for p in self.plans for w in p.wires)


def restore_lines(p: Plan | Planted, message: str) -> str:
    """A failure message with the host files' line numbers as they are in the task's own files: the inserted
    tripwires would otherwise shift them, a different shift every run (and a hint where they are)."""
    for one in p.plans:
        if one.lines and message:
            message = re.sub(rf"({re.escape(PurePosixPath(one.host).name)}):(\d+)", functools.partial(_back, one.lines), message)
    return message


def _back(lines: tuple[int | None, ...], m: re.Match) -> str:
    n = int(m.group(2))
    was = lines[n] if n < len(lines) else None
    return f"{m.group(1)}:{was}" if was is not None else m.group(0)


def framework(command: tuple[str, ...]) -> str | None:
    """pytest, node (--test) or go (test): the runners loop can write tripwires for."""
    names = [PurePosixPath(a).name for a in command]
    if any(n in ("pytest", "py.test") or n.startswith("pytest-") for n in names):
        return "pytest"
    if names and names[0] in ("node", "nodejs") and "--test" in command:
        return "node"
    if len(names) > 1 and names[0] == "go" and command[1] == "test":
        return "go"
    return None


def _case(rng: random.Random, expect: str, aggregates: tuple[str, ...]) -> tuple[list[int], str, int]:
    """A short list, one of `aggregates` over it (len, sum, max, min) and the value a test expects: the
    true one for a must-pass, a near miss for a must-fail."""
    v = [rng.randint(-40, 99) for _ in range(rng.randint(3, 7))]
    agg = rng.choice(aggregates)
    value = {"len": len, "sum": sum, "max": max, "min": min}[agg](v)
    return v, agg, value if expect == V.PASS else value + rng.choice((-3, -2, -1, 1, 2, 3))


def _names(existing: list[str], twins: list[str | None], rng: random.Random, style: str, source: str = "",
           avoid: frozenset = frozenset()) -> list[str]:
    """A new test name per entry of `twins`, in the file's style (`test_a_b` for pytest, `TestAB` for Go, `a b`
    for node titles), never one the file already uses for anything (a later definition of the same name would
    replace the tripwire). A copy of a real test (its original named in `twins`) gets the original's name with
    one word replaced by a word of the file's test names, so which of the two names is the copy's does not
    show (a suffix on its original's name did, in round three; a salad of words, or a word count no test of
    the file has, in round four); others get a salad of those words, as many as a test of the file has. Nor
    one of `avoid` (the other host files' tests and tripwires)."""
    split = {"pytest": lambda n: n.removeprefix("test").strip("_").split("_"),
             "go": lambda n: re.findall(r"[A-Z][a-z0-9]*|[a-z0-9]+", n.removeprefix("Test")),
             "node": lambda n: n.split()}[style]
    join = {"pytest": lambda ws: "test_" + "_".join(ws), "go": lambda ws: "Test" + "".join(w[:1].upper() + w[1:] for w in ws),
            "node": " ".join}[style]
    words = [w if style == "node" else w.lower() for n in existing for w in split(n) if w.isalnum()] or list(_SUFFIXES)
    lengths = [len(split(n)) for n in existing] or [3]
    taken, out = set(existing) | avoid | (set(re.findall(r"[\w$]+", source)) if style != "node" else set()), []
    for twin in twins:
        for tries in itertools.count():
            parts = [w if style == "node" else w.lower() for w in split(twin)] if twin and tries < 50 else []
            if parts:  # one word replaced: as many words as its original, like every name in the file
                parts[rng.randrange(len(parts))] = rng.choice(words)
            else:
                k = max(2, min(rng.choice(lengths), 8))
                parts = [rng.choice(words if rng.random() < 0.85 else _SUFFIXES) for _ in range(k)]
            name = join(parts)
            doubled = any(a == b for a, b in zip(parts, parts[1:])) and tries < 50  # "emoji emoji" reads as made
            if name not in taken and not doubled:
                taken.add(name)
                out.append(name)
                break
    return out


def plan_all(command: tuple[str, ...], tree: Path, allowed: dict[str, Safe], f2p: tuple[str, ...],
             rng: random.Random = _RNG, probe: bool = False) -> Planted | None:
    """Tripwires for one run in every host file of `allowed` (see hosts) at the points it allows; None where no
    host has one. No tripwire takes a name a test of any host has, nor another tripwire's: Go's share a
    package's namespace, and a report's test is told from a tripwire by its name."""
    kind = framework(command)
    if kind is None:
        return None
    sources = {h: _read(tree, h) for h in allowed}
    avoid = {n for s in sources.values() if s is not None
             for n in _tests_in(kind, s) | (set(re.findall(r"\w+", s)) if kind == "go" else set())}
    plans = []
    for where, source in sources.items():
        p = None if source is None else _plan_at(kind, where, source, f2p, rng, allowed, probe, frozenset(avoid))
        if p is not None:
            plans.append(p)
            avoid |= {w.name for w in p.wires}
    return Planted(tuple(plans)) if plans else None


def plan(command: tuple[str, ...], tree: Path, candidates: Iterable[str], f2p: tuple[str, ...],
         rng: random.Random = _RNG, allowed: dict[str, Safe] | None = None, probe: bool = False) -> Plan | None:
    """Tripwires for one run of `command` on `tree`, in the first of `candidates` (hidden test files first)
    that suits the runner; None when loop cannot write them for this runner or finds no such file. `allowed`:
    what probes showed safe per host file (reference.tripwire_points), else every point and copy.
    `probe`: the plan that shows which points are safe (see _layout)."""
    kind = framework(command)
    where = kind and host(kind, tree, candidates, f2p)
    if not where:
        return None
    return _plan_at(kind, where, _read(tree, where), f2p, rng, allowed, probe)


def _plan_at(kind: str, where: str, source: str, f2p: tuple[str, ...], rng: random.Random,
             allowed: dict[str, Safe] | None, probe: bool, avoid: frozenset = frozenset()) -> Plan | None:
    """plan's tripwires in the host file `where` (its text `source`); `avoid`: names no tripwire takes."""
    points, safe = points_of(kind, source), Safe(frozenset())
    if allowed is not None:
        safe = allowed.get(where, safe)
        points = [p for p in points if p.key in safe.points]
    if not points:
        return None
    p = {"pytest": _pytest, "node": _node, "go": _go}[kind](where, source, f2p, rng, points, probe, safe.copies,
                                                           safe.twins if allowed is not None else None, avoid)
    wires = tuple(replace(w, rows=frozenset(r for c, r in safe.rows if c == w.copy)) if w.expect == V.FAIL and w.copy
                  else w for w in p.wires)
    return replace(p, wires=wires, lines=p.lines if p.host == where else (), origin=where)


def _read(tree: Path, rel: str) -> str | None:
    path = tree / rel
    if path.is_symlink() or not path.is_file():
        return None
    return path.read_text(encoding="utf-8", errors="replace")


def _tests_in(kind: str, source: str) -> set[str]:
    """The test names of a host file (node: titles)."""
    return {m[1] if isinstance(m, tuple) else m for m in _TEST_NAME[kind].findall(source)}


def points_of(kind: str, source: str) -> list[Point]:
    """Every place a tripwire may go in a host file of this runner, read from the file's structure."""
    return {"pytest": pytest_points, "node": node_points, "go": go_points}[kind](source)


_HOST = {"pytest": re.compile(r"(^|/)(test_[^/]*|[^/]*_test)\.py$"), "go": re.compile(r"_test\.go$"),
         "node": re.compile(r"(^|/)test/.*\.[cm]?js$|[._-]test\.[cm]?js$|(^|/)test(-[^/]*)?\.[cm]?js$")}


def host(kind: str, tree: Path, candidates: Iterable[str], f2p: tuple[str, ...]) -> str | None:
    """The file that takes the tripwires: the first of `candidates` a runner of this kind collects."""
    files = [t.split("::", 1)[0] for t in f2p if "::" in t] if kind == "pytest" else []
    for rel in itertools.chain(files, candidates):  # lazily: the candidates may be a walk of the whole tree
        if _HOST[kind].search(rel) and _read(tree, rel) is not None:
            return rel
    return None


def hosts(kind: str, tree: Path, files: list[str], f2p: tuple[str, ...], graded: Iterable[str]) -> list[str]:
    """Every file that takes tripwires: the first of `files` (host), then each of them that defines a graded
    test (`graded`: their ids). A forger that flips failures only in the files tripwires are not in passes any
    regression their tests catch (red team, round seven: the task's shipped test files). pytest names a test's
    file in its id; a Go test (`pkg::TestX/sub`) or a node one (`suite > title`) is looked up by its name."""
    first = host(kind, tree, files, f2p)
    if first is None:
        return []
    if kind == "pytest":  # any file its id names: pytest collected it
        named = {t.split("::", 1)[0] for t in graded if "::" in t}
        defines = lambda rel: rel in named and _read(tree, rel) is not None  # noqa: E731
    else:
        wanted = {_name_of(kind, t) for t in graded}
        defines = lambda rel: _HOST[kind].search(rel) and _tests_in(kind, _read(tree, rel) or "") & wanted  # noqa: E731
    return [first, *(rel for rel in dict.fromkeys(files) if rel != first and defines(rel))]


def _pytest(host: str, source: str, f2p: tuple[str, ...], rng: random.Random, points: list[Point],
            probe: bool = False, copies: frozenset | None = None, twins: frozenset | None = None,
            avoid: frozenset = frozenset()) -> Plan:
    wanted = {t.split("::")[-1].split("[")[0] for t in f2p if t.split("::")[0] == host}
    derived = _derived_bodies(source, wanted, {p.scope for p in points}, rng, copies, probe)
    layout = _layout(derived, points, rng, probe, _twins_py(source, {p.scope for p in points}, twins))
    names = _names(_TEST_NAME["pytest"].findall(source), [d and d[1] for _, d, _ in layout], rng, "pytest", source,
                   avoid)
    unit, short = _indent_unit(source), _one_line_share(source)
    placed, wires = [], []
    for name, (expect, derived, i) in zip(names, layout):
        point = points[i]
        scope = point.scope
        head = f"{point.indent}def {name}({'self' if scope else ''}):\n"
        inner = point.indent + unit
        if derived is not None:
            body = derived[0]
        elif rng.random() < short:  # as often on one line as the file's own tests are
            v, agg, want = _case(rng, expect, ("len", "sum", "max", "min"))
            body = f"{inner}assert {agg}({v!r}) == {want}\n"
        else:
            v, agg, want = _case(rng, expect, ("len", "sum", "max", "min"))
            var = rng.choice(("values", "items", "amounts", "data", "xs"))
            body = f"{inner}{var} = {v!r}\n{inner}assert {agg}({var}) == {want}\n"
        placed.append((point, head + body))
        wires.append(Wire(name, expect, "::".join([host, *scope, name]),
                          derived and "::".join([host, *scope, derived[1]]), i, derived and derived[3]))
    text, lines = _place(source, placed)
    return Plan(host, text, tuple(wires), lines)


@functools.lru_cache(maxsize=16)  # a few runs' host files: a large test file's tree takes megabytes
def _module(source: str) -> ast.Module:
    """A host file's syntax tree, parsed once per text: a run's plan reads it in several places, and a host file
    the run does not seal has the same text in every run of the task. Shared, so never changed."""
    return pysyntax.parse(source)


@functools.lru_cache(maxsize=32)
def _one_line_share(source: str) -> float:
    """The share of the file's test functions whose body is one line."""
    try:
        tests = [n for n in _statements(_module(source)) if _is_test(n, True)]
    except (SyntaxError, ValueError):
        return 0.0
    return sum(n.body[0].lineno == n.body[-1].end_lineno for n in tests) / len(tests) if tests else 0.0


def _statements(node: ast.AST):
    """Every statement under `node` at any depth (and the except clauses and match cases that hold some), never an
    expression: a def is a statement, so this finds every test ast.walk does while visiting a fraction of the nodes."""
    todo = [node]
    while todo:
        here = todo.pop()
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            children = getattr(here, field, ())
            if isinstance(children, list):  # (a lambda's or an if-expression's body is one expression)
                yield from children
                todo += children


def _indent_unit(source: str) -> str:
    """The file's own indentation step (its first test's body against its def), four spaces by default."""
    m = re.search(r"^([ \t]*)def test\w*\([^\n]*:[ \t]*\n(?:[ \t]*(?:#[^\n]*)?\n)*([ \t]+)\S", source, re.M)
    return m.group(2)[len(m.group(1)):] if m and m.group(2).startswith(m.group(1)) and \
        len(m.group(2)) > len(m.group(1)) else "    "


def _plain_tests(source: str, scopes: set[tuple[str, ...]]) -> list[tuple[ast.FunctionDef, tuple[str, ...]]]:
    """Plain, undecorated tests that take no argument (a method: only self), in a scope a tripwire can go to
    (the module, or the Test class they belong to), with their scope."""
    try:
        module = _module(source)
    except (SyntaxError, ValueError):
        return []
    functions = [(fn, ()) for fn in module.body]
    functions += [(fn, (cls.name,)) for cls in module.body if isinstance(cls, ast.ClassDef) for fn in cls.body]
    return [(fn, scope) for fn, scope in functions
            if isinstance(fn, ast.FunctionDef) and fn.name.startswith("test") and not fn.decorator_list
            and scope in scopes and [a.arg for a in fn.args.args] == (["self"] if scope else [])
            and not (fn.args.posonlyargs or fn.args.kwonlyargs or fn.args.vararg or fn.args.kwarg)]


def _twins_py(source: str, scopes: set[tuple[str, ...]], twins: frozenset | None) -> list[tuple]:
    """Unchanged copies of the file's plain tests (their whole bodies), those a probe showed passing and failing
    with their originals (`twins`; None: every one): (text, name, scope, key)."""
    lines = source.splitlines(keepends=True)
    out = [("".join(lines[fn.body[0].lineno - 1:fn.end_lineno]).rstrip("\n") + "\n", fn.name, scope,
            (SAME, scope, fn.name)) for fn, scope in _plain_tests(source, scopes)]
    return [t for t in out if twins is None or t[3] in twins]


def _derived_bodies(source: str, wanted: set[str], scopes: set[tuple[str, ...]], rng: random.Random,
                    copies: frozenset | None = None, every: bool = False) -> list[tuple]:
    """Bodies of real tests of the file (those named in `wanted` first), each up to one of its
    `assert <expr> == <literal>`, with that literal changed to one no tree returns: must-fails that call the
    candidate's code as the real tests do, so a forger cannot tell them from them by what they call or compare.
    Plain, undecorated tests that take no argument (a method: only self), in a scope a tripwire can go to
    (the module, or the Test class they belong to, where their copy goes); one body per test (see _choose).
    Each is (text, test name, scope, key)."""
    found = []
    for fn, scope in _plain_tests(source, scopes):
        for stmt in fn.body:
            test = stmt.test if isinstance(stmt, ast.Assert) else None
            if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
                continue
            for side, other in ((test.comparators[0], test.left), (test.left, test.comparators[0])):
                leaves = _literal_leaves(side)
                if leaves and any(isinstance(n, (ast.Call, ast.Attribute, ast.Name)) for n in ast.walk(other)):
                    found += [(fn, scope, stmt, leaf) for leaf in leaves]
                    break
    pool = [f[3].value for f in found]  # the file's own expected values (see _near_miss)
    found = _choose(found, lambda f: (f[1], f[0].name, f[3].lineno - f[0].lineno, f[3].col_offset),
                    lambda f: (f[1], f[0].name), copies, every, rng)
    lines = source.encode("utf-8").splitlines(keepends=True)
    out = []
    for fn, scope, stmt, leaf in _ordered(found, lambda f: f[0].name in wanted, rng):
        first = sum(len(l) for l in lines[:fn.body[0].lineno - 1])
        at = sum(len(l) for l in lines[:leaf.lineno - 1]) - first
        text = b"".join(lines[fn.body[0].lineno - 1:stmt.end_lineno])
        token = text[at + leaf.col_offset:at + leaf.end_col_offset].decode("utf-8")
        new = _edit_literal(token, rng) if isinstance(leaf.value, str) and re.fullmatch(r"'[^'\n]*'|\"[^\"\n]*\"", token) \
            else repr(_near_miss(leaf.value, rng, pool))
        changed = text[:at + leaf.col_offset] + new.encode() + text[at + leaf.end_col_offset:]
        out.append((changed.decode("utf-8").rstrip("\n") + "\n", fn.name, scope,
                    (scope, fn.name, leaf.lineno - fn.lineno, leaf.col_offset)))
    return out


def _choose(found: list[tuple], key, test, copies: frozenset | None, every: bool, rng: random.Random) -> list[tuple]:
    """Of the candidate copies (each a check of a test, `key` naming it in any version of the file), those in
    `copies` (None: every one): a probe's run on the gold tree showed them failing there, or, for a probe, an
    earlier probe did not see them change a test; a probe has them all, a grade one per test."""
    found = [f for f in found if copies is None or key(f) in copies]
    if every:
        return found
    per: dict = {}
    for f in found:
        per.setdefault(test(f), []).append(f)
    return [rng.choice(group) for group in per.values()]


def _layout(derived: list[tuple], points: list[Point], rng: random.Random,
            probe: bool = False, twins: list[tuple] = ()) -> list[tuple[str, tuple | None, int]]:
    """(expect, body or None for an aggregate test, index of its point) per tripwire: up to three derived
    must-fails (copies of real tests, those of fail-to-pass tests first: a forger has to flip those), each among
    the tests of its original's scope, an aggregate one where there is none, and a must-pass: an unchanged copy of
    a test (`twins`), an aggregate test where there is none. One aggregate, not two: a forger that flips every
    failure of the file trips on the first as surely as on both, and one that reads the file tells either apart
    from real tests by evaluating builtins on literals (copies are what a reading forger cannot tell); each
    failing test costs the run pytest's formatting of its failure (~1.5 ms, docs/performance.md). A probe instead has every derived copy, every unchanged
    copy and a must-pass at every point: one run of it on the base tree shows where tripwires leave an honest run
    as it was, one on the gold tree which copies fail there (reference.tripwire_points). Each copy is (text, its
    original's name, the original's scope, its key). Copies that go just after their originals come first in
    the list, so that at a point shared with others they stay next to their originals."""
    after = set()

    def at(d: tuple, scope: tuple[str, ...]) -> int:
        """Just before or just after its original, as likely: which of two tests that differ in one literal
        is the copy, their order does not tell. In a probe always just before: what a copy leaves behind
        then reaches its original too, so the probe sees every test a copy changes (a grade's copy after
        its original changes a subset of those)."""
        same = [i for i, p in enumerate(points) if p.scope == scope]
        here = next((k for k, i in enumerate(same) if points[i].before == d[1]), None)
        if here is None:
            return rng.choice(same or range(len(points)))
        if not probe and here + 1 < len(same) and rng.random() < 0.5:
            after.add(id(d))
            return same[here + 1]
        return same[here]

    if probe:
        out = [(V.FAIL, d, at(d, d[2])) for d in derived] + [(SAME, t, at(t, t[2])) for t in twins] + \
            [(V.PASS, None, i) for i in range(len(points))]
    else:
        out = [(V.FAIL, d, at(d, d[2])) for d in derived[:3]]
        out += [(V.FAIL, None, rng.randrange(len(points)))] if not out else []
        # the must-pass: an unchanged copy of a test (one without a copy already, where the file has one), so
        # that no tripwire has a shape of its own where the file has tests to copy
        copied = {d[1] for d in derived[:3]}
        fresh = [t for t in twins if t[1] not in copied] or list(twins)
        twin = rng.choice(fresh) if fresh else None
        out.append((SAME, twin, at(twin, twin[2])) if twin else (V.PASS, None, rng.randrange(len(points))))
    return sorted(out, key=lambda w: id(w[1]) not in after)


def _ordered(found: list, first, rng: random.Random) -> list:
    """`found` shuffled, the ones `first` says yes to (from a fail-to-pass test) ahead of the rest."""
    rng.shuffle(found)
    return [f for f in found if first(f)] + [f for f in found if not first(f)]


@dataclass(frozen=True)
class _Leaf:
    value: int | float | str
    lineno: int
    end_lineno: int
    col_offset: int
    end_col_offset: int


def _literal_leaves(node: ast.AST) -> list[_Leaf]:
    """The int, float and str constants of a literal (a constant, a negative number, or a tuple/list of them),
    on one line each."""
    if isinstance(node, (ast.Tuple, ast.List)):
        return [leaf for elt in node.elts for leaf in _literal_leaves(elt)]
    value = node.value if isinstance(node, ast.Constant) else None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        value = -node.operand.value if type(node.operand.value) in (int, float) else None
    if type(value) in (int, float, str) and node.lineno == node.end_lineno:
        return [_Leaf(value, node.lineno, node.end_lineno, node.col_offset, node.end_col_offset)]
    return []


_INT_TOPS = (127, 255, 32767, 65535, 2**31 - 1, 2**32 - 1, 2**63 - 1, 2**64 - 1)


def _near_miss(value, rng: random.Random, pool: Iterable = ()):
    """A value of the same type a correct tree does not return, close enough to pass for a real expectation.
    An integer keeps its width (0..127, 0..255, ...; a non-negative one its sign): any integer type that holds the
    original holds the copy (a Go copy of `uint64` field's 10 as -17 did not compile, failing every test of the
    package). It is another integer the file's own checks compare with (`pool`) where there is one: a copy's
    literal then lies where real answers do, so code that reads the literal its calling line compares with and
    returns it passes the copy beside its original, which no honest tree does (red team, round seven: `Compare`
    returned -1, 0 or 1 as its caller's line asked; a copy's -57 was no value it ever returned). -1, 0 and 1 are
    each other's near misses."""
    if isinstance(value, int):
        top = next((t for t in _INT_TOPS if (value if value >= 0 else -value - 1) <= t), abs(value) + 97)
        if -1 <= value <= 1:  # a sign, an order (Compare's -1, 0, 1), a flag: its near misses are the others
            pool = [*pool, -1, 0, 1]
        near = sorted(v for v in set(pool) if type(v) is int and v != value and (0 if value >= 0 else -top - 1) <= v <= top)
        if near:
            return rng.choice(near)
        lo, hi = (0, top) if value >= 0 else (-top - 1, -1)
        return rng.choice([value + d for d in itertools.chain(range(-97, -6), range(7, 98)) if lo <= value + d <= hi])
    if isinstance(value, float):
        return round(value + rng.choice((-1, 1)) * rng.uniform(0.5, 5.0) * max(1.0, abs(value)), 6)
    return _edit(value, rng)


def _edit(text: str, rng: random.Random) -> str:
    """`text` with one character inserted, deleted or replaced at a random place: which of two asserts that
    differ so is the copy, neither their length nor the place tells (round three read "a letter after the
    opening quote")."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    op = rng.choice(("insert", "delete", "replace") if text else ("insert",))
    at = rng.randrange(len(text) + (op == "insert"))
    if op == "insert":
        return text[:at] + rng.choice(letters) + text[at:]
    if op == "delete":
        return text[:at] + text[at + 1:]
    return text[:at] + rng.choice([c for c in letters if c != text[at]]) + text[at + 1:]


def _edit_literal(literal: str, rng: random.Random) -> str:
    """A quoted source literal (JS or Go) edited inside its quotes; one holding an escape gets a letter after the
    opening quote, the only place that cannot split one."""
    body = literal[1:-1]
    if "\\" in body:
        return literal[0] + rng.choice("abcdefghijklmnopqrstuvwxyz") + literal[1:]
    return literal[0] + _edit(body, rng) + literal[-1]


def _node(host: str, source: str, f2p: tuple[str, ...], rng: random.Random, points: list[Point],
          probe: bool = False, copies: frozenset | None = None, twins: frozenset | None = None,
          avoid: frozenset = frozenset()) -> Plan:
    titles = [m[1] for m in _TEST_NAME["node"].findall(source) if "\\" not in m[1] and "${" not in m[1]]
    esm = bool(re.search(r"^\s*(import|export)\b", source, re.M))
    bindings = _node_bindings(source)
    prelude = []
    tag = f"{rng.getrandbits(32):08x}"
    if "assert" not in bindings:
        bindings["assert"] = f"assert_{tag}"
        prelude.append(f"import assert_{tag} from 'node:assert';" if esm else
                       f"const assert_{tag} = require('node:assert');")
    for fn in ("describe", "test"):
        if fn not in bindings:
            bindings[fn] = f"{fn}_{tag}"
    missing = [fn for fn in ("describe", "test") if bindings[fn] == f"{fn}_{tag}"]
    if missing:
        spec = ", ".join(f"{fn} as {fn}_{tag}" for fn in missing)
        prelude.append(f"import {{ {spec} }} from 'node:test';" if esm else
                       f"const {{ {spec.replace(' as ', ': ')} }} = require('node:test');")
    lines = source.splitlines()
    where = {}  # a test's title: its scope and whether it is written on one line
    for p in points:
        m = _TEST_NAME["node"].search(lines[p.line]) if p.line < len(lines) else None
        if m:
            where[m.group(2)] = (p.scope, lines[p.line].rstrip().endswith(");"))
    # a copy is its original's whole test call with the one literal changed (a lone statement in a test of its
    # own was smaller than every test it came from), where the call is found whole
    blocks = _js_blocks(source, points)
    derived = []
    for text, title, key, edit in _derived_js(source, bindings["assert"], {t.split(" > ")[-1] for t in f2p},
                                              rng, copies, probe):
        scope = where.get(title, ((), False))[0]
        block = blocks.get((scope, title))
        whole = block is not None and block[3] <= edit[0] and edit[1] <= block[1]
        derived.append((_js_copy(source, block, edit) if whole else text, title, scope, key, whole))
    layout = _layout(derived, points, rng, probe, _twins_js(source, points, twins))
    names = _names(titles, [d and d[1] for _, d, _ in layout], rng, "node", avoid=avoid)
    calls = Counter(re.findall(rf"\b{re.escape(bindings['assert'])}\.(equal|strictEqual|deepEqual|deepStrictEqual)\(", source))
    method = calls.most_common(1)[0][0] if calls else "strictEqual"
    blocks, wires = [], []
    js = {"len": "v.length", "sum": "v.reduce((a, b) => a + b, 0)", "max": "Math.max(...v)", "min": "Math.min(...v)"}
    for name, (expect, derived, i) in zip(names, layout):
        point = points[i]
        inner = point.indent + (point.indent[:len(point.indent) // len(point.scope)] if point.scope else "  ")
        v, agg, want = _case(rng, expect, tuple(js))
        if expect == SAME or derived is not None and derived[4]:
            block = derived[0].replace(_TITLE, _js(name))
        elif derived is not None and where.get(derived[1], ((), False))[1]:  # as its original: on one line
            block = f"{point.indent}{bindings['test']}({_js(name)}, () => {derived[0].rstrip(';')});\n"
        else:
            body = f"{inner}{derived[0]}\n" if derived is not None else \
                f"{inner}const v = {v!r};\n{inner}{bindings['assert']}.{method}({js[agg]}, {want});\n"
            block = f"{point.indent}{bindings['test']}({_js(name)}, () => {{\n{body}{point.indent}}});\n"
        blocks.append((point, block))
        wires.append(Wire(name, expect, " > ".join([*point.scope, name]), derived and " > ".join([*derived[2], derived[1]]),
                          i, derived and derived[3]))
    # imports first (hoisted in a module anyway, and a require must come before its use), after a #! line
    # or a 'use strict' directive, which must stay first
    text, lines = _place(source, blocks)
    lead = re.match(r"(#![^\n]*\n)?(\s*(['\"])use strict\3;?[^\n]*\n)?", text).end()
    above = text[:lead].count("\n") + 1
    return Plan(host, text[:lead] + "".join(p + "\n" for p in prelude) + text[lead:], tuple(wires),
                lines[:above] + (None,) * len(prelude) + lines[above:])


_TITLE = "\0title\0"  # where an unchanged copy's title goes


def _js_blocks(source: str, points: list[Point]) -> dict[tuple, tuple[int, int, int, int]]:
    """Each test() call of the file whole, by (scope, title): (start, end) of its lines in the source and the span
    of its quoted title."""
    lines, depths, out = source.splitlines(keepends=True), _depths(source, "node"), {}
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    for p in points:
        m = _NODE_TEST.match(lines[p.line]) if p.before and p.line < len(lines) else None
        title = _TEST_NAME["node"].search(lines[p.line]) if m else None
        if title is None or title.group(2) != p.before or "\\" in p.before:
            continue
        end = p.line + 1  # the test's call ends where a line starts back at its depth
        while end < len(lines) and (end >= len(depths) or depths[end] is None or depths[end] > depths[p.line]):
            end += 1
        while end > p.line + 1 and (not lines[end - 1].strip() or lines[end - 1].strip().startswith("//")):
            end -= 1
        at = starts[p.line]
        out[(p.scope, p.before)] = (at, starts[end], at + title.start(1), at + title.end(2) + 1)
    return out


def _js_copy(source: str, block: tuple[int, int, int, int], edit: tuple[int, int, str] | None = None) -> str:
    """A test's whole call with its title a placeholder (and one span of it replaced by `edit`'s text)."""
    start, end, t0, t1 = block
    rest = source[t1:end] if edit is None else source[t1:edit[0]] + edit[2] + source[edit[1]:end]
    return (source[start:t0] + _TITLE + rest).rstrip("\n") + "\n"


def _twins_js(source: str, points: list[Point], twins: frozenset | None) -> list[tuple]:
    """Unchanged copies of the file's tests (each test() call whole, its title a placeholder), those a probe
    showed passing and failing with their originals (`twins`; None: every one): (text, title, scope, key)."""
    out = [(_js_copy(source, block), title, scope, (SAME, scope, title))
           for (scope, title), block in _js_blocks(source, points).items()]
    return [t for t in out if twins is None or t[3] in twins]


_JS_LITERAL = re.compile(r"'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"|-?\d+(?:\.\d+)?")


def _call_args(source: str, at: int) -> tuple[list[tuple[int, int]], int] | None:
    """The top-level arguments (start, end) of the call whose '(' is at `at`, and the index past its ')';
    None when it does not close on the same line."""
    args, depth, begin, i, quote = [], 0, at + 1, at + 1, None
    while i < len(source) and source[i] != "\n":
        c = source[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = None
        elif c in "'\"`":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}" and depth:
            depth -= 1
        elif c == "," and not depth:
            args.append((begin, i))
            begin = i + 1
        elif c == ")":
            return args + [(begin, i)], i + 1
        i += 1
    return None


def _derived_js(source: str, assert_name: str, wanted: set[str], rng: random.Random,
                copies: frozenset | None = None, every: bool = False) -> list[tuple]:
    """The file's own `assert.equal(<call ...>, <literal>)` statements (those in tests titled in `wanted`
    first), each with the literal changed to one no tree returns (pytest's _derived_bodies, for node): must-fails
    that call the candidate's code and assert on what it returned, as the real tests do. Only whole calls on one
    line that name no local of their test. Each is (text, test title, key, (start, end, text) of the edit)."""
    locals_ = set(re.findall(r"\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)", source))
    titles = [(m.start(), m.group(2)) for m in _TEST_NAME["node"].finditer(source)]
    found = []
    for m in re.finditer(rf"\b{re.escape(assert_name)}\.(?:equal|strictEqual|deepEqual|deepStrictEqual)\(", source):
        call = _call_args(source, m.end() - 1)
        if call is None or len(call[0]) != 2:
            continue
        (a0, a1), (e0, e1) = call[0]
        actual, expected = source[a0:a1], source[e0:e1].strip()
        names = set(re.findall(r"[A-Za-z_$][\w$]*", re.sub(r"'[^']*'|\"[^\"]*\"", "", actual)))
        title = next((t for at, t in reversed(titles) if at < m.start()), None)
        if _JS_LITERAL.fullmatch(expected) and "(" in actual and "=>" not in actual and "`" not in actual \
                and not names & locals_ and title is not None:
            # keyed by line and text, which sealing the file's other checks leaves as they are (seal_js_go)
            found.append((m.start(), e0 + len(source[e0:e1]) - len(source[e0:e1].lstrip()), expected, call[1], title,
                          (title, source.count("\n", 0, m.start()), source[m.start():call[1]])))
    pool = [int(f[2]) for f in found if re.fullmatch(r"-?\d+", f[2])]  # the file's own expected values
    found = _choose(found, lambda f: f[5], lambda f: f[4], copies, every, rng)
    out = []
    for begin, at, literal, end, title, key in _ordered(found, lambda f: f[4] in wanted, rng):
        if literal[0] in "'\"":
            changed = _edit_literal(literal, rng)
        else:
            changed = repr(_near_miss(float(literal) if "." in literal else int(literal), rng, pool))
        out.append((source[begin:at] + changed + source[at + len(literal):end] + ";", title, key,
                    (at, at + len(literal), changed)))
    return out


def _js(s: str) -> str:
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _node_bindings(source: str) -> dict[str, str]:
    """The local names the file gives node:test's describe/test (or it) and its assert module."""
    out = {}
    for m in re.finditer(r"(?:import\s*\{([^}]*)\}\s*from|const\s*\{([^}]*)\}\s*=\s*require\()\s*['\"](?:node:)?test['\"]", source):
        for item in (m.group(1) or m.group(2)).split(","):
            parts = re.split(r"\s+as\s+|\s*:\s*", item.strip())
            if parts[0] in ("describe", "suite"):
                out.setdefault("describe", parts[-1])
            elif parts[0] in ("test", "it"):
                out.setdefault("test", parts[-1])
    m = re.search(r"(?:import\s+(?:\*\s+as\s+)?(\w+)\s+from|const\s+(\w+)\s*=\s*require\()\s*['\"](?:node:)?assert(?:/strict)?['\"]", source)
    if m:
        out["assert"] = m.group(1) or m.group(2)
    return out


def _go(host: str, source: str, f2p: tuple[str, ...], rng: random.Random, points: list[Point],
        probe: bool = False, copies: frozenset | None = None, twins: frozenset | None = None,
        avoid: frozenset = frozenset()) -> Plan:
    derived = _derived_go(source, {t.split("::")[-1].split("/")[0] for t in f2p}, rng, copies, probe)
    tops = {p.before for p in points}  # an unchanged copy of a whole test goes where its original is
    same = [(f.group("body"), f.group("name"), (), (SAME, (), f.group("name"))) for f in _GO_FUNC.finditer(source)
            if f.group("name") in tops]
    docs = _go_docs(source)
    layout = _layout(derived, points, rng, probe, [t for t in same if twins is None or t[3] in twins])
    names = _names(_TEST_NAME["go"].findall(source), [d and d[1] for _, d, _ in layout], rng, "go", source, avoid)
    report = "Errorf" if source.count("t.Errorf") > source.count("t.Fatalf") else "Fatalf"
    blocks, wires = [], []
    go = {"len": "got := len(v)", "sum": "got := 0\n\tfor _, x := range v {\n\t\tgot += x\n\t}"}
    for name, (expect, derived, i) in zip(names, layout):
        v, agg, want = _case(rng, expect, tuple(go))
        if derived is not None:  # with its original's doc comment, naming the copy where it names the original
            doc = re.sub(rf"\b{derived[1]}\b", name, docs.get(derived[1], ""))
            blocks.append((points[i], f"{doc}func {name}(t *testing.T) {{\n{derived[0]}}}\n"))
            wires.append(Wire(name, expect, None, derived[1], i, derived[3]))
            continue
        blocks.append((points[i], f"func {name}(t *testing.T) {{\n\tv := []int{{{', '.join(map(str, v))}}}\n"
                       f"\t{go[agg]}\n\tif got != {want} {{\n\t\tt.{report}(\"got %d, want %d\", got, {want})\n\t}}\n}}\n"))
        wires.append(Wire(name, expect, None, None, i))
    if re.search(r'^\s*(import\s+)?"testing"\s*$', source, re.M):  # the file names the package `testing`
        text, lines = _place(source, blocks)
        return Plan(host, text, tuple(wires), lines)
    package = re.search(r"^package\s+(\w+)", source, re.M)
    new = str(PurePosixPath(host).with_name(f"{PurePosixPath(host).stem}_cases_test.go"))
    return Plan(new, f"package {package.group(1) if package else 'main'}\n\nimport \"testing\"\n\n"
                + "\n".join(block for _, block in blocks), tuple(wires))


def _go_docs(source: str) -> dict[str, str]:
    """Each top-level test's doc comment (the `//` lines just above its func), by name."""
    lines, out = source.splitlines(keepends=True), {}
    for i, line in enumerate(lines):
        if (m := _GO_TEST.match(line)):
            at = i
            while at and lines[at - 1].startswith("//") and not lines[at - 1].startswith("//go:"):
                at -= 1
            out[m.group(1)] = "".join(lines[at:i])
    return out


_GO_FUNC = re.compile(r"^func (?P<name>Test\w*)\(t \*testing\.T\) \{\n(?P<body>(?:.*\n)*?)\}\n", re.M)
# An `if` (at any depth: in a subtest or a loop too) whose condition is, or ends in `|| `, `x != <literal>`, and
# whose block reports a failure
_GO_CHECK = re.compile(r"^(\t+)if (?:[^{}\n]*\|\|\s*)?[^{}|&\n]*!=\s*(?P<lit>\"(?:[^\"\\\n]|\\.)*\"|-?\d+)\s*\{\n"
                       r"\1\t[^\n]*\bt\.(?:Fatal|Fatalf|Error|Errorf)\(", re.M)


def _derived_go(source: str, wanted: set[str], rng: random.Random, copies: frozenset | None = None,
                every: bool = False) -> list[tuple]:
    """Bodies of the file's own tests (those named in `wanted` first), whole (Go refuses unused variables), each
    with the literal of one of its `if ... != <literal> { t.Fatalf(...)` checks changed so that the check fires on
    every tree: must-fails that call the candidate's code as the real tests do. A check in a subtest or a loop
    fires only if it runs: where the task has a gold tree, only copies a probe showed failing there are used
    (see _choose). Each is (text, test name, (), key)."""
    # a check is keyed by its line in its test, which sealing the test's other checks leaves as it is
    found = [(f, c, f.group("body").count("\n", 0, c.start())) for f in _GO_FUNC.finditer(source)
             for c in _GO_CHECK.finditer(f.group("body"))]
    pool = [int(c.group("lit")) for _, c, _ in found if c.group("lit")[0] != '"']  # the file's expected values
    found = _choose(found, lambda x: (x[0].group("name"), x[2]), lambda x: x[0].group("name"), copies, every, rng)
    out = []
    for f, c, k in _ordered(found, lambda x: x[0].group("name") in wanted, rng):
        body, literal = f.group("body"), c.group("lit")
        changed = _edit_literal(literal, rng) if literal[0] == '"' \
            else str(_near_miss(int(literal), rng, pool))
        out.append((body[:c.start("lit")] + changed + body[c.end("lit"):], f.group("name"), (), (f.group("name"), k)))
    return out


# Where a tripwire may go: read from the file's structure, never from the text of a line ------------------
@dataclass(frozen=True)
class Point:
    line: int  # 0-based index of the line a block goes before; len(lines): the end of the file
    indent: str  # the indentation of the statements there
    lead: int  # blank lines before a block: the file's own gap between tests at the end of a scope, else none
    after: int  # blank lines after a block: the gap the file has before the test there
    scope: tuple[str, ...] = ()  # the enclosing test class (pytest) or describe titles (node)
    before: str = ""  # the test it goes before ("" at the end of its scope): with `scope`, what names the point
    # in any version of the file (sealed assertions and tripwires move lines, never tests)

    @property
    def key(self) -> tuple[tuple[str, ...], str]:
        return self.scope, self.before


def _gap(lines: list[str], at: int) -> int:
    n = 0
    while at - n - 1 >= 0 and not lines[at - n - 1].strip():
        n += 1
    return n


def _usual(gaps: list[int], default: int) -> int:
    return Counter(gaps).most_common(1)[0][0] if gaps else default


def _is_test(node: ast.AST, in_class: bool) -> bool:
    return isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test") or \
        (not in_class and isinstance(node, ast.ClassDef) and node.name.startswith("Test"))


def pytest_points(source: str) -> list[Point]:
    """Before every top-level test and every test method of a top-level Test class (its decorators and the
    comments just above it included: a multi-line decorator can never end up on a tripwire), after a class's
    last statement, and at the end of the file, from the module's syntax tree: none of these lines can be
    inside a statement."""
    try:
        module = _module(source)
    except (SyntaxError, ValueError):
        return []
    lines = source.splitlines()

    def start(node: ast.AST) -> int:
        at = min([d.lineno for d in node.decorator_list] + [node.lineno]) - 1
        indent = _indent_of(lines[at])
        while at and lines[at - 1].strip().startswith("#") and _indent_of(lines[at - 1]) == indent:
            at -= 1
        return at

    def scope_points(tests: list, scope: tuple[str, ...], end: int) -> list[Point]:
        starts = [start(t) for t in tests]
        gaps = [_gap(lines, at) for at in starts]
        usual = _usual(gaps[1:] if scope else gaps, 1 if scope else 2)
        out = [Point(at, _indent_of(lines[at]), 0, gap if gap or not scope else usual, scope, t.name)
               for t, at, gap in zip(tests, starts, gaps)]
        indent = out[0].indent if out else ""
        return out + [Point(end, indent, usual, 0, scope)]

    top = [n for n in module.body if _is_test(n, False)]
    # the module's end is after its last test: what follows (a __main__ guard, loop's seal helper) is no test's place
    points = scope_points(top, (), top[-1].end_lineno if top else len(lines))
    for node in module.body:
        tests = [n for n in getattr(node, "body", ()) if _is_test(n, True)]
        if isinstance(node, ast.ClassDef) and node.name.startswith("Test") and not node.decorator_list and tests:
            points += scope_points(tests, (node.name,), node.end_lineno)
    return sorted(points, key=lambda p: p.line)


def _indent_of(line: str) -> str:
    return line[:len(line) - len(line.lstrip())]


_GO_TEST = re.compile(r"^func (Test\w*)\s*\(")


_NODE_SUITE = re.compile(r"^(\s*)(?:describe|suite)\s*\(\s*(['\"])((?:(?!\2)[^\\\n]){1,200})\2\s*,\s*(?:async\s*)?"
                         r"(?:\(\s*\)|function\s*\(\s*\))\s*(?:=>)?\s*\{\s*$")
_NODE_TEST = re.compile(r"^(\s*)(?:test|it)\s*\(\s*(['\"])")


def node_points(source: str) -> list[Point]:
    """Before every test()/it() call at the level of the file's own tests, at the top or in a describe()
    callback (its titles are the point's scope: a tripwire there is one more test of that suite, named as
    node names it), and at the end of each such suite (and of the file, where it has top-level tests)."""
    lines, depths = source.splitlines(), _depths(source, "node")
    suites: list[tuple[int, str, list[Point]]] = []  # (depth inside the callback, title, its points), innermost last
    top: list[Point] = []
    points = []

    def close(end: int, inside: list[Point], scope: tuple[str, ...]) -> None:
        if inside:
            usual = _usual([p.after for p in inside[1:]], 0)
            points.append(Point(end, inside[0].indent, usual, 0, scope))

    for i, line in enumerate(lines):
        d = depths[i] if i < len(depths) else None
        if d is None:
            continue
        # a suite ends at the line that closes its callback (the next line starts outside it): its end point goes
        # before that line, inside the suite
        after = next((x for x in depths[i + 1:len(lines)] if x is not None), 0)
        while suites and d >= suites[-1][0] and after < suites[-1][0]:
            close(i, suites[-1][2], tuple(t for _, t, _ in suites))
            suites.pop()
        if (m := _NODE_SUITE.match(line)) and (not suites or d == suites[-1][0]):
            suites.append((d + 2, m.group(3), []))
        elif _NODE_TEST.match(line) and d == (suites[-1][0] if suites else 0):
            title = _TEST_NAME["node"].search(line)
            point = Point(i, _indent_of(line), 0, _gap(lines, i), tuple(t for _, t, _ in suites),
                          title.group(2) if title else line.strip())
            (suites[-1][2] if suites else top).append(point)
            points.append(point)
    if top or not points:
        points.append(Point(len(lines), "", _usual([p.after for p in top], 1), 0))
    return sorted(points, key=lambda p: p.line)


def go_points(source: str) -> list[Point]:
    """Before every top-level `func TestX(` (outside comments and strings) and the `//` comment lines just above
    it (its doc comment stays with it), and at the end of the file."""
    lines, depths = source.splitlines(), _depths(source, "go")
    points = []
    for i, line in enumerate(lines):
        if (m := _GO_TEST.match(line)) and i < len(depths) and depths[i] == 0:
            at = i
            while at and lines[at - 1].startswith("//") and not lines[at - 1].startswith("//go:"):
                at -= 1
            points.append(Point(at, "", 0, _gap(lines, at), before=m.group(1)))
    return points + [Point(len(lines), "", _usual([p.after for p in points], 1), 0)]


@functools.lru_cache(maxsize=16)  # a run's host files: the sealed ones' text is their cached plan's (seal.Sealing)
def _depths(source: str, kind: str) -> tuple[int | None, ...]:
    """Per line: the bracket depth it starts at, None inside a comment or string. A small lexer of Go or
    JavaScript (JS regular-expression literals told apart by the token before them, as the grammar does)."""
    out, depth, i, n, state, quote, last = [0], 0, 0, len(source), None, "", ";"
    word = re.compile(r"[\w$]+")
    while i < n:
        c = source[i]
        if c == "\n":
            if state == "line" or state in ("string", "regex") and quote != "`":
                state = None  # a line comment ends; an unclosed string or regex is not valid code: recover
            out.append(depth if state is None else None)
        elif state == "block":
            if source.startswith("*/", i):
                state, i = None, i + 1
        elif state == "string":
            if c == "\\" and not (kind == "go" and quote == "`"):
                i += 1
            elif c == quote:
                state, last = None, "x"
        elif state == "regex":
            if c == "\\":
                i += 1
            elif c in "[]":
                quote = c
            elif c == "/" and quote != "[":
                state, last = None, "x"
        elif state == "line":
            pass
        elif source.startswith("//", i):
            state = "line"
        elif source.startswith("/*", i):
            state, i = "block", i + 1
        elif c in "'\"`":
            state, quote = "string", c
        elif c == "/" and kind == "node" and (last in "(,=:[!&|?{};+-*%<>~^" or last == "return"):
            state, quote = "regex", ""
        elif c in "([{":
            depth, last = depth + 1, c
        elif c in ")]}":
            depth, last = max(0, depth - 1), c
        elif not c.isspace():
            m = word.match(source, i)
            if m:
                last, i = ("return" if m.group() in ("return", "typeof", "case", "in", "of") else "x"), m.end() - 1
            else:
                last = c
        i += 1
    return tuple(out)


def _place(source: str, placed: list[tuple[Point, str]]) -> tuple[str, tuple[int | None, ...]]:
    """`source` with each block at its point, with the blank lines the file has around its own tests there; and
    per line of the result (1-based, index 0 unused) its line in `source`, None for an inserted one (read from
    the insertions themselves: a copy next to its original shares its lines, which a diff may pair wrongly)."""
    lines = source.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    trailing = _gap([line.rstrip("\n") for line in lines], len(lines))  # already at the end of the file
    at: dict[int, list[tuple[Point, str]]] = {}
    for point, block in placed:
        at.setdefault(point.line, []).append((point, block))
    out, origin = [], [None]
    for i in range(len(lines) + 1):
        # at one line, a class's or suite's end before the module's: an indented block after a top-level one
        # would be read as part of that one
        for point, block in sorted(at.get(i, ()), key=lambda pb: -len(pb[0].indent)):
            piece = "\n" * max(point.lead - (trailing if i == len(lines) else 0), 0) + block + "\n" * point.after
            out.append(piece)
            origin += [None] * piece.count("\n")
            trailing = 0
        if i < len(lines):
            out.append(lines[i])
            origin.append(i + 1)
    return "".join(out), tuple(origin)


STOPS_EARLY = re.compile(r"^(-x|--exitfirst|--maxfail(=.*)?|--sw|--stepwise|-failfast|--failfast|-test\.failfast|--test-bail)$")


def stops_early(command: tuple[str, ...]) -> str | None:
    """The flag that would stop a run at its first failing test: a must-fail tripwire would then hide the rest."""
    return next((a for a in command if STOPS_EARLY.match(a)), None)


def among(ids: list[str], wire_ids: list[str], rng: random.Random = _RNG) -> list[str]:
    """The test ids a command is given, the tripwires' at random places: at the end, a forger reading its
    argv would know them."""
    out = list(ids)
    for wire_id in wire_ids:
        out.insert(rng.randint(0, len(out)), wire_id)
    return out


def plant(p: Plan | Planted, tree: Path) -> None:
    """Write the tripwires into `tree` (a per-run copy): each host file with them in it."""
    for one in p.plans:
        path = tree / one.host
        path.write_text(one.text, encoding="utf-8")
        path.chmod(0o666)


def _outcome(wire: Wire, outcomes: dict) -> str | None:
    return _status(wire.name, wire.test_id, outcomes)


def _status(name: str, test_id: str | None, outcomes: dict) -> str | None:
    """A test's outcome in the report, by its id or (runners given no ids) by its name at the end of one."""
    key = _key(name, test_id, outcomes)
    return None if key is None else outcomes[key].status


def _key(name: str, test_id: str | None, outcomes: dict) -> str | None:
    """A test's key in the report (see _status), or None."""
    if test_id in outcomes:
        return test_id
    return next((key for key in outcomes if _is(key, name)), None)


def _is(test: str, name: str) -> bool:
    """Is `test` (a report's id) the test `name` (its id, or its name at the end of one)?"""
    return test == name or test.endswith(("::" + name, NODE_SEP + name))


def spared(p: Plan, changed: list[str]) -> tuple[frozenset, frozenset]:
    """The keys of a probe's derived copies and of its unchanged copies whose originals are not among the tests
    the probe's run changed: a copy may be what changed its original (state it leaves behind), so the next
    probe plants neither kind of copy of those."""
    keep = [w for w in p.wires if w.copy is not None and not any(_is(t, w.source) for t in changed)]
    return (frozenset(w.copy for w in keep if w.expect == V.FAIL),
            frozenset(w.copy for w in keep if w.expect == SAME))


def _original_passes(source: str, outcomes: dict) -> bool:
    """Does a copy's original pass? Looked up by its whole id (pytest's node id, node's `suite > title`), never
    by a suffix a test the candidate's code registers could also have (red team, round five: a skipped root-level
    test titled as the original excused every copy); Go names a test `package::TestX`: any of them passing."""
    return any(outcomes[k].status == V.PASS for k in _keys_of(source, outcomes))


def contradiction(p: Plan | Planted, outcomes: dict | None, f2p: tuple[str, ...]) -> str | None:
    """What in the report contradicts the tripwires (one line), or None: a must-fail reported passing, or
    fail-to-pass tests reported passing without the must-pass passing beside them. A copy of a real test
    passing counts only when its original passes too: a wrong tree may return the copy's changed value (an
    off-by-one returned exactly the copy's one letter less), but no honest tree returns both values. An
    unchanged copy that fails beside its passing original is no contradiction: it fails the original (twinned)."""
    if not outcomes:
        return None
    for wire in p.wires:
        if wire.expect == V.FAIL and _outcome(wire, outcomes) == V.PASS and \
                (wire.source is None or _original_passes(wire.source, outcomes)):
            return "the test report says a test that fails on every tree passed: the report was forged"
        if wire.rows:  # row by row (red team, round eight: a forger flipping only the rows its wrong fix gets wrong)
            mine, theirs = _subtests(wire.name, outcomes), _subtests(_test_of(wire.source), outcomes)
            if any(mine.get(r) == V.PASS and theirs.get(r) == V.PASS for r in wire.rows):
                return "the test report says a row of a test that fails on every tree passed: the report was forged"
    if any(outcomes.get(t) is not None and outcomes[t].status == V.PASS for t in f2p):
        for wire in p.wires:
            if wire.expect == V.PASS and _outcome(wire, outcomes) != V.PASS:
                return "the test report passes the fail-to-pass tests without a test that passes on every tree: " \
                       "the report was forged"
    return None


def twinned(p: Plan | Planted, outcomes: dict | None) -> dict | None:
    """The outcomes with each original whose unchanged copy (the must-pass) did not pass counted as failing: the
    two run the same code, so the test passes only where both do. A forger that passes an original by its name
    gains nothing, and an honest test that fails now and then fails its run as it would alone, never as a forged
    report (red team, round seven: a test failing 15% of the time, copied as the must-pass, made 4 of 10 grades
    of the gold patch forged_report, blamed on every repeat)."""
    if not outcomes:
        return outcomes
    out = dict(outcomes)
    for wire in p.wires:
        if wire.expect == SAME and _outcome(wire, outcomes) != V.PASS and _original_passes(wire.source, outcomes):
            copy = _key(wire.name, wire.test_id, outcomes)
            why = f"failed: {outcomes[copy].message}" if copy is not None else "did not run"
            for key in _keys_of(wire.source, outcomes):
                out[key] = replace(outcomes[key], status=V.FAIL,
                                   message=f"an unchanged copy of this test, run beside it, {why}")
    return out


def guards(p: Plan | Planted | None, test_id: str, base: Path | None = None) -> bool:
    """Do the tripwires of `p` (None: the run had none) share the test's file, where a forger that selects tests
    by file (pytest's path, node's child per file, the file that defines a Go test) meets them? Tests of other
    files are decided by the report alone (red team, round seven: forgers that flip only the shipped test files'
    failures). Nor does a test that the base tree's copy of its file (`base`) already has: a forger that carries
    the shipped tests' names takes every other test of the file for a tripwire and flips only its own (round
    eight); tripwires there catch only forgers that do not tailor themselves to the file."""
    return p is not None and any(_guards(one, test_id) and not (base and _shipped(one, test_id, base))
                                 for one in p.plans if one.wires)


def _shipped(p: Plan, test_id: str, base: Path) -> bool:
    kind = _kind_of(p.origin)
    return _name_of(kind, test_id) in _known_tests(kind, str(base), p.origin)


@functools.lru_cache(maxsize=256)  # a task's base tree never changes
def _known_tests(kind: str, base: str, rel: str) -> frozenset:
    return frozenset(_tests_in(kind, _read(Path(base), rel) or ""))


def _guards(p: Plan, test_id: str) -> bool:
    kind = _kind_of(p.host)
    if kind == "pytest":
        return test_id.split("::", 1)[0] == p.host
    name = _name_of(kind, test_id)
    if kind == "go":
        return name in _go_funcs(p.text)
    return any(f"{q}{name}{q}" in p.text for q in "'\"`")


@functools.lru_cache(maxsize=16)  # a run's host files, asked once per graded test
def _go_funcs(text: str) -> frozenset:
    return frozenset(re.findall(r"^func\s+(\w+)\s*\(", text, re.M))


def _kind_of(path: str) -> str:
    """The runner of a host file, by its name."""
    return "pytest" if path.endswith(".py") else "go" if path.endswith(".go") else "node"


def _name_of(kind: str, test_id: str) -> str:
    """A report's test id as its file defines the test: pytest's function, Go's top-level test, node's title."""
    if kind == "pytest":
        return test_id.split("::")[-1].split("[")[0]
    return _test_of(test_id) if kind == "go" else test_id.rsplit(NODE_SEP, 1)[-1]


def _keys_of(source: str, outcomes: dict) -> list[str]:
    """The report's keys of a copy's original (as _original_passes finds it)."""
    if source in outcomes:
        return [source]
    return [k for k in outcomes if "::" in k and k.rsplit("::", 1)[1] == source]


def without(p: Plan | Planted, outcomes: dict | None) -> dict | None:
    """The report's outcomes minus the tripwires (they are evidence, not tests of the candidate), their
    messages with the host file's own line numbers."""
    if outcomes is None:
        return None
    names = {w.name for w in p.wires}
    ids = {w.test_id for w in p.wires}
    return {k: replace(o, message=restore_lines(p, o.message)) for k, o in outcomes.items()
            if k not in ids and k not in names and not any(_is(k, n) for n in names)
            and _test_of(k) not in names}


def _test_of(key: str) -> str:
    """The top-level test a Go subtest's id belongs to (`pkg::TestX/case` -> `TestX`): a copy's subtests are the
    copy's too."""
    return key.rsplit("::", 1)[-1].split("/", 1)[0]


def settle(p: Planted, points: dict[str, list[Point]], outcomes: dict | None, plain: dict,
           unstable: set[str]) -> tuple[dict[str, frozenset], list[str], dict[str, frozenset]]:
    """What a probe's run on the base tree shows against the plain run there (`plain`), per host (the points
    `points` it was planned at): the keys of the points whose must-pass tripwire passed (the others are never
    used), the tests whose outcome the instrumentation changed (leaving out `unstable` ones, which vary between
    plain runs anyway), and the unchanged copies whose outcome was their original's (see twins)."""
    if outcomes is None:
        return {}, ["every test (the run wrote no readable report)"], {}
    probed = without(p, outcomes)
    changed = sorted(t for t, o in plain.items()
                     if t not in unstable and (probed.get(t) is None or probed[t].status != o.status))
    kept = {}
    for one in p.plans:
        passed = {w.point for w in one.wires if w.expect == V.PASS and _outcome(w, outcomes) == V.PASS}
        kept[one.origin] = frozenset(pt.key for i, pt in enumerate(points[one.origin]) if i in passed)
    return kept, changed, {one.origin: twins(one, outcomes, unstable) for one in p.plans}


def twins(p: Plan, outcomes: dict | None, unstable: set[str] = frozenset()) -> frozenset:
    """The unchanged copies a probe's run reported as their originals (both passing or both failing), originals
    that vary between plain runs left out: only those are ever a must-pass (one that ran differently, through
    state a test leaves behind, would read as a forged report)."""
    outcomes, out = outcomes or {}, set()
    for w in p.wires:
        if w.expect == SAME and w.source not in unstable:
            got, original = _outcome(w, outcomes), _status(w.source, w.source, outcomes)
            if got is not None and original is not None and (got == V.PASS) == (original == V.PASS):
                out.add(w.copy)
    return frozenset(out)


def proven(p: Plan, outcomes: dict | None) -> tuple[frozenset, frozenset]:
    """The copies a probe's run on the gold tree reported failing: a copy of a check that does not run there (in
    a branch, a loop over nothing, a subtest not started) would pass on an honest tree beside its original,
    which reads as a forged report; and (copy key, subtest) of their subtests that failed there (see
    contradiction)."""
    outcomes = outcomes or {}
    failed = [w for w in p.wires if w.copy is not None and _outcome(w, outcomes) == V.FAIL]
    return (frozenset(w.copy for w in failed),
            frozenset((w.copy, row) for w in failed for row, status in _subtests(w.name, outcomes).items()
                      if status == V.FAIL))


def _subtests(name: str, outcomes: dict) -> dict[str, str]:
    """A Go test's subtests in the report (`pkg::TestX/row` by `row`), their status."""
    out = {}
    for key, o in outcomes.items():
        test, slash, row = key.rsplit("::", 1)[-1].partition("/")
        if slash and test == name:
            out[row] = o.status
    return out
