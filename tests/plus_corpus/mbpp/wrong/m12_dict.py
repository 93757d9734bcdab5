# wrong: logic: rows keyed by their sum, so rows with equal sums collapse; e.g. sort_matrix([[1, 2], [3, 0]]) returns [[3, 0]], expected [[1, 2], [3, 0]]
def sort_matrix(M):
    by_sum = {sum(row): row for row in M}
    return [by_sum[k] for k in sorted(by_sum)]
