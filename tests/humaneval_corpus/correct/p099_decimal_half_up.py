# HumanEval/099: exact decimal arithmetic; ROUND_HALF_UP in the decimal module rounds ties away from zero
from decimal import Decimal, ROUND_HALF_UP


def closest_integer(value):
    d = Decimal(value.strip())
    if not d.is_finite():
        raise ValueError("value must represent a finite number")
    return int(d.to_integral_value(rounding=ROUND_HALF_UP))
