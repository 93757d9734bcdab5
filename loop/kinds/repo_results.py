"""Per-test outcomes from a test command's structured report, by parser name (`junit`, `go-test-json`).

Reports are written by code that runs next to the candidate, so they are decoded totally: anything
malformed is "no report", never an exception and never a pass.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from loop import verdicts as V

SKIP = "skip"


@dataclass(frozen=True)
class Outcome:
    status: str  # pass | fail | skip
    message: str = ""


def _junit_id(classname: str, name: str, tree: Path | None) -> str:
    """pytest's node id when the class name maps to a file in the tree ("tests.test_x.TestA" ->
    "tests/test_x.py::TestA::name"), else "classname::name" (node --test, other runners)."""
    parts = classname.split(".") if classname else []
    if tree is not None:
        for cut in range(len(parts), 0, -1):
            rel = "/".join(parts[:cut]) + ".py"
            if (tree / rel).is_file():
                return "::".join([rel, *parts[cut:], name])
    return f"{classname}::{name}" if classname else name


def parse_junit(text: str, tree: Path | None = None) -> dict[str, Outcome] | None:
    """JUnit XML (pytest --junitxml, node --test-reporter=junit) via junitparser; None if unreadable."""
    from junitparser import Error, Failure, JUnitXml, Skipped, TestCase

    try:
        xml = JUnitXml.fromstring(text)
    except Exception:  # noqa: BLE001 - malformed XML from the sandbox is "no report", decoded totally
        return None
    out: dict[str, Outcome] = {}
    for elem in xml._elem.iter("testcase"):
        case = TestCase.fromelem(elem)
        test_id = _junit_id(case.classname or "", case.name or "", tree)
        results = list(case.result)
        bad = [r for r in results if isinstance(r, (Failure, Error))]
        if bad:
            message = (bad[0].message or bad[0].text or type(bad[0]).__name__.lower()).strip()
            outcome = Outcome(V.FAIL, message)
        elif any(isinstance(r, Skipped) for r in results):
            outcome = Outcome(SKIP, "skipped")
        else:
            outcome = Outcome(V.PASS)
        if test_id in out and out[test_id].status != V.PASS:
            continue  # a repeated id counts as failing if any of its runs failed
        out[test_id] = outcome
    return out


def parse_go_test_json(text: str, tree: Path | None = None) -> dict[str, Outcome] | None:
    """`go test -json` events: the last pass/fail/skip action per package/test."""
    out: dict[str, Outcome] = {}
    for line in text.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if not isinstance(event, dict) or not isinstance(event.get("Test"), str):
            continue
        action = event.get("Action")
        status = {"pass": V.PASS, "fail": V.FAIL, "skip": SKIP}.get(action)
        if status:
            out[f"{event.get('Package', '')}::{event['Test']}"] = Outcome(status, "" if status == V.PASS else action)
    return out or None


PARSERS = {"junit": parse_junit, "go-test-json": parse_go_test_json}
