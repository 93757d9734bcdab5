"""HumanEval/143 words_in_sentence: 1..100 chars of ASCII-letter words separated by single spaces."""

# sentence is 1..100 characters: words of ASCII letters separated by single spaces (no leading or trailing
# space).

import re
import string

_SENTENCE = re.compile(r"[A-Za-z]+( [A-Za-z]+)*")


def contract(sentence):
    if not isinstance(sentence, str):
        return "sentence must be a str"
    if not 1 <= len(sentence) <= 100:
        return "1 <= len(sentence) <= 100"
    if _SENTENCE.fullmatch(sentence) is None:
        return "words of letters separated by single spaces"
    return None


def generate(rng, size):
    limit = rng.choice((100, 20, min(100, 3 * size + 5)))
    alpha = rng.choice((string.ascii_lowercase, string.ascii_letters))
    words = []
    total = -1
    for _ in range(rng.randint(1, 30)):
        k = rng.choice((1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 13, rng.randint(1, 30)))
        if total + 1 + k > limit:
            break
        words.append("".join(rng.choice(alpha) for _ in range(k)))
        total += 1 + k
    if not words:
        words = ["".join(rng.choice(alpha) for _ in range(rng.randint(1, limit)))]
    return [" ".join(words)]
