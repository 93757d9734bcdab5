# wrong: mutation: pops the constant term off the caller's list; e.g. derivative([1, 2, 3]) mutates its argument to [2, 6], expected it unchanged
def derivative(xs: list):
    xs.pop(0)
    for i in range(len(xs)):
        xs[i] *= i + 1
    return xs
