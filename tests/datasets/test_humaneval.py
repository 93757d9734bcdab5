"""HumanEval import, differential fuzzing, the correctness bar (164 canonical solutions stable_pass with
k=5 and relations on) and the fork server's isolation between candidates."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

import pytest

from loop.oracles import fuzz

from loop.datasets.humaneval import tasks as humaneval

from loop import tasks
from loop import verdicts as V
from loop.kinds.function.fork import ForkPool, ForkServer, grade_batch
from loop.grading.model import Options
from loop.kinds.function.grade import check_polarity
from loop.kinds import grade
from loop.oracles.engine import generated_inputs
from loop.sandbox import SandboxConfig
from loop.kinds.task import CheckSource



def grade_json(loop_cli, *args, config):
    code, out = loop_cli("grade", *args, "--json", config=config)
    return code, json.loads(out.strip().splitlines()[-1])
SANDBOX = SandboxConfig()
CHUNKS = 16


def _project(root: Path) -> Path:
    (root / "harness" / "tasks").mkdir(parents=True, exist_ok=True)
    (root / "config.toml").write_text(f'[loop]\ndb = "{root / "runs.db"}"\nk = 1\ntrials = 200\n')
    return root


@pytest.fixture(scope="session")
def project(tmp_path_factory) -> Path:
    root = _project(tmp_path_factory.mktemp("humaneval"))
    humaneval.import_humaneval(tasks.tasks_root(root))
    return root


@pytest.fixture(scope="session")
def problems() -> list[dict]:
    return humaneval.read_problems()


# --------------------------------------------------------------------------- import


def test_cli_import_is_deterministic_and_idempotent(tmp_path, loop_cli):
    a, b = _project(tmp_path / "a"), _project(tmp_path / "b")
    code, out = loop_cli("tasks", "import", "humaneval", config=a / "config.toml")
    assert code == 0 and "imported 164 tasks" in out
    code, _ = loop_cli("tasks", "import", "humaneval", "--dest", b / "harness" / "tasks")
    assert code == 0
    dest_a, dest_b = a / "harness" / "tasks", b / "harness" / "tasks"
    names = sorted(p.name for p in dest_a.iterdir())
    assert names == [f"humaneval_{i:03d}" for i in range(164)]
    files_a = {p.relative_to(dest_a): p.read_bytes() for p in dest_a.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    files_b = {p.relative_to(dest_b): p.read_bytes() for p in dest_b.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    assert files_a == files_b
    mtimes = {p: p.stat().st_mtime_ns for p in dest_a.rglob("*.json")}
    time.sleep(0.01)
    loop_cli("tasks", "import", "humaneval", config=a / "config.toml")
    assert {p: p.stat().st_mtime_ns for p in dest_a.rglob("*.json")} == mtimes  # nothing rewritten
    code, out = loop_cli("tasks", "list", "--json", config=a / "config.toml")
    rows = json.loads(out)
    assert len(rows) == 164 and not any(r["baseline"] for r in rows)


def test_split_into_named_tests(project, problems):
    add = tasks.load(project, "humaneval_053")
    literal = [t for t in add.tests if not isinstance(t.args[0], CheckSource)]
    assert [(t.name, t.args, t.expected, t.test_kind) for t in literal[:2]] == [
        ("assert_01", (0, 1), 1, "gen"), ("assert_02", (1, 0), 1, "gen")]
    rest = [t for t in add.tests if isinstance(t.args[0], CheckSource)]
    assert [t.name for t in rest] == ["check_rest"]  # the random loop stays a whole-check test
    assert "random.randint" in rest[0].args[0] and "assert candidate(0, 1)" not in rest[0].args[0]
    assert add.baseline is None and add.reference.startswith(problems[53]["prompt"])
    assert add.contract == problems[53]["prompt"]
    # a check with nothing splittable is one whole test; no literal calls to mutate, so every fuzzed input
    # comes from the contract's own generator
    decode = tasks.load(project, "humaneval_038")
    assert [t.name for t in decode.tests] == ["check"] and decode.oracle.module.SEEDS == []
    inputs = generated_inputs(decode.oracle, seed=3, trials=50)
    assert len(inputs) == 50 and all(decode.oracle.module.contract(*x) is None for x in inputs)
    assert tasks.load(project, "humaneval_000").oracle.argument_lists is True


@pytest.mark.sandbox
def test_no_baseline_grades_cleanly_through_the_cli(project, loop_cli, tmp_path):
    cand = tmp_path / "add.py"
    cand.write_text(tasks.load(project, "humaneval_053").reference)
    code, g = grade_json(loop_cli, "humaneval_053", cand, "--k", "2", "--trials", "50", config=project / "config.toml")
    assert code == 0 and g["verdict"] == V.STABLE_PASS, g
    assert g["transitions"] == {"fail_to_pass": {"repaired": 0, "still_broken": 0},
                                "pass_to_pass": {"preserved": 0, "regressed": 0}}
    code, _ = loop_cli("tasks", "check", "humaneval_053", config=project / "config.toml")
    assert code == 0
    cand.write_text("def add(x, y):\n    return x - y if x else y\n")
    code, g = grade_json(loop_cli, "humaneval_053", cand, "--k", "1", config=project / "config.toml")
    assert code == 1 and g["verdict"] == V.STABLE_FAIL
    assert {f["check"] for f in g["failures"]} >= {"test:assert_03", "test:check_rest"}


@pytest.mark.sandbox
def test_whole_check_test_fails_a_wrong_candidate(project):
    task = tasks.load(project, "humaneval_038")
    wrong = task.contract + "    return s[::-1]\n"
    g = grade(task, wrong, SANDBOX, Options(k=1, trials=0))
    assert g.verdict == V.STABLE_FAIL and g.failures()[0]["check"] == "test:check"
    assert "AssertionError" in g.failures()[0]["detail"]
    assert grade(task, task.reference, SANDBOX, Options(k=1, trials=0)).verdict == V.STABLE_PASS


# --------------------------------------------------------------------------- fuzzing


def test_mutation_is_seeded_and_type_aware():
    seeds = [[[1, 2, 3], "abc", 2.5, (1, "x"), {"a": 1}, True]]
    gen = fuzz.generator(seeds)
    runs = [[gen(random.Random(f"7:{t}"), 20) for t in range(200)] for _ in range(2)]
    assert runs[0] == runs[1]
    assert len({json.dumps(x, default=repr) for x in runs[0]}) > 100
    for x in runs[0]:
        assert len(x) == 6
        assert isinstance(x[0], list) and all(type(v) is int for v in x[0])
        assert isinstance(x[1], str) and isinstance(x[2], float) and isinstance(x[3], tuple)
        assert isinstance(x[4], dict) and isinstance(x[5], bool)
    assert fuzz.equal([1.0, (2, 0.1 + 0.2)], [1.0000000001, (2, 0.3)])
    assert not fuzz.equal([1, 2], (1, 2)) and not fuzz.equal(0.1, 0.2) and fuzz.equal(float("nan"), float("nan"))


@pytest.mark.sandbox
def test_inputs_the_reference_rejects_are_discarded_not_failures(tmp_path):
    """A reference that raises or hangs on some fuzzed inputs: an identical candidate stays stable_pass, and
    a candidate that differs only where the reference answers is caught (with a shrunk counterexample)."""
    proj = _project(tmp_path)
    problem = {"task_id": "Local/1", "entry_point": "halve", "canonical_solution": (
        "    if n < 0:\n        raise ValueError('negative')\n"
        "    if n > 40:\n        while True:\n            pass\n"
        "    return n // 2\n"),
        "prompt": "def halve(n):\n    \"\"\"n // 2 for 0 <= n <= 40.\"\"\"\n",
        "test": "def check(candidate):\n    assert candidate(4) == 2\n    assert candidate(30) == 15\n"}
    humaneval.import_humaneval(tasks.tasks_root(proj), [problem])
    relations = tasks.tasks_root(proj) / "humaneval_001" / "relations.py"
    relations.write_text(relations.read_text() + "REFERENCE_LIMIT = 0.3\n")
    task = tasks.load(proj, "humaneval_001")
    assert grade(task, task.reference, SANDBOX, Options(k=2, trials=60)).verdict == V.STABLE_PASS
    off = task.contract + "    return n // 2 if n != 7 else 4\n"
    g = grade(task, off, SANDBOX, Options(k=1, trials=200))
    assert g.verdict == V.STABLE_FAIL, g.failures()
    (fail,) = g.failures()
    assert fail["check"] == "relation:agrees_with_reference" and "minimal input [7]" in fail["detail"]
    n = g.inputs  # nothing dropped silently: negatives raised, n > 40 hung, each counted
    assert n["reference_error"] > 0 and n["reference_timeout"] > 0 and n["contract"] == 0
    assert n["generated"] == n["kept"] + n["reference_error"] + n["reference_timeout"]


_CONTRACT = """\
def contract(xs):
    if type(xs) is not list or not xs or any(type(x) is not int or x <= 0 for x in xs):
        return "xs must be a non-empty list of positive ints"
    if not any(x % 2 == 0 for x in xs):
        return "xs must hold an even number"
    return None


def generate(rng, size):
    xs = [rng.choice([1, 3, 5, 7]) for _ in range(rng.randint(0, 3 * size))]
    xs.insert(rng.randint(0, len(xs)), 2 * rng.randint(1, 50))
    return [xs]
"""
_EVEN = {"task_id": "Local/2", "entry_point": "first_even",
         "prompt": "def first_even(xs):\n    \"\"\"The index of the first even number in xs, a non-empty list of "
                   "positive ints holding at least one even number.\"\"\"\n",
         "canonical_solution": "    for i, x in enumerate(xs):\n        if x % 2 == 0:\n            return i\n    return -1\n",
         "test": "def check(candidate):\n    assert candidate([1, 2]) == 1\n    assert candidate([4]) == 0\n"
                 "    assert candidate([3, 5, 8, 2]) == 2\n"}
_CAREFUL = ("    if not xs or any(type(x) is not int or x <= 0 for x in xs):\n        raise ValueError(xs)\n"
            "    return [x % 2 for x in xs].index(0)\n")  # raises ValueError when no number is even, too
_SHORTSIGHTED = "    return next((i for i, x in enumerate(xs[:6]) if x % 2 == 0), 0)\n"


def _even_task(tmp_path, monkeypatch, with_contract: bool):
    import types

    mod = types.ModuleType("contract")
    exec(_CONTRACT, mod.__dict__)
    monkeypatch.setattr(humaneval, "_contract", lambda task_id: (_CONTRACT, mod) if with_contract else None)
    proj = _project(tmp_path)
    humaneval.import_humaneval(tasks.tasks_root(proj), [_EVEN])
    return tasks.load(proj, "humaneval_002")


@pytest.mark.sandbox
def test_the_input_contract_keeps_careful_code_from_false_fails(tmp_path, monkeypatch):
    """Without a contract, mutated inputs the docstring rules out (negatives, empty, no even number) fail a
    correct candidate that raises on them; with it they are discarded and counted, and a wrong candidate is
    still caught, with a minimal counterexample inside the contract."""
    task = _even_task(tmp_path / "bare", monkeypatch, with_contract=False)
    assert grade(task, task.contract + _CAREFUL, SANDBOX, Options(k=1, trials=200)).verdict == V.STABLE_FAIL
    task = _even_task(tmp_path / "contract", monkeypatch, with_contract=True)
    mod = task.oracle.module
    g = grade(task, task.contract + _CAREFUL, SANDBOX, Options(k=2, trials=200))
    assert g.verdict == V.STABLE_PASS, g.failures()
    n = g.inputs
    assert n["contract"] > 0 and n["kept"] > 150
    assert n["generated"] == n["kept"] + n["contract"] + n["reference_error"] + n["reference_timeout"]
    for seed in (1, 2, 3):
        g = grade(task, task.contract + _SHORTSIGHTED, SANDBOX, Options(k=1, trials=200, seed=seed))
        assert g.verdict == V.STABLE_FAIL, g.failures()
        (fail,) = [c for c in g.checks if c.check == "relation:agrees_with_reference"]
        assert mod.contract(*fail.minimal) is None and len(fail.minimal[0]) == 7, fail.minimal


@pytest.mark.sandbox
def test_an_output_equivalence_accepts_every_right_answer(tmp_path, monkeypatch):
    """A problem with several right answers (any index of an even number) accepts each of them in named
    tests and in fuzzing; a wrong index is still a failure, and a value that breaks the check is a miss."""
    source = _CONTRACT + ("\n\ndef equivalent(args, got, want):\n"
                          "    return type(got) is int and 0 <= got < len(args[0]) and args[0][got] % 2 == 0\n")
    import types

    mod = types.ModuleType("contract")
    exec(source, mod.__dict__)
    monkeypatch.setattr(humaneval, "_contract", lambda task_id: (source, mod))
    proj = _project(tmp_path)
    humaneval.import_humaneval(tasks.tasks_root(proj), [_EVEN])
    task = tasks.load(proj, "humaneval_002")
    last = "    return max(i for i, x in enumerate(xs) if x % 2 == 0)\n"
    assert grade(task, task.contract + last, SANDBOX, Options(k=1, trials=200)).verdict == V.STABLE_PASS
    odd = "    return max(i for i, x in enumerate(xs) if x % 2 == 0) if len(xs) < 9 else len(xs)\n"
    g = grade(task, task.contract + odd, SANDBOX, Options(k=1, trials=200))
    assert g.verdict == V.STABLE_FAIL and g.failures()[0]["check"] == "relation:agrees_with_reference"
    assert not fuzz.equivalent_to(mod.equivalent, [[2]], [0], 0)  # raises inside (list < int): a miss


def test_time_limit_scales_with_the_reference():
    """The candidate's batch limit is max(floor, factor x the reference's measured time)."""
    from loop.kinds.function.attempt import Plan, accepted_inputs
    from loop.oracles import Oracle

    class Ref:
        def call(self, args, limit=None):
            time.sleep(0.02)
            return {"ok": args[0]}

    class Cand:
        deadline = 0.0

    oracle = Oracle(argument_lists=True, time_floor=0.1, time_factor=50.0, reference_limit=1.0)
    task = type("T", (), {"oracle": oracle})()
    plan = Plan(task, SANDBOX, None, None, None, None, [], 1, 10)
    cand = Cand()
    before = time.monotonic()
    kept = accepted_inputs(plan, Ref(), [[1], [2], [3]], cand)
    assert kept == [[1], [2], [3]]
    assert cand.deadline - before >= 50.0 * 0.06 * 0.9  # three 20 ms reference calls, x50


# --------------------------------------------------------------------------- correctness bar


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_every_canonical_solution_is_stable_pass(project, chunk):
    """All 164 canonical solutions, k=5, relations on (200 trials of differential fuzzing): zero false failures,
    and the fork servers' fast path gives each the same grade, check by check (attempts, digests, inputs)."""
    names = tasks.list_tasks(project)[chunk::CHUNKS]
    bad, slow = [], []
    for name in names:
        task = tasks.load(project, name)
        problems = check_polarity(task, SANDBOX)
        g = grade(task, task.reference, SANDBOX, Options(k=5, trials=200, seed=1))
        slow.append(g)
        if problems or g.verdict != V.STABLE_PASS:
            bad.append((name, problems, g.verdict, g.failures()[:2], g.notes))
    assert not bad
    loaded = [tasks.load(project, n) for n in names]
    fast = grade_batch([(t, t.reference) for t in loaded], SANDBOX, servers=2, k=5, trials=200, seed=1)

    def shape(g):
        return (g.verdict, [(c.check, c.passed) for c in g.checks], [(a.status, a.digest) for a in g.attempts], g.inputs)

    assert [shape(g) for g in fast] == [shape(g) for g in slow]


# --------------------------------------------------------------------------- fork server


def _task(project, name="humaneval_053"):
    return tasks.load(project, name)


@pytest.mark.sandbox
def test_fork_server_grades_like_loop_grade(project):
    names = tasks.list_tasks(project)[:20]
    items = [(tasks.load(project, n), tasks.load(project, n).reference) for n in names]
    add = _task(project)
    items.append((add, "def add(x, y):\n    return x * y\n"))
    items.append((add, "def add(x, y) return\n"))
    grades = grade_batch(items, SANDBOX, servers=2)
    assert [g.verdict for g in grades[:-2]] == [V.STABLE_PASS] * 20
    assert grades[-2].verdict == V.STABLE_FAIL and grades[-2].failures()[0]["check"] == "test:assert_01"
    assert grades[-1].verdict == V.STABLE_FAIL and grades[-1].failures()[0]["check"] == V.BUILD
    slow = grade(add, "def add(x, y):\n    return x * y\n", SANDBOX, Options(k=1, trials=0))
    assert [c.check for c in slow.checks if not c.passed] == [c.check for c in grades[-2].checks if not c.passed]



@pytest.mark.sandbox
def test_fork_pool_honours_quarantine(project):
    """A quarantined check still runs and is reported but does not decide the verdict, as in `grade`."""
    add = _task(project)
    wrong = "def add(x, y):\n    return x * y\n"
    opts = Options(k=1, trials=0)
    quarantined = frozenset(c.check for c in grade(add, wrong, SANDBOX, opts).checks if not c.passed)
    assert quarantined
    with ForkPool(SANDBOX, 1) as pool:
        fast = pool.submit(add, wrong, opts, quarantined).result()
    slow = grade(add, wrong, SANDBOX, opts, quarantined)
    assert fast.verdict == slow.verdict == V.STABLE_PASS
    assert fast.notes == slow.notes and any(n.startswith("quarantined: test:") for n in fast.notes)


@pytest.mark.sandbox
def test_fork_pool_outlives_callers_that_give_up(project):
    """Futures cancelled by their caller (an interrupted `loop run`), queued or already running, leave the
    pool serving the rest."""
    add = _task(project)
    opts = Options(k=1, trials=0)
    with ForkPool(SANDBOX, 1) as pool:
        futures = [pool.submit(add, add.reference, opts) for _ in range(8)]
        assert all(f.cancel() for f in futures[:4])
        assert [f.result(timeout=60).verdict for f in futures[4:]] == [V.STABLE_PASS] * 4


@pytest.mark.parametrize("bwrap", ["/nonexistent/bwrap", "/bin/false"])
@pytest.mark.sandbox
def test_fork_pool_without_a_sandbox_is_inconclusive(project, bwrap):
    """No sandbox (bubblewrap missing, or one that never says hello): attempts infra_unknown, the grade
    inconclusive as with `grade`, never a fail or a pass."""
    add = _task(project)
    cfg = SandboxConfig(bwrap=bwrap)
    sources = (add.reference, "def add(x, y):\n    return x * y\n")
    with ForkPool(cfg, 1) as pool:
        grades = [pool.submit(add, src, Options(k=1, trials=0)).result(timeout=60) for src in sources]
    assert [g.verdict for g in grades] == [V.INCONCLUSIVE] * 2
    assert [grade(add, src, cfg, Options(k=1, trials=0)).verdict for src in sources] == [V.INCONCLUSIVE] * 2
    assert all(a.status == V.INFRA_UNKNOWN and not g.resolved and g.notes for g in grades for a in g.attempts)

HOSTILE = {
    "global_state": (
        "import builtins, math, random\n"
        "builtins.sum = lambda *a, **k: 0\nmath.fabs = lambda x: 0\nrandom.randint = lambda a, b: 0\n"
        "def add(x, y):\n    return x + y\n"),
    "kill_server": "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\ndef add(x, y):\n    return x + y\n",
    "stop_server": "import os, signal\nos.kill(os.getppid(), signal.SIGSTOP)\ndef add(x, y):\n    return x + y\n",
    "segfault": "import ctypes\nctypes.string_at(0)\ndef add(x, y):\n    return x + y\n",
    "exit": "import os\nos._exit(0)\n",
    "daemon": (
        "import os, time\n"
        "if os.fork() == 0:\n    os.setsid()\n    time.sleep(30)\n"
        "def add(x, y):\n    return x + y\n"),
    "tmp_file": "open('/tmp/poison', 'w').write('x')\ndef add(x, y):\n    return x + y\n",
    "poison_modules": "import sys\nsys.modules['random'] = None\ndef add(x, y):\n    return x + y\n",
    "hang": "def add(x, y):\n    while True:\n        pass\n",
    "lock_tmp": (
        "import os\nos.makedirs('/tmp/d/e')\nopen('/tmp/d/e/f', 'w').write('x')\nos.chmod('/tmp/d/e', 0)\n"
        "os.chmod('/tmp/d', 0)\nos.chmod('/tmp/job', 0o500)\nos.chmod('/tmp', 0o500)\n"
        "def add(x, y):\n    return x + y\n"),
}


@pytest.mark.sandbox
def test_fork_server_isolates_candidates(project):
    """Hostile candidates between good ones: every good one keeps its verdict, each hostile one fails alone."""
    add = _task(project)
    good = add.reference
    probe = ("import os, builtins, random\nassert not os.path.exists('/tmp/poison')\n"
             "assert builtins.sum([1, 2]) == 3 and random.randint(5, 5) == 5\n" + good)
    fast = tasks.Task(**{**add.__dict__, "limits": type(add.limits)(wall=2.0, memory_mb=512)})
    forge = ("import os\nfor fd in range(3, 30):\n    try:\n        os.write(fd, {msg!r})\n    except OSError:\n"
             "        pass\nos._exit(0)\n")
    n = len(add.tests)
    cases = {**HOSTILE,  # result messages written by the candidate itself on the child's pipe
             "forge_short": forge.format(msg=b'{"results": [5]}\n'),
             "forge_tags": forge.format(msg=b'{"results": [' + b", ".join([b'{"ok": {"zz": 1}}'] * n) + b']}\n'),
             "forge_deep": forge.format(msg=b'{"results": ' + b"[" * 100000 + b"\n")}
    items = []
    for name, src in cases.items():
        items.append((fast, src))
        items.append((fast, probe))
    grades = grade_batch(items, SANDBOX, servers=1)
    verdicts = [g.verdict for g in grades]
    hostile = dict(zip(cases, verdicts[0::2]))
    assert verdicts[1::2] == [V.STABLE_PASS] * len(cases), verdicts
    assert hostile["global_state"] == V.STABLE_PASS  # its own tweaks are its own business
    assert hostile["tmp_file"] == V.STABLE_PASS
    assert hostile["lock_tmp"] == V.STABLE_PASS
    # check(candidate) runs in a process of its own: a poisoned `random` in the candidate's cannot reach it
    assert hostile["poison_modules"] == V.STABLE_PASS
    for name in ("kill_server", "stop_server", "segfault", "exit", "hang", "forge_short",
                 "forge_tags", "forge_deep"):
        assert hostile[name] == V.STABLE_FAIL, (name, grades[list(cases).index(name) * 2].failures())


@pytest.mark.sandbox
def test_fork_server_never_sweeps_outside_a_sandbox(tmp_path):
    """Unsandboxed (--no-sandbox), the server must not kill other processes: it only sweeps inside bwrap."""
    import subprocess

    sleeper = subprocess.Popen(["sleep", "30"])
    try:
        server = ForkServer(SandboxConfig(enabled=False))
        reply = server.run({"source": "def f():\n    return 1\n", "file": "c.py", "entry": "f", "tests": [[]],
                            "timeout": 5.0, "memory_mb": 512, "fsize_mb": 8})
        server.close()
        assert [r["ok"] for r in reply["results"]] == [1]
        assert sleeper.poll() is None
    finally:
        sleeper.kill()
        sleeper.wait()


@pytest.mark.sandbox
def test_fork_server_matches_loop_grade_on_repair_tasks():
    """Tasks with a baseline: same verdicts and transitions as `loop grade` (k=1, no relations)."""
    root = Path(__file__).resolve().parents[2]
    items = []
    for name in ("dedupe_words_py", "merge_intervals_py"):
        task = tasks.load(root, name)
        for path in sorted((root / "harness" / "examples" / name).glob("*.py")):
            items.append((task, path.read_text()))
    fast = grade_batch(items, SANDBOX, servers=2)
    for (task, source), g in zip(items, fast):
        slow = grade(task, source, SANDBOX, Options(k=1, trials=0))
        assert (g.verdict, g.transitions()) == (slow.verdict, slow.transitions()), task.name
        assert [f["check"] for f in g.failures()] == [f["check"] for f in slow.failures()]


@pytest.mark.sandbox
def test_fuzz_input_counts_reach_runs_db_and_the_report(project, loop_cli, tmp_path):
    """Nothing dropped silently: the grade's input accounting is in --json, in runs.db and in loop report."""
    config = project / "config.toml"
    cand = tmp_path / "c.py"
    cand.write_text(tasks.load(project, "humaneval_002").reference)
    code, g = grade_json(loop_cli, "humaneval_002", cand, "--trials", "60", config=config)
    n = g["inputs"]
    assert code == 0 and n["kept"] >= 50
    assert n["generated"] == n["kept"] + n["contract"] + n["reference_error"] + n["reference_timeout"]
    code, out = loop_cli("report", "--format", "json", "--batch", _batch_of(project, g["candidate_id"]), config=config)
    (row,) = [r for r in json.loads(out)["fuzz_inputs"] if r["task"] == "humaneval_002"]
    assert (row["generated"], row["kept"], row["contract"]) == (n["generated"], n["kept"], n["contract"])


def _batch_of(project: Path, candidate_id: int) -> int:
    import sqlite3

    con = sqlite3.connect(project / "runs.db")
    (batch,) = con.execute("select batch_id from candidates where id = ?", [candidate_id]).fetchone()
    con.close()
    return batch
