"""Differential fuzzing (EvalPlus-style): inputs from a contract-driven generator and seeded, type-aware
mutations of known-good inputs, kept only where the problem's input contract admits them.

An oracle built from this module (see `loop.datasets.humaneval.tasks`) declares `ARGS = True` (an input is a list of
positional arguments, called as fn(*x)) and `DISCARD_REFERENCE_FAILURES = True`: the grader first runs
every generated input through the trusted reference, with a per-input time limit, and keeps only the
inputs it accepts; an input on which the reference raises or times out is discarded, never blamed on the
candidate (the same holds for inputs met while shrinking). The candidate then gets
max(TIME_FLOOR, TIME_FACTOR x the reference's measured time on the kept inputs) for the fuzzed batch, so a
slow machine slows both sides alike. Outputs are compared with `==`, floats within a tolerance.

Everything is a function of the random.Random the relation runner passes in: same seed, same inputs.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable, Iterator
from typing import Any

from loop.oracles import gen
from loop.oracles.engine import CandidateRaised, Context, Relation, generic_shrink, json_repr, same_value, short
from loop.oracles.oracle import (  # noqa: F401 - generated relations.py read them here
    REFERENCE_LIMIT,
    TIME_FACTOR,
    TIME_FLOOR,
)
from loop.sandbox.inside.codec import dec

MAX_SIZE = 40            # trial size ramps to this; mutation steps grow with it
REFERENCE_BUDGET = 20.0  # no longer used (each slow input costs only itself); kept so older task folders load
REL_TOL = 1e-6
ABS_TOL = 1e-6

_SPECIAL_CHARS = " aZ0!.,-_"
_OWN_TILTS = ("corner", "boundary", "tail")  # a wide trial may mutate a seed: reach widens its strings


def load_seeds(text: str) -> list[list]:
    """Seeds as written by the importer: a JSON list of tagged-JSON argument lists."""
    return [list(dec(s)) for s in json.loads(text)]


# --------------------------------------------------------------------------- pools


class _Pools:
    """Values of each type seen anywhere in the seeds, to borrow from while mutating."""

    def __init__(self, seeds: list[list]):
        self.ints: list[int] = []
        self.floats: list[float] = []
        self.strs: list[str] = []
        self.chars: list[str] = []
        self.max_len = 1
        for s in seeds:
            self._walk(s)
        self.ints = sorted(set(self.ints)) or [0, 1]
        self.floats = sorted(set(self.floats)) or [0.0, 1.0]
        self.strs = sorted(set(self.strs)) or [""]
        self.chars = sorted(set(self.chars) | set(_SPECIAL_CHARS))
        lo, hi = self.ints[0], self.ints[-1]
        span = max(10, hi - lo)
        self.int_bounds = (lo - span, hi + span)
        self.str_max = max(20, 2 * max((len(s) for s in self.strs), default=0))
        self.len_max = max(10, 2 * self.max_len)

    def _walk(self, v: Any) -> None:
        if isinstance(v, bool):
            return
        if isinstance(v, int):
            self.ints.append(v)
        elif isinstance(v, float):
            if math.isfinite(v):
                self.floats.append(v)
        elif isinstance(v, str):
            self.strs.append(v)
            self.chars.extend(v)
        elif isinstance(v, (list, tuple, set, frozenset)):
            self.max_len = max(self.max_len, len(v))
            for x in _ordered(v):
                self._walk(x)
        elif isinstance(v, dict):
            self.max_len = max(self.max_len, len(v))
            for k, x in v.items():
                self._walk(k)
                self._walk(x)


def _ordered(v: Any) -> list:
    """Sets in a stable order (the parent's hash seed must not change the inputs)."""
    if isinstance(v, (set, frozenset)):
        return sorted(v, key=json_repr)
    return list(v)


# --------------------------------------------------------------------------- mutation


def _mutate_int(v: int, rng: random.Random, p: _Pools) -> int:
    r = rng.random()
    if r < 0.45:
        out = v + rng.choice((-1, 1, -2, 2, -3, 3))
    elif r < 0.6:
        out = rng.choice(p.ints)
    elif r < 0.7:
        out = -v
    elif r < 0.78:
        out = rng.choice((0, 1, -1))
    elif r < 0.86:
        out = v * 2
    elif r < 0.93:
        out = v // 2
    else:
        out = rng.randint(*p.int_bounds)
    lo, hi = p.int_bounds
    return max(lo, min(hi, out))


def _mutate_float(v: float, rng: random.Random, p: _Pools) -> float:
    r = rng.random()
    if r < 0.3:
        out = v + rng.choice((-1.0, 1.0, -0.5, 0.5, -0.1, 0.1))
    elif r < 0.45:
        out = rng.choice(p.floats)
    elif r < 0.55:
        out = -v
    elif r < 0.65:
        out = v * rng.choice((2.0, 0.5, 1.5))
    elif r < 0.75:
        out = float(round(v))
    elif r < 0.82:
        out = rng.choice((0.0, 1.0, -1.0))
    else:
        out = round(v + rng.uniform(-10, 10), 3)
    return float(max(-1e6, min(1e6, out)))


def _mutate_str(v: str, rng: random.Random, p: _Pools) -> str:
    r = rng.random()
    i = rng.randint(0, len(v))
    if r < 0.2:
        out = v[:i] + rng.choice(p.chars) + v[i:]
    elif r < 0.35 and v:
        j = min(len(v) - 1, i)
        out = v[:j] + v[j + 1:]
    elif r < 0.5 and v:
        j = min(len(v) - 1, i)
        out = v[:j] + rng.choice(p.chars) + v[j + 1:]
    elif r < 0.6:
        out = rng.choice(p.strs)
    elif r < 0.68 and len(v) > 1:
        j = rng.randint(0, len(v) - 2)
        out = v[:j] + v[j + 1] + v[j] + v[j + 2:]
    elif r < 0.75:
        out = v.swapcase() if rng.random() < 0.5 else v[:i] + v[i:].upper()
    elif r < 0.82:
        out = v + rng.choice(p.strs)
    elif r < 0.88:
        out = v[:i]
    elif r < 0.94:
        out = v[i:] + v[:i]
    else:
        out = v[:i] + v[i:i + 3] + v[i:]
    return out[: p.str_max]


def _mutate_seq(items: list, rng: random.Random, p: _Pools, depth: int) -> list:
    r = rng.random()
    n = len(items)
    if n and r < 0.35:
        i = rng.randrange(n)
        return items[:i] + [mutate(items[i], rng, p, depth + 1)] + items[i + 1:]
    if n and r < 0.5:
        i = rng.randrange(n)
        return items[:i] + items[i + 1:]
    if n and r < 0.65 and n < p.len_max:
        i, j = rng.randrange(n), rng.randint(0, n)
        new = mutate(items[i], rng, p, depth + 1) if rng.random() < 0.7 else items[i]
        return items[:j] + [new] + items[j:]
    if n > 1 and r < 0.72:
        i, j = rng.randrange(n), rng.randrange(n)
        out = list(items)
        out[i], out[j] = out[j], out[i]
        return out
    if n > 1 and r < 0.78:
        return items[::-1]
    if n > 1 and r < 0.84:  # a monotone run, either way, with a tie at its start or inside it half the time
        try:
            return gen.tie(rng, sorted(items, reverse=rng.random() < 0.3))
        except TypeError:
            return items
    if n and r < 0.9:
        i = rng.randrange(n)
        return items[:i] + items[i + 1:] + [items[i]]
    if r < 0.94:
        return []
    if n:
        return [mutate(x, rng, p, depth + 1) for x in items]
    return items


def mutate(v: Any, rng: random.Random, p: _Pools, depth: int = 0) -> Any:
    """One type-preserving mutation of v (nested values are mutated in place of one of their parts)."""
    if depth > 6:
        return v
    if v is None:
        return v
    if isinstance(v, bool):
        return (not v) if rng.random() < 0.5 else v
    if isinstance(v, int):
        return _mutate_int(v, rng, p)
    if isinstance(v, float):
        return _mutate_float(v, rng, p) if math.isfinite(v) else v
    if isinstance(v, str):
        return _mutate_str(v, rng, p)
    if isinstance(v, list):
        return _mutate_seq(v, rng, p, depth)
    if isinstance(v, tuple):
        if not v:
            return v
        i = rng.randrange(len(v))
        return v[:i] + (mutate(v[i], rng, p, depth + 1),) + v[i + 1:]
    if isinstance(v, (set, frozenset)):
        out = _mutate_seq(_ordered(v), rng, p, depth)
        try:
            return type(v)(out)
        except TypeError:
            return v
    if isinstance(v, dict):
        keys = list(v)
        r = rng.random()
        if keys and r < 0.5:
            k = rng.choice(keys)
            return {**v, k: mutate(v[k], rng, p, depth + 1)}
        if keys and r < 0.7:
            k = rng.choice(keys)
            return {key: x for key, x in v.items() if key != k}
        if keys and r < 0.9 and len(keys) < p.len_max:
            k = rng.choice(keys)
            nk = mutate(k, rng, p, depth + 1)
            try:
                return {**v, nk: v[k]} if nk not in v else v
            except TypeError:
                return v
        return {}
    return v


def generator(seeds: list[list], own: Callable[[random.Random, int], list] | None = None,
              share: float = 0.5) -> Callable[[random.Random, int], list]:
    """generate(rng, size): a seed argument list after 1 + size//10 type-aware mutations; with an `own`
    generator (written from the input contract), that one makes `share` of the inputs. Mutations may leave
    the contract: pair this with `admits`, which makes the runner draw again."""
    pools = _Pools(seeds)

    def generate(rng: random.Random, size: int) -> list:
        # a tilted trial (loop.oracles.reach) asks the contract's own generator: gen's blocks honour the tilt
        if own is not None and (not seeds or getattr(rng, "tilt", None) in _OWN_TILTS or rng.random() < share):
            return list(own(rng, size))
        x = list(rng.choice(seeds))
        if hasattr(rng, "mutated"):  # a reach trial (loop.oracles.reach.Tilted): its ints had no declared range
            rng.mutated = True
        if rng.random() < 0.05 or not x:
            return x
        for _ in range(rng.randint(1, 1 + size // 10)):
            i = rng.randrange(len(x))
            x[i] = mutate(x[i], rng, pools)
        return x

    return generate


def validate_args(seeds: list[list], contract: Callable[..., str | None] | None = None) -> Callable[[Any], str | None]:
    """None for an argument list of a seen arity that the input contract (if any) admits, else why not.
    A contract that raises on an input rejects it: an input nobody can vouch for is never used."""
    arities = {len(s) for s in seeds}

    def validate_input(x: Any) -> str | None:
        if not isinstance(x, list):
            return "input is not an argument list"
        if arities and len(x) not in arities:
            return f"input has {len(x)} arguments, the seeds have {sorted(arities)}"
        if contract is None:
            return None
        try:
            why = contract(*x)
        except Exception as exc:  # noqa: BLE001 - a contract is trusted, but a mutation may surprise it
            return f"outside the input contract ({type(exc).__name__})"
        return None if why is None else f"outside the input contract: {why}"

    return validate_input


def shrink_args(x: Any) -> Iterator[Any]:
    """Shrink one argument at a time, keeping the arity (and tuples as tuples)."""
    if not isinstance(x, list):
        return
    for i, a in enumerate(x):
        if isinstance(a, float):
            smaller: Iterator[Any] = iter([v for v in (0.0, float(round(a))) if v != a])
        elif isinstance(a, dict):
            smaller = iter([{k: v for k, v in a.items() if k != key} for key in a])
        else:
            smaller = generic_shrink(a)
        for s in smaller:
            if isinstance(a, tuple) and isinstance(s, list):
                s = tuple(s)
            yield x[:i] + [s] + x[i + 1:]


# --------------------------------------------------------------------------- comparison


def equal(got: Any, want: Any, rel_tol: float = REL_TOL, abs_tol: float = ABS_TOL) -> bool:
    """Python `==`, except that floats (also inside lists, tuples, dicts) agree within a tolerance."""
    try:
        if got == want:  # in C: most answers are exactly right; whatever `==` accepts, the rest accepts too
            return True
    except Exception:  # noqa: BLE001 - a deep or odd value: compared part by part below
        pass
    if isinstance(got, float) or isinstance(want, float):
        if isinstance(got, (int, float)) and isinstance(want, (int, float)) \
                and not isinstance(got, bool) and not isinstance(want, bool):
            try:
                if math.isnan(got) or math.isnan(want):
                    return math.isnan(got) and math.isnan(want)
                return math.isclose(got, want, rel_tol=rel_tol, abs_tol=abs_tol)
            except OverflowError:  # an int beyond any float: never close to a float
                return False
        return got == want
    if isinstance(got, (list, tuple)) and isinstance(want, (list, tuple)):
        return type(got) is type(want) and len(got) == len(want) and all(
            equal(a, b, rel_tol, abs_tol) for a, b in zip(got, want))
    if isinstance(got, dict) and isinstance(want, dict):
        return got.keys() == want.keys() and all(equal(got[k], want[k], rel_tol, abs_tol) for k in got)
    try:
        return bool(got == want)
    except Exception:
        return False


def equivalent_to(equivalent: Callable[[list, Any, Any], bool] | None, args: list, got: Any, want: Any) -> bool:
    """A problem's own output equivalence (several right answers), made total: raising means no."""
    if equivalent is None:
        return False
    try:
        return equivalent(list(args), got, want) is True
    except Exception:  # noqa: BLE001 - got is the candidate's value: whatever breaks the check is a miss
        return False


def agrees_with_reference(name: str = "agrees_with_reference", rel_tol: float = REL_TOL,
                          abs_tol: float = ABS_TOL, equivalent: Callable[[list, Any, Any], bool] | None = None) -> Relation:
    """The candidate returns what the reference returns (or, with `equivalent`, an answer the problem
    accepts as just as right). The reference is asked first, so an input it rejects (ReferenceFailed,
    discarded by DISCARD_REFERENCE_FAILURES) never reaches the candidate."""

    def check(x: Any, ctx: Context) -> str | None:
        want = ctx.ref(x).value
        got = ctx.call(x).value
        if equal(got, want, rel_tol, abs_tol) or equivalent_to(equivalent, x, got, want):
            return None
        return f"got {short(got)}, expected {short(want)}"

    return Relation(name, check)


def _floats(v: Any) -> bool:
    """EvalPlus's is_floats: a float, or a list or tuple of floats only."""
    return isinstance(v, float) or (isinstance(v, (list, tuple)) and all(isinstance(x, float) for x in v))


def _allclose(got: Any, want: Any, atol: float) -> bool:
    """numpy's assert_allclose as EvalPlus calls it (rtol 1e-7): numbers within atol + 1e-7 x |want|,
    sequences of one length element by element, anything else by `==`; NaN matches NaN."""
    if isinstance(got, (list, tuple)) and isinstance(want, (list, tuple)):
        return len(got) == len(want) and all(_allclose(a, b, atol) for a, b in zip(got, want))
    numbers = (int, float)
    if isinstance(got, numbers) and isinstance(want, numbers):
        try:
            if math.isnan(got) or math.isnan(want):
                return math.isnan(got) and math.isnan(want)
            return abs(got - want) <= atol + 1e-7 * abs(want)
        except OverflowError:
            return False
    return bool(got == want)


def within_atol(atol: float) -> Callable[[list, Any, Any], bool]:
    """EvalPlus's output comparison as an `equivalent(args, got, want)`: equal, or (with an `atol`, or 1e-6
    where the expected value is floats) close element by element. Total: raising counts as different."""

    def equivalent(args: list, got: Any, want: Any) -> bool:
        try:
            if got == want:
                return True
            tol = atol if atol else (1e-6 if _floats(want) else 0.0)
            return tol > 0 and _allclose(got, want, tol)
        except Exception:  # noqa: BLE001 - got is the candidate's value
            return False

    return equivalent


def order_free(v: Any) -> Any:
    """v with every list and tuple's items in a canonical order (the type kept): the value an output is when
    its order follows the hash seed (a reference that lists a set of strings)."""
    if isinstance(v, (list, tuple, set, frozenset)):
        return (type(v).__name__, sorted(json_repr(order_free(x)) for x in v))
    if isinstance(v, dict):
        return ("dict", sorted((json_repr(order_free(k)), json_repr(order_free(x))) for k, x in v.items()))
    return v


def unordered(inner: Callable[[list, Any, Any], bool] | None = None) -> Callable[[list, Any, Any], bool]:
    """An output equivalence for a problem whose reference lists its answer in hash order: `inner`'s, or the
    same items in any order (lists stay lists and tuples tuples; a repeated item must repeat as often)."""

    def equivalent(args: list, got: Any, want: Any) -> bool:
        if inner is not None and equivalent_to(inner, args, got, want):
            return True
        try:
            return json_repr(order_free(got)) == json_repr(order_free(want))
        except Exception:  # noqa: BLE001 - got is the candidate's value
            return False

    return equivalent


def arguments_agree(name: str = "arguments_agree") -> Relation:
    """Each argument is left as the reference leaves it on the same input (the arguments' state after the
    call, Returned.arg_after): a solution that changes its caller's data where the reference does not fails,
    one that sorts in place where the reference does passes. A candidate that raised is agrees_with_reference's
    failure, not this one's. The reference is asked first, as there (an input it rejects is discarded)."""

    def check(x: Any, ctx: Context) -> str | None:
        want = ctx.ref(x).arg_after
        try:
            got = ctx.call(x).arg_after
        except CandidateRaised:
            return None
        if got is None and want is None:  # both left every argument as it went in
            return None
        got = x if got is None else got
        want = x if want is None else want
        for i, (before, g, w) in enumerate(zip(x, got, want)):
            if not same_value(g, w, ordered=True):  # as strict as a return value: 1.0 is not 1
                left = "leaves it unchanged" if w is before or json_repr(w) == json_repr(before) \
                    else f"leaves it {short(w, 70)}"
                return (f"argument {i + 1} changed: before the call {short(before, 70)}, after it {short(g, 70)} "
                        f"(the reference {left})")
        return None

    return Relation(name, check, reads_arguments=True)
