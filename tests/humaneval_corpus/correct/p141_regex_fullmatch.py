# HumanEval/141: anchored regex for name.ext plus an explicit count of ASCII digits
import re

_PATTERN = re.compile(r'[A-Za-z][^.]*\.(?:txt|exe|dll)')


def file_name_check(file_name):
    if not _PATTERN.fullmatch(file_name):
        return 'No'
    if sum(1 for ch in file_name if ch in '0123456789') > 3:
        return 'No'
    return 'Yes'
