"""Render stage, part 1: the words of the pages, source text, the site's pages and links."""
from __future__ import annotations

import html
import os
import re
from dataclasses import dataclass, field

from markupsafe import Markup

from .. import ast as A
from ..errors import Loc
from ..lines import split_lines
from ..phrases import LANGUAGES, PHRASES


SITE_MARKER = ".drillbook-site"

# ------------------------------------------------------------------ words of the pages
# the one phrase table holds them (phrases.py, keys "site_..."); this is its view by language
_UI = {lang: {k[len("site_"):]: forms[lang] for k, forms in PHRASES.items() if k.startswith("site_")}
       for lang in LANGUAGES}

_KIND_WORD = {
    A.Define: "rule", A.ExceptionDecl: "exception", A.TableDecl: "table",
    A.ModifiersDecl: "modifiers", A.CheckDecl: "check", A.RecordDecl: "record",
    A.DieDecl: "die", A.OptionDecl: "option", A.MarkerDecl: "marker",
    A.ExampleDecl: "example", A.RequirementsDecl: "requirements", A.RequireDecl: "require",
    A.ProcedureDecl: "procedure",
}

_NAME_SPAN = re.compile(r'<span class="(n|nf|nc|nn|nv)">([^<]+)</span>')
_COMMENT_LINE = re.compile(r"^\s*--")


def _kind_word(d) -> str:
    if isinstance(d, A.EnumDecl):
        return "scale" if d.ordered else "enum"
    return _KIND_WORD.get(type(d), type(d).__name__.lower())


def _section_key(number: str):
    m = re.match(r"(\d+(?:\.\d+)*)([a-z]?)$", number)
    if not m:
        return ((10 ** 9,), number)
    return (tuple(int(x) for x in m.group(1).split(".")), m.group(2))


# ------------------------------------------------------------------ source text
class _Sources:
    """The lines of each source file, and the lines each declaration was written on."""

    def __init__(self):
        self._lines: dict[str, list[str]] = {}

    def lines(self, path: str) -> list[str]:
        if path not in self._lines:
            from ..errors import source_lines    # every file the loader parsed is remembered
            lines = source_lines(path)
            if lines is None:
                try:
                    with open(path, encoding="utf-8") as fh:
                        lines = split_lines(fh.read())
                except (OSError, UnicodeDecodeError):
                    lines = []
            self._lines[path] = list(lines)
        return self._lines[path]

    def line(self, path: str, n: int) -> str:
        lines = self.lines(path)
        return lines[n - 1] if 1 <= n <= len(lines) else ""

    def span(self, loc: Loc, lead_comments: bool = True) -> tuple[int, list[str]]:
        """(first line number, lines) of the item at ``loc``: its own lines, the comment
        lines directly above it at its indentation, without the blank and comment lines
        at its end that introduce what follows."""
        lines = self.lines(loc.path)
        if not lines or loc.line < 1 or loc.line > len(lines):
            return loc.line, []
        start = loc.line
        end = min(loc.end_line or loc.line, len(lines))    # a last line without its newline
        if end > loc.line and not lines[end - 1][:max(loc.end_col - 1, 0)].strip():
            end -= 1
        end = min(max(end, start), len(lines))
        indent = loc.col - 1
        while end > start:
            text = lines[end - 1]
            if not text.strip() or (_COMMENT_LINE.match(text) and _indent(text) <= indent):
                end -= 1
            else:
                break
        if lead_comments:
            while start > 1 and _COMMENT_LINE.match(lines[start - 2]) \
                    and _indent(lines[start - 2]) == indent:
                start -= 1
        return start, lines[start - 1:end]


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


# ------------------------------------------------------------------ the site
@dataclass
class _Site:
    model: object
    lang: str | None
    sources: _Sources
    pages: dict = field(default_factory=dict)        # source path -> page file name
    decl_page: dict = field(default_factory=dict)    # decl name -> page file name
    section_page: dict = field(default_factory=dict)  # section number -> page file name
    section_id: dict = field(default_factory=dict)   # id(Section) -> anchor id
    flagged: list = field(default_factory=list)      # [(kind, text, href, where)]
    note_ids: dict = field(default_factory=dict)     # id(Annotation) -> anchor id
    changes_by_decl: dict = field(default_factory=dict)   # decl name -> [Change]
    unexercised: dict = field(default_factory=dict)  # (path, line, col) -> [why], unexercised

    def anchor(self, note, page: str, where: str) -> str:
        """The anchor of an annotation (made on first use; doubts and gaps are flagged)."""
        anchor = self.note_ids.get(id(note))
        if anchor is None:
            anchor = f"n-{len(self.note_ids) + 1}"
            self.note_ids[id(note)] = anchor
            if note.kind in ("doubt", "gap"):
                self.flagged.append((note.kind, note.text, f"{page}#{anchor}", where))
        return anchor

    def is_unexercised(self, loc) -> bool:
        return (loc.path, loc.line, loc.col) in self.unexercised

    def unexercised_why(self, loc) -> str:
        return "; ".join(self.unexercised.get((loc.path, loc.line, loc.col)) or [])

    def ui(self, key: str) -> str:
        words = _UI.get(self.lang or "en", _UI["en"])
        return words.get(key, _UI["en"][key])

    def href(self, name: str, page: str) -> str | None:
        """The link to the declaration ``name`` from ``page`` (None if it has no page)."""
        target = self.decl_page.get(name)
        if target is None:
            return None
        return ("" if target == page else target) + "#d-" + name

    def label(self, label: A.Label | None, fallback: str = "") -> str:
        if label is None:
            return fallback
        return label.show(fallback, self.lang)


def _places(unexercised) -> dict:
    """``unexercised`` as (path, line, col) -> [why]: given as Locs or (path, line, col)
    tuples, in a set or in a mapping to what was never seen (``coverage.uncovered_locs``)."""
    out: dict = {}
    for place in unexercised or ():
        key = (place.path, place.line, place.col) if hasattr(place, "path") else tuple(place)
        why = unexercised[place] if isinstance(unexercised, dict) else []
        out.setdefault(key, []).extend([why] if isinstance(why, str) else list(why or []))
    return out


def _page_names(model, sources_paths: list[str]) -> dict:
    root = os.path.dirname(os.path.abspath(model.path))
    names: dict[str, str] = {}
    used = {"index", "redline", "style", "pygments"}
    for path in sources_paths:
        rel = os.path.relpath(os.path.abspath(path), root)
        if rel.startswith(".."):
            rel = os.path.basename(path)
        stem = re.sub(r"\.drill$", "", rel)
        stem = re.sub(r"[^\w.-]+", "-", stem.replace(os.sep, "-")).strip("-.") or "rules"
        name, k = stem, 1
        while name.lower() in used:
            k += 1
            name = f"{stem}-{k}"
        used.add(name.lower())
        names[path] = name + ".html"
    return names


def _lexer():
    try:
        from ..highlight import DrillbookLexer
        return DrillbookLexer()
    except ImportError:                 # the lexer is optional for the pages
        from pygments.lexers.special import TextLexer
        return TextLexer()


class _Highlighter:
    def __init__(self):
        from pygments.formatters import HtmlFormatter
        self.lexer = _lexer()
        self.formatter = HtmlFormatter(nowrap=True)
        self.style = HtmlFormatter().get_style_defs(".highlight")

    def lines(self, lines: list[str]) -> list[str]:
        """Highlighted HTML of each line (Pygments closes its spans at each newline)."""
        from pygments import highlight
        if not lines:
            return []
        out = highlight("\n".join(lines) + "\n", self.lexer, self.formatter)
        result = out.split("\n")
        if len(result) > len(lines):
            result = result[:len(lines)]
        while len(result) < len(lines):
            result.append("")
        return result


def _link_names(line_html: str, site: _Site, page: str, own: str | None, state: dict) -> Markup:
    """Names of declarations become links to them (the declaration's own name stays)."""
    def repl(m):
        name = html.unescape(m.group(2))
        if own is not None and name == own and not state.get("own_seen"):
            state["own_seen"] = True
            return m.group(0)
        href = site.href(name, page)
        if href is None:
            return m.group(0)
        return Markup('<a class="xref" href="{}" title="{}">{}</a>').format(
            href, name, Markup(m.group(0)))
    return Markup(_NAME_SPAN.sub(repl, line_html))     # Pygments' output, escaped by Pygments


def _code_block(site: _Site, hl: _Highlighter, first, lines: list[str], page: str,
                own: str | None = None, marks: dict | None = None) -> dict:
    """A highlighted block numbered from ``first`` (or by the list of line numbers
    ``first``); ``marks`` maps a line index to a CSS class (dropped, added).  The
    template ``code`` draws it."""
    numbers = list(first) if isinstance(first, list) else \
        list(range(first, first + len(lines)))
    state: dict = {}
    width = max((len(str(n)) for n in numbers), default=1)
    rows = [{"number": f"{numbers[i]:>{width}}", "mark": (marks or {}).get(i),
             "html": _link_names(line_html, site, page, own, state)}
            for i, line_html in enumerate(hl.lines(lines))]
    return {"rows": rows}
