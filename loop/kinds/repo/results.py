"""Per-test outcomes from a test command's structured report, by parser name (`junit`, `go-test-json`, `tap`).

Reports are written by code that runs next to the candidate, so they are decoded totally: anything
malformed is "no report", never an exception and never a pass.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from loop import verdicts as V

SKIP = "skip"


@dataclass(frozen=True)
class Outcome:
    status: str  # pass | fail | skip
    message: str = ""


NODE_SEP = " > "  # node --test ids: the describe() path and the test name, the same from junit and from tap
NODE_CLASSNAME = "test"  # what node's junit reporter writes as every testcase's classname


MESSAGE_CAP = 4000  # characters of a failure message kept (a report may hold megabytes in one)


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except (OSError, ValueError):  # a name too long, a NUL: the report's author chose it
        return False


def _junit_id(classname: str, name: str, tree: Path | None, suites: list[str]) -> str:
    """pytest's node id when the class name maps to a file in the tree ("tests.test_x.TestA" ->
    "tests/test_x.py::TestA::name"); node's "describe > test" path (its classname is always "test", its
    describe blocks are nested <testsuite>s); else "classname::name" (other runners)."""
    parts = classname.split(".") if classname else []
    if tree is not None:
        for cut in range(len(parts), 0, -1):
            rel = "/".join(parts[:cut]) + ".py"
            if _is_file(tree / rel):
                return "::".join([rel, *parts[cut:], name])
    if classname == NODE_CLASSNAME:
        return NODE_SEP.join([*suites, name])
    return f"{classname}::{name}" if classname else name


def _cases(elem, suites: list[str]):
    """Each <testcase> with the names of the <testsuite>s nested below the report's top level around it
    (a stack, not recursion: a report may nest thousands deep)."""
    stack = [(iter(elem), suites)]
    while stack:
        children, names = stack[-1]
        child = next(children, None)
        if child is None:
            stack.pop()
        elif child.tag == "testcase":
            yield child, names
        elif child.tag == "testsuite":
            # a top-level <testsuite> under <testsuites> is a run or file (pytest's "pytest"); node nests
            # its describe() blocks directly under <testsuites> too, so only node's ids use these names
            stack.append((iter(child), [*names, str(child.get("name", ""))]))


def parse_junit(text: str, tree: Path | None = None) -> dict[str, Outcome] | None:
    """JUnit XML (pytest --junitxml, node --test-reporter=junit) via junitparser; None if unreadable."""
    from junitparser import Error, Failure, JUnitXml, Skipped, TestCase

    if re.search(r"<!(DOCTYPE|ENTITY)", text, re.I):  # no test runner writes one; entities amplify
        return None
    try:
        xml = JUnitXml.fromstring(text)
    except Exception:  # noqa: BLE001 - malformed XML from the sandbox is "no report", decoded totally
        return None
    out: dict[str, Outcome] = {}
    root = xml._elem
    for elem, suites in (_cases(root, []) if root.tag == "testsuites" else _cases(root, [str(root.get("name", ""))])):
        case = TestCase.fromelem(elem)
        test_id = _junit_id(case.classname or "", case.name or "", tree, suites)
        results = list(case.result)
        bad = [r for r in results if isinstance(r, (Failure, Error))]
        if bad:
            message = (bad[0].message or bad[0].text or type(bad[0]).__name__.lower()).strip()
            if message == "collection failure" and bad[0].text:  # pytest's: the traceback's last E line says why,
                lines = bad[0].text.splitlines()  # or its last line (a task whose command says --tb=native)
                said = [x[1:].strip() for x in lines if x.startswith("E ")] or [x.strip() for x in lines if x.strip()][-1:]
                message += f" ({said[-1]})" if said else ""
            message = message[:MESSAGE_CAP]
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
    """`go test -json` events: the last pass/fail/skip action per package/test, a failure explained by the
    test's first `file.go:line:` output line (what t.Errorf / t.Fatalf print)."""
    out: dict[str, Outcome] = {}
    said: dict[str, str] = {}
    for line in text.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if not isinstance(event, dict) or not isinstance(event.get("Test"), str):
            continue
        key = f"{event.get('Package', '')}::{event['Test']}"
        action = event.get("Action")
        output = event.get("Output")
        if action == "output" and isinstance(output, str) and key not in said and ".go:" in output:
            said[key] = output.strip()[:MESSAGE_CAP]
        status = {"pass": V.PASS, "fail": V.FAIL, "skip": SKIP}.get(action)
        if status:
            out[key] = Outcome(status, "" if status == V.PASS else said.get(key, action))
    return out or None


def _yaml_error(lines: list[str]) -> str:
    """The `error:` value of a TAP 13 YAML block (node writes the assertion message there)."""
    for i, line in enumerate(lines):
        key, _, value = line.strip().partition(":")
        if key == "error":
            value = value.strip()
            if value in ("|", "|-", ">", ">-") and i + 1 < len(lines):
                value = lines[i + 1].strip()
            return value.strip("'\"")
    return ""


def parse_tap(text: str, tree: Path | None = None) -> dict[str, Outcome] | None:
    """TAP 13/14 (node --test --test-reporter=tap, prove, tape) via tap.py's line parser; subtests are
    read from their indentation (4 spaces a level) and named by their path ("suite > test"). A test point
    with subtests is a suite, not a test; `# SKIP` and `# TODO` points are skips."""
    from tap.parser import Parser

    parser = Parser()
    out: dict[str, Outcome] = {}
    path: list[str] = []  # names of the open subtests, by depth
    parents: set[int] = set()  # depths whose next test point closes a subtest that had test points
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        raw = lines[i]
        i += 1
        body = raw.lstrip(" ")
        depth = (len(raw) - len(body)) // 4
        if body.startswith("# Subtest:"):
            del path[depth:]
            path.append(body[len("# Subtest:"):].strip())
            parents.discard(depth)
            continue
        if body.startswith("Bail out!"):
            break
        try:  # an escaped "\\#" is part of the name, not a directive: hidden from tap.py, then restored
            line = parser.parse_line(body.replace("\\\\", "\ue001").replace("\\#", "\ue000"))
        except Exception:  # noqa: BLE001 - a line tap.py cannot read is noise, decoded totally
            continue
        if line.category != "test":
            continue
        yaml: list[str] = []
        if i < len(lines) and lines[i].strip() == "---":
            while i + 1 < len(lines) and lines[i + 1].strip() != "...":
                i += 1
                yaml.append(lines[i])
            i += 2
        name = (line.description or "").removeprefix("- ").replace("\ue000", "#").replace("\ue001", "\\").strip() \
            or f"#{line.number}"
        has_children = depth in parents
        parents.discard(depth)
        if depth > 0:
            parents.add(depth - 1)
        if has_children:
            continue  # a suite: its tests are reported one by one
        test_id = NODE_SEP.join([*path[:depth], name])
        if line.skip or line.todo:
            outcome = Outcome(SKIP, "skipped" if line.skip else "todo")
        elif line.ok:
            outcome = Outcome(V.PASS)
        else:
            outcome = Outcome(V.FAIL, (_yaml_error(yaml) or "not ok")[:MESSAGE_CAP])
        if test_id in out and out[test_id].status != V.PASS:
            continue
        out[test_id] = outcome
    return out or None


def truncated(test_id: str) -> bool:
    """An id SWE-bench's log parser cut at its first space (`path.py::test_x[My` for `test_x[My case]`):
    a pytest id whose parameter bracket never closes."""
    return "::" in test_id and test_id.count("[") > test_id.count("]")


def selector(test_id: str) -> str:
    """What pytest is given for a named id: its function (every parameter) where pytest cannot select the id
    itself: one cut short (truncated), or one whose parameter holds `::` (pytest before 8 splits a node id at
    every `::`: sqlfluff's `test_x[ExpressionSegment-NULL::INT]` is "not found", and the run collects nothing)."""
    head, bracket, param = test_id.partition("[")
    return head if bracket and "::" in head and (truncated(test_id) or "::" in param) else test_id


def prefixed(outcomes: dict[str, Outcome], test_id: str) -> list[str]:
    """The full ids a truncated id was cut from: those that go on with a space where it stops."""
    return sorted(t for t in outcomes if t.startswith(test_id + " "))


def with_truncated(outcomes: dict[str, Outcome] | None, ids) -> dict[str, Outcome] | None:
    """The outcomes with each truncated id's added, as SWE-bench's log parser records it. It keys each line of
    pytest's `-rA` summary by the id cut at its first space, so ids cut alike share one key and the last line
    wins: FAILED and ERROR lines come after PASSED ones, and a SKIPPED line names no id. So: any full id it
    prefixes failed -> that failure; else any passed -> pass; none, or only skipped -> missing (failing)."""
    if not outcomes:
        return outcomes
    out = dict(outcomes)
    for t in ids:
        if truncated(t) and t not in out:
            recorded = [outcomes[f] for f in prefixed(outcomes, t) if outcomes[f].status != SKIP]
            failed = [o for o in recorded if o.status != V.PASS]
            if recorded:
                out[t] = failed[-1] if failed else recorded[-1]
    return out


PARSERS = {"junit": parse_junit, "go-test-json": parse_go_test_json, "tap": parse_tap}


def parse(parser: str, text: str, tree: Path | None = None) -> dict[str, Outcome] | None:
    """The report's outcomes by `parser`, decoded totally: whatever a parser cannot take (a report built to
    exhaust it) is no report, never an exception in loop."""
    try:
        return PARSERS[parser](text, tree)
    except Exception:  # noqa: BLE001 - written next to the candidate's code
        return None
