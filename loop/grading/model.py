"""Plain data that crosses module boundaries: checks, attempts and grades.

The store receives these dataclasses; grading never sees SQLite or HTTP.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


def text(value):
    """A str fit for SQLite and a terminal: lone surrogates (a candidate may return, raise or print
    "\ud800") become U+FFFD. Anything else is returned as it is."""
    if isinstance(value, str):
        return value.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    return value


@dataclass
class Check:
    check: str  # build | no_change | no_code | golden:<case> | test:<name> | relation:<name> | sanitizer | timeout | crash | resource
    category: str  # build | no_change | no_code | golden | test | relation | sanitizer | fault (runs.db: checks.kind)
    passed: bool
    detail: str = ""
    test_kind: str | None = None
    baseline: str | None = None
    candidate: str | None = None
    transition: str | None = None
    input: Any = None
    expected: Any = None
    actual: Any = None
    minimal: Any = None
    seed: int | None = None
    trial: int | None = None
    quarantined: bool = False
    excluded: bool = False  # an unstable baseline fixture: reported, not graded against
    decided_by: str | None = None  # a repository test: sealed | tripwire-guarded | unguarded (what decided it)

    def __post_init__(self) -> None:
        self.detail = text(self.detail)

    @property
    def decides(self) -> bool:
        return not (self.quarantined or self.excluded)


@dataclass
class Attempt:
    repeat: int
    status: str  # pass | fail | infra_unknown
    reason: str | None
    exit_code: int | None
    digest: str
    duration: float
    seed: int
    env: dict
    checks: list[Check] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.reason = text(self.reason)


@dataclass
class Grade:
    task: str
    verdict: str
    resolved: bool
    k: int
    seed: int
    suite: str
    source_sha256: str
    sandboxed: bool
    attempts: list[Attempt]
    checks: list[Check]  # grade-level view: build/no_change, per-test transitions, first failures
    notes: list[str] = field(default_factory=list)
    # Differential fuzzing's input accounting: generated = kept + contract + reference_error + reference_timeout
    inputs: dict | None = None

    def __post_init__(self) -> None:
        self.notes = [text(n) for n in self.notes]

    @property
    def passes(self) -> int:
        return sum(a.status == "pass" for a in self.attempts)

    @property
    def fails(self) -> int:
        return sum(a.status == "fail" for a in self.attempts)

    @property
    def infra(self) -> int:
        return sum(a.status == "infra_unknown" for a in self.attempts)

    @property
    def digests(self) -> int:
        return len({a.digest for a in self.attempts if a.status == "pass"})

    def failures(self) -> list[dict]:
        """Each failing check once, with its evidence: a check that failed in some repeats only (flaky) has no
        detail of its own, so the first failing attempt's is shown, naming the repeat."""
        seen, out = set(), []
        for c in self.checks:
            if not c.passed and c.decides and c.check not in seen:
                seen.add(c.check)
                out.append({"check": c.check, "detail": c.detail if c.detail.strip() else self._attempt_detail(c.check)})
        return out

    def _attempt_detail(self, check: str) -> str:
        failed = [(a.repeat, c.detail) for a in self.attempts for c in a.checks
                  if c.check == check and not c.passed and c.detail.strip()]
        if not failed:
            return ""
        repeat, detail = failed[0]
        return f"{detail} (repeat {repeat}; failed in {len(failed)} of {len(self.attempts)} repeats)"

    def transitions(self) -> dict:
        counts = {"fail_to_pass": {"repaired": 0, "still_broken": 0}, "pass_to_pass": {"preserved": 0, "regressed": 0}}
        for c in self.checks:
            if c.category == "test" and c.transition and not c.excluded:
                group = "fail_to_pass" if c.test_kind == "f2p" else "pass_to_pass"
                if c.transition in counts[group]:
                    counts[group][c.transition] += 1
        return counts


@dataclass(frozen=True)
class Options:
    """How to grade: the suite of named tests, the seed, relation trials per attempt, k repeats, the sanitizer."""

    suite: str = "full"
    seed: int = 1
    trials: int = 200
    k: int = 5
    sanitize: bool = True
    # False: the trials are a budget per grade, split across the k repeats (each runs every k-th trial; a
    # counterexample is confirmed under every repeat's environment). True: every repeat runs every trial.
    trials_per_repeat: bool = False
    # "loop": a repository patch that edits a test file is refused (touches_tests). "swebench" (`loop grade
    # --predictions`): SWE-bench's rules, the whole patch applied, the test patch's files then reset to what the
    # dataset's test patch makes them, the tests run; what loop would have refused fails the grade beside them.
    rules: str = "loop"

    def part(self, repeat: int) -> tuple[int, int] | None:
        """Repeat `repeat`'s share of the trials (engine.in_part), None where every repeat runs them all."""
        return None if self.trials_per_repeat or self.k == 1 else (repeat, self.k)
