"""Editor stage: the parse of each open file, kept and re-used piece by piece.

The server re-checks a rulebook at every pause in typing; parsing is most of that work.
``ParseCache.parse`` gives exactly what ``syntax.parse_file`` gives (the same AST, the
same positions), but re-parses only the section, or the group of items of a long
section, that changed.  ``line_of`` gives the lines of the texts last parsed.
"""
from __future__ import annotations

import functools
import os
import re

from .. import ast as A
from ..errors import DrillError, Loc, remember_source
from ..syntax import parse_file as _PARSE


@functools.lru_cache(maxsize=1024)
def real(path: str) -> str:
    """The real, absolute path of a file (as the loader's display path names it)."""
    return os.path.realpath(os.path.abspath(path))


def first_word(text: str) -> str:
    """The first word of a file's first line of code: rulebook, variant, use, section..."""
    for line in text.splitlines():
        s = line.strip()
        if s and not s.startswith("--"):
            return s.split(None, 1)[0]
    return ""


class ParseCache:
    """The last parse of each file, reused while its text is unchanged.  A file of several
    sections is parsed a section at a time, and a section of more than ``_BIG`` lines a
    group of items at a time (its header line, then the group): each piece after as many
    blank lines as come before it, so that every position is the file's own, and with the
    end of its last item moved to where the whole file's parse puts it (``_end_at``).  A
    piece whose text and first line are unchanged keeps its parse: typing in one section
    re-parses only its piece.  When a piece does not parse, the whole file is parsed, so
    the error is the one ``drillbook check`` reports.  tests/test_lsp.py checks that the
    pieces give the whole file's AST, positions included, for every bundled file."""

    def __init__(self):
        self.by_path: dict[str, tuple[str, object]] = {}
        self.pieces: dict[str, dict] = {}

    def parse(self, path: str, text: str):
        _LINES[real(path)] = text.splitlines()
        hit = self.by_path.get(path)
        if hit is not None and hit[0] == text:
            remember_source(path, text)
            return hit[1]
        parsed = self._by_sections(path, text)
        self.by_path[path] = (text, parsed)
        return parsed

    def _by_sections(self, path: str, text: str):
        lines = text.split("\n")
        starts = [i for i, line in enumerate(lines) if _SECTION.match(line)]
        if len(starts) < 2 or first_word(text) == "variant":
            return _PARSE(path, text)
        bounds = [0] + starts[1:] + [len(lines)]
        old, new, parts = self.pieces.get(path, {}), {}, []

        def piece(text: str, before: int | None):
            """The parse of one piece; ``before`` is the line (0-based) the next piece of
            the same section starts on."""
            key = (text, None if before is None else _indent(lines[before]))
            if key not in old:
                old[key] = _PARSE(path, text)
                if before is not None:
                    _end_at(old[key].sections, before + 1, key[1] + 1)
            new[key] = old[key]
            return new[key]

        def upto(i: int) -> str:       # what ends a piece that stops before line i
            return "\n" if i < len(lines) else ""

        try:
            for a, b in zip(bounds, bounds[1:]):
                top = max(a, starts[0])                 # the section's header line
                groups = _item_groups(lines, top, b) if b - a > _BIG else []
                cuts = [a] + groups + [b]
                texts = ["\n" * a + "\n".join(lines[a:cuts[1]]) + upto(cuts[1])] + [
                    "\n" * top + lines[top] + "\n" * (g - top) + "\n".join(lines[g:h]) + upto(h)
                    for g, h in zip(cuts[1:-1], cuts[2:])]
                nexts = cuts[1:-1] + [None]
                pieces = [piece(t, h) for t, h in zip(texts, nexts)]
                whole = ("joined",) + tuple(id(p) for p in pieces)
                if len(pieces) > 1 and whole not in old:
                    old[whole] = _joined(pieces)
                new[whole] = old.get(whole, pieces[0])
                parts.append(new[whole])
        except DrillError:
            return _PARSE(path, text)
        finally:
            remember_source(path, text)
        self.pieces[path] = new
        head = parts[0]
        return A.SourceFile(path, head.header, head.uses, [s for p in parts for s in p.sections],
                            [x for p in parts for x in p.patches])


def _end_at(nodes, line: int, col: int) -> None:
    """A piece ends with its last newline, at (line, 1); in the whole file the same nodes
    end where the next item's indentation does, at (line, col): move them there."""
    seen, todo = set(), [nodes]
    while todo:
        obj = todo.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, (list, tuple)):
            todo.extend(obj)
            if isinstance(obj, list):
                for i, item in enumerate(obj):
                    if isinstance(item, tuple) and any(_ends(x, line) for x in item):
                        obj[i] = tuple(_moved(x, line, col) for x in item)
            continue
        if not hasattr(obj, "__dict__") or isinstance(obj, (str, Loc)):
            continue
        for k, v in vars(obj).items():
            if k == "section":
                continue
            if _ends(v, line):
                setattr(obj, k, _moved(v, line, col))
            elif isinstance(v, (list, tuple)) or hasattr(v, "__dict__"):
                todo.append(v)


def _ends(x, line: int) -> bool:
    return isinstance(x, Loc) and x.end_line == line and x.end_col == 1


def _moved(x, line: int, col: int):
    return Loc(x.path, x.line, x.col, line, col) if _ends(x, line) else x


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


_BIG = 80                 # a section longer than this is parsed a group of items at a time


def _item_groups(lines, a: int, b: int) -> list[int]:
    """Where the groups of a long section's items start (each some 40 lines or more): the
    lines at the indentation of the section's first item (line ``a`` is its header)."""
    indent = next((_indent(ln) for ln in lines[a + 1:b]
                   if ln.strip() and not ln.strip().startswith("--")), 0)
    starts = [i for i in range(a + 1, b) if lines[i].strip() and _indent(lines[i]) == indent
              and not lines[i].strip().startswith("--")]
    groups = []
    for i in starts[1:]:
        if i - (groups[-1] if groups else a) >= 40:
            groups.append(i)
    return groups


def _joined(pieces):
    """One section parsed in pieces, as one: its header (and the file's header and uses)
    from the first piece, the items and notes of every piece, its end from the last."""
    secs = [p.sections[0] for p in pieces]
    first, last = secs[0], secs[-1]
    loc = Loc(first.loc.path, first.loc.line, first.loc.col, last.loc.end_line, last.loc.end_col)
    sec = A.Section(loc, first.number, first.label, [d for s in secs for d in s.items],
                    [n for s in secs for n in s.annotations])
    for d in sec.items:
        d.section = sec
    return A.SourceFile(first.loc.path, pieces[0].header, pieces[0].uses, [sec],
                        [x for p in pieces for x in p.patches])


_SECTION = re.compile(r"section\b")
_LINES: dict[str, list] = {}      # real path -> the lines of the text last parsed


def line_of(path: str, line: int) -> str | None:
    """A line of a file as the analysis last read it (1-based; a display or real path)."""
    lines = _LINES.get(real(path))
    if lines is None or not 1 <= line <= len(lines):
        return None
    return lines[line - 1]
