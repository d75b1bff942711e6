"""Render stage: a checked rulebook as a static HTML site for reviewers.

``render_site(model, out_dir, lang=None, variant_model=None)`` writes:

- ``index.html``: title, edition, languages, the sections by number, and every doubt and
  gap of the sources, counted and linked to where it stands;
- one page per source file (``orders.drill`` → ``orders.html``): each section with its
  number and title (anchor ``s-NUMBER``), its annotations (doubts and gaps flagged), and
  each declaration (anchor ``d-NAME``) with its annotations, its source highlighted by the
  Pygments lexer with line numbers as in the file, every name of a declaration linked to
  it, every table also drawn as the printed chart (``<table class="chart">``: header row,
  key column, cells as printed, footnote markers as ``<sup>``, NA as —, and a legend of the
  markers), and every modifier list as the printed list of die-roll modifiers;
- ``redline.html`` for a variant: each changed section with the base and the variant side
  by side — changed cells marked (``changed``, before → after), dropped rules struck
  through, added rules highlighted;
- ``style.css`` and ``pygments.css``; no JavaScript at all, so pages work from file://.

Labels are shown in ``lang`` where a translation exists, otherwise in English.  Every page
is rendered in memory first, then written into a temporary folder next to ``out_dir``
that replaces ``out_dir`` by renames at the end: on any error nothing is written and an
earlier site in ``out_dir`` stays as it was.  An existing ``out_dir`` is only replaced if
it is empty or is a site this function wrote (it holds a ``.drillbook-site`` file).
"""
from __future__ import annotations

import html
import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field

from . import ast as A
from .errors import Loc, fail

__all__ = ["render_site", "chart_html", "SITE_MARKER"]

SITE_MARKER = ".drillbook-site"

# ------------------------------------------------------------------ words of the pages
_UI = {
    "en": {
        "contents": "Contents", "edition": "Edition", "languages": "Languages",
        "doubts": "Doubts and gaps", "doubt": "doubt", "gap": "gap", "note": "note",
        "source": "source", "none_doubts": "No doubts or gaps.", "index": "Contents",
        "files": "Files", "section": "Section", "legend": "Markers",
        "modifiers": "Die-roll modifiers", "when": "when", "exceptions": "Exceptions",
        "exception_to": "exception to", "redline": "Redline", "base": "Base",
        "variant": "Variant", "changes": "Changes", "dropped": "dropped",
        "added": "added", "replaced": "replaced", "cell": "cell changed",
        "option": "option switched", "not_in_base": "not in the base rulebook",
        "not_in_variant": "dropped by the variant", "default": "default",
        "patched": "changed by the variant", "counts": "{d} doubts, {g} gaps",
        "in_variant": "annotations the variant adds",
    },
    "ru": {
        "contents": "Содержание", "edition": "Издание", "languages": "Языки",
        "doubts": "Сомнения и пробелы", "doubt": "сомнение", "gap": "пробел",
        "note": "примечание", "source": "источник", "none_doubts": "Сомнений и пробелов нет.",
        "index": "Содержание", "files": "Файлы", "section": "Раздел", "legend": "Сноски",
        "modifiers": "Модификаторы броска", "when": "если", "exceptions": "Исключения",
        "exception_to": "исключение из", "redline": "Правка", "base": "Основа",
        "variant": "Вариант", "changes": "Изменения", "dropped": "удалено",
        "added": "добавлено", "replaced": "заменено", "cell": "изменена клетка",
        "option": "переключена опция", "not_in_base": "нет в основных правилах",
        "not_in_variant": "удалено вариантом", "default": "по умолчанию",
        "patched": "изменено вариантом", "counts": "сомнений: {d}, пробелов: {g}",
        "in_variant": "примечания варианта",
    },
}

_KIND_WORD = {
    A.Define: "rule", A.ExceptionDecl: "exception", A.TableDecl: "table",
    A.ModifiersDecl: "modifiers", A.CheckDecl: "check", A.RecordDecl: "record",
    A.DieDecl: "die", A.OptionDecl: "option", A.MarkerDecl: "marker",
    A.ExampleDecl: "example", A.RequirementsDecl: "requirements", A.RequireDecl: "require",
    A.ProcedureDecl: "procedure",
}

_NAME_SPAN = re.compile(r'<span class="(n|nf|nc|nn|nv)">([^<]+)</span>')
_COMMENT_LINE = re.compile(r"^\s*--")


def _esc(s) -> str:
    return html.escape(str(s), quote=True)


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
            from .errors import _SOURCES        # every file the loader parsed is remembered
            text = _SOURCES.get(path)
            if text is None:
                try:
                    with open(path, encoding="utf-8") as fh:
                        text = fh.read()
                except (OSError, UnicodeDecodeError):
                    text = ""
            self._lines[path] = text.replace("\r\n", "\n").split("\n")
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
        end = loc.end_line or loc.line
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
        from .highlight import DrillbookLexer
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


def _link_names(line_html: str, site: _Site, page: str, own: str | None, state: dict) -> str:
    """Names of declarations become links to them (the declaration's own name stays)."""
    def repl(m):
        name = html.unescape(m.group(2))
        if own is not None and name == own and not state.get("own_seen"):
            state["own_seen"] = True
            return m.group(0)
        href = site.href(name, page)
        if href is None:
            return m.group(0)
        return (f'<a class="xref" href="{_esc(href)}" title="{_esc(name)}">'
                f"{m.group(0)}</a>")
    return _NAME_SPAN.sub(repl, line_html)


def _code_block(site: _Site, hl: _Highlighter, first, lines: list[str], page: str,
                own: str | None = None, marks: dict | None = None) -> str:
    """A highlighted block numbered from ``first`` (or by the list of line numbers
    ``first``); ``marks`` maps a line index to a CSS class (dropped, added)."""
    numbers = list(first) if isinstance(first, list) else \
        list(range(first, first + len(lines)))
    state: dict = {}
    rows = []
    width = max((len(str(n)) for n in numbers), default=1)
    for i, line_html in enumerate(hl.lines(lines)):
        linked = _link_names(line_html, site, page, own, state)
        number = f'<span class="linenos">{numbers[i]:>{width}}</span>'
        cls = (marks or {}).get(i)
        if cls == "dropped":
            rows.append(f'{number}<del class="line dropped">{linked}</del>')
        elif cls == "added":
            rows.append(f'{number}<ins class="line added">{linked}</ins>')
        else:
            rows.append(number + linked)
    return '<div class="highlight"><pre>' + "\n".join(rows) + "</pre></div>"


# ------------------------------------------------------------------ charts
def _cell_source(cell: A.Cell, sources: _Sources) -> str | None:
    loc = cell.loc
    if loc.end_line != loc.line or loc.end_col <= loc.col:
        return None
    text = sources.line(loc.path, loc.line)[loc.col - 1:loc.end_col - 1].strip()
    for mark in cell.markers:
        if text.endswith(mark):
            text = text[:-len(mark)].rstrip()
    return text or None


def _cell_value(cell: A.Cell, model, lang, sources: _Sources, field_labels=None) -> str:
    if cell.kind == "na":
        return "—"
    if cell.kind == "corner":
        return f"{cell.value[0]} \\ {cell.value[1]}"
    if cell.kind == "range":
        return f"{cell.value[0]}-{cell.value[1]}"
    if cell.kind == "pair":
        return f"{cell.value[0]}/{cell.value[1]}"
    if cell.kind == "text":
        return str(cell.value)
    if cell.kind == "int":
        raw = _cell_source(cell, sources)
        if raw is not None and raw.lstrip("+-").isdigit() and int(raw) == cell.value:
            return raw                     # as printed: "+1" keeps its sign
        return str(cell.value)
    if cell.kind == "name":
        if field_labels and cell.value in field_labels:
            return field_labels[cell.value]
        member = getattr(model, "members", {}).get(cell.value)
        if member is not None:
            enum, index = member
            return enum.members[index].label.show(cell.value, lang)
        return str(cell.value)
    return str(cell.value)


def cell_text(cell: A.Cell, model=None, lang=None, sources: _Sources | None = None) -> str:
    """A cell as printed, markers included (used for before → after)."""
    return _cell_value(cell, model, lang, sources or _Sources()) + "".join(cell.markers)


def _cell_html(cell: A.Cell, model, lang, sources, field_labels=None) -> str:
    text = _esc(_cell_value(cell, model, lang, sources, field_labels))
    marks = ""
    for mark in cell.markers:
        decl = getattr(model, "markers", {}).get(mark)
        title = f' title="{_esc(decl.label.show(decl.name, lang))}"' if decl else ""
        marks += f'<sup class="marker"{title}>{_esc(mark)}</sup>'
    return text + marks


def _key_attr(cell: A.Cell) -> str:
    if cell.kind in ("name", "int"):
        return str(cell.value)
    if cell.kind == "range":
        return f"{cell.value[0]}-{cell.value[1]}"
    return ""


def chart_html(decl: A.TableDecl, model, lang: str | None = None, sources: _Sources | None = None,
               changed: dict | None = None, show_before: bool = True,
               id_prefix: str = "chart-") -> str:
    """A table drawn as the printed chart.  ``changed`` maps (row, column) indexes to the
    cell as it was before: such cells get the class ``changed`` and show before → after."""
    sources = sources or _Sources()
    changed = changed or {}
    field_labels = None
    rec = getattr(model, "decls", {}).get(getattr(decl.returns, "name", None) or "")
    if isinstance(rec, A.RecordDecl):
        field_labels = {f.name: f.label.show(f.name, lang) for f in rec.fields}
    title = decl.label.show(decl.name, lang)
    out = [f'<table class="chart" id="{_esc(id_prefix + decl.name)}" '
           f'data-table="{_esc(decl.name)}">',
           f"<caption>{_esc(title)}</caption>"]
    used_marks: list[str] = []
    for r, row in enumerate(decl.rows):
        for cell in row.cells:
            for mark in cell.markers:
                if mark not in used_marks:
                    used_marks.append(mark)
        if r == 0:
            out.append("<thead><tr>")
            for c, cell in enumerate(row.cells):
                cls = "corner" if cell.kind == "corner" else "col-key"
                out.append(f'<th scope="col" class="{cls}" data-col="{_esc(_key_attr(cell))}">'
                           f"{_cell_html(cell, model, lang, sources, field_labels)}</th>")
            out.append("</tr></thead><tbody>")
            continue
        key = row.cells[0] if row.cells else None
        out.append(f'<tr data-row="{_esc(_key_attr(key) if key else "")}">')
        for c, cell in enumerate(row.cells):
            body = _cell_html(cell, model, lang, sources)
            classes = ["na"] if cell.kind == "na" else []
            if (r, c) in changed:
                classes.append("changed")
                if show_before and changed[(r, c)] is not None:
                    body = (f'<del>{_esc(changed[(r, c)])}</del> <span class="arrow">→</span> '
                            f"<ins>{body}</ins>")
            cls = f' class="{" ".join(classes)}"' if classes else ""
            if c == 0:
                out.append(f'<th scope="row"{cls}>{body}</th>')
            else:
                col = decl.rows[0].cells[c] if c < len(decl.rows[0].cells) else None
                out.append(f'<td{cls} data-col="{_esc(_key_attr(col) if col else "")}">'
                           f"{body}</td>")
        out.append("</tr>")
    out.append("</tbody></table>")
    if used_marks:
        out.append(f'<dl class="legend"><dt class="legend-title">{_esc(_ui_word(lang, "legend"))}'
                   "</dt>")
        for mark in used_marks:
            decl_m = getattr(model, "markers", {}).get(mark)
            text = decl_m.label.show(decl_m.name, lang) if decl_m else ""
            out.append(f'<dt><sup class="marker">{_esc(mark)}</sup></dt><dd>{_esc(text)}</dd>')
        out.append("</dl>")
    return '<div class="chart-wrap">' + "".join(out) + "</div>"


def _ui_word(lang, key):
    return _UI.get(lang or "en", _UI["en"]).get(key, _UI["en"][key])


def _modifiers_html(site: _Site, decl: A.ModifiersDecl, page: str, number: str) -> str:
    rows = []
    for m in decl.items:
        value = A.to_source(m.value)
        if isinstance(m.value, A.IntLit) and m.value.value > 0:
            value = "+" + value
        when = (f' <span class="when">{_esc(site.ui("when"))} '
                f"<code>{_esc(A.to_source(m.when))}</code></span>" if m.when is not None else "")
        notes = _annotations_html(site, m.annotations, page, f"§{number} {decl.name}.{m.name}")
        rows.append(f'<tr id="m-{_esc(decl.name)}-{_esc(m.name)}"><th scope="row">'
                    f"{_esc(site.label(m.label, m.name))}{when}{notes}</th>"
                    f'<td class="drm"><code>{_esc(value)}</code></td></tr>')
    title = site.label(decl.label, decl.name)
    return (f'<table class="modifiers"><caption>{_esc(title)}</caption>'
            + "".join(rows) + "</table>")


# ------------------------------------------------------------------ annotations
def _annotations_html(site: _Site, notes, page: str, where: str) -> str:
    if not notes:
        return ""
    items = []
    for note in notes:
        anchor = site.note_ids.get(id(note))
        if anchor is None:
            anchor = f"n-{len(site.note_ids) + 1}"
            site.note_ids[id(note)] = anchor
            if note.kind in ("doubt", "gap"):
                site.flagged.append((note.kind, note.text, f"{page}#{anchor}", where))
        text = note.label.show(note.text, site.lang) if note.label else note.text
        items.append(f'<li class="annotation {_esc(note.kind)}" id="{anchor}">'
                     f'<span class="badge">{_esc(site.ui(note.kind))}</span> {_esc(text)}</li>')
    return '<ul class="annotations">' + "".join(items) + "</ul>"


# ------------------------------------------------------------------ declarations
def _decl_source(site: _Site, decl) -> tuple[list, list[str], dict]:
    """(line numbers, lines, marks) a declaration was written on, adjusted for what a
    variant patched: a changed table row is written anew (marked ``added``), the lines of
    a dropped modifier are left out."""
    first, lines = site.sources.span(decl.loc)
    numbers = list(range(first, first + len(lines)))
    lines = list(lines)
    marks: dict = {}
    if isinstance(decl, A.TableDecl):
        for row in decl.rows:
            patched = [c for c in row.cells
                       if c.loc.path != row.loc.path or c.loc.line != row.loc.line]
            i = row.loc.line - first
            if patched and 0 <= i < len(lines) and row.loc.path == decl.loc.path:
                cells = [_raw_cell(c, site.sources) for c in row.cells]
                lines[i] = " " * _indent(lines[i]) + "| " + " | ".join(cells) + " |"
                marks[i] = "added"
    if isinstance(decl, A.ModifiersDecl) and decl.items:
        keep = {m.name for m in decl.items}
        item_indent = None
        for m in decl.items:
            if m.loc.path == decl.loc.path and 0 <= m.loc.line - first < len(lines):
                item_indent = _indent(lines[m.loc.line - first])
                break
        if item_indent is not None:
            kept_numbers, kept_lines, skipping = [], [], False
            for j, line in enumerate(lines):
                ind = _indent(line)
                if j > 0 and line.strip() and ind <= item_indent:
                    mm = _ITEM.match(line)
                    skipping = ind == item_indent and bool(mm) and mm.group(1) not in keep
                if not skipping:
                    kept_numbers.append(numbers[j])
                    kept_lines.append(line)
            numbers, lines = kept_numbers, kept_lines
    return numbers, lines, marks


_ITEM = re.compile(r"\s*([^\W\d]\w*)\s*:")


def _raw_cell(c: A.Cell, sources: _Sources) -> str:
    raw = _cell_source(c, sources)
    if raw is None:
        from .variants import _cell_text
        return _cell_text(c)
    return raw + "".join(c.markers)


def _decl_anchor(decl, section, index) -> str:
    if isinstance(decl, A.ExampleDecl):
        return f"e-{section.number}-{index}"
    return f"d-{decl.name}"


def _decl_html(site: _Site, hl: _Highlighter, decl, section, index: int, page: str) -> str:
    anchor = _decl_anchor(decl, section, index)
    kind = _kind_word(decl)
    is_example = isinstance(decl, A.ExampleDecl)
    title = site.label(getattr(decl, "label", None), "" if is_example else decl.name)
    head = [f'<span class="kind">{_esc(kind)}</span>']
    if not is_example:
        head.append(f'<code class="name">{_esc(decl.name)}</code>')
    if isinstance(decl, A.ExceptionDecl):
        href = site.href(decl.target, page)
        link = (f'<a class="xref" href="{_esc(href)}">{_esc(decl.target)}</a>' if href
                else _esc(decl.target))
        head.append(f'<span class="to">{_esc(site.ui("exception_to"))} <code>{link}</code></span>')
    if title and (is_example or title != decl.name):
        head.append(f'<span class="title">{_esc(title)}</span>')
    parts = [f'<article class="decl decl-{_esc(kind)}" id="{_esc(anchor)}">',
             f"<h3>{' '.join(head)}</h3>"]
    for ch in site.changes_by_decl.get(decl.name, []) if not is_example else []:
        parts.append(f'<p class="patched"><span class="badge">{_esc(site.ui("patched"))}</span> '
                     f"{_esc(_change_summary(ch))}</p>")
    parts.append(_annotations_html(site, decl.annotations, page,
                                   f"§{section.number} {decl.name if not is_example else title}"))
    if isinstance(decl, A.TableDecl):
        parts.append(chart_html(decl, site.model, site.lang, site.sources))
    if isinstance(decl, A.ModifiersDecl):
        parts.append(_modifiers_html(site, decl, page, section.number))
    if isinstance(decl, A.ProcedureDecl):
        for step in decl.steps:
            parts.append(_annotations_html(site, step.annotations, page,
                                           f"§{section.number} {decl.name}.{step.name}"))
    if isinstance(decl, A.Define):
        exceptions = getattr(site.model, "children", {}).get(decl.name) or []
        if exceptions:
            links = ", ".join(f'<a class="xref" href="{_esc(site.href(e.name, page))}">'
                              f"<code>{_esc(e.name)}</code></a>" for e in exceptions)
            parts.append(f'<p class="exceptions">{_esc(site.ui("exceptions"))}: {links}</p>')
    numbers, lines, marks = _decl_source(site, decl)
    if lines:
        parts.append(_code_block(site, hl, numbers, lines, page,
                                 own=None if is_example else decl.name, marks=marks))
    parts.append("</article>")
    return "\n".join(p for p in parts if p)


def _change_summary(ch) -> str:
    if ch.kind == "cell":
        return f"{ch.target}: {ch.before} → {ch.after}"
    if ch.kind == "option":
        return f"{ch.target}: {ch.before} → {ch.after}"
    if ch.kind == "dropped":
        return f"{ch.target} dropped"
    return f"{ch.target} {ch.kind}"


def _section_html(site: _Site, hl: _Highlighter, sec, page: str) -> str:
    anchor = site.section_id[id(sec)]
    title = site.label(sec.label, "")
    parts = [f'<section class="rule-section" id="{_esc(anchor)}">',
             f'<h2><a class="self" href="#{_esc(anchor)}"><span class="secnum">{_esc(sec.number)}'
             f"</span></a> {_esc(title)}</h2>"]
    first, lines = site.sources.span(A.Loc(sec.loc.path, sec.loc.line, sec.loc.col,
                                           sec.loc.line, 0))
    if lines:
        parts.append(_code_block(site, hl, first, lines, page))
    parts.append(_annotations_html(site, sec.annotations, page, f"§{sec.number}"))
    for i, decl in enumerate(sec.items, 1):
        parts.append(_decl_html(site, hl, decl, sec, i, page))
    parts.append("</section>")
    return "\n".join(p for p in parts if p)


# ------------------------------------------------------------------ pages
_CSS = """
:root { --ink: #1d1d1f; --muted: #666; --rule: #d0d0d0; --doubt: #fff4d6; --doubt-ink: #8a5a00;
        --gap: #fde2e1; --gap-ink: #9b1c1c; --added: #e3f7e3; --dropped: #fbe4e4;
        --changed: #fff1a8; }
* { box-sizing: border-box; }
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink);
       margin: 0; line-height: 1.45; }
header.site { background: #2b3a4a; color: #fff; padding: .6rem 1.2rem; }
header.site a { color: #fff; }
header.site nav a { margin-right: .8rem; white-space: nowrap; }
main { max-width: 72rem; margin: 0 auto; padding: 1rem 1.2rem 4rem; }
h1 { margin-top: .4rem; }
h2 { border-bottom: 2px solid var(--rule); padding-bottom: .2rem; margin-top: 2.2rem; }
h2 .secnum { font-variant-numeric: tabular-nums; color: #2b3a4a; }
h2 a.self { text-decoration: none; }
h3 { font-size: 1.02rem; margin: 1.4rem 0 .4rem; }
h3 .kind { font-size: .75rem; text-transform: uppercase; letter-spacing: .05em; color: var(--muted);
           border: 1px solid var(--rule); border-radius: 3px; padding: 0 .3rem; }
h3 .title { font-weight: normal; }
h3 .to { font-weight: normal; color: var(--muted); }
:target { scroll-margin-top: 1rem; }
section.rule-section:target > h2, article.decl:target > h3 { background: #fffbe0; }
.highlight pre { padding: .5rem .7rem; white-space: pre-wrap; overflow-wrap: anywhere;
                 border: 1px solid #e4e4e4;
                 border-radius: 4px; font-size: .85rem; }
.highlight .linenos { color: #999; user-select: none; margin-right: .6rem; }
a.xref { text-decoration: none; border-bottom: 1px dotted #4a6fa5; }
a.xref:hover { background: #eef3fb; }
ul.annotations { list-style: none; padding: 0; margin: .3rem 0; }
li.annotation { padding: .2rem .5rem; margin: .15rem 0; border-left: 4px solid var(--rule);
                font-size: .92rem; }
li.annotation .badge, p.patched .badge { font-size: .72rem; text-transform: uppercase;
                letter-spacing: .04em; font-weight: 600; margin-right: .3rem; }
li.doubt { background: var(--doubt); border-left-color: #e0a000; }
li.doubt .badge { color: var(--doubt-ink); }
li.doubt .badge::before { content: "⚠ "; }
li.gap { background: var(--gap); border-left-color: #d33; }
li.gap .badge { color: var(--gap-ink); }
li.gap .badge::before { content: "⛔ "; }
li.source .badge, li.note .badge { color: var(--muted); }
p.patched { background: var(--changed); padding: .2rem .5rem; }
.chart-wrap { margin: .6rem 0 .8rem; overflow-x: auto; }
table.chart, table.modifiers { border-collapse: collapse; font-size: .92rem; margin-bottom: .3rem; }
table.chart caption, table.modifiers caption { text-align: left; font-weight: 600;
                                               padding: .2rem 0; }
table.chart th, table.chart td { border: 1px solid #888; padding: .25rem .6rem;
                                 text-align: center; }
table.chart thead th { background: #e8edf3; }
table.chart tbody th { background: #f4f6f9; text-align: left; font-weight: 600; }
table.chart th.corner { font-style: italic; font-weight: normal; color: var(--muted); }
table.chart .na { color: var(--muted); }
table.modifiers th, table.modifiers td { border-bottom: 1px solid var(--rule); padding: .2rem .6rem;
                                         text-align: left; vertical-align: top;
                                         font-weight: normal; }
table.modifiers td.drm { text-align: right; white-space: nowrap; }
table.modifiers .when { color: var(--muted); font-size: .85rem; }
sup.marker { color: #8a1c1c; font-weight: 600; }
dl.legend { font-size: .85rem; display: grid; grid-template-columns: max-content 1fr;
            gap: .1rem .6rem;
            margin: .2rem 0; }
dl.legend dt.legend-title { grid-column: 1 / -1; font-weight: 600; }
dl.legend dd { margin: 0; }
.changed { background: var(--changed); }
td.changed del, th.changed del { color: #9b1c1c; }
td.changed ins, th.changed ins { color: #146c2e; text-decoration: none; font-weight: 700; }
del.dropped, .dropped del, del.line { background: var(--dropped); text-decoration: line-through;
                                      text-decoration-color: #c00; }
ins.added, ins.line { background: var(--added); text-decoration: none; }
div.dropped { border-left: 4px solid #c00; padding-left: .5rem; }
div.added { border-left: 4px solid #2a8a3a; padding-left: .5rem; }
.sides { display: grid; grid-template-columns: 1fr 1fr; gap: 1rem; }
.side { min-width: 0; }
.side-head { margin: .3rem 0 0; color: var(--muted); text-transform: uppercase; font-size: .8rem; }
.change-row { border-top: 1px dashed var(--rule); padding-top: .4rem; margin-top: .4rem; }
.absent { color: var(--muted); font-style: italic; }
ol.toc { columns: 2; padding-left: 1.2rem; }
ol.toc li { break-inside: avoid; }
ul.flagged li { margin: .2rem 0; }
ul.flagged li.doubt::marker { content: "⚠ "; }
ul.flagged li.gap::marker { content: "⛔ "; }
ul.changes li .kind { font-weight: 600; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; }
dl.facts dd { margin: 0; }
footer { color: var(--muted); font-size: .8rem; margin-top: 3rem; }
"""


def _page(site: _Site, title: str, body: str, nav: str) -> str:
    lang = site.lang or getattr(site.model, "default_language", None) or "en"
    return ("<!DOCTYPE html>\n"
            f'<html lang="{_esc(lang)}">\n<head>\n<meta charset="utf-8">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{_esc(title)}</title>\n"
            '<link rel="stylesheet" href="pygments.css">\n'
            '<link rel="stylesheet" href="style.css">\n'
            "</head>\n<body>\n"
            f'<header class="site">{nav}</header>\n<main>\n{body}\n</main>\n'
            "</body>\n</html>\n")


def _nav(site: _Site, book_title: str, has_redline: bool) -> str:
    links = [f'<a href="index.html"><strong>{_esc(book_title)}</strong></a>']
    if has_redline:
        links.append(f'<a href="redline.html">{_esc(site.ui("redline"))}</a>')
    return "<nav>" + " ".join(links) + "</nav>"


def _prepare(model, lang, sources) -> tuple[_Site, list]:
    site = _Site(model, lang, sources)
    files: list[str] = []
    for sec in model.sections:
        if sec.loc.path not in files:
            files.append(sec.loc.path)
    site.pages = _page_names(model, files)
    seen_ids: set = set()
    for sec in model.sections:
        page = site.pages[sec.loc.path]
        anchor, k = f"s-{sec.number}", 1
        while anchor in seen_ids:
            k += 1
            anchor = f"s-{sec.number}-{k}"
        seen_ids.add(anchor)
        site.section_id[id(sec)] = anchor
        site.section_page.setdefault(sec.number, page)
        for d in sec.items:
            if not isinstance(d, A.ExampleDecl):
                site.decl_page.setdefault(d.name, page)
    for ch in getattr(model, "patches", []) or []:
        name = re.split(r"[(.]", ch.target, maxsplit=1)[0]
        if ch.kind != "added":
            site.changes_by_decl.setdefault(name, []).append(ch)
    return site, files


def _render_pages(model, lang, hl, sources, has_redline: bool) -> tuple[dict, _Site]:
    site, files = _prepare(model, lang, sources)
    book_title = site.label(model.title, os.path.basename(os.path.dirname(model.path)))
    nav = _nav(site, book_title, has_redline)
    out: dict[str, str] = {}
    for path in files:
        page = site.pages[path]
        secs = [s for s in model.sections if s.loc.path == path]
        body = [f"<h1>{_esc(book_title)}</h1>",
                f'<p class="file">{_esc(os.path.basename(path))}: '
                + ", ".join(f'<a href="#{_esc(site.section_id[id(s)])}">{_esc(s.number)}</a>'
                            for s in secs) + "</p>"]
        first_sec_line = min(s.loc.line for s in secs)
        prelude = sources.lines(path)[:first_sec_line - 1]
        while prelude and not prelude[-1].strip():
            prelude.pop()
        # comment lines right above the first section are shown with it
        cut = len(prelude)
        while cut > 0 and _COMMENT_LINE.match(prelude[cut - 1]) and _indent(prelude[cut - 1]) == 0:
            cut -= 1
        if cut > 0 and any(line.strip() for line in prelude[:cut]):
            body.append(_code_block(site, hl, 1, prelude[:cut], page))
        for sec in secs:
            body.append(_section_html(site, hl, sec, page))
        out[page] = _page(site, f"{book_title} — {os.path.basename(path)}", "\n".join(body), nav)
    # the index last: it lists the doubts and gaps the pages flagged
    out["index.html"] = _index(site, model, book_title, nav, files, has_redline)
    return out, site


def _index(site: _Site, model, book_title: str, nav: str, files, has_redline: bool) -> str:
    body = [f"<h1>{_esc(book_title)}</h1>", '<dl class="facts">']
    if model.edition:
        body.append(f"<dt>{_esc(site.ui('edition'))}</dt><dd>{_esc(model.edition)}</dd>")
    if model.languages:
        body.append(f"<dt>{_esc(site.ui('languages'))}</dt><dd>"
                    + ", ".join(_esc(x) for x in model.languages) + "</dd>")
    body.append(f"<dt>{_esc(site.ui('files'))}</dt><dd>"
                + ", ".join(f'<a href="{_esc(site.pages[p])}">{_esc(os.path.basename(p))}</a>'
                            for p in files) + "</dd>")
    if has_redline:
        body.append(f"<dt>{_esc(site.ui('redline'))}</dt><dd><a href=\"redline.html\">"
                    f"redline.html</a></dd>")
    body.append("</dl>")
    body.append(f'<h2 id="contents">{_esc(site.ui("contents"))}</h2><ol class="toc">')
    for sec in sorted(model.sections, key=lambda s: _section_key(s.number)):
        page = site.pages[sec.loc.path]
        body.append(f'<li><a class="toc-link" href="{_esc(page)}#{_esc(site.section_id[id(sec)])}">'
                    f'<span class="secnum">{_esc(sec.number)}</span> '
                    f"{_esc(site.label(sec.label, ''))}</a></li>")
    body.append("</ol>")
    doubts = sum(1 for f in site.flagged if f[0] == "doubt")
    gaps = sum(1 for f in site.flagged if f[0] == "gap")
    body.append(f'<h2 id="doubts">{_esc(site.ui("doubts"))}</h2>')
    body.append(f'<p class="counts" data-doubts="{doubts}" data-gaps="{gaps}">'
                f"{_esc(site.ui('counts').format(d=doubts, g=gaps))}</p>")
    if site.flagged:
        body.append('<ul class="flagged">')
        for kind, text, href, where in site.flagged:
            body.append(f'<li class="{_esc(kind)}"><a href="{_esc(href)}">{_esc(where)}</a> '
                        f'<span class="badge">{_esc(site.ui(kind))}</span>: {_esc(text)}</li>')
        body.append("</ul>")
    else:
        body.append(f"<p>{_esc(site.ui('none_doubts'))}</p>")
    return _page(site, book_title, "\n".join(body), nav)


# ------------------------------------------------------------------ redline
def _find_by_loc(model, loc):
    for sec in model.sections:
        for i, d in enumerate(sec.items, 1):
            if d.loc == loc:
                return sec, i, d
    return None


def _find_by_name(model, name):
    for sec in model.sections:
        for i, d in enumerate(sec.items, 1):
            if d.name == name and not isinstance(d, A.ExampleDecl):
                return sec, i, d
    return None


def _table_diff(old: A.TableDecl, new: A.TableDecl, model, lang, sources) -> dict:
    changed = {}
    for r, (ro, rn) in enumerate(zip(old.rows, new.rows)):
        for c, (co, cn) in enumerate(zip(ro.cells, rn.cells)):
            before = cell_text(co, model, lang, sources)
            if before != cell_text(cn, model, lang, sources):
                changed[(r, c)] = before
    return changed


def _redline(variant, base, lang, hl, sources, base_site: _Site, var_site: _Site) -> str:
    site = var_site
    changes = list(getattr(variant, "patches", []) or [])
    var_title = site.label(variant.title, "variant")
    base_title = base_site.label(base.title, "base")
    by_section: dict[str, list] = {}
    for ch in changes:
        by_section.setdefault(ch.section or "?", []).append(ch)
    body = [f"<h1>{_esc(site.ui('redline'))}: {_esc(var_title)}</h1>",
            f'<p class="against">{_esc(site.ui("base"))}: <a href="index.html">'
            f"{_esc(base_title)}</a></p>",
            f'<h2 id="changes">{_esc(site.ui("changes"))} ({len(changes)})</h2>',
            '<ul class="changes">']
    for ch in changes:
        body.append(f'<li class="change {_esc(ch.kind)}"><a href="#r-{_esc(ch.section or "")}">'
                    f"§{_esc(ch.section or '?')}</a> <span class=\"kind\">"
                    f"{_esc(site.ui(ch.kind if ch.kind in _UI['en'] else 'patched'))}</span> "
                    f"<code>{_esc(ch.target)}</code>"
                    + (f": <del>{_esc(ch.before)}</del> → <ins>{_esc(ch.after)}</ins>"
                       if ch.kind in ("cell", "option") else "") + "</li>")
    body.append("</ul>")
    for number in sorted(by_section, key=_section_key):
        sec_v = next((s for s in variant.sections if s.number == number), None)
        sec_b = next((s for s in base.sections if s.number == number), None)
        sec_any = sec_v or sec_b
        title = site.label(sec_any.label, "") if sec_any else ""
        page_b = base_site.pages.get(sec_b.loc.path) if sec_b else None
        link = (f' <a class="to-base" href="{_esc(page_b)}#'
                f'{_esc(base_site.section_id[id(sec_b)])}">↗</a>' if sec_b else "")
        rows = [f'<div class="sides sides-head"><h3 class="side-head">{_esc(site.ui("base"))}</h3>'
                f'<h3 class="side-head">{_esc(site.ui("variant"))}</h3></div>']
        for ch in by_section[number]:         # one row per change: base left, variant right
            lb, rb = _redline_change(ch, variant, base, lang, hl, sources, base_site, var_site)
            rows.append(f'<div class="sides change-row kind-{_esc(ch.kind)}">'
                        f'<div class="side base">{lb}</div>'
                        f'<div class="side variant">{rb}</div></div>')
        body.append(f'<section class="redline-section" id="r-{_esc(number)}">'
                    f'<h2><span class="secnum">{_esc(number)}</span> {_esc(title)}{link}</h2>'
                    + "".join(rows) + "</section>")
    nav = _nav(base_site, base_title, True)
    return _page(site, f"{site.ui('redline')}: {var_title}", "\n".join(body), nav)


def _redline_change(ch, variant, base, lang, hl, sources, base_site, var_site):
    name = re.split(r"[(.]", ch.target, maxsplit=1)[0]
    absent_b = f'<p class="absent">{_esc(var_site.ui("not_in_base"))}</p>'
    absent_v = f'<p class="absent">{_esc(var_site.ui("not_in_variant"))}</p>'
    page = "redline.html"

    def block(site, decl, marks=None):
        numbers, lines, m = _decl_source(site, decl)
        return _code_block(site, hl, numbers, lines, page,
                           own=None if isinstance(decl, A.ExampleDecl) else decl.name,
                           marks=marks if marks is not None else m)

    def heading(site, decl):
        kind = _kind_word(decl)
        label = site.label(getattr(decl, "label", None), decl.name)
        return (f'<h4><span class="kind">{_esc(kind)}</span> <code>{_esc(decl.name)}</code>'
                f" {_esc(label) if label != decl.name else ''}</h4>")

    if ch.kind == "cell":
        fb, fv = _find_by_name(base, name), _find_by_name(variant, name)
        if fb is None or fv is None:
            return absent_b, absent_v
        old, new = fb[2], fv[2]
        changed = _table_diff(old, new, variant, lang, sources)
        left = heading(base_site, old) + chart_html(old, base, lang, sources,
                                                     changed={k: None for k in changed},
                                                     id_prefix="base-chart-")
        right = heading(var_site, new) + chart_html(new, variant, lang, sources, changed=changed,
                                                    id_prefix="variant-chart-")
        own = [n for n in new.annotations if n.loc.path in getattr(variant, "own_files", set())]
        if own:
            right += _annotations_html(var_site, own, page, ch.target)
        return f'<div class="change cell">{left}</div>', f'<div class="change cell">{right}</div>'
    if ch.kind == "option":
        fb, fv = _find_by_name(base, name), _find_by_name(variant, name)
        left = heading(base_site, fb[2]) + block(base_site, fb[2]) if fb else absent_b
        right = ((heading(var_site, fv[2]) if fv else "")
                 + f'<p class="changed">{_esc(var_site.ui("default"))}: <del>{_esc(ch.before)}'
                 f"</del> → <ins>{_esc(ch.after)}</ins></p>")
        return (f'<div class="change option">{left}</div>',
                f'<div class="change option">{right}</div>')
    if ch.kind == "dropped":
        fb = _find_by_name(base, name)
        if fb is None:
            return absent_b, absent_v
        old = fb[2]
        if "." in ch.target and isinstance(old, A.ModifiersDecl):
            item = ch.target.split(".", 1)[1]
            _, lines, _ = _decl_source(base_site, old)
            marks, dropping = {}, False
            indent = None
            for m in old.items:
                if m.name == item:
                    indent = m.loc.col - 1
            for j, line in enumerate(lines):
                if j > 0 and line.strip() and indent is not None and _indent(line) <= indent:
                    mm = _ITEM.match(line)
                    dropping = _indent(line) == indent and bool(mm) and mm.group(1) == item
                if dropping:
                    marks[j] = "dropped"
            left = heading(base_site, old) + block(base_site, old, marks=marks)
            fv = _find_by_name(variant, name)
            right = ((heading(var_site, fv[2]) + block(var_site, fv[2])) if fv else absent_v)
            right = (f'<p class="absent"><del class="dropped">{_esc(item)}</del> '
                     f"{_esc(var_site.ui('dropped'))}</p>" + right)
            return (f'<div class="change dropped-item">{left}</div>',
                    f'<div class="change dropped-item">{right}</div>')
        left = heading(base_site, old) + block(base_site, old, marks=None)
        return (f'<div class="change dropped"><del class="dropped">{left}</del></div>',
                f'<div class="change dropped">{absent_v}</div>')
    if ch.kind == "added":
        fv = _find_by_loc(variant, ch.loc)
        if fv is None:
            return absent_b, ""
        new = fv[2]
        right = heading(var_site, new) + block(var_site, new)
        if isinstance(new, A.TableDecl):
            right += chart_html(new, variant, lang, sources, id_prefix="variant-chart-")
        return (f'<div class="change added">{absent_b}</div>',
                f'<div class="change added"><ins class="added">{right}</ins></div>')
    if ch.kind == "replaced":
        fb = _find_by_name(base, name)
        fv = _find_by_name(variant, name)
        left = (f'<del class="dropped">{heading(base_site, fb[2])}{block(base_site, fb[2])}</del>'
                if fb else absent_b)
        right = (f'<ins class="added">{heading(var_site, fv[2])}{block(var_site, fv[2])}</ins>'
                 if fv else absent_v)
        if fb and fv and isinstance(fb[2], A.TableDecl) and isinstance(fv[2], A.TableDecl):
            changed = _table_diff(fb[2], fv[2], variant, lang, sources)
            left += chart_html(fb[2], base, lang, sources, changed={k: None for k in changed},
                               id_prefix="base-chart-")
            right += chart_html(fv[2], variant, lang, sources, changed=changed,
                                id_prefix="variant-chart-")
        return (f'<div class="change replaced">{left}</div>',
                f'<div class="change replaced">{right}</div>')
    return "", f"<p>{_esc(_change_summary(ch))}</p>"


# ------------------------------------------------------------------ writing
def _check_out_dir(out_dir: str) -> str:
    target = os.path.abspath(out_dir)
    where = Loc("<command line>")
    if os.path.exists(target) and not os.path.isdir(target):
        fail(where, "E810", f"'{out_dir}' exists and is not a folder",
             "give a folder for the site with -o")
    if os.path.isdir(target) and os.listdir(target) and \
            not os.path.isfile(os.path.join(target, SITE_MARKER)):
        fail(where, "E810", f"'{out_dir}' is a folder that drillbook render did not write",
             "render into a new or empty folder; a site drillbook wrote is replaced as a whole")
    return target


def _write_atomically(target: str, files: dict) -> None:
    parent = os.path.dirname(target)
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="." + os.path.basename(target) + ".render-", dir=parent)
    old = None
    try:
        for rel, text in files.items():
            path = os.path.join(tmp, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(text)
        os.chmod(tmp, 0o755)
        if os.path.isdir(target):
            old = tempfile.mkdtemp(prefix="." + os.path.basename(target) + ".old-", dir=parent)
            os.rmdir(old)
            os.rename(target, old)
            try:
                os.rename(tmp, target)
            except BaseException:
                os.rename(old, target)
                old = None
                raise
        else:
            os.rename(tmp, target)
        tmp = None
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)


def render_site(model, out_dir: str, lang: str | None = None, variant_model=None) -> list[str]:
    """Write the review site of ``model`` into ``out_dir``; return the paths written.

    ``variant_model``: a variant's model (its ``.base`` is the rulebook it patches); a
    ``redline.html`` then shows its changes.  If ``model`` itself is a variant and no
    ``variant_model`` is given, ``model`` is taken as the variant too.  Raises
    ``DrillError`` (writing nothing) for an unknown language or an ``out_dir`` that is
    a file or a folder this function did not write."""
    if variant_model is None and getattr(model, "base", None) is not None:
        variant_model = model
    languages = list(getattr(model, "languages", []) or [])
    if lang is not None and languages and lang not in languages:
        fail(Loc("<command line>"), "E810", f"this rulebook has no labels in '{lang}'",
             f"its languages: {', '.join(languages)}")
    target = _check_out_dir(out_dir)
    sources = _Sources()
    hl = _Highlighter()
    files, site = _render_pages(model, lang, hl, sources, variant_model is not None)
    if variant_model is not None:
        base = getattr(variant_model, "base", None) or model
        base_site = site if base is model else _prepare(base, lang, sources)[0]
        var_site = _prepare(variant_model, lang, sources)[0]
        files["redline.html"] = _redline(variant_model, base, lang, hl, sources, base_site,
                                         var_site)
    files["style.css"] = _CSS.lstrip()
    files["pygments.css"] = hl.style + "\n"
    files[SITE_MARKER] = "written by drillbook render; the whole folder is replaced on re-render\n"
    for rel, text in files.items():            # valid UTF-8 or nothing
        text.encode("utf-8")
    _write_atomically(target, files)
    return [os.path.join(out_dir, rel) for rel in files]
