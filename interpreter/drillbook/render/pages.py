"""Render stage, part 3: declarations, sections and the pages of the site."""
from __future__ import annotations

import os
import re

from .. import ast as A
from .env import render
from .site import (_COMMENT_LINE,
    _Highlighter,
    _Site,
    _Sources,
    _code_block,
    _indent,
    _kind_word,
    _page_names,
    _places,
    _section_key)
from .charts import (_annotations_view,
    _cell_source,
    _modifiers_view,
    chart_view)


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


def _decl_view(site: _Site, hl: _Highlighter, decl, section, index: int, page: str) -> dict:
    """One declaration, for the ``decl`` macro."""
    is_example = isinstance(decl, A.ExampleDecl)
    title = site.label(getattr(decl, "label", None), "" if is_example else decl.name)
    view = {"anchor": _decl_anchor(decl, section, index), "kind": _kind_word(decl),
            "name": None if is_example else decl.name, "to": None,
            "title": title if title and (is_example or title != decl.name) else None,
            "patched": [] if is_example else [_change_summary(ch) for ch in
                                              site.changes_by_decl.get(decl.name, [])],
            "patched_word": site.ui("patched"), "unexercised": site.is_unexercised(decl.loc),
            "unexercised_why": site.unexercised_why(decl.loc),
            "unexercised_word": site.ui("unexercised"),
            "notes": _annotations_view(site, decl.annotations, page, f"§{section.number} "
                                       f"{decl.name if not is_example else title}"),
            "chart": None, "modifiers": None, "step_notes": [], "exceptions": None,
            "code": None}
    if isinstance(decl, A.ExceptionDecl):
        view["to"] = {"word": site.ui("exception_to"), "name": decl.target,
                      "href": site.href(decl.target, page)}
    if isinstance(decl, A.TableDecl):
        view["chart"] = chart_view(decl, site.model, site.lang, site.sources, site=site,
                                   page=page)
    if isinstance(decl, A.ModifiersDecl):
        view["modifiers"] = _modifiers_view(site, decl, page, section.number)
    if isinstance(decl, A.ProcedureDecl):
        for step in decl.steps:
            view["step_notes"] += _annotations_view(site, step.annotations, page,
                                                    f"§{section.number} {decl.name}.{step.name}")
    if isinstance(decl, A.Define):
        exceptions = getattr(site.model, "children", {}).get(decl.name) or []
        if exceptions:
            view["exceptions"] = {"word": site.ui("exceptions"),
                                  "links": [{"href": site.href(e.name, page), "name": e.name}
                                            for e in exceptions]}
    numbers, lines, marks = _decl_source(site, decl)
    if lines:
        view["code"] = _code_block(site, hl, numbers, lines, page,
                                   own=None if is_example else decl.name, marks=marks)
    return view


def _change_summary(ch) -> str:
    if ch.kind in ("cell", "option"):
        return f"{ch.target}: {ch.before} → {ch.after}"
    if ch.kind == "dropped":
        return f"{ch.target} dropped"
    return f"{ch.target} {ch.kind}"


def _section_view(site: _Site, hl: _Highlighter, sec, page: str) -> dict:
    first, lines = site.sources.span(A.Loc(sec.loc.path, sec.loc.line, sec.loc.col,
                                           sec.loc.line, 0))
    return {"anchor": site.section_id[id(sec)], "number": sec.number,
            "title": site.label(sec.label, ""),
            "code": _code_block(site, hl, first, lines, page) if lines else None,
            "notes": _annotations_view(site, sec.annotations, page, f"§{sec.number}"),
            "decls": [_decl_view(site, hl, decl, sec, i, page)
                      for i, decl in enumerate(sec.items, 1)]}


# ------------------------------------------------------------------ pages
def _page(site: _Site, template: str, title: str, nav: dict, **data) -> str:
    lang = site.lang or getattr(site.model, "default_language", None) or "en"
    return render(template, lang=lang, title=title, nav=nav,
                  search={"word": site.ui("search"), "hint": site.ui("search_hint"),
                          "found": site.ui("found"), "shown": site.ui("shown")}, **data)


def _nav(site: _Site, book_title: str, has_redline: bool) -> dict:
    return {"book": book_title, "redline": site.ui("redline") if has_redline else None}


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


def _render_pages(model, lang, hl, sources, has_redline: bool,
                  unexercised=None) -> tuple[dict, _Site]:
    site, files = _prepare(model, lang, sources)
    site.unexercised = _places(unexercised)
    book_title = site.label(model.title, os.path.basename(os.path.dirname(model.path)))
    nav = _nav(site, book_title, has_redline)
    out: dict[str, str] = {}
    for path in files:
        page = site.pages[path]
        secs = [s for s in model.sections if s.loc.path == path]
        first_sec_line = min(s.loc.line for s in secs)
        prelude = sources.lines(path)[:first_sec_line - 1]
        while prelude and not prelude[-1].strip():
            prelude.pop()
        # comment lines right above the first section are shown with it
        cut = len(prelude)
        while cut > 0 and _COMMENT_LINE.match(prelude[cut - 1]) and _indent(prelude[cut - 1]) == 0:
            cut -= 1
        head = (_code_block(site, hl, 1, prelude[:cut], page)
                if cut > 0 and any(line.strip() for line in prelude[:cut]) else None)
        out[page] = _page(site, "file.html.j2", f"{book_title} — {os.path.basename(path)}", nav,
                          book_title=book_title, file_name=os.path.basename(path),
                          links=[{"href": "#" + site.section_id[id(s)], "number": s.number}
                                 for s in secs],
                          prelude=head, sections=[_section_view(site, hl, s, page) for s in secs])
    # the index last: it lists the doubts and gaps the pages flagged
    out["index.html"] = _index(site, model, book_title, nav, files, has_redline)
    return out, site


def _index(site: _Site, model, book_title: str, nav: dict, files, has_redline: bool) -> str:
    facts = []
    if model.edition:
        facts.append({"term": site.ui("edition"), "text": model.edition})
    if model.languages:
        facts.append({"term": site.ui("languages"), "text": ", ".join(model.languages)})
    facts.append({"term": site.ui("files"),
                  "links": [{"href": site.pages[p], "text": os.path.basename(p)} for p in files]})
    if has_redline:
        facts.append({"term": site.ui("redline"),
                      "links": [{"href": "redline.html", "text": "redline.html"}]})
    toc = [{"href": f"{site.pages[sec.loc.path]}#{site.section_id[id(sec)]}",
            "number": sec.number, "title": site.label(sec.label, "")}
           for sec in sorted(model.sections, key=lambda s: _section_key(s.number))]
    doubts = sum(1 for f in site.flagged if f[0] == "doubt")
    gaps = sum(1 for f in site.flagged if f[0] == "gap")
    flagged = [{"kind": kind, "word": site.ui(kind), "text": text, "href": href, "where": where}
               for kind, text, href, where in site.flagged]
    return _page(site, "index.html.j2", book_title, nav, book_title=book_title, facts=facts,
                 contents=site.ui("contents"), toc=toc, doubts_word=site.ui("doubts"),
                 doubts=doubts, gaps=gaps, counts=site.ui("counts").format(d=doubts, g=gaps),
                 flagged=flagged, none_doubts=site.ui("none_doubts"))
