"""HumanEval/148 bf: planet1 and planet2 are str, a planet name or no planet name in any case."""

# planet1 and planet2 are str: a planet name as spelt in the docstring ('Mercury' .. 'Neptune'), or a name that
# is no planet in any letter case or spacing ('Pluto', '', ...).

import string

_PLANETS = ("Mercury", "Venus", "Earth", "Mars", "Jupiter", "Saturn", "Uranus", "Neptune")
_LOWER = {p.lower() for p in _PLANETS}
_OTHERS = ("Pluto", "Makemake", "Sun", "Moon", "Ceres", "Eris", "", "Planet", "Terra", "Merc", "Earths",
           "Jupyter", "Satur", "X")


def contract(planet1, planet2):
    for p in (planet1, planet2):
        if not isinstance(p, str):
            return "planet names must be str"
        if p not in _PLANETS and p.strip().lower() in _LOWER:
            return "a planet name in another case or with spaces is ambiguous"
    return None


def _name(rng):
    r = rng.random()
    if r < 0.85:
        return rng.choice(_PLANETS)
    if r < 0.95:
        return rng.choice(_OTHERS)
    return "".join(rng.choice(string.ascii_letters) for _ in range(rng.randint(1, 9)))


def generate(rng, size):
    a, b = _name(rng), _name(rng)
    if contract(a, b) is not None:
        a, b = "Pluto", b if b in _PLANETS else "Earth"
    if rng.random() < 0.1:
        b = a
    return [a, b]
