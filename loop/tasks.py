"""Load a task folder (`harness/tasks/<name>/`) into a `Task`: contract, baseline, reference, tests, goldens.

A task is data in a folder, so adding one never means editing `loop/`; every malformed piece is a
`TaskError` naming the file and the problem.
"""

from __future__ import annotations

import functools
import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from loop.cachedir import files_digest
from loop import verdicts as V
from loop.errors import TaskError
from loop.oracles.oracle import Oracle
from loop.sandbox import Limits
from loop.codec import dec
from loop.cppwire import Signature

LANGUAGES = ("python", "cpp")
TASK_KEYS = {
    "name", "language", "entry_point", "candidate_file", "description", "bug_report",
    "contract", "baseline", "reference", "tests", "goldens", "golden_format", "signature",
    "limits", "build", "suite", "example", "kind",
}


class CheckSource(str):
    """A test given as Python source defining `check(candidate)`, run inside the sandbox against the
    candidate function (pass = no exception). Only for imported tasks whose assertions cannot be split
    into (args, expected) pairs: the expected values of that one test then live in the sandbox."""


@dataclass(frozen=True)
class Test:
    name: str
    kind: str  # f2p | p2p | gen (generation tasks without a baseline)
    suites: tuple[str, ...]
    args: tuple
    expected: Any


@dataclass(frozen=True)
class Golden:
    case: str
    args: tuple
    expected: Any


@dataclass(frozen=True)
class Task:
    name: str
    path: Path
    language: str
    entry_point: str
    candidate_file: str
    description: str
    bug_report: str
    contract: str
    contract_file: str
    baseline: str | None
    reference: str | None
    tests: tuple[Test, ...]
    goldens: tuple[Golden, ...]
    limits: Limits
    build_flags: tuple[str, ...] = ()
    sanitizer_flags: tuple[str, ...] = ()
    signature: Signature | None = None  # C++: the entry point's types, from which its wire codec and driver come
    default_suite: str = "full"
    example: str | None = None
    oracle_path: Path | None = field(default=None, compare=False, repr=False)
    kind: str = "function"  # the TaskKind that loads and grades it (loop.kinds)

    @functools.cached_property
    def oracle(self) -> Oracle | None:
        """relations.py as an Oracle, loaded once, on first use: a grade without relations or goldens never
        executes it. A malformed file is a TaskError naming it."""
        return Oracle.load(self.oracle_path) if self.oracle_path is not None else None

    @functools.cached_property
    def digest(self) -> str:
        """sha256 of the folder's files, read once per loaded task (refs, caches and clusters key on it)."""
        return task_digest(self.path)

    def selected(self, suite: str) -> list[Test]:
        return [t for t in self.tests if suite in t.suites]

    def canonical(self, output):
        """The task's canonical form of an output (raises ValueError on malformed output)."""
        if self.oracle is not None and self.oracle.canonicalize is not None:
            return self.oracle.canonicalize(output)
        return output


def task_files(folder: Path) -> list[Path]:
    """The files that make a task (what its digest covers and what a cluster ships): no bytecode caches."""
    return sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts)


def task_digest(folder: Path) -> str:
    return files_digest(folder, task_files(folder))


def tasks_root(root: Path) -> Path:
    return root / "harness" / "tasks"


def list_tasks(root: Path) -> list[str]:
    base = tasks_root(root)
    return sorted(p.name for p in base.iterdir() if (p / "task.toml").is_file()) if base.is_dir() else []


def summaries(root: Path) -> list[dict]:
    """One row per task, as `loop tasks list` shows it (the kind says how each is graded)."""
    rows = []
    for name in list_tasks(root):
        t = load(root, name)
        rows.append({"name": t.name, "kind": t.kind, "language": t.language, "tests": len(t.tests),
                     "goldens": len(t.goldens), "baseline": t.baseline is not None,
                     "relations": t.oracle_path is not None, "description": t.description})
    return rows


def load(root: Path, name: str) -> Task:
    folder = tasks_root(root) / name
    if not (folder / "task.toml").is_file():
        known = ", ".join(list_tasks(root)) or "none"
        raise TaskError(f"unknown task '{name}' (known: {known})")
    return load_folder(folder)


def _read(folder: Path, rel: str | None, what: str, required: bool = True) -> str | None:
    if rel is None:
        if required:
            raise TaskError(f"{folder / 'task.toml'}: missing key '{what}'")
        return None
    path = folder / rel
    if not path.is_file():
        raise TaskError(f"{path}: {what} file is missing")
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise TaskError(f"{path}: {what} file is not UTF-8") from None


def load_folder(folder: Path) -> Task:
    """Read task.toml and let the task's kind (`kind`, default "function") load the rest."""
    from loop import kinds

    meta_path = folder / "task.toml"
    try:
        meta = tomllib.loads(meta_path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise TaskError(f"{meta_path}: not valid TOML ({exc})") from None
    kind = meta.get("kind", kinds.DEFAULT)
    if not isinstance(kind, str):
        raise TaskError(f"{meta_path}: key 'kind' must be a string")
    if not isinstance(meta.get("name"), str):
        raise TaskError(f"{meta_path}: key 'name' must be a string")
    if meta["name"] != folder.name:
        raise TaskError(f"{meta_path}: name '{meta['name']}' does not match the folder '{folder.name}'")
    return kinds.get(kind).load(folder, meta)


def load_function(folder: Path, meta: dict) -> Task:
    """A `function` task: call a Python or C++ function with arguments and compare the values."""
    meta_path = folder / "task.toml"
    unknown = set(meta) - TASK_KEYS
    if unknown:
        raise TaskError(f"{meta_path}: unknown key '{sorted(unknown)[0]}'")
    for key in ("name", "language", "entry_point", "candidate_file", "contract"):
        if not isinstance(meta.get(key), str):
            raise TaskError(f"{meta_path}: key '{key}' must be a string")
    if meta["language"] not in LANGUAGES:
        raise TaskError(f"{meta_path}: language '{meta['language']}' is not one of {', '.join(LANGUAGES)}")
    lim = meta.get("limits", {})
    try:
        limits = Limits(**{k: lim[k] for k in lim})
    except TypeError as exc:
        raise TaskError(f"{meta_path}: bad [limits] ({exc})") from None
    build = meta.get("build", {})
    language = meta["language"]
    signature = _signature(meta_path, meta) if language == "cpp" else None
    has_baseline = "baseline" in meta
    tests = _load_tests(folder, meta.get("tests"), has_baseline)
    goldens = _load_goldens(folder, meta.get("goldens"), meta.get("golden_format", "json"))
    if signature is not None:
        _check_signature(folder, signature, tests, goldens)
    oracle_path = folder / "relations.py" if (folder / "relations.py").is_file() else None
    return Task(
        name=meta["name"],
        path=folder,
        language=language,
        entry_point=meta["entry_point"],
        candidate_file=meta["candidate_file"],
        description=str(meta.get("description", "")),
        bug_report=str(meta.get("bug_report", "")),
        contract=_read(folder, meta["contract"], "contract"),
        contract_file=meta["contract"],
        baseline=_read(folder, meta.get("baseline"), "baseline", required=False),
        reference=_read(folder, meta.get("reference"), "reference", required=False),
        tests=tests,
        goldens=goldens,
        limits=limits,
        build_flags=tuple(build.get("flags", ["-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror"])),
        sanitizer_flags=tuple(build.get("sanitizer_flags", ["-fsanitize=address,undefined", "-fno-omit-frame-pointer", "-fno-sanitize-recover=all"])),
        signature=signature,
        default_suite=str(meta.get("suite", "full")),
        example=meta.get("example"),
        oracle_path=oracle_path,
    )


def _signature(meta_path: Path, meta: dict) -> Signature:
    """A C++ task's [signature] table: its argument and return types (loop/cppwire.py)."""
    if "signature" not in meta:
        raise TaskError(f"{meta_path}: C++ tasks need a [signature] table (args = [types], returns = type)")
    try:
        return Signature.from_table(meta["entry_point"], meta["signature"])
    except ValueError as exc:
        raise TaskError(f"{meta_path}: [signature]: {exc}") from None


def _check_signature(folder: Path, sig: Signature, tests: tuple[Test, ...], goldens: tuple[Golden, ...]) -> None:
    """Every test and golden must be something the C++ entry point can take and return."""
    cases = [(f"{folder / 'tests.json'}: test '{t.name}'", t) for t in tests]
    cases += [(f"{folder / 'goldens' / g.case}", g) for g in goldens]
    for where, case in cases:
        if any(isinstance(a, CheckSource) for a in case.args):
            raise TaskError(f"{where}: C++ tasks take no 'check' tests")
        try:
            sig.check_args(case.args)
        except (ValueError, TypeError) as exc:
            raise TaskError(f"{where}: the input does not fit [signature] ({exc})") from None
        if not sig.fits_return(case.expected):
            raise TaskError(f"{where}: the expected value is not a {sig.returns}")


def _load_tests(folder: Path, rel: str | None, has_baseline: bool) -> tuple[Test, ...]:
    if rel is None:
        return ()
    path = folder / rel
    text = _read(folder, rel, "tests")
    try:
        raw = json.loads(text)
    except ValueError as exc:
        raise TaskError(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(raw, list):
        raise TaskError(f"{path}: must hold a JSON list of tests")
    tests, seen = [], set()
    for i, t in enumerate(raw):
        where = f"{path}: test {i + 1}"
        if not isinstance(t, dict) or not isinstance(t.get("name"), str):
            raise TaskError(f"{where} has no 'name'")
        where = f"{path}: test '{t['name']}'"
        if t["name"] in seen:
            raise TaskError(f"{where} is defined twice")
        seen.add(t["name"])
        if "check" in t:
            if not isinstance(t["check"], str) or {"input", "args", "expected"} & set(t):
                raise TaskError(f"{where}: 'check' must be Python source, without 'input', 'args' or 'expected'")
        elif "expected" not in t:
            raise TaskError(f"{where} has no 'expected'")
        if "check" not in t and ("input" in t) == ("args" in t):
            raise TaskError(f"{where} needs exactly one of 'input' or 'args'")
        kind = t.get("kind", V.F2P if has_baseline else "gen")
        if kind not in (V.F2P, V.P2P, "gen"):
            raise TaskError(f"{where}: kind '{kind}' is not f2p or p2p")
        suites = t.get("suites", ["full"])
        if not isinstance(suites, list) or not set(suites) <= set(V.SUITES):
            raise TaskError(f"{where}: suites must be a list of {', '.join(V.SUITES)}")
        try:
            if "check" in t:
                args, expected = (CheckSource(t["check"]),), None
            else:
                args = tuple(dec(t["args"])) if "args" in t else (dec(t["input"]),)
                expected = dec(t["expected"])
        except (ValueError, TypeError) as exc:
            raise TaskError(f"{where}: bad value ({exc})") from None
        suites = tuple(dict.fromkeys([*suites, "full"]))
        tests.append(Test(t["name"], kind, suites, args, expected))
    return tuple(tests)


def _parse_pairs(text: str) -> list[list[int]]:
    """`golden_format = "pairs"`: a count, then one `lo hi` pair per line."""
    nums = [int(tok) for tok in text.split()]
    if not nums or nums[0] != (len(nums) - 1) // 2 or (len(nums) - 1) % 2:
        raise ValueError("expected a count followed by that many 'lo hi' pairs")
    return [[nums[i], nums[i + 1]] for i in range(1, len(nums), 2)]


def _load_goldens(folder: Path, rel: str | None, fmt: str) -> tuple[Golden, ...]:
    if rel is None:
        return ()
    gdir = folder / rel
    if not gdir.is_dir():
        raise TaskError(f"{gdir}: goldens folder is missing")
    out = []
    for inp in sorted(gdir.glob("*.in")):
        expected_path = inp.with_suffix(".out")
        if not expected_path.is_file():
            raise TaskError(f"{expected_path}: golden output is missing")
        try:
            if fmt == "pairs":
                args, expected = (_parse_pairs(inp.read_text()),), _parse_pairs(expected_path.read_text())
            elif fmt == "json":
                args, expected = (dec(json.loads(inp.read_text())),), dec(json.loads(expected_path.read_text()))
            else:
                raise TaskError(f"{folder / 'task.toml'}: golden_format '{fmt}' is not json or pairs")
        except (ValueError, UnicodeDecodeError) as exc:
            raise TaskError(f"{inp}: golden does not parse ({exc})") from None
        out.append(Golden(inp.stem, args, expected))
    return tuple(out)
