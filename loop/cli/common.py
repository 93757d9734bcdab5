"""What every `loop` command shares: errors as one line and exit status 2, the configuration, the shared
options, the command line a batch records."""

from __future__ import annotations

import functools
import json
import sys
from dataclasses import replace
from pathlib import Path

import click

from loop import config as config_mod
from loop import prompts
from loop import verdicts as V
from loop.errors import LoopError
from loop.run.settings import Origin, cluster_address


def handle_errors(fn):
    """Turn LoopErrors into `error: <message>` and exit status 2 (with --json, also {"error", "exit"} on stdout)."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except (LoopError, click.UsageError) as exc:
            message = exc.format_message() if isinstance(exc, click.UsageError) else str(exc)
            if kwargs.get("as_json"):  # scripts reading stdout get an object, not nothing
                click.echo(json.dumps({"error": message, "exit": V.EXIT_USAGE}))
            if isinstance(exc, click.UsageError):
                raise
            click.echo(f"error: {message}", err=True)
            sys.exit(V.EXIT_USAGE)
    return wrapper


def load_config(ctx: click.Context):
    config = config_mod.load(ctx.obj.get("config_path"))
    prompts.use_folder(config.resolve(config.loop.prompts) if config.loop.prompts else None)
    return config


def per_repeat(config, flag: bool):
    """--trials-per-repeat: the config with every repeat running every trial (config.toml's key otherwise)."""
    return replace(config, loop=replace(config.loop, trials_per_repeat=True)) if flag else config


def cluster_option(fn):
    """--cluster ADDRESS, for every command that grades a batch; `cluster_address` picks flag, env or config."""
    return click.option("--cluster", "cluster", default=None, metavar="tcp://HOST:8786",
                        help="Grade on this Dask scheduler's workers ($LOOP_CLUSTER, [cluster] scheduler).")(fn)


def scheduler(config, flag: str | None) -> str | None:
    """The Dask scheduler a command grades on (settings.cluster_address); reaching one that does not answer takes
    [cluster] connect_timeout, so a wait longer than a few seconds is said first."""
    address = cluster_address(config, flag)
    if address and config.cluster.connect_timeout > 5:
        click.echo(f"connecting to the Dask scheduler at {address} (up to {config.cluster.connect_timeout:g} s, "
                   "[cluster] connect_timeout)", err=True)
    return address


def command_line() -> str:
    """The command as the user typed it (the root group keeps its argv), for the batch to record."""
    import shlex

    root = click.get_current_context().find_root().command
    return shlex.join(["loop", *getattr(root, "argv", [])])


def warn(message: str) -> None:
    click.echo(f"warning: {message}", err=True)


# generate ---------------------------------------------------------------------
def source_options(fn):
    """The endpoint flags shared by `generate` and `run`."""
    for opt in reversed([
        click.option("--task", "task_names", multiple=True, help="Task (repeatable; default: all)."),
        click.option("--samples", type=click.IntRange(min=1), default=None, help="Samples per task."),
        click.option("--concurrency", type=click.IntRange(min=1), default=None, help="Requests in flight at once."),
        click.option("--base-url", default=None, help="OpenAI-compatible base URL (POST {base_url}/chat/completions)."),
        click.option("--model", default=None),
        click.option("--record", type=click.Path(path_type=Path), default=None, help="Append every exchange to this JSONL cassette."),
        click.option("--replay", "replay_path", type=click.Path(path_type=Path), default=None, help="Serve responses from this cassette."),
        click.option("--db", type=click.Path(path_type=Path), default=None),
        click.option("--json", "as_json", is_flag=True),
    ]):
        fn = opt(fn)
    return fn


def origin_from(record, replay_path, base_url, model, concurrency) -> Origin:
    if record and replay_path:
        raise click.UsageError("--record and --replay cannot be used together")
    return Origin(base_url, model, concurrency, record, replay_path)
