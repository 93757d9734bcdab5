"""Test-synthesis mode: judge a JSON test suite against the baseline and the reference, and ask a model for suites.

A synthesized test is useful only if it reproduces the bug (fails on the baseline, passes on the reference);
one that fails on the reference has a wrong expectation and rejects its suite. Suites are bounded: at most
16 tests, lists of at most 64 items, strings of at most 128 characters.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from loop import prompts
from loop import verdicts as V
from loop.errors import CandidateFault, SuiteError, TaskError, read_text
from loop.kinds.function.attempt import RestartingWorker
from loop.kinds.function.decide import outcome
from loop.oracles.engine import same_value
from loop.kinds.function.programs import Program, build
from loop.kinds.task import Task
from loop.oracles.engine import json_repr
from loop.prompts.render import DISPLAY_NAMES, canonical_language, code_blocks, fence, load_template
from loop.run.settings import Origin, endpoint_settings, make_transport, sandbox_config
from loop.sandbox import SandboxConfig

MAX_TESTS = 16
MAX_ITEMS = 64
MAX_STRING = 128
MAX_DEPTH = 32
MAX_SUITE_CHARS = 256 << 10
TEST_KEYS = ("name", "input", "expected")
INVALID = "invalid"  # the class of a test rejected by validation (it never runs)
_SHOW = 120  # characters of a value shown in a reason


# --------------------------------------------------------------------------- plain data
@dataclass(frozen=True)
class TestJudgement:
    name: str
    cls: str  # reproduces_bug | reproduces_nothing | wrong_expectation | invalid
    reason: str
    input: Any = None
    expected: Any = None
    baseline: str | None = None  # pass | fail (None when the test never ran)
    reference: str | None = None

    def to_json(self) -> dict:
        return {"name": self.name, "class": self.cls, "reason": self.reason, "input": self.input,
                "expected": self.expected, "baseline": self.baseline, "reference": self.reference}


@dataclass(frozen=True)
class Judgement:
    task: str
    verdict: str  # accepted | rejected
    reason: str
    tests: list[TestJudgement] = field(default_factory=list)

    def count(self, cls: str) -> int:
        return sum(t.cls == cls for t in self.tests)

    def to_json(self) -> dict:
        return {"task": self.task, "verdict": self.verdict, "reason": self.reason,
                "tests": [t.to_json() for t in self.tests],
                "counts": {c: self.count(c) for c in (V.REPRODUCES_BUG, V.REPRODUCES_NOTHING,
                                                       V.WRONG_EXPECTATION, INVALID)}}


class _Invalid(Exception):
    """Internal: a validation failure; the message is the reason."""


# --------------------------------------------------------------------------- validation
def _short(value: Any) -> str:
    text = json_repr(value) if not isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= _SHOW else text[: _SHOW - 3] + "..."


def _reject_constant(name: str):
    raise ValueError(f"{name} is not valid JSON")


def _bounded(value: Any, what: str, depth: int = 0) -> None:
    """The suite bounds, anywhere nested: lists of at most 64 items, strings of at most 128 characters."""
    if depth > MAX_DEPTH:
        raise _Invalid(f"{what} is nested more than {MAX_DEPTH} levels deep")
    if isinstance(value, str):
        if len(value) > MAX_STRING:
            raise _Invalid(f"{what} holds a string of {len(value)} characters (at most {MAX_STRING})")
    elif isinstance(value, list):
        if len(value) > MAX_ITEMS:
            raise _Invalid(f"{what} holds a list of {len(value)} items (at most {MAX_ITEMS})")
        for item in value:
            _bounded(item, what, depth + 1)
    elif isinstance(value, dict):
        if len(value) > MAX_ITEMS:
            raise _Invalid(f"{what} holds an object of {len(value)} items (at most {MAX_ITEMS})")
        for key, item in value.items():
            _bounded(key, what, depth + 1)
            _bounded(item, what, depth + 1)


def _check_test(task: Task, index: int, raw: Any, seen: dict[str, int]) -> tuple[str, str | None]:
    """(name, reason) of one raw test; reason is None when the test is valid."""
    label = f"test {index + 1}"
    if not isinstance(raw, dict):
        return f"#{index + 1}", f"{label} is not an object with keys {', '.join(TEST_KEYS)}"
    name = raw.get("name")
    if isinstance(name, str) and name.strip():
        shown = name if len(name) <= MAX_STRING else name[:MAX_STRING] + "..."
        label = f"test {index + 1} ('{shown}')"
    name = name if isinstance(name, str) and name.strip() else f"#{index + 1}"
    for key in TEST_KEYS:
        if key not in raw:
            return name, f"{label} has no '{key}'"
    extra = sorted(set(raw) - set(TEST_KEYS))
    if extra:
        return name, f"{label} has an unknown key '{extra[0]}' (a test is exactly {', '.join(TEST_KEYS)})"
    if not isinstance(raw["name"], str) or not raw["name"].strip():
        return name, f"{label}: 'name' must be a non-empty string"
    if len(raw["name"]) > MAX_STRING:
        return name, f"{label}: its name is {len(raw['name'])} characters long (at most {MAX_STRING})"
    if raw["name"] in seen:
        return name, f"{label}: duplicate name, already used by test {seen[raw['name']] + 1}"
    seen[raw["name"]] = index
    try:
        _bounded(raw["input"], "its input")
        _bounded(raw["expected"], "its expected value")
    except _Invalid as exc:
        return name, f"{label}: {exc}"
    validate = task.oracle.validate_input if task.oracle is not None else None
    if validate is not None:
        why = validate(raw["input"])
        if why:
            return name, f"{label}: input does not fit the contract of {task.entry_point}: {why}"
    if task.signature is not None:  # C++: what the driver can be called with (an expectation it cannot
        try:                          # return is judged like any wrong one: wrong_expectation)
            task.signature.check_args((raw["input"],))
        except (ValueError, TypeError) as exc:
            return name, f"{label}: input does not fit the signature of {task.entry_point}: {exc}"
    return name, None


def read_suite(path: Path) -> str:
    """The text of a suite file, or a one-line SuiteError naming it; its content is judged by parse_suite."""
    return read_text(path, "suite", SuiteError)


def parse_suite(task: Task, text: str) -> tuple[list[tuple[str, Any, Any, str | None]], str | None]:
    """Validate a suite: ([(name, input, expected, reason-or-None)], suite-level reason or None)."""
    if len(text) > MAX_SUITE_CHARS:
        return [], f"the suite is {len(text)} characters long (at most {MAX_SUITE_CHARS})"
    try:
        raw = json.loads(text, parse_constant=_reject_constant)
    except RecursionError:
        return [], f"malformed JSON: nested more than {MAX_DEPTH} levels deep"
    except ValueError as exc:
        return [], f"malformed JSON: {exc}"
    if not isinstance(raw, list):
        return [], f"the suite must be a JSON list of tests, not {type(raw).__name__ if not isinstance(raw, dict) else 'an object'}"
    if not raw:
        return [], "the suite holds no tests"
    if len(raw) > MAX_TESTS:
        return [], f"the suite holds {len(raw)} tests (at most {MAX_TESTS})"
    seen: dict[str, int] = {}
    out = []
    for i, t in enumerate(raw):
        name, reason = _check_test(task, i, t, seen)
        if reason is None:
            out.append((name, t["input"], t["expected"], None))
        else:
            out.append((name, t.get("input") if isinstance(t, dict) else None,
                        t.get("expected") if isinstance(t, dict) else None, reason))
    return out, None


# --------------------------------------------------------------------------- running
_PROGRAMS: dict[tuple, tuple[Program, Program]] = {}


def _programs(task: Task, sandbox: SandboxConfig) -> tuple[Program, Program]:
    """Baseline and reference, built once per (task, code, sandbox) and reused across suites."""
    if task.baseline is None or task.reference is None:
        raise TaskError(f"task '{task.name}': test synthesis needs both a baseline and a reference")
    key = (str(task.path), task.baseline, task.reference, sandbox)
    if key not in _PROGRAMS:
        baseline = build(task, task.baseline, "baseline", sandbox)
        reference = build(task, task.reference, "reference", sandbox)
        for prog in (baseline, reference):
            if prog.build_error:
                raise TaskError(f"task '{task.name}': the {prog.role} does not build: {prog.build_error[-300:]}")
        _PROGRAMS[key] = (baseline, reference)
    return _PROGRAMS[key]


def _run(side: RestartingWorker, args: tuple, expected: Any) -> tuple[bool, str]:
    """(passed, what happened) of one call, compared in the parent with the grader's equality."""
    try:
        ok, value = outcome(side.call(args))
    except CandidateFault as fault:
        return False, str(fault)
    if ok and same_value(value, expected):
        return True, f"returned {_short(value)}"
    return False, f"returned {_short(value)}" if ok else str(value)


def judge(task: Task, text: str, sandbox_cfg: SandboxConfig) -> Judgement:
    """Validate a JSON suite, run each valid test on the baseline and the reference, and class it.

    Raises TaskError for a task that cannot be judged against, SandboxUnavailable / HarnessError when
    the sandbox itself fails (no judgement can be made then).
    """
    parsed, suite_reason = parse_suite(task, text)
    if suite_reason is not None:
        return Judgement(task.name, V.REJECTED, suite_reason, [])
    results: dict[int, TestJudgement] = {}
    for i, (name, inp, exp, reason) in enumerate(parsed):
        if reason is not None:
            results[i] = TestJudgement(name, INVALID, reason, inp, exp)
    valid = [i for i in range(len(parsed)) if i not in results]
    if valid:
        baseline, reference = _programs(task, sandbox_cfg)
        base, ref = RestartingWorker(baseline, sandbox_cfg, 0), RestartingWorker(reference, sandbox_cfg, 0)
        try:
            for i in valid:
                name, inp, exp, _ = parsed[i]
                b_ok, b_what = _run(base, (inp,), exp)
                r_ok, r_what = _run(ref, (inp,), exp)
                if not r_ok:
                    cls = V.WRONG_EXPECTATION
                    why = f"the reference {_said(r_what)}, not the expected {_short(exp)}"
                elif b_ok:
                    cls, why = V.REPRODUCES_NOTHING, f"passes on the baseline already (it {_said(b_what)})"
                else:
                    cls = V.REPRODUCES_BUG
                    why = f"fails on the baseline (it {_said(b_what)}) and passes on the reference"
                results[i] = TestJudgement(name, cls, why, inp, exp, V.PASS if b_ok else V.FAIL,
                                           V.PASS if r_ok else V.FAIL)
        finally:
            base.close()
            ref.close()
    tests = [results[i] for i in range(len(parsed))]
    return Judgement(task.name, *_verdict(tests), tests)


def _said(what: str) -> str:
    return what if what.startswith("returned") else f"failed ({what})"


def _verdict(tests: list[TestJudgement]) -> tuple[str, str]:
    invalid = [t for t in tests if t.cls == INVALID]
    if invalid:
        return V.REJECTED, invalid[0].reason + (f" (and {len(invalid) - 1} more invalid)" if len(invalid) > 1 else "")
    wrong = [t for t in tests if t.cls == V.WRONG_EXPECTATION]
    if wrong:
        return V.REJECTED, f"test '{wrong[0].name}' has a wrong expectation: {wrong[0].reason}"
    bugs = sum(t.cls == V.REPRODUCES_BUG for t in tests)
    if not bugs:
        return V.REJECTED, f"no test reproduces the bug: every test ({len(tests)}) passes on the baseline already"
    return V.ACCEPTED, f"{bugs} of {len(tests)} test(s) reproduce the bug"


# --------------------------------------------------------------------------- prompt
def render_synthesize(task: Task, template: str | Path | None = None) -> list[dict]:
    """Chat messages asking for a JSON suite: contract, baseline and bug report only, never the reference."""
    sections = load_template(template or prompts.template("synthesize.md"))
    tag = canonical_language(task.language)
    values = {
        "task_name": task.name,
        "description": task.description.strip(),
        "bug_report": task.bug_report.strip(),
        "language": DISPLAY_NAMES.get(tag, task.language),
        "fence_tag": tag,
        "entry_point": task.entry_point,
        "contract": fence(task.contract, tag),
        "candidate_file": task.candidate_file,
        "baseline": fence(task.baseline or "", tag),
        "max_tests": MAX_TESTS,
        "max_items": MAX_ITEMS,
        "max_string": MAX_STRING,
    }
    return [
        {"role": "system", "content": sections["system"].substitute(values).strip()},
        {"role": "user", "content": sections["user"].substitute(values).strip() + "\n"},
    ]


def extract_suite(reply: str) -> str | None:
    """The suite text of a reply: the longest ```json block, else the longest untagged block, else a bare JSON list."""
    blocks = code_blocks(reply or "")
    for keep in (lambda info: info == "json", lambda info: info == ""):
        chosen = [content for info, content in blocks if keep(info) and content.strip()]
        if chosen:
            return max(chosen, key=len).strip() + "\n"
    bare = (reply or "").strip()
    if bare.startswith("[") and bare.endswith("]"):
        return bare + "\n"
    return None


# --------------------------------------------------------------------------- curated demo cassette
CURATED_MODEL = "demo-curated"
CURATED_LABELS = (V.ACCEPTED, V.WRONG_EXPECTATION, V.REPRODUCES_NOTHING)  # harness/suites/<task>/<label>.json


CURATED_SAMPLES = len(CURATED_LABELS)  # replay the demo cassette with samples=3 (one answer per label and task)


def suites_root(root: Path) -> Path:
    return root / "harness" / "suites"


def demo_cassette(root: Path) -> Path:
    """The curated synthesis cassette (answers model `demo-curated`, CURATED_SAMPLES per task)."""
    return suites_root(root) / "demo_synthesis.jsonl"


def curated_cassette(config, model: str = CURATED_MODEL) -> list[dict]:
    """Cassette lines answering synthesize(model=model) with the curated suites of harness/suites/<task>/.

    Each request body is built exactly as Endpoint.complete() sends it (render_synthesize plus the configured
    temperature and max_tokens), so a replay matches; one task's suites share a body and are served in order.
    """
    from loop import tasks
    from loop.ask.cassette import exchange

    lines = []
    for name in tasks.list_tasks(config.root):
        folder = suites_root(config.root) / name
        if not folder.is_dir():
            continue
        task = tasks.load(config.root, name)
        body = {"model": model, "messages": render_synthesize(task), "temperature": config.endpoint.temperature,
                "max_tokens": config.endpoint.max_tokens, "n": 1}
        for label in CURATED_LABELS:
            path = folder / f"{label}.json"
            if not path.is_file():
                continue
            reply = f"Here is the test suite.\n\n```json\n{path.read_text(encoding='utf-8').strip()}\n```\n"
            answer = {"id": f"curated-{name}-{label}", "object": "chat.completion", "model": model,
                      "choices": [{"index": 0, "finish_reason": "stop",
                                   "message": {"role": "assistant", "content": reply}}],
                      "usage": {"prompt_tokens": 0, "completion_tokens": 0}}
            lines.append(exchange(body, 200, answer, {"content-type": "application/json"},
                                  label=f"{name}/{label}", curated=True,
                                  expect=V.ACCEPTED if label == V.ACCEPTED else V.REJECTED))
    return lines


def write_curated_cassette(config, path: Path | None = None) -> Path:
    """(Re)write harness/suites/demo_synthesis.jsonl from the curated suite files."""
    path = path or demo_cassette(config.root)
    text = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in curated_cassette(config))
    path.write_text(text, encoding="utf-8")
    return path


# --------------------------------------------------------------------------- synthesize with a model
@dataclass(frozen=True)
class Synthesized:
    batch_id: int
    suites: int
    accepted: int
    rejected: int
    infra_unknown: int
    tests: int
    reproduces_bug: int


def default_origin(config, origin: Origin, samples: int | None) -> tuple[Origin, int]:
    """Without an endpoint or cassette flag, synthesis replays the curated suites (CURATED_SAMPLES per task)."""
    if origin.explicit:
        return origin, samples or config.loop.samples
    curated = Origin(None, origin.model or CURATED_MODEL, origin.concurrency, None, demo_cassette(config.root))
    return curated, samples or CURATED_SAMPLES


def synthesize(config, task_names: list[str], *, samples: int | None = None, base_url: str | None = None,
               model: str | None = None, concurrency: int | None = None, record: Path | None = None,
               replay_path: Path | None = None, db: Path | None = None,
               no_sandbox: bool = False) -> Synthesized:
    """Ask the endpoint for `samples` suites per task, judge each reply and record suites and tests.

    Without an endpoint or cassette it replays the curated suites (default_origin). Replies are gathered
    first (the HTTP side is async), then judged one by one in the sandbox; each suite and its tests are
    written in one transaction. Batch kind: `synthesize`.
    """
    import asyncio

    from loop import tasks
    from loop.ask.endpoint import Endpoint, InfraUnknown
    from loop.run import seeds
    from loop.store.db import RequestRows, RunStore

    sandbox = sandbox_config(config, no_sandbox)
    names = task_names or config.loop.tasks or tasks.list_tasks(config.root)
    loaded = [tasks.load(config.root, n) for n in names]
    given = Origin(base_url, model, concurrency, record, replay_path)
    if not (task_names or config.loop.tasks):  # every task folder: those that can have tests synthesized (not repo
        # tasks), and, when the curated suites are replayed, those that have curated suites
        loaded = [t for t in loaded if t.baseline is not None and t.reference is not None
                  and (given.explicit or (suites_root(config.root) / t.name).is_dir())]
    for t in loaded:
        if t.baseline is None or t.reference is None:
            raise TaskError(f"task '{t.name}': test synthesis needs both a baseline and a reference")
    origin, samples = default_origin(config, given, samples)
    settings = endpoint_settings(config, origin)
    transport = make_transport(origin, settings)
    prompts = {t.name: render_synthesize(t) for t in loaded}
    replies: dict[tuple[str, int], str | InfraUnknown] = {}
    per = settings.samples_per_request
    counts = {"accepted": 0, "rejected": 0, "infra": 0, "tests": 0, "bug": 0}
    with RunStore(db or config.db_path) as store, \
            store.batch("synthesize", seed=seeds.current(config.root), model=settings.model,
                        endpoint=settings.base_url, config=config.snapshot(), sandboxed=int(sandbox.enabled),
                        command="synthesize") as batch_id:

        rows = RequestRows(store, batch_id, lambda tag: {"task": tag[0], "sample": tag[1]})

        async def ask(endpoint, task: Task, first: int) -> None:
            """Samples first .. first+per-1 of a task in one request (the OpenAI `n`)."""
            count = min(per, samples - first)
            answers = await endpoint.complete_each(prompts[task.name], count, tag=(task.name, first))
            for i, answer in enumerate(answers):
                replies[(task.name, first + i)] = answer

        async def main() -> None:
            async with Endpoint(settings, transport=transport, on_send=rows.sent, on_request=rows.done) as endpoint:
                await asyncio.gather(*(ask(endpoint, t, s) for t in loaded for s in range(0, samples, per)))

        asyncio.run(main())
        for t in loaded:
            for s in range(samples):
                reply = replies.get((t.name, s))
                if reply is None or isinstance(reply, InfraUnknown):
                    counts["infra"] += 1
                    reason = f"{reply.reason}: {reply.detail}" if reply is not None else "no reply"
                    store.record_suite(batch_id, t.name, s, model=settings.model, verdict=V.INFRA_UNKNOWN,
                                       reason=reason, reply=None, tests=[])
                    continue
                text = extract_suite(reply)
                if text is None:
                    j = Judgement(t.name, V.REJECTED, "the reply holds no JSON test suite", [])
                else:
                    j = judge(t, text, sandbox)
                counts["accepted" if j.verdict == V.ACCEPTED else "rejected"] += 1
                counts["tests"] += len(j.tests)
                counts["bug"] += j.count(V.REPRODUCES_BUG)
                store.record_suite(batch_id, t.name, s, model=settings.model, verdict=j.verdict, reason=j.reason,
                                   reply=reply, tests=j.tests)
    return Synthesized(batch_id, len(loaded) * samples, counts["accepted"], counts["rejected"], counts["infra"],
                       counts["tests"], counts["bug"])
