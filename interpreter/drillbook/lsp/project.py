"""Editor stage: the rulebook an open file belongs to, loaded and checked from the editor's texts.

``analyse(path, texts, cache)`` finds the rulebook of ``path`` (the file itself when it
starts with a ``rulebook`` header, else the nearest ``rulebook.drill`` above it that
uses it, or, for a ``variant`` file, the base it patches), loads it with the loader,
patches it with ``variants.py`` and checks it with the checker, reading each file from
``texts`` (the unsaved buffers, by real path) before the disk.  Each file is parsed only
when its text changed (``ParseCache``).  The checker's model is kept even when there are
errors, so that hover, completion and navigation work while a rulebook is broken.

The loader and the variant stage read files with their module-level ``read_text`` and
``parse_file``; ``_editor_texts`` swaps those two for the duration of one analysis.  The
server is single-threaded, so nothing else runs meanwhile.
"""
from __future__ import annotations

import contextlib
import functools
import os
import re
from dataclasses import dataclass, field

from .. import ast as A, loader, variants
from ..check import Checker, Model
from ..errors import Diagnostic, DrillError, Loc, remember_source

NOT_USED = "W001"


@dataclass
class Analysis:
    """One rulebook (or variant) as the editor sees it."""
    main: str                                   # real path of the main file or the variant
    files: list = field(default_factory=list)   # real paths of its files, main first
    model: Model | None = None                  # the checked (possibly erroneous) model
    base: "Analysis | None" = None              # for a variant: its base rulebook
    variant: object = None                      # for a variant: its parsed SourceFile
    diagnostics: dict = field(default_factory=dict)   # real path -> [Diagnostic]
    parsed: dict = field(default_factory=dict)  # real path -> SourceFile
    index: object = None                        # its index.Index, once a feature needs it


class ParseCache:
    """The last parse of each file, reused while its text is unchanged.  A file of several
    sections is parsed a section at a time (each piece after as many blank lines as come
    before it, so that every position is the file's own), and a section whose text and
    first line are unchanged keeps its parse: typing in one section re-parses only it.
    When a piece does not parse, the whole file is parsed, so the error is the one
    ``drillbook check`` reports."""

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


_READ, _PARSE = loader.read_text, loader.parse_file


@functools.lru_cache(maxsize=1024)
def real(path: str) -> str:
    """The real, absolute path of a file (as the loader's display path names it)."""
    return os.path.realpath(os.path.abspath(path))


@contextlib.contextmanager
def _editor_texts(texts: dict, cache: ParseCache, seen: dict):
    def read(path, where):
        key = real(path)
        text = texts[key] if key in texts else _READ(path, where)
        return text

    def parse(path, text):
        parsed = cache.parse(path, text)
        seen[real(path)] = parsed
        return parsed

    saved = [(m, m.read_text, m.parse_file) for m in (loader, variants)]
    for m in (loader, variants):
        m.read_text, m.parse_file = read, parse
    try:
        yield
    finally:
        for m, r, p in saved:
            m.read_text, m.parse_file = r, p


def first_word(text: str) -> str:
    """The first word of a file's first line of code: rulebook, variant, use, section..."""
    for line in text.splitlines():
        s = line.strip()
        if s and not s.startswith("--"):
            return s.split(None, 1)[0]
    return ""


def text_of(path: str, texts: dict) -> str | None:
    if path in texts:
        return texts[path]
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except (OSError, UnicodeDecodeError):
        return None


def find_main(path: str, texts: dict, files_of) -> str:
    """The main file of the rulebook ``path`` belongs to: ``path`` itself when it starts
    with a ``rulebook`` or ``variant`` header, else the nearest ``rulebook.drill`` above it
    whose files (``files_of(main)``) include it, else ``path`` (a file no rulebook uses)."""
    text = text_of(path, texts) or ""
    if first_word(text) in ("rulebook", "variant"):
        return path
    folder = os.path.dirname(path)
    while True:
        candidate = os.path.join(folder, loader.MAIN_FILE)
        if os.path.isfile(candidate) and candidate != path and path in files_of(candidate):
            return candidate
        parent = os.path.dirname(folder)
        if parent == folder:
            return path
        folder = parent


def analyse(main: str, texts: dict, cache: ParseCache) -> Analysis:
    """Load, patch and check the rulebook or variant whose main file is ``main``."""
    main = real(main)
    seen: dict = {}
    result = Analysis(main)
    text = text_of(main, texts) or ""
    with _editor_texts(texts, cache, seen):
        try:
            if first_word(text) == "variant":
                _variant(result, texts, cache)
            elif first_word(text) == "rulebook":
                _rulebook(result, loader.load(main))
            else:                           # a file no rulebook uses: its syntax only
                parsed = loader.parse_file(loader.display_path(main), text)
                result.parsed[main] = parsed
                result.diagnostics[main] = [Diagnostic(
                    Loc(loader.display_path(main)), NOT_USED,
                    "no rulebook uses this file, so only its syntax is checked",
                    "add use \"...\" to a rulebook.drill above it, or start this file with a "
                    "'rulebook' header", severity="warning")]
        except DrillError as e:
            _add(result, e.diagnostics)
    result.parsed.update(seen)
    if not result.files:
        result.files = [main] + [p for p in seen if p != main]
    for p in result.files:
        result.diagnostics.setdefault(p, [])
    return result


def _rulebook(result: Analysis, loaded) -> None:
    result.files = [real(f.path) for f in loaded.files]
    head = loaded.main.header
    model = Model(loaded.main.path, head.label, head.edition, head.languages, loaded.sections)
    model.header_notes = list(head.annotations)
    errors: list[Diagnostic] = []
    Checker(model, errors).run()
    result.model = model
    _add(result, errors + model.warnings)


def _variant(result: Analysis, texts: dict, cache: ParseCache) -> None:
    own = variants.parse_variant(result.main)
    result.variant = own
    base_main = loader.resolve_main(variants.base_path(own, result.main), own.header.loc)
    result.base = analyse(base_main, texts, cache)
    try:
        result.model = variants.load_variant(result.main)
        _add(result, result.model.warnings)
    except DrillError as e:
        _add(result, e.diagnostics)
    result.files = [result.main] + result.base.files


def _add(result: Analysis, diags) -> None:
    for d in diags:
        path = real(d.loc.path) if os.path.exists(d.loc.path) else result.main
        result.diagnostics.setdefault(path, []).append(d)
