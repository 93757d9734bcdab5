# HumanEval/091: regex split into sentences, then a word-boundary match for a leading "I"
import re


def is_bored(S):
    count = 0
    for sentence in re.split(r'[.?!]', S):
        if re.match(r'\s*I(?:\s|$)', sentence):
            count += 1
    return count
