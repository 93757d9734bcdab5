from itertools import chain, repeat
from typing import List


def intersperse(numbers: List[int], delimeter: int) -> List[int]:
    pairs = chain.from_iterable(zip(repeat(delimeter), numbers))
    return list(pairs)[1:]
