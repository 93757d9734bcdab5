"""Task kinds and executors are additions behind one interface each: the shipped `answer` kind, a kind
registered by a third-party package through the `loop.kinds` entry points, and the executors giving the
grades `loop grade` gives."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from loop.executors.base import TaskRef, grade_ref
from loop.executors.local import InlineExecutor, LocalExecutor
from loop.kinds.function.fork import ForkExecutor

from loop import kinds, tasks
from loop import verdicts as V
from loop.errors import TaskError
from loop.grading.model import Options
from loop.kinds import grade
from loop.sandbox import SandboxConfig

ROOT = Path(__file__).resolve().parents[2]


def _project(tmp_path: Path, name: str, toml: str) -> Path:
    folder = tmp_path / "harness" / "tasks" / name
    folder.mkdir(parents=True)
    (folder / "task.toml").write_text(textwrap.dedent(toml))
    (tmp_path / "config.toml").write_text(f'[loop]\ndb = "{tmp_path / "runs.db"}"\nk = 3\ntrials = 0\n')
    return tmp_path


CAPITAL = '''\
    name = "capital"
    kind = "answer"
    description = "What is the capital of France?"
    accepted = ["Paris"]
'''


def test_the_answer_kind_grades_through_the_cli(tmp_path, loop_cli):
    proj = _project(tmp_path, "capital", CAPITAL)
    config = proj / "config.toml"
    (tmp_path / "right.txt").write_text("  paris\n")
    (tmp_path / "wrong.txt").write_text("Lyon\n")
    code, out = loop_cli("grade", "capital", tmp_path / "right.txt", "--json", config=config)
    assert code == 0 and json.loads(out.strip().splitlines()[-1])["verdict"] == V.STABLE_PASS
    code, out = loop_cli("grade", "capital", tmp_path / "wrong.txt", "--json", config=config)
    g = json.loads(out.strip().splitlines()[-1])
    assert code == 1 and g["verdict"] == V.STABLE_FAIL and g["failures"][0]["check"] == "test:answer"
    code, out = loop_cli("tasks", "check", config=config)
    assert code == 0 and "ok   capital" in out


def test_a_malformed_or_unknown_kind_is_a_one_line_error(tmp_path, loop_cli):
    proj = _project(tmp_path, "capital", CAPITAL.replace('accepted = ["Paris"]', "accepted = []"))
    code, out = loop_cli("tasks", "check", config=proj / "config.toml")
    assert code == 2 and "key 'accepted' must be a non-empty list" in out
    other = _project(tmp_path / "b", "capital", CAPITAL.replace('kind = "answer"', 'kind = "telepathy"'))
    code, out = loop_cli("tasks", "check", config=other / "config.toml")
    assert code == 2 and "unknown task kind 'telepathy'" in out and "function" in out and "answer" in out


PLUGIN = '''\
    """A third-party kind: the answer must be shouted (upper case)."""
    from loop.kinds.answer import AnswerKind


    class Shout(AnswerKind):
        name = "shout"

        def grade(self, task, source, cfg, opts, quarantined=frozenset()):
            shouted = source if source and source.strip() == source.strip().upper() else ""
            return super().grade(task, shouted, cfg, opts, quarantined)
'''


def test_a_kind_registered_through_entry_points_works(tmp_path):
    """A package installed beside loop (here: a module and its .dist-info on PYTHONPATH) declares a kind in
    the `loop.kinds` entry-point group; `loop grade` loads it by the name its task.toml gives."""
    site = tmp_path / "site"
    (site / "loop_shout-0.1.dist-info").mkdir(parents=True)
    (site / "loop_shout.py").write_text(textwrap.dedent(PLUGIN))
    (site / "loop_shout-0.1.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: loop-shout\nVersion: 0.1\n")
    (site / "loop_shout-0.1.dist-info" / "entry_points.txt").write_text("[loop.kinds]\nshout = loop_shout:Shout\n")
    proj = _project(tmp_path / "proj", "capital", CAPITAL.replace('kind = "answer"', 'kind = "shout"').replace('"Paris"', '"PARIS"'))
    env = {**os.environ, "PYTHONPATH": str(site)}

    def run(answer: str) -> tuple[int, dict]:
        (tmp_path / "a.txt").write_text(answer)
        p = subprocess.run([sys.executable, "-m", "loop", "--config", str(proj / "config.toml"), "grade", "capital",
                            str(tmp_path / "a.txt"), "--json"], capture_output=True, text=True, env=env, cwd=ROOT)
        assert p.stdout.strip(), p.stderr
        return p.returncode, json.loads(p.stdout.strip().splitlines()[-1])

    code, g = run("PARIS")
    assert g.get("verdict") == V.STABLE_PASS, g
    code, g = run("Paris")  # right for `answer`, wrong for `shout`: the plugin's grade decided
    assert code == 1 and g["verdict"] == V.STABLE_FAIL
    assert "shout" not in kinds.names()  # this process never saw the plugin: it came through the entry point


@pytest.mark.sandbox
def test_an_executor_gives_the_grades_loop_grade_gives(tmp_path):
    """The inline and local executors (and the fork executor, where it accepts) return the same verdicts and
    failures as grade(); a task folder changed after its ref was made (for another process) is refused, not graded."""
    cfg = SandboxConfig()
    task = tasks.load(ROOT, "merge_intervals_py")
    examples = ROOT / "harness" / "examples" / "merge_intervals_py"
    sources = [p.read_text() for p in sorted(examples.glob("*.py"))]
    opts = Options(k=2, trials=0, seed=3)
    want = [(g.verdict, g.failures()) for g in (grade(task, s, cfg, opts) for s in sources)]
    inline = InlineExecutor(cfg)
    local = LocalExecutor(cfg, workers=2)
    fork = ForkExecutor(cfg, workers=1, k=2)
    try:
        # its relations ask for reordered inputs and read arguments back: not decidable from one batch
        assert fork.accepts(task, opts) and not fork.accepts(task, Options(k=2, trials=200))
        for ex in (inline, local, fork):
            got = [ex.submit(task, s, opts).result(timeout=120) for s in sources]
            assert [(g.verdict, g.failures()) for g in got] == want, type(ex).__name__
    finally:
        local.close()
        fork.close()
    answer = _project(tmp_path, "capital", CAPITAL)
    # a ref made elsewhere (another process, another host): this process has not loaded the task
    stale = TaskRef.of(tasks.load(answer, "capital"))
    (answer / "harness" / "tasks" / "capital" / "task.toml").write_text(textwrap.dedent(CAPITAL).replace("Paris", "Lyon"))
    with pytest.raises(TaskError, match="changed on disk"):
        grade_ref(stale, "Paris", cfg, opts, frozenset())
