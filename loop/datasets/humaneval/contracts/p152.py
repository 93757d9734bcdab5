"""HumanEval/152 compare: game and guess are lists of int of equal length (may be empty)."""

from loop.oracles import gen


def contract(game, guess):
    for v in (game, guess):
        if not isinstance(v, list) or not all(type(x) is int for x in v):
            return "game and guess must be lists of int"
    if len(game) != len(guess):
        return "game and guess must have equal length"
    return None


def generate(rng, size):
    game = gen.int_list(rng, size, *(rng.choice(((0, 10), (None, None), (-5, 5)))))
    guess = []
    for g in game:
        r = rng.random()
        guess.append(g if r < 0.3 else (g + rng.randint(-3, 3) if r < 0.6 else gen.integer(rng, size)))
    return [game, guess]
