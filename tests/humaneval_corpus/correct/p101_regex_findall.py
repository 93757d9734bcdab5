# HumanEval/101: regex findall of maximal runs that are neither commas nor whitespace
import re


def words_string(s):
    return re.findall(r'[^,\s]+', s)
