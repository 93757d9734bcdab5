# HumanEval/143: precomputed set of prime lengths up to 100; ValueError when the sentence breaks the constraints
_PRIMES = frozenset(p for p in range(2, 101) if all(p % d for d in range(2, int(p ** 0.5) + 1)))


def words_in_sentence(sentence):
    if not 1 <= len(sentence) <= 100:
        raise ValueError("sentence length must be between 1 and 100")
    words = sentence.split(' ')
    if any(not w.isalpha() for w in words if w):
        raise ValueError("words must contain only letters")
    return ' '.join(w for w in words if len(w) in _PRIMES)
