"""Load a `function` task folder: contract, baseline, reference, named tests, goldens, C++ signature.

Every malformed piece is a `TaskError` naming the file and the problem.
"""

from __future__ import annotations

import json
from pathlib import Path

from loop import verdicts as V
from loop.errors import TaskError
from loop.kinds.function.cppwire import Signature
from loop.kinds.task import CheckSource, Golden, Task, Test, check_keys
from loop.sandbox import Limits
from loop.sandbox.inside.codec import dec

LANGUAGES = ("python", "cpp")


TASK_KEYS = {
    "name", "language", "entry_point", "candidate_file", "description", "bug_report",
    "contract", "baseline", "reference", "tests", "goldens", "golden_format", "signature",
    "limits", "build", "suite", "example", "kind",
}


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


def load_function(folder: Path, meta: dict) -> Task:
    """A `function` task: call a Python or C++ function with arguments and compare the values."""
    meta_path = folder / "task.toml"
    check_keys(meta_path, meta, TASK_KEYS, ("name", "language", "entry_point", "candidate_file", "contract"))
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
    """A C++ task's [signature] table: its argument and return types (loop.kinds.function.cppwire)."""
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
        if not isinstance(t.get("shared", False), bool):
            raise TaskError(f"{where}: shared must be true or false")
        suites = tuple(dict.fromkeys([*suites, "full"]))
        tests.append(Test(t["name"], kind, suites, args, expected, t.get("shared", False)))
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
