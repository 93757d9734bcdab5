"""Batch grading through fork servers: pre-started sandboxes, one forked child per candidate and repeat.

`ForkPool` grades Python candidates with the verdict, checks and transitions `grade` gives them, at any k
(a lane of servers per repeat, each started with that repeat's PYTHONHASHSEED) and with differential
fuzzing where the parent can decide it from one batch of values (trials.py); `grade_batch`
(bench/bench_humaneval.py) wraps it, list in, list out. Each server is a bubblewrap
sandbox (the one `loop grade` uses: no network, read-only system, private /tmp, rlimits, per-sandbox
uid) running a trusted server (loop/sandbox/inside/forkserver.py) that has already paid for interpreter start-up and
common imports. Per candidate it forks a child that drops the server's protocol pipes, starts its own
session, lowers its rlimits to the task's, imports the candidate (staged by the server in a fresh job
folder), runs the tests, reports on a pipe of its own and exits. Jobs are pipelined (DEPTH per server)
so a server never waits for the parent.

Isolation between candidates (SECURITY.md has the whole trust boundary): jobs reach the server on a pipe
no process in the sandbox can open (not stdin: bwrap's pid 1 keeps that), the server and its children are
undumpable, and each child reports on a pipe of its own. A child's memory, globals and monkeypatches die
with it; after each child the server kills what it left running and deletes its few staged files, or, if
the sandbox is not back to its clean state at once, quits so the parent starts a fresh one. A lost server
costs the jobs in flight a retry; only a job whose server is lost twice while it runs fails (its own
grade). Expected values stay in the parent, as for `loop grade` (check-form tests of imported tasks
excepted: they run in the child, the candidate in a process of its own; see harness/README.md).

Wrong candidates stay here too: a relation's counterexample is shrunk with values from fresh forks (a shrink
step's candidates in one job) and, with the trials split across repeats, confirmed in a fresh fork of every
repeat's lane (kinds/function/confirm.py). Only a reference that does not run as a whole takes the slow path.
"""

from __future__ import annotations

import functools
import queue
import threading
import time
from collections import deque
from collections.abc import Iterable
from concurrent.futures import Future, InvalidStateError, ThreadPoolExecutor
from pathlib import Path

from loop import verdicts as V
from loop.errors import CandidateFault, HarnessError, SandboxUnavailable
from loop.kinds.function.fork import trials as fork_trials
from loop.kinds.function.fork.server import ForkServer, job_for, patience
from loop.grading.conclude import conclude, grade_without_attempts, precheck
from loop.grading.model import Attempt, Check, Grade, Options
from loop.kinds import grade
from loop.kinds.function.fork.replies import (Item, attempt_of, baseline_results, failing_named, first_failure,
                                              repeat_job, short_jobs, timed_out)
from loop.kinds.function.decide import (common_cases, confirm_shared, fault_check, relation_check, shares,
                                        short_run_decides, timeouts_everywhere)
from loop.kinds.function.confirm import confirm
from loop.kinds.function.programs import wire_args
from loop.kinds.task import Task
from loop.sandbox import SandboxConfig


SEARCHES = 32  # candidates whose relations are decided at once (see ForkPool.__init__)
DEPTH = 2  # jobs queued per server: the next one is waiting while the host reads a reply


class _Lane:
    """The fork servers of one repeat (one PYTHONHASHSEED): a queue of (job, callback) and the threads that
    drive a server each."""

    def __init__(self, pool: "ForkPool", repeat: int, servers: int):
        self.repeat = repeat
        self.queue: queue.Queue = queue.Queue()
        self.threads = [threading.Thread(target=pool._drive, args=(self,), daemon=True,
                                         name=f"loop-forkserver-{repeat}-{i}") for i in range(servers)]
        for t in self.threads:
            t.start()


class ForkPool:
    """Fork servers shared by many grades: `submit` returns a Future of the Grade `loop grade` gives.
    Python function tasks only.

    Repeat r of every grade runs on a server started with repeat r's environment, so each repeat keeps its
    own PYTHONHASHSEED and a fresh forked process. Goldens, named tests and their transitions are decided
    from the replies by decide.py, as on the fresh-sandbox path. Differential fuzzing (fork_trials.fast) runs every
    kept input in the same job; the reference's answers come once per (task, seed, trials) from a
    reference job, the baseline's once per (task, suite, repeat). A candidate the values alone cannot
    settle is graded by `grade` itself (the slow path) in a helper thread.
    """

    def __init__(self, cfg: SandboxConfig, servers: int = 2, k: int = 1, tables: Path | None = None):
        self.cfg, self.tables = cfg, tables  # tables: a folder remembering reference tables between runs
        if tables is not None:
            fork_trials.prune(tables)
        self.per_lane = max(1, -(-max(1, servers) // max(1, k)))  # servers per repeat: `servers` in all
        self.k = k
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self._lanes: dict[object, _Lane] = {}  # by repeat, and "reference" (see _lane)
        self._open: set[Item] = set()
        self._shared: dict[tuple, Future] = {}  # baselines and reference tables, computed once
        self._started = threading.Semaphore(0)  # released once per server, when its first start is over
        self._broken: BaseException | None = None  # what stopped a lane's thread (a bug), for every later grade
        self._helper = ThreadPoolExecutor(max_workers=2 * max(1, servers), thread_name_prefix="loop-forkpool")
        # Relations of finished replies: a search waits on the servers for each value it asks, so many run at
        # once (each a thread mostly asleep) to keep the servers busy; never on a lane's thread.
        self._relations_pool = ThreadPoolExecutor(max_workers=SEARCHES, thread_name_prefix="loop-forkpool-relations")
        for r in range(max(1, k)):
            self._lane(r)

    @staticmethod
    def accepts(task: Task, opts: Options) -> bool:
        return task.kind == "function" and task.language == "python" and (
            not fork_trials.applies(task, opts.trials) or fork_trials.fast(task.oracle))

    def submit(self, task: Task, source: str | None, opts: Options, quarantined=frozenset()) -> Future:
        if task.language != "python":
            raise ValueError(f"task '{task.name}': the fork server grades Python tasks only")
        item = Item(Future(), task, source, opts, frozenset(quarantined), relations=fork_trials.applies(task, opts.trials))
        if item.relations and not fork_trials.fast(task.oracle):
            raise ValueError(f"task '{task.name}': its relations need the slow path (see ForkPool.accepts)")
        decided = precheck(task, source, opts, self.cfg)
        if decided is not None:
            item.future.set_result(decided)
            return item.future
        item.started = time.monotonic()
        item.waiting = (opts.k if task.baseline is not None else 0) + 1  # repeat 0's reply; then the others
        with self._lock:
            if self._broken is not None:
                item.future.set_exception(self._broken)
                return item.future
            self._open.add(item)
        if task.baseline is not None:
            for r in range(opts.k):
                self._baseline(item, r).add_done_callback(functools.partial(self._got_base, item, r))
        if item.relations:
            key = ("reference", str(task.path), id(task.oracle), opts.seed, opts.trials)
            self._shared_future(key, lambda fut: self._helper.submit(self._reference, task, opts, fut)) \
                .add_done_callback(functools.partial(self._got_table, item))
        else:
            self._candidate_jobs(item)
        return item.future

    def wait_started(self) -> None:
        """Block until every server has tried its first start (benchmarks time the steady state from here)."""
        with self._lock:
            n = sum(len(lane.threads) for lane in self._lanes.values())
        for _ in range(n):
            self._started.acquire()

    def close(self, cancel: bool = False) -> None:
        """Wait for every submitted grade (or, with cancel, only for the jobs already on a server), then stop."""
        with self._lock:
            if cancel:
                for item in self._open:
                    item.future.cancel()
                self._open.clear()
                for lane in self._lanes.values():
                    while not lane.queue.empty():
                        try:
                            lane.queue.get_nowait()
                        except queue.Empty:
                            break
            while self._open:
                self._idle.wait()
            lanes = list(self._lanes.values())
        for lane in lanes:
            for _ in lane.threads:
                lane.queue.put(None)
        for lane in lanes:
            for t in lane.threads:
                t.join()
        self._relations_pool.shutdown(wait=True, cancel_futures=cancel)
        self._helper.shutdown(wait=True, cancel_futures=cancel)

    def __enter__(self) -> "ForkPool":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- the parts of a grade ---------------------------------------------------------------------------------

    def _lane(self, repeat: int, key: object = None) -> _Lane:
        """Repeat r's lane. key "reference": the reference jobs' own lane, started on the first one, under
        repeat 0's environment (the slow path runs the reference so) with a server more than a repeat's:
        every candidate job of a task waits for its table. On lane 0 they queued with repeat 0's candidates,
        which then finished last while the other lanes' servers waited (a first run 19.6 s -> 14.6 s)."""
        key = repeat if key is None else key
        with self._lock:
            if key not in self._lanes:
                # the reference lane and, with several repeats, lane 0 (every grade's first job) get one more
                servers = self.per_lane + (key == "reference" or (key == 0 and self.k > 1))
                self._lanes[key] = _Lane(self, repeat, servers)
            return self._lanes[key]

    def _shared_future(self, key: tuple, start) -> Future:
        """The future of a part shared by every grade of a task (computed by `start(future)` once)."""
        with self._lock:
            fut = self._shared.get(key)
            first = fut is None
            if first:
                fut = self._shared[key] = Future()
        if first:
            start(fut)
        return fut

    def _baseline(self, item: Item, repeat: int) -> Future:
        task, suite = item.task, item.opts.suite
        job = job_for(task, task.baseline, [t.args for t in task.selected(suite)])
        return self._shared_future(("baseline", str(task.path), suite, repeat),
                                   lambda fut: self._lane(repeat).queue.put((job, fut.set_result)))

    def _reference(self, task: Task, opts: Options, fut: Future) -> None:
        """The table an earlier run remembered, else: generate the inputs (here, in a helper thread), then
        ask a server for the reference's answers."""
        path = fork_trials.tables_path(self.tables, task, opts.seed, opts.trials, self.cfg) if self.tables else None
        known = fork_trials.remembered(path) if path is not None else None
        if known is not None:
            fut.set_result(known)
            return
        try:
            pending = fork_trials.Pending(task, opts.seed, opts.trials)
        except BaseException as exc:  # a broken generator is the task's error: every grade of it gets it
            fut.set_exception(exc)
            return

        def answered(reply: dict) -> None:
            try:
                table = pending.table(reply)
                if table is not None:
                    table.path = path
                    table.remember()
                fut.set_result(table)
            except BaseException as exc:  # noqa: BLE001 - delivered to every grade of the task
                fut.set_exception(exc)

        self._lane(0, "reference").queue.put((pending.job(), answered))

    def _got_base(self, item: Item, repeat: int, fut: Future) -> None:
        item.base[repeat] = baseline_results(item, fut.result())
        self._arrived(item)

    def _got_table(self, item: Item, fut: Future) -> None:
        try:
            item.table = fut.result()
        except BaseException as exc:
            self._answer(item, exc=exc)
            return
        if item.table is None:  # the reference did not run as a whole: the slow path says why
            self._slow(item)
        else:
            self._candidate_jobs(item)

    def _candidate_jobs(self, item: Item) -> None:
        """Repeat 0's job first; the others once it is back (a candidate that times out there, and again in
        one more fresh fork, costs two jobs, not k). Split trials: each repeat runs its share of the inputs
        within a time limit that follows the reference's own time on them (Table.share)."""
        task, t, opts = item.task, item.table, item.opts
        selected, tests = task.selected(opts.suite), item.cases()
        for r in range(opts.k):
            cases = shares(task, selected, opts.part(r))  # its share of the shared tests, after the others
            if cases is not None:
                item.ran[r] = cases
                item.jobs[r] = repeat_job(item, r, [tests[i] for i in cases], common_cases(task, selected))
            else:  # the same job as repeat 0's where nothing is split
                item.jobs[r] = item.jobs[0] if r and (t is None or opts.part(r) is None) else repeat_job(item, r, tests)
        self._send(item, 0)

    def _send(self, item: Item, repeat: int) -> None:
        self._lane(repeat).queue.put((item.jobs[repeat], functools.partial(self._got_reply, item, repeat)))

    def _got_reply(self, item: Item, repeat: int, reply: dict) -> None:
        k = item.opts.k
        if repeat in item.full and not short_run_decides(attempt_of(item, repeat, reply, 0.0)[0].checks):
            item.jobs[repeat], item.ran[repeat] = item.full.pop(repeat)  # the whole job decides
            if item.ran[repeat] is None:
                del item.ran[repeat]
            return self._send(item, repeat)
        item.full.pop(repeat, None)
        if timed_out(reply) and reply.get("limit") != "cpu" and not item.retimed:
            item.retimed = True  # one more attempt in a fresh fork: was it the candidate, or the machine?
            item.notes.append(f"repeat {repeat} timed out; run once more in a fresh process")
            self._send(item, repeat)
            return
        item.replies[repeat] = reply
        if repeat == 0 and k > 1:
            if timed_out(reply):  # used up its CPU time (the same work, the same time: the load is no excuse),
                # or its wall clock twice
                how = "on its CPU limit" if reply.get("limit") == "cpu" else "twice"
                item.notes.append(f"timed out {how} in repeat 0: repeats 1-{k - 1} were not run")
                item.replies.update({r: reply for r in range(1, k)})
            else:
                short_jobs(item, first_failure(item, reply))
                with self._lock:
                    item.waiting += k - 1
                for r in range(1, k):
                    self._send(item, r)
        self._arrived(item)

    def _ask(self, item: Item, repeat: int, wires: list) -> dict:
        """Run the candidate on these inputs in a fresh fork of repeat's lane and wait (relation threads)."""
        job = job_for(item.task, item.source, [], wires, limit=item.table.floor)
        return self._wait(self._lane(repeat), job)

    def _ask_ref(self, item: Item, wires: list) -> dict:
        return self._wait(self._lane(0, "reference"), fork_trials.reference_job(item.task, wires))

    @staticmethod
    def _wait(lane: _Lane, job: dict) -> dict:
        fut: Future = Future()
        lane.queue.put((job, fut.set_result))
        try:
            return fut.result(timeout=patience(job) + 120.0)
        except TimeoutError:
            return {"unavailable": "no fork server answered a job in time"}

    def _arrived(self, item: Item) -> None:
        with self._lock:
            item.waiting -= 1
            last = item.waiting == 0
        if last:
            if item.relations or item.ran:  # these may ask the servers for more: never on a lane's thread
                self._relations_pool.submit(self._finish_or_raise, item)
            else:
                self._finish_or_raise(item)

    def _finish_or_raise(self, item: Item) -> None:
        try:
            self._finish(item)
        except BaseException as exc:  # a bug here must reach the caller, not leave it waiting
            self._answer(item, exc=exc)

    def _finish(self, item: Item) -> None:
        task, opts = item.task, item.opts
        replies = [item.replies[r] for r in range(opts.k)]
        unavailable = next((r["unavailable"] for r in replies if "unavailable" in r), None)
        if unavailable is not None:
            self._answer(item, grade_without_attempts(task, item.source, opts, self.cfg, V.INFRA_UNKNOWN,
                                                      unavailable, V.INFRA_UNKNOWN))
            return
        if "build_error" in replies[0]:
            self._answer(item, grade_without_attempts(task, item.source, opts, self.cfg, V.BUILD,
                                                      str(replies[0]["build_error"])))
            return
        duration = time.monotonic() - item.started
        attempts, trials = map(list, zip(*(attempt_of(item, r, reply, duration) for r, reply in enumerate(replies))))
        if item.relations:
            item.notes += timeouts_everywhere(attempts, opts.part(0) is not None,
                                              functools.partial(self._again, item))
            self._relations(item, attempts, trials)
        if shares(task, task.selected(opts.suite), opts.part(0)) is not None:  # these cases again, a fresh fork
            every = item.cases()
            confirm_shared(task, task.selected(opts.suite), attempts, item.ran, lambda cases, r: failing_named(
                item, self._wait(self._lane(r), job_for(task, item.source, [every[i] for i in cases])), cases))
        grade = conclude(task, item.source, opts, self.cfg, list(attempts))
        grade.notes += item.notes
        if item.relations:
            grade.inputs = dict(item.table.inputs)
        self._answer(item, grade)

    def _again(self, item: Item, r: int, j: int) -> Check | None:
        """Repeat r's share once more in a fresh fork of repeat j's lane: its timeout, if it timed out again."""
        again = self._wait(self._lane(j), item.jobs[r])
        if not timed_out(again):
            return None
        return fault_check(CandidateFault(V.TIMEOUT, str(again.get("detail", ""))), item.quarantined)

    def _relations(self, item: Item, attempts: list[Attempt], trials: list) -> None:
        """The relations over the repeats' values, decided here by the rule every path uses; any other
        value they ask for (shrinking a counterexample, confirming it) comes from fresh forks."""
        task, opts, table = item.task, item.opts, item.table
        oracle, k, refs = task.oracle, opts.k, {}

        def asker(lane, got: dict) -> fork_trials.Asker:
            ask = lane if callable(lane) else functools.partial(self._ask, item, lane)
            return fork_trials.Asker(oracle, table, got, ask, functools.partial(self._ask_ref, item), refs)

        now = [0]  # the trial being checked (its repeat's lane runs what it asks for next)

        def search(a: fork_trials.Asker, repeat_of, **how) -> None:
            try:
                for f in a.search(seed=opts.seed, trials=opts.trials, on_trial=lambda t: now.__setitem__(0, t), **how):
                    attempts[repeat_of(f.trial)].checks.append(relation_check(f, item.quarantined))
            except CandidateFault as fault:
                attempts[repeat_of(now[0])].checks.append(fault_check(fault, item.quarantined))
            except (SandboxUnavailable, HarnessError) as exc:
                a = attempts[repeat_of(now[0])]
                a.status, a.reason, a.digest = V.INFRA_UNKNOWN, str(exc), ""

        if opts.part(0) is None:  # every repeat ran every input: each is decided on its own values
            held = []
            for r, trial in enumerate(trials):
                same = fork_trials.signature(trial) if trial is not None else None
                if trial is None or (same is not None and same in held):
                    continue
                if fork_trials.holds(oracle, table, trial, seed=opts.seed, trials=opts.trials):
                    held.append(same)
                    continue
                search(asker(r, dict(zip(table.keys, trial))), lambda t, r=r: r)
            return
        got, lost = {}, set()
        for r, trial in enumerate(trials):
            if trial is None:
                lost.add(r)  # its share ended in a fault: its attempt fails with it
            else:
                got.update(zip(table.share(opts.part(r))[0], trial))
        if not lost and fork_trials.holds(oracle, table, [got[key] for key in table.keys], seed=opts.seed,
                                          trials=opts.trials):
            return
        search(asker(lambda wires: self._ask(item, now[0] % k, wires), got), lambda t: t % k,
               skip=lambda t: t % k in lost)
        named = [wire_args(a) for a in item.common()]  # what every repeat's process ran before its trials
        item.notes += confirm(attempts, k, lambda check, r, keys=None: asker(r, {}).fails_again(check, keys, named),
                              lambda r: table.share(opts.part(r))[0])

    def _slow(self, item: Item) -> None:
        """Grade the candidate as `loop grade` does (in a helper thread; its sandboxes do the work)."""
        def run() -> None:
            try:
                self._answer(item, grade(item.task, item.source, self.cfg, item.opts, item.quarantined))
            except BaseException as exc:
                self._answer(item, exc=exc)

        self._helper.submit(run)

    def _answer(self, item: Item, result: Grade | None = None, exc: BaseException | None = None) -> None:
        with self._lock:
            self._open.discard(item)
            self._idle.notify_all()
        if item.future.cancelled():  # the caller gave up on it (loop run interrupted)
            return
        try:
            if exc is not None:
                item.future.set_exception(exc)
            else:
                item.future.set_result(result)
        except InvalidStateError:
            pass

    # -- one server ---------------------------------------------------------------------------------------------

    def _drive(self, lane: _Lane) -> None:
        """Feed one server its lane's jobs, DEPTH at a time; each reply goes to its job's callback."""
        server = ForkServer(self.cfg, repeat=lane.repeat)
        backlog: deque = deque()  # (job, callback, tries) to (re)submit before taking new ones
        done = False
        try:
            try:
                server.worker = server._start()
            except SandboxUnavailable:
                pass  # submit() below tries again and answers each job "unavailable" if it fails
            finally:
                self._started.release()
            while True:
                while len(server.inflight) < DEPTH and (backlog or not done):
                    if not backlog:
                        try:
                            entry = lane.queue.get() if not server.inflight else lane.queue.get_nowait()
                        except queue.Empty:
                            break
                        if entry is None:
                            done = True
                            break
                        backlog.append((*entry, 0))
                        continue
                    job, callback, tries = backlog.popleft()
                    try:
                        server.submit(job, callback, tries)
                    except SandboxUnavailable as exc:
                        callback({"unavailable": str(exc)})
                if not server.inflight:
                    if done and not backlog:
                        return
                    continue
                reply, callback, lost = server.receive()
                backlog.extendleft(reversed(lost))
                if reply is not None:
                    callback(reply)
        except BaseException as exc:  # a bug here must reach every caller, not leave one waiting
            with self._lock:
                self._broken = exc  # this lane has no server left: later grades fail at once, never wait on it
                items = list(self._open)
            for item in items:
                self._answer(item, exc=exc)
        finally:
            server.close()


def grade_batch(items: Iterable[tuple[Task, str]], cfg: SandboxConfig, *, suite: str = "full", seed: int = 1,
                servers: int = 2, k: int = 1, trials: int = 0, trials_per_repeat: bool = False) -> list[Grade]:
    """Grade each (task, source) as `loop grade` would with these settings; one Grade per item, in order.

    `items` may be a generator: grading starts while the caller is still loading tasks.
    """
    opts = Options(suite=suite, seed=seed, trials=trials, k=k, trials_per_repeat=trials_per_repeat)
    with ForkPool(cfg, servers, k) as pool:
        futures = [pool.submit(task, source, opts) for task, source in items]
    return [f.result() for f in futures]
