"""Rebuild harness/suites/demo_synthesis.jsonl from the curated suites beside it.

Run after editing a suite, prompts/synthesize.md or the endpoint's temperature/max_tokens:
    .venv/bin/python harness/suites/build_cassette.py
tests/run/test_synthesis.py fails while the cassette is out of date.
"""

from pathlib import Path

from loop import config
from loop.run.synthesis import write_curated_cassette

ROOT = Path(__file__).resolve().parents[2]

if __name__ == "__main__":
    print(f"wrote {write_curated_cassette(config.load(ROOT / 'config.toml', env={}))}")
