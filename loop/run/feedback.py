"""Feedback for a failing candidate's next round (issue 19): its public evidence, rendered from its Grade
with prompts/feedback.md, and the conversation a follow-up request sends.

Public means what the model may see without learning the answer key: the build error (truncated), the
example test the prompt already shows, a relation's name, property and shrunk input (the minimal
counterexample) with the candidate's own output, the names and assertion messages of visible repository
tests, and the sanitizer report. Goldens, hidden tests, crashes and timeouts are named with their kind,
nothing more; the reference's output never appears. Text the candidate controls (its outputs, compiler and
sanitizer messages, assertion messages) is withheld whole when it quotes a hidden value, since a hostile
candidate can stash the inputs it was called with and print them later.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from string import Template

from loop import prompts
from loop import verdicts as V
from loop.grading.model import Check, Grade
from loop.grading.model import text as clean
from loop.kinds.function.decide import show
from loop.kinds.task import CheckSource, Task
from loop.prompts.render import DISPLAY_NAMES, canonical_language, fence

BUILD_CHARS = 1500   # compiler errors: the first ones matter, the rest is noise
MESSAGE_CHARS = 300  # one assertion message or relation reason
MIN_SECRET = 6       # hidden values shorter than this ("[]", "0", "true") carry no answer worth hiding

# The main kind of evidence a feedback held (candidates.evidence), most specific first: the view
# round_repairs counts what each kind repaired.
NO_CODE, NO_CHANGE, BUILD, SANITIZER = V.NO_CODE, V.NO_CHANGE, V.BUILD, V.SANITIZER
RELATION, EXAMPLE, VISIBLE_TESTS, HIDDEN_ONLY = "relation", "example_test", "visible_tests", "hidden_only"
EVIDENCE = (NO_CODE, NO_CHANGE, BUILD, SANITIZER, RELATION, EXAMPLE, VISIBLE_TESTS, HIDDEN_ONLY)

# Relations whose failure reason quotes only the input and the candidate's own outputs, with the property
# each checks. Any other relation (agrees_with_reference quotes the reference's output; a task's own may
# too) is shown by name, property and minimal counterexample, without its reason.
PROPERTIES = {
    "permutation": "reordering the input must not change the output",
    "idempotence": "feeding the output back in must give the same output",
    "input_not_mutated": "the function must not change its argument",
    "output_contract": "the output must have the shape and order the contract promises",
    "subsequence_of_input": "every output item must come from the input, in input order",
    "prefix_consistency": "the output for a prefix of the input must be a prefix of the whole output",
    "interval_measure": "the output must cover the same total length as the input",
    "interval_cover": "the output must cover exactly the input's points",
    "casefold_distinct": "no two output words may be equal under casefold",
    "casefolds_kept": "the output must keep exactly the input's words under casefold",
}
OTHER_PROPERTIES = {"agrees_with_reference": "the output must be the correct answer for this input",
                    "arguments_agree": "the function must leave its arguments as a correct solution does (not change the caller's data unless asked)"}
WITHHELD = "(withheld: it quotes a value of a hidden check)"


@dataclass(frozen=True)
class Feedback:
    text: str      # the user message of the next round
    evidence: str  # its main kind of evidence (EVIDENCE)


def round_seed(batch_seed: int, round_no: int) -> int:
    """Round 1 keeps the batch's seed; each later round draws a fresh one from (seed, round), so a
    counterexample shown in round r is not simply memorised to pass round r+1's relations."""
    if round_no <= 1:
        return batch_seed
    digest = hashlib.sha256(f"loop-round:{batch_seed}:{round_no}".encode()).digest()
    return int.from_bytes(digest[:4], "big") % 2_000_000_000 + 1


def conversation(first: list[dict], turns: list[tuple[str, str]]) -> list[dict]:
    """Round 1's system and user messages, then each earlier round's (reply, feedback) as an assistant
    and a user message: the follow-up of round len(turns) + 1."""
    messages = [dict(m) for m in first]
    for reply, feedback in turns:
        messages += [{"role": "assistant", "content": reply}, {"role": "user", "content": feedback}]
    return messages


def render(task: Task, grade: Grade, round_no: int, template: Path | None = None) -> Feedback:
    """The feedback on a failed grade of `task`, as the next round's user message."""
    secrets = hidden_values(task)
    failed = [c for c in grade.checks if not c.passed and c.decides]
    parts: list[str] = []
    kinds: set[str] = set()
    hidden: list[Check] = []
    for c in failed:
        shown = _public(task, c, secrets)
        if shown is None:
            hidden.append(c)
        else:
            kind, text = shown
            kinds.add(kind)
            parts.append(text)
    if hidden:
        parts.append("Other failing checks (hidden: only their names and kinds are shown):\n"
                     + "\n".join(f"- {c.check} ({c.category})" for c in hidden))
    if not parts:
        parts.append("The grade failed without a check it can show.")
    evidence = next((k for k in EVIDENCE if k in kinds), HIDDEN_ONLY)
    frame = _template(template or prompts.template("feedback.md"))
    text = frame.substitute(task_name=task.name, round=round_no, evidence="\n\n".join(parts),
                            instruction=_instruction(task))
    return Feedback(clean(text.strip()) + "\n", evidence)  # lone surrogates a candidate returned: U+FFFD


def _template(path: Path) -> Template:
    """prompts/feedback.md without its leading comment."""
    raw = path.read_text(encoding="utf-8")
    return Template(re.sub(r"\A\s*<!--.*?-->\s*", "", raw, flags=re.S))


def _instruction(task: Task) -> str:
    if task.kind == "repo":
        return "Reply with one unified diff against the original repository in a single fenced code block tagged diff."
    if task.kind == "answer":
        return "Reply with the answer only, on one line."
    tag = canonical_language(task.language)
    return (f"Reply with the complete corrected {DISPLAY_NAMES.get(tag, task.language)} file in a single fenced "
            f"code block tagged {tag}, and nothing after it.")


def _public(task: Task, c: Check, secrets: list[str]) -> tuple[str, str] | None:
    """(evidence kind, text) for a check the model may see in full, None for one shown by name only."""
    if c.check == V.NO_CODE:
        return NO_CODE, "Your reply held no fenced code block, so there was nothing to grade."
    if c.check == V.NO_CHANGE:
        return NO_CHANGE, "Your code is identical to the buggy file (ignoring whitespace): nothing was changed."
    if c.check == V.BUILD:
        detail = c.detail if len(c.detail) <= BUILD_CHARS else c.detail[:BUILD_CHARS] + "\n... (truncated)"
        return BUILD, "It does not build:\n" + fence(_guard(detail, secrets))
    if c.check == V.SANITIZER:
        return SANITIZER, "The sanitizer build (address, undefined behaviour) reported:\n" + fence(_guard(c.detail, secrets))
    if c.category == "relation":
        return RELATION, _relation(c, secrets)
    if c.category == "test" and task.example is not None and c.check == f"test:{task.example}":
        return EXAMPLE, (f"The failing example from the task still fails ({c.check}).\nInput:\n{fence(show(c.input))}\n"
                         f"Expected:\n{fence(show(c.expected))}\nYour output:\n{fence(_guard(show(c.actual), secrets))}")
    if c.category == "test" and _visible_repo_test(task, c.check):
        message = _guard(c.detail[:MESSAGE_CHARS], secrets) or "(no message)"
        return VISIBLE_TESTS, f"Test {c.check.removeprefix('test:')} fails: {message}"
    return None


def _relation(c: Check, secrets: list[str]) -> str:
    name = c.check.removeprefix("relation:")
    if name in PROPERTIES:
        head = f"Relation `{name}` does not hold: {PROPERTIES[name]}."
        reason = c.actual if isinstance(c.actual, str) else c.detail
        said = f"\nWhat your code did on it: {_guard(reason[:MESSAGE_CHARS], secrets)}"
    else:
        head = f"Relation `{name}` does not hold: {OTHER_PROPERTIES.get(name, 'a property of correct answers')}."
        said = ""  # its reason may quote the reference's output
    if c.minimal is None:
        return head + said
    return head + f"\nMinimal counterexample (shrunk input):\n{fence(show(c.minimal))}" + said


def _visible_repo_test(task: Task, check: str) -> bool:
    spec = getattr(task, "spec", None)
    if spec is None or not hasattr(spec, "hidden_files"):
        return False
    path = check.removeprefix("test:").split("::", 1)[0]
    return path not in spec.hidden_files


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def _guard(text: str, secrets: list[str]) -> str:
    """`text` (which the candidate controls) unless it quotes a hidden value."""
    flat = _squash(text)
    return WITHHELD if any(s in flat for s in secrets) else text


def hidden_values(task: Task) -> list[str]:
    """What feedback must never quote, whitespace removed: every golden's input and output, each test's
    input and expected value except the example the prompt shows, check-form test source, hidden test
    files of repository tasks."""
    found: list[str] = []
    for g in task.goldens:
        found += [show(g.args[0] if len(g.args) == 1 else list(g.args)), show(g.expected)]
        found += [x for x in (g.expected, *g.args) if isinstance(x, str)]
    for t in task.tests:
        if t.name == task.example:
            continue
        if t.args and isinstance(t.args[0], CheckSource):
            found += [line for line in t.args[0].splitlines()]
            continue
        found += [show(t.args[0] if len(t.args) == 1 else list(t.args)), show(t.expected)]
        values = t.expected if isinstance(t.expected, (list, tuple)) else (t.expected,)
        found += [x for x in (*values, *t.args) if isinstance(x, str)]
    spec = getattr(task, "spec", None)
    if spec is not None and getattr(spec, "hidden", None) is not None:
        for rel in spec.hidden_files:
            try:
                found += (spec.hidden / rel).read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError:
                continue
    return sorted({s for s in map(_squash, found) if len(s) >= MIN_SECRET})
