"""loop: ask a model endpoint for code patches and grade every candidate locally.

The Python API, for RL loops and notebooks (the CLI calls the same functions):

    import loop
    g = loop.grade("humaneval_012", source)             # one source for one task: a Grade, nothing stored
    g.verdict, g.passes, g.failures()
    done = loop.grade_samples("samples.jsonl")          # a human-eval / EvalPlus samples file, one batch in runs.db
    done = loop.grade_predictions("preds.jsonl")        # SWE-bench predictions: a list, one batch per model, with reports
    done = loop.run_batch(["merge_intervals"])          # ask the configured endpoint, grade each reply as it arrives
    loop.pass_rates("runs.db", batch=done.batch_id)     # rows of the pass_rates view

Each takes `root` (the project folder: config.toml, harness/tasks/) and the overrides the CLI has. Grading one
source imports neither httpx nor SQLite; the functions that store or ask import them when called.
"""

import os
from pathlib import Path as _Path

from loop.config import Config
from loop.config import load as _load_config
from loop.grading.model import Grade, Options

__version__ = "0.1.0"  # the one place the version is written: pyproject.toml reads it
__all__ = ["__version__", "Config", "Grade", "Options", "grade", "grade_predictions", "grade_samples", "load_config",
           "pass_rates", "run_batch"]


def load_config(root: str | _Path = ".") -> Config:
    """The project at `root`: its config.toml when there is one (else the defaults), its prompt templates."""
    from loop import prompts

    root = _Path(root).resolve()
    # only root's config.toml: not the one in the working directory, which the CLI would read
    config = _load_config(None, root=root, env={**os.environ, "LOOP_CONFIG": str(root / "config.toml")})
    prompts.use_folder(config.resolve(config.loop.prompts) if config.loop.prompts else None)
    return config


def grade(task: str, source: str, *, root: str | _Path = ".", k: int | None = None, trials: int | None = None,
          seed: int | None = None, suite: str | None = None, sandbox: bool = True) -> Grade:
    """Grade `source` as a candidate for the task named `task`, the way `loop grade TASK FILE` does, without
    storing it. The task's polarity is checked first (once per task and loop version); a refused task is a
    TaskError."""
    from loop import kinds
    from loop.run.settings import grade_options, sandbox_config
    from loop.run.verified import load_verified_task, quarantined_checks

    config = load_config(root)
    box = sandbox_config(config, no_sandbox=not sandbox)
    loaded = load_verified_task(config, task, box)
    opts = grade_options(config, suite=suite, seed=seed, trials=trials, k=k)
    return kinds.grade(loaded, source, box, opts, quarantined_checks(config, task))


def grade_samples(path: str | _Path, *, root: str | _Path = ".", db: str | _Path | None = None, k: int | None = None,
                  trials: int | None = None, seed: int | None = None):
    """Grade a human-eval / EvalPlus samples file as one batch stored in runs.db; its BatchResult."""
    from loop.run.batch import grade_samples as grade_file

    return grade_file(load_config(root), _Path(path), k=k, trials=trials, seed=seed, db=_Path(db) if db else None)


def grade_predictions(path: str | _Path, *, root: str | _Path = ".", db: str | _Path | None = None,
                      k: int | None = None, seed: int | None = None, report: str | _Path | None = None):
    """Grade a SWE-bench predictions file as one batch per model; for each, its batch id, verdicts, per-instance
    reports and SWE-bench's run report (also written to a file: `report`, or one beside runs.db)."""
    from loop.run.predictions import grade_predictions as grade_file

    return grade_file(load_config(root), _Path(path), k=k, seed=seed, db=_Path(db) if db else None,
                      report=_Path(report) if report else None)


def run_batch(tasks: list[str] | None = None, *, root: str | _Path = ".", db: str | _Path | None = None,
              samples: int | None = None, k: int | None = None, trials: int | None = None, rounds: int | None = None,
              budget: float | None = None, resume: int | None = None):
    """Ask the configured endpoint for `samples` candidates per task and grade each as it arrives (or finish
    the batch `resume`); everything is committed as it exists. Its BatchResult."""
    from loop.run.batch import run_batch as run
    from loop.run.settings import Origin

    return run(load_config(root), list(tasks or []), origin=Origin(), samples=samples, k=k, trials=trials,
               rounds=rounds, budget=budget, resume=resume, db=_Path(db) if db else None)


def pass_rates(db: str | _Path = "runs.db", *, batch: int | None = None, task: str | None = None,
               k: int = 5) -> list[dict]:
    """Rows of runs.db's pass_rates view (per batch and task), with pass@1 and pass@k."""
    from loop.report.tables import pass_rates as rates

    return rates(_Path(db), batch=batch, task=task, k=k)
