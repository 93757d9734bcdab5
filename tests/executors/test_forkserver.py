"""The fork servers' fast path (any k, differential fuzzing decided in the parent) gives the grade the slow
path gives, check by check: verdict, grade checks with their details, every attempt's checks and digest,
and the fuzz input counts. Real sandboxes on both sides."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from loop.datasets.humaneval import tasks as humaneval

from loop import tasks
from loop.kinds.function.fork import ForkPool
from loop.grading.model import Options
from loop.kinds import grade
from loop.sandbox import SandboxConfig

CANDIDATES = {
    "humaneval_000": {
        "adjacent_only": "    return any(abs(a - b) < threshold for a, b in zip(numbers, numbers[1:]))\n",
        "at_most": "    return any(abs(a - b) <= threshold for i, a in enumerate(numbers) for b in numbers[i + 1:])\n",
        "sorted_style": ("    xs = sorted(numbers)\n"
                         "    return any(b - a < threshold for a, b in zip(xs, xs[1:]))\n"),
    },
    "humaneval_002": {
        # right within the float tolerance, but its values follow the hash seed ('b' is odd under repeat 1's)
        "hash_in_its_values": "    return number % 1.0 + (hash('b') % 2) * 1e-9\n",
        "raises": "    raise ValueError('no')\n",
        "int_part": "    return number - int(number)\n",
    },
}


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("fork")
    wanted = {"HumanEval/0", "HumanEval/2"}
    humaneval.import_humaneval(tasks.tasks_root(root), [p for p in humaneval.read_problems() if p["task_id"] in wanted])
    return root


def _shape(g):
    return (g.verdict, [(c.check, c.passed, c.transition, c.detail) for c in g.checks],
            [(a.repeat, a.status, a.digest, [(c.check, c.passed, c.detail) for c in a.checks]) for a in g.attempts],
            g.inputs, g.notes)


@pytest.mark.sandbox
def test_fast_path_grades_as_the_slow_path_check_by_check(root, monkeypatch):
    cfg = SandboxConfig(enabled=True)
    opts = Options(k=3, trials=40, seed=5)
    items = []
    for name, bodies in CANDIDATES.items():
        task = tasks.load(root, name)
        items.append((task, "reference", task.reference))
        items += [(task, label, task.contract + body) for label, body in bodies.items()]
    slow_ones = []
    slow = ForkPool._slow
    monkeypatch.setattr(ForkPool, "_slow", lambda self, item: slow_ones.append(item.source) or slow(self, item))
    with ForkPool(cfg, servers=2, k=opts.k) as pool:
        assert all(pool.accepts(t, opts) for t, _, _ in items)
        futures = [pool.submit(t, src, opts) for t, _, src in items]
    fast = [f.result() for f in futures]
    want = [grade(t, src, cfg, opts) for t, _, src in items]
    for (task, label, _), f, w in zip(items, fast, want):
        assert _shape(f) == _shape(w), (task.name, label)
    verdicts = {label: g.verdict for (_, label, _), g in zip(items, fast)}
    assert verdicts["reference"] == verdicts["sorted_style"] == verdicts["int_part"] == "stable_pass"
    # a different PYTHONHASHSEED and a fresh process per repeat: the values differ between repeats
    assert verdicts["hash_in_its_values"] == "stable_pass_varying"
    assert verdicts["adjacent_only"] == verdicts["raises"] == "stable_fail"
    # failing candidates stay on the fork servers: their counterexamples are shrunk and confirmed there
    assert slow_ones == []
    assert all(g.inputs and g.inputs["kept"] > 0 for g in fast)


@pytest.mark.sandbox
def test_remembered_tables_give_the_same_grades_without_generating_again(root, tmp_path, monkeypatch):
    """A reference table (generated inputs, the reference's answers, whether the relations hold on them) is
    remembered per (task content, seed, trials, sandbox, loop's code): a second run grades exactly as the
    first without generating an input or running the reference; another seed, or a torn file, is a miss."""
    from loop.kinds.function.fork import trials as fork_trials

    cfg = SandboxConfig(enabled=True)
    opts = Options(k=2, trials=40, seed=5)
    items = []
    for name, bodies in CANDIDATES.items():
        task = tasks.load(root, name)
        items += [(task, task.reference)] + [(task, task.contract + body) for body in bodies.values()]

    def run(o=opts):
        with ForkPool(cfg, servers=2, k=o.k, tables=tmp_path) as pool:
            futures = [pool.submit(t, src, o) for t, src in items]
        return [_shape(f.result()) for f in futures]

    made = []
    real = fork_trials.Pending
    monkeypatch.setattr(fork_trials, "Pending", lambda *a: made.append(a[0].name) or real(*a))
    first = run()
    assert sorted(made) == ["humaneval_000", "humaneval_002"]
    paths = {t.name: fork_trials.tables_path(tmp_path, t, opts.seed, opts.trials, cfg) for t, _ in items}
    assert all(fork_trials.remembered(p).own_holds is True for p in paths.values())  # asked once, then remembered
    made.clear()
    assert run() == first and made == []
    # other settings are other tables; a torn file is made again
    paths["humaneval_000"].write_bytes(b"\x80\x04 torn")
    assert run() == first and made == ["humaneval_000"]
    run(Options(k=1, trials=40, seed=6))
    assert sorted(made) == ["humaneval_000", "humaneval_000", "humaneval_002"]


def test_prune_keeps_the_most_recently_used_tables(tmp_path):
    import os

    from loop.kinds.function.fork import trials as fork_trials

    for i in range(5):
        (tmp_path / f"{i}.pickle").write_bytes(b"x")
        os.utime(tmp_path / f"{i}.pickle", (1000 + i, 1000 + i))
    fork_trials.prune(tmp_path, keep=3)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["2.pickle", "3.pickle", "4.pickle"]
    fork_trials.prune(tmp_path / "missing", keep=3)  # no folder yet: nothing to do


@pytest.mark.sandbox
def test_the_reference_runs_under_repeat_0s_environment(root, monkeypatch):
    """The reference jobs have a lane of their own, started with repeat 0's PYTHONHASHSEED, as the slow path
    runs the reference: a reference whose answers follow the hash seed ('b' is even under repeat 0's, odd
    under repeat 1's) answers on the fast path as on the slow one, so its canonical body passes there
    (answers from another repeat's environment would fail a relation and send it to the slow path)."""
    task = tasks.load(root, "humaneval_000")
    body = task.reference[len(task.contract):]
    odd = replace(task, reference=task.contract + "    if hash('b') % 2:\n        return True\n" + body)
    cfg, opts = SandboxConfig(enabled=True), Options(k=2, trials=40, seed=3)
    monkeypatch.setattr(ForkPool, "_slow", lambda self, item: self._answer(item, exc=AssertionError("slow path")))
    with ForkPool(cfg, servers=2, k=opts.k) as pool:
        fast = pool.submit(odd, task.reference, opts).result()
    want = grade(odd, task.reference, cfg, opts)
    assert _shape(fast) == _shape(want)
    assert fast.verdict == "stable_pass" and fast.inputs["kept"] > 0


@pytest.mark.sandbox
@pytest.mark.parametrize("body, why, note", [
    ("    while True:\n        pass\n", "CPU", "timed out on its CPU limit in repeat 0: repeats 1-4 were not run"),
    ("    import time\n    time.sleep(60)\n", "exceeded the 4s wall-clock limit",
     "timed out twice in repeat 0: repeats 1-4 were not run")])
def test_a_hanging_candidate_costs_one_or_two_jobs_within_the_limit_its_work_earns(root, body, why, note):
    """Split trials: a job's time limit follows the reference's own time on its inputs: here the floor's
    share, 1 s of CPU time (5 s / k) within 4 s of wall clock, not the task's 20 s. A timeout in repeat 0 ends
    the grade without the other repeats: at once when it used up its CPU time (the same work takes the same
    CPU time, whatever the machine's load), after one more fresh fork when its wall clock ran out."""
    task = tasks.load(root, "humaneval_002")
    opts = Options(k=5, trials=40, seed=5)
    with ForkPool(SandboxConfig(enabled=True), servers=2, k=opts.k) as pool:
        g = pool.submit(task, task.contract + body, opts).result()
    assert g.verdict == "stable_fail"
    assert note in g.notes
    assert ("repeat 0 timed out; run once more in a fresh process" in g.notes) == (why != "CPU")
    assert [c.check for a in g.attempts for c in a.checks] == ["timeout"] * 5
    assert why in g.attempts[0].checks[0].detail


BUSY = """
import time

def f(x):
    end = time.process_time() + x
    while time.process_time() < end:
        pass
    return x
"""


@pytest.mark.sandbox
def test_a_job_at_work_when_its_wall_clock_runs_out_gets_its_cpu_time_a_sleeper_does_not():
    """The wall clock of a job with a CPU limit is for a candidate that sleeps. A candidate still computing
    when it runs out (a loaded machine stretches its CPU time; here a wall clock shorter than the work does the
    same) keeps going until its CPU limit decides; one that sleeps times out on the wall clock."""
    from loop.kinds.function.fork.server import ForkServer

    server = ForkServer(SandboxConfig(enabled=True))
    job = {"source": BUSY, "file": "c.py", "entry": "f", "timeout": 0.3, "cpu": 10, "patience": 60, "memory_mb": 512, "fsize_mb": 8}
    try:
        assert server.run({**job, "tests": [[1.0]]})["results"] == [{"ok": 1.0}]
        asleep = server.run({**job, "source": "import time\ndef f(x):\n    time.sleep(x)\n", "tests": [[30]]})
        assert asleep["fault"] == "timeout" and asleep["limit"] == "wall", asleep
        busy = server.run({**job, "tests": [[30]], "cpu": 1})
        assert busy["fault"] == "timeout" and busy["limit"] == "cpu", busy
    finally:
        server.close()


FORKED_WORK = """
import os, time

def f(x, orphan):
    for _ in range(3):  # 3 x 0.8 s of CPU in other processes, each under the 1 s RLIMIT_CPU gives every process
        r, w = os.pipe()
        if os.fork() == 0:
            if orphan and os.fork():
                os._exit(0)  # the worker's child exits at once: its own child (an orphan) does the work
            end = time.process_time() + 0.8
            while time.process_time() < end:
                pass
            os._exit(0)
        os.close(w)
        os.read(r, 1)  # end of file: the working process is gone
        os.close(r)
    return x
"""


@pytest.mark.sandbox
def test_cpu_time_counts_every_process_the_candidate_starts():
    """RLIMIT_CPU counts each process alone: work done in fork()ed children (or orphaned grandchildren)
    started from zero in each, so 2.4 s of CPU passed a job's 1 s limit and only its wall clock (4x) could
    stop it: flaky, as the machine's load decided. The server holds the job's processes together to the
    limit, whatever the wall clock allows (60 s here: the outcome does not depend on the machine's speed)."""
    from loop.kinds.function.fork.server import ForkServer

    server = ForkServer(SandboxConfig(enabled=True))
    try:
        for orphan in (False, True):
            reply = server.run({"source": FORKED_WORK, "file": "c.py", "entry": "f", "tests": [[1, orphan]],
                                "timeout": 60, "cpu": 1, "memory_mb": 512, "fsize_mb": 8})
            assert reply.get("fault") == "timeout", (orphan, reply)
            assert reply["detail"] == "exceeded the 1s CPU limit (the candidate's processes together)"
        # the same work in one process is held to it as before; work under it passes
        assert server.run({"source": FORKED_WORK, "file": "c.py", "entry": "f", "tests": [[1, False]],
                           "timeout": 60, "cpu": 5, "memory_mb": 512, "fsize_mb": 8})["results"] == [{"ok": 1}]
    finally:
        server.close()
