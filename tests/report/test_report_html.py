"""The HTML page of `loop report`, rendered in a real browser: two batches from two models asked through the
scripted server and graded for real, compared on one page that headless Chromium (Debian's `chromium`,
installed by `make deps`) must show with its tables and chart; the screenshot must not be blank."""

import pytest

import os
import re
import shutil
import struct
import subprocess
import sys
import zlib
from html.parser import HTMLParser

import sqlite_utils

from conftest import ROOT, ChatServer, repair_reply, tmp_project

REPLIES = {"alpha": ["correct_repair", "descending_order", "example_only"], "beta": ["unchanged", "correct_repair"]}


def _two_batches(tmp_path):
    """Batch 1 from model alpha (one repair, two wrong), batch 2 from model beta (unchanged, one repair)."""
    asked = {m: 0 for m in REPLIES}

    def respond(body):
        model = body["model"]
        name = REPLIES[model][asked[model] % len(REPLIES[model])]
        asked[model] += 1
        return repair_reply(name, 800, 300)

    cfg, db = tmp_project(tmp_path, trials=30, endpoint="prompt_price = 2.0\ncompletion_price = 10.0\n"
                                                        "max_concurrency = 1\n")
    server = ChatServer(respond)
    try:
        for model in REPLIES:
            done = subprocess.run([sys.executable, "-m", "loop", "--config", str(cfg), "run", "--task",
                                   "merge_intervals_py", "--samples", str(len(REPLIES[model])), "--base-url",
                                   server.url, "--model", model, "--min-coverage", "0"],
                                  capture_output=True, text=True, timeout=600, env={**os.environ, "OPENAI_API_KEY": "k"})
            assert done.returncode == 0, done.stderr
    finally:
        server.close()
    return cfg, db


class _Dom(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.ids, self.classes, self.texts, self.attrs = [], set(), [], [], []
        self._in_svg_text = 0
        self.svg_texts = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs += attrs
        for k, v in attrs:
            if k == "id":
                self.ids.add(v)
            if k == "class":
                self.classes += (v or "").split()
        self._in_svg_text += tag == "text"

    def handle_endtag(self, tag):
        self._in_svg_text -= tag == "text"

    def handle_data(self, data):
        self.texts.append(data)
        if self._in_svg_text:
            self.svg_texts.append(data)


def png_pixels(data: bytes) -> tuple[int, int, list[bytes]]:
    """Width, height and the RGB(A) pixels of an 8-bit truecolour PNG (what Chromium writes)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    assert depth == 8 and colour in (2, 6) and interlace == 0, header
    bpp = 3 if colour == 2 else 4
    raw, stride, rows, prev = zlib.decompress(idat), width * bpp, [], bytearray(width * bpp)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, [row[i:i + bpp] for row in rows for i in range(0, stride, bpp)]


def chromium(*args, profile):
    exe = shutil.which("chromium")
    assert exe, "chromium is not installed: run `make deps` (the Makefile's APT line installs it)"
    return subprocess.run([exe, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                           f"--user-data-dir={profile}", *args], capture_output=True, timeout=180)


@pytest.mark.slow
def test_the_comparison_page_renders_in_chromium_with_tables_chart_diffs_and_cost(tmp_path):
    cfg, db = _two_batches(tmp_path)
    page = tmp_path / "report.html"
    shown = subprocess.run([sys.executable, "-m", "loop", "--config", str(cfg), "report", "--compare", "1", "2",
                            "--format", "html", "-o", str(page)], capture_output=True, text=True, timeout=120)
    assert shown.returncode == 0, shown.stderr
    source = page.read_text()
    # self-contained: no scripts, nothing fetched, no address at all
    assert "<script" not in source and "url(" not in source and "http" not in source
    assert not re.search(r"""(src|href)\s*=""", source)

    dumped = chromium("--dump-dom", page.as_uri(), profile=tmp_path / "profile")
    assert dumped.returncode == 0, dumped.stderr[-2000:]
    dom = _Dom()
    dom.feed(dumped.stdout.decode())
    assert {"compare", "rates", "cost", "chart-batch", "chart-model", "chart-seed"} <= dom.ids
    assert "script" not in dom.tags and dom.tags.count("svg") == 3 and dom.tags.count("circle") >= 3
    text = " ".join(dom.texts)
    # the comparison: alpha 1 of 3 against beta 1 of 2, no detectable difference at these sizes
    assert "1/3 (0.33)" in text and "1/2 (0.50)" in text and "no detectable difference" in text
    # the chart: axes labelled in SVG <text>, the legend names both models, values beside the dots
    svg = " ".join(dom.svg_texts)
    assert "pass rate" in svg and "alpha" in svg and "beta" in svg and "95% interval" in svg and "0.33" in svg
    # cost per batch from the scripted tokens: 3 and 2 requests of 800 + 300 tokens at 2 and 10 per million
    assert "0.0138" in text and "0.0092" in text
    # per task: the transition matrix, each failing candidate's diff and minimal counterexample
    assert "matrix" in dom.classes and "repaired" in dom.classes and "regressed" in dom.classes
    # rows removed and added, and inside a changed line the characters it changed (`<` became `<=`)
    assert {"diff", "del", "ins"} <= set(dom.classes) and "ins" in dom.tags
    assert "minimal counterexample" in text or "expected" in text
    failing = sqlite_utils.Database(db).execute(
        "select count(*) from candidates where verdict in ('stable_fail', 'flaky') and duplicate_of is null").fetchone()[0]
    assert failing >= 2 and sum(1 for c in dom.classes if c == "candidate") == failing

    shot = tmp_path / "page.png"
    taken = chromium(f"--screenshot={shot}", "--window-size=1280,1600", page.as_uri(), profile=tmp_path / "profile")
    assert taken.returncode == 0 and shot.is_file(), taken.stderr[-2000:]
    width, height, pixels = png_pixels(shot.read_bytes())
    assert (width, height) == (1280, 1600)
    colours = {p[:3] for p in pixels}
    inked = sum(1 for p in pixels if p[:3] != b"\xff\xff\xff")
    assert len(colours) > 50, len(colours)  # text, the table shading and both models' colours
    assert inked > 0.03 * len(pixels), inked


def test_a_candidate_cannot_write_markup_into_the_page(tmp_path):
    """Every byte a candidate controls is text on the page: its source, its outputs and its check details."""
    from loop.report import html as report_html
    from loop.store.db import RunStore

    db = tmp_path / "runs.db"
    with RunStore(db) as store:
        b = store.start_batch("grade", seed=1, model="<b>m</b>")
        hostile = "def merge_intervals(x):\n    return '<script>alert(1)</script><img src=x>'\n"
        cid = store.add_candidate(b, "merge_intervals_py", 0, source=hostile, status="graded")
        store.db["candidates"].update(cid, {"verdict": "stable_fail", "reason": "test:<i>t</i>"})
        store.db["checks"].insert({"candidate_id": cid, "check": "test:<i>t</i>", "kind": "test", "passed": 0,
                                   "baseline": "fail", "candidate": "fail", "transition": "still_broken",
                                   "input": "\"<svg onload=x>\"", "expected": "1", "actual": "\"</dl><script>\""})
    page = report_html.render(db, root=ROOT)
    assert "<script" not in page and "<img" not in page and "<svg onload" not in page and "<i>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "&lt;b&gt;m&lt;/b&gt;" in page
    assert "<del>" in page or "class='del'" in page  # diffed against the task's baseline
