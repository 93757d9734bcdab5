def dedupe_words(words: list[str]) -> list[str]:
    """Drop every word equal to an earlier word under str.casefold().

    Keep the first occurrence's spelling, keep the original order,
    and never mutate the input list. Empty input gives [].
    """
