"""Python source parsed one thread at a time.

CPython 3.11 converts a parse tree to `ast` objects with interpreter-wide state: two threads parsing at once can
fail with `SystemError: AST constructor recursion depth mismatch`. A repository grade plans its seals in threads
(its repeats and base runs side by side) while tasks load in others, so every `ast.parse` of the repository kind
goes through here.
"""

from __future__ import annotations

import ast
import threading

_ONE_AT_A_TIME = threading.Lock()


def parse(source: str) -> ast.Module:
    with _ONE_AT_A_TIME:
        return ast.parse(source)
