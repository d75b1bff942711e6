"""Render stage, part 5: the search index of the site, searched in the browser.

``search_index(site)`` lists every section, declaration, level of an enum or scale, field
of a record, modifier, table cell, doubt and gap of the pages ``site`` drew, each with
the page and anchor it stands at, the title shown in the site's language and the words
it is found by: its names and its labels in every language of the rulebook.  The site
writes it as ``search-index.json``, and as ``search-index.js`` (the same JSON, assigned
to ``window.DRILLBOOK_SEARCH``) so that pages opened from ``file://`` can read it;
``static/search.js`` does the searching, with no network.
"""
from __future__ import annotations

import json

from .. import ast as A
from .site import _Site, _kind_word
from .charts import cell_text

# the order results of equal match are listed in
_RANK = {"section": 0, "rule": 1, "label": 2, "cell": 3, "note": 4}


def _words(*parts) -> str:
    """The text an entry is found by: lower case, ё read as е (as static/search.js does)."""
    out = []
    for p in parts:
        if isinstance(p, A.Label):
            out += [p.text or ""] + list(p.translations.values())
        elif p:
            out.append(str(p))
    return " ".join(w for w in out if w).lower().replace("ё", "е")


def search_index(site: _Site) -> dict:
    model, lang, entries = site.model, site.lang, []

    def add(kind, group, title, href, section, *words):
        entries.append({"k": kind, "g": group, "t": title, "h": href, "s": section or "",
                        "w": _words(title, *words)})

    for sec in model.sections:
        page = site.pages[sec.loc.path]
        number = sec.number
        add("section", site.ui("section"), f"{number} {site.label(sec.label, '')}".strip(),
            f"{page}#{site.section_id[id(sec)]}", number, number, sec.label)
        for d in sec.items:
            if isinstance(d, A.ExampleDecl):
                continue
            href = f"{page}#d-{d.name}"
            label = getattr(d, "label", None)
            title = d.name + (f" — {site.label(label, d.name)}"
                              if label is not None and site.label(label, d.name) != d.name else "")
            add("rule", _kind_word(d), title, href, number, d.name, label)
            for m in getattr(d, "members", []) if isinstance(d, A.EnumDecl) else []:
                add("label", d.name, f"{m.label.show(m.name, lang)} ({d.name})", href, number,
                    m.name, m.label)
            for f in d.fields if isinstance(d, A.RecordDecl) else []:
                add("label", d.name, f"{f.label.show(f.name, lang)} ({d.name}.{f.name})", href,
                    number, f.name, f.label)
            for m in d.items if isinstance(d, A.ModifiersDecl) else []:
                add("label", d.name, f"{site.label(m.label, m.name)} ({d.name}.{m.name})",
                    f"{page}#m-{d.name}-{m.name}", number, m.name, m.label)
            if isinstance(d, A.TableDecl):
                _cells(site, d, page, number, add)
    for kind, text, href, where in site.flagged:
        add("note", site.ui(kind), text, href, where.split(" ")[0].lstrip("§"), where)
    entries.sort(key=lambda e: _RANK[e["k"]])
    return {"version": 1, "lang": lang or "en", "entries": entries}


def _cells(site: _Site, d: A.TableDecl, page: str, number: str, add) -> None:
    """Each cell of a table, found by its text and by its row's and column's labels."""
    model, lang = site.model, site.lang
    header = d.rows[0].cells if d.rows else []
    rec = model.decls.get(getattr(d.returns, "name", None) or "") if hasattr(model, "decls") \
        else None
    fields = {f.name: f for f in rec.fields} if isinstance(rec, A.RecordDecl) else {}

    def labels(cell):
        if cell.kind == "name" and cell.value in fields:
            return [cell.value, fields[cell.value].label]
        member = getattr(model, "members", {}).get(cell.value) if cell.kind == "name" else None
        if member is not None:
            enum, index = member
            return [cell.value, enum.members[index].label]
        return [cell_text(cell, model, lang, site.sources)]

    caption = d.label.show(d.name, lang)
    for r, row in enumerate(d.rows[1:], 1):
        key = row.cells[0]
        for c, cell in enumerate(row.cells[1:], 1):
            col = header[c] if c < len(header) else None
            col_text = (fields[col.value].label.show(col.value, lang)
                        if col is not None and col.kind == "name" and col.value in fields
                        else cell_text(col, model, lang, site.sources) if col else "")
            text = cell_text(cell, model, lang, site.sources)
            add("cell", caption,
                f"{cell_text(key, model, lang, site.sources)} × {col_text} = {text}",
                f"{page}#c-{d.name}-{r}-{c}", number, text, *labels(key),
                *(labels(col) if col is not None else []), d.name)


def index_files(site: _Site) -> dict:
    """``search-index.json`` and ``search-index.js``, the same JSON."""
    text = json.dumps(search_index(site), ensure_ascii=False, separators=(",", ":"))
    return {"search-index.json": text + "\n",
            "search-index.js": "window.DRILLBOOK_SEARCH = " + text + ";\n"}
