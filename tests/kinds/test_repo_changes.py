"""What a patch changed, read from the tree (issue 41): every header form git accepts, applied by real `git apply`,
changes exactly the paths the screens then see; the diff parser that stays as a first fence names at least those;
the Go directive screen reads the changed files, not the diff's lines."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from loop.kinds.repo import changes as repo_changes
from loop.kinds.repo import patch as repo_patch
from loop.kinds.repo import screen as repo_screen
from test_repo_integrity import git_apply

BASE = {"tests/test_tax.py": "def test_a():\n    assert 1\n", "ledger/tax.py": "RATE = 8\n",
        "ledger/run.sh": "echo hi\n", "my dir/x.py": "x = 1\n", "empty.txt": ""}
T = "tests/test_tax.py"
EDIT_T = "@@ -1,2 +1,2 @@\n def test_a():\n-    assert 1\n+    assert True\n"

FORMS = {  # name: (diff, the paths git changes)
    "plain": (f"diff --git a/{T} b/{T}\nindex 1111111..2222222 100644\n--- a/{T}\n+++ b/{T}\n{EDIT_T}", {T}),
    "two spaces, no ---/+++": (f"diff --git a/{T}  b/{T}\nindex 1111111..2222222 100644\n{EDIT_T}", {T}),
    "a tab, no ---/+++": (f"diff --git a/{T}\tb/{T}\nindex 1111111..2222222 100644\n{EDIT_T}", {T}),
    "other prefixes, no ---/+++": (f"diff --git x/{T} y/{T}\nindex 1111111..2222222 100644\n{EDIT_T}", {T}),
    "a root conftest.py, two spaces": ("diff --git a/conftest.py  b/conftest.py\nnew file mode 100644\n"
                                       "index 0000000..1111111\n@@ -0,0 +1 @@\n+import pytest\n", {"conftest.py"}),
    "C-quoted names": ('diff --git "a/t\\303\\251st.py" "b/t\\303\\251st.py"\nnew file mode 100644\n--- /dev/null\n'
                       '+++ "b/t\\303\\251st.py"\n@@ -0,0 +1 @@\n+x = 1\n', {"tést.py"}),
    "C-quoted, no ---/+++": ('diff --git "a/tests/n\\145w.py" "b/tests/n\\145w.py"\nnew file mode 100644\n'
                             "index 0000000..1111111\n@@ -0,0 +1 @@\n+x = 1\n", {"tests/new.py"}),
    "quoted second name only": ('diff --git a/tests/q.py "b/tests/q.py"\nnew file mode 100644\n'
                                "index 0000000..1111111\n@@ -0,0 +1 @@\n+x = 1\n", {"tests/q.py"}),
    "spaces in the name": ("diff --git a/my dir/x.py b/my dir/x.py\nindex 1111111..2222222 100644\n"
                           "@@ -1 +1 @@\n-x = 1\n+x = 2\n", {"my dir/x.py"}),
    "rename": (f"diff --git a/ledger/tax.py b/{T}x\nsimilarity index 100%\nrename from ledger/tax.py\n"
               f"rename to {T}x\n", {"ledger/tax.py", f"{T}x"}),
    "rename old/new": (f"diff --git a/{T} b/ledger/t.py\nrename old {T}\nrename new ledger/t.py\n",
                       {T, "ledger/t.py"}),
    "rename, two spaces": (f"diff --git a/{T}  b/ledger/t.py\nrename from {T}\nrename to ledger/t.py\n",
                           {T, "ledger/t.py"}),
    "copy": (f"diff --git a/ledger/tax.py b/tests/tax.py\nsimilarity index 100%\ncopy from ledger/tax.py\n"
             "copy to tests/tax.py\n", {"tests/tax.py"}),
    "mode only": (f"diff --git a/{T} b/{T}\nold mode 100644\nnew mode 100755\n", {T}),
    "mode only, a tab": (f"diff --git a/{T}\tb/{T}\nold mode 100644\nnew mode 100755\n", {T}),
    "new empty file": ("diff --git a/pytest.ini b/pytest.ini\nnew file mode 100644\n", {"pytest.ini"}),
    "delete an empty file, two spaces": ("diff --git a/empty.txt  b/empty.txt\ndeleted file mode 100644\n",
                                         {"empty.txt"}),
    "delete": (f"diff --git a/{T} b/{T}\ndeleted file mode 100644\n--- a/{T}\n+++ /dev/null\n"
               "@@ -1,2 +0,0 @@\n-def test_a():\n-    assert 1\n", {T}),
    "traditional": (f"--- a/{T}\n+++ b/{T}\n{EDIT_T}", {T}),
    "traditional with dates": (f"--- a/{T}\t2024-01-01 10:00:00.000000000 +0000\n"
                               f"+++ b/{T}\t2024-01-02 10:00:00.000000000 +0000\n{EDIT_T}", {T}),
    "traditional, a date after spaces": (f"--- a/{T}  2024-01-01 10:00:00\n+++ b/{T}  2024-01-02 10:00:00\n{EDIT_T}",
                                         {T}),
    "two sections": (f"diff --git a/ledger/tax.py b/ledger/tax.py\n--- a/ledger/tax.py\n+++ b/ledger/tax.py\n"
                     f"@@ -1 +1 @@\n-RATE = 8\n+RATE = 9\ndiff --git a/{T}  b/{T}\nindex 1..2 100644\n{EDIT_T}",
                     {"ledger/tax.py", T}),
}


def _base(root: Path) -> Path:
    for rel, body in BASE.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(body)
    return root


@pytest.fixture
def trees(tmp_path):
    base = _base(tmp_path / "base" / "repo")
    return base, repo_patch.fresh_copy(base, tmp_path / "patched" / "repo")


@pytest.mark.parametrize("form", FORMS)
def test_every_header_form_git_applies_is_screened(form, trees):
    diff, want = FORMS[form]
    base, patched = trees
    done = git_apply(diff, patched)
    assert done.returncode == 0, done.stderr
    changed = repo_changes.between(base, patched)
    assert {c.path for c in changed} == want  # what git changed is what the screens read
    assert want <= set(repo_patch.paths_in(diff)[0])  # and the first fence names it too
    if any(p.startswith("tests/") for p in want):
        assert repo_patch.refuse_changes(changed, base, ["tests/"], []).check == repo_patch.TOUCHES_TESTS
        assert repo_patch.refuse(diff, base, ["tests/"], []).check == repo_patch.TOUCHES_TESTS


def test_two_spaces_once_hid_a_test_edit_from_the_diff_parser(trees):
    """The header that hid a test edit before issue 41: git applies it, and both fences now see it."""
    diff = FORMS["two spaces, no ---/+++"][0]
    base, patched = trees
    assert repo_patch.refuse(diff, base, ["tests/"], []).check == repo_patch.TOUCHES_TESTS
    assert git_apply(diff, patched).returncode == 0
    assert (patched / T).read_text() != BASE[T]


def test_what_changed_in_the_tree(trees):
    base, patched = trees
    (patched / "ledger" / "tax.py").write_text("RATE = 9\n")  # same size, another time
    (patched / "ledger" / "run.sh").chmod(0o777)
    (patched / "my dir" / "x.py").rename(patched / "my dir" / "y.py")
    (patched / "empty.txt").unlink()
    (patched / "empty.txt").mkdir()
    (patched / "empty.txt" / "inner").write_text("x")
    os.symlink("/etc/passwd", patched / "ledger" / "link")
    (patched / "__pycache__").mkdir()  # the copy leaves these out of the base: the patch made this one
    (patched / "__pycache__" / "x.pyc").write_bytes(b"\0")
    got = {c.path: (c.what, c.special) for c in repo_changes.between(base, patched)}
    assert got == {"ledger/tax.py": ("modified", False), "ledger/run.sh": ("mode", False),
                   "my dir/x.py": ("deleted", False), "my dir/y.py": ("added", False),
                   "empty.txt": ("type", False), "empty.txt/inner": ("added", False),
                   "ledger/link": ("added", True), "__pycache__/x.pyc": ("added", False)}


def test_unchanged_bytes_under_a_new_time_are_no_change(trees):
    base, patched = trees
    os.utime(patched / T, ns=(1, 1))
    assert repo_changes.between(base, patched) == []


# Go directives, read from the files ------------------------------------------------------------------------
@pytest.mark.parametrize("source,found", [
    ("package x\nfunc TestMain(m *testing.M) {}\n", {"func TestMain"}),
    ("package x\nfunc TestMain/**/(m *testing.M) {}\n", {"func TestMain"}),
    ("package x\nfunc/* a */TestMain(m *testing.M) {}\n", {"func TestMain"}),
    ("package x\nfunc\n\tTestMain\t(m *testing.M) {}\n", {"func TestMain"}),
    ('package x\nvar s = "//"; func TestMain(m *testing.M) {}\n', {"func TestMain"}),
    ("package x\nvar r = '\"'; func TestMain(m *testing.M) {}\n", {"func TestMain"}),
    ("package x\nvar s = `/*`; func TestMain(m *testing.M) {}\n", {"func TestMain"}),
    ("package x\n// func TestMain(m *testing.M) is not here\n", set()),
    ('package x\nvar s = "func TestMain("\n', set()),
    ("package x\nfunc TestMainly() {}\n", set()),
    ("//go:build ignore\n\npackage x\n", {"//go:build ignore"}),
    ("// +build  linux\n\npackage x\n", {"// +build linux"}),
    ("package x\n//go:linkname f testing.f\n", {"//go:linkname f testing.f"}),
])
def test_go_directives_are_read_whatever_the_spacing(source, found):
    assert repo_screen.go_directives(source.encode()) == frozenset(found)


def test_the_go_screen_compares_each_changed_file_with_its_base(tmp_path):
    base = tmp_path / "base"
    base.mkdir()
    (base / "go.mod").write_text("module x\n")
    (base / "main_test.go").write_text("package x\n\nfunc TestMain(m *testing.M) { m.Run() }\n")
    (base / "x.go").write_text("package x\n\nfunc F() int { return 1 }\n")
    patched = repo_patch.fresh_copy(base, tmp_path / "patched")
    (patched / "main_test.go").write_text("package x\n\nfunc TestMain(m *testing.M) { os.Exit(m.Run()) }\n")
    (patched / "x.go").write_text("package x\n\nfunc F() int { return 2 }\n")
    assert repo_screen.screen(repo_changes.between(base, patched), base, patched) is None  # it had one already
    (patched / "x.go").write_text("package x\n\nfunc F() int { return 2 }\nfunc TestMain/**/(m *testing.M) {}\n")
    why = repo_screen.screen(repo_changes.between(base, patched), base, patched)
    assert why is not None and "x.go: func TestMain" in why


GO_DECLS = """package p

import "fmt"

// func copy() in a comment
const false = true
const (
	a, b = 1,
		2
	c
)
var (
	x = 1 +
		len("ab")
	y, z int
)
type (
	T int
	U = struct{ cap int }
)
type W struct {
	new int
}
func len[T any](x T) int { var q = 3; return q }
func (w W) max() int { return 0 }
func recover() any { return fmt.Sprint("x") }
var s = "func print()"
"""


def test_go_package_level_names_are_read_from_the_tokens():
    """Functions (not methods), var, const and type specs, grouped or not; a name that continues an expression
    on the next line, a field, a local, a comment's or a string's is none."""
    assert repo_screen.go_package_names(GO_DECLS.encode()) == {
        "false", "a", "b", "c", "x", "y", "z", "T", "U", "W", "len", "recover", "s"}
    # a letter outside Unicode's basic plane is a letter (red team round thirteen hid `len` behind one)
    assert repo_screen.go_package_names("package p\nvar 𝑥, len = 0, lenOf\n".encode()) == {"𝑥", "len"}
    assert repo_screen.go_package_names(b"package p\n/* unclosed\nfunc len() {}\n") is None


@pytest.mark.parametrize("decl, version, refused", [
    ("func len(s string) int { return 0 }", "1.19", "len"),  # the helper's and the tests' len (round twelve)
    ("func recover() any { return nil }", "1.19", "recover"),  # the test's own recover() == nil (round twelve)
    ("const false = true", "1.19", "false"),
    ("func max(a, b int) int { return a }", "1.19", None),  # before 1.21 max is an ordinary name
    ("func max(a, b int) int { return a }", "1.21", "max"),  # the test below calls it
    ("func clear() {}", "1.21", None),  # predeclared, but neither the tests nor loop's helper use it
    ("func (v V) len() int { return 0 }", "1.21", None),  # a method
    ("var \U0001d465, len = 0, 1", "1.19", "len"),  # round thirteen
    ("/* never closed", "1.19", "does not read as Go source"),
    ("func Len(s string) int { return 0 }", "1.21", None),
])
def test_a_patch_may_not_redeclare_a_predeclared_name_its_package_uses(tmp_path, decl, version, refused):
    """Red team round twelve: a package-level `len` answered loop's sealed-check helper (a file of the tested
    package) and a `recover` a visible test's own check. A patch that newly declares a predeclared name the
    package's tests (hidden ones staged) or the helper use is test infrastructure."""
    base = tmp_path / "base"
    base.mkdir()
    (base / "go.mod").write_text(f"module x\n\ngo {version}\n")
    (base / "x.go").write_text("package x\n\ntype V int\n")
    (base / "x_test.go").write_text("package x\n\nfunc TestX(t *testing.T) { _ = max(1, 2) == 2 && false; _ = recover() }\n")
    patched = repo_patch.fresh_copy(base, tmp_path / "patched")
    (patched / "x.go").write_text(f"package x\n\ntype V int\n\n{decl}\n")
    why = repo_screen.screen(repo_changes.between(base, patched), base, patched)
    if refused is None:
        assert why is None, why
    else:
        assert why is not None and (f"x.go declares '{refused}' at package level" in why or refused in why), why
    if decl.startswith("/*"):
        return
    # a name the base file already declared is the project's own
    (base / "x.go").write_text(f"package x\n\ntype V int\n\n{decl}\n")
    (patched / "x.go").write_text(f"package x\n\ntype V int\n\n{decl}\n\nfunc G() {{}}\n")
    assert repo_screen.screen(repo_changes.between(base, patched), base, patched) is None


def test_the_go_screen_reads_the_package_only_for_a_newly_declared_predeclared_name(tmp_path, monkeypatch):
    """A patch changing many files of a package: the module and the package's tests are read for a file that newly
    declares a predeclared name, not once per changed file."""
    base = tmp_path / "base"
    base.mkdir()
    (base / "go.mod").write_text("module x\n\ngo 1.21\n")
    (base / "x_test.go").write_text("package x\n\nfunc TestX(t *testing.T) { _ = len(\"\") }\n")
    for i in range(5):
        (base / f"f{i}.go").write_text(f"package x\n\nfunc F{i}() {{}}\n")
    patched = repo_patch.fresh_copy(base, tmp_path / "patched")
    for i in range(5):
        (patched / f"f{i}.go").write_text(f"package x\n\nfunc F{i}() {{}}\n\nfunc G{i}() int {{ return {i} }}\n")
    reads = []
    monkeypatch.setattr(repo_screen, "_go_test_names", lambda *a: reads.append(a) or set())
    assert repo_screen.screen(repo_changes.between(base, patched), base, patched) is None
    assert reads == []
    (patched / "f0.go").write_text("package x\n\nfunc len(s string) int { return 0 }\n")
    repo_screen.screen(repo_changes.between(base, patched), base, patched)
    assert len(reads) == 1
