"""Can a forger tell loop's tripwire tests from a hidden file's own tests? A naive Bayes classifier, trained on
half of many instrumented copies of each host file (it is told which tests were tripwires) and scored on the
other half, picks the tests it finds most tripwire-like; its precision is printed against chance (the share of
tripwires among the tests). Two feature sets: the structure (blank lines around a test, its size, decorators,
first/last in its scope, the words of its name, and, for two tests that differ in one literal, which comes first
and whose name is longer) and the same plus body shape (an aggregate over a literal list, which only tripwires
have). The hard part for a forger is the twin task: of two tests that differ in one literal, which is the copy
(the must-fail it must not flip)? Chance is 0.5.

Run: .venv/bin/python bench/bench_tripwire_tells.py [--runs N] [HOST_FILE ...]   (pytest, node or Go test files;
default: the shipped tasks' hidden test files)
"""

from __future__ import annotations

import argparse
import math
import random
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from loop.kinds.repo import tripwire as T  # noqa: E402

SHIPPED = [ROOT / "harness/tasks/repo_ledger_py/hidden/tests/test_tax_rounding.py",
           ROOT / "harness/tasks/repo_strkit_js/hidden/test/truncate_unicode.test.js",
           ROOT / "harness/tasks/repo_semver_go/hidden/compare_numeric_test.go"]
COMMAND = {".py": ("python3", "-m", "pytest"), ".js": ("node", "--test"), ".go": ("go", "test", "./...")}
AGGREGATE = re.compile(r"=\s*\[[-\d, ]+\]|:= \[\]int\{|const v = \[")


def tests_of(kind: str, text: str) -> list[dict]:
    """Each test of an instrumented file: name, scope, lines of its block, blank lines before and after."""
    every = T.points_of(kind, text)  # a scope's end point ends its last test's block
    points = [p for p in every if p.before]
    lines = text.splitlines()
    out = []
    for p in points:
        end = next((q.line for q in every if q.line > p.line and q.scope == p.scope), len(lines))
        block = lines[p.line:end]
        while block and not block[-1].strip():
            block.pop()
        after = 0
        while p.line + len(block) + after < len(lines) and not lines[p.line + len(block) + after].strip():
            after += 1
        out.append({"name": p.before, "scope": p.scope, "body": "\n".join(block), "gap": p.after,
                    "after": after, "line": p.line})
    return out


def words(kind: str, name: str) -> list[str]:
    return {"pytest": lambda n: n.removeprefix("test").strip("_").split("_"),
            "go": lambda n: re.findall(r"[A-Z][a-z0-9]*|[a-z0-9]+", n.removeprefix("Test")),
            "node": lambda n: n.split()}[kind](name)


def literal_free(t: dict) -> str:
    """A test's block with its own name and every literal left out: two tests that differ only there are twins."""
    return re.sub(r"'[^'\n]*'|\"[^\"\n]*\"|-?\d+(?:\.\d+)?", "L", t["body"].replace(t["name"], "N"))


def features(kind: str, tests: list[dict], shape: bool) -> list[tuple]:
    twins = defaultdict(list)
    for i, t in enumerate(tests):
        twins[literal_free(t)].append(i)
    out = []
    for i, t in enumerate(tests):
        same = [u for u in tests if u["scope"] == t["scope"]]
        pair = [j for j in twins[literal_free(t)] if j != i]
        f = [("gap", t["gap"]), ("after", t["after"]), ("size", min(t["body"].count("\n"), 8)),
             ("decorated", t["body"].lstrip().startswith("@")), ("first", t is same[0]), ("last", t is same[-1]),
             ("words", min(len(words(kind, t["name"])), 9)), ("twin", bool(pair))]
        if pair:
            other = tests[pair[0]]
            f += [("twin_first", t["line"] < other["line"]),
                  ("twin_longer", len(words(kind, t["name"])) - len(words(kind, other["name"])))]
        if shape:
            f.append(("aggregate", bool(AGGREGATE.search(t["body"]))))
        out.append(tuple(f))
    return out


def samples(path: Path, runs: int) -> list[tuple[list[tuple], list[bool], list[tuple[int, int]]]]:
    kind = T.framework(COMMAND[path.suffix])
    source = path.read_text(encoding="utf-8")
    out = {True: [], False: []}
    for seed in range(runs):
        rng = random.Random(seed)
        points = T.points_of(kind, source)
        p = {"pytest": T._pytest, "node": T._node, "go": T._go}[kind](path.name, source, (), rng, points)
        tests = tests_of(kind, p.text)
        wires = {w.name for w in p.wires}
        labels = [t["name"] in wires for t in tests]
        pairs = [(i, j) for i, t in enumerate(tests) for j, u in enumerate(tests)
                 if i < j and literal_free(t) == literal_free(u) and labels[i] != labels[j]]
        for shape in (False, True):
            out[shape].append((features(kind, tests, shape), labels, pairs))
    return out


def train(rows) -> dict:
    counts = {True: Counter(), False: Counter()}
    totals = Counter()
    for feats, labels, _ in rows:
        for f, y in zip(feats, labels):
            totals[y] += 1
            counts[y].update(f)
    return {"counts": counts, "totals": totals}


def score(model, f) -> float:
    c, n = model["counts"], model["totals"]
    return sum(math.log((c[True][x] + 1) / (n[True] + 2)) - math.log((c[False][x] + 1) / (n[False] + 2)) for x in f)


def evaluate(rows, runs: int) -> tuple[float, float, float, int]:
    model = train(rows[:runs // 2])
    hits = picks = tripwires = tests = twin_right = twins = 0
    for feats, labels, pairs in rows[runs // 2:]:
        m = sum(labels)
        ranked = sorted(range(len(feats)), key=lambda i: -score(model, feats[i]))[:m]
        hits += sum(labels[i] for i in ranked)
        picks += m
        tripwires += m
        tests += len(labels)
        for i, j in pairs:
            guess = i if score(model, feats[i]) > score(model, feats[j]) else j
            twin_right += labels[guess]
            twins += 1
    return hits / max(picks, 1), tripwires / max(tests, 1), twin_right / max(twins, 1), twins


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=400)
    ap.add_argument("hosts", nargs="*", type=Path)
    args = ap.parse_args()
    print(f"{'host file':<44} {'features':<20} {'precision':>9} {'chance':>7} {'twin acc':>8} {'pairs':>6}")
    for path in args.hosts or SHIPPED:
        data = samples(path, args.runs)
        for shape in (False, True):
            precision, chance, twin, pairs = evaluate(data[shape], args.runs)
            label = "structure+body shape" if shape else "structure"
            print(f"{str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)[-44:]:<44} {label:<20} "
                  f"{precision:>9.2f} {chance:>7.2f} {twin:>8.2f} {pairs:>6}")


if __name__ == "__main__":
    main()
