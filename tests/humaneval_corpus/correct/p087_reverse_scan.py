# HumanEval/087: scan each row from the right so columns come out descending without sorting
def get_row(lst, x):
    out = []
    for r, row in enumerate(lst):
        for c in range(len(row) - 1, -1, -1):
            if row[c] == x:
                out.append((r, c))
    return out
