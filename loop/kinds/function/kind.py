"""The `function` kind (the default): call a Python or C++ function with arguments and compare the values it
returns with goldens, named tests on the baseline and the candidate, and relations (loop/grading)."""

from __future__ import annotations

from pathlib import Path

from loop.grading.model import Grade, Options
from loop.kinds.function.grade import check_polarity, demonstrate, grade_function
from loop.kinds.function.task import load_function
from loop.kinds.task import Task
from loop.prompts.render import extract_code, render_repair
from loop.sandbox import SandboxConfig


class FunctionKind:
    name = "function"

    @property
    def pool(self):
        """Fork servers for Python function tasks (loaded when a batch asks: the executor is its own package)."""
        from loop.kinds.function.fork import ForkExecutor

        return ForkExecutor

    @property
    def outputs(self):
        """A solution's replies on many inputs through fork servers (`outputs(cfg).run(...)`): how EvalPlus's
        numbers run (loop.datasets.evalplus.numbers) without a sandbox start per solution."""
        from loop.kinds.function.fork.outputs import Outputs

        return Outputs

    def load(self, folder: Path, meta: dict) -> Task:
        return load_function(folder, meta)

    def grade(self, task: Task, source: str | None, cfg: SandboxConfig, opts: Options,
              quarantined: frozenset = frozenset()) -> Grade:
        return grade_function(task, source, cfg, opts, quarantined)

    def prompt(self, task: Task, cfg: SandboxConfig) -> list[dict]:
        """The repair prompt: description, contract, baseline and one demonstrated failing example only."""
        example = demonstrate(task, cfg) if task.example else None
        return render_repair(task_name=task.name, description=f"{task.description}\n\nBug report: {task.bug_report}",
                             language=task.language, contract=task.contract, baseline=task.baseline or "",
                             candidate_file=task.candidate_file, example=example)

    def extract(self, task: Task, reply: str) -> str | None:
        return extract_code(reply, task.language)

    def polarity(self, task: Task, cfg: SandboxConfig) -> list[str]:
        return check_polarity(task, cfg)


KIND = FunctionKind()
