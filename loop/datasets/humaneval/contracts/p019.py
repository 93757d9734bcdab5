"""HumanEval/19 sort_numbers: numbers is number words 'zero'..'nine' joined by single spaces (no leading or trailing space), or empty."""

from loop.oracles import gen

_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")


def contract(numbers):
    if not isinstance(numbers, str):
        return "numbers must be a str"
    if numbers and not all(w in _WORDS for w in numbers.split(" ")):
        return "only the words 'zero'..'nine' joined by single spaces"
    return None


def generate(rng, size):
    n = gen.length(rng, size)
    pool = _WORDS if rng.random() < 0.7 else rng.sample(_WORDS, 2)
    return [" ".join(rng.choice(pool) for _ in range(n))]
