"""Issue 22: what a user meets first behind a gateway (LiteLLM-like answers from a scripted server on
127.0.0.1): reports of ungraded batches, resuming with the recorded endpoint, the recorded settings and
command line, error messages, gateway retry hints, JSON errors."""

import pytest

import json
import os
import subprocess
import sys

import sqlite_utils

from conftest import EXAMPLES, ROOT, ChatServer
from test_endpoint import reply, serve_and_run

from loop.ask.retry_hints import retry_hint

LOOP = [sys.executable, "-m", "loop"]
CODE = (EXAMPLES / "merge_intervals_py" / "correct_repair.py").read_text()


def completion(code: str = CODE) -> tuple[int, dict, dict]:
    return 200, {"choices": [{"index": 0, "message": {"role": "assistant", "content": f"```python\n{code}```"}}],
                 "usage": {"prompt_tokens": 5, "completion_tokens": 5}}, {}


def project(tmp_path, extra: str = "") -> tuple:
    db = tmp_path / "runs.db"
    cfg = tmp_path / "config.toml"
    cfg.write_text(f'[loop]\ndb = "{db}"\nk = 1\ntrials = 0\n{extra}')
    (tmp_path / "harness").symlink_to(ROOT / "harness")
    return cfg, db


def loop(cfg, *args, env=None, timeout=300):
    full = {**os.environ, **(env or {})}
    full.pop("OPENAI_API_KEY", None)
    full.pop("LOOP_API_KEY", None)
    full.update(env or {})
    return subprocess.run([*LOOP, "--config", str(cfg), *map(str, args)], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout, env=full)


@pytest.mark.slow
def test_report_after_generate_alone_shows_dashes_in_every_format(tmp_path):
    server = ChatServer(lambda body: completion())
    cfg, db = project(tmp_path)
    try:
        made = loop(cfg, "generate", "--task", "merge_intervals_py", "--samples", "2", "--base-url", server.url,
                    "--model", "m", "--json")
    finally:
        server.close()
    assert made.returncode == 0, made.stderr
    batch = json.loads(made.stdout)["batch_id"]
    for fmt in ("table", "json", "csv", "html"):
        shown = loop(cfg, "report", "--batch", batch, "--format", fmt)
        assert shown.returncode == 0 and "Traceback" not in shown.stderr, shown.stderr
    rows = json.loads(loop(cfg, "report", "--batch", batch, "--format", "json").stdout)["pass_rates"]
    assert rows[0]["decided"] == 0 and rows[0]["pass_rate"] is None and rows[0]["pass@1"] is None
    table = loop(cfg, "report", "--batch", batch).stdout
    assert " - " in table.splitlines()[1] + " "
    view = sqlite_utils.Database(db).execute("select decided, stable_fail, wilson_low from pass_rates").fetchone()
    assert view == (0, 0, None)


def test_wilson_bound_of_zero_passes_is_zero_not_a_rounding_error(tmp_path):
    from loop.store.db import RunStore

    store = RunStore(tmp_path / "runs.db")
    batch = store.start_batch("grade", seed=1)
    for sample in range(3):
        store.add_candidate(batch, "t", sample, source="x", status="graded")
    store.db.execute("update candidates set verdict = 'stable_fail'")
    store.db.conn.commit()
    low, high = store.db.execute("select wilson_low, wilson_high from pass_rates").fetchone()
    assert low == 0.0 and 0 < high < 1


@pytest.mark.slow
def test_batch_stopped_by_401_resumes_with_its_recorded_endpoint(tmp_path):
    """No --base-url on resume: the batch asks the endpoint, model and settings it recorded, not the demo cassette."""
    state = {"healthy": False}
    models = []

    def respond(body):
        models.append(body["model"])
        if not state["healthy"]:
            return 401, {"error": {"message": "Authentication Error, invalid key", "code": "401"}}, {}
        return completion()

    server = ChatServer(respond)
    cfg, db = project(tmp_path, "[endpoint]\nmax_concurrency = 1\ntemperature = 0.3\n")
    try:
        first = loop(cfg, "run", "--task", "merge_intervals_py", "--samples", "3", "--base-url", server.url,
                     "--model", "gw-model", "--concurrency", "1")
        assert first.returncode == 2 and "401" in first.stderr
        d = sqlite_utils.Database(db)
        batch = d.execute("select id, status from batches").fetchone()
        assert batch[1] == "failed"
        state["healthy"] = True
        done = loop(cfg, "run", "--resume", batch[0], "--json")
    finally:
        server.close()
    assert done.returncode == 0, done.stderr
    assert d["batches"].get(batch[0])["status"] == "done"
    rows = list(d["candidates"].rows_where("batch_id = ?", [batch[0]]))
    assert [r["verdict"] for r in rows] == ["stable_pass"] * 3 and {r["model"] for r in rows} == {"gw-model"}
    assert set(models) == {"gw-model"} and server.bodies[-1]["temperature"] == 0.3


@pytest.mark.slow
def test_resume_with_another_model_is_refused_and_another_base_url_recorded(tmp_path):
    server = ChatServer(lambda body: (401, {"error": {"message": "bad key"}}, {}))
    other = ChatServer(lambda body: completion())
    cfg, db = project(tmp_path)
    try:
        loop(cfg, "run", "--task", "merge_intervals_py", "--samples", "1", "--base-url", server.url, "--model", "a")
        batch = sqlite_utils.Database(db).execute("select max(id) from batches").fetchone()[0]
        refused = loop(cfg, "run", "--resume", batch, "--model", "b")
        assert refused.returncode == 2 and "'a'" in refused.stderr and "'b'" in refused.stderr
        assert other.hits == 0
        moved = loop(cfg, "run", "--resume", batch, "--base-url", other.url)
    finally:
        server.close()
        other.close()
    assert moved.returncode == 0, moved.stderr
    row = sqlite_utils.Database(db)["batches"].get(batch)
    assert row["endpoint"] == other.url and row["model"] == "a"
    assert json.loads(row["config"])["resumes"][0]["base_url"] == other.url


@pytest.mark.slow
def test_batch_records_the_settings_it_used_and_the_command_line_never_the_key(tmp_path):
    server = ChatServer(lambda body: completion())
    cfg, db = project(tmp_path)
    try:
        done = loop(cfg, "run", "--task", "merge_intervals_py", "--samples", "2", "--base-url", server.url,
                    "--model", "live", "--concurrency", "3", env={"OPENAI_API_KEY": "sk-secret-xyz"})
    finally:
        server.close()
    assert done.returncode == 0, done.stderr
    row = sqlite_utils.Database(db).execute("select config, command from batches").fetchone()
    config = json.loads(row[0])
    assert config["endpoint"]["base_url"] == server.url and config["endpoint"]["model"] == "live"
    assert config["endpoint"]["max_concurrency"] == 3 and config["replay"] is None
    assert config["loop"]["k"] == 1 and config["loop"]["samples"] == 2
    assert row[1].startswith("loop --config") and "--concurrency 3" in row[1] and "--model live" in row[1]
    assert "sk-secret-xyz" not in row[0] + row[1] and server.auth[0] == "Bearer sk-secret-xyz"


@pytest.mark.slow
def test_gateway_400_shows_the_server_message_and_hints_only_where_it_points(tmp_path):
    bodies = iter([{"error": {"message": "No connected db.", "code": "no_db_connection"}},
                   {"error": {"message": "max_tokens is too large: 99999", "code": "invalid_request"}}])
    server = ChatServer(lambda body: (400, next(bodies), {}))
    cfg, _ = project(tmp_path)
    try:
        gateway = loop(cfg, "generate", "--samples", "1", "--task", "merge_intervals_py", "--base-url", server.url)
        request = loop(cfg, "generate", "--samples", "1", "--task", "merge_intervals_py", "--base-url", server.url)
    finally:
        server.close()
    assert gateway.returncode == 2 and "No connected db." in gateway.stderr and "check" not in gateway.stderr
    assert request.returncode == 2 and "check max_tokens" in request.stderr
    assert "temperature" not in request.stderr


@pytest.mark.slow
def test_no_key_for_a_remote_endpoint_is_said_once(tmp_path):
    cfg, _ = project(tmp_path, "[endpoint]\nmax_attempts = 1\nconnect_timeout = 0.5\n")
    done = loop(cfg, "generate", "--samples", "2", "--task", "merge_intervals_py",
                "--base-url", "http://192.0.2.1:9/v1", "--model", "m")
    assert done.stderr.count("no API key") == 1, done.stderr
    assert "without Authorization" in done.stderr
    local = ChatServer(lambda body: completion())
    try:
        quiet = loop(cfg, "generate", "--samples", "1", "--task", "merge_intervals_py", "--base-url", local.url)
    finally:
        local.close()
    assert "no API key" not in quiet.stderr


def test_json_errors_print_an_object_on_stdout(tmp_path):
    cfg, _ = project(tmp_path)
    done = loop(cfg, "run", "--resume", "999", "--json")
    assert done.returncode == 2
    assert json.loads(done.stdout) == {"error": json.loads(done.stdout)["error"], "exit": 2}
    assert "999" in json.loads(done.stdout)["error"]


def test_gateway_retry_after_variants_are_honoured():
    assert retry_hint({"llm_provider-retry-after": "2"}) == 2.0
    assert retry_hint({"x-upstream-retry-after-ms": "1500"}) == 1.5
    assert retry_hint({"Retry-After": "3", "llm_provider-retry-after": "60"}) == 3.0  # the standard one first
    h, _, result = serve_and_run([reply(429, headers={"llm_provider-retry-after": "2"}), reply(200)])
    assert h.sleeps == [2.0] and result.texts


def test_requests_record_the_wait_that_happened_not_the_one_planned():
    """The backoff asked for 2 s; the sleep took 3 (a busy machine, a queue behind the limits): 3 is recorded."""
    from test_endpoint import Harness, ScriptedServer

    class Slow(Harness):
        async def sleep(self, seconds):
            self.sleeps.append(seconds)
            self.slept += seconds + 1.0

    h = Slow()
    with ScriptedServer([reply(429, headers={"Retry-After": "2"}), reply(200)]) as server:
        h.run(h.settings(server.base_url))
    assert h.sleeps == [2.0]
    assert [round(r.wait, 1) for r in h.records] == [3.0, 0.0]
