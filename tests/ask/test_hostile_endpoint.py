"""Issue 43: a broken or hostile endpoint (a real server on 127.0.0.1) never hangs loop, crashes it, eats its
memory, leaks the key or beats the budget. One scenario per class of the issue, each run as a user meets it
(`loop generate` in a subprocess whose peak RSS is measured, or the API in process), each bounded in wall time.

Every scenario checks: no traceback, a clean end with the right infra reason, bounded time and memory, what
arrived is stored, the key in no file written.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import struct
import subprocess
import sys
import threading
import time
import tracemalloc
import zlib
from contextlib import closing
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import EXAMPLES, ROOT

from loop import config as config_mod
from loop.ask.ratelimit import limit_key
from loop.cli import cli
from loop.errors import ConfigError
from loop.run.batch import run_batch
from loop.run.settings import Origin
from loop.store.db import RunStore

KEY = "sk-hostile-SECRET-7f3a9c"
CODE = (EXAMPLES / "merge_intervals_py" / "correct_repair.py").read_text()
MiB = 1024 * 1024
MAX_RSS = 150  # MiB: a `loop generate` of a few samples peaks near 55
# Runs `loop` and writes its own peak RSS (KiB) to argv[1] at exit: the child's figure, not the test's. VmHWM, not
# ru_maxrss: Linux starts an exec'd process's ru_maxrss at its parent's RSS when it forked (a pytest worker grown
# past 150 MiB made every `loop` here "peak" at 150.7).
MEASURED = ("import atexit, sys\n"
            "out = sys.argv.pop(1)\n"
            "hwm = lambda: next(l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM:'))\n"
            "atexit.register(lambda: open(out, 'w').write(hwm()))\n"
            "from loop.cli import cli\n"
            "cli(prog_name='loop')\n")


def completion(content=None, usage=(5, 5), finish="stop") -> bytes:
    return json.dumps({"choices": [{"index": 0, "finish_reason": finish, "message": {
        "role": "assistant", "content": f"```python\n{CODE}```" if content is None else content}}],
        "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1]}}).encode()


class Hostile:
    """A chat-completions server on 127.0.0.1 whose `behave(handler, n)` answers the n-th request (from 0) as it
    likes, raw on the socket. Keeps each request's Authorization header."""

    def __init__(self, behave) -> None:
        self.auth: list[str | None] = []
        self.lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers["Content-Length"]))
                with outer.lock:
                    n = len(outer.auth)
                    outer.auth.append(self.headers.get("Authorization"))
                try:
                    behave(self, n)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up on this one: what a bounded client does

            def send(self, status: int, body: bytes, headers: dict | None = None) -> None:
                self.send_response(status)
                for k, v in {"Content-Type": "application/json", **(headers or {})}.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *a) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_port}/v1"

    def __enter__(self) -> Hostile:
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def tmp_project(folder: Path, endpoint: str = "") -> tuple[Path, Path]:
    """A project in `folder` (its own config.toml and runs.db) over the repository's harness, but with a copy of
    merge_intervals_py that names no example: its prompt then needs no sandbox to demonstrate one, and these
    tests stay unit tests. Returns (config, db)."""
    db, cfg = folder / "runs.db", folder / "config.toml"
    cfg.write_text(f'[loop]\ndb = "{db}"\nk = 1\ntrials = 0\n[endpoint]\n{endpoint}')
    for entry in (ROOT / "harness").iterdir():
        if entry.name != "tasks":
            (folder / "harness" / entry.name).parent.mkdir(parents=True, exist_ok=True)
            (folder / "harness" / entry.name).symlink_to(entry)
    task = folder / "harness" / "tasks" / "merge_intervals_py"
    shutil.copytree(ROOT / "harness" / "tasks" / "merge_intervals_py", task)
    toml = task / "task.toml"
    toml.write_text("".join(line for line in toml.read_text().splitlines(True) if not line.startswith("example")))
    return cfg, db


def generate(cfg: Path, url: str, samples: int, *extra, timeout: float = 60) -> tuple:
    """`loop generate` as a user runs it, with the key in LOOP_API_KEY: (process, seconds, peak RSS in MiB)."""
    rss = cfg.parent / f"rss-{time.monotonic_ns()}"
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "LOOP_BASE_URL")}
    env["LOOP_API_KEY"] = KEY
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-c", MEASURED, str(rss), "--config", str(cfg), "generate", "--task",
                           "merge_intervals_py", "--samples", str(samples), "--concurrency", "1", "--base-url", url,
                           "--model", "m", "--json", *map(str, extra)],
                          cwd=ROOT, capture_output=True, text=True, timeout=timeout, env=env)
    seconds = time.monotonic() - start
    assert "Traceback" not in done.stderr, done.stderr
    return done, seconds, int(rss.read_text()) / 1024


def select(db: Path, sql: str) -> list[dict]:
    with closing(sqlite3.connect(db)) as conn:  # closed here: the last connection to close removes the WAL
        conn.row_factory = sqlite3.Row
        return [dict(r) for r in conn.execute(sql)]


def candidates(db: Path, batch: int | None = None) -> list[dict]:
    where = f"where batch_id = {batch}" if batch else ""
    return select(db, f"select * from candidates {where} order by batch_id, sample")


def requests(db: Path) -> list[dict]:
    return select(db, "select * from requests order by id")


def assert_no_key_in_files(folder: Path, *texts: str) -> None:
    written = [p for p in folder.rglob("*") if p.is_file() and not p.is_symlink()]
    assert written, "nothing was written"
    for path in written:
        try:
            data = path.read_bytes()
        except FileNotFoundError:  # a -wal or -journal file checkpointed away meanwhile: its pages are in the db
            continue
        assert KEY.encode() not in data, f"the key is in {path}"
    for text in texts:
        assert KEY not in text


# ---------------------------------------------------------------- 1. no wait taken from outside is unbounded


def test_a_hostile_wait_hint_or_rate_never_outlives_its_cap(tmp_path):
    """Retry-After of 31 years to one request, a per-year limit of 1 on the answers: each batch ends in seconds,
    the wait it sat through is announced, the next process does not hang; `loop endpoint limits` shows what was
    learned and `loop endpoint forget` clears it. (A state file paused for years, as an older loop left it:
    test_ratelimit.test_a_new_process_never_inherits_a_wait_beyond_its_cap.)"""
    per_year = {"x-ratelimit-limit-requests": "1", "x-ratelimit-remaining-requests": "0",
                "x-ratelimit-reset-requests": "8760h"}

    def behave(h, n):
        if n == 0:
            h.send(429, b'{"error": {"message": "come back later"}}', {"Retry-After": "1000000000"})
        else:
            h.send(200, completion(), per_year)

    cfg, db = tmp_project(tmp_path, endpoint="max_pause = 6.0\nmin_requests_per_minute = 30.0\n")
    env = {"LOOP_API_KEY": KEY, "OPENAI_API_KEY": ""}

    def endpoint(*args, config=cfg):
        return CliRunner().invoke(cli, ["--config", str(config), "endpoint", *args, "--base-url", server.url],
                                  env=env, catch_exceptions=False).output

    with Hostile(behave) as server:
        first, seconds, rss = generate(cfg, server.url, 2)
        assert first.returncode == 0 and seconds < 40 and rss < MAX_RSS, first.stderr
        rows = candidates(db, 1)
        assert [(r["status"], r["reason"]) for r in rows] == [("infra_unknown", "rate_limited"), ("generated", None)]
        assert rows[1]["reply"] and "def merge" in rows[1]["source"]  # what arrived is stored
        # the pause the hint asked for, capped at max_pause, announced with its reason and end
        said = [line for line in first.stderr.splitlines() if "waiting" in line]
        assert len(said) == 1 and "waiting 6 s, until" in said[0] and "rate limit" in said[0], first.stderr
        assert endpoint("forget").startswith("forgot 1 learned limit ")

        # from nothing, the per-year headers imply 3e-8 requests/s: the rate is floored at 30 a minute
        second, seconds, rss = generate(cfg, server.url, 2)
        assert second.returncode == 0 and seconds < 40 and rss < MAX_RSS, second.stderr
        assert [r["status"] for r in candidates(db, 2)] == ["generated"] * 2
        (learned,) = json.loads(endpoint("limits", "--json"))["limits"]
        assert learned["key"] == limit_key(server.url, KEY) and learned["rate"] == 0.5
        assert time.time() < learned["expires"] <= time.time() + 3600

        assert endpoint("forget").startswith("forgot 1 learned limit ")
        assert "nothing learned" in endpoint("limits")
    assert_no_key_in_files(tmp_path, first.stderr, second.stderr)


# ---------------------------------------------------------------- 2. every answer decoded totally


def test_undecodable_answers_are_bad_response_never_a_traceback(tmp_path):
    deep = b'{"choices": ' + b"[" * 200_000 + b"]" * 200_000 + b"}"

    def behave(h, n):
        if n == 0:  # nested far past Python's recursion limit
            h.send(200, deep)
        elif n == 1:  # UTF-8 (as JSON is) under a charset that would misread it
            h.send(200, completion(f"```python\n# déjà vu\n{CODE}```"),
                   {"Content-Type": "application/json; charset=utf-16"})
        elif n == 2:  # counts SQLite cannot hold: the reply is still stored, the usage unknown
            h.send(200, completion(usage=(2**63, 2**64)))
        else:  # neither UTF-8 nor a charset anyone knows
            h.send(200, b"\xff\xfe\x00\xc3(", {"Content-Type": "application/json; charset=x-no-such"})

    cfg, db = tmp_project(tmp_path)
    with Hostile(behave) as server:
        done, seconds, rss = generate(cfg, server.url, 4)
    assert done.returncode == 0 and seconds < 40 and rss < MAX_RSS, done.stderr
    rows = candidates(db)
    assert [(r["status"], r["reason"]) for r in rows] == [
        ("infra_unknown", "bad_response"), ("generated", None), ("generated", None), ("infra_unknown", "bad_response")]
    assert "nested too deep" in rows[0]["notes"]
    assert "déjà vu" in rows[1]["reply"] and "def merge" in rows[1]["source"]
    assert rows[2]["reply"] and "def merge" in rows[2]["source"]
    assert [(r["prompt_tokens"], r["completion_tokens"]) for r in requests(db)] == [
        (None, None), (5, 5), (None, None), (None, None)]
    assert json.loads(done.stdout)["infra_unknown"] == 2
    assert_no_key_in_files(tmp_path, done.stdout, done.stderr)


# ---------------------------------------------------------------- 3. bounded memory and time per request


def gzip_bomb(mib: int) -> bytes:
    """`mib` MiB of zeros, gzipped: one fully flushed MiB of deflate (no reference before it), repeated."""
    packer = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    block = packer.compress(bytes(MiB)) + packer.flush(zlib.Z_FULL_FLUSH)
    crc = 0
    for _ in range(mib):
        crc = zlib.crc32(bytes(MiB), crc)
    return (b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff" + block * mib + packer.flush()
            + struct.pack("<II", crc, mib * MiB & 0xFFFFFFFF))


def test_bombs_endless_bodies_drips_and_huge_headers_end_bounded(tmp_path):
    bomb = gzip_bomb(512)
    big = "x = 1\n" * 100_000  # a 600 kB reply: under the body's cap, over the stored reply's

    def behave(h, n):
        if n == 0:  # a gzip bomb: half a MiB on the wire, 512 MiB unpacked
            h.send(200, bomb, {"Content-Encoding": "gzip"})
        elif n == 1:  # an endless chunked body
            h.send_response(200)
            h.send_header("Transfer-Encoding", "chunked")
            h.end_headers()
            chunk = b"10000\r\n" + b" " * 0x10000 + b"\r\n"
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                h.wfile.write(chunk)
        elif n == 2:  # a body that drips one byte at a time: every read is within read_timeout
            body = completion()
            h.send_response(200)
            h.send_header("Content-Length", str(len(body)))
            h.end_headers()
            for byte in body[:40]:
                h.wfile.write(bytes([byte]))
                h.wfile.flush()
                time.sleep(0.25)
        elif n == 3:
            h.send(200, completion(f"```python\n{CODE}```\n{big}"))
        elif n == 4:  # headers of 2 MiB
            h.send(200, completion(), {"X-Huge": "a" * (2 * MiB)})
        else:
            h.send(200, completion())

    cfg, db = tmp_project(tmp_path, endpoint="max_response_bytes = 1048576\nmax_reply_bytes = 65536\n"
                                             "attempt_timeout = 2.0\nmax_attempts = 1\n")
    with Hostile(behave) as server:
        done, seconds, rss = generate(cfg, server.url, 6)
    assert done.returncode == 0 and seconds < 40, done.stderr
    assert rss < MAX_RSS  # the bomb alone would be 512 MiB, the endless body as much as it sent
    rows = candidates(db)
    assert [(r["status"], r["reason"]) for r in rows] == [
        ("infra_unknown", "bad_response"), ("infra_unknown", "bad_response"), ("infra_unknown", "timeout"),
        ("generated", None), ("infra_unknown", "connection"), ("generated", None)]
    assert all("endpoint.max_response_bytes" in rows[i]["notes"] for i in (0, 1))
    assert "endpoint.attempt_timeout" in rows[2]["notes"]
    cut = rows[3]
    assert len(cut["reply"].encode()) == 65536 and cut["truncated"] == 1 and cut["finish_reason"] == "stop"
    assert "def merge" in cut["source"] and rows[5]["truncated"] == 0  # nothing that arrived is lost
    assert_no_key_in_files(tmp_path, done.stdout, done.stderr)


# ---------------------------------------------------------------- 4. the key never reaches a file


def test_a_gateway_echoing_the_key_never_puts_it_in_a_file(tmp_path):
    def behave(h, n):
        auth = h.headers.get("Authorization", "")
        echo = {"X-Echo-Authorization": auth, "Authorization": auth, "api-key": KEY}
        if n == 0:  # an error that quotes the request
            h.send(500, json.dumps({"error": {"message": f"upstream refused {auth}"}}).encode(), echo)
        else:  # a model that repeats the key, in a reply and its headers
            h.send(200, completion(f"your key is {auth}\n```python\n# {KEY}\n{CODE}```"), echo)

    cfg, db = tmp_project(tmp_path, endpoint="max_attempts = 2\n")
    cassette = tmp_path / "out" / "batch.jsonl"
    with Hostile(behave) as server:
        done, seconds, rss = generate(cfg, server.url, 2, "--record", cassette)
        report = subprocess.run([sys.executable, "-m", "loop", "--config", str(cfg), "report", "--format", "html",
                                 "-o", str(tmp_path / "out" / "report.html")], cwd=ROOT, capture_output=True,
                                text=True, timeout=60)
    assert set(server.auth) == {f"Bearer {KEY}"}  # the key was sent: there was something to leak
    assert done.returncode == 0 and seconds < 40 and rss < MAX_RSS, done.stderr
    assert report.returncode == 0, report.stderr
    rows = candidates(db)
    assert [r["status"] for r in rows] == ["generated"] * 2
    assert "your key is Bearer ***" in rows[0]["reply"] and "def merge" in rows[0]["source"]
    lines = [json.loads(line) for line in cassette.read_text().splitlines()]
    assert [line["status"] for line in lines] == [500, 200, 200]
    assert lines[1]["headers"]["x-echo-authorization"] == "Bearer ***"
    assert "authorization" not in lines[1]["headers"] and "api-key" not in lines[1]["headers"]
    assert_no_key_in_files(tmp_path, done.stdout, done.stderr, report.stdout, report.stderr)


# ---------------------------------------------------------------- 5. what the endpoint claims never beats the budget


def test_claimed_usage_never_beats_the_budget(tmp_path, monkeypatch):
    """Negative, absurd and non-integer usage are unknown; an answer of unknown usage costs max_tokens (at 1 a
    token here): a budget of 350 buys 3 samples of 8, however much the endpoint claims to refund."""
    claims = [(-8000, -8000), (10**12, 10**12), ("12", 1.5)]

    def behave(h, n):
        h.send(200, completion(usage=claims[n % 3]))

    cfg, db = tmp_project(tmp_path, endpoint="max_tokens = 100\nprompt_price = 0.0\ncompletion_price = 1000000.0\n")
    monkeypatch.setenv("LOOP_API_KEY", KEY)
    config = config_mod.load(cfg, env={**os.environ, "OPENAI_API_KEY": ""})
    tracemalloc.start()
    start = time.monotonic()
    try:
        with Hostile(behave) as server:
            result = run_batch(config, ["merge_intervals_py"], origin=Origin(server.url, "m"), samples=8,
                               grade_now=False, budget=350.0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert time.monotonic() - start < 40 and peak < 50 * MiB
    assert len(server.auth) == 3 and result.candidates == 8
    rows = candidates(db)
    assert [r["status"] for r in rows] == ["generated"] * 3 + ["not_asked"] * 5
    asked = requests(db)
    assert [(r["prompt_tokens"], r["completion_tokens"], r["billed_completion_tokens"]) for r in asked] == \
        [(None, None, 100)] * 3
    with RunStore(db) as store:
        assert store.spending(1)["spent"] == 300.0 <= 350.0
    assert_no_key_in_files(tmp_path)


# ---------------------------------------------------------------- 6. the smaller holes


def test_content_parts_bom_and_a_truncated_reply(tmp_path):
    """The newer content shape (a list of parts), a leading BOM before the fence, finish_reason `length`."""
    parts = [{"type": "text", "text": "\ufeff```python\n"}, {"type": "text", "text": f"{CODE}```"}]

    def behave(h, n):
        body = json.loads(completion(finish="length" if n == 0 else "stop"))
        body["choices"][0]["message"]["content"] = parts
        h.send(200, json.dumps(body).encode())

    cfg, db = tmp_project(tmp_path)
    with Hostile(behave) as server:
        done, seconds, rss = generate(cfg, server.url, 2)
    assert done.returncode == 0 and seconds < 40 and rss < MAX_RSS, done.stderr
    rows = candidates(db)
    assert [(r["status"], r["finish_reason"], r["truncated"]) for r in rows] == [
        ("generated", "length", 1), ("generated", "stop", 0)]
    assert all(r["source"] and "def merge" in r["source"] and not r["reply"].startswith("\ufeff") for r in rows)
    assert_no_key_in_files(tmp_path, done.stdout, done.stderr)


def test_a_kill_mid_request_leaves_its_request_row(tmp_path):
    """kill -9 while a request is on the server (it may be billed): its `requests` row is already there."""
    arrived, release = threading.Event(), threading.Event()

    def behave(h, n):
        arrived.set()
        release.wait(30)

    cfg, db = tmp_project(tmp_path)
    env = {**os.environ, "LOOP_API_KEY": KEY}
    with Hostile(behave) as server:
        proc = subprocess.Popen([sys.executable, "-m", "loop", "--config", str(cfg), "generate", "--task",
                                 "merge_intervals_py", "--samples", "1", "--base-url", server.url, "--model", "m"],
                                cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            assert arrived.wait(30), "the request never reached the server"
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(10)
        finally:
            release.set()
            if proc.poll() is None:
                proc.kill()
            proc.stderr.close()
    (row,) = requests(db)
    assert (row["error_class"], row["status_code"], row["attempt"]) == ("in_flight", None, 1)
    assert row["task"] == "merge_intervals_py" and row["started_at"]
    assert_no_key_in_files(tmp_path)


def test_refusals_name_the_variable_that_held_the_key(tmp_path):
    def behave(h, n):
        h.send(401, b'{"error": {"message": "invalid key"}}')

    cfg, db = tmp_project(tmp_path)
    with Hostile(behave) as server:
        done, seconds, rss = generate(cfg, server.url, 1)
    assert done.returncode == 2 and seconds < 40 and rss < MAX_RSS
    (line,) = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert "check the API key in $LOOP_API_KEY" in line and "OPENAI_API_KEY" not in line
    assert_no_key_in_files(tmp_path, done.stdout, done.stderr)


@pytest.mark.parametrize("line", ["max_pause = 0.0", "attempt_timeout = inf", "min_requests_per_minute = nan",
                                  "max_response_bytes = -1"])
def test_a_cap_that_is_no_cap_is_a_config_error(tmp_path, line):
    cfg = tmp_path / "config.toml"
    cfg.write_text(f"[endpoint]\n{line}\n")
    with pytest.raises(ConfigError, match=rf"{cfg}: key 'endpoint.{line.split()[0]}' must be a finite number more"):
        config_mod.load(cfg, env={})
