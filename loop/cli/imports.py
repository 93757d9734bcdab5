"""`loop tasks import evalplus` and `swebench`: check the arguments, call the importer, print what it did."""

from __future__ import annotations

import click

from loop.cli.output import warn_unsandboxed
from loop.run.settings import sandbox_config


def evalplus(config, path, dest, swebench_only) -> None:
    """Prints, per HumanEval+ problem, where loop's contract or reference reads it differently from EvalPlus."""
    from loop.datasets import evalplus as dataset

    if path is None:
        raise click.UsageError("evalplus needs FILE: a HumanEvalPlus or MbppPlus release file (.jsonl or .jsonl.gz)")
    if swebench_only:
        raise click.UsageError("evalplus takes no --repos, --requirements, --test-command or --python")
    sandbox = sandbox_config(config)
    warn_unsandboxed(sandbox)
    done = dataset.import_evalplus(path, dest, sandbox)
    for line in done.disagreements:
        click.echo(f"differs {line}")
    for line in done.notes:
        click.echo(f"note    {line}")
    if done.dataset == "humaneval":
        click.echo(f"{len(done.disagreements)} problem(s) where loop's contract or reference differs from EvalPlus's")
    span = f" ({done.names[0]} .. {done.names[-1]})" if done.names else ""
    click.echo(f"imported {len(done.names)} {'HumanEval+' if done.dataset == 'humaneval' else 'MBPP+'} tasks "
               f"into {dest}{span}")


def swebench(instances, dest, repos, requirements, test_command, force, python=None) -> None:
    from loop.datasets import swebench as dataset

    if instances is None or repos is None:
        raise click.UsageError("swebench needs INSTANCES.jsonl and --repos DIR")
    notes: list[str] = []
    names = dataset.import_instances(instances, repos, dest, requirements, test_command, force, notes, python)
    for note in notes:
        click.echo(note, err=note.startswith("warning:") or "warning:" in note)
    click.echo(f"imported {len(names)} SWE-bench instance(s) into {dest}: {', '.join(names[:5])}"
               + (" ..." if len(names) > 5 else ""))
