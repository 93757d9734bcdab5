# HumanEval/157: sort the sides and test the Pythagorean relation on the largest (positive sides only)
def right_angle_triangle(a, b, c):
    x, y, z = sorted((a, b, c))
    if x <= 0:
        return False
    return x * x + y * y == z * z
