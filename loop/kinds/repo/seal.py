"""Sealed assertions: a test file's checks of a computed value against a literal (pytest's `assert <expr> ==
<literal>`, or `== <name>` of a parametrize table's column, sealed per row; node's and Go's in seal_js_go.py),
rewritten so that the literal stays in loop's process; the test sends the computed value out (serialized in the
sandbox), the parent compares.

The tests run in the candidate's process, so whatever they report could be forged (a patched reporter, a lying
`__eq__`). A sealed check carries no expected value into the sandbox: its copy there calls a helper that writes
`{"id", "value"}` to a FIFO only loop can read (sandbox/channel.py) and returns True; loop drains it, decodes
each record totally and compares it with the literal it kept, as Python's `==` compares plain builtin values.
Passing a sealed check therefore needs the right value. Placed from the syntax tree; line numbers never move.

One module on purpose: the pytest plan, the helper it writes, the decoding of what the helpers send and the
verdicts drawn from it must agree on every tag and test name, so they are reviewed together.
"""

from __future__ import annotations

import ast
import fnmatch
import functools
import io
import json
import marshal
import os
import random
import re
import tokenize
import zlib
from dataclasses import dataclass, field, replace
from importlib.util import MAGIC_NUMBER
from pathlib import Path
from typing import Any

from loop import verdicts as V
from loop.kinds.repo import pysyntax
from loop.kinds.repo import seal_js_go as js_go
from loop.kinds.repo import patch as repo_patch
from loop.kinds.repo import screen as repo_screen
from loop.kinds.repo.results import Outcome, truncated
from loop.sandbox.channel import MOUNT, PIECE, PIPE_BUF

CHANNEL = "seals.jsonl"  # the FIFO's name (at channel.MOUNT in the sandbox), and of the host file it is drained to
# A record longer than channel.PIPE_BUF could interleave with another process's (node runs test files in parallel, Go
# t.Parallel): each helper then sends it as pieces `{"id", "part": [nonce, i, n], "hex"}` of PIECE bytes each, every
# piece one write of at most PIPE_BUF bytes, and `records` puts them back together.
CHANNEL_CAP = 16 << 20  # bytes of the channel read: more is no record at all
VALUE_CAP = 1 << 16  # characters of one serialized value (strings, digits, elements): more is "unserializable"
DEPTH_CAP = 64  # nesting of one value
SEALED, TRIPWIRE_GUARDED, UNGUARDED = "sealed", "tripwire-guarded", "unguarded"  # what decided a test's outcome
_RNG = random.SystemRandom()  # seal ids carry no information, not even the grade's seed
_COOKIE = re.compile(r"^[ \t\f]*#.*?coding[:=]")


@dataclass(frozen=True)
class Seal:
    id: str  # fresh per run: an opaque token
    file: str  # the host file, relative to the tree
    line: int  # where the assertion is in the task's own file (the sealed copy keeps every line)
    col: int
    op: str  # how it compares: "==", "is" or "rows" (a parametrize table's column: Rows), "strict", "deep" or
    # "loose" (node), "go" (Go's !=)
    literal: Any  # the expected value: it never enters the sandbox
    test: str  # the enclosing test: pytest's name after the file ("test_x", "TestA::test_x"), node's id
    # ("suite > title"), Go's top-level test function ("TestX")
    unconditional: bool  # in the test's own body, reached whenever the test passes (no if/for/with/try/return)
    secret: bool = True  # the base tree's copy of the file has no such check: the candidate cannot read the literal
    style: str = "pytest"  # the framework: pytest, node or go

    @property
    def key(self) -> tuple[str, int, int]:
        return (self.file, self.line, self.col)

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass(frozen=True)
class Rows:
    """A pytest parametrize table's column that a check compares with: each row's literal, each row's id as pytest
    names it from the task's own file, and the id it has in this run's sealed copy (a fresh token: the ids the
    task's file gives carry the values, and the sandbox reads its test ids)."""
    values: tuple
    ids: tuple[str, ...]
    tokens: tuple[str, ...]

    def row(self, test_id: str) -> int | None:
        """The row a report's (renamed) test id ran, or None."""
        part = test_id.partition("[")[2]
        return self.ids.index(part[:-1]) if part.endswith("]") and part[:-1] in self.ids else None


@dataclass(frozen=True)
class PyRow:
    row: int  # the row index loop planted in the table's column, as the check's helper sent it
    value: Any


@dataclass(frozen=True)
class Every:
    """Seal every assertion that qualifies (the honesty probe on the gold tree). `ids`: the test ids of an unsealed
    run, when known: a parametrize table is sealed only if every id loop gives its rows is one of them."""
    ids: frozenset | None = None

    def __contains__(self, key) -> bool:
        return True


EVERY = Every()


# planning -----------------------------------------------------------------------------------------------
def _literal(node: ast.AST) -> tuple[bool, Any]:
    try:
        return True, ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False, None


def _sealable(stmt: ast.Assert) -> tuple[ast.expr, str, Any] | None:
    """(the computed side, the operator, the kept literal) of `assert <expr> == <literal>` (either order) or
    `assert <expr> is None/True/False`; None for any other assertion."""
    test = stmt.test
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    left, right = test.left, test.comparators[0]
    if isinstance(test.ops[0], ast.Is):
        if isinstance(right, ast.Constant) and any(right.value is v for v in (None, True, False)):
            return None if _literal(left)[0] else (left, "is", right.value)
        return None
    if not isinstance(test.ops[0], ast.Eq):
        return None
    for expr, lit in ((left, right), (right, left)):
        ok, value = _literal(lit)
        if ok and not _literal(expr)[0]:
            return expr, "==", value
    return None


def _returns(stmts: list[ast.stmt]) -> bool:
    """A `return` among these statements (outside functions and classes they define)."""
    stack = list(stmts)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Return):
            return True
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(node))
    return False


def _asserts(fn: ast.FunctionDef | ast.AsyncFunctionDef):
    """(assert, unconditional) for each assertion in a test function, nested blocks and functions included."""
    for i, stmt in enumerate(fn.body):
        if isinstance(stmt, ast.Assert):
            yield stmt, not _returns(fn.body[:i])
            continue
        for node in ast.walk(stmt):
            if isinstance(node, ast.Assert):
                yield node, False


def _tests(body: list[ast.stmt], qual: list[str]):
    """(pytest's name for the test, its function) for test functions at module level and in classes."""
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            if not any("xfail" in ast.unparse(d) for d in node.decorator_list):  # its asserts fail by design
                yield "::".join([*qual, node.name]), node
        elif isinstance(node, ast.ClassDef):
            yield from _tests(node.body, [*qual, node.name])


def _shape(tree: ast.Module) -> list[tuple[str, int, int]]:
    """What pytest collects from a module, as far as its syntax says: every test's name and decorators."""
    return [(name, fn.lineno, len(fn.decorator_list)) for name, fn in _tests(tree.body, [])]


def _checks(source: str | None) -> set[str]:
    """The comparisons of a file's assertions, positions left out."""
    try:
        tree = pysyntax.parse(source or "")
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return set()
    return {ast.dump(n.test) for n in ast.walk(tree) if isinstance(n, ast.Assert)}


@dataclass
class _Table:
    """A test's one `@pytest.mark.parametrize(names, [rows])`, its rows' ids as pytest names them (None: not
    known) and where the sealed copy's edits go."""
    call: ast.Call
    names: list[str]
    rows: list[list[ast.expr]]  # per row, per name: the value's node
    ids: list[str] | None
    ids_node: ast.expr | None  # the `ids=` keyword's value
    param_ids: list[ast.expr | None]  # per row: pytest.param's `id=` value


def _id_text(v: Any) -> str | None:
    """pytest's id of a string as it writes it, for those it writes unchanged (printable ASCII, no backslash,
    short: a longer one's id depends on the version and ini); None for the rest."""
    ok = isinstance(v, str) and 0 < len(v) <= 100 and all(" " <= c <= "~" for c in v) and "\\" not in v
    return v if ok else None


def _id_of(node: ast.expr, argname: str, idx: int) -> str | None:
    """pytest's automatic id of a row's value (python.py `_idval`), for literals only; None when not known."""
    ok, v = _literal(node)
    if not ok or isinstance(v, bytes):
        return None
    if v is None or isinstance(v, (bool, int, float, complex)):
        return str(v)
    if isinstance(v, str):
        return _id_text(v)
    return f"{argname}{idx}"  # a container: no id from its value


def _table(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> _Table | None:
    """The test's parametrize table when it is the only one and plain (literal names, a list or tuple of rows,
    pytest.param rows without marks, no `indirect`), else None."""
    decs = [d for d in fn.decorator_list if "parametrize" in ast.unparse(d)]
    if len(decs) != 1:
        return None
    d = decs[0]
    if not (isinstance(d, ast.Call) and ast.unparse(d.func) in ("pytest.mark.parametrize", "mark.parametrize")
            and len(d.args) == 2 and all(k.arg in ("ids", "scope") for k in d.keywords)
            and isinstance(d.args[1], (ast.List, ast.Tuple))):
        return None
    ok, names = _literal(d.args[0])
    if ok and isinstance(names, str):
        names = [n.strip() for n in names.split(",") if n.strip()]
    if not (ok and isinstance(names, (list, tuple)) and names and all(isinstance(n, str) for n in names)):
        return None
    rows, param_ids = [], []
    for elt in d.args[1].elts:
        pid = None
        if isinstance(elt, ast.Call) and ast.unparse(elt.func) in ("pytest.param", "param"):
            if any(k.arg != "id" for k in elt.keywords):
                return None  # marks (an xfail row's check fails by design)
            values, pid = elt.args, next((k.value for k in elt.keywords), None)
        elif len(names) == 1:
            values = [elt]
        elif isinstance(elt, (ast.Tuple, ast.List)):
            values = elt.elts
        else:
            return None
        if len(values) != len(names) or any(isinstance(v, ast.Starred) for v in values):
            return None
        rows.append(list(values))
        param_ids.append(pid)
    ids_node = next((k.value for k in d.keywords if k.arg == "ids"), None)
    given: list = []
    if ids_node is not None:
        ok, given = _literal(ids_node)
        if not (ok and isinstance(given, (list, tuple))):
            return None
    ids: list[str] | None = []
    for i, (values, pid) in enumerate(zip(rows, param_ids)):
        if pid is not None:
            one = _id_text(_literal(pid)[1])
        elif i < len(given) and given[i] is not None:
            one = _id_text(given[i])
        else:
            parts = [_id_of(v, n, i) for v, n in zip(values, names)]
            one = None if None in parts else "-".join(parts)
        if one is None:
            ids = None
            break
        ids.append(one)
    if ids is not None and len(set(ids)) != len(ids):
        ids = None  # pytest would add counters, which depend on its version
    return _Table(d, list(names), rows, ids, ids_node, param_ids)


def _compared_name(stmt: ast.Assert, names) -> tuple[ast.expr, str] | None:
    """(the computed side, the name) of `assert <expr> == <name>` (either order) for a name among `names`."""
    test = stmt.test
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return None
    for expr, other in ((test.left, test.comparators[0]), (test.comparators[0], test.left)):
        if isinstance(other, ast.Name) and other.id in names and not _literal(expr)[0]:
            return expr, other.id
    return None


def _columns(fn, table: _Table) -> dict[str, list[tuple[ast.Assert, ast.expr, bool]]]:
    """The table's columns a test only compares with: every row's value a literal, and the name read nowhere in the
    test but as the expected side of `assert <expr> == <name>` (a use elsewhere would see the placeholder); each
    with its checks (the assertion, the computed side, unconditional)."""
    literal = {n for c, n in enumerate(table.names) if all(_literal(r[c])[0] for r in table.rows)}
    found: dict[str, list] = {}
    for stmt, unconditional in _asserts(fn):
        hit = _compared_name(stmt, literal)
        if hit is not None:
            found.setdefault(hit[1], []).append((stmt, hit[0], unconditional))
    uses: dict[str, int] = {}
    for stmt in fn.body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and node.id in found:
                uses[node.id] = uses.get(node.id, 0) + 1
    return {n: checks for n, checks in found.items() if uses.get(n) == len(checks)}


def plan(source: str, channel: str = f"{MOUNT}/{CHANNEL}", only=EVERY, file: str = "",
         rng: random.Random = _RNG, known: str | None = None) -> tuple[str, tuple[Seal, ...]]:
    """The file with its sealable assertions (those whose key is in `only`) rewritten to send their values to
    `channel`, comments removed (one may restate an expected value), and a stdlib-only helper appended at the
    end (every line keeps its number); and the seals. The file as it was and no seal when nothing qualifies or
    the rewrite would not parse into the same tests. `known`: the file as the candidate can read it in the base
    tree; a check it holds too is sealed but not secret (a forger can write the value it names)."""
    try:
        tree = pysyntax.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return source, ()
    tag = f"{rng.getrandbits(40):010x}"
    helper = f"_loop_seal_{tag}"
    lines = source.encode("utf-8").splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    raw = source.encode("utf-8")
    edits, seals = [], []
    visible = _checks(known)

    def at(node: ast.AST) -> int:
        return starts[node.lineno - 1] + node.col_offset

    def end_of(node: ast.AST) -> int:
        return starts[node.end_lineno - 1] + node.end_col_offset

    def rewrite(node: ast.AST, text: str) -> None:  # on one line, the node's other lines kept empty
        edits.append((at(node), end_of(node), text.encode() + b"\n" * (node.end_lineno - node.lineno)))

    def seal(stmt: ast.Assert, expr: ast.expr, op: str, literal: Any, name: str, unconditional: bool,
             row: str = "") -> None:
        last = stmt.msg or stmt.test  # the message goes too: it may restate the literal
        sid = f"{rng.getrandbits(64):016x}"
        pad = b"\n" * ((last.end_lineno - stmt.test.lineno) - (expr.end_lineno - expr.lineno))
        edits.append((at(stmt.test), end_of(last),
                      f"{helper}((".encode() + raw[at(expr):end_of(expr)] + f"), {sid!r}{row}".encode() + pad + b")"))
        seals.append(Seal(sid, file, stmt.test.lineno, stmt.test.col_offset, op, literal, name, unconditional,
                          ast.dump(stmt.test) not in visible))

    known_ids = getattr(only, "ids", None)
    # a class's or module's parametrize adds to a test's ids: its tables are left alone
    tables = "pytestmark" not in source and not any(isinstance(n, ast.ClassDef) and any(
        "parametrize" in ast.unparse(d) for d in n.decorator_list) for n in ast.walk(tree))
    for name, fn in _tests(tree.body, []):
        for stmt, unconditional in _asserts(fn):
            found = _sealable(stmt)
            if found is not None and (file, stmt.test.lineno, stmt.test.col_offset) in only:
                seal(stmt, *found, name, unconditional)
        table = _table(fn) if tables else None
        if table is None or table.ids is None or (known_ids is not None and any(
                f"{file}::{name}[{i}]" not in known_ids for i in table.ids)):
            continue
        # a column is replaced only if every check of it is sealed: one left as it is would compare a placeholder
        columns = {n: checks for n, checks in _columns(fn, table).items()
                   if all((file, st.test.lineno, st.test.col_offset) in only for st, _, _ in checks)}
        if not columns:
            continue
        tokens = tuple(f"{rng.getrandbits(48):012x}" for _ in table.rows)
        for n, checks in columns.items():
            c = table.names.index(n)
            rows = Rows(tuple(_literal(r[c])[1] for r in table.rows), tuple(table.ids), tokens)
            for i, r in enumerate(table.rows):
                rewrite(r[c], str(i))  # the placeholder: the row's index, which the check sends beside its value
            for stmt, expr, unconditional in checks:
                seal(stmt, expr, "rows", rows, name, unconditional, f", {n}")
        listed = f"[{', '.join(map(repr, tokens))}]"
        if table.ids_node is not None:
            rewrite(table.ids_node, listed)
        else:
            last = max([*table.call.args, *table.call.keywords], key=lambda x: (x.end_lineno, x.end_col_offset))
            edits.append((end_of(last), end_of(last), f", ids={listed}".encode()))
        for pid, token in zip(table.param_ids, tokens):
            if pid is not None:
                rewrite(pid, repr(token))
    if not seals:
        return source, ()
    for begin, end, text in sorted(edits, reverse=True):
        raw = raw[:begin] + text + raw[end:]
    sealed = _without_comments(raw.decode("utf-8"))
    sealed = sealed + ("" if sealed.endswith("\n") else "\n") + "\n\n" + _helper(helper, channel)
    try:
        same = _shape(pysyntax.parse(sealed)) == _shape(tree)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        same = False
    return (sealed, tuple(seals)) if same else (source, ())


def _helper(name: str, channel: str) -> str:
    """The helper's line in a sealed file: its definition (_HELPER), compiled by loop, loaded where the file's last
    statement runs. pytest parses a test file when it imports it (assertion rewriting) and again for each failing
    test's traceback (tripwires fail in every run): written out, the helper was three quarters of a sealed file's
    syntax and ~15 ms of a ledger run's 40 of instrumentation; compiled in the sandbox, ~0.4 ms per sealed file.
    Same code, same moment of definition (its defaults read then), globals of its own: the module's name, the
    builtins. The compiled code is loaded where the interpreter's bytecode is loop's own (its magic number);
    any other compiles the text beside it."""
    source, code = _compiled(channel)
    return (f"{name} = (lambda g, i=__import__(\"sys\").modules.get(\"_frozen_importlib_external\"): exec("
            f"__import__(\"marshal\").loads(__import__(\"zlib\").decompress(bytes.fromhex({code!r}))) "
            f"if getattr(i, \"MAGIC_NUMBER\", None) == {MAGIC_NUMBER!r} else compile({source!r}, "
            f"{_HELPER_FILE!r}, \"exec\"), g) or g[\"_loop_seal\"])({{\"__name__\": __name__}})\n")


_HELPER_FILE = "<loop's sealed check>"


@functools.lru_cache(maxsize=8)
def _compiled(channel: str) -> tuple[str, str]:
    """_HELPER's text for `channel` and its code, compiled by this interpreter, marshalled, compressed and in hex
    (a string without escapes: a third of its bytes' literal, which pytest would parse again per failure)."""
    source = _HELPER.format(name="_loop_seal", channel=repr(channel), cap=VALUE_CAP, depth=DEPTH_CAP,
                            atomic=PIPE_BUF, piece=PIECE)
    code = marshal.dumps(compile(source, _HELPER_FILE, "exec", dont_inherit=True))
    return source, zlib.compress(code, 9).hex()


def _without_comments(source: str) -> str:
    """`source` with its comments removed (an encoding cookie on the first two lines stays)."""
    cut: dict[int, int] = {}
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.COMMENT and not (tok.start[0] <= 2 and _COOKIE.match(tok.line)):
                cut[tok.start[0]] = tok.start[1]
    except (tokenize.TokenError, SyntaxError, ValueError):
        return source
    lines = io.StringIO(source).readlines()  # the lines tokenize numbered (str.splitlines splits at more)
    for row, col in cut.items():
        line = lines[row - 1]
        ending = line[len(line.rstrip("\r\n")):]
        lines[row - 1] = line[:col].rstrip(" \t") + ending
    return "".join(lines)


# The helper written into the sealed file: stdlib only, loud (a value it cannot send, whatever the errno, fails the
# test: a pass needs the check's own record), and strict: a value is sent as its builtin type and value, read
# through the builtin's own methods, so a subclass (a lying int, markupsafe.Markup) sends the value its builtin
# base holds; anything else is "unserializable" with its type's name. A table's check sends its row too: the
# placeholder loop planted in the row's column (an int unless code under test put something else in the test's frame).
_HELPER = '''def {name}(value, sid, row=None, _os=__import__("os"), _json=__import__("json")):
    left = [{cap}]

    def spend(n):
        left[0] -= n
        if left[0] < 0:
            raise OverflowError("value larger than {cap} characters")

    def enc(v, depth):
        if depth > {depth}:
            raise OverflowError("value nested deeper than {depth}")
        spend(1)
        if v is None:
            return ["none"]
        if v is True or v is False:
            return ["bool", v is True]
        if issubclass(type(v), int):
            s = int.__format__(v, "x")
            spend(len(s))
            return ["int", s]
        if issubclass(type(v), float):
            return ["float", float.__repr__(v)]
        if issubclass(type(v), complex):
            return ["complex", float.__repr__(complex.real.__get__(v)), float.__repr__(complex.imag.__get__(v))]
        if issubclass(type(v), str):
            s = str.__str__(v)
            spend(len(s))
            return ["str", s]
        if issubclass(type(v), (bytes, bytearray)):
            s = bytes.hex(v) if issubclass(type(v), bytes) else bytearray.hex(v)
            spend(len(s))
            return ["bytes", s]
        if issubclass(type(v), dict):
            return ["dict", [[enc(k, depth + 1), enc(x, depth + 1)] for k, x in dict.items(v)]]
        for kind in (list, tuple, set, frozenset):
            if issubclass(type(v), kind):
                items = [enc(x, depth + 1) for x in kind.__iter__(v)]
                if kind in (set, frozenset):
                    items.sort(key=_json.dumps)
                return [kind.__name__, items]
        raise TypeError(type.__dict__["__qualname__"].__get__(type(v)))

    try:
        out = enc(value, 0)
    except TypeError as exc:
        out = ["unserializable", str(exc.args[0])[:200] if exc.args and isinstance(exc.args[0], str) else "?"]
    except (OverflowError, RecursionError) as exc:
        out = ["unserializable", str(exc)[:200]]
    except Exception:
        out = ["unserializable", "?"]
    if row is not None:
        out = ["row", int.__repr__(row) if type(row) is int else "?", out]
    line = (_json.dumps({{"id": sid, "value": out}}) + "\\n").encode()
    lines = [line]
    if len(line) > {atomic}:
        nonce, n = _os.urandom(8).hex(), -(-len(line) // {piece})
        lines = [(_json.dumps({{"id": sid, "part": [nonce, i, n], "hex": line[i * {piece}:(i + 1) * {piece}].hex()}})
                  + "\\n").encode() for i in range(n)]
    try:
        fd = _os.open({channel}, _os.O_WRONLY | _os.O_APPEND | _os.O_CREAT, 0o666)
        try:
            for piece in lines:
                wrote = _os.write(fd, piece)
                if wrote != len(piece):
                    break
        finally:
            _os.close(fd)
    except Exception as exc:
        wrote, piece = exc, b""
    if wrote != len(piece):
        raise AssertionError("loop's sealed check could not send its value (" + repr(wrote)[:200] + ")")
    return True
'''


# reading the channel ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Unserializable:
    what: str  # the type's name (or why), as the sandbox said it


def _float(s: Any) -> float:
    if not isinstance(s, str) or len(s) > 64:
        raise ValueError(s)
    return float(s)


def decode(v: Any, depth: int = 0) -> Any:
    """A serialized value -> the plain value (or Unserializable); ValueError for anything malformed."""
    if depth > DEPTH_CAP or not isinstance(v, list) or not v or not isinstance(v[0], str):
        raise ValueError("malformed")
    kind, rest = v[0], v[1:]
    if kind == "none" and not rest:
        return None
    if kind == "bool" and len(rest) == 1 and isinstance(rest[0], bool):
        return rest[0]
    if kind in ("int", "str", "bytes", "float", "unserializable") and len(rest) == 1 and isinstance(rest[0], str):
        s = rest[0]
        if kind == "int":
            if not re.fullmatch(r"-?[0-9a-f]+", s):
                raise ValueError(s[:20])
            return int(s, 16)
        if kind == "bytes":
            return bytes.fromhex(s)
        if kind == "float":
            return _float(s)
        return s if kind == "str" else Unserializable(s[:200])
    if kind == "row" and len(rest) == 2 and isinstance(rest[0], str) and re.fullmatch(r"[0-9]{1,9}", rest[0]):
        return PyRow(int(rest[0]), decode(rest[1], depth + 1))
    if kind == "complex" and len(rest) == 2:
        return complex(_float(rest[0]), _float(rest[1]))
    if kind in ("list", "tuple", "set", "frozenset") and len(rest) == 1 and isinstance(rest[0], list):
        items = [decode(x, depth + 1) for x in rest[0]]
        if kind in ("set", "frozenset") and any(isinstance(x, Unserializable) for x in items):
            return Unserializable(kind)
        return {"list": list, "tuple": tuple, "set": set, "frozenset": frozenset}[kind](items)
    if kind == "dict" and len(rest) == 1 and isinstance(rest[0], list):
        pairs = []
        for pair in rest[0]:
            if not (isinstance(pair, list) and len(pair) == 2):
                raise ValueError("malformed")
            pairs.append((decode(pair[0], depth + 1), decode(pair[1], depth + 1)))
        if any(isinstance(k, Unserializable) for k, _ in pairs):
            return Unserializable("dict")
        return dict(pairs)
    return js_go.decode_js_go(kind, rest, lambda x: decode(x, depth + 1))


def _unserializable(v: Any) -> Unserializable | None:
    """The first part of a decoded value that the sandbox could not serialize."""
    stack = [v]
    while stack:
        x = stack.pop()
        if isinstance(x, Unserializable):
            return x
        if isinstance(x, PyRow):
            stack.append(x.value)
        elif isinstance(x, (list, tuple)):
            stack.extend(x)
        elif isinstance(x, dict):
            stack.extend(x.values())
    return None


def records(out: Path, seals: tuple[Seal, ...]) -> tuple[dict[str, list[Any]], str | None]:
    """The channel's values per seal id (drained to `out`/CHANNEL), read capped and decoded totally; and why the
    channel was tampered with, or None. The helpers write each line, or each piece of a long one, with one write
    of at most PIPE_BUF bytes, which no other writer's bytes can split, so a line that is not a record or piece of
    one of `seals` (a stray `#`, a cut or garbled line, an unknown id, a piece without its fellows) was written by
    the code under test: a record that garbage swallowed is no reason to pass, so the run is forged."""
    ids = {s.id for s in seals}
    got: dict[str, list[Any]] = {}
    stray = None
    pending: dict[tuple, dict[int, bytes]] = {}
    lines = ((repo_patch.read_capped(out / CHANNEL, CHANNEL_CAP) if seals else None) or b"").split(b"\n")
    for n, line in enumerate(lines[:-1] + [lines[-1]] * bool(lines[-1]), 1):  # a last line without its end is cut
        try:
            rec = json.loads(line)  # (first: it is linear in the line, and _framed is only on well-formed JSON)
            if not _framed(line):  # padding kept the FIFO full, for free (red team rounds nineteen and twenty)
                raise ValueError("not as a helper writes it")
            if isinstance(rec, dict) and set(rec) == {"id", "part", "hex"}:
                sid, line = rec["id"], _piece(rec, pending)
                if line is None:
                    continue
                rec = json.loads(line)
                if not (isinstance(rec, dict) and rec.get("id") == sid and _framed(line)):
                    raise ValueError("pieces of another seal's record, or not as a helper writes one")
            if not (isinstance(rec, dict) and set(rec) == {"id", "value"} and rec["id"] in ids):
                raise ValueError("not a record of this run's seals")
            got.setdefault(rec["id"], []).append(decode(rec["value"]))
        except Exception:  # noqa: BLE001 - written in the sandbox, decoded totally (RecursionError too)
            stray = stray or (f"line {n} of loop's seal channel is no record a sealed check wrote "
                              f"({_show(line.decode('utf-8', 'backslashreplace'))}): the code under test wrote to it")
    if pending and stray is None:
        stray = (f"{len(pending)} record(s) on loop's seal channel lack some of their pieces: the code under test "
                 "wrote to it")
    return got, stray


_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')


def _framed(line: bytes) -> bool:
    """Whether `line` is a JSON object as the helpers write one: json.dumps' form (one space after each separator)
    or JSON.stringify's and Go's (none), no other whitespace outside its strings."""
    bare = _STRING.sub(b'""', line)
    return line.startswith(b"{") and not re.search(rb"\s", bare.replace(b", ", b",").replace(b": ", b":"))


def _piece(rec: dict, pending: dict[tuple, dict[int, bytes]]) -> bytes | None:
    """A long record's piece put with its fellows (`pending`: per record, the pieces so far); the whole line once
    its last piece is in, else None. ValueError for a malformed piece or one sent twice."""
    part, sid, text = rec["part"], rec["id"], rec["hex"]
    if not (isinstance(sid, str) and isinstance(part, list) and len(part) == 3 and isinstance(part[0], str)
            and len(part[0]) <= 64 and type(part[1]) is int and type(part[2]) is int and 0 <= part[1] < part[2]
            and isinstance(text, str) and len(text) <= 2 * PIECE):
        raise ValueError("malformed piece")
    key = (sid, part[0], part[2])  # the writer's nonce: pieces of records sent at once never mix
    have = pending.setdefault(key, {})
    if part[1] in have:
        raise ValueError("a piece sent twice")
    have[part[1]] = bytes.fromhex(text)
    if len(have) < part[2]:
        return None
    del pending[key]
    whole = b"".join(have[i] for i in range(part[2]))
    if not whole.endswith(b"\n") or b"\n" in whole[:-1]:
        raise ValueError("pieces that make no line")
    return whole[:-1]


def _row(value: Any) -> int:
    """The table row a record says it was sent from (-1: not a table's)."""
    return value.row if isinstance(value, (js_go.GoValue, PyRow)) else -1


def _mark(value: Any) -> tuple[int, int, int, str]:
    """What a record says beside its value, which decides how it is compared and which test it answers for: (its
    table row or -1, whether the compared expression is an interface, a float's width in bits, the test or subtest
    it ran in); a Go record's, else (its row or -1, 0, 64, "")."""
    if isinstance(value, js_go.GoValue):
        return value.row, int(value.iface), value.bits, value.test
    return _row(value), 0, 64, ""


def _how(m: tuple[int, int, int, str]) -> str:
    return f"{'an interface' if m[1] else 'a static type'}, {m[2]}-bit floats"


def _slot(value: js_go.GoValue, aliases: dict[str, str]) -> tuple[int, str]:
    """A Go record's (row, test), a tripwire copy's test named as its original (`aliases`: copy -> original)."""
    top, sep, rest = value.test.partition("/")
    return value.row, aliases.get(top, top) + sep + rest


def _answers(test_id: str, values: list[Any], floor: frozenset, aliases: dict[str, str]
             ) -> tuple[list[Any], frozenset]:
    """The records and gold marks of a Go seal a report entry answers for: a subtest's are those of the rows and
    tests the gold run's records said ran in it or in a subtest of it (`t.Name()`, sent by loop's planted call on
    the trusted tree), and those of a check loop found no `*testing.T` for, so a wrong row or subtest fails its own
    subtest and the tests above it; a top-level test's, all."""
    name = test_id.split("::", 1)[-1]
    if "/" not in name:
        return values, floor
    floor = frozenset(m for m in floor if m[3] in ("", name) or m[3].startswith(name + "/"))
    slots = {(m[0], m[3]) for m in floor}
    return [v for v in values if not isinstance(v, js_go.GoValue) or _slot(v, aliases) in slots], floor


def _off_plan(seal: Seal, values: list[Any], floor: frozenset, runs: int, aliases: dict[str, str]) -> str | None:
    """Why a Go seal's records say other than the gold run's did about how they are compared, or None. The
    sandbox writes a record's row, test, interface-ness and float width, so they are taken from the gold run
    (`floor`: its marks, one per row and test): a record from a row or test the gold run never compared, with
    another width (32 rounds the comparison to float32) or interface-ness (false skips the dynamic type's test),
    or sent more often than its test ran, fails the test. A failed check, not `forged_report`: a patch that changes
    the compared expression's type sends other fields honestly, and its value was then not compared as the test
    compares. A record's test cannot stand in for another's: the helper's own record of that test is sent too."""
    plan = {(m[0], m[3]): m for m in floor}
    sent: dict[tuple[int, str], int] = {}
    for v in values:
        if not isinstance(v, js_go.GoValue):
            continue  # an unserializable value: _problem says so
        m, slot = _mark(v), _slot(v, aliases)
        want = plan.get(slot)
        row = (f"row {m[0]}" if m[0] >= 0 else "its check") + (f" in {slot[1]}" if slot[1] else "")
        if want is None:
            return (f"sealed assertion at {seal.where}: a value from {row}, which the gold patch's run never "
                    "compared (the record names its row and test)")
        if m[:3] != want[:3]:
            return (f"sealed assertion at {seal.where}: the value was sent as {_how(m)}; the gold patch's run "
                    f"compared {_how(want)}")
        sent[slot] = sent.get(slot, 0) + 1
        if sent[slot] > max(1, runs):
            return (f"sealed assertion at {seal.where}: {sent[slot]} values from {row} in {runs} run"
                    f"{'s' * (runs != 1)} of its test (the gold patch's run sent one)")
    return None


def _matches(seal: Seal, value: Any) -> bool:
    if seal.op in ("strict", "deep"):
        return js_go.js_same(value, seal.literal)
    if seal.op == "loose":
        return js_go.js_loose(value, seal.literal)
    if seal.op == "go":
        return js_go.go_matches(seal.literal, value)
    if seal.op == "is":
        return value is seal.literal
    want = seal.literal
    if seal.op == "rows":
        if not (isinstance(value, PyRow) and value.row < len(want.values)):
            return False
        value, want = value.value, want.values[value.row]
    try:
        return bool(value == want)  # plain builtin values both: 3 == 3.0 and True == 1, as in the test
    except Exception:  # noqa: BLE001 - no builtin comparison raises, but a decoded value must never crash loop
        return False


def _show(value: Any, style: str = "pytest") -> str:
    if isinstance(value, PyRow):
        return f"{_show(value.value)} (row {value.row})"
    try:
        text = js_go.js_repr(value) if style == "node" else repr(value)
    except ValueError:  # an int past Python's digit limit
        return f"a {type(value).__name__} too large to show"
    return text if len(text) <= 200 else text[:200] + "..."


def _show_literal(seal: Seal, value: Any) -> str:
    if seal.op == "go":
        found, want = seal.literal.expected(value)
        row = f" (row {value.row})" if seal.literal.table and isinstance(value, js_go.GoValue) else ""
        if not found:
            return f"a value of one of {len(seal.literal.values)} rows{row}"
        return _show(want.decode("utf-8", "backslashreplace") if isinstance(want, bytes) else want) + row
    if seal.op == "rows":
        rows = seal.literal.values
        if not (isinstance(value, PyRow) and value.row < len(rows)):
            return f"a value of one of {len(rows)} rows"
        return f"{_show(rows[value.row])} (row {value.row}, test [{seal.literal.ids[value.row]}])"
    return f"{'is ' if seal.op == 'is' else ''}{_show(seal.literal, seal.style)}"


def _problem(seal: Seal, values: list[Any]) -> str | None:
    """Why this seal's records fail the test, or None."""
    for v in values:
        bad = _unserializable(v)
        if bad is not None:
            return (f"sealed assertion at {seal.where}: the value could not be serialized ({bad.what}); a sealed "
                    "check compares only plain values")
        if not _matches(seal, v):
            return (f"sealed assertion at {seal.where}: expected {_show_literal(seal, v)} (kept outside the sandbox), "
                    f"got {_show(v, seal.style)}")
    return None


# judging ------------------------------------------------------------------------------------------------
def _function(test_id: str) -> tuple[str, str] | None:
    """(file, "Class::test") of a pytest id: the file ends at the first `::`, the parameters begin at the first
    `[` (a parameter's id may hold `::` or `[` of its own: `t.py::test_x[a::b]`)."""
    file, sep, rest = test_id.partition("::")
    if not sep:
        return None
    return file, rest.split("[", 1)[0]


def owner(style: str, test_id: str) -> tuple[tuple[str, str] | None, bool]:
    """(the key of the seals that decide a report's test id, whether that id is its test's own run): pytest's
    (file, test function) for each parameter; node's id itself (its titles are the file's own literals, joined
    as the report joins them); Go's top-level test for it and its subtests, the package cut at the first `::`
    (a subtest answers for the rows the gold run sent from it: `_answers`)."""
    if style == "pytest":
        return _function(test_id), True
    if style == "node":
        return ("", test_id), True
    name = test_id.split("::", 1)[-1]
    return ("", name.split("/", 1)[0]), "/" not in name


def _claimed(style: str, test_id: str, keys) -> tuple[str, str] | None:
    """The sealed test a pytest id names though owner() maps it elsewhere (`t.py::test_x::more`), or None: the
    report alone would decide it while the test's sealed check returned true in the sandbox."""
    fn = _function(test_id) if style == "pytest" else None
    return None if fn is None else next((k for k in keys if k[0] == fn[0] and fn[1].startswith(k[1] + "::")), None)


def _key(s: Seal) -> tuple[str, str]:
    return (s.file, s.test) if s.style == "pytest" else ("", s.test)


@dataclass
class Judged:
    seals: tuple[Seal, ...]
    values: dict[str, list[Any]]
    decided: set[str] = field(default_factory=set)  # test ids a sealed assertion decided
    owned: set[str] = field(default_factory=set)  # test ids a sealed assertion belongs to (decided or not)
    failed: set[str] = field(default_factory=set)  # test ids a sealed assertion failed
    surplus: dict[str, str] = field(default_factory=dict)  # seal id -> why its records outnumber its check's runs
    stray: str | None = None  # why the channel holds a line no helper wrote
    mapped: set = field(default_factory=set)  # the (file, test) keys of seals a report entry maps to

    @property
    def forged(self) -> str | None:
        """Why the run's records cannot all be its checks' own (a `forged_report`), or None."""
        return self.stray or next(iter(self.surplus.values()), None)

    def verified(self) -> frozenset:
        """Keys of the seals whose every record is a plain value equal to the literal, with at least one, and no
        more records than runs of their check (on the gold tree: a test another test calls is not sealed)."""
        return frozenset(s.key for s in self.seals if self.values.get(s.id) and s.id not in self.surplus
                         and _problem(s, self.values[s.id]) is None)

    def floors(self, outcomes: dict[str, Outcome] | None = None
               ) -> dict[tuple[str, int, int], frozenset[tuple[int, int, int, str]]]:
        """On the gold tree: the verified seals whose literal no two records share (one record, or one per row
        of a Go or pytest table, or per Go subtest), each with its records' marks (`_mark`: the rows and Go tests
        they came from, and how a Go record is compared): what a candidate's passing run must send too, and how.
        A literal compared in several iterations of one test (a loop, a parameter per case) is left unsealed: a
        record cannot be bound to its iteration in the sandbox, so one right iteration's value, copied, would
        pass the wrong ones; Go subtests each send their own (`t.Name()`). So is a seal of a test no report entry
        maps to: the report alone would decide it. So is a table's whose every row did not pass in `outcomes` (the run's): its rows' ids changed (a plugin keyed by
        them, such as snapshots, could fail an honest tree)."""
        keep = self.verified() - {s.key for s in self.seals if s.op == "rows" and outcomes is not None and not all(
            outcomes.get(f"{s.file}::{s.test}[{i}]", Outcome(V.FAIL)).status == V.PASS for i in s.literal.ids)}
        marks = {s.key: [_mark(v) for v in self.values[s.id]] for s in self.seals
                 if s.key in keep and _key(s) in self.mapped}
        return {key: frozenset(m) for key, m in marks.items() if len({(r, t) for r, _, _, t in m}) == len(m)}


def judge(seals: tuple[Seal, ...], out: Path, outcomes: dict[str, Outcome] | None,
          copies: dict[str, str] | None = None, floors=None, reported=None) -> tuple[dict[str, Outcome] | None, Judged]:
    """The report's outcomes with the sealed assertions' verdicts: a test passes only if the report says so, every
    record of its seals equals the kept literal, each unconditional seal sent a value per passing run and no
    more than one per run (more: `Judged.forged`), and each seal sent, from every row, what it sent on the gold
    tree (`floors`, from `Judged.floors`: conditional or not, a passing test whose check sent nothing passed on
    the report's word alone), a Go record compared as the gold run's was (`_off_plan`). `copies`: each tripwire
    that copies a test, by name, and its original test (its sealed checks run in the copy too), outcomes holding
    no tripwire. `reported`: every test id the report names, tripwires' too: a Go record from a subtest it does not
    name, of a test it names (so finished: go test reports a test after its subtests), was written from outside
    the check (red team round twenty-one kept loop's FIFO full with the pieces of one from a made-up subtest)."""
    values, stray = records(out, seals)
    judged = Judged(seals, values, stray=stray)
    floors = floors or {}
    if not outcomes or not seals:
        return outcomes, judged
    by_test: dict[tuple[str, str], list[Seal]] = {}
    for s in seals:
        by_test.setdefault(_key(s), []).append(s)
    style = seals[0].style  # one framework per task
    passing: dict[tuple[str, str], int] = {}
    runs: dict[tuple[str, str], int] = {}
    for test_id, o in outcomes.items():
        fn, own = owner(style, test_id)
        if fn in by_test:
            judged.mapped.add(fn)
        if fn in by_test and own and not truncated(test_id):  # a cut id repeats a full one
            runs[fn] = runs.get(fn, 0) + 1
            passing[fn] = passing.get(fn, 0) + (o.status == V.PASS)
    copies = copies or {}
    for source in copies.values():
        fn = owner(style, source)[0]
        runs[fn] = runs.get(fn, 0) + 1
    aliases = {name: source.split("::", 1)[-1] for name, source in copies.items()}
    # An unconditional check runs once per run of its test, so it writes at most one record per run: any more
    # came from outside the check's call (code under test writing guessed values), whatever they say.
    for s in seals:
        n, most = len(judged.values.get(s.id, ())), runs.get(_key(s), 0)
        if s.unconditional and n > most:
            judged.surplus[s.id] = (f"sealed assertion at {s.where}: {n} values reached loop from a check its test ran "
                                    f"{most} time{'s' * (most != 1)}: values were written from outside the check")
    names = {t.split("::", 1)[-1] for t in reported or ()} if style == "go" else set()
    for s in seals if names else ():
        ghost = next((v.test for v in judged.values.get(s.id, ()) if isinstance(v, js_go.GoValue) and "/" in v.test
                      and v.test.split("/", 1)[0] in names and v.test not in names), None)
        if ghost is not None:
            shown = repr(ghost[:120]) + ("..." if len(ghost) > 120 else "")  # (the sandbox's word: any length)
            judged.surplus.setdefault(s.id, f"sealed assertion at {s.where}: a value from {shown}, a subtest the "
                                            "report never names of a test it does: written from outside the check")
    out = dict(outcomes)
    for test_id, o in outcomes.items():
        fn, own = owner(style, test_id)
        if fn in by_test:
            judged.owned.add(test_id)
        else:
            claimed = _claimed(style, test_id, by_test)
            if claimed is not None:
                out[test_id] = Outcome(V.FAIL, f"the report names {test_id!r}, a run of {claimed[1]} whose sealed "
                                                "assertions loop cannot map it to: it cannot pass on the report alone")
                judged.failed.add(test_id)
            continue
        problem = None
        for s in by_test[fn]:
            values, floor = judged.values.get(s.id, []), floors.get(s.key, frozenset())
            if floor and s.style == "go":
                values, floor = _answers(test_id, values, floor, aliases)
                if not floor:
                    continue  # none of its rows ran in this subtest
            if s.op == "rows":  # a table's rows, each its own test id (a selection may run some only), judged by
                # its own row's records (and any from no row of the table): a wrong row fails its id alone
                row, planted = s.literal.row(test_id), range(len(s.literal.values))
                mine = [v for v in values if _row(v) not in planted or (row is not None and _row(v) == row)]
                problem = problem or _problem(s, mine) or _row_problem(s, test_id, o.status == V.PASS and own,
                                                                       values, floor)
            else:
                problem = problem or _problem(s, values)
            if o.status == V.PASS and own and s.unconditional and len(values) < max(1, passing.get(fn, 0)):
                problem = problem or (f"sealed assertion at {s.where}: no value reached loop from a test reported "
                                      "passing (it runs on every pass of the test)")
            if s.style == "go" and floor:
                problem = problem or _off_plan(s, values, floor, runs.get(fn, 0), aliases)
            missing = [] if s.op == "rows" else sorted({r for r, *_ in floor} - {_row(v) for v in values})
            if o.status == V.PASS and missing:
                row = f" from row {missing[0]}" if missing[0] >= 0 else ""
                problem = problem or (f"sealed assertion at {s.where}: no value reached loop{row} from a test "
                                      "reported passing (the gold patch's run sent one)")
            if s.secret and (values or (o.status == V.PASS and (s.unconditional or s.key in floors))):
                judged.decided.add(test_id)
        if problem is not None:
            out[test_id] = Outcome(V.FAIL, problem)
            judged.decided.add(test_id)
            judged.failed.add(test_id)
    return out, judged


def _row_problem(seal: Seal, test_id: str, passed: bool, values: list[Any], floor: frozenset) -> str | None:
    """Why a parametrize table's test id fails its row's check, or None: its row is the one loop planted for the id
    (`Rows.row`), no row sends more than one record per run, and a passing id sent its row's record when the
    check is unconditional or sent it on the gold tree."""
    row = seal.literal.row(test_id)
    if row is None:
        return (f"sealed assertion at {seal.where}: the report names {test_id!r}, none of the rows loop planted in "
                "its table: it cannot pass on the report alone") if passed else None
    sent = sum(_row(v) == row for v in values)
    if sent > 1:
        return f"sealed assertion at {seal.where}: {sent} values from row {row} in one run (its test sends one)"
    if passed and not sent and (seal.unconditional or row in {r for r, *_ in floor}):
        return (f"sealed assertion at {seal.where}: no value reached loop from row {row} of a test reported passing "
                "(it sends one)")
    return None


def decided_by(judged: Judged | None, test_id: str, tripwires: bool) -> str:
    """What decided a test's outcome: its sealed checks' records (SEALED); else the report, which tripwires guard
    when they share the test's file (`tripwires`: tripwire.guards), unless one of its checks was sealed and decided
    nothing (it sent no record, or one whose literal the candidate can read): loop's helper replaced that check and
    returned true in the sandbox, so no tripwire sees what it compared (UNGUARDED)."""
    if judged is not None and test_id in judged.decided:
        return SEALED
    return TRIPWIRE_GUARDED if tripwires and (judged is None or test_id not in judged.owned) else UNGUARDED


# the run's hook -----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Sealing:
    """A run's sealed files as seal_tree first writes them: each its cached plan's text, with ids every run of the
    file shares, so that the tripwires are planned on text whose syntax work is cached too; `fresh` then gives the
    files (tripwires and all) and the seals this run's own ids. Every id is a run of hex digits of a fixed width
    that only loop's edits put in a file, so swapping them moves nothing."""
    seals: tuple[Seal, ...]  # with the plans' ids
    swaps: dict[str, dict[str, str]]  # per sealed file: a plan's id, row token or helper name -> this run's


def seal_tree(work: Path, base: Path, files, channel: str, only=EVERY, style: str = "pytest",
              fifo: Path | None = None) -> Sealing:
    """Seal each test file of the framework among `files` (relative to `work`, a per-run copy) in place, with
    the plans' ids until `fresh`. `base`: the task's base tree, where the candidate reads the files as they were;
    `fifo`: the channel on this side (`channel` itself by default), whose device and inode Go's helper checks."""
    seals: list[Seal] = []
    swaps: dict[str, dict[str, str]] = {}
    tag = f"{_RNG.getrandbits(40):010x}"  # Go: one helper per package
    for rel in dict.fromkeys(files):
        path = work / rel
        if not rel.endswith(_SUFFIXES[style]) or not path.is_file() or path.is_symlink():
            continue
        source, known_text = _text(path), _text(base / rel)
        if source is None:
            continue
        text, found, extra, helper = _template(style, source, channel, _hashable(only), rel, known_text)
        if found:
            path.write_text(text, encoding="utf-8")
            swaps[rel] = _swaps(found, helper, tag if style == "go" else None)
            if extra is not None:  # Go's helper file: no tripwire goes there, so it is this run's at once
                name, helper_text = (_swapped(part, swaps[rel]) for part in extra)
                st = os.stat(fifo or channel)
                (work / name).write_text(js_go.with_channel(helper_text, st.st_dev, st.st_ino), encoding="utf-8")
            seals.extend(found)
    return Sealing(tuple(seals), swaps)


def fresh(work: Path, sealing: Sealing) -> tuple[Seal, ...]:
    """The sealed files of `sealing` (with whatever was planted in them since) and their seals with this run's ids."""
    for rel, swap in sealing.swaps.items():
        path = work / rel
        path.write_text(_swapped(path.read_text(encoding="utf-8"), swap), encoding="utf-8")
    return tuple(_renewed(s, sealing.swaps[s.file]) for s in sealing.seals)


_SUFFIXES = {"pytest": (".py",), "node": (".js", ".mjs", ".cjs"), "go": ("_test.go",)}


def _text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8") if path.is_file() and not path.is_symlink() else None
    except (OSError, UnicodeDecodeError):
        return None


def plan_file(style: str, source: str, channel: str = f"{MOUNT}/{CHANNEL}", only=EVERY, file: str = "",
              known: str | None = None, rng: random.Random = _RNG
              ) -> tuple[str, tuple[Seal, ...], tuple[str, str] | None]:
    """(the sealed text, its seals, a new file the sealed text needs (Go's helper): (path, text) or None), with
    fresh ids (`rng` given: ids drawn from it, nothing cached)."""
    if rng is not _RNG:
        return _planned(style, source, channel, only, file, known, rng)[:3]
    text, seals, extra, helper = _template(style, source, channel, _hashable(only), file, known)
    swap = _swaps(seals, helper, None)
    return _swapped(text, swap), tuple(_renewed(s, swap) for s in seals), extra and (
        _swapped(extra[0], swap), _swapped(extra[1], swap))


def _hashable(only):
    return frozenset(only) if isinstance(only, dict) else only


@functools.lru_cache(maxsize=256)
def _template(style: str, source: str, channel: str, only, file: str, known: str | None):
    """_planned once per file and selection (the syntax work is most of a run's sealing time); each run swaps in
    its own ids (_swaps)."""
    return _planned(style, source, channel, only, file, known, random.Random(_RNG.getrandbits(64)))


def _planned(style: str, source: str, channel: str, only, file: str, known: str | None, rng: random.Random):
    """(sealed text, seals, Go's helper file or None, the helper's name in the text)."""
    if style == "pytest":
        text, seals = plan(source, channel, only, file, rng, known)
        helper = re.search(r"^_loop_seal_([0-9a-f]{10}) = ", text, re.M)
        return text, seals, None, helper and helper.group(1)
    tag = f"{rng.getrandbits(40):010x}"
    if style == "node":
        (text, found), extra = js_go.plan_node(source, channel, only, file, rng, known, VALUE_CAP, DEPTH_CAP, tag), None
    else:
        text, found, extra = js_go.plan_go(source, channel, only, file, rng, known, VALUE_CAP, tag)
    return text, tuple(Seal(sid, file, line, col, f.op, f.literal, f.test, f.unconditional, secret, style)
                       for f, sid, secret, line, col in found), extra, tag


def _swaps(seals: tuple[Seal, ...], helper: str | None, tag: str | None) -> dict[str, str]:
    """A plan's ids, row tokens and helper name -> fresh ones (`tag`: the helper's, shared by a run's files)."""
    new = {helper: tag or f"{_RNG.getrandbits(40):010x}"} if helper else {}
    for s in seals:
        new[s.id] = f"{_RNG.getrandbits(64):016x}"
        for token in s.literal.tokens if s.op == "rows" else ():
            new.setdefault(token, f"{_RNG.getrandbits(48):012x}")
    return new


def _swapped(text: str, swap: dict[str, str]) -> str:
    for old, new in swap.items():
        text = text.replace(old, new)
    return text


def _renewed(s: Seal, swap: dict[str, str]) -> Seal:
    literal = replace(s.literal, tokens=tuple(swap[t] for t in s.literal.tokens)) if s.op == "rows" else s.literal
    return replace(s, id=swap[s.id], literal=literal)


def files_of(hidden: tuple[str, ...], ids: tuple[str, ...], base: Path | None = None) -> list[str]:
    """The files whose assertions are sealed on the gold tree: the hidden tests, the files of the named tests and,
    when every test passing on the base tree is graded (no pass-to-pass list), the base tree's test files by the
    runners' default names (`base`; pytest, node and Go alike: red team round eight's forgers that carry the shipped
    test names flipped the visible files' unsealed checks). A candidate's runs seal the files of the seals kept
    there."""
    files = [*hidden, *(t.split("::", 1)[0] for t in ids if "::" in t)]
    if base is not None:
        files += [f for f in repo_patch.files(base)
                  if any(fnmatch.fnmatchcase(f.rsplit("/", 1)[-1], g) for g in repo_screen.TEST_FILES)]
    return list(dict.fromkeys(files))


def _renames(seals: tuple[Seal, ...]) -> dict[str, str]:
    """Each table row's test id in the sealed copy (its token) -> its id as the task's file names it."""
    return {f"{s.file}::{s.test}[{token}]": f"{s.file}::{s.test}[{name}]" for s in seals if s.op == "rows"
            for token, name in zip(s.literal.tokens, s.literal.ids)}


def renamed(seals: tuple[Seal, ...], outcomes: dict[str, Outcome] | None) -> dict[str, Outcome] | None:
    """A sealed run's outcomes under the ids the task's files give their tests. The sealed copy has no test of a
    table row's own id: the report naming one fails it, and of two entries for one id a failing one stays."""
    names = _renames(seals)
    if not names or outcomes is None:
        return outcomes
    own = set(names.values())
    out: dict[str, Outcome] = {}
    for test_id, o in outcomes.items():
        if test_id in own:
            o = Outcome(V.FAIL, f"the report names {test_id!r}, which the sealed copy of its file has no test of")
        name = names.get(test_id, test_id)
        if name not in out or out[name].status == V.PASS:
            out[name] = o
    return out


def selecting(seals: tuple[Seal, ...], ids: list[str] | None) -> list[str] | None:
    """The test ids to run, a table row's as the sealed copy names it."""
    back = {v: k for k, v in _renames(seals).items()}
    return None if ids is None else [back.get(t, t) for t in ids]
