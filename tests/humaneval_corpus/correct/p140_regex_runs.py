# HumanEval/140: regex substitution on runs of spaces: length > 2 becomes '-', shorter runs become that many '_'
import re


def fix_spaces(text):
    return re.sub(r' +', lambda m: '-' if len(m.group()) > 2 else '_' * len(m.group()), text)
