"""The wire codec of a C++ function task, derived from the signature its task.toml declares.

A C++ task names its argument and return types (int, int64, double, bool, std::string, std::vector<T>,
std::pair<A, B>, nested); from them come the request encoder (loop -> driver: typed tokens), the reply
decoder (driver -> loop: one JSON message per line, checked against the return type) and the driver's
`main`, which includes `cppwire.hpp` and calls the entry point. The reply is written by a process that runs
candidate code, so `decode_reply` is total: anything malformed raises, and the Worker turns that into the
candidate's crash. Standard library only, so tasks.py can check goldens and tests against a signature.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path

WIRE_HEADER = Path(__file__).resolve().parents[2] / "sandbox" / "inside" / "cppwire.hpp"

# The integer types a signature may name: (C++ spelling, bits).
_INTS = {
    "int": ("int", 32), "int32_t": ("std::int32_t", 32), "std::int32_t": ("std::int32_t", 32),
    "long": ("long", 64), "long long": ("long long", 64), "int64": ("std::int64_t", 64),
    "int64_t": ("std::int64_t", 64), "std::int64_t": ("std::int64_t", 64),
}
_SCALARS = {"double": "double", "bool": "bool", "std::string": "string", "string": "string"}
_TOKEN = re.compile(r"\s*(long\s+long|[A-Za-z_][\w:]*|[<>,&])")


@dataclass(frozen=True)
class CType:
    """One type of a signature: kind is int, double, bool, string, vector or pair."""

    kind: str
    cpp: str  # how the generated driver spells it
    args: tuple[CType, ...] = ()
    bits: int = 0  # int only

    def __str__(self) -> str:
        return self.cpp


def parse_type(text: str) -> CType:
    """Parse a C++ type of the supported set; `const` and a trailing `&` are allowed and dropped.
    Raises ValueError naming what it does not know."""
    if not isinstance(text, str):
        raise ValueError(f"a type must be a string, not {type(text).__name__}")
    tokens, pos, text = [], 0, text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            raise ValueError(f"cannot read the type {text!r} at {text[pos:]!r}")
        tok = re.sub(r"\s+", " ", m.group(1))
        if tok not in ("const", "&"):
            tokens.append(tok)
        pos = m.end()
        while pos < len(text) and text[pos].isspace():
            pos += 1
    node, rest = _parse(tokens, text)
    if rest:
        raise ValueError(f"unexpected {' '.join(rest)!r} in the type {text!r}")
    return node


def _parse(tokens: list[str], whole: str) -> tuple[CType, list[str]]:
    if not tokens:
        raise ValueError(f"incomplete type {whole!r}")
    head, rest = tokens[0], tokens[1:]
    if head in _INTS:
        cpp, bits = _INTS[head]
        return CType("int", cpp, bits=bits), rest
    if head in _SCALARS:
        kind = _SCALARS[head]
        return CType(kind, "std::string" if kind == "string" else kind), rest
    if head in ("std::vector", "vector", "std::pair", "pair"):
        if not rest or rest[0] != "<":
            raise ValueError(f"{head} needs <...> in {whole!r}")
        rest = rest[1:]
        inner = []
        while True:
            node, rest = _parse(rest, whole)
            inner.append(node)
            if rest and rest[0] == ",":
                rest = rest[1:]
                continue
            if rest and rest[0] == ">":
                rest = rest[1:]
                break
            raise ValueError(f"expected ',' or '>' in {whole!r}")
        if head.endswith("vector"):
            if len(inner) != 1:
                raise ValueError(f"std::vector takes one type in {whole!r}")
            return CType("vector", f"std::vector<{inner[0].cpp}>", tuple(inner)), rest
        if len(inner) != 2:
            raise ValueError(f"std::pair takes two types in {whole!r}")
        return CType("pair", f"std::pair<{inner[0].cpp}, {inner[1].cpp}>", tuple(inner)), rest
    raise ValueError(f"unsupported type {head!r} in {whole!r} (int, int64, double, bool, std::string, "
                     "std::vector<T>, std::pair<A, B>)")


@dataclass(frozen=True)
class Signature:
    """`[signature]` of a C++ task: `args = ["const std::vector<std::string>&", "int"]`, `returns = "std::string"`."""

    entry_point: str
    args: tuple[CType, ...]
    returns: CType

    @classmethod
    def from_table(cls, entry_point: str, table) -> Signature:
        if not isinstance(table, dict) or set(table) - {"args", "returns"} or "returns" not in table:
            raise ValueError("[signature] needs 'returns' (a type) and 'args' (a list of types), nothing else")
        args = table.get("args", [])
        if not isinstance(args, list):
            raise ValueError("signature 'args' must be a list of types")
        return cls(entry_point, tuple(parse_type(a) for a in args), parse_type(table["returns"]))

    # loop -> driver ------------------------------------------------------------------------------------
    def encode_request(self, rid: int, args: list) -> bytes:
        """One call as the driver reads it: the id, then each argument's tokens (see cppwire.hpp).
        Raises ValueError when an argument does not fit its type (a task's input, never the candidate's)."""
        if len(args) != len(self.args):
            raise ValueError(f"{self.entry_point} takes {len(self.args)} argument(s), got {len(args)}")
        out = [str(int(rid)).encode()]
        for t, v in zip(self.args, args):
            _encode(t, v, out)
        return b" ".join(out) + b"\n"

    def check_args(self, args) -> None:
        """ValueError unless the arguments fit the signature (used on tests and goldens when a task loads)."""
        self.encode_request(0, list(args))

    # driver -> loop ------------------------------------------------------------------------------------
    def decode_reply(self, line: bytes) -> dict:
        """A reply line as the Worker's message: {"ready": 1}, {"id", "ok"}, {"id", "raised"} or
        {"id", "resource"}. Raises (anything) on what the driver never writes: the candidate's crash."""
        msg = json.loads(line.decode("utf-8", "replace"))
        if msg == {"ready": 1}:
            return msg
        if not isinstance(msg, dict) or type(msg.get("id")) is not int or len(msg) != 2:
            raise ValueError("not a reply")
        if "ok" in msg:
            return {"id": msg["id"], "ok": _value(self.returns, msg["ok"]), "after": None}
        for what in ("raised", "resource"):
            if isinstance(msg.get(what), str):
                return {"id": msg["id"], what: msg[what][:500]}
        raise ValueError("not a reply")

    def fits_return(self, value) -> bool:
        """Whether an expected value (a test's, a golden's) is something the return type can hold."""
        try:
            _encode(self.returns, value, [])
            return True
        except (ValueError, TypeError):
            return False

    # the driver ---------------------------------------------------------------------------------------
    def driver_source(self, contract_file: str) -> str:
        """The trusted driver's main: read each call's arguments, call the entry point, write the reply."""
        reads = "".join(f"  {t.cpp} a{i};\n  loop_wire::read(in, a{i});\n" for i, t in enumerate(self.args))
        call = f"{self.entry_point}({', '.join(f'a{i}' for i in range(len(self.args)))})"
        return (
            "// Generated by loop from task.toml's [signature]; trusted, built once per task.\n"
            f'#include "{contract_file}"\n'
            '#include "cppwire.hpp"\n\n'
            "#include <type_traits>\n\n"
            f"static_assert(std::is_same<decltype({_declval_call(self)}), {self.returns.cpp}>::value,\n"
            f'              "task.toml [signature] returns {self.returns.cpp}, the contract header does not");\n\n'
            "static void loop_call(loop_wire::In& in, std::string& out) {\n"
            f"{reads}"
            f"  loop_wire::write(out, {call});\n"
            "}\n\n"
            "int main(int argc, char** argv) { return loop_wire::serve(argc, argv, loop_call); }\n"
        )


def _declval_call(sig: Signature) -> str:
    args = ", ".join(f"std::declval<{t.cpp}&>()" for t in sig.args)
    return f"{sig.entry_point}({args})"


def _encode(t: CType, v, out: list[bytes]) -> None:
    """Tokens of one value: ints and bools in decimal, doubles as hex floats, strings as `len:bytes`,
    vectors as a count then their items, pairs as their two items."""
    if t.kind == "int":
        if isinstance(v, bool) or not isinstance(v, int) or not -(1 << (t.bits - 1)) <= v < 1 << (t.bits - 1):
            raise ValueError(f"{v!r:.80} is not a {t.cpp}")
        out.append(str(v).encode())
    elif t.kind == "bool":
        if not isinstance(v, bool):
            raise ValueError(f"{v!r:.80} is not a bool")
        out.append(b"1" if v else b"0")
    elif t.kind == "double":
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ValueError(f"{v!r:.80} is not a double")
        out.append(float(v).hex().encode())
    elif t.kind == "string":
        if not isinstance(v, str):
            raise ValueError(f"{v!r:.80} is not a string")
        data = v.encode("utf-8")  # a lone surrogate raises: no std::string holds it
        out.append(b"%d:%s" % (len(data), data))
    elif t.kind == "vector":
        if not isinstance(v, (list, tuple)):
            raise ValueError(f"{v!r:.80} is not a list for {t.cpp}")
        out.append(str(len(v)).encode())
        for x in v:
            _encode(t.args[0], x, out)
    else:  # pair
        if not isinstance(v, (list, tuple)) or len(v) != 2:
            raise ValueError(f"{v!r:.80} is not a pair for {t.cpp}")
        _encode(t.args[0], v[0], out)
        _encode(t.args[1], v[1], out)


def _value(t: CType, v):
    """A returned JSON value checked against its type, in the wire codec's form (loop.sandbox.inside.codec): pairs
    as lists (as tests.json writes them), non-finite doubles tagged."""
    if t.kind == "int":
        if type(v) is not int or not -(1 << (t.bits - 1)) <= v < 1 << (t.bits - 1):
            raise ValueError("not an int of the return type")
        return v
    if t.kind == "bool":
        if type(v) is not bool:
            raise ValueError("not a bool")
        return v
    if t.kind == "double":
        if isinstance(v, dict) and list(v) == ["f"] and v["f"] in ("inf", "-inf", "nan"):
            return v
        if type(v) not in (int, float):
            raise ValueError("not a double")
        f = float(v)  # an int too large for a double raises OverflowError
        return f if math.isfinite(f) else {"f": repr(f)}
    if t.kind == "string":
        if type(v) is not str:
            raise ValueError("not a string")
        return v
    if type(v) is not list:
        raise ValueError("not a list")
    if t.kind == "vector":
        return [_value(t.args[0], x) for x in v]
    if len(v) != 2:
        raise ValueError("not a pair")
    return [_value(t.args[0], v[0]), _value(t.args[1], v[1])]
