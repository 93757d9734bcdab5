"""Relations any task can use: reordering, feeding the output back, prefixes, mutation, the output
contract and agreement with the reference. Task folders combine them in their relations.py.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from loop.oracles.engine import (
    Context,
    ReferenceFailed,
    Relation,
    canonical_or_malformed,
    catches_malformed,
    json_repr,
    output_list,
    same_value,
    short,
)


def _fixed_orders(x: list) -> Iterator[tuple[str, list]]:
    yield "reversed", x[::-1]
    try:
        yield "sorted", sorted(x)
    except TypeError:
        pass


def _orders(x: list, rng: random.Random) -> Iterator[tuple[str, list]]:
    yield from _fixed_orders(x)
    shuffled = list(x)
    rng.shuffle(shuffled)
    yield "shuffled", shuffled


def permutation(canon: Callable[[Any], Any] | None = None, name: str = "permutation") -> Relation:
    """Reordering the input (reversed, sorted, shuffled) gives the same canonical output."""

    @catches_malformed
    def check(x: Any, ctx: Context) -> str | None:
        if not isinstance(x, list) or len(x) < 2:
            return None
        base = canonical_or_malformed(canon, ctx.call(x).value)
        key = json_repr(x)
        for label, variant in _orders(x, ctx.rng):
            if json_repr(variant) == key:
                continue
            got = canonical_or_malformed(canon, ctx.call(variant).value, f"output for the {label} input")
            if got != base:
                return f"{label} input {short(variant)} gave {short(got)}, original gave {short(base)}"
        return None

    def derive(x: Any, _output: Any) -> list:
        return [v for _, v in _fixed_orders(x)] if isinstance(x, list) and len(x) >= 2 else []

    return Relation(name, check, derive)


def idempotence(canon: Callable[[Any], Any] | None = None, name: str = "idempotence") -> Relation:
    """Feeding the output back in changes nothing: call(call(x).value) == call(x).value (canonically)."""

    @catches_malformed
    def check(x: Any, ctx: Context) -> str | None:
        y = ctx.call(x).value
        cy = canonical_or_malformed(canon, y)
        cz = canonical_or_malformed(canon, ctx.call(y).value, "output of the output")
        if cz != cy:
            return f"output {short(cy)} fed back in gave {short(cz)}"
        return None

    return Relation(name, check, lambda _x, output: [output])


def input_not_mutated(name: str = "input_not_mutated") -> Relation:
    """The argument is unchanged after the call (skipped when arg_after is None: passed by value)."""

    def check(x: Any, ctx: Context) -> str | None:
        after = ctx.call(x).arg_after
        if after is None:
            return None
        if not same_value(after, x, ordered=True):
            return f"argument changed from {short(x)} to {short(after)}"
        return None

    return Relation(name, check, reads_arguments=True)


def output_contract(check_fn: Callable[..., str | None], name: str = "output_contract", *,
                    with_input: bool = False) -> Relation:
    """check_fn(output) (or check_fn(x, output) with with_input) returns a reason or None; ValueError fails too."""

    def check(x: Any, ctx: Context) -> str | None:
        value = ctx.call(x).value
        try:
            return check_fn(x, value) if with_input else check_fn(value)
        except ValueError as exc:
            return str(exc) or "output violates the contract"

    return Relation(name, check)


def agrees_with_reference(canon: Callable[[Any], Any] | None = None,
                          compare: Callable[[Any, Any], bool] | None = None,
                          name: str = "agrees_with_reference") -> Relation:
    """Same canonical output as the trusted reference; compare(got, want) -> bool overrides equality."""

    @catches_malformed
    def check(x: Any, ctx: Context) -> str | None:
        got = canonical_or_malformed(canon, ctx.call(x).value)
        try:
            want = canon(ctx.ref(x).value) if canon is not None else ctx.ref(x).value
        except ValueError as exc:
            raise ReferenceFailed(f"reference output malformed on {short(x)}: {exc}") from exc
        same = compare(got, want) if compare is not None else got == want
        return None if same else f"got {short(got)}, expected {short(want)}"

    return Relation(name, check)



def subsequence_of_input(name: str = "subsequence_of_input") -> Relation:
    """Every output item comes from the input, in input order, each input item used at most once."""

    @catches_malformed
    def check(x: Any, ctx: Context) -> str | None:
        out = output_list(ctx.call(x).value)
        it = iter(x)
        for i, w in enumerate(out):
            if not any(type(v) is type(w) and v == w for v in it):
                return f"output item {i} {short(w, 40)} is not taken from the input in order"
        return None

    return Relation(name, check)



def prefix_consistency(canon: Callable[[Any], Any] | None = None, name: str = "prefix_consistency") -> Relation:
    """The output for a prefix of the input is a prefix of the output for the whole input."""

    @catches_malformed
    def check(x: Any, ctx: Context) -> str | None:
        if not isinstance(x, list) or not x:
            return None
        full = output_list(canonical_or_malformed(canon, ctx.call(x).value))
        n = len(x)
        if n <= 6:
            lengths: Iterable[int] = range(n)
        else:
            lengths = sorted({0, n // 2, n - 1, *ctx.rng.sample(range(1, n - 1), 2)})
        for k in lengths:
            part = output_list(canonical_or_malformed(canon, ctx.call(x[:k]).value, f"output for the first {k} items"))
            if full[: len(part)] != part:
                return (f"output for the first {k} items {short(part, 70)} "
                        f"is not a prefix of the full output {short(full, 70)}")
        return None

    return Relation(name, check)
