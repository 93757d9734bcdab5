"""What a patch changed that a test framework would load on its own: configuration, plugins, start-up hooks,
modules that shadow the framework, new test files, module pins. A patch that touches one is refused
(`touches_test_infrastructure`).

The test command runs the candidate's code in its own process, so these files are a way to rewrite the report
without touching the code under test. The screen reads the paths the patch changed in the tree (changes.between,
never the diff's text) and, for Go, the directives and package-level names of each changed .go file before and
after (a predeclared name redeclared replaces it in the package's tests); run-time tampering
from the code under test is caught by tripwire tests (repo_tripwire), not here.
"""

from __future__ import annotations

import fnmatch
import os
import re
import sys
from pathlib import Path, PurePosixPath

from loop.kinds.repo.changes import Change
from loop.kinds.repo.patch import read_capped
from loop.kinds.repo.seal_js_go import go_helper_names, lex

TOUCHES_TEST_INFRASTRUCTURE = "touches_test_infrastructure"

# Files the runners read on their own, by base name (any folder).
_CONFIG = {
    # pytest: configuration, plugins and start-up hooks; Python: site hooks
    "conftest.py": "a pytest plugin file", "pytest.ini": "pytest settings", ".pytest.ini": "pytest settings",
    "pytest.toml": "pytest settings", ".pytest.toml": "pytest settings",  # pytest 9
    "tox.ini": "pytest settings", "setup.cfg": "pytest settings", "pyproject.toml": "pytest settings",
    "sitecustomize.py": "a Python start-up hook", "usercustomize.py": "a Python start-up hook",
    # node: module type, import maps, scripts, registries, other runners' settings
    "package.json": "node's package settings (type, imports, scripts)", "package-lock.json": "node's package lock",
    ".npmrc": "npm settings", ".noderc": "node settings",
    # go: module pins and replacements
    "go.mod": "Go's module file", "go.sum": "Go's module checksums", "go.work": "a Go workspace",
    "go.work.sum": "a Go workspace",
}
_CONFIG_GLOBS = {"*.pth": "a Python path hook", ".mocharc*": "mocha settings", "jest.config.*": "jest settings",
                 "vitest.config.*": "vitest settings", "babel.config.*": "babel settings", ".babelrc*": "babel settings",
                 "*.pyc": "compiled Python the importer may prefer to the source",
                 "*.so": "a compiled module the importer prefers to the source"}
_FOLDERS = {"node_modules": "installed node packages", "vendor": "vendored Go modules",
            "__pycache__": "compiled Python"}
# Folders by suffix: installed-package metadata on sys.path (pytest loads the plugins its entry points name)
_FOLDER_SUFFIXES = {".dist-info": "installed-package metadata (entry points: pytest plugins)",
                    ".egg-info": "installed-package metadata (entry points: pytest plugins)",
                    ".egg-link": "an installed-package link"}
# New files the runners collect on their own (an existing test file is the task's test_paths' business).
TEST_FILES = ("test_*.py", "*_test.py", "*_test.go", "*.test.js", "*.test.mjs", "*.test.cjs", "*-test.js",
               "*-test.mjs", "*-test.cjs", "*_test.js", "*_test.mjs", "*_test.cjs", "test-*.js", "test-*.mjs",
               "test-*.cjs", "test.js", "test.mjs", "test.cjs")
_JS = (".js", ".mjs", ".cjs")  # node --test also runs every such file in a `test` folder, at any depth
# Modules a new top-level file could shadow (the repository root is first on sys.path under `python -m`).
_FRAMEWORK_MODULES = {"pytest", "_pytest", "pluggy", "py", "iniconfig", "packaging", "junitparser", "xdist",
                      "hypothesis", "unittest", "site", "conftest"}
# Go: a TestMain runs before every test, build constraints drop files, linkname reaches into the testing
# package's internals. Directives are found anywhere in the text (a superset of where Go obeys them); TestMain in
# the source with comments and literals blanked, so no comment or spacing between its words hides it.
_GO_DIRECTIVE = re.compile(r"//[ \t]*(?:go:build|\+build|go:linkname)\b[^\n]*")
_GO_NOISE = re.compile(r"//[^\n]*|/\*.*?(?:\*/|\Z)|\"(?:\\.|[^\"\\\n])*\"?|`[^`]*`?|'(?:\\.|[^'\\\n])*'?", re.S)
_GO_TESTMAIN = re.compile(r"\bfunc\s+TestMain\b")
GO_FILE_MAX = 8 << 20


def go_directives(source: bytes) -> frozenset[str]:
    """The directives a Go file holds that change what `go test` runs: its build constraints and linknames
    (whitespace-normalised lines) and 'func TestMain'."""
    text = source.decode("utf-8", errors="replace")
    found = {" ".join(m.group(0).split()) for m in _GO_DIRECTIVE.finditer(text)}
    code = _GO_NOISE.sub(lambda m: " " if m.group(0).startswith("/") else '""', text)
    if _GO_TESTMAIN.search(code):
        found.add("func TestMain")
    return frozenset(found)


def _go_change(path: str, base: Path, patched: Path) -> str | None:
    """What of the Go directives a changed .go file gained or lost (a new file against nothing), or a predeclared
    name it newly declares at package level that its package's tests or loop's sealed-check helper use."""
    before, after = (read_capped(root / path, GO_FILE_MAX) if os.path.lexists(root / path) else b""
                     for root in (base, patched))
    if before is None or after is None:
        return f"{path} is not a regular file under {GO_FILE_MAX >> 20} MiB, so its Go directives cannot be read"
    diff = go_directives(before) ^ go_directives(after)
    if diff:
        return f"the patch adds or removes a Go directive the test binary obeys: {path}: {sorted(diff)[0]}"
    names = go_package_names(after)
    if names is None:  # (Go could not compile it either)
        return f"{path} does not read as Go source (an unclosed comment or string): its package-level names are unknown"
    new = names - (go_package_names(before) or set())
    # the module and the package's tests are read only for a file that newly declares a predeclared name (rare):
    # a patch changing many files of a package would otherwise read them once per file
    shadowed = sorted(new & _go_predeclared(patched) & (_go_test_names(patched, path) | go_helper_names())
                      if new & _GO_PREDECLARED.keys() else ())
    if shadowed:
        return (f"{path} declares '{shadowed[0]}' at package level, which replaces Go's predeclared {shadowed[0]} in "
                "the package's tests and in loop's sealed checks")
    return None


# Go's predeclared identifiers (types, constants, zero value, built-in functions), with the minor version that
# brought the newer ones: a declaration of one at package level replaces it in every file of the package, tests
# included (red team round twelve: a package-level `len` answered loop's sealed-check helper, a `recover` a test's
# own check). Shadowing is legal Go and rare in honest code; before 1.21, min, max and clear are ordinary names.
_GO_PREDECLARED = {**dict.fromkeys(
    "bool byte complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune string uint uint8 uint16 "
    "uint32 uint64 uintptr true false iota nil append cap close complex copy delete imag len make new panic print "
    "println real recover".split(), 0), "any": 18, "comparable": 18, "min": 21, "max": 21, "clear": 21}
_GO_VERSION = re.compile(rb"^go\s+1\.(\d+)", re.M)


def _go_predeclared(tree: Path) -> set[str]:
    """The predeclared names at the module's `go` version (its go.mod; every one without)."""
    mod = read_capped(tree / "go.mod", GO_FILE_MAX) if (tree / "go.mod").is_file() else None
    m = _GO_VERSION.search(mod or b"")
    minor = int(m.group(1)) if m else 1 << 30
    return {name for name, since in _GO_PREDECLARED.items() if since <= minor}


def _go_test_names(tree: Path, path: str) -> set[str]:
    """Every identifier of the test files in `path`'s folder (the hidden ones staged)."""
    folder = (tree / path).parent
    names: set[str] = set()
    for test in folder.glob("*_test.go") if folder.is_dir() else ():
        text = read_capped(test, GO_FILE_MAX) if test.is_file() and not test.is_symlink() else None
        names.update(re.findall(r"[A-Za-z_]\w*", (text or b"").decode("utf-8", errors="replace")))
    return names


_GO_ENDS_LINE = {"break", "continue", "fallthrough", "return", "++", "--", ")", "]", "}"}


def go_package_names(source: bytes) -> set[str] | None:
    """The names a Go file declares at package level: functions (not methods), and every name of its var, const
    and type specs, grouped or not. Read from its tokens, with Go's own rule for where a newline ends a spec;
    None when it does not lex."""
    toks = lex(source.decode("utf-8", errors="replace"), "go")
    if toks is None:
        return None
    toks = [t for t in toks if t.kind != "comment"]
    names: set[str] = set()
    depth, group, i = 0, None, 0  # group: the keyword of the var/const/type group open at depth 1
    while i < len(toks):
        t = toks[i]
        if depth == 0 and t.text == "func" and i + 1 < len(toks) and toks[i + 1].kind == "name":
            names.add(toks[i + 1].text)
        elif depth == 0 and t.text in ("var", "const", "type") and i + 1 < len(toks):
            if toks[i + 1].text == "(":
                group = t.text
            else:
                names |= _spec_names(toks, i + 1, t.text)
        elif depth == 1 and group and t.kind == "name" and _starts_spec(toks, i):
            names |= _spec_names(toks, i, group)
        if t.text in ("(", "[", "{"):
            depth += 1
        elif t.text in (")", "]", "}"):
            depth = max(depth - 1, 0)
            group = group if depth else None
        i += 1
    return names


def _starts_spec(toks: list, i: int) -> bool:
    """Is token i the first of a spec inside a group: after its `(`, a `;`, or a newline Go ends a line at."""
    prev = toks[i - 1]
    return prev.text in ("(", ";") or (prev.line < toks[i].line and (
        prev.kind in ("name", "num", "str", "rune") or prev.text in _GO_ENDS_LINE))


def _spec_names(toks: list, i: int, keyword: str) -> set[str]:
    """The names a spec starting at token i declares: a type spec's one, a var or const spec's list."""
    names = set()
    while i < len(toks) and toks[i].kind == "name":
        names.add(toks[i].text)
        if keyword == "type" or i + 1 >= len(toks) or toks[i + 1].text != ",":
            break
        i += 2
    return names


def _shadows(path: PurePosixPath) -> str | None:
    """A new top-level module (in the root or src/) named like the framework or a standard-library module."""
    parts = path.parts[1:] if path.parts[:1] == ("src",) else path.parts
    if not parts:
        return None
    stem = parts[0].split(".", 1)[0]
    if len(parts) == 1 and not parts[0].endswith((".py", ".pyc", ".so", ".pth")):
        return None
    if stem in _FRAMEWORK_MODULES or stem in sys.stdlib_module_names:
        return f"a module named '{stem}' that would shadow the test framework or the standard library"
    return None


def _why(raw: str, tree: Path) -> str | None:
    path = PurePosixPath(raw)
    what = _CONFIG.get(path.name) or next((w for g, w in _CONFIG_GLOBS.items() if fnmatch.fnmatchcase(path.name, g)),
                                          None)
    if what is None:
        what = next((w for part, w in _FOLDERS.items() if part in path.parts[:-1]), None)
    if what is None:
        what = next((w for part in path.parts for suffix, w in _FOLDER_SUFFIXES.items()
                     if part.lower().endswith(suffix)), None)  # importlib.metadata lowercases before matching
    is_new = not (tree / str(path)).exists()
    if what is None and is_new and (any(fnmatch.fnmatchcase(path.name, g) for g in TEST_FILES)
                                    or (path.suffix in _JS and "test" in path.parts[:-1])):
        what = "a new test file the runner would collect"
    if what is None and is_new:
        what = _shadows(path)
    return what


def infrastructure(paths: list[str], tree: Path) -> list[str]:
    """The paths among `paths` that are test infrastructure (what a task's allow_test_infrastructure would
    have to name for a patch that touches them to be graded)."""
    return sorted({str(PurePosixPath(p)) for p in paths if _why(p, tree)})


def screen(changes: list[Change], base: Path, patched: Path, allowed: tuple[str, ...] = ()) -> str | None:
    """Why the patch touches test infrastructure (one line naming the file), or None. `changes`: what it changed
    from `base` to `patched`; `allowed`: globs a task lets patches edit (its own allow_test_infrastructure)."""
    for change in changes:
        norm = str(PurePosixPath(change.path))
        if any(fnmatch.fnmatchcase(norm, g) or fnmatch.fnmatchcase(PurePosixPath(norm).name, g) for g in allowed):
            continue
        what = _why(change.path, base)
        if what:
            return f"the patch edits {norm}: {what}"
    for change in changes:
        if change.path.endswith(".go"):
            why = _go_change(change.path, base, patched)
            if why:
                return why
    return None
