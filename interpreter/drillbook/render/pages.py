"""Render stage, part 3: declarations, sections and the pages of the site."""
from __future__ import annotations

import os
import re

from .. import ast as A
from .site import (_COMMENT_LINE,
    _Highlighter,
    _Site,
    _Sources,
    _code_block,
    _esc,
    _indent,
    _kind_word,
    _page_names,
    _section_key)
from .charts import (_annotations_html,
    _cell_source,
    _modifiers_html,
    chart_html)


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
        return A.cell_source(c)
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


