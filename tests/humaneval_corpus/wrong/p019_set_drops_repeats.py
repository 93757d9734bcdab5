# HumanEval/019: wrong on ('one one',) -> 'one', right: 'one one'
from typing import List


def sort_numbers(numbers: str) -> str:
    order = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine']
    words = set(w for w in numbers.split(' ') if w)
    return ' '.join(sorted(words, key=order.index))
