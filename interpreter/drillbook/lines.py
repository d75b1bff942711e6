"""Lines (every stage): the one way drillbook splits text into lines and counts columns.

The lexer, error quoting, the formatter, the renderer and state files all use these two
functions, so that "line 12, column 5" means the same thing everywhere: line endings are
``\\n``, ``\\r\\n`` or a lone ``\\r``; nothing else (form feed, vertical tab, U+2028...) ends
a line; a tab is one column.
"""
from __future__ import annotations

import bisect
from functools import lru_cache


def normalize(text: str) -> str:
    """``text`` with every line ending written ``\\n``."""
    if "\r" not in text:
        return text
    return text.replace("\r\n", "\n").replace("\r", "\n")


def split_lines(text: str) -> list[str]:
    """The lines of ``text``, without their endings (a final ending adds no empty line)."""
    text = normalize(text)
    lines = text.split("\n")
    if lines and lines[-1] == "" and len(lines) > 1:
        lines.pop()
    return lines


@lru_cache(maxsize=16)
def _starts(text: str) -> list[int]:
    return [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]


def position(text: str, index: int) -> tuple[int, int]:
    """The 1-based (line, column) of character ``index`` of the normalized ``text``."""
    starts = _starts(text)
    line = bisect.bisect_right(starts, index)
    return line, index - starts[line - 1] + 1
