"""Editor stage: the rulebook an open file belongs to, loaded and checked from the editor's texts.

``analyse(path, texts, cache)`` finds the rulebook of ``path`` (the file itself when it
starts with a ``rulebook`` header, else the nearest ``rulebook.drill`` above it that
uses it, or, for a ``variant`` file, the base it patches), loads it with the loader,
patches it with ``variants.py`` and checks it with the checker, reading each file from
``texts`` (the unsaved buffers, by real path) before the disk.  Each file is parsed only
when its text changed, and then only in the pieces that changed (``parsecache.py``).  The checker's model is kept even when there are
errors, so that hover, completion and navigation work while a rulebook is broken.

The loader and the variant stage read and parse files through ``loader.read_and_parse``;
``_editor_texts`` points it at the editor's texts for the duration of one analysis.  The
server is single-threaded, so nothing else runs meanwhile.
"""
from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field

from .. import loader, variants
from ..check import Checker, Model
from ..errors import Diagnostic, DrillError, Loc
from .parsecache import ParseCache, first_word, line_of, real

__all__ = ["Analysis", "ParseCache", "analyse", "find_main", "first_word", "line_of", "real",
           "text_of"]

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


_READ = loader.read_text


@contextlib.contextmanager
def _editor_texts(texts: dict, cache: ParseCache, seen: dict):
    """Load with the editor's unsaved texts before the disk, through the parse cache."""
    def read(path, where):
        key = real(path)
        return texts[key] if key in texts else _READ(path, where)

    def parse(path, text):
        parsed = cache.parse(path, text)
        seen[real(path)] = parsed
        return parsed

    with loader.reading_from(read, parse):
        yield


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
