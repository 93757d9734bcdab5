def reverse_delete(s, c):
    kept = "".join(ch for ch in s if ch not in c)
    return (kept, kept == kept[::-1])
