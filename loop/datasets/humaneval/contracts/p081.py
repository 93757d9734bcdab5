"""HumanEval/81 numerical_letter_grade: grades is a list of GPAs: int or float in [0, 4.0] (may be empty)."""

import math

from loop.oracles import gen

THRESHOLDS = (0.0, 0.7, 1.0, 1.3, 1.7, 2.0, 2.3, 2.7, 3.0, 3.3, 3.7, 4.0)


def contract(grades):
    """None when the docstring allows these arguments, else a short reason."""
    if not isinstance(grades, list) or not all(type(g) in (int, float) for g in grades):
        return "grades must be a list of numbers"
    if not all(math.isfinite(g) and 0 <= g <= 4 for g in grades):
        return "a GPA must be in [0, 4.0]"
    return None


def _gpa(rng):
    return gen.pick(rng, lambda: rng.choice(THRESHOLDS), lambda: round(rng.uniform(0, 4), rng.randint(0, 2)),
                    lambda: rng.uniform(0, 4), lambda: rng.randint(0, 4))


def generate(rng, size):
    """The positional arguments of one input inside the contract."""
    return [[_gpa(rng) for _ in range(gen.length(rng, size))]]
