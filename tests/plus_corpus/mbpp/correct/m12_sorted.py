def sort_matrix(M):
    return sorted(M, key=sum)
