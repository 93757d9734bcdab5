# expect: stable_fail
# A str subclass equal to everything, returned to a check(candidate) that compares with ==.
class Anything(str):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = str.__hash__


def decode_cyclic(s: str):
    return Anything("")
