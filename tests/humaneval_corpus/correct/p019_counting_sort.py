# HumanEval/019: counting sort over the ten numeral names, ValueError on an invalid numeral
_NAMES = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine']
_INDEX = {name: i for i, name in enumerate(_NAMES)}


def sort_numbers(numbers: str) -> str:
    counts = [0] * 10
    for word in numbers.split():
        if word not in _INDEX:
            raise ValueError("not a valid numeral: %r" % word)
        counts[_INDEX[word]] += 1
    return ' '.join(name for name, c in zip(_NAMES, counts) for _ in range(c))
