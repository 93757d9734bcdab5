# HumanEval/159: eat min(need, remaining); ValueError when an argument is outside 0..1000
def eat(number, need, remaining):
    for name, v in (('number', number), ('need', need), ('remaining', remaining)):
        if type(v) is not int or not 0 <= v <= 1000:
            raise ValueError("%s must be an integer in 0..1000" % name)
    eaten = min(need, remaining)
    return [number + eaten, remaining - eaten]
