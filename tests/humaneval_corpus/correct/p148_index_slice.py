# HumanEval/148: index lookup in an ordered tuple, then slice strictly between the two orbits
_PLANETS = ("Mercury", "Venus", "Earth", "Mars", "Jupiter", "Saturn", "Uranus", "Neptune")


def bf(planet1, planet2):
    if planet1 not in _PLANETS or planet2 not in _PLANETS:
        return ()
    i, j = sorted((_PLANETS.index(planet1), _PLANETS.index(planet2)))
    return _PLANETS[i + 1:j]
