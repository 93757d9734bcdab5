"""gen's fast draws are random's own: the same values from the same state, so a seed replays the inputs it
made before the fast path (and a table remembered by seed stays right)."""

from __future__ import annotations

import random

from loop.oracles import gen
from loop.oracles.reach import Tilted


def test_fast_draws_equal_randoms_methods():
    for seed in range(40):
        for make in (random.Random, lambda s: Tilted(f"t{s}", "corner", "extreme")):
            mine, theirs = make(seed), make(seed)
            for a, b in ((0, 0), (-10, 20), (5, 6), (0, 2 ** 31), (-(2 ** 70), 2 ** 70), (3, 3 + 2 ** 32)):
                assert gen._randint(mine, a, b) == theirs.randint(a, b)
            for seq in ("a", "ab", "abcdefghijklmnopqrstuvwxyz", (1, 2, 3), list(range(1000))):
                assert gen._choice(mine, seq) == theirs.choice(seq)
            for alphabet in ("x", "01", gen.LETTERS + "é€😀"):
                assert gen._chars(mine, alphabet, 57) == "".join(theirs.choice(alphabet) for _ in range(57))
            assert mine.getstate() == theirs.getstate()


def test_building_blocks_draw_as_before():
    """integer, text and int_list through the fast draws give what random's public methods gave: checked
    against a copy of each block written with rng.randint / rng.choice (the code before the fast path)."""

    def integer(rng, size, lo=None, hi=None):  # gen.integer before the fast draws, ordinary trials
        bits = max(3, 2 * size)
        r = rng.random()
        if r < 0.45:
            v = rng.randint(-10, 20)
        elif r < 0.6:
            v = rng.randint(-(2 ** min(bits, 16)), 2 ** min(bits, 16))
        elif r < 0.75:
            v = rng.choice((-1, 0, 1)) + rng.choice((-1, 1)) * 2 ** rng.randint(0, bits)
        elif r < 0.85:
            v = rng.choice((2 ** 31 - 1, 2 ** 31, -(2 ** 31), 2 ** 32, 2 ** 63 - 1, 2 ** 63, 10 ** 9 + 7))
            v = v if rng.random() < 0.7 else -v
        else:
            v = rng.randint(-(2 ** bits), 2 ** bits)
        if lo is not None and rng.random() < 0.08:
            v = lo + rng.randint(0, 2)
        if hi is not None and rng.random() < 0.08:
            v = hi - rng.randint(0, 2)
        if lo is not None and hi is not None:
            return v if lo <= v <= hi else rng.randint(lo, hi)
        return v

    for seed in range(300):
        mine, theirs = random.Random(seed), random.Random(seed)
        for size, lo, hi in ((1, None, None), (9, 0, 100), (30, -5, 5), (4, 1, None)):
            if lo is not None and hi is None:
                continue
            assert gen.integer(mine, size, lo, hi) == integer(theirs, size, lo, hi)
    for seed in range(300):
        mine, theirs = random.Random(seed), random.Random(seed)
        got = gen.text(mine, 1 + seed % 40, gen.LOWER)
        n = gen.length(theirs, 1 + seed % 40, 0, None)
        want = theirs.choice(gen.LOWER) * n if n and theirs.random() < 0.15 else "".join(
            theirs.choice(gen.LOWER) for _ in range(n))
        assert got == want
