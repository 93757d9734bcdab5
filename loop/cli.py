"""The `loop` command line: the only module that prints or exits.

Library code raises LoopErrors; here they become one-line messages and exit status 2.
"""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path

import click

from loop import config as config_mod
from loop import runner, seeds, tasks
from loop import verdicts as V
from loop.errors import LoopError
from loop.grading.grade import check_polarity
from loop.grading.triage import load_quarantine
from loop.store import RunStore


class _Exit(Exception):
    def __init__(self, code: int):
        self.code = code


def handle_errors(fn):
    """Turn LoopErrors into `error: <message>` and exit status 2."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except LoopError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(V.EXIT_USAGE)
    return wrapper


def load_config(ctx: click.Context):
    return config_mod.load(ctx.obj.get("config_path"))


@click.group()
@click.option("--config", "config_path", type=click.Path(path_type=Path), default=None,
              help="config.toml to use (default: ./config.toml, or $LOOP_CONFIG).")
@click.version_option(package_name="loop")
@click.pass_context
def cli(ctx, config_path):
    """Ask a model endpoint for code patches and grade every candidate locally."""
    ctx.ensure_object(dict)
    ctx.obj["config_path"] = config_path


# tasks ------------------------------------------------------------------------
@cli.group("tasks")
def tasks_group():
    """List and check task folders (harness/tasks/<name>/)."""


@tasks_group.command("list")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
@handle_errors
def tasks_list(ctx, as_json):
    """List the tasks."""
    cfg = load_config(ctx)
    rows = []
    for name in tasks.list_tasks(cfg.root):
        t = tasks.load(cfg.root, name)
        rows.append({"name": t.name, "language": t.language, "tests": len(t.tests), "goldens": len(t.goldens),
                     "baseline": t.baseline is not None, "relations": t.oracle is not None,
                     "description": t.description})
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    for r in rows:
        click.echo(f"{r['name']:<24} {r['language']:<7} {r['tests']:>2} tests {r['goldens']:>2} goldens  {r['description'][:60]}")


@tasks_group.command("check")
@click.argument("names", nargs=-1)
@click.option("--no-sandbox", is_flag=True, help="Run unsandboxed (printed loudly).")
@click.pass_context
@handle_errors
def tasks_check(ctx, names, no_sandbox):
    """Verify baseline polarity: f2p fail and p2p pass on the baseline; the reference passes all."""
    cfg = load_config(ctx)
    load_quarantine(cfg.root / "harness" / "quarantine.toml")
    sandbox = runner.sandbox_config(cfg, no_sandbox)
    _warn_unsandboxed(sandbox)
    bad = 0
    for name in names or tasks.list_tasks(cfg.root):
        problems = check_polarity(tasks.load(cfg.root, name), sandbox)
        for p in problems:
            click.echo(f"FAIL {p}")
        if not problems:
            click.echo(f"ok   {name}")
        bad += bool(problems)
    if bad:
        raise click.exceptions.Exit(V.EXIT_USAGE)


def _warn_unsandboxed(sandbox) -> None:
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
        "failures": g.failures(), "transitions": g.transitions(), "notes": g.notes,
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
    for f in g.failures():
        click.echo(f"  FAIL {f['check']}: {f['detail'].strip().splitlines()[0][:200] if f['detail'].strip() else ''}")
    for note in g.notes:
        click.echo(f"  note: {note}")
    if g.verdict == V.STABLE_PASS_VARYING:
        click.secho("  warning: passes, but its output varies between repeats; normalise the output before it turns red",
                    fg="yellow", err=True)


@cli.command("grade")
@click.argument("task")
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--suite", type=click.Choice(V.SUITES), default=None, help="Named tests to run (default from config).")
@click.option("--seed", type=int, default=None, help="Seed for generated inputs (default: harness/seeds/current.seed).")
@click.option("--trials", type=click.IntRange(min=0), default=None, help="Relation trials (0 turns relations off).")
@click.option("--k", "k", type=click.IntRange(min=1), default=None, help="Repeats per grade (default 5).")
@click.option("--db", type=click.Path(path_type=Path), default=None, help="runs.db path.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--no-sandbox", is_flag=True, help="Run unsandboxed (printed loudly and recorded).")
@click.pass_context
@handle_errors
def grade_cmd(ctx, task, file, suite, seed, trials, k, db, as_json, no_sandbox):
    """Grade FILE as TASK's candidate and record the grade in runs.db.

    Exit status: 0 stable_pass / stable_pass_varying, 1 flaky / stable_fail, 3 inconclusive, 2 usage error.
    """
    cfg = load_config(ctx)
    sandbox = runner.sandbox_config(cfg, no_sandbox)
    _warn_unsandboxed(sandbox)
    done = runner.grade_file(cfg, task, file, suite=suite, seed=seed, trials=trials, k=k, db=db, no_sandbox=no_sandbox)
    if as_json:
        click.echo(json.dumps(grade_json(done.grade, done.candidate_id)))
    else:
        print_grade(done.grade, done.candidate_id)
    raise click.exceptions.Exit(V.exit_status(done.grade.verdict))


@cli.command("replay")
@click.argument("candidate_id", type=int)
@click.option("--db", type=click.Path(path_type=Path), default=None)
@click.option("--json", "as_json", is_flag=True)
@click.option("--no-sandbox", is_flag=True)
@click.pass_context
@handle_errors
def replay_cmd(ctx, candidate_id, db, as_json, no_sandbox):
    """Re-grade a stored candidate from its stored source and seed; show the recomputed verdict."""
    cfg = load_config(ctx)
    row, g = runner.replay(cfg, candidate_id, db=db, no_sandbox=no_sandbox)
    same = row["verdict"] == g.verdict
    if as_json:
        click.echo(json.dumps({**grade_json(g, candidate_id), "stored_verdict": row["verdict"], "matches": same}))
    else:
        print_grade(g, candidate_id)
        click.echo(f"  stored verdict: {row['verdict']}; recomputed: {g.verdict}"
                   + ("" if same else "  <-- DIFFERENT (the recomputed verdict is the one to trust)"))
    raise click.exceptions.Exit(V.exit_status(g.verdict))


# seeds ------------------------------------------------------------------------
@cli.group("seed")
def seed_group():
    """Show or rotate harness/seeds/current.seed."""


@seed_group.command("show")
@click.pass_context
@handle_errors
def seed_show(ctx):
    """Print the current seed."""
    click.echo(seeds.current(load_config(ctx).root))


@seed_group.command("rotate")
@click.option("--db", type=click.Path(path_type=Path), default=None)
@click.pass_context
@handle_errors
def seed_rotate(ctx, db):
    """Write a new seed and record the rotation in runs.db."""
    cfg = load_config(ctx)
    old, new = seeds.rotate(cfg.root)
    with RunStore(db or cfg.db_path) as store:
        store.record_rotation(old, new)
    click.echo(f"seed rotated: {old} -> {new}")


# examples (the runnable default until the batch loop lands) -------------------
@cli.command("run")
@click.option("--db", type=click.Path(path_type=Path), default=None)
@click.option("--k", "k", type=click.IntRange(min=1), default=None)
@click.pass_context
@handle_errors
def run_cmd(ctx, db, k):
    """Grade the shipped example candidates (harness/examples/<task>/) and print their verdicts."""
    cfg = load_config(ctx)
    base = cfg.root / "harness" / "examples"
    for folder in sorted(p for p in base.iterdir() if p.is_dir()):
        for path in sorted(folder.iterdir()):
            if path.suffix not in (".py", ".cpp"):
                continue
            done = runner.grade_file(cfg, folder.name, path, db=db, k=k)
            g = done.grade
            first = g.failures()[0]["check"] if g.failures() else ""
            click.echo(f"{folder.name:<22} {path.name:<24} {g.verdict:<20} {first}")


# generate ---------------------------------------------------------------------
@cli.command("generate")
@click.option("--task", "task_names", multiple=True, help="Task to ask for (repeatable; default: all).")
@click.option("--samples", type=click.IntRange(min=1), default=None, help="Samples per task.")
@click.option("--concurrency", type=click.IntRange(min=1), default=None, help="Requests in flight at once.")
@click.option("--base-url", default=None, help="OpenAI-compatible base URL (POST {base_url}/chat/completions).")
@click.option("--model", default=None)
@click.option("--record", type=click.Path(path_type=Path), default=None, help="Append every exchange to this JSONL cassette.")
@click.option("--replay", "replay_path", type=click.Path(path_type=Path), default=None, help="Serve responses from this cassette.")
@click.option("--db", type=click.Path(path_type=Path), default=None)
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
@handle_errors
def generate_cmd(ctx, task_names, samples, concurrency, base_url, model, record, replay_path, db, as_json):
    """Ask the endpoint for candidates and store them (ungraded) as a batch."""
    if record and replay_path:
        raise click.UsageError("--record and --replay cannot be used together")
    cfg = load_config(ctx)
    done = runner.generate(cfg, list(task_names), samples=samples, base_url=base_url, model=model,
                           concurrency=concurrency, record=record, replay_path=replay_path, db=db)
    if as_json:
        click.echo(json.dumps({"batch_id": done.batch_id, "candidates": done.candidates,
                               "infra_unknown": done.infra_unknown, "no_code": done.no_code}))
    else:
        click.echo(f"batch {done.batch_id}: {done.candidates} candidates, {done.infra_unknown} infra_unknown, "
                   f"{done.no_code} without code")
