"""Load stage: find a rulebook's files, follow ``use`` inside its root, parse each once.

A rulebook is a folder holding ``rulebook.drill`` (or that file itself).  ``use`` paths are
relative to the file that names them and may never leave the rulebook's root folder.
"""
from __future__ import annotations

import contextlib
import os
from contextvars import ContextVar

from dataclasses import dataclass, field

from . import ast as A
from . import files
from .errors import Loc, fail
from .limits import MAX_DEPTH, too_deep
from .syntax import parse_file

MAIN_FILE = "rulebook.drill"


@dataclass(slots=True)
class Loaded:
    """A rulebook's parsed files, main file first, in ``use`` order."""
    root: str
    main: A.SourceFile
    files: list = field(default_factory=list)

    @property
    def sections(self):
        return [s for f in self.files for s in f.sections]


def resolve_main(path: str, where: Loc | None = None) -> str:
    """The main .drill file for a path given by the user (a folder or a file)."""
    loc = where or Loc("<command line>")
    if os.path.isdir(path):
        main = os.path.join(path, MAIN_FILE)
        if not os.path.isfile(main):
            fail(loc, "E010", f"'{path}' is a folder without a {MAIN_FILE}",
                 f"a rulebook folder holds its main file as {MAIN_FILE}")
        return main
    if "\0" in path:
        fail(loc, "E010", "a path cannot hold a NUL character")
    if not path:
        fail(loc, "E010", "an empty path names no file or folder")
    if not os.path.exists(path):
        fail(loc, "E010", f"no such file or folder: '{path}'")
    return path


READS: list | None = None     # while cache.py records a load: [(path, text)] read


def read_text(path: str, loc: Loc) -> str:
    text = files.read_text(path, loc)
    if READS is not None:
        READS.append((path, text))
    return text


def display_path(path: str) -> str:
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel


def _owning_rulebook(path: str) -> str | None:
    """The rulebook.drill in this file's folder or a folder above it, if any."""
    import re
    target = os.path.realpath(path)
    folder = os.path.dirname(target)
    for _ in range(3):
        main = os.path.join(folder, MAIN_FILE)
        if os.path.isfile(main) and target != os.path.realpath(main):
            for root, _dirs, files in os.walk(folder):
                for name in (f for f in files if f.endswith(".drill")):
                    user = os.path.join(root, name)
                    try:
                        with open(user, encoding="utf-8") as fh:
                            text = fh.read()
                    except (OSError, UnicodeDecodeError):
                        continue
                    for used in re.findall(r'^use\s+"([^"]+)"', text, re.MULTILINE):
                        if os.path.realpath(os.path.join(root, used)) == target:
                            return main
            return None
        folder = os.path.dirname(folder)
    return None


# Where files come from while loading: the disk, or (for an editor) its unsaved texts and
# a parser that re-reads only what changed.  None: the disk and the one parser.
_SOURCES: ContextVar = ContextVar("drillbook_sources", default=None)


@contextlib.contextmanager
def reading_from(read, parse):
    """Within this block, loading reads files with ``read(path, loc) -> text`` and parses
    them with ``parse(shown_path, text) -> SourceFile`` (the language server's texts)."""
    token = _SOURCES.set((read, parse))
    try:
        yield
    finally:
        _SOURCES.reset(token)


def read_and_parse(path: str, shown: str, loc: Loc) -> A.SourceFile:
    """One file of a rulebook or a variant, read and parsed."""
    sources = _SOURCES.get()
    if sources is None:
        return parse_file(shown, read_text(path, loc))
    read, parse = sources
    return parse(shown, read(path, loc))


def load(path: str, where: Loc | None = None) -> Loaded:
    """Parse the rulebook at ``path`` and every file it uses."""
    main_path = resolve_main(path, where)
    root = os.path.dirname(os.path.abspath(main_path))
    seen: dict[str, A.SourceFile] = {}
    order: list[A.SourceFile] = []

    def visit(file_path: str, via: Loc | None, chain: tuple[str, ...]):
        if len(chain) > MAX_DEPTH:
            too_deep(via, "this chain of files using files")
        real = os.path.realpath(file_path)
        if real in chain:
            fail(via, "E012", "this 'use' makes a cycle of files",
                 " -> ".join(display_path(p) for p in chain + (real,)))
        if real in seen:
            return
        shown = display_path(file_path)
        parsed = read_and_parse(file_path, shown, via or Loc("<command line>"))
        if via is not None and parsed.header is not None:
            fail(Loc(shown, parsed.header.loc.line, parsed.header.loc.col), "E013",
                 "only the main file of a rulebook has a 'rulebook' header",
                 "remove the header from this used file")
        seen[real] = parsed
        order.append(parsed)
        for use in parsed.uses:
            if "\0" in use.path:
                fail(use.loc, "E010", "a 'use' path cannot hold a NUL character")
            target = os.path.normpath(os.path.join(os.path.dirname(file_path), use.path))
            real_target = os.path.realpath(target)
            if os.path.commonpath([real_target, os.path.realpath(root)]) != os.path.realpath(root):
                fail(use.loc, "E014", f"'{use.path}' is outside the rulebook's folder",
                     "a rulebook may only use files inside its own folder")
            if not os.path.isfile(target):
                fail(use.loc, "E010", f"no such file: '{use.path}'")
            visit(target, use.loc, chain + (real,))

    visit(main_path, None, ())
    main = order[0]
    if main.header is None:
        owner = _owning_rulebook(main_path)
        if owner is not None:
            fail(Loc(main.path), "E013", "this file is a part of the rulebook in "
                 f"'{display_path(os.path.dirname(owner))}', which uses it: check that folder",
                 f"drillbook check {display_path(os.path.dirname(owner))}")
        fail(Loc(main.path), "E013", "a rulebook's main file starts with a 'rulebook' header",
             'write: rulebook "Title" edition "1" languages en')
    return Loaded(root, main, order)
