"""Sealed assertions for `node --test` and `go test` files (seal.py does pytest's): a check that compares a
computed value with a literal keeps the literal in loop's process; the sandbox's copy sends the value out.

node: `assert.strictEqual|deepStrictEqual(<expr>, <literal>)` (and `equal`/`deepEqual` of `node:assert/strict`)
in a test()/it() callback becomes `<helper>((<expr>), '<id>')`. Go: a term `<expr> != <basic literal>` (or a local
`want := <literal>` used nowhere else) of an `if` whose block calls t.Fatal*/t.Error* becomes `!<helper>(<expr>,
"<id>")`, the helper in a new `_test.go` file of the package. Found with a small lexer (strings, templates,
regular expressions, runes, comments) and bracket matching; every line keeps its number; comments go (one may
restate an expected value), Go's `//go:` directives stay. The helpers serialize by type and value, as the
assertion compares, and never throw.

One module on purpose: both planners stand on one lexer and its bracket matching, and what each helper writes
must agree tag for tag with decode_js_go and the comparisons below it, so they are reviewed together.
"""

from __future__ import annotations

import math
import random
import re
import struct
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any, NamedTuple

from loop.sandbox.channel import PIECE, PIPE_BUF

# lexing -------------------------------------------------------------------------------------------------
_PUNCT = sorted(["===", "!==", "...", "<<=", ">>=", "&^=", "**", "=>", "==", "!=", "<=", ">=", "&&", "||", "??",
                 "?.", ":=", "<-", "++", "--", "+=", "-=", "*=", "/=", "<<", ">>", "&^"], key=len, reverse=True)
_PUNCT_RE = re.compile("|".join(map(re.escape, _PUNCT)))
_SPACE = re.compile(r"\s+")
_KEYWORDS_BEFORE_REGEX = {"return", "typeof", "case", "in", "of", "delete", "void", "throw", "new", "else", "do",
                          "instanceof", "yield", "await"}
_NAME = re.compile(r"[A-Za-z_$\u0080-\U0010ffff][\w$\u0080-\U0010ffff]*")  # every non-ASCII letter (round 13: 𝑥)
_NUMBER = re.compile(r"(?:0[xX][\da-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)"
                     r"(?:[eE][+-]?\d[\d_]*)?)[ni]?")


class Tok(NamedTuple):  # a tuple: a file lexes into thousands
    kind: str  # name, num, str, tmpl, regex, rune, punct, comment
    start: int
    end: int
    text: str
    line: int = 0  # 1-based, of its first character


def lex(source: str, lang: str) -> list[Tok] | None:
    """The tokens of a JS or Go source (comments included); None where it does not lex (an unclosed string,
    template or comment): such a file is left as it is."""
    out: list[Tok] = []
    i, n = 0, len(source)
    braces: list[str] = []  # JS: "{" or "${" (a template substitution), to know where a template resumes
    last, line, counted = None, 1, 0
    while i < n:
        c = source[i]
        if c.isspace():
            i = _SPACE.match(source, i).end()
            continue
        start = i
        if source.startswith("//", i):
            j = source.find("\n", i)
            i = n if j < 0 else j
            kind = "comment"
        elif source.startswith("/*", i):
            j = source.find("*/", i + 2)
            if j < 0:
                return None
            i, kind = j + 2, "comment"
        elif c in "\"'" and not (lang == "go" and c == "'"):
            i, kind = _string_end(source, i, c), "str"
        elif c == "'" and lang == "go":
            i, kind = _string_end(source, i, "'"), "rune"
        elif c == "`" and lang == "go":
            j = source.find("`", i + 1)
            i, kind = (-1 if j < 0 else j + 1), "str"
        elif c == "`" or (c == "}" and lang == "js" and braces and braces[-1] == "${"):
            if c == "}":
                braces.pop()
            i, opened = _template_end(source, i + 1)
            if opened:
                braces.append("${")
            kind = "tmpl"
        elif c == "/" and lang == "js" and (last is None or (last.kind == "punct" and last.text not in ")]")
                                            or (last.kind == "name" and last.text in _KEYWORDS_BEFORE_REGEX)):
            i, kind = _regex_end(source, i), "regex"
        elif (m := _NUMBER.match(source, i)) and (c.isdigit() or (c == "." and i + 1 < n and source[i + 1].isdigit())):
            i, kind = m.end(), "num"
        elif m := _NAME.match(source, i):
            i, kind = m.end(), "name"
        else:
            m = _PUNCT_RE.match(source, i)
            op = m.group() if m else c
            i, kind = i + len(op), "punct"
            if lang == "js" and op == "{":
                braces.append("{")
            elif lang == "js" and op == "}" and braces:
                braces.pop()
        if i < 0:
            return None
        line += source.count("\n", counted, start)
        counted = start
        tok = Tok(kind, start, i, source[start:i], line)
        out.append(tok)
        if kind != "comment":
            last = tok
    return out


def _string_end(source: str, i: int, quote: str) -> int:
    j = i + 1
    while j < len(source):
        c = source[j]
        if c == "\\":
            j += 2
            continue
        if c == quote:
            return j + 1
        if c == "\n":
            return -1
        j += 1
    return -1


def _template_end(source: str, j: int) -> tuple[int, bool]:
    """The end of a template's text part starting at j: past its closing backtick (False) or past a `${` (True)."""
    while j < len(source):
        if source[j] == "\\":
            j += 2
        elif source[j] == "`":
            return j + 1, False
        elif source.startswith("${", j):
            return j + 2, True
        else:
            j += 1
    return -1, False


def _regex_end(source: str, i: int) -> int:
    j, klass = i + 1, False
    while j < len(source) and source[j] != "\n":
        c = source[j]
        if c == "\\":
            j += 2
            continue
        if c == "[":
            klass = True
        elif c == "]":
            klass = False
        elif c == "/" and not klass:
            j += 1
            while j < len(source) and (source[j].isalnum() or source[j] in "_$"):
                j += 1
            return j
        j += 1
    return -1


def _closing(toks: list[Tok], k: int) -> int | None:
    """The index of the bracket closing the one at k."""
    depth = 0
    for j in range(k, len(toks)):
        t = toks[j].text if toks[j].kind == "punct" else ""
        if t in ("(", "[", "{"):
            depth += 1
        elif t in (")", "]", "}"):
            depth -= 1
            if depth == 0:
                return j
    return None


def _split(toks: list[Tok], lo: int, hi: int, sep: str) -> list[tuple[int, int]]:
    """Token ranges [a, b) of toks[lo:hi] between top-level `sep`s (a trailing one ends no range)."""
    out, depth, a = [], 0, lo
    for j in range(lo, hi):
        t = toks[j].text if toks[j].kind == "punct" else ""
        if t in ("(", "[", "{"):
            depth += 1
        elif t in (")", "]", "}"):
            depth -= 1
        elif t == sep and depth == 0:
            out.append((a, j))
            a = j + 1
    if a < hi:
        out.append((a, hi))
    return out


def without_comments(source: str, toks: list[Tok], keep=lambda text: False) -> str:
    """`source` with its comments removed (a block comment's line breaks stay, so every line keeps its number)."""
    parts, at = [], 0
    for t in toks:
        if t.kind == "comment" and not keep(t.text):
            parts += [source[at:t.start], (" " + "\n" * t.text.count("\n")) if t.text.startswith("/*") else ""]
            at = t.end
    return "".join(parts) + source[at:]


def _edit(source: str, edits: list[tuple[int, int, str]]) -> str:
    for begin, end, text in sorted(edits, reverse=True):
        source = source[:begin] + text + source[end:]
    return source


# values -------------------------------------------------------------------------------------------------
class _Undefined:
    def __repr__(self) -> str:
        return "undefined"


UNDEFINED = _Undefined()  # JS undefined, as decoded and as a literal


@dataclass(frozen=True)
class GoValue:
    kind: str  # int, float, string, bool
    value: Any  # int, float, bytes, bool
    type: str  # the dynamic type's name
    iface: bool  # the compared expression's static type is an interface
    bits: int = 64  # a float's size
    row: int = -1  # the table row the loop was at (a table's check), else -1
    test: str = ""  # the name of the test or subtest it ran in (`t.Name()`), "" when the check has no `t`

    def __repr__(self) -> str:
        shown = self.value.decode("utf-8", "backslashreplace") if isinstance(self.value, bytes) else self.value
        return f"{self.type}({shown!r})"


def js_same(a: Any, b: Any) -> bool:
    """assert.deepStrictEqual on plain values (Object.is for primitives: NaN is NaN, -0 is not 0)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return b != b if a != a else a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    if isinstance(a, list):
        return len(a) == len(b) and all(js_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(js_same(a[k], b[k]) for k in a)
    return a is b if a is UNDEFINED or a is None else a == b


_JS_SPACE = "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a" \
            "\u2028\u2029\u202f\u205f\u3000\ufeff"
_JS_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def _to_number(s: str) -> float:
    """JS's ToNumber of a string (NaN for anything it does not read)."""
    s = s.strip(_JS_SPACE)
    if not s:
        return 0.0
    if s.lstrip("+-") == "Infinity" and len(s) <= 9:
        return -math.inf if s[0] == "-" else math.inf
    radix = {"x": 16, "o": 8, "b": 2}.get(s[1:2].lower()) if s[:1] == "0" else None
    try:
        if radix is not None:
            digits = s[2:]
            return float(int(digits, radix)) if digits and re.fullmatch(r"[0-9a-fA-F]+", digits) else math.nan
        return float(s) if _JS_DECIMAL.fullmatch(s) else math.nan
    except OverflowError:
        return math.inf
    except ValueError:  # a digit the radix has not
        return math.nan


def js_loose(a: Any, b: Any) -> bool:
    """JS's `==` (legacy assert.equal) between a sent value and a primitive literal: null and undefined equal
    each other only; a boolean is a number; a string meets a number as ToNumber reads it. An array or object is
    never equal: JS would compare its string form, through methods the candidate can replace."""
    nullish = (None, UNDEFINED)
    if any(a is x for x in nullish) or any(b is x for x in nullish):
        return any(a is x for x in nullish) and any(b is x for x in nullish)
    if isinstance(a, (list, dict)) or isinstance(b, (list, dict)):
        return False
    a, b = (float(x) if isinstance(x, bool) else x for x in (a, b))
    if isinstance(a, str) and isinstance(b, float):
        a = _to_number(a)
    elif isinstance(b, str) and isinstance(a, float):
        b = _to_number(b)
    return type(a) is type(b) and a == b  # NaN is not NaN; -0 is 0


def js_repr(v: Any) -> str:
    """A decoded JS value as JS writes it (5, not 5.0; null; true)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "null"
    if isinstance(v, float):
        return "-0" if v == 0 and math.copysign(1.0, v) < 0 else str(int(v)) if v.is_integer() and abs(v) < 1e21 \
            else {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}.get(repr(v), repr(v))
    if isinstance(v, list):
        return "[" + ", ".join(js_repr(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k!r}: {js_repr(x)}" for k, x in v.items()) + "}"
    return repr(v)


_GO_DEFAULT = {int: "int", float: "float64", bytes: "string", "rune": "int32"}


@dataclass(frozen=True)
class GoLiteral:
    """What a Go check compares with: one constant, or (a table's field) one per row; negated for `!= -c.want`."""
    values: tuple  # int, float or bytes constants
    rune: bool = False  # a rune literal (its default type is int32)
    table: bool = False
    negate: bool = False

    def expected(self, v: Any) -> tuple[bool, Any]:
        """(found, the constant) a value is compared with: a table's by the row it says it was sent from."""
        row = v.row if isinstance(v, GoValue) and self.table else 0
        if not 0 <= row < len(self.values):
            return False, None
        want = self.values[row]
        return True, -want if self.negate and not isinstance(want, bytes) else want

    def __repr__(self) -> str:
        shown = [x.decode("utf-8", "backslashreplace") if isinstance(x, bytes) else x for x in self.values]
        return repr(shown if self.table else shown[0])


def go_matches(literal: GoLiteral, v: Any) -> bool:
    found, want = literal.expected(v)
    return found and go_same(want, v, literal.rune)


def go_same(literal: Any, v: Any, rune: bool = False) -> bool:
    """Go's `!=` between a value (GoValue) and an untyped constant, false when they differ: the constant converted
    to the value's static type, or (an interface) to its default type, which the dynamic type must be."""
    if not isinstance(v, GoValue):
        return False
    if v.iface and v.type != _GO_DEFAULT["rune" if rune else type(literal)]:
        return False
    if isinstance(literal, bytes):
        return v.kind == "string" and v.value == literal
    if v.kind == "int":
        return float(literal).is_integer() and int(literal) == v.value if isinstance(literal, float) else literal == v.value
    if v.kind == "float":
        want, got = float(literal), v.value
        if v.bits == 32:  # the constant converted to float32; the value sent as the shortest text float32 reads back
            try:
                want, got = (struct.unpack("f", struct.pack("f", x))[0] for x in (want, got))
            except (OverflowError, struct.error):  # a record no float32 sends
                return False
        return want == got
    return False


def decode_js_go(kind: str, rest: list, decode) -> Any:
    """The JS and Go tags of a serialized value (seal.decode does the rest); ValueError when malformed."""
    if kind == "undefined" and not rest:
        return UNDEFINED
    if kind == "num" and len(rest) == 1 and isinstance(rest[0], str) and re.fullmatch(r"-?(?:[\d.e+-]+|Infinity)|NaN", rest[0]):
        return float(rest[0])
    if kind == "u16" and len(rest) == 1 and isinstance(rest[0], str) and len(rest[0]) % 4 == 0:
        return bytes.fromhex(rest[0]).decode("utf-16-be", "surrogatepass")
    if kind in ("array", "object") and len(rest) == 1 and isinstance(rest[0], list):
        if kind == "array":
            return [decode(x) for x in rest[0]]
        pairs = [(decode(p[0]), decode(p[1])) for p in rest[0] if isinstance(p, list) and len(p) == 2]
        if len(pairs) != len(rest[0]) or not all(isinstance(k, str) for k, _ in pairs):
            raise ValueError("malformed")
        return dict(pairs)
    if kind == "go" and len(rest) == 7 and all(isinstance(x, str) for x in rest[:3]) and isinstance(rest[3], bool) \
            and rest[4] in (32, 64) and type(rest[5]) is int and isinstance(rest[6], str):
        what, text, name, iface, bits, row, test = rest
        value = {"int": lambda s: int(s, 16), "float": float, "string": bytes.fromhex,
                 "bool": lambda s: {"true": True, "false": False}[s]}[what](text)
        test = bytes.fromhex(test[:2000]).decode("utf-8", "backslashreplace")
        return GoValue(what, value, name[:80], iface, bits, row, test)
    raise ValueError("malformed")


# node --test ---------------------------------------------------------------------------------------------
_ASSERT_MODULES = {"assert": False, "node:assert": False, "assert/strict": True, "node:assert/strict": True}
_METHODS = {"strictEqual": "strict", "deepStrictEqual": "deep"}
_STRICT_ONLY = {"equal": "strict", "deepEqual": "deep"}  # legacy `==` comparisons unless from assert/strict
_LEGACY = {"equal": "loose"}  # legacy assert.equal: `==` with a primitive literal (js_loose); deepEqual stays


def _js_string(text: str) -> str | None:
    """A JS string literal's value (its surrogate pairs joined), or None."""
    body, out, i = text[1:-1], [], 0
    simple = {"n": "\n", "r": "\r", "t": "\t", "b": "\b", "f": "\f", "v": "\v"}
    while i < len(body):
        c = body[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        e = body[i + 1:i + 2]
        if e in simple:
            out.append(simple[e])
            i += 2
        elif e == "0" and not body[i + 2:i + 3].isdigit():
            out.append("\0")
            i += 2
        elif e == "x" and re.fullmatch(r"[0-9a-fA-F]{2}", body[i + 2:i + 4]):
            out.append(chr(int(body[i + 2:i + 4], 16)))
            i += 4
        elif e == "u" and (m := re.match(r"\{([0-9a-fA-F]{1,6})\}|([0-9a-fA-F]{4})", body[i + 2:])):
            code = int(m.group(1) or m.group(2), 16)
            if code > 0x10FFFF:
                return None
            out.append(chr(code))
            i += 2 + m.end()
        elif e == "\n":
            i += 2
        elif e and not e.isdigit():
            out.append(e)
            i += 2
        else:
            return None
    return "".join(out).encode("utf-16-be", "surrogatepass").decode("utf-16-be", "surrogatepass")


def _js_number(text: str) -> float | None:
    t = text.replace("_", "")
    if t.endswith("n") or re.fullmatch(r"0\d+", t):  # BigInt, legacy octal
        return None
    try:
        return float(int(t, 0)) if t[:2].lower() in ("0x", "0o", "0b") else float(t)
    except ValueError:
        return None


def _js_literal(toks: list[Tok], lo: int, hi: int) -> tuple[bool, Any]:
    """A JSON-like literal (numbers, strings, null, undefined, true/false, arrays and plain objects of them)."""
    pos = [lo]

    def value() -> Any:
        t = toks[pos[0]] if pos[0] < hi else None
        if t is None:
            raise ValueError
        pos[0] += 1
        if t.kind == "str":
            s = _js_string(t.text)
            if s is None:
                raise ValueError
            return s
        if t.kind == "tmpl" and t.text.endswith("`") and t.text.startswith("`") and "${" not in t.text:
            s = _js_string('"' + t.text[1:-1].replace('"', '\\"').replace("\n", "\\n") + '"')
            if s is None:
                raise ValueError
            return s
        if t.kind == "num" or (t.text == "-" and pos[0] < hi and toks[pos[0]].kind == "num"):
            sign = 1.0
            if t.text == "-":
                sign, t = -1.0, toks[pos[0]]
                pos[0] += 1
            x = _js_number(t.text)
            if x is None:
                raise ValueError
            return sign * x
        if t.kind == "name" and t.text in ("null", "true", "false", "undefined"):
            return {"null": None, "true": True, "false": False, "undefined": UNDEFINED}[t.text]
        if t.text == "[":
            out = []
            while toks[pos[0]].text != "]":
                out.append(value())
                if toks[pos[0]].text == ",":
                    pos[0] += 1
                elif toks[pos[0]].text != "]":
                    raise ValueError
            pos[0] += 1
            return out
        if t.text == "{":
            obj = {}
            while toks[pos[0]].text != "}":
                k = toks[pos[0]]
                if k.kind == "name":
                    key = k.text
                elif k.kind == "str":
                    key = _js_string(k.text)
                elif k.kind == "num" and _js_number(k.text) is not None and _js_number(k.text).is_integer():
                    key = str(int(_js_number(k.text)))
                else:
                    raise ValueError
                if key is None or key == "__proto__" or toks[pos[0] + 1].text != ":":
                    raise ValueError
                pos[0] += 2
                obj[key] = value()
                if toks[pos[0]].text == ",":
                    pos[0] += 1
                elif toks[pos[0]].text != "}":
                    raise ValueError
            pos[0] += 1
            return obj
        raise ValueError

    try:
        got = value()
    except (ValueError, IndexError, RecursionError):
        return False, None
    return pos[0] == hi, got


def _js_bindings(toks: list[Tok]) -> tuple[dict[str, bool], dict[str, str], dict[str, str]]:
    """(assert objects -> strict?, assertion functions -> "strict"/"deep", node:test functions -> test/describe)."""
    objects, functions, tests = {}, {}, {}
    text = [t.text for t in toks]
    for k, t in enumerate(toks):
        if t.kind != "str" or k < 2:
            continue
        module = t.text[1:-1]
        # import X from 'm' | import * as X from 'm' | import { a as b } from 'm' | const X = require('m')[.strict]
        names: dict[str, str] = {}  # imported name ("default", "*" or an export) -> local
        if text[k - 1] == "from":
            j = k - 2
            if text[j] == "}":
                j0 = max(i for i in range(j) if text[i] == "{")
                for a, b in _split(toks, j0 + 1, j, ","):
                    part = text[a:b]
                    names[part[0]] = part[-1]
                j = j0 - 1
                if text[j] == ",":
                    j -= 1
            if j >= 1 and toks[j].kind == "name" and text[j - 1] == "as" and text[j - 2] == "*":
                names["*"] = text[j]
            elif toks[j].kind == "name" and text[j - 1] in ("import", ","):
                names["default"] = text[j]
        elif text[k - 1] == "(" and text[k - 2] == "require" and k + 1 < len(text) and text[k + 1] == ")":
            j = k - 4  # before `=` and `require`
            if text[k - 3] == "=" and j >= 0:
                strict = k + 3 < len(text) and text[k + 2] == "." and text[k + 3] == "strict"
                if toks[j].kind == "name":
                    names["strict" if strict else "*"] = text[j]
                elif text[j] == "}":
                    j0 = max(i for i in range(j) if text[i] == "{")
                    for a, b in _split(toks, j0 + 1, j, ","):
                        part = text[a:b]
                        names[part[0]] = part[-1]
        if module in _ASSERT_MODULES:
            strict = _ASSERT_MODULES[module]
            for name, local in names.items():
                if name in ("default", "*"):
                    objects[local] = strict
                elif name == "strict":
                    objects[local] = True
                elif name in _METHODS or name in (_STRICT_ONLY if strict else _LEGACY):
                    functions[local] = _METHODS.get(name) or (_STRICT_ONLY if strict else _LEGACY)[name]
        elif module in ("node:test", "test"):
            for name, local in names.items():
                if name in ("test", "it", "default"):
                    tests[local] = "test"
                elif name in ("describe", "suite"):
                    tests[local] = "describe"
    return objects, functions, tests


@dataclass(frozen=True)
class Found:
    """One sealable check: its call's token range, the computed expression's range, op, literal and test."""
    begin: int
    end: int  # index of the closing token
    expr: tuple[int, int]
    op: str
    literal: Any
    test: str
    unconditional: bool
    text: str  # the check as written, whitespace and comments left out: what a base file may hold too
    keep: str = ""  # Go: the local that held the literal, passed on so that it stays used
    row: str = "-1"  # Go: what says the table row a value was sent from
    group: str = ""  # Go: a table's checks, sealed all together or not at all
    t: str = ""  # Go: the `*testing.T` the check runs in (the innermost test or subtest function's), or ""


def _js_checks(toks: list[Tok]) -> tuple[list[Found], list[str]]:
    """The sealable checks of a node test file and the ids of its tests (as node names them)."""
    code = [t for t in toks if t.kind != "comment"]
    objects, functions, tests = _js_bindings(code)
    found, ids = [], []
    stack: list[tuple[str, tuple[str, str | None] | None, int]] = []  # (bracket, (test|describe, title), index)
    pending = None
    k = 0
    while k < len(code):
        t = code[k]
        if t.kind == "name" and t.text in tests and (k == 0 or code[k - 1].text != ".") and k + 1 < len(code):
            j = k + 1
            while code[j].text == "." and j + 2 < len(code) and code[j + 1].text in ("only", "skip", "todo"):
                j += 2
            if code[j].text == "(":
                title = None
                arg = code[j + 1]
                if arg.kind == "str" and code[j + 2].text in (",", ")"):
                    title = _js_string(arg.text)
                elif arg.kind == "tmpl" and arg.text[-1] == "`" and "${" not in arg.text and code[j + 2].text in (",", ")"):
                    title = arg.text[1:-1]
                pending = (tests[t.text], title)
                k = j
                continue
        if t.kind == "punct" and t.text in ("(", "[", "{"):
            stack.append((t.text, pending if t.text == "(" else None, k))
            pending = None
            if stack[-1][1] and stack[-1][1][0] == "test":
                chain = [c for _, c, _ in stack if c]
                if all(c[1] is not None for c in chain) and [c[0] for c in chain].count("test") == 1:
                    ids.append(" > ".join(c[1] for c in chain))
        elif t.kind == "punct" and t.text in (")", "]", "}"):
            if stack:
                stack.pop()
        elif t.kind == "name" and (k == 0 or code[k - 1].text not in (".", "?.")):
            semantics, head = None, k
            if t.text in objects and k + 3 < len(code) and code[k + 1].text == "." and code[k + 3].text == "(":
                method = code[k + 2].text
                semantics = _METHODS.get(method) or (_STRICT_ONLY if objects[t.text] else _LEGACY).get(method)
                k_open = k + 3
            elif t.text in functions and k + 1 < len(code) and code[k + 1].text == "(":
                semantics, k_open = functions[t.text], k + 1
            if semantics:
                got = _js_check(code, head, k_open, semantics, stack)
                if got is not None:
                    found.append(got)
                    k = got.end + 1
                    continue
        k += 1
    return found, ids


def _js_check(code: list[Tok], head: int, k_open: int, semantics: str, stack: list) -> Found | None:
    close = _closing(code, k_open)
    if close is None:
        return None
    args = _split(code, k_open + 1, close, ",")
    if len(args) not in (2, 3):
        return None
    chain = [c for _, c, _ in stack if c]
    tests = [i for i, (_, c, _) in enumerate(stack) if c and c[0] == "test"]
    if len(tests) != 1 or not all(c[1] is not None for c in chain):
        return None
    for expr, lit in ((args[0], args[1]), (args[1], args[0])):
        ok, value = _js_literal(code, *lit)
        if ok and not _js_literal(code, *expr)[0] and (semantics == "deep" or not isinstance(value, (list, dict))):
            break
    else:
        return None
    # unconditional: a statement of the test callback's own body (or its arrow's expression), no return before it
    inner = stack[tests[0] + 1:]
    before = code[head - 1].text if head else ""
    body_open = inner[0][2] if len(inner) == 1 and inner[0][0] == "{" else None
    unconditional = (not inner and before == "=>") or (
        body_open is not None and before in ("{", ";", "}") and not any(
            code[j].text == "return" and _depth(code, body_open, j) == 1 for j in range(body_open + 1, head)))
    text = "".join(x.text for x in code[head:close + 1])
    return Found(head, close, expr, semantics, value, " > ".join(c[1] for c in chain), unconditional, text)


_PREFIX: list = []  # the last token list's running bracket depth: (tokens, depths), one entry


def _depth(code: list[Tok], lo: int, j: int) -> int:
    """Brackets opened minus closed in code[lo:j] (a running sum per token list, kept for the list in use)."""
    if not _PREFIX or _PREFIX[0][0] is not code:
        run, d = [0], 0
        for x in code:
            if x.kind == "punct" and x.text in ("(", "[", "{"):
                d += 1
            elif x.kind == "punct" and x.text in (")", "]", "}"):
                d -= 1
            run.append(d)
        _PREFIX[:] = [(code, run)]
    run = _PREFIX[0][1]
    return run[j] - run[lo]


def plan_node(source: str, channel: str, only, file: str, rng: random.Random, known: str | None, cap: int, depth: int,
              tag: str | None = None):
    """(sealed text, [(Found, id, secret, line, col)]) of a node test file; the text as it was and nothing when no
    check qualifies, or the sealed file would not name the same tests."""
    toks = lex(source, "js")
    if toks is None:
        return source, []
    found, ids = _js_checks(toks)
    known_toks = lex(known, "js") if known else None
    visible = {f.text for f in _js_checks(known_toks)[0]} if known_toks else set()
    code = [t for t in toks if t.kind != "comment"]
    tag = tag or f"{rng.getrandbits(40):010x}"
    helper = f"_loopSeal_{tag}"
    edits, out = [], []
    for f in found:
        first, last = code[f.begin], code[f.end]
        if (file, first.line, _col(source, first.start)) not in only:
            continue
        sid = f"{rng.getrandbits(64):016x}"
        a, b = code[f.expr[0]].start, code[f.expr[1] - 1].end
        pad = "\n" * (source.count("\n", first.start, last.end) - source.count("\n", a, b))
        edits.append((first.start, last.end, f"{helper}(({source[a:b]}), '{sid}'{pad})"))
        out.append((f, sid, f.text not in visible, first.line, _col(source, first.start)))
    if not out:
        return source, []
    sealed = _edit(source, edits)
    sealed = without_comments(sealed, lex(sealed, "js") or [])
    esm = is_module(file, code)
    fs = f"_loop_fs_{tag}"
    sealed += ("" if sealed.endswith("\n") else "\n") + "\n" + (f"import * as {fs} from 'node:fs';\n" if esm else "") + \
        _JS_HELPER.format(name=helper, fs=fs if esm else "require('node:fs')", channel=_js_quote(channel),
                          cap=cap, depth=depth, atomic=PIPE_BUF, piece=PIECE)
    relexed = lex(sealed, "js")
    if relexed is None or _js_checks(relexed)[1] != ids:
        return source, []
    return sealed, out


def is_module(file: str, code: list[Tok]) -> bool:
    """Does node load the file (its tokens without comments) as an ES module: `.mjs`, or not `.cjs` and holding an
    import or export statement?"""
    suffix = PurePosixPath(file).suffix
    return suffix == ".mjs" or (suffix != ".cjs" and any(
        t.text in ("import", "export") and (i == 0 or code[i - 1].text in (";", "}")) and
        (i + 1 < len(code) and code[i + 1].text not in ("(", ".")) for i, t in enumerate(code)))


def with_lock(source: str, file: str, path: str) -> str:
    """A node test file that loads `path` (loop's lock of node:assert) before anything of its own, on its first line
    of code (after a hashbang line and a directive prologue such as 'use strict', so every line keeps its number and
    the prologue its meaning): a process that runs the file again without NODE_OPTIONS' preload locks all the same
    (red team round fifteen). The file as it is where it does not lex."""
    skip = source.find("\n") + 1 if source.startswith("#!") else 0  # (a hashbang line alone: 0, left as it is)
    toks = lex(source[skip:], "js") if skip or not source.startswith("#!") else None
    if toks is None:
        return source
    code = [t for t in toks if t.kind != "comment"]
    at, i, ended = 0, 0, True
    while i < len(code) and code[i].kind == "str" and (i + 1 == len(code) or code[i + 1].text == ";" or
                                                         code[i + 1].line > code[i].line):
        ended = i + 1 < len(code) and code[i + 1].text == ";"
        at, i = code[i + ended].end, i + 1 + ended
    load = f"import {_js_quote(path)};" if is_module(file, code) else f"require({_js_quote(path)});"
    return source[:skip + at] + ("" if ended else ";") + load + source[skip + at:]


def _col(source: str, at: int) -> int:
    return at - (source.rfind("\n", 0, at) + 1)


def _js_quote(s: str) -> str:
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'"


# Total and strict: a value is sent as its type and value (strings as UTF-16 code units), arrays and objects only
# when plain (their prototype Array.prototype / Object.prototype, own enumerable string keys only, no holes), as
# deepStrictEqual compares them; anything else is "unserializable" with its constructor's name. A value it cannot
# send (any error of the write) throws: the test fails, a pass needs the check's own record.
_JS_HELPER = """function {name}(value, sid) {{
  let out;
  try {{
    let left = {cap};
    const spend = (n) => {{ left -= n; if (left < 0) throw new RangeError('value larger than {cap} characters'); }};
    const hex = (s) => {{ let o = ''; for (let i = 0; i < s.length; i++) o += (0x10000 + s.charCodeAt(i)).toString(16).slice(1); return o; }};
    const plainKeys = (v) => {{
      if (Object.getOwnPropertySymbols(v).some((s) => Object.prototype.propertyIsEnumerable.call(v, s))) throw new TypeError('an object with symbol keys');
      return Object.keys(v);
    }};
    const enc = (v, depth) => {{
      if (depth > {depth}) throw new RangeError('value nested deeper than {depth}');
      spend(1);
      const t = typeof v;
      if (v === undefined) return '["undefined"]';
      if (v === null) return '["none"]';
      if (t === 'boolean') return v ? '["bool",true]' : '["bool",false]';
      if (t === 'number') return '["num","' + (Object.is(v, -0) ? '-0' : String(v)) + '"]';
      if (t === 'string') {{ spend(v.length); return '["u16","' + hex(v) + '"]'; }}
      if (t !== 'object') throw new TypeError('a ' + t);
      const proto = Object.getPrototypeOf(v);
      if (Array.isArray(v) && proto === Array.prototype) {{
        const keys = plainKeys(v);
        if (keys.length !== v.length || keys.some((k, i) => k !== String(i))) throw new TypeError('an array with holes or extra properties');
        const parts = [];
        for (let i = 0; i < v.length; i++) parts.push(enc(v[i], depth + 1));
        return '["array",[' + parts.join(',') + ']]';
      }}
      if (proto === Object.prototype && !Array.isArray(v)) {{
        const parts = plainKeys(v).map((k) => {{ spend(k.length); return '[["u16","' + hex(k) + '"],' + enc(v[k], depth + 1) + ']'; }});
        return '["object",[' + parts.join(',') + ']]';
      }}
      const ctor = proto === null ? 'null-prototype object' : proto.constructor && proto.constructor.name;
      throw new TypeError(typeof ctor === 'string' && ctor ? ctor : 'object');
    }};
    out = enc(value, 0);
  }} catch (e) {{
    const why = e && typeof e.message === 'string' ? e.message : '?';
    out = '["unserializable","' + why.replace(/[^\\w .,-]/g, '?').slice(0, 200) + '"]';
  }}
  try {{
    const fs = {fs};
    const line = '{{"id":"' + sid + '","value":' + out + '}}\\n';  // ASCII: one byte a character
    let pieces = [line];
    if (line.length > {atomic}) {{
      {name}.sent = ({name}.sent || 0) + 1;
      const nonce = process.pid + '.' + {name}.sent + '.' + Math.random().toString(16).slice(2, 10);
      const n = Math.ceil(line.length / {piece});
      pieces = [];
      for (let i = 0; i < n; i++) {{
        const hex = Buffer.from(line.slice(i * {piece}, (i + 1) * {piece}), 'latin1').toString('hex');
        pieces.push('{{"id":"' + sid + '","part":["' + nonce + '",' + i + ',' + n + '],"hex":"' + hex + '"}}\\n');
      }}
    }}
    const fd = fs.openSync({channel}, 'a');
    try {{
      for (const piece of pieces) {{
        if (fs.writeSync(fd, piece) !== piece.length) throw new Error('a short write');
      }}
    }} finally {{
      fs.closeSync(fd);
    }}
  }} catch (e) {{
    throw new Error("loop's sealed check could not send its value (" + String(e && e.code || e).slice(0, 200) + ')');
  }}
  return true;
}}
"""


# go test ------------------------------------------------------------------------------------------------
def _go_literal(toks: list[Tok], lo: int, hi: int) -> tuple[bool, Any, bool]:
    """(ok, value, is a rune) of a basic literal, optionally negated: int, float, string (bytes) or rune (int)."""
    neg = hi - lo == 2 and toks[lo].text == "-"
    if hi - lo != 1 + neg:
        return False, None, False
    t = toks[hi - 1]
    try:
        if t.kind == "num" and not t.text.endswith("i"):
            text = t.text.replace("_", "")
            x = int(text, 0) if re.fullmatch(r"0[xXoObB].*|[1-9]\d*|0", text) else float(text)
            if re.fullmatch(r"0\d+", text):
                x = int(text, 8)
            return True, -x if neg else x, False
        if t.kind == "str" and not neg:
            return True, _go_string(t.text), False
        if t.kind == "rune" and not neg:
            s = _go_string('"' + t.text[1:-1] + '"').decode("utf-8", "surrogatepass")
            return (len(s) == 1), ord(s) if len(s) == 1 else None, True
    except (ValueError, UnicodeDecodeError):
        pass
    return False, None, False


def _go_string(text: str) -> bytes:
    """A Go string literal's bytes (interpreted or raw)."""
    if text[0] == "`":
        return text[1:-1].replace("\r", "").encode("utf-8")
    body, out, i = text[1:-1], bytearray(), 0
    simple = {"a": 7, "b": 8, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11, "\\": 92, "'": 39, '"': 34}
    while i < len(body):
        c = body[i]
        if c != "\\":
            out += c.encode("utf-8")
            i += 1
            continue
        e = body[i + 1]
        if e in simple:
            out.append(simple[e])
            i += 2
        elif e == "x":
            out.append(int(body[i + 2:i + 4], 16))
            i += 4
        elif e in "01234567":
            out.append(int(body[i + 1:i + 4], 8))
            i += 4
        elif e in "uU":
            n = 4 if e == "u" else 8
            out += chr(int(body[i + 2:i + 2 + n], 16)).encode("utf-8")
            i += 2 + n
        else:
            raise ValueError(e)
    return bytes(out)


_GO_ZERO = {int: "0", float: "0.0", bytes: '""'}
_GO_REPORTS = {"Fatal", "Fatalf", "Error", "Errorf"}
_COMPARISONS = {"==", "!=", "<", ">", "<=", ">="}


@dataclass(frozen=True)
class _Table:
    """`for KEY, VAR := range <rows>` over a `[]struct{...}{...}` literal (inline, or a local used only there)."""
    var: str
    key: int  # the token of the range's KEY (`_` or a name)
    body: tuple[int, int]  # the loop's block: its braces
    fields: dict  # field -> the token ranges of its value in each row (None where a row's is no basic literal)
    group: str  # its checks are sealed all together or not at all


def _go_tables(code: list[Tok], body: int, end: int) -> list[_Table]:
    out = []
    for j in range(body + 1, end - 6):
        if not (code[j].text == "for" and code[j + 2].text == "," and code[j + 4].text == ":=" and
                code[j + 5].text == "range" and code[j + 1].kind == code[j + 3].kind == "name"):
            continue
        lo = j + 6
        if code[lo].kind == "name" and code[lo + 1].text == "{":  # a local used only here: its declaration
            name = code[lo].text
            decl = [i for i in range(body + 1, j) if code[i].text == name and code[i + 1].text == ":="
                    and code[i - 1].line < code[i].line and _depth(code, body, i) == 1]
            uses = [i for i in range(body + 1, end) if code[i].text == name and code[i - 1].text != "."]
            rows = _go_rows(code, decl[0] + 2) if len(decl) == 1 and len(uses) == 2 else None
            block = lo + 1
        else:
            rows = _go_rows(code, lo)
            block = rows[1] + 1 if rows else None
        close = _closing(code, block) if rows and code[block].text == "{" else None
        if close is not None:
            out.append(_Table(code[j + 3].text, j + 1, (block, close), rows[0], f"table{j}"))
    return out


def _go_rows(code: list[Tok], at: int) -> tuple[dict, int] | None:
    """(field -> per-row token range of its value, the literal's closing brace) of a `[]struct{ fields }{ {row},
    ... }` literal starting at `at`."""
    if not (code[at].text == "[" and code[at + 1].text == "]" and code[at + 2].text == "struct" and code[at + 3].text == "{"):
        return None
    fields_end = _closing(code, at + 3)
    if fields_end is None or code[fields_end + 1].text != "{":
        return None
    names: list[str] = []
    decls, cur = [], []
    for i in range(at + 4, fields_end):  # field declarations end at a `;` or a line break
        if code[i].text == ";" or (cur and code[i].line > code[cur[-1]].line):
            decls.append(cur)
            cur = []
        if code[i].text != ";":
            cur.append(i)
    decls.append(cur)
    for d in (x for x in decls if x):
        part = [code[i].text for i in d]  # `a, b string`: names, then their type
        k = 0
        while k + 2 < len(part) and part[k + 1] == ",":
            k += 2
        if k + 1 >= len(part) or not all(code[d[i]].kind == "name" for i in range(0, k + 1, 2)):
            return None  # an embedded field: no names to read rows by
        names += part[0:k + 1:2]
    rows_end = _closing(code, fields_end + 1)
    if rows_end is None:
        return None
    fields: dict[str, list] = {n: [] for n in names}
    for a, b in _split(code, fields_end + 2, rows_end, ","):
        if code[a].text != "{" or _closing(code, a) != b - 1:
            return None
        values = _split(code, a + 1, b - 1, ",")
        keyed = all(y - x >= 3 and code[x + 1].text == ":" for x, y in values)
        if not keyed and len(values) != len(names):
            return None
        row = {code[x].text: (x + 2, y) for x, y in values} if keyed else dict(zip(names, values))
        for n in names:
            got = row.get(n)
            fields[n].append(got if got is not None and _go_literal(code, *got)[0] else None)
    return fields, rows_end


def _go_checks(source: str, toks: list[Tok]) -> tuple[list[tuple[Found, list]], dict[str, list]]:
    """Each sealable term of a Go test file with the edits that take its literal out of the file (its message
    strings' copies of the literal, a `want := <literal>` it compares with), and per group of terms sealed all
    together or not at all (a table's) the edits they share (each row's value zeroed, the row counted)."""
    code = [t for t in toks if t.kind != "comment"]
    out, shared = [], {}
    for k, t in enumerate(code):
        if not (t.text == "func" and k + 2 < len(code) and code[k + 1].text.startswith("Test")
                and code[k + 2].text == "(" and (k == 0 or code[k - 1].line < t.line)):
            continue
        name = code[k + 1].text
        params = _closing(code, k + 2)
        body = next((j for j in range(params or k, len(code)) if code[j].text == "{"), None)
        end = _closing(code, body) if body is not None else None
        if end is None:
            continue
        wants, tables, ts = _go_wants(code, body, end), _go_tables(code, body, end), _go_ts(code, k, end)
        terms = []  # (if, block, close, unconditional, a, b, op)
        for j in range(body + 1, end):
            if code[j].text != "if":
                continue
            block = next((i for i in range(j + 1, end) if code[i].text == "{" and _depth(code, j + 1, i) == 0), None)
            close = _closing(code, block) if block is not None else None
            calls = [i for i in range(block, close or block) if code[i].text in _GO_REPORTS and code[i - 1].text == "."]
            if not calls:
                continue
            # the `*testing.T` the failure is reported on, when it is an enclosing test function's own parameter
            t = code[calls[0] - 2].text
            t = t if any(a < j < b for a, b, name in ts if name == t) else ""
            lo = (_split(code, j + 1, block, ";") or [(j + 1, block)])[-1][0]
            if any(code[i].text == "&&" and _depth(code, lo, i) == 0 for i in range(lo, block)):
                continue
            unconditional = _depth(code, body, j) == 1 and not any(
                code[i].text in ("return", "goto", "break", "continue") and _depth(code, body, i) == 1 for i in range(body, j))
            for a, b in _split(code, lo, block, "||"):
                ops = [i for i in range(a, b) if code[i].text in _COMPARISONS and _depth(code, a, i) == 0]
                if len(ops) == 1 and code[ops[0]].text == "!=":
                    terms.append((j, block, close, unconditional, a, b, ops[0], t))
        # a table's field is sealed where every use of it is such a term's side or in its failure block
        cells = {}  # (table index, field) -> [(term index, negated)]
        for n, (j, block, close, _, a, b, op, _) in enumerate(terms):
            for side in ((op + 1, b), (a, op)):
                toks_ = [x.text for x in code[side[0]:side[1]]]
                neg = toks_[:1] == ["-"]
                for ti, tab in enumerate(tables):
                    if toks_[neg:] [:2] == [tab.var, "."] and len(toks_) == 3 + neg and toks_[-1] in tab.fields \
                            and tab.body[0] < j < tab.body[1] and all(tab.fields[toks_[-1]]):
                        cells.setdefault((ti, toks_[-1]), []).append((n, neg, side))
        sealed_terms = {}
        for (ti, field), uses in cells.items():
            tab = tables[ti]
            every = [i for i in range(tab.body[0], tab.body[1]) if code[i].text == tab.var and code[i + 1].text == "."
                     and code[i + 2].text == field]
            covered = {side[0] + neg for _, neg, side in uses}
            blocks = [(terms[n][1], terms[n][2]) for n, _, _ in uses]
            if all(i in covered or any(x < i < y for x, y in blocks) for i in every):
                for n, neg, side in uses:
                    sealed_terms[n] = (tab, field, neg, side)
        for n, (j, block, close, unconditional, a, b, op, t) in enumerate(terms):
            if n in sealed_terms:
                tab, field, neg, side = sealed_terms[n]
                expr = (a, op) if side == (op + 1, b) else (op + 1, b)
                if _go_literal(code, *expr)[0]:
                    continue
                values = [_go_literal(code, *r) for r in tab.fields[field]]
                key = code[tab.key].text
                row = key if key != "_" else "loopSealRow"
                edits = shared.setdefault(tab.group, [])
                if key == "_" and not any(e[0] == code[tab.key].start for e in edits):
                    edits.append((code[tab.key].start, code[tab.key].end, row))
                for r in tab.fields[field]:
                    if not any(e[0] == code[r[0]].start for e in edits):
                        edits.append((code[r[0]].start, code[r[1] - 1].end, '""' if isinstance(values[0][1], bytes) else "0"))
                literal = GoLiteral(tuple(v for _, v, _ in values), values[0][2], True, neg)
                text = name + ":" + "".join(x.text for x in code[a:b])
                out.append((Found(a, b - 1, expr, "go", literal, name, False, text, row=row, group=tab.group, t=t), []))
                continue
            for expr, lit in (((a, op), (op + 1, b)), ((op + 1, b), (a, op))):
                span, keep, extra = lit, "", []
                local = code[lit[0]].text if lit[1] - lit[0] == 1 else None
                if local in wants:  # `want := <literal>` used here and in this check's message only
                    span, keep = wants[local], local
                    uses = [i for i in range(body, end) if code[i].text == local and code[i - 1].text != "."]
                    if not all(i in (lit[0], span[0] - 2) or block < i < close for i in uses):
                        continue
                ok, value, rune = _go_literal(code, *span)
                if not ok or _go_literal(code, *expr)[0]:
                    continue
                if keep:
                    extra.append((code[span[0]].start, code[span[1] - 1].end, _GO_ZERO[type(value)]))
                needle = source[code[span[0]].start:code[span[1] - 1].end].strip('"`')
                for s in code[block:close]:  # a message that restates the literal
                    if s.kind == "str" and len(needle) > 1 and "\\" not in needle and needle in s.text[1:-1]:
                        extra.append((s.start, s.end, s.text[0] + s.text[1:-1].replace(needle, "?") + s.text[-1]))
                text = name + ":" + "".join(x.text for x in code[a:b])
                out.append((Found(a, b - 1, expr, "go", GoLiteral((value,), rune), name, unconditional, text, keep,
                                  t=t), extra))
                break
    return out, shared


def _go_ts(code: list[Tok], lo: int, hi: int) -> list[tuple[int, int, str]]:
    """The functions in code[lo:hi] that take a `*testing.T` (a test, a subtest's literal): (their body's opening
    brace, its closing brace, the parameter's name)."""
    out = []
    for i in range(lo, hi - 8):
        p = i + 1 if code[i + 1].text == "(" else i + 2  # a literal, or a declaration's name first
        if code[i].text == "func" and code[p].text == "(" and code[p + 1].kind == "name" and code[p + 1].text != "_" \
                and [x.text for x in code[p + 2:p + 8]] == ["*", "testing", ".", "T", ")", "{"]:
            close = _closing(code, p + 7)
            if close is not None:
                out.append((p + 7, close, code[p + 1].text))
    return out


def _go_wants(code: list[Tok], body: int, end: int) -> dict[str, tuple[int, int]]:
    """Locals of the test's own body declared on a line of their own as `name := <basic literal>`: name -> the
    literal's token range."""
    out = {}
    for j in range(body + 1, end - 2):
        if code[j].kind == "name" and code[j + 1].text == ":=" and code[j - 1].line < code[j].line \
                and _depth(code, body, j) == 1:
            lo = j + 2
            hi = lo + 1 + (code[lo].text == "-")
            if hi < end and _go_literal(code, lo, hi)[0] and (code[hi].line > code[hi - 1].line or code[hi].text == ";"):
                out[code[j].text] = (lo, hi)
    return out


def plan_go(source: str, channel: str, only, file: str, rng: random.Random, known: str | None, cap: int,
            tag: str | None = None):
    """(sealed text, [(Found, id, secret, line, col)], helper file (name, text) or None) of a Go test file.
    `tag`: the helper's name, shared by every file a run seals (one helper per package: each copy of it is
    compiled, ~7 ms a copy in the example task's package); None draws one from `rng`."""
    toks = lex(source, "go")
    if toks is None:
        return source, [], None
    found, shared = _go_checks(source, toks)
    known_toks = lex(known, "go") if known else None
    visible = {f.text for f, _ in _go_checks(known, known_toks)[0]} if known_toks else set()
    code = [t for t in toks if t.kind != "comment"]
    package = next((code[i + 1].text for i, t in enumerate(code[:-1]) if t.text == "package"), None)
    if package is None:
        return source, [], None

    def where(f: Found) -> tuple[str, int, int]:
        first = code[f.begin]
        return file, first.line, _col(source, first.start)

    # a table's checks all or none: a row's value zeroed for one would fail another still comparing with it
    dropped = {f.group for f, _ in found if f.group and where(f) not in only}
    tag = tag or f"{rng.getrandbits(40):010x}"
    helper = f"loopSeal{tag}"
    edits, out = [], []
    for f, extra in found:
        if where(f) not in only or f.group in dropped:
            continue
        sid = f"{rng.getrandbits(64):016x}"
        a, b = code[f.expr[0]].start, code[f.expr[1] - 1].end
        first, last = code[f.begin], code[f.end]
        pad = "\n" * (source.count("\n", first.start, last.end) - source.count("\n", a, b))
        keep = f", {f.keep}" if f.keep else ""
        test = f"{f.t}.Name()" if f.t else '""'
        edits += [(first.start, last.end, f'!{helper}(({source[a:b]}), "{sid}", {f.row}, {test}{keep}{pad})'), *extra]
        out.append((f, sid, f.text not in visible, *where(f)[1:]))
    if not out:
        return source, [], None
    groups = {f.group for f, *_ in out if f.group}
    edits += [e for g in groups for e in shared[g]]
    sealed = _edit(source, edits)
    sealed = without_comments(sealed, lex(sealed, "go") or [], keep=lambda c: c.startswith(("//go:", "// +build", "//line")))
    name = str(PurePosixPath(file).with_name(f"zz_loop_seal_{tag}_{package}_test.go"))  # (a folder's two packages)
    imports = "".join(f'\t"{p}"\n' for p in GO_IMPORTS)
    return sealed, out, (name, _GO_HELPER.format(package=package, imports=imports, name=helper, dev=_DEV, ino=_INO,
                                                 channel=_go_quote(channel), cap=cap, atomic=PIPE_BUF, piece=PIECE))


def go_helper_names() -> frozenset[str]:
    """Every identifier the Go helper's text uses (the screen keeps a patch from redeclaring Go's predeclared
    ones in the package the helper joins)."""
    return frozenset(re.findall(r"[A-Za-z_]\w*", _GO_HELPER))


def _go_quote(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


# A value is read through reflect by its kind, never through its methods (a Stringer, a named type's own
# methods say nothing); the static type's being an interface travels with it, since Go's `!=` then compares
# the dynamic type too. Never panics (a recover). It returns true once the record is written, so the test's own
# failure call runs when it cannot be (any errno): a pass needs the check's own record; the parent decides.
GO_IMPORTS = ("encoding/hex", "os", "reflect", "strconv", "syscall")  # the helper's (env.py warms Go's cache with them)
_GO_HELPER = """package {package}

import (
{imports})

func {name}[T any](v T, sid string, row int, test string, _ ...any) bool {{
	rv := reflect.ValueOf(&v).Elem()
	line := `{{"id":"` + sid + `","value":` + {name}Encode(rv, row, test) + "}}\\n"
	// Raw blocking calls, never an os.File: Go's poller would park a write that found the FIFO full and write
	// again later to the same descriptor number, which code under test could meanwhile point elsewhere (dup3:
	// red team round nineteen); a write waiting in the kernel keeps the file it started on.
	fd, err := syscall.Open({channel}, syscall.O_WRONLY|syscall.O_APPEND|syscall.O_CLOEXEC, 0)
	if err == nil {{
		var st syscall.Stat_t
		if err = syscall.Fstat(fd, &st); err == nil && (uint64(st.Dev) != {name}Dev || uint64(st.Ino) != {name}Ino) {{
			err = syscall.EXDEV // not loop's channel: the path was made to lead elsewhere
		}}
		for _, piece := range {name}Pieces(line, sid) {{
			if err != nil {{
				break
			}}
			n, werr := syscall.Write(fd, []byte(piece))
			for werr == syscall.EINTR {{
				n, werr = syscall.Write(fd, []byte(piece))
			}}
			if err = werr; err == nil && n != len(piece) {{ // (a piece is one atomic write of a pipe: all or nothing)
				err = syscall.EIO
			}}
		}}
		if cerr := syscall.Close(fd); err == nil {{
			err = cerr
		}}
	}}
	if err != nil {{
		os.Stderr.WriteString("loop's sealed check could not send its value (" + err.Error() + ")\\n")
	}}
	return err == nil
}}

const {name}Dev, {name}Ino uint64 = {dev}, {ino}

var {name}Sent = make(chan int, 1) // a counter goroutines share without a new import

func init() {{ {name}Sent <- 0 }}

// A line longer than one atomic write of a pipe, as pieces that are each one.
func {name}Pieces(line, sid string) []string {{
	if len(line) <= {atomic} {{
		return []string{{line}}
	}}
	sent := <-{name}Sent + 1
	{name}Sent <- sent
	nonce := strconv.Itoa(os.Getpid()) + "." + strconv.Itoa(sent)
	n := (len(line) + {piece} - 1) / {piece}
	out := make([]string, 0, n)
	for i := 0; i < n; i++ {{
		end := (i + 1) * {piece}
		if end > len(line) {{
			end = len(line)
		}}
		out = append(out, `{{"id":"`+sid+`","part":["`+nonce+`",`+strconv.Itoa(i)+`,`+strconv.Itoa(n)+`],"hex":"`+
			hex.EncodeToString([]byte(line[i*{piece}:end]))+`"}}`+"\\n")
	}}
	return out
}}

func {name}Encode(rv reflect.Value, row int, test string) (rec string) {{
	rec = `["unserializable","panic"]`
	defer func() {{ recover() }}()
	iface := rv.Kind() == reflect.Interface
	if iface {{
		rv = rv.Elem()
	}}
	rec = `["unserializable","nil"]`
	if rv.IsValid() {{
		name := strconv.Quote(rv.Type().String())
		head := `["go","`
		tail := `",` + name + `,` + strconv.FormatBool(iface) + `,`
		end := `,` + strconv.Itoa(row) + `,"` + hex.EncodeToString([]byte(test)) + `"]`
		switch rv.Kind() {{
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			rec = head + `int","` + strconv.FormatInt(rv.Int(), 16) + tail + `64` + end
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			rec = head + `int","` + strconv.FormatUint(rv.Uint(), 16) + tail + `64` + end
		case reflect.Float32:
			rec = head + `float","` + strconv.FormatFloat(rv.Float(), 'g', -1, 32) + tail + `32` + end
		case reflect.Float64:
			rec = head + `float","` + strconv.FormatFloat(rv.Float(), 'g', -1, 64) + tail + `64` + end
		case reflect.String:
			s := rv.String()
			if len(s) > {cap} {{
				rec = `["unserializable","value larger than {cap} bytes"]`
			}} else {{
				rec = head + `string","` + hex.EncodeToString([]byte(s)) + tail + `64` + end
			}}
		case reflect.Bool:
			rec = head + `bool","` + strconv.FormatBool(rv.Bool()) + tail + `64` + end
		default:
			rec = `["unserializable",` + strconv.Quote(rv.Kind().String()) + `]`
		}}
	}}
	return
}}
"""

# The channel's device and inode in the helper, as constants Go compiles into the comparing instructions, not data the
# test process can rewrite: red team round seventeen rewrote the helper's channel path (a string in read-only data,
# through /proc/self/mem or an mmap over it) to a link it could point at a file of its own mid-run, and forwarded
# edited records. The helper sends only through what it opened being loop's FIFO. A plan holds these placeholders;
# each run's helper file gets its FIFO's numbers (with_channel).
_DEV, _INO = "0x5ea1ed00000de7", "0x5ea1ed000001de"


def with_channel(helper: str, dev: int, ino: int) -> str:
    """A Go helper's text for the run whose channel FIFO has this device and inode."""
    return helper.replace(_DEV, hex(dev)).replace(_INO, hex(ino))
