"""False fails and catch rate on the independent corpora, at the defaults (k=5, 200 trials, the grade
`loop grade --samples` gives, through the fork servers): one table row per corpus and seed, each miss named
with its class (a wrong file's first line). The corpora were written from the problem statements alone:

- humaneval: tests/humaneval_corpus (the first corpus);
- plus/humaneval: tests/plus_corpus/humaneval (the second, over HumanEval problems the first does not cover);
- plus/mbpp: tests/plus_corpus/mbpp (the second corpus's MBPP+ half), graded with `--mbpp FILE`: EvalPlus's
  MbppPlus release file, imported here as `loop tasks import evalplus FILE` imports it; files whose problem
  the file lacks are left out and counted (without --mbpp, the whole half).

    .venv/bin/python bench/bench_corpus.py [--seeds 1 2 3] [--mbpp MbppPlus.jsonl]
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from loop import tasks  # noqa: E402
from loop import verdicts as V  # noqa: E402
from loop.datasets import evalplus  # noqa: E402
from loop.datasets.evalplus import release  # noqa: E402
from loop.datasets.humaneval import tasks as humaneval  # noqa: E402
from loop.kinds.function.fork import grade_batch  # noqa: E402
from loop.sandbox import SandboxConfig  # noqa: E402

CORPUS = ROOT / "tests" / "humaneval_corpus"
CORPORA = {"humaneval": (CORPUS, "HumanEval/{}"), "plus/humaneval": (ROOT / "tests" / "plus_corpus" / "humaneval", "HumanEval/{}"),
           "plus/mbpp": (ROOT / "tests" / "plus_corpus" / "mbpp", "Mbpp/{}")}


def load(contracts: bool) -> dict[str, tasks.Task]:
    """The 164 HumanEval tasks, loaded (with or without the input contracts), their folders gone."""
    plain = humaneval._contract
    if not contracts:
        humaneval._contract = lambda task_id: None
    try:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            humaneval.import_humaneval(tasks.tasks_root(root))
            loaded = {name: tasks.load(root, name) for name in tasks.list_tasks(root)}
            for task in loaded.values():
                task.oracle  # noqa: B018 - load relations.py before the folder goes
            return loaded
    finally:
        humaneval._contract = plain


def miss_class(path: Path) -> str:
    """The class a wrong file's first line names (`# wrong: <class>: ...`), else its first words."""
    first = path.read_text().splitlines()[0]
    m = re.match(r"#\s*wrong:\s*([\w ]+):", first)
    return m[1] if m else first.lstrip("# ")[:40]


def jobs(corpus: str, by_name: dict[str, tasks.Task]) -> tuple[list[tuple[str, Path, tasks.Task]], set[str]]:
    """(kind, file, task) of each of the corpus's files whose task is loaded; the task names that are not."""
    folder, task_id = CORPORA[corpus]
    out, absent = [], set()
    for kind in ("correct", "wrong"):
        for path in sorted((folder / kind).glob("[pm]*.py")):
            name = release.task_name(task_id.format(int(re.match(r"[pm](\d+)", path.name)[1])))
            if name in by_name:
                out.append((kind, path, by_name[name]))
            else:
                absent.add(name)
    return out, absent


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--mbpp", type=Path, help="EvalPlus's MbppPlus.jsonl: grade the corpus's MBPP+ half too")
    args = ap.parse_args()
    cfg = SandboxConfig()
    by_name = load(contracts=True)
    with tempfile.TemporaryDirectory() as tmp:
        if args.mbpp is not None:
            started = time.perf_counter()
            imported = evalplus.import_evalplus(args.mbpp, tasks.tasks_root(Path(tmp)), cfg)
            by_name.update({name: tasks.load(Path(tmp), name) for name in imported.names})
            print(f"{args.mbpp}: {len(imported.names)} MBPP+ tasks imported, {time.perf_counter() - started:.0f} s")
        print("| corpus | seed | false fails | wrong caught | missed (class) | seconds |\n|---|---|---|---|---|---|")
        left_out, second = [], {}  # seed -> [false fails, correct, caught, wrong] over the plus/ corpora
        for corpus in CORPORA:
            graded, absent = jobs(corpus, by_name)
            if absent:
                left_out.append(f"{corpus}: {len(absent)} problem(s) not imported ({', '.join(sorted(absent)[:4])} ...)")
            if not graded:
                continue
            correct = sum(kind == "correct" for kind, _, _ in graded)
            wrong = len(graded) - correct
            for seed in args.seeds:
                started = time.perf_counter()
                grades = grade_batch([(task, path.read_text()) for _, path, task in graded], cfg, seed=seed, k=5,
                                     trials=200)
                false = [p.name for (kind, p, _), g in zip(graded, grades) if kind == "correct" and g.verdict != V.STABLE_PASS]
                missed = [p for (kind, p, _), g in zip(graded, grades) if kind == "wrong" and g.verdict != V.STABLE_FAIL]
                print(f"| {corpus} | {seed} | {len(false)}/{correct} {' '.join(false)} | {wrong - len(missed)}/{wrong} "
                      f"({(wrong - len(missed)) / wrong:.0%}) | {', '.join(f'{p.stem} ({miss_class(p)})' for p in missed)} "
                      f"| {time.perf_counter() - started:.0f} |", flush=True)
                if corpus.startswith("plus/"):
                    tally = second.setdefault(seed, [0, 0, 0, 0])
                    for i, n in enumerate((len(false), correct, wrong - len(missed), wrong)):
                        tally[i] += n
        for seed, (false, correct, caught, wrong) in second.items():
            print(f"second corpus (plus/*), seed {seed}: {false}/{correct} false fails, {caught}/{wrong} wrong caught "
                  f"({caught / wrong:.1%})")
        for line in left_out:
            print(line)


if __name__ == "__main__":
    main()
