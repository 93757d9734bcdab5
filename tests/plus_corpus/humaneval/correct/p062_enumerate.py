def derivative(xs: list):
    return [i * c for i, c in enumerate(xs)][1:]
