# wrong: mutation: sorts the caller's matrix in place; e.g. sort_matrix([[3], [1]]) mutates its argument to [[1], [3]], expected it unchanged
def sort_matrix(M):
    M.sort(key=sum)
    return M
