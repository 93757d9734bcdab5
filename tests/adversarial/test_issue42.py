"""Three verdicts the grader got wrong (issue 42), each `stable_fail` under seeds 1-3 on both paths (fresh
sandboxes: `loop grade`; fork servers: _forkbatch.py), as root and as an unprivileged user:

- argument state compared with `==`: the caller's [1, -2] left as [1.0, -2.0] passed;
- a memo keyed by (length, total) answered a later list from an earlier one, and its counterexample alone in
  a fresh process passed (flaky): it is replayed after the calls that preceded it in its share;
- CPU time hidden in fork()ed children, each under RLIMIT_CPU (a per-process limit): the fork servers hold
  a job's processes together to the limit (on fresh sandboxes the wall clock, which every process spends,
  is the limit).
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from _adv import world_dir
from loop.datasets.humaneval import tasks as humaneval
from test_integrity import HERE, USERS, as_user, expected, no_traceback, run_loop

CANDIDATES = ["he003_float_args.py", "he003_memo.py", "he003_hidden_cpu.py"]
SEEDS = [1, 2, 3]
K, TRIALS = 5, 200  # loop's defaults: the trials split across the repeats


@pytest.fixture(scope="module")
def project():
    """HumanEval/3 imported into a project any user can write."""
    proj = world_dir("loop-adv-issue42-")
    os.chmod(proj, 0o777)
    tasks = proj / "harness" / "tasks"
    tasks.mkdir(parents=True)
    humaneval.import_humaneval(tasks, [p for p in humaneval.read_problems() if p["task_id"] == "HumanEval/3"])
    (proj / "config.toml").write_text(f'[loop]\ndb = "{proj / "runs.db"}"\n')
    for path in [proj, *proj.rglob("*")]:
        os.chmod(path, 0o777 if path.is_dir() else 0o644)
    yield proj
    shutil.rmtree(proj, ignore_errors=True)


def _fails_as_its_file_says(name: str, verdict: str, checks: list[str], detail: str) -> None:
    want, check = expected(HERE / name)
    assert verdict == want, (name, verdict, checks, detail)
    assert check in checks, (name, checks)
    if name == "he003_memo.py":  # the sequence it fails after is shown
        assert "it fails only after the calls before it in repeat" in detail and "the sequence [" in detail, detail


@pytest.mark.parametrize("user", USERS)
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", CANDIDATES)
@pytest.mark.slow
def test_fresh_sandboxes(project, user, seed, name):
    db = project / f"runs-{user}-{name}-{seed}.db"
    done = run_loop(user, project, "grade", "humaneval_003", str(HERE / name), "--k", str(K), "--trials",
                    str(TRIALS), "--seed", str(seed), "--db", str(db), "--json", timeout=600)
    assert no_traceback(done) and done.returncode == 1, done.stderr[-2000:]
    g = json.loads(done.stdout.strip().splitlines()[-1])
    check = expected(HERE / name)[1]
    detail = next((f["detail"] for f in g["failures"] if f["check"] == check), "")
    _fails_as_its_file_says(name, g["verdict"], [f["check"] for f in g["failures"]], detail)


FORK = r"""
import json, sys
from pathlib import Path
from loop import tasks
from loop.kinds.function.fork import grade_batch
from loop.sandbox import SandboxConfig
root, seed, files = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
task = tasks.load(root, "humaneval_003")
grades = grade_batch([(task, Path(f).read_text()) for f in files], SandboxConfig(), servers=%d, k=%d, trials=%d,
                     seed=seed)
print(json.dumps([[g.verdict, [[f["check"], f["detail"]] for f in g.failures()]] for g in grades]))
""" % (K, K, TRIALS)


@pytest.mark.parametrize("user", USERS)
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.slow
def test_fork_servers(project, user, seed):
    """The three in turn on the same fork servers (each meets the state its predecessor left)."""
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([*as_user(user), sys.executable, "-c", FORK, str(project), str(seed),
                           *[str(HERE / n) for n in CANDIDATES]], capture_output=True, text=True, timeout=600,
                          cwd=root, env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": "/tmp",
                                         "PYTHONPATH": str(root)})
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-2000:]
    for name, (verdict, failures) in zip(CANDIDATES, json.loads(done.stdout)):
        checks = [c for c, _ in failures]
        detail = next((d for c, d in failures if c == expected(HERE / name)[1]), "")
        _fails_as_its_file_says(name, verdict, checks, detail)
