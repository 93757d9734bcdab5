# HumanEval/153: max over (strength, -index) so the earliest extension wins ties
def Strongest_Extension(class_name, extensions):
    if not extensions:
        raise ValueError("extensions must not be empty")

    def strength(ext):
        return sum(1 for c in ext if c.isupper()) - sum(1 for c in ext if c.islower())

    _, _, best = max((strength(e), -i, e) for i, e in enumerate(extensions))
    return class_name + '.' + best
