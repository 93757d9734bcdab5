"""HumanEval/17 parse_music: music_string is notes 'o', 'o|', '.|' joined by single spaces, or empty."""

from loop.oracles import gen

_NOTES = ("o", "o|", ".|")


def contract(music_string):
    if not isinstance(music_string, str):
        return "music_string must be a str"
    if music_string and not all(t in _NOTES for t in music_string.split(" ")):
        return "only the notes 'o', 'o|', '.|' joined by single spaces"
    return None


def generate(rng, size):
    n = gen.length(rng, size)
    pool = rng.choice((_NOTES, ("o",), ("o|", ".|")))
    return [" ".join(rng.choice(pool) for _ in range(n))]
