"""Render the repair prompt from the repair.md template and pull the code block out of a model reply.

Keeping the wording in a template file lets it change without touching code; the prompt only ever sees what the caller passes.

Template format: a text file split into sections by marker lines ``<!-- system -->``, ``<!-- user -->``
and ``<!-- example -->`` (anything before the first marker is a comment). Each section is a
``string.Template`` (``$name`` / ``${name}``, ``$$`` for a dollar sign). ``system`` becomes the system
message; ``user`` becomes the user message, with ``example`` appended when a failing example is given.
Placeholders: task_name, description, language (display name, e.g. "C++"), fence_tag (e.g. "cpp"),
contract, candidate_file, baseline (already fenced), example_input, example_expected, example_actual
(each already fenced).
"""

from __future__ import annotations

import re
from pathlib import Path
from string import Template

from loop.prompts import template

_MARKER = re.compile(r"^<!--\s*(system|user|example)\s*-->\s*$")
_FENCE_OPEN = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
DISPLAY_NAMES = {"python": "Python", "cpp": "C++", "c": "C"}
_ALIASES = {
    "python": {"python", "py", "python3", "py3"},
    "cpp": {"cpp", "c++", "cxx", "cc", "hpp", "hxx", "h++"},
    "c": {"c", "h"},
}


def canonical_language(language: str) -> str:
    lang = language.strip().lower()
    for name, aliases in _ALIASES.items():
        if lang in aliases:
            return name
    return lang


def _aliases(language: str) -> set[str]:
    name = canonical_language(language)
    return _ALIASES.get(name, {name})


def fence(text: str, tag: str = "") -> str:
    """`text` in a backtick fence longer than any backtick run inside it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{tag}\n{text.rstrip()}\n{ticks}"


def _value(value: object) -> str:
    return value if isinstance(value, str) else repr(value)


def load_template(path: str | Path | None = None) -> dict[str, Template]:
    """Sections of a prompt template file, by name."""
    path = template("repair.md") if path is None else path
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        marker = _MARKER.match(line.strip())
        if marker:
            current = sections.setdefault(marker.group(1), [])
        elif current is not None:
            current.append(line)
    missing = {"system", "user"} - sections.keys()
    if missing:
        raise ValueError(f"prompt template {path} lacks section(s): {', '.join(sorted(missing))}")
    return {name: Template("\n".join(lines).strip("\n")) for name, lines in sections.items()}


def render_repair(
    *,
    task_name: str,
    description: str,
    language: str,
    contract: str,
    baseline: str,
    candidate_file: str,
    example: dict | None,
    template: str | Path | None = None,
) -> list[dict]:
    """Chat messages asking the model to repair `baseline`; `example` = {"input", "expected", "actual"} or None."""
    sections = load_template(template)
    tag = canonical_language(language)
    values = {
        "task_name": task_name,
        "description": description.strip(),
        "language": DISPLAY_NAMES.get(tag, language),
        "fence_tag": tag,
        "contract": contract.strip(),
        "candidate_file": candidate_file,
        "baseline": fence(baseline, tag),
    }
    user = sections["user"].substitute(values)
    if example is not None and "example" in sections:
        shown = {
            f"example_{key}": fence(_value(example.get(key, "")))
            for key in ("input", "expected", "actual")
        }
        user = user.rstrip() + "\n\n" + sections["example"].substitute(values, **shown).strip("\n")
    return [
        {"role": "system", "content": sections["system"].substitute(values).strip()},
        {"role": "user", "content": user.strip() + "\n"},
    ]


def code_blocks(reply: str) -> list[tuple[str, str]]:
    """(info word, content) of every fenced block; an unclosed block runs to the end (CommonMark)."""
    lines = reply.splitlines()
    blocks: list[tuple[str, str]] = []
    i = 0
    while i < len(lines):
        opening = _FENCE_OPEN.match(lines[i].rstrip())
        if not opening or (opening["fence"][0] == "`" and "`" in opening["info"]):
            i += 1
            continue
        marker, indent = opening["fence"], len(opening["indent"])
        words = opening["info"].strip().split()
        info = words[0].strip("{}.").lower() if words else ""
        body: list[str] = []
        i += 1
        while i < len(lines):
            stripped = lines[i].strip()
            if (
                len(lines[i]) - len(lines[i].lstrip(" ")) <= 3
                and stripped
                and set(stripped) == {marker[0]}
                and len(stripped) >= len(marker)
            ):
                break
            line = lines[i]
            body.append(line[min(indent, len(line) - len(line.lstrip(" "))):])
            i += 1
        i += 1
        blocks.append((info, "\n".join(body)))
    return blocks


def extract_code(reply: str, language: str) -> str | None:
    """The code to try: the longest block fenced as `language`, else the longest untagged block, else None."""
    blocks = code_blocks(reply)
    wanted = _aliases(language)
    for keep in (lambda info: info in wanted, lambda info: info == ""):
        chosen = [content for info, content in blocks if keep(info) and content.strip()]
        if chosen:
            lines = max(chosen, key=len).splitlines()
            while lines and not lines[0].strip():
                lines.pop(0)
            return "\n".join(lines).rstrip() + "\n"
    return None
