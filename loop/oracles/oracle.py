"""A task's relations.py, read once into one explicit `Oracle`: every name the grader may look up, with its
default, checked when the task's oracle loads, so a malformed file is a TaskError naming it.
"""

from __future__ import annotations

import importlib.util
import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields
from pathlib import Path
from types import ModuleType
from typing import Any

from loop.errors import TaskError
from loop.oracles.engine import DEFAULT_MAX_SIZE, Relation, generic_shrink

# Defaults for oracles that discard reference failures (differential fuzzing, see loop.oracles.fuzz).
REFERENCE_LIMIT = 1.0  # seconds the reference may spend on one input before it is discarded
TIME_FLOOR = 5.0       # seconds the candidate always gets for the fuzzed batch
TIME_FACTOR = 20.0     # ... or this many times the reference's time on the same inputs, if larger


@dataclass(frozen=True, eq=False)  # eq=False: hashed by identity, the key of the trial-input cache
class Oracle:
    """What relations.py declares; the module-level name each field is read from is in MODULE_NAMES."""

    relations: tuple[Relation, ...] = ()
    generate: Callable[[random.Random, int], Any] | None = None  # (rng, size) -> one input
    shrink: Callable[[Any], Iterable[Any]] = generic_shrink      # smaller variants of an input
    validate_input: Callable[[Any], str | None] | None = None     # a guard against a broken generator
    admits: Callable[[Any], str | None] | None = None             # an input contract: redraw what it rejects
    canonicalize: Callable[[Any], Any] | None = None              # an output's canonical form (goldens, relations)
    equivalent: Callable[[list, Any, Any], bool] | None = None    # (args, got, want): another right answer?
    argument_lists: bool = False  # an input is a list of positional arguments, called as fn(*x)
    discard_reference_failures: bool = False  # an input the reference rejects is skipped, not a failure
    max_size: int = DEFAULT_MAX_SIZE
    reference_limit: float = REFERENCE_LIMIT
    time_floor: float = TIME_FLOOR
    time_factor: float = TIME_FACTOR
    mutation_allowed: bool = False  # the task lets a solution change its arguments: no relation reads them
    module: ModuleType | None = None  # the module itself, for names only its own task reads (SEEDS, contract)

    def __post_init__(self) -> None:
        if not isinstance(self.mutation_allowed, bool):
            raise ValueError("MUTATION_ALLOWED must be True or False")
        object.__setattr__(self, "relations", tuple(r for r in self.relations
                                                    if not (self.mutation_allowed and getattr(r, "reads_arguments", False))))
        names = []
        for r in self.relations:
            if not isinstance(r, Relation):
                raise ValueError(f"RELATIONS holds {type(r).__name__} {r!r}, not a Relation")
            names.append(r.name)
        if len(set(names)) != len(names):
            raise ValueError(f"relation names must be unique: {names}")
        if self.relations and self.generate is None:
            raise ValueError("RELATIONS needs generate(rng, size) to make their inputs")
        for name in ("generate", "shrink", "validate_input", "admits", "canonicalize", "equivalent"):
            value = getattr(self, name)
            if value is not None and not callable(value):
                raise ValueError(f"{MODULE_NAMES[name]} must be a function, not {type(value).__name__}")
        for name in ("argument_lists", "discard_reference_failures"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{MODULE_NAMES[name]} must be True or False")
        for name in ("max_size", "reference_limit", "time_floor", "time_factor"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0 \
                    or (name == "max_size" and not isinstance(value, int)):
                raise ValueError(f"{MODULE_NAMES[name]} must be a positive number, not {value!r}")

    @classmethod
    def from_module(cls, module: ModuleType) -> Oracle:
        """Read a relations.py module; a name it leaves out keeps the field's default."""
        values: dict[str, Any] = {"module": module}
        for f in fields(cls):
            name = MODULE_NAMES.get(f.name)
            if name is not None and getattr(module, name, None) is not None:
                values[f.name] = getattr(module, name)
        return cls(**values)

    @classmethod
    def load(cls, path: Path) -> Oracle:
        """relations.py is trusted harness code: it runs in the parent, never in the sandbox."""
        spec = importlib.util.spec_from_file_location(f"loop_task_{path.parent.name}", path)
        module = importlib.util.module_from_spec(spec)
        try:
            spec.loader.exec_module(module)
        except Exception as exc:  # a broken oracle is a broken task, reported as such
            raise TaskError(f"{path}: cannot load ({type(exc).__name__}: {exc})") from None
        try:
            return cls.from_module(module)
        except (TypeError, ValueError) as exc:
            raise TaskError(f"{path}: {exc}") from None


# The names a relations.py declares, by field (the file format task folders are written in).
MODULE_NAMES = {
    "relations": "RELATIONS", "generate": "generate", "shrink": "shrink", "validate_input": "validate_input",
    "admits": "admits", "canonicalize": "canonicalize", "equivalent": "equivalent", "argument_lists": "ARGS",
    "discard_reference_failures": "DISCARD_REFERENCE_FAILURES", "max_size": "MAX_SIZE",
    "reference_limit": "REFERENCE_LIMIT", "time_floor": "TIME_FLOOR", "time_factor": "TIME_FACTOR",
    "mutation_allowed": "MUTATION_ALLOWED",
}
