"""Shared fixtures: the repository root, a tmp runs.db, and a CLI runner that returns (exit code, output)."""

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from loop.cli import cli

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "harness" / "examples"


@pytest.fixture
def db(tmp_path) -> Path:
    return tmp_path / "runs.db"


@pytest.fixture
def loop_cli(monkeypatch):
    """Invoke `loop` in-process against the repository's config.toml."""
    monkeypatch.chdir(ROOT)

    def invoke(*args, config: Path | None = None):
        argv = (["--config", str(config)] if config else []) + [str(a) for a in args]
        result = CliRunner().invoke(cli, argv, catch_exceptions=False)
        return result.exit_code, result.output

    return invoke


def grade_json(loop_cli, *args):
    code, out = loop_cli("grade", *args, "--json")
    return code, json.loads(out.strip().splitlines()[-1])


@pytest.fixture
def task_copy(tmp_path):
    """Copy a shipped task into a tmp project (with its own config.toml) to break it on purpose."""

    def make(name: str, new_name: str | None = None) -> tuple[Path, Path]:
        proj = tmp_path / "proj"
        dest = proj / "harness" / "tasks" / (new_name or name)
        shutil.copytree(ROOT / "harness" / "tasks" / name, dest)
        if new_name:
            toml = dest / "task.toml"
            toml.write_text(toml.read_text().replace(f'name = "{name}"', f'name = "{new_name}"'))
        cfg = proj / "config.toml"
        cfg.write_text(f'[loop]\ndb = "{tmp_path / "runs.db"}"\nk = 1\ntrials = 0\n')
        return dest, cfg

    return make
