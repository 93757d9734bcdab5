# HumanEval/162: hashlib.md5 over UTF-8 bytes with an early return for the empty string
import hashlib


def string_to_md5(text):
    if text == '':
        return None
    return hashlib.md5(text.encode('utf-8')).hexdigest()
