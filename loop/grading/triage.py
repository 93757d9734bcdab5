"""Repeat-k triage: attempts become a verdict; unstable baseline fixtures and quarantined checks step aside.

The verdict rules: more than half infra -> inconclusive; no pass -> stable_fail; mixed -> flaky;
all pass with several output digests -> stable_pass_varying; else stable_pass.
"""

from __future__ import annotations

import datetime as dt
import tomllib
from dataclasses import dataclass
from pathlib import Path

from loop import verdicts as V
from loop.errors import QuarantineError
from loop.grading.model import Attempt, Check


def unstable_fixtures(attempts: list[Attempt]) -> set[str]:
    """Named tests whose baseline outcome changed between repeats."""
    seen: dict[str, set] = {}
    for a in attempts:
        if a.status == V.INFRA_UNKNOWN:
            continue
        for c in a.checks:
            if c.category == "test" and c.baseline is not None:
                seen.setdefault(c.check, set()).add(c.baseline)
    return {name for name, outs in seen.items() if len(outs) > 1}


def settle(attempts: list[Attempt]) -> set[str]:
    """Set each graded attempt's status from the checks that decide it; return the excluded fixtures."""
    unstable = unstable_fixtures(attempts)
    for a in attempts:
        if a.status == V.INFRA_UNKNOWN:
            continue
        for c in a.checks:
            if c.check in unstable:
                c.excluded = True
        failing = [c for c in a.checks if not c.passed and c.decides]
        a.status = V.FAIL if failing else V.PASS
        a.reason = failing[0].check if failing else None
    return unstable


def verdict(attempts: list[Attempt]) -> str:
    graded = [a for a in attempts if a.status != V.INFRA_UNKNOWN]
    if (len(attempts) - len(graded)) * 2 > len(attempts) or not graded:
        return V.INCONCLUSIVE
    passes = sum(a.status == V.PASS for a in graded)
    if passes == 0:
        return V.STABLE_FAIL
    if passes < len(graded):
        return V.FLAKY
    if len({a.digest for a in graded}) > 1:
        return V.STABLE_PASS_VARYING
    return V.STABLE_PASS


def summarize_tests(attempts: list[Attempt], unstable: set[str]) -> list[Check]:
    """One grade-level row per named test: stable baseline outcome, candidate outcome over repeats."""
    rows: dict[str, Check] = {}
    outcomes: dict[str, set] = {}
    for a in attempts:
        if a.status == V.INFRA_UNKNOWN:
            continue
        for c in a.checks:
            if c.category != "test":
                continue
            outcomes.setdefault(c.check, set()).add(c.candidate)
            rows.setdefault(c.check, c)
    out = []
    for name, first in rows.items():
        outs = outcomes[name]
        cand = outs.pop() if len(outs) == 1 else "flaky"
        row = Check(**{**first.__dict__})
        row.candidate = cand
        row.passed = cand == V.PASS
        row.excluded = name in unstable
        if row.excluded:
            row.transition = None
            row.detail = "unstable fixture: its baseline outcome varied between repeats; not graded against"
        else:
            row.transition = transition(row.baseline, V.PASS if row.passed else V.FAIL)
        out.append(row)
    return out


@dataclass(frozen=True)
class Quarantine:
    task: str
    check: str
    reason: str
    owner: str
    opened: dt.date
    expires: dt.date


QUARANTINE_KEYS = {"task", "check", "reason", "owner", "opened", "expires"}


def load_quarantine(path: Path, today: dt.date | None = None) -> list[Quarantine]:
    """Read harness/quarantine.toml; an expired entry is an error until renewed or removed."""
    if not path.is_file():
        return []
    text = path.read_text(encoding="utf-8")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise QuarantineError(f"{path}: not valid TOML ({exc})") from None
    entries = data.get("entry", [])
    lines = [i + 1 for i, l in enumerate(text.splitlines()) if l.strip() == "[[entry]]"]
    out = []
    for n, e in enumerate(entries):
        where = f"{path}:{lines[n] if n < len(lines) else '?'}"
        missing = QUARANTINE_KEYS - set(e)
        if missing or set(e) - QUARANTINE_KEYS:
            bad = sorted(missing) or sorted(set(e) - QUARANTINE_KEYS)
            raise QuarantineError(f"{where}: entry {'lacks' if missing else 'has unknown'} key '{bad[0]}'")
        dates = []
        for key in ("opened", "expires"):
            value = e[key]
            if isinstance(value, str):
                try:
                    value = dt.date.fromisoformat(value)
                except ValueError:
                    raise QuarantineError(f"{where}: '{key}' is not a date: {e[key]!r}") from None
            if not isinstance(value, dt.date):
                raise QuarantineError(f"{where}: '{key}' is not a date: {e[key]!r}")
            dates.append(value)
        out.append(Quarantine(str(e["task"]), str(e["check"]), str(e["reason"]), str(e["owner"]), *dates))
    today = today or dt.date.today()
    expired = [q for q in out if q.expires < today]
    if expired:
        raise QuarantineError("expired quarantine: " + ", ".join(f"{q.task}/{q.check}" for q in expired))
    return out


def transition(baseline: str | None, candidate: str) -> str | None:
    if baseline is None:
        return None
    if baseline == V.FAIL:
        return V.REPAIRED if candidate == V.PASS else V.STILL_BROKEN
    return V.PRESERVED if candidate == V.PASS else V.REGRESSED
