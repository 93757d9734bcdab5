"""The `answer` kind: the candidate is a short plain-text answer, right when it matches one of the accepted
ones (whitespace trimmed, case folded). Nothing runs, so nothing needs a sandbox.

It is the smallest complete `TaskKind`, kept as the worked example for writing one (README, "Adding a task
kind"). A task folder holds only task.toml:

    name = "capital_of_france"
    kind = "answer"
    description = "What is the capital of France?"
    accepted = ["Paris"]
"""

from __future__ import annotations

from pathlib import Path

from loop import verdicts as V
from loop.errors import TaskError
from loop.grading.conclude import conclude
from loop.grading.model import Attempt, Check, Grade, Options
from loop.kinds.task import Task, Test, check_keys
from loop.sandbox import Limits, SandboxConfig, clean_env


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


class AnswerKind:
    name = "answer"

    def load(self, folder: Path, meta: dict) -> Task:
        where = folder / "task.toml"
        accepted = meta.get("accepted")
        if not (isinstance(accepted, list) and accepted and all(isinstance(a, str) and a.strip() for a in accepted)):
            raise TaskError(f"{where}: key 'accepted' must be a non-empty list of non-empty strings")
        check_keys(where, meta, {"name", "kind", "description", "accepted"}, ("description",))
        return Task(name=meta["name"], path=folder, language="text", entry_point="", candidate_file="answer.txt",
                    description=meta["description"], bug_report="", contract=meta["description"],
                    contract_file="task.toml", baseline=None, reference=accepted[0],
                    tests=(Test("answer", "gen", ("smoke", "full"), (), tuple(accepted)),), goldens=(),
                    limits=Limits(), kind=self.name)

    def grade(self, task: Task, source: str | None, cfg: SandboxConfig, opts: Options,
              quarantined: frozenset = frozenset()) -> Grade:
        accepted = task.tests[0].expected
        given = _norm(source or "")
        passed = bool(given) and given in {_norm(a) for a in accepted}
        check = Check("test:answer", "test", passed, "" if passed else f"expected one of {list(accepted)}",
                      test_kind="gen", candidate=V.PASS if passed else V.FAIL, actual=source,
                      quarantined="test:answer" in quarantined)
        attempts = [Attempt(r, V.PASS if passed else V.FAIL, None, None, "answer", 0.0, opts.seed, clean_env(r),
                            [check]) for r in range(opts.k)]
        return conclude(task, source, opts, cfg, attempts)

    def prompt(self, task: Task, cfg: SandboxConfig) -> list[dict]:
        return [{"role": "system", "content": "Reply with the answer only, on one line."},
                {"role": "user", "content": task.description}]

    def extract(self, task: Task, reply: str) -> str | None:
        text = reply.strip()
        return text.splitlines()[0].strip() if text else None

    def polarity(self, task: Task, cfg: SandboxConfig) -> list[str]:
        ok = self.grade(task, task.reference, cfg, Options(k=1, trials=0))
        return [] if ok.verdict == V.STABLE_PASS else [f"{task.name}: the first accepted answer does not pass"]


KIND = AnswerKind()
