def dedupe_words(words: list[str]) -> list[str]:
    """Drop repeated words, keeping the first spelling (see the contract)."""
    seen: set[str] = set()
    out: list[str] = []
    for word in words:
        key = word.casefold()
        if key not in seen:
            seen.add(key)
            out.append(word)
    return out
