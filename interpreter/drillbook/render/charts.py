"""Render stage, part 2: tables drawn as the printed charts, modifier lists, annotations.

Each function returns plain data for the templates (``macros.html.j2``), never HTML.
"""
from __future__ import annotations


from .. import ast as A
from .site import (_Site,
    _Sources,
    _UI)


# ------------------------------------------------------------------ cells
def _cell_source(cell: A.Cell, sources: _Sources) -> str | None:
    loc = cell.loc
    if loc.end_line != loc.line or loc.end_col <= loc.col:
        return None
    text = sources.line(loc.path, loc.line)[loc.col - 1:loc.end_col - 1].strip()
    for mark in cell.markers:
        if text.endswith(mark):
            text = text[:-len(mark)].rstrip()
    return text or None


_OR = {lang: words["or"] for lang, words in _UI.items()}     # from the one phrase table


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
    if cell.kind == "set":                  # Front or Flank: each level by its label
        return _OR.get(lang or "en", " or ").join(
            _cell_value(A.Cell(cell.loc, "name", name, []), model, lang, sources)
            for name in cell.value)
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


def _marker(model, mark, section):
    return model.marker_for(mark, section) if hasattr(model, "marker_for") else None


def _key_attr(cell: A.Cell) -> str:
    if cell.kind in ("name", "int"):
        return str(cell.value)
    if cell.kind == "range":
        return f"{cell.value[0]}-{cell.value[1]}"
    return ""


# ------------------------------------------------------------------ headings as printed
def _key_label(param: A.Param, model, lang) -> str:
    """What a chart prints over a key: the label of the key's type (a die by its name,
    a range type by the key's name)."""
    t = param.type
    decl = getattr(model, "decls", {}).get(t.name or "") if t.kind == "named" else None
    if isinstance(decl, A.DieDecl):
        return decl.name
    if decl is not None and getattr(decl, "label", None) is not None:
        text = decl.label.show(decl.name, lang)
    elif decl is not None:
        text = decl.name
    else:
        text = param.name.replace("_", " ")
    return text[:1].upper() + text[1:]


def _key_heading(decl: A.TableDecl, model, lang) -> dict:
    """The heading of the key column: one part for one key; for two, the row key and the
    column key (told apart by the parameter's name when both read alike)."""
    params = list(decl.params or [])
    parts = [_key_label(p, model, lang) for p in params]
    if len(parts) == 2 and parts[0] == parts[1]:
        if (lang or "en") == "en":          # "Current state", "Desired state"
            parts = [f"{p.name.replace('_', ' ').capitalize()} {part.lower()}"
                     for part, p in zip(parts, params)]
        else:
            parts = [f"{part} ({p.name})" for part, p in zip(parts, params)]
    return {"parts": parts, "names": " \\ ".join(p.name for p in params)}


# ------------------------------------------------------------------ notes of cells
def _note_text(site_lang, note) -> str:
    return note.label.show(note.text, site_lang) if note.label else note.text


def _flags(site: _Site | None, cell: A.Cell, section, page: str, where: str,
           row_notes=(), variant_notes=(), linked: bool = True) -> list:
    """The doubts and gaps that bear on one cell: written under its row (for its column),
    brought by a variant's change of it, or carried by one of its markers.  ``linked``:
    the chart lists the cell's own notes, so a flag links to its note."""
    flags = []
    if site is None:
        return flags
    for note in list(cell.annotations) + list(row_notes) + list(variant_notes):
        if note.kind in ("doubt", "gap"):
            own = linked or any(note is n for n in variant_notes)
            flags.append({"kind": note.kind, "word": site.ui(note.kind),
                          "text": _note_text(site.lang, note),
                          "href": "#" + site.anchor(note, page, where) if own else ""})
    for mark in cell.markers:
        decl = _marker(site.model, mark, section)
        for note in getattr(decl, "annotations", []) if decl else []:
            if note.kind in ("doubt", "gap"):
                flags.append({"kind": note.kind, "word": site.ui(note.kind),
                              "text": f"{mark}: {_note_text(site.lang, note)}",
                              "href": site.href(decl.name, page) or ""})
    return flags


def _variant_notes(decl: A.TableDecl) -> dict:
    """A variant's notes on a table (from another file than the table's), by the cell
    they were written under: the changed cell written last before them in that file."""
    out: dict = {}
    cells = [c for row in decl.rows for c in row.cells if c.loc.path != decl.loc.path]
    for note in decl.annotations:
        if note.loc.path == decl.loc.path:
            continue
        above = [c for c in cells if c.loc.path == note.loc.path and c.loc.line < note.loc.line]
        if above:
            out.setdefault(id(max(above, key=lambda c: c.loc.line)), []).append(note)
    return out


# ------------------------------------------------------------------ charts
def chart_view(decl: A.TableDecl, model, lang: str | None = None,
               sources: _Sources | None = None, changed: dict | None = None,
               show_before: bool = True, id_prefix: str = "chart-",
               site: _Site | None = None, page: str = "") -> dict:
    """A table as the printed chart (drawn by the ``chart`` macro).  ``changed`` maps
    (row, column) indexes to the cell as it was before: such cells get the class
    ``changed`` and show before → after.  With ``site``, cells carry their doubts and
    the cells and rows their notes get anchors."""
    sources = sources or _Sources()
    changed = changed or {}
    section = decl.section.number if decl.section is not None else None
    field_labels = None
    rec = getattr(model, "decls", {}).get(getattr(decl.returns, "name", None) or "")
    if isinstance(rec, A.RecordDecl):
        field_labels = {f.name: f.label.show(f.name, lang) for f in rec.fields}
    used_marks: list[str] = []
    by_variant = _variant_notes(decl)
    own_ids = site is not None and id_prefix == "chart-"     # cells of the pages get ids

    def content(cell, labels=None):
        for mark in cell.markers:
            if mark not in used_marks:
                used_marks.append(mark)
        marks = []
        for mark in cell.markers:
            d = _marker(model, mark, section)
            marks.append({"mark": mark, "title": d.label.show(d.name, lang) if d else ""})
        return {"text": _cell_value(cell, model, lang, sources, labels), "marks": marks}

    header = decl.rows[0] if decl.rows else A.Row(decl.loc, [])
    head = []
    for c, cell in enumerate(header.cells):
        if c == 0:
            head.append({"corner": True, **_key_heading(decl, model, lang), **content(cell)})
        else:
            head.append({"corner": False, "col": _key_attr(cell), **content(cell, field_labels)})
    rows, cell_notes = [], []
    for r, row in enumerate(decl.rows[1:], 1):
        key = row.cells[0] if row.cells else None
        key_text = cell_text(key, model, lang, sources) if key else ""
        cells = []
        for c, cell in enumerate(row.cells):
            col = header.cells[c] if c < len(header.cells) else None
            col_text = cell_text(col, model, lang, sources) if col else ""
            if field_labels and col is not None and col.value in field_labels:
                col_text = field_labels[col.value]
            where = f"§{section} {decl.name} ({key_text} × {col_text})" if c else \
                f"§{section} {decl.name} ({key_text})"
            notes = list(row.annotations) if c == 0 else []
            flags = _flags(site, cell, section, page, where, notes,
                           by_variant.get(id(cell), []), own_ids)
            classes = ["na"] if cell.kind == "na" else []
            classes += sorted({f["kind"] for f in flags})
            why = ""
            if site is not None and site.is_unexercised(cell.loc):
                classes.append("unexercised")
                why = site.unexercised_why(cell.loc) or site.ui("unexercised")
            before = None
            if (r, c) in changed:
                classes.append("changed")
                if show_before and changed[(r, c)] is not None:
                    before = changed[(r, c)]
            cells.append({"header": c == 0, "col": _key_attr(col) if col else "",
                          "id": f"c-{decl.name}-{r}-{c}" if own_ids else "",
                          "classes": " ".join(classes), "before": before, "flags": flags,
                          "why": why,
                          **content(cell)})
            if own_ids:
                for note in (cell.annotations if c else row.annotations):
                    label = key_text if c == 0 else f"{key_text} × {col_text}"
                    cell_notes.append((label, f"#c-{decl.name}-{r}-{c}", note))
        rows.append({"key": _key_attr(key) if key else "", "cells": cells})
    legend = []
    for mark in used_marks:
        decl_m = _marker(model, mark, section)
        legend.append({"mark": mark,
                       "text": decl_m.label.show(decl_m.name, lang) if decl_m else ""})
    notes = []
    seen: set = set()
    cell_notes.sort(key=lambda item: (item[2].loc.line, item[2].loc.col))
    for label, href, note in cell_notes:
        if id(note) in seen:
            continue
        seen.add(id(note))
        same = [lab for lab, _, n in cell_notes if n is note]
        notes.append({**_note_view(site, note, page, f"§{section} {decl.name} ({same[0]})"),
                      "cells": ", ".join(same), "cell_href": href})
    return {"id": id_prefix + decl.name, "table": decl.name,
            "caption": decl.label.show(decl.name, lang), "head": head, "rows": rows,
            "legend": legend, "legend_title": _ui_word(lang, "legend"),
            "notes_title": _ui_word(lang, "cell_notes"), "notes": notes}


def _ui_word(lang, key):
    return _UI.get(lang or "en", _UI["en"]).get(key, _UI["en"][key])


def _modifiers_view(site: _Site, decl: A.ModifiersDecl, page: str, number: str) -> dict:
    rows = []
    for m in decl.items:
        value = A.to_source(m.value)
        if isinstance(m.value, A.IntLit) and m.value.value > 0:
            value = "+" + value
        rows.append({"id": f"m-{decl.name}-{m.name}", "label": site.label(m.label, m.name),
                     "when": A.to_source(m.when) if m.when is not None else None,
                     "when_word": site.ui("when"), "value": value,
                     "unexercised": site.is_unexercised(m.loc),
                     "why": site.unexercised_why(m.loc) or site.ui("unexercised"),
                     "notes": _annotations_view(site, m.annotations, page,
                                                f"§{number} {decl.name}.{m.name}")})
    return {"caption": site.label(decl.label, decl.name), "rows": rows}


# ------------------------------------------------------------------ annotations
def _note_view(site: _Site, note, page: str, where: str) -> dict:
    return {"kind": note.kind, "id": site.anchor(note, page, where),
            "word": site.ui(note.kind), "text": _note_text(site.lang, note)}


def _annotations_view(site: _Site, notes, page: str, where: str) -> list:
    return [_note_view(site, note, page, where) for note in notes or []]
