# wrong: corner: keeps floats with an integral value; e.g. filter_integers([1.0, 2]) returns [1.0, 2], expected [2]
from typing import Any, List


def filter_integers(values: List[Any]) -> List[int]:
    return [v for v in values
            if isinstance(v, int) or (isinstance(v, float) and v.is_integer())]
