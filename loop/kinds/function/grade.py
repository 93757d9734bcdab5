"""The function kind's grade: build, then k attempts, then the verdict; and the task's own soundness checks.

Order: build -> goldens -> named tests -> relations -> sanitizer; a build failure stops grading
and is never reported as a test or relation miss.
"""

from __future__ import annotations

import functools
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

from loop import verdicts as V
from loop.errors import CandidateFault, HarnessError, SandboxUnavailable, TaskError
from loop.grading import triage
from loop.grading.conclude import conclude, grade_without_attempts, precheck
from loop.grading.model import Attempt, Check, Grade, Options
from loop.kinds.function.attempt import Plan, RestartingWorker, run_attempt, sanitizer_gate
from loop.kinds.function.confirm import confirm, recheck_in_fresh_processes, shares_of
from loop.kinds.function.decide import (first_failure, golden_matches, outcome, short_run_decides, timed_out,
                                        timeouts_everywhere)
from loop.kinds.function.programs import build, release, sanitizer_probe
from loop.kinds.task import Task
from loop.oracles.engine import same_value
from loop.sandbox import SandboxConfig


def grade_function(task: Task, source: str | None, cfg: SandboxConfig, opts: Options,
                   quarantined: set[str] = frozenset()) -> Grade:
    """The function kind's grade: build, then k attempts in fresh sandboxes, the sanitizer gate, the verdict."""
    decided = precheck(task, source, opts, cfg)
    if decided is not None:
        return decided
    built: list = []  # the candidate's programs, released (their folders deleted) once the grade is made
    try:
        with ThreadPoolExecutor(1, thread_name_prefix="loop-sanitizer") as background:
            return _grade_built(task, source, cfg, opts, quarantined, background, built)
    finally:
        for program in built:
            release(program)


def _grade_built(task: Task, source: str, cfg: SandboxConfig, opts: Options, quarantined, background,
                 built: list) -> Grade:
    try:
        candidate = build(task, source, "candidate", cfg)
        built.append(candidate)
        if candidate.build_error:
            # A build error is the candidate's only if the reference builds in the same conditions.
            ref = build(task, task.reference, "reference", cfg) if task.reference else None
            if ref is not None and ref.build_error:
                return grade_without_attempts(task, source, opts, cfg, V.INFRA_UNKNOWN,
                                    f"the reference does not build either: {ref.build_error[-300:]}", V.INFRA_UNKNOWN)
            return grade_without_attempts(task, source, opts, cfg, V.BUILD, candidate.build_error)
        # The sanitizer side (probe, then its own build) runs beside the attempts: it is only needed at the end.
        sanitizing = background.submit(_sanitizer_build, task, source, cfg, built) \
            if task.language == "cpp" and opts.sanitize else None
        baseline = build(task, task.baseline, "baseline", cfg) if task.baseline else None
        reference = build(task, task.reference, "reference", cfg) if task.reference else None
    except (SandboxUnavailable, HarnessError) as exc:
        return grade_without_attempts(task, source, opts, cfg, V.INFRA_UNKNOWN, str(exc), V.INFRA_UNKNOWN)
    for prog in (baseline, reference):
        if prog is not None and prog.build_error:
            raise TaskError(f"task '{task.name}': the {prog.role} does not build: {prog.build_error[-300:]}")
    plan = Plan(task, cfg, candidate, baseline, reference, None, task.selected(opts.suite),
                opts.seed, opts.trials, set(quarantined), k=opts.k if opts.part(0) else 0)
    attempts = [run_attempt(plan, 0)]
    case = first_failure(task, attempts[0].checks)
    attempts += [_repeat(plan, r, case) for r in range(1, opts.k)]
    notes = timeouts_everywhere(attempts, plan.k > 1,
                                lambda r, j: timed_out(run_attempt(plan, r, lane=j, only=plan.ran.get(r))))
    notes += confirm(attempts, plan.k, functools.partial(recheck_in_fresh_processes, plan), shares_of(plan))
    triage.settle(attempts)
    if sanitizing is not None:
        try:
            probe, plan.sanitized = sanitizing.result()
        except (SandboxUnavailable, HarnessError) as exc:
            return grade_without_attempts(task, source, opts, cfg, V.INFRA_UNKNOWN, str(exc), V.INFRA_UNKNOWN)
        if probe is not None:
            return grade_without_attempts(task, source, opts, cfg, V.SANITIZER_PROBE, probe)
        if any(a.status == V.PASS for a in attempts):
            _gate(plan, attempts)  # only where it can change the verdict: some attempt passed
    graded = conclude(task, source, opts, cfg, attempts)
    graded.inputs = plan.inputs
    graded.notes += notes
    return graded


def _repeat(plan: Plan, repeat: int, case: int | None) -> Attempt:
    """Repeat 1..k-1: only repeat 0's failed case first, where there is one (decide.first_failure); the
    whole attempt where that does not decide it (its input counts then forgotten, as if it had not run)."""
    if case is not None:
        counts = dict(plan.inputs) if plan.inputs is not None else None
        short = run_attempt(plan, repeat, only=[case])
        if short_run_decides(short.checks):
            plan.ran[repeat] = [case]
            return short
        plan.inputs = counts
    return run_attempt(plan, repeat)


def _sanitizer_build(task: Task, source: str, cfg: SandboxConfig, built: list) -> tuple[str | None, object]:
    """(why the candidate can tell the sanitizer build apart, or None; the sanitizer build). Raises
    HarnessError when the sanitizer build fails after a clean plain build: that is not the candidate's."""
    probe = sanitizer_probe(task, source, cfg)
    if probe is not None:
        return probe, None
    sanitized = build(task, source, "candidate-asan", cfg, sanitize=True)
    built.append(sanitized)
    if sanitized.build_error:
        raise HarnessError(f"sanitizer build failed: {sanitized.build_error[-300:]}")
    return None, sanitized


def _gate(plan: Plan, attempts: list[Attempt]) -> None:
    """Run the sanitizer gate once and add its check to every graded attempt: a build-level finding is
    not a repeat's bad luck, so it must fail them all (stable_fail), never show as flaky."""
    try:
        check = sanitizer_gate(plan)
    except CandidateFault as fault:
        check = Check(fault.check, "fault", False, f"sanitizer build: {fault.detail}", quarantined=fault.check in plan.quarantined)
    except (SandboxUnavailable, HarnessError) as exc:
        for a in attempts:
            a.status, a.reason, a.digest = V.INFRA_UNKNOWN, f"sanitizer gate: {exc}", ""
        return
    for a in attempts:
        if a.status != V.INFRA_UNKNOWN:
            a.checks.append(replace(check))


def check_polarity(task: Task, cfg: SandboxConfig) -> list[str]:
    """Baseline polarity: f2p fails and p2p passes on the baseline; the reference passes everything.

    Returns human-readable problems, each naming the task and the test; [] means the task is sound.
    """
    problems = []
    baseline = build(task, task.baseline, "baseline", cfg) if task.baseline else None
    reference = build(task, task.reference, "reference", cfg) if task.reference else None
    for prog in (baseline, reference):
        if prog is not None and prog.build_error:
            problems.append(f"{task.name}: the {prog.role} does not build: {prog.build_error.strip()[-200:]}")
    if problems:
        return problems
    for prog, label in ((baseline, "baseline"), (reference, "reference")):
        if prog is None:
            continue
        side = RestartingWorker(prog, cfg, 0)
        try:
            for t in task.tests:
                try:
                    ok, value = outcome(side.call(t.args))
                except CandidateFault as fault:
                    ok, value = False, str(fault)
                passed = ok and same_value(value, t.expected)
                if label == "reference" and not passed:
                    problems.append(f"{task.name}: test '{t.name}' fails on the reference (got {value!r})")
                elif label == "baseline" and t.test_kind == V.F2P and passed:
                    problems.append(f"{task.name}: f2p test '{t.name}' passes on the baseline")
                elif label == "baseline" and t.test_kind == V.P2P and not passed:
                    problems.append(f"{task.name}: p2p test '{t.name}' fails on the baseline")
            if label == "reference":
                for g in task.goldens:
                    ok, value = outcome(side.call(g.args))
                    passed, detail = golden_matches(task, ok, value, g.expected)
                    if not passed:
                        problems.append(f"{task.name}: golden '{g.case}' fails on the reference ({detail})")
        finally:
            side.close()
    if task.reference is None:
        problems.append(f"{task.name}: no reference")
    return problems


def demonstrate(task: Task, cfg: SandboxConfig) -> dict | None:
    """The one failing example a prompt may show: the named test's input, expected and baseline output."""
    test = next((t for t in task.tests if t.name == task.example), None)
    if test is None or task.baseline is None:
        return None
    side = RestartingWorker(build(task, task.baseline, "baseline", cfg), cfg, 0)
    try:
        ok, actual = outcome(side.call(test.args))
    except (CandidateFault, SandboxUnavailable, HarnessError):
        actual = "(could not run the baseline)"
    finally:
        side.close()
    return {"input": test.args[0] if len(test.args) == 1 else list(test.args), "expected": test.expected,
            "actual": actual}




def reference_outputs(task: Task, source: str, inputs: list[list], cfg: SandboxConfig, *, repeat: int = 0,
                      limit: float = 10.0) -> list[tuple[bool, object, bool]]:
    """(returned?, value or why not, changed an argument?) of trusted `source` on each argument list, in the
    sandbox under `repeat`'s environment, `limit` seconds per input: how an importer computes expected outputs
    (EvalPlus's inputs) and learns whether the reference changes its arguments. A source that does not build is
    a TaskError naming the task."""
    program = build(task, source, "reference", cfg)
    if program.build_error:
        raise TaskError(f"task '{task.name}': the reference does not build: {program.build_error.strip()[-200:]}")
    side = RestartingWorker(program, cfg, repeat)
    out = []
    try:
        for args in inputs:
            try:
                msg = side.call(tuple(args), limit=limit)
                out.append((*outcome(msg), "args" in msg))
            except CandidateFault as fault:
                out.append((False, str(fault), False))
    finally:
        side.close()
    return out
