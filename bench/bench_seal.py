"""How many named tests a sealed assertion decides (issue 41): per task, the fail-to-pass and pass-to-pass tests
with at least one sealed check whose literal the candidate cannot read, statically and after the gold tree's guard.

Tasks: the shipped repo_* tasks, and SWE-bench-format instances imported through `loop tasks import swebench`'s
own code from real git repositories: the calc fixture of tests/datasets/test_swebench.py (a new test file and
a test added to an existing one) and the ledger task as bench_swebench.py makes it (every base test named as
PASS_TO_PASS). pytest, node --test and go test files are sealed (seal.py, seal_js_go.py).

    .venv/bin/python bench/bench_seal.py [--static] [TASK_FOLDER ...]

TASK_FOLDER: more imported tasks, e.g. the SWE-bench Lite rows bench_swebench_history.py rebuilds from the
projects' history (its --work folder's proj-*/harness/tasks/*).
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench"), str(ROOT / "tests"), str(ROOT / "tests" / "datasets")]

from loop import tasks  # noqa: E402
from loop.datasets.swebench import import_instances  # noqa: E402
from loop.kinds.repo import kind as repo_kind  # noqa: E402
from loop.kinds.repo import reference, seal  # noqa: E402
from loop.kinds.repo.results import selector  # noqa: E402
from loop.kinds.repo.tripwire import framework  # noqa: E402
from loop.sandbox import SandboxConfig  # noqa: E402


def sealed_tests(task, only=seal.EVERY) -> set[str]:
    """The named tests with at least one secret seal (a literal not in the base tree's copy of the file)."""
    spec = task.spec
    style = framework(spec.command)
    if style is None:
        return set()
    ids = spec.fail_to_pass + (spec.pass_to_pass or ())
    found = set()
    for rel in dict.fromkeys(seal.files_of(spec.hidden_files, ids)):
        path = (spec.hidden / rel) if spec.hidden and (spec.hidden / rel).is_file() else spec.tree / rel
        if not (path.is_file() and rel.endswith(seal._SUFFIXES[style])):
            continue
        known = spec.tree / rel
        _, seals, _ = seal.plan_file(style, path.read_text(encoding="utf-8"), only=only, file=rel,
                                     known=known.read_text(encoding="utf-8") if known.is_file() else None)
        found |= {seal._key(s) for s in seals if s.secret}
    return {t for t in ids if seal.owner(style, selector(t))[0] in found}


def swebench_tasks(work: Path) -> list:
    from bench_swebench import make_instance
    from test_swebench import CALC_BASE, CALC_F2P, CALC_GOLD, CALC_P2P, CALC_TEST_PATCH, _repo

    repos = work / "repos"
    calc = _repo(repos / "acme__calc", CALC_BASE)
    rows = [{"instance_id": "acme__calc-1", "repo": "acme/calc", "base_commit": calc, "patch": CALC_GOLD,
             "test_patch": CALC_TEST_PATCH, "FAIL_TO_PASS": CALC_F2P, "PASS_TO_PASS": CALC_P2P,
             "environment_setup_commit": calc, "problem_statement": "clamp(-5, 0, 10) gives 10."},
            make_instance(work)]
    path = work / "instances.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    req = work / "requirements.txt"
    req.write_text((ROOT / "harness" / "tasks" / "repo_ledger_py" / "requirements.txt").read_text())
    ids = import_instances(path, repos, work / "tasks", requirements=req)
    return [tasks.load_folder(work / "tasks" / i) for i in ids]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--static", action="store_true", help="count from the syntax tree only (no gold-tree run)")
    ap.add_argument("folders", nargs="*", type=Path, help="more task folders (imported SWE-bench instances)")
    args = ap.parse_args()
    cfg = SandboxConfig()
    with tempfile.TemporaryDirectory(prefix="bench-seal-") as tmp:
        shipped = [tasks.load_folder(p.parent) for p in sorted((ROOT / "harness" / "tasks").glob("repo_*/task.toml"))]
        total: dict[str, list[int]] = {}  # per framework: f2p sealed, f2p, p2p sealed, p2p
        print(f"{'task':24} {'fail-to-pass sealed':>20} {'pass-to-pass sealed':>20}")
        for task in shipped + swebench_tasks(Path(tmp)) + [tasks.load_folder(f) for f in args.folders]:
            spec = task.spec
            style = framework(spec.command)
            only = seal.EVERY
            if not args.static and style is not None:
                only = reference._seals(task, cfg, repo_kind._environment(spec, cfg))
            got = sealed_tests(task, only)
            f2p = sum(t in got for t in spec.fail_to_pass)
            p2p = sum(t in got for t in spec.pass_to_pass or ())
            row = total.setdefault(str(style), [0, 0, 0, 0])
            for i, n in enumerate((f2p, len(spec.fail_to_pass), p2p, len(spec.pass_to_pass or ()))):
                row[i] += n
            p2p_text = f"{p2p}/{len(spec.pass_to_pass)}" if spec.pass_to_pass is not None else "(base-passing)"
            print(f"{task.name:24} {f'{f2p}/{len(spec.fail_to_pass)}':>20} {p2p_text:>20}")
        for style, (a, b, c, d) in sorted(total.items()):
            print(f"{'total ' + style:24} {f'{a}/{b}':>20} {f'{c}/{d}':>20}")
        # every test file of the shipped trees, read as if it were hidden: how many of its tests have a check the
        # plan seals (statically: the gold tree's run decides which are kept)
        print(f"\n{'test files as if hidden':40} {'tests with a sealable check':>28}")
        for task in shipped:
            style = framework(task.spec.command)
            for path in sorted(p for p in task.spec.tree.rglob("*") if p.is_file() and _test_file(style, p)):
                sealed, every = file_share(style, path.read_text(encoding="utf-8"), path.name)
                print(f"{task.name + '/' + path.name:40} {f'{sealed}/{every}':>28}")


def _test_file(style: str, path: Path) -> bool:
    return {"pytest": path.name.startswith("test_") and path.suffix == ".py",
            "node": path.name.endswith(".test.js"), "go": path.name.endswith("_test.go")}[style]


def file_share(style: str, source: str, name: str) -> tuple[int, int]:
    """(tests of the file with at least one sealable check, all its tests)."""
    _, seals, _ = seal.plan_file(style, source, file=name)
    if style == "pytest":
        every = [n for n, _ in seal._tests(ast.parse(source).body, [])]
    elif style == "node":
        every = seal.js_go._js_checks(seal.js_go.lex(source, "js") or [])[1]
    else:
        every = re.findall(r"^func (Test\w*)\(", source, re.M)
    return len({s.test for s in seals}), len(set(every))

if __name__ == "__main__":
    main()
