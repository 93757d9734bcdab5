"""Benchmark: how close the Endpoint's client-side limits run to a strict server rate limit without tripping it.

A local server answers 429 above N requests in any sliding 1 s window; the client should reach >= 0.95 of it with zero 429s.

Run: .venv/bin/python bench/bench_endpoint.py [--rpm 600] [--requests 250] [--latency 0.05] [--concurrency 8]
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import multiprocessing
import multiprocessing.connection
import sys
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from loop.endpoint import Completion, Endpoint, EndpointSettings, RequestRecord  # noqa: E402

BODY = json.dumps(
    {"choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}}],
     "usage": {"prompt_tokens": 3, "completion_tokens": 1}}
).encode()


class RateLimitedServer:
    """Accepts at most `per_second` requests in any sliding 1 s window; answers 429 above it."""

    def __init__(self, per_second: int, latency: float) -> None:
        self.accepted: collections.deque[float] = collections.deque()
        self.ok = 0
        self.refused = 0
        self.lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # like real servers; otherwise delayed ACKs add ~40 ms jitter

            def log_message(self, *args: object) -> None:
                pass

            def parse_request(self) -> bool:
                self.arrived = time.monotonic()  # as soon as the request line is in
                return super().parse_request()

            def do_GET(self) -> None:  # health check, used to warm the server up; never counted
                self.send_response_only(204)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length", 0)))
                now = self.arrived
                with outer.lock:
                    while outer.accepted and outer.accepted[0] <= now - 1.0:
                        outer.accepted.popleft()
                    allowed = len(outer.accepted) < per_second
                    if allowed:
                        outer.accepted.append(now)
                        outer.ok += 1
                    else:
                        outer.refused += 1
                if allowed:
                    time.sleep(latency)
                    status, data, extra = 200, BODY, {}
                else:
                    status, data, extra = 429, b'{"error": {"message": "rate limited"}}', {"Retry-After": "1"}
                self.send_response_only(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in extra.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

        class Server(ThreadingHTTPServer):
            daemon_threads = True
            block_on_close = False

        self.httpd = Server(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"


def serve(conn: multiprocessing.connection.Connection, per_second: int, latency: float) -> None:
    """Child process: run the server (out of the client's GIL, like a real one) until told to stop."""
    server = RateLimitedServer(per_second, latency)
    server.thread.start()
    # A production server is warm: pay this fresh process's first-request costs (thread start, lazy
    # imports, ~40 ms) here, or the first counted request lands late and bunches with the next ones.
    urllib.request.urlopen(server.base_url + "/health", timeout=5).close()
    conn.send(server.base_url)
    conn.recv()
    server.httpd.shutdown()
    conn.send((server.ok, server.refused))


async def run(args: argparse.Namespace, base_url: str) -> tuple[int, float, list[RequestRecord]]:
    records: list[RequestRecord] = []
    settings = EndpointSettings(
        base_url=base_url, model="bench", api_key="bench-key", max_tokens=16,
        requests_per_minute=args.rpm, max_concurrency=args.concurrency, read_timeout=10.0,
    )
    messages = [{"role": "user", "content": "ping"}]
    async with Endpoint(settings, on_request=records.append) as endpoint:
        start = time.monotonic()
        results = await asyncio.gather(*(endpoint.complete(messages, tag=i) for i in range(args.requests)))
        elapsed = time.monotonic() - start
    return sum(isinstance(r, Completion) for r in results), elapsed, records


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rpm", type=int, default=600, help="server limit and client requests_per_minute")
    parser.add_argument("--requests", type=int, default=250, help="requests to send (~25 s at 600 rpm)")
    parser.add_argument("--latency", type=float, default=0.05, help="server latency per request, seconds")
    parser.add_argument("--concurrency", type=int, default=8, help="client max_concurrency")
    args = parser.parse_args()

    parent, child = multiprocessing.Pipe()
    process = multiprocessing.Process(target=serve, args=(child, args.rpm // 60, args.latency), daemon=True)
    process.start()
    try:
        done, elapsed, _records = asyncio.run(run(args, parent.recv()))
    finally:
        parent.send("stop")
        _, server_refused = parent.recv()
        process.join(5)
    achieved = done / elapsed * 60.0
    refused = server_refused  # the server's count; the client's RequestRecords show the same 429s
    print(
        f"endpoint: achieved {achieved / args.rpm:.2f} of limit ({achieved:.0f}/{args.rpm} rpm), "
        f"{refused} self-inflicted 429s ({done}/{args.requests} ok in {elapsed:.1f}s)"
    )


if __name__ == "__main__":
    main()
