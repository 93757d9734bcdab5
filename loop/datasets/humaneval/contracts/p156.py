"""HumanEval/156 int_to_mini_roman: number is an int with 1 <= number <= 1000."""


def contract(number):
    if type(number) is not int:
        return "number must be an int"
    if not 1 <= number <= 1000:
        return "1 <= number <= 1000"
    return None


def generate(rng, size):
    r = rng.random()
    if r < 0.3:
        return [rng.choice((1, 4, 5, 9, 10, 14, 19, 40, 44, 49, 90, 99, 400, 444, 499, 900, 944, 949, 989,
                            994, 999, 1000, 3, 8, 888, 388))]
    return [rng.randint(1, 1000)]
