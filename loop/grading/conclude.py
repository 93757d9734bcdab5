"""Attempts -> a Grade, for every kind: the grades decided before anything runs, and the verdict with the
checks and notes worth reporting."""

from __future__ import annotations

import hashlib
import re
from typing import Protocol

from loop import verdicts as V
from loop.grading import triage
from loop.grading.model import Attempt, Check, Grade, Options
from loop.sandbox import SandboxConfig, clean_env


class Task(Protocol):
    """What concluding reads of a task (any kind's): its name, and the baseline a candidate must change."""

    name: str
    baseline: str | None


def sha256(text: str | None) -> str:
    return hashlib.sha256((text or "").encode()).hexdigest()


def _squash(code: str) -> str:
    return re.sub(r"\s+", "", code)


def grade_without_attempts(task: Task, source: str | None, opts: Options, cfg: SandboxConfig, check: str,
                           detail: str, status: str = V.FAIL) -> Grade:
    """A grade decided before any attempt runs (no code, no change, a build error, no sandbox): k identical
    attempts with the given status, so triage and the store see the same shape as for a graded candidate."""
    attempts = [Attempt(r, status, check if status == V.FAIL else detail, None, "", 0.0, opts.seed, clean_env(r))
                for r in range(opts.k)]
    checks = [Check(check, check, False, detail)] if status == V.FAIL else []
    verdict = triage.verdict(attempts)
    return Grade(task.name, verdict, False, opts.k, opts.seed, opts.suite, sha256(source), cfg.enabled,
                 attempts, checks, notes=[detail] if status != V.FAIL else [])


def precheck(task: Task, source: str | None, opts: Options, cfg: SandboxConfig) -> Grade | None:
    """The grades decided before anything runs: no code, or the baseline itself."""
    if source is None or not source.strip():
        return grade_without_attempts(task, source, opts, cfg, V.NO_CODE, "the reply held no code")
    if task.baseline is not None and _squash(source) == _squash(task.baseline):
        return grade_without_attempts(task, source, opts, cfg, V.NO_CHANGE, "the candidate is identical to the baseline")
    return None


def conclude(task: Task, source: str | None, opts: Options, cfg: SandboxConfig, attempts: list[Attempt]) -> Grade:
    """Attempts -> verdict, the checks worth reporting and the notes (shared with the fork server)."""
    unstable = triage.settle(attempts)
    verdict = triage.verdict(attempts)
    checks = triage.summarize_tests(attempts, unstable)
    seen = {c.check for c in checks}
    for a in attempts:
        for c in a.checks:
            if c.category != "test" and not c.passed and c.check not in seen:
                seen.add(c.check)
                checks.append(c)
    notes = [f"unstable fixture: {name} (baseline outcome varied between repeats; excluded)" for name in sorted(unstable)]
    notes += [f"quarantined: {c.check} failed but does not decide the verdict"
              for c in checks if c.quarantined and not c.passed]
    infra = [a.reason for a in attempts if a.status == V.INFRA_UNKNOWN]
    if infra:
        notes.append(f"{len(infra)} attempt(s) infra_unknown: {infra[0]}")
    return Grade(task.name, verdict, verdict in V.GREEN, opts.k, opts.seed, opts.suite, sha256(source),
                 cfg.enabled, attempts, checks, notes)
