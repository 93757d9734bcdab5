# HumanEval/160: shunting-yard evaluation with Python precedence (** right-associative); ValueError on malformed input
import operator

_OPS = {
    '+': (1, 'left', operator.add),
    '-': (1, 'left', operator.sub),
    '*': (2, 'left', operator.mul),
    '//': (2, 'left', operator.floordiv),
    '**': (3, 'right', operator.pow),
}


def do_algebra(operator, operand):
    if len(operator) < 1 or len(operand) < 2:
        raise ValueError("need at least one operator and two operands")
    if len(operator) != len(operand) - 1:
        raise ValueError("len(operator) must equal len(operand) - 1")
    for op in operator:
        if op not in _OPS:
            raise ValueError("unknown operator %r" % (op,))
    for v in operand:
        if type(v) is not int or v < 0:
            raise ValueError("operands must be non-negative integers")

    values = [operand[0]]
    pending = []

    def reduce_top():
        op = pending.pop()
        right = values.pop()
        left = values.pop()
        values.append(_OPS[op][2](left, right))

    for op, value in zip(operator, operand[1:]):
        prec, assoc, _ = _OPS[op]
        while pending:
            top_prec = _OPS[pending[-1]][0]
            if top_prec > prec or (top_prec == prec and assoc == 'left'):
                reduce_top()
            else:
                break
        pending.append(op)
        values.append(value)
    while pending:
        reduce_top()
    return values[0]
