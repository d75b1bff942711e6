"""Render stage, part 2: tables drawn as the printed charts, modifier lists, annotations."""
from __future__ import annotations


from .. import ast as A
from .site import (_Site,
    _Sources,
    _UI,
    _esc)


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


def _marker(model, mark, section):
    return model.marker_for(mark, section) if hasattr(model, "marker_for") else None


def _cell_html(cell: A.Cell, model, lang, sources, field_labels=None, section=None) -> str:
    text = _esc(_cell_value(cell, model, lang, sources, field_labels))
    marks = ""
    for mark in cell.markers:
        decl = _marker(model, mark, section)
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
    section = decl.section.number if decl.section is not None else None
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
                           f"{_cell_html(cell, model, lang, sources, field_labels, section)}</th>")
            out.append("</tr></thead><tbody>")
            continue
        key = row.cells[0] if row.cells else None
        out.append(f'<tr data-row="{_esc(_key_attr(key) if key else "")}">')
        for c, cell in enumerate(row.cells):
            body = _cell_html(cell, model, lang, sources, section=section)
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
            decl_m = _marker(model, mark, section)
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


