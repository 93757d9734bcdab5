from itertools import accumulate
from typing import List


def all_prefixes(string: str) -> List[str]:
    return list(accumulate(string))
