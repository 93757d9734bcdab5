"""HumanEval/111 histogram: test is single lowercase ASCII letters joined by single spaces (may be empty;
"space separated": what a run of spaces separates is open);
{letter: count} for every letter with the highest count."""

from loop.oracles import gen


def contract(test):
    if not isinstance(test, str):
        return "test must be a str"
    if test and not all(len(t) == 1 and t in gen.LOWER for t in test.split(" ")):
        return "test must be single lowercase letters separated by single spaces"
    return None


def generate(rng, size):
    alphabet = rng.choice((gen.LOWER, "abc", "ab", "xyz"))
    n = gen.length(rng, size)
    if n and rng.random() < 0.1:
        return [" ".join(rng.choice(alphabet) * n)]
    return [" ".join(rng.choice(alphabet) for _ in range(n))]
