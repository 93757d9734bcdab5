"""The batch loop's two figures, each measured side by side in one run.

1. Overlap: a batch against a local server with fixed latency, timed three ways — generation only,
   grading only (of the stored batch) and pipelined (`loop run`) — and the ratio
   pipelined / max(generation, grading) (goal <= 1.15: the batch takes about as long as the slower half).
2. Memory and scale: the peak RSS of `loop run` replaying a cassette of 2,000 and of 20,000 candidates
   (k=1, tests only), with the time per candidate of each: flat memory (goal < 150 MiB) and linear time.

Run: .venv/bin/python bench/bench_loop.py [--quick] [--scale-only]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
CODE = (ROOT / "harness" / "tasks" / "merge_intervals_py" / "reference.py").read_text()


def completion(n: int) -> bytes:
    # A distinct comment per reply, so no two candidates are duplicates and each is graded.
    text = f"```python\n{CODE}\n# variant {n}\n```\n"
    return json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": text}}],
                       "usage": {"prompt_tokens": 10, "completion_tokens": 10}}).encode()


def serve(latency: float) -> ThreadingHTTPServer:
    counter = {"n": 0}
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            self.rfile.read(int(self.headers["Content-Length"]))
            with lock:
                counter["n"] += 1
                n = counter["n"]
            time.sleep(latency)
            body = completion(n)
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *a):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd


def loop_cmd(cfg: Path, *args: str) -> tuple[float, str]:
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "loop", "--config", str(cfg), *args], cwd=ROOT, capture_output=True,
                         text=True, check=True)
    return time.perf_counter() - start, out.stdout


def overlap(samples: int, latency: float) -> None:
    httpd = serve(latency)
    url = f"http://127.0.0.1:{httpd.server_port}/v1"
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "harness").symlink_to(ROOT / "harness")
        cfg = tmp / "config.toml"
        cfg.write_text(f'[loop]\ndb = "{tmp / "runs.db"}"\nk = 2\ntrials = 100\nconcurrency = 2\n'
                       "[endpoint]\nmax_concurrency = 2\nmodel = \"bench\"\n")
        common = ["--task", "merge_intervals_py", "--samples", str(samples), "--base-url", url, "--json"]
        gen, out = loop_cmd(cfg, "generate", *common)
        batch = json.loads(out)["batch_id"]
        grade_only, _ = loop_cmd(cfg, "grade", "--batch", str(batch), "--json")
        both, _ = loop_cmd(cfg, "run", *common)
    httpd.shutdown()
    slower = max(gen, grade_only)
    print(f"overlap: {samples} candidates, {latency * 1000:.0f} ms latency, 2 requests in flight, 2 graders: "
          f"generation {gen:.1f}s, grading {grade_only:.1f}s, pipelined {both:.1f}s; "
          f"pipelined / max = {both / slower:.2f} (goal <= 1.15)")


def write_cassette(path: Path, n: int) -> Path:
    """A cassette of n distinct correct merge_intervals_py repairs, for model "bench" (what `loop run --replay` asks)."""
    from loop import config, kinds, tasks
    from loop.ask.cassette import exchange
    from loop.run.settings import sandbox_config

    cfg0 = config.load(ROOT / "config.toml")
    task = tasks.load(ROOT, "merge_intervals_py")
    body = {"model": "bench", "messages": kinds.get(task.kind).prompt(task, sandbox_config(cfg0)), "temperature": cfg0.endpoint.temperature,
            "max_tokens": cfg0.endpoint.max_tokens, "n": 1}
    with path.open("w") as f:
        for i in range(n):
            f.write(json.dumps(exchange(body, 200, completion(i).decode())) + "\n")
    return path


def memory(n: int) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "harness").symlink_to(ROOT / "harness")
        cassette = write_cassette(tmp / "big.jsonl", n)
        cfg = tmp / "config.toml"
        cfg.write_text(f'[loop]\ndb = "{tmp / "runs.db"}"\nk = 1\ntrials = 0\nconcurrency = 2\n'
                       "[endpoint]\nmax_concurrency = 8\nmodel = \"bench\"\n")
        start = time.perf_counter()
        code = ("import resource, sys; from loop.cli import cli\n"
                "try:\n    cli(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
                "print('MAXRSS', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)")
        out = subprocess.run([sys.executable, "-c", code, "--config", str(cfg), "run", "--task", "merge_intervals_py",
                              "--samples", str(n), "--replay", str(cassette), "--json"], cwd=ROOT,
                             capture_output=True, text=True, check=True).stdout
        took = time.perf_counter() - start
    peak = int(out.split("MAXRSS")[1]) / 1024
    workers = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    result = json.loads(out.split("MAXRSS")[0].strip().splitlines()[-1])
    print(f"memory: replayed batch of {n} candidates ({result['verdicts']}) in {took:.0f}s "
          f"({1000 * took / n:.1f} ms per candidate): peak RSS of loop {peak:.0f} MiB "
          f"(largest child process so far {workers:.0f} MiB)")
    return took, peak


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="smaller figures, for a smoke run")
    ap.add_argument("--scale-only", action="store_true", help="only the memory and scale figure")
    a = ap.parse_args()
    if not a.scale_only:
        overlap(samples=8 if a.quick else 24, latency=1.0)
    small, large = (200, 2000) if a.quick else (2000, 20000)
    (t1, m1), (t2, m2) = memory(small), memory(large)
    print(f"scale: {large} vs {small} candidates: time per candidate x{(t2 / large) / (t1 / small):.2f} "
          f"(1.00 = linear), peak RSS {m1:.0f} -> {m2:.0f} MiB (goal < 150 MiB)")


if __name__ == "__main__":
    main()
