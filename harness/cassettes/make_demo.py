"""Write harness/cassettes/demo.jsonl: curated replies (not model output) for `loop run` without a key.

Every request body is rendered exactly as `loop run` renders it, so the real client replays it. Round 2
(`loop run --rounds 2`, as `make run` runs it): each first answer that grades stable_fail is graded here with
the batch's settings, and its follow-up conversation (round 1, the answer, the feedback loop/feedback.py
renders) gets the curated answer FOLLOW names; without --rounds those exchanges are never asked for.
Run after changing a prompt, the feedback template or a task's demonstrated example:
.venv/bin/python harness/cassettes/make_demo.py
"""

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from loop import config, kinds, tasks  # noqa: E402

from loop.run import feedback
from loop import verdicts as V  # noqa: E402
from loop.ask.cassette import exchange  # noqa: E402
from loop.ask.endpoint import RATE_LIMIT_ATTEMPTS  # noqa: E402
from loop.kinds import grade
from loop.run.verified import quarantined_checks  # noqa: E402
from loop.run.settings import grade_options  # noqa: E402
from loop.run.settings import sandbox_config  # noqa: E402

EX = ROOT / "harness" / "examples"


def reply(text: str, lang: str) -> dict:
    content = f"Here is the repaired file.\n\n```{lang}\n{text.rstrip()}\n```\n"
    return {"id": "demo", "object": "chat.completion", "model": "demo-curated",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": 400, "completion_tokens": 200}}


def prose(text: str) -> dict:
    body = reply("", "python")
    body["choices"][0]["message"]["content"] = text
    return body


NO_CODE = "I looked at it and the function seems fine to me."
PLAN = {
    "merge_intervals_py": [
        ("correct repair", EX / "merge_intervals_py" / "correct_repair.py"),
        ("example-only patch (seed 003)", EX / "merge_intervals_py" / "example_only.py"),
        ("ordering patch: descending output (seed 003)", EX / "merge_intervals_py" / "descending_order.py"),
        ("flaky candidate", EX / "demo" / "flaky.py"),
        ("passes with varying output", EX / "demo" / "varying.py"),
        ("reply without code", NO_CODE),
        ("429 storm", None),
    ],
    "merge_intervals_cpp": [
        ("snapshot-only Friday patch (seed 000)", EX / "merge_intervals_cpp" / "friday_patch.cpp"),
        ("does not compile", EX / "demo" / "does_not_compile.cpp"),
        ("correct repair", EX / "merge_intervals_cpp" / "correct_repair.cpp"),
    ],
    "dedupe_words_py": [
        ("correct repair", EX / "dedupe_words_py" / "correct_repair.py"),
        ("lower() instead of casefold(): only the relations catch it", EX / "dedupe_words_py" / "lower_not_casefold.py"),
    ],
}


# Round 2: what the curated model answers once it has read the feedback on its first answer. The
# descending-order patch is repaired after its shrunk counterexample; the example-only patch and the reply
# without code never are.
FOLLOW = {
    EX / "merge_intervals_py" / "descending_order.py": EX / "merge_intervals_py" / "correct_repair.py",
    EX / "merge_intervals_py" / "example_only.py": EX / "merge_intervals_py" / "example_only.py",
    NO_CODE: "I checked again: the function still looks fine to me.",
    EX / "merge_intervals_cpp" / "friday_patch.cpp": EX / "merge_intervals_cpp" / "correct_repair.cpp",
    EX / "demo" / "does_not_compile.cpp": EX / "merge_intervals_cpp" / "friday_patch.cpp",
    EX / "dedupe_words_py" / "lower_not_casefold.py": EX / "dedupe_words_py" / "correct_repair.py",
    EX / "dedupe_words_cpp" / "lowercased_output.cpp": EX / "dedupe_words_cpp" / "correct_repair.cpp",
    # A repository patch that fixed nothing is replaced by the gold patch once the failing tests are named;
    # one that regressed a test is sent again unchanged (any answer not listed here is repeated).
    EX / "repo_ledger_py" / "exempt_shortcut.diff": EX / "repo_ledger_py" / "gold.diff",
    EX / "repo_strkit_js" / "normalize_nfc.diff": EX / "repo_strkit_js" / "gold.diff",
    EX / "repo_semver_go" / "strings_compare.diff": EX / "repo_semver_go" / "gold.diff",
}


def answer(what, lang: str) -> dict:
    return prose(what) if isinstance(what, str) else reply(what.read_text(), lang)


def follow_up(cfg, sandbox, task, first: list[dict], body: dict, content: str, graded: dict) -> dict | None:
    """The round-2 request after `content` (None when its grade earns no round), graded as the batch grades."""
    source = kinds.get(task.kind).extract(task, content)
    if source not in graded:
        opts = grade_options(cfg)
        graded[source] = grade(task, source, sandbox, opts, quarantined_checks(cfg, task.name))
    g = graded[source]
    if g.verdict != V.STABLE_FAIL:
        return None
    said = feedback.render(task, g, 1).text
    return {**body, "messages": feedback.conversation(first, [(content, said)])}
# A C++ task of another shape ([signature]: a vector of strings in and out).
PLAN["dedupe_words_cpp"] = [
    ("correct repair", EX / "dedupe_words_cpp" / "correct_repair.cpp"),
    ("lowercases its output instead of keeping the first spelling", EX / "dedupe_words_cpp" / "lowercased_output.cpp"),
]

# Repository tasks (issue 15): each one's three curated patches, replied as a fenced diff.
PLAN.update({
    name: [(f"{label} (curated patch)", EX / name / f"{stem}.diff") for label, stem in patches]
    for name, patches in {
        "repo_ledger_py": [("gold patch", "gold"), ("fixes nothing, breaks nothing", "exempt_shortcut"),
                           ("fixes the bug, regresses a pass-to-pass test", "add_half_truncate")],
        "repo_strkit_js": [("gold patch", "gold"), ("fixes nothing, breaks nothing", "normalize_nfc"),
                           ("fixes the bug, regresses two pass-to-pass tests", "ellipsis_counted_once")],
        "repo_semver_go": [("gold patch", "gold"), ("fixes nothing, breaks nothing", "strings_compare"),
                           ("fixes the bug, regresses five pass-to-pass tests", "build_tiebreak")],
    }.items()
})


def main() -> None:
    cfg = config.load(ROOT / "config.toml")
    sandbox = sandbox_config(cfg)
    e = cfg.endpoint
    lines = []
    for name, items in PLAN.items():
        task = tasks.load(ROOT, name)
        messages = kinds.get(task.kind).prompt(task, sandbox)
        body = {"model": e.model, "messages": messages, "temperature": e.temperature,
                "max_tokens": e.max_tokens, "n": 1}
        lang = "diff" if task.kind == "repo" else "cpp" if task.language == "cpp" else "python"
        graded: dict = {}
        files = [(label, what) for label, what in items if isinstance(what, Path)]
        while len(items) < cfg.loop.samples:  # identical sources repeat: a batch grades each once
            label, what = files[len(items) % len(files)]
            items = [*items, (f"{label} (again: a duplicate, graded once)", what)]
        for label, what in items:
            extra = {"curated": True, "label": f"{name}: {label}"}
            if what is None:
                err = {"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}}
                # refused every time while the batch's other requests get through: rate_limited once the
                # endpoint's 429s for it reach RATE_LIMIT_ATTEMPTS (loop/endpoint.py)
                lines += [exchange(body, 429, err, {"retry-after-ms": "20"}, **extra) for _ in range(RATE_LIMIT_ATTEMPTS)]
            else:
                first = answer(what, lang)
                lines.append(exchange(body, 200, first, **extra))
                content = first["choices"][0]["message"]["content"]
                second = follow_up(cfg, sandbox, task, body["messages"], body, content, graded)
                if second is not None:
                    then = FOLLOW.get(what, what)
                    lines.append(exchange(second, 200, answer(then, lang), curated=True, round=2,
                                          label=f"{name}: round 2 after {label}: "
                                                f"{then.name if isinstance(then, Path) else 'still no code'}"))
    out = ROOT / "harness" / "cassettes" / "demo.jsonl"
    out.write_text("".join(json.dumps(line, ensure_ascii=False, sort_keys=True) + "\n" for line in lines))
    print(f"wrote {out}: {len(lines)} exchanges")


if __name__ == "__main__":
    main()
