# HumanEval/017: dict dispatch on tokens, ValueError on a token outside the legend
from typing import List

_BEATS = {'o': 4, 'o|': 2, '.|': 1}


def parse_music(music_string: str) -> List[int]:
    out = []
    for token in music_string.split():
        try:
            out.append(_BEATS[token])
        except KeyError:
            raise ValueError("unknown note %r" % token) from None
    return out
