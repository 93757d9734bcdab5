"""The same verdicts on both paths, shown: a table of candidates for HumanEval/3 graded through the fork
servers (ForkPool) and through fresh sandboxes (`grade`, the slow path ForkPool falls back to), with the
trials split across repeats (confirmation, replays and the split-trial timeout rule all run). Each row's
verdict and failed checks are the same on both paths, and are the row's own."""

from __future__ import annotations

from pathlib import Path

import pytest

from loop.kinds.function.fork import ForkPool
from loop.grading.model import Options
from loop.kinds import grade
from loop.sandbox import SandboxConfig

from conftest import HE003_RIGHT, import_he003

CANDIDATES = Path(__file__).resolve().parents[1] / "adversarial" / "candidates"
RIGHT = HE003_RIGHT
TABLE = {  # name: (body after the contract, verdict, failed checks)
    "right": (RIGHT, "stable_pass", set()),
    "wrong": ("    return sum(operations) < 0\n", "stable_fail", {"relation:agrees_with_reference", "test:assert_03"}),
    "stateful": ((CANDIDATES / "he003_memo.py").read_text(), "stable_fail", {"relation:agrees_with_reference"}),
    "mutating": ((CANDIDATES / "he003_float_args.py").read_text(), "stable_fail",
                 {"relation:arguments_agree", "relation:agrees_with_reference"}),  # 2**60 as a float too
    "slow": ("    while True:\n        pass\n", "stable_fail", {"timeout"}),
    "crashing": ("    import os\n    os._exit(3)\n", "stable_fail", {"crash"}),
    "flooding": ("    print('x' * (2 << 20))\n" + RIGHT, "stable_fail", {"resource"}),
    # the answer follows the repeat's PYTHONHASHSEED: wrong under some repeats' environments only
    "nondeterministic": ("    if hash('b') % 2 and len(operations) > 3:\n        return not operations\n" + RIGHT,
                         "flaky", {"relation:agrees_with_reference", "test:assert_03", "test:assert_05",
                                   "test:assert_06"}),
}


@pytest.fixture(scope="module")
def task(tmp_path_factory):
    return import_he003(tmp_path_factory.mktemp("agree"))


def _source(task, body: str) -> str:
    return body if body.startswith("# expect:") else task.contract + body  # a candidate file, else a body


def _outcome(g) -> tuple[str, set[str]]:
    return g.verdict, {f["check"] for f in g.failures()}


@pytest.mark.sandbox
@pytest.mark.slow
def test_the_fork_servers_and_fresh_sandboxes_give_every_candidate_the_same_verdict(task, monkeypatch):
    cfg, opts = SandboxConfig(enabled=True), Options(k=3, trials=200, seed=2)
    slow = []
    monkeypatch.setattr(ForkPool, "_slow", lambda self, item: slow.append(item) or self._answer(
        item, exc=AssertionError("the fork servers sent a candidate to the slow path")))
    with ForkPool(cfg, servers=3, k=opts.k) as pool:
        assert pool.accepts(task, opts)
        futures = {name: pool.submit(task, _source(task, body), opts) for name, (body, _, _) in TABLE.items()}
    forked = {name: _outcome(f.result()) for name, f in futures.items()}
    fresh = {name: _outcome(grade(task, _source(task, body), cfg, opts)) for name, (body, _, _) in TABLE.items()}
    assert forked == fresh
    assert forked == {name: (verdict, checks) for name, (_, verdict, checks) in TABLE.items()}
    assert slow == []
