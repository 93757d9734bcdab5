"""Read SWE-bench predictions files (instance_id, model_name_or_path, model_patch), each for an imported
instance; every problem is a one-line error naming the file and the entry, and nothing is graded from such a file."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from loop import jsonl, tasks
from loop.datasets.swebench import META, json_objects
from loop.errors import SwebenchError
from loop.grading.model import text


@dataclass(frozen=True)
class Prediction:
    where: str
    instance_id: str
    model: str
    patch: str | None  # None or "": SWE-bench's empty prediction


def imported(root: Path) -> set[str]:
    """The instance ids imported under root's tasks (their folders hold swebench.json)."""
    return {name for name in tasks.list_tasks(root) if (tasks.tasks_root(root) / name / META).is_file()}


def read_predictions(path: Path, known: set[str]) -> list[Prediction]:
    """SWE-bench predictions (JSONL, a JSON list, or a dict keyed by instance_id): instance_id,
    model_name_or_path, model_patch; each for an imported instance, once per model."""
    out, seen = [], {}
    for where, obj in json_objects(path, "predictions", keyed=True):
        for key in ("instance_id", "model_name_or_path", "model_patch"):
            if key not in obj:
                raise SwebenchError(f"{where}: missing field '{key}'")
        # both name files and rows: one line each, bounded (a NUL once ended the run in a traceback)
        iid = jsonl.one_line(obj, "instance_id", where, SwebenchError)
        model = jsonl.one_line(obj, "model_name_or_path", where, SwebenchError)
        patch = obj["model_patch"]
        if not (patch is None or isinstance(patch, str)):
            raise SwebenchError(f"{where}: field 'model_patch' must be a string or null, got {type(patch).__name__}")
        if iid not in known:
            raise SwebenchError(f"{where}: instance {iid!r} is not imported (run: loop tasks import swebench "
                                "INSTANCES.jsonl --repos DIR)")
        if (model, iid) in seen:  # several models in one file are several runs; one model predicts an instance once
            raise SwebenchError(f"{where}: instance {iid!r} already predicted at {seen[model, iid]} for model {model!r}")
        seen[model, iid] = where
        out.append(Prediction(where, iid, text(model), text(patch)))  # hostile bytes are the patch's failure
    return out


def by_model(preds: list[Prediction]) -> dict[str, list[Prediction]]:
    """The predictions grouped by model_name_or_path, in the file's order: SWE-bench grades (and reports)
    one model per run, so a merged file is one batch per model."""
    out: dict[str, list[Prediction]] = {}
    for p in preds:
        out.setdefault(p.model, []).append(p)
    return out
