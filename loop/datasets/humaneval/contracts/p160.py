"""HumanEval/160 do_algebra: operators + - * // ** and non-negative int operands, one more operand."""

# operator is a non-empty list of '+', '-', '*', '//', '**'; operand a list of non-negative ints, one longer;
# evaluated with Python's precedence (** binds tightest, right to left). Left out: a floor division by zero,
# 0 ** 0 (no agreed value), and powers past 2**4096.

from loop.oracles import gen

_OPS = ("+", "-", "*", "//", "**")
_BITS = 4096


class _Bad(Exception):
    pass


def _power(base, exp):
    if base == 0 and exp == 0:
        raise _Bad("0 ** 0 has no agreed value")
    if base >= 2 and exp * base.bit_length() > _BITS:
        raise _Bad("a power past 2**4096")
    return base ** exp


def _evaluate(operator, operand):
    """Python's value of the expression, or _Bad."""
    # powers first (right to left), then * and // (left to right), then + and - (left to right)
    terms = [operand[-1]]
    ops = []
    for op, v in zip(reversed(operator), reversed(operand[:-1])):
        if op == "**":
            terms[-1] = _power(v, terms[-1])
        else:
            terms.append(v)
            ops.append(op)
    terms.reverse()
    ops.reverse()
    sums = [terms[0]]
    signs = []
    for op, v in zip(ops, terms[1:]):
        if op == "*":
            sums[-1] = sums[-1] * v
        elif op == "//":
            if v == 0:
                raise _Bad("floor division by zero")
            sums[-1] = sums[-1] // v
        else:
            sums.append(v)
            signs.append(op)
    total = sums[0]
    for op, v in zip(signs, sums[1:]):
        total = total + v if op == "+" else total - v
    return total


def contract(operator, operand):
    if not isinstance(operator, list) or not all(isinstance(o, str) and o in _OPS for o in operator):
        return "operator must be a list of '+', '-', '*', '//', '**'"
    if not isinstance(operand, list) or not all(type(v) is int for v in operand):
        return "operand must be a list of int"
    if any(v < 0 for v in operand):
        return "operands must be non-negative"
    if len(operator) < 1 or len(operand) != len(operator) + 1:
        return "at least one operator, and one operand more than operators"
    try:
        _evaluate(operator, operand)
    except _Bad as exc:
        return str(exc)
    return None


def generate(rng, size):
    for _ in range(20):
        n = gen.length(rng, min(size, 10), 1)
        operator = [rng.choice(_OPS) if rng.random() < 0.8 else rng.choice(("+", "*")) for _ in range(n)]
        operand = []
        for i in range(n + 1):
            near_power = (i > 0 and operator[i - 1] == "**") or (i < n and operator[i] == "**")
            if near_power:
                operand.append(rng.randint(0, 6))
            elif rng.random() < 0.25:
                operand.append(gen.integer(rng, size, 0))
            else:
                operand.append(rng.randint(0, 12))
        if contract(operator, operand) is None:
            return [operator, operand]
    return [["+"] * n, [rng.randint(0, 9) for _ in range(n + 1)]]
