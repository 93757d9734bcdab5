"""What a SWE-bench instance's environment is made of: the requirements its project declares, read as
SWE-bench reads them (never executed), and --requirements given per instance or per repository."""

from __future__ import annotations

import configparser
import os
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from loop.errors import SwebenchError
from loop.kinds.repo import metadata as repo_metadata
from loop.kinds.repo import PYTEST

TEST_EXTRAS = ("test", "tests", "testing")
_REQ_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def _str_list(value) -> list[str]:
    return [v.strip() for v in value if isinstance(v, str) and v.strip()] if isinstance(value, list) else []


def _lines(value: str) -> list[str]:
    return [x.split("#", 1)[0].strip() for x in value.splitlines() if x.split("#", 1)[0].strip()]


@dataclass
class Declared:
    """What a project declares it needs, where each came from, and what could not be read."""

    found: list[tuple[str, list[str]]]  # (where, requirements): "setup.py extras_require['test']", [...]
    warnings: list[str]
    dropped: list[str] = field(default_factory=list)  # lines read and left out on purpose, and why

    @property
    def requirements(self) -> list[str]:
        return list(dict.fromkeys(r for _, reqs in self.found for r in reqs))


def read_declared(read: Callable[[str], str | None]) -> Declared:
    """What the project declares it needs at `commit`: pyproject.toml's [project] dependencies, setup.cfg's
    install_requires, setup.py's install_requires / tests_require (literals, or names bound to literals at
    module level), each with a test/tests/testing extra; then requirements.txt and the test requirements
    files (either spelling; a dev file only when there is no test file), `-r` followed inside the repository;
    then tox.ini's [testenv] deps, without the lines only a tox factor selects (`py27: mock`). Read, never
    executed: setup.py is code from the repository."""
    out = Declared([], [])

    def add(where: str, reqs: list[str]) -> None:
        if reqs:
            out.found.append((where, reqs))

    text_ = read("pyproject.toml")
    if text_:
        try:
            project = tomllib.loads(text_).get("project", {})
        except tomllib.TOMLDecodeError:
            project = {}
            out.warnings.append("pyproject.toml is not valid TOML: not read")
        if isinstance(project, dict):
            add("pyproject.toml [project] dependencies", _str_list(project.get("dependencies")))
            extras = project.get("optional-dependencies")
            for name in TEST_EXTRAS:
                add(f"pyproject.toml optional-dependencies.{name}",
                    _str_list(extras.get(name)) if isinstance(extras, dict) else [])
            dynamic = project.get("dynamic")
            if isinstance(dynamic, list) and "dependencies" in dynamic:
                out.warnings.append("pyproject.toml: dependencies are dynamic (computed at build time): not read")
    text_ = read("setup.cfg")
    if text_:
        parser = configparser.ConfigParser(interpolation=None)
        try:
            parser.read_string(text_)
            add("setup.cfg install_requires", _lines(parser.get("options", "install_requires", fallback="")))
            for name in TEST_EXTRAS:
                add(f"setup.cfg extras_require.{name}", _lines(parser.get("options.extras_require", name, fallback="")))
        except configparser.Error:
            out.warnings.append("setup.cfg could not be parsed: not read")
    text_ = read("setup.py")
    if text_:
        _setup_py(text_, add, out.warnings)
    tests_files = [rel for rel in TEST_REQUIREMENT_FILES if read(rel)]
    files = (["requirements.txt"] if read("requirements.txt") else []) + \
        (tests_files or [rel for rel in DEV_REQUIREMENT_FILES if read(rel)][:1])
    seen: set[str] = set()  # a file read once, however many lines include it
    for rel in files:
        _requirement_file(rel, read, add, out, seen)
    text_ = read("tox.ini")
    if text_:
        parser = configparser.ConfigParser(interpolation=None, strict=False)
        try:
            parser.read_string(text_)
            deps = _lines(parser.get("testenv", "deps", fallback=""))
        except configparser.Error:
            deps = []
            out.warnings.append("tox.ini could not be parsed: not read")
        for d in deps:  # tox reads `-r` relative to tox.ini, at the root
            include = _INCLUDE.match(d)
            if include and include.group(1) in ("-r", "--requirement"):
                _requirement_file(os.path.normpath(include.group(2)), read, add, out, seen)
        kept = [d for d in deps if not _TOX_FACTOR.match(d) and not d.startswith("-") and "{" not in d
                and not _LOCAL.match(d)]
        add("tox.ini [testenv] deps", kept)
        left = [d for d in deps if d not in kept and not _INCLUDE.match(d)]
        if left:
            out.dropped.append(f"tox.ini: {len(left)} line(s) tox selects by factor, substitutes, or that name a "
                               f"folder of the repository ({', '.join(repr(d) for d in left)[:200]})")
    return out


# SWE-bench's requirement paths, both spellings (pylint: requirements_test.txt), and pallets' requirements/
TEST_REQUIREMENT_FILES = ("requirements-test.txt", "requirements_test.txt", "requirements-tests.txt",
                          "requirements_tests.txt", "requirements/test.txt", "requirements/tests.txt")
DEV_REQUIREMENT_FILES = ("requirements-dev.txt", "requirements_dev.txt", "requirements/dev.txt")
_TOX_FACTOR = re.compile(r"^[A-Za-z0-9_.!,{}-]+:\s")  # `py27: mock`, `click7: click<8`, `!min: x`
_INCLUDE = re.compile(r"^(-r|--requirement|-c|--constraint)[\s=]+(\S+)$")
_LOCAL = re.compile(r"^(-e\s+|--editable\s+)?(\.|\.\.|[\w.-]+/)")  # a folder of the repository: `examples/app[test]`
_SELF = re.compile(r"^(-e|--editable)?\s*\.(\[[^\]]*\])?/?$")  # `-e .`, `.`, `-e .[test]`: the project itself


def _requirement_file(rel: str, read, add, out: Declared, seen: set[str]) -> None:
    """One requirements file's lines; `-r FILE` is followed when FILE is inside the repository (relative to the
    including file, as pip reads it); `-e .` means the project itself is installed; other options are dropped."""
    if rel in seen:
        return
    seen.add(rel)
    text_ = read(rel) or ""
    reqs = []
    for line in _lines(text_):
        if _SELF.match(line):
            out.dropped.append(f"{rel}: {line!r} (the project itself, which is installed)")
            continue
        include = _INCLUDE.match(line)
        if include and include.group(1) in ("-r", "--requirement"):
            target = os.path.normpath(os.path.join(os.path.dirname(rel), include.group(2)))
            if target.startswith(("..", "/")) or read(target) is None:
                out.warnings.append(f"{rel}: {line!r} names no file of the repository: not followed")
            else:
                add(rel, reqs)
                reqs = []
                _requirement_file(target, read, add, out, seen)
            continue
        if line.startswith("-") or _LOCAL.match(line):
            out.dropped.append(f"{rel}: {line!r} ({'a pip option' if line.startswith('-') else 'a folder of the repository'})")
            continue
        reqs.append(line)
    add(rel, reqs)


def _setup_py(source: str, add, warnings: list[str]) -> None:
    """setup.py's setup(...) keywords, read as literals; a name bound once at module level to something
    readable counts as what it is bound to (TEST_DEPS = [...]; extras_require={"test": TEST_DEPS})."""
    got = repo_metadata.setup_keywords(source)
    if got is None:
        warnings.append("setup.py is not valid Python: not read")
        return
    keywords, computed = got
    for what in computed:
        if what.split(" ", 1)[0] in ("install_requires", "tests_require", "extras_require"):
            warnings.append(f"setup.py: {what.split(' ', 1)[0]} is computed {what.split(' ', 1)[1]}, not a literal "
                            "or a name bound to one: not read")
    for key in ("install_requires", "tests_require", "extras_require"):
        if key not in keywords:
            continue
        got = keywords[key]
        if key == "extras_require":
            for name in TEST_EXTRAS:
                add(f"setup.py extras_require[{name!r}]", _str_list(got.get(name)) if isinstance(got, dict) else [])
        else:
            add(f"setup.py {key}", _str_list(got))


def requirement_names(requirements: list[str]) -> set[str]:
    return {m.group(1).lower().replace("_", "-") for m in map(_REQ_NAME.match, requirements) if m}


def requirements_text(declared: list[str]) -> str:
    """The declared requirements plus pytest (pinned unless the project names its own)."""
    return "\n".join(declared + ([] if "pytest" in requirement_names(declared) else [PYTEST])) + "\n"



@dataclass(frozen=True)
class Requirements:
    """--requirements: one FILE for every instance, or a DIR of files per instance (`<instance_id>.txt`) or per
    repository (`<owner>__<name>.txt`); an instance with neither keeps what its project declares."""
    files: dict[str, tuple[str, Path]]  # stem -> (text, path); "" for the one FILE
    folder: Path | None

    @classmethod
    def read(cls, path: Path) -> Requirements:
        def text_of(p: Path) -> tuple[str, Path]:
            try:
                return p.read_text(encoding="utf-8"), p
            except (OSError, UnicodeDecodeError) as exc:
                raise SwebenchError(f"{p}: cannot read the requirements file ({exc.__class__.__name__})") from None
        if path.is_dir():
            files = {p.name[:-4]: text_of(p) for p in sorted(path.glob("*.txt")) if p.is_file()}
            if not files:
                raise SwebenchError(f"--requirements {path}: the folder holds no <instance_id>.txt or "
                                    "<owner>__<name>.txt file")
            return cls(files, path)
        return cls({"": text_of(path)}, None)

    def get(self, inst) -> tuple[str, Path] | None:
        if self.folder is None:
            return self.files[""]
        return self.files.get(inst.instance_id) or self.files.get(inst.repo.replace("/", "__"))
