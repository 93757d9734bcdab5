"""The docs say what is so (issue 47): every config key they name is one loop knows and the shipped config.toml
sets, every relative link resolves (file and heading), every repository path they cite exists."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from loop.config import SECTIONS, config_fields

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md"), *(ROOT / "harness").rglob("README.md")])
SHIPPED = tomllib.loads((ROOT / "config.toml").read_text(encoding="utf-8"))


def _code_spans(text: str) -> list[str]:
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)  # commands in fenced blocks are not claims of paths
    return re.findall(r"`([^`\n]+)`", text)


def _ids(paths: list[Path]) -> list[str]:
    return [str(p.relative_to(ROOT)) for p in paths]


@pytest.mark.parametrize("doc", DOCS, ids=_ids(DOCS))
def test_every_config_key_named_is_known_and_shipped(doc):
    known = {name: {f.name for f in config_fields(cls)} for name, cls in SECTIONS.items()}
    named = set()
    for span in _code_spans(doc.read_text(encoding="utf-8")):
        for section, key in re.findall(r"^(loop|sandbox|endpoint|cluster)\.([a-z_]+)$", span.strip()):
            if section == "loop" and ((ROOT / "loop" / key).is_dir() or (ROOT / "loop" / f"{key}.py").is_file()):
                continue  # `loop.tasks` the module, not the key
            named.add((section, key))
        for section, key in re.findall(r"^\[(loop|sandbox|endpoint|cluster)\] ([a-z_]+)$", span.strip()):
            named.add((section, key))
    unknown = sorted(f"{s}.{k}" for s, k in named if k not in known[s])
    unshipped = sorted(f"{s}.{k}" for s, k in named if k in known[s] and k not in SHIPPED.get(s, {}))
    assert unknown == [] and unshipped == [], (unknown, unshipped)


def test_the_shipped_config_has_every_section_and_key_the_readme_counts():
    assert sorted(SHIPPED) == sorted(SECTIONS)
    for name, cls in SECTIONS.items():
        assert sorted(SHIPPED[name]) == sorted(f.name for f in config_fields(cls)), name
    count = re.search(r"`config\.toml` \(or `--config FILE`, or `\$LOOP_CONFIG`\) has (\w+) sections",
                      (ROOT / "README.md").read_text(encoding="utf-8"))
    assert count and count.group(1) == {3: "three", 4: "four", 5: "five"}[len(SECTIONS)]


def _slug(heading: str) -> str:
    """GitHub's anchor of a heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    text = re.sub(r"^```.*?^```", "", path.read_text(encoding="utf-8"), flags=re.S | re.M)
    return {_slug(h) for h in re.findall(r"^#+ (.+)$", text, flags=re.M)}


@pytest.mark.parametrize("doc", DOCS, ids=_ids(DOCS))
def test_every_relative_link_resolves(doc):
    text = re.sub(r"^```.*?^```", "", doc.read_text(encoding="utf-8"), flags=re.S | re.M)
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue  # https:, mailto:
        file, _, anchor = target.partition("#")
        path = (doc.parent / file).resolve() if file else doc
        if not path.exists():
            broken.append(target)
        elif anchor and path.suffix == ".md" and anchor not in _anchors(path):
            broken.append(target)
    assert broken == []


# what the docs name that is made at run time, not kept in the repository
_MADE = ("harness/tasks/humaneval_", "harness/tasks/mbpp_", "harness/tasks/<", "harness/seeds/current.seed")


@pytest.mark.parametrize("doc", DOCS, ids=_ids(DOCS))
def test_every_repository_path_cited_exists(doc):
    missing = []
    for span in _code_spans(doc.read_text(encoding="utf-8")):
        span = span.strip()
        if (not re.fullmatch(r"(loop|harness|tests|docs|prompts|bench|\.ci)/[\w./-]*", span) or span.startswith(_MADE)
                or "NNN" in span):  # a pattern (pNNN.py), not a path
            continue
        path = span.split("::")[0]
        if not (ROOT / path).exists():
            missing.append(span)
    assert missing == []


def test_every_module_the_shipped_config_cites_exists():
    cited = re.findall(r"\bloop/[\w/]+\.py\b", (ROOT / "config.toml").read_text(encoding="utf-8"))
    assert cited and [c for c in cited if not (ROOT / c).is_file()] == []


@pytest.mark.slow
def test_the_canonical_solution_figures_of_humaneval_md_hold(tmp_path):
    """docs/humaneval.md's figures for the 164 canonical solutions (k=1, no fuzzing), run as the page says."""
    import json
    import sqlite3

    from click.testing import CliRunner

    from loop.cli import cli
    from loop.datasets.humaneval import tasks as humaneval

    page = (ROOT / "docs" / "humaneval.md").read_text(encoding="utf-8")
    passed, failed = map(int, re.search(r"\((\d+) `stable_pass`, (\d+) `stable_fail`\)", page).groups())
    listed = re.search(r"the list under \[Input contracts\]\(#input-contracts\): ([/\d, \n]+);", page).group(1)

    def numbers(bullet: str) -> set[int]:
        text = re.search(rf"- \*\*{re.escape(bullet)} \((\d+)\):\*\*(.*?)(?=\n- |\n\n)", page, re.S)
        found = {int(n) for n in re.findall(r"/(\d+)", text.group(2))}
        assert len(found) == int(text.group(1)), bullet
        return found

    clock, memory, docstring = numbers("By the clock, not by a test"), numbers("By memory"), \
        numbers("By their `docstring_NN` tests")
    problems = humaneval.read_problems()
    (tmp_path / "config.toml").write_text(f'[loop]\ndb = "{tmp_path / "runs.db"}"\n')
    humaneval.import_humaneval(tmp_path / "harness" / "tasks", problems)
    samples = tmp_path / "canonical.jsonl"
    samples.write_text("".join(json.dumps({"task_id": p["task_id"], "completion": p["canonical_solution"]}) + "\n"
                               for p in problems))
    result = CliRunner().invoke(cli, ["--config", str(tmp_path / "config.toml"), "grade", "--samples", str(samples),
                                      "--k", "1", "--trials", "0", "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    rows = sqlite3.connect(tmp_path / "runs.db").execute("select task, verdict, reason from candidates").fetchall()
    fails = {int(task.rsplit("_", 1)[1]): reason for task, verdict, reason in rows if verdict != "stable_pass"}
    assert (len(rows) - len(fails), len(fails)) == (passed, failed)
    assert set(fails) == {int(n) for n in re.findall(r"/(\d+)", listed)} == clock | memory | docstring
    assert {n for n, r in fails.items() if r == "timeout"} == clock
    assert {n for n, r in fails.items() if r == "resource"} == memory
    assert {n for n, r in fails.items() if r.startswith("test:docstring_")} == docstring
