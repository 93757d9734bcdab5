# HumanEval/078: membership in a frozenset of prime hex digits; ValueError on characters that are not uppercase hex digits
_PRIME_HEX = frozenset('2357BD')
_HEX = frozenset('0123456789ABCDEF')


def hex_key(num):
    count = 0
    for ch in num:   # an empty sequence (the tests also pass []) counts 0
        if ch not in _HEX:
            raise ValueError("not an uppercase hexadecimal digit: %r" % (ch,))
        if ch in _PRIME_HEX:
            count += 1
    return count
