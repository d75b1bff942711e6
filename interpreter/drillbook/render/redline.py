"""Render stage, part 4: a variant's redline, base and variant side by side.

One or several variants (applied in order) are named in the title; each change says which
variant made it; the odds that change are the ones ``diff.semantic_diff`` found.
"""
from __future__ import annotations

import re

from .. import ast as A
from .site import (_Site,
    _UI,
    _code_block,
    _indent,
    _kind_word,
    _section_key)
from .charts import (_annotations_view,
    cell_text,
    chart_view)
from .pages import (_ITEM,
    _change_summary,
    _decl_source,
    _nav,
    _page)


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


def _variants(variant, site: _Site) -> list[dict]:
    """Each variant applied, in order: its title and file."""
    titles = getattr(variant, "variant_titles", None) or [(variant.path, variant.title)]
    return [{"path": path, "title": site.label(label, "variant")} for path, label in titles]


def _odds_view(diff: dict | None, site: _Site) -> list[dict] | None:
    """The odds ``semantic_diff`` found changed, as tables: outcome, before, after."""
    if diff is None:
        return None
    from ..diff import _pct
    out = []
    for o in diff.get("odds", []):
        rows = []
        for k in sorted(set(o["before"]) | set(o["after"])):
            b, a = o["before"].get(k, "0"), o["after"].get(k, "0")
            rows.append({"outcome": k, "before": b, "after": a, "before_pct": _pct(b),
                         "after_pct": _pct(a), "differs": a != b})
        out.append({"question": o["question"], "example": o["example"],
                    "section": o["section"], "rows": rows})
    return out


def _redline(variant, base, lang, hl, sources, base_site: _Site, var_site: _Site,
             diff: dict | None = None) -> str:
    site = var_site
    changes = list(getattr(variant, "patches", []) or [])
    variants = _variants(variant, site)
    by_file = {v["path"]: {"n": n, "title": v["title"]} for n, v in enumerate(variants, 1)}
    var_title = " + ".join(v["title"] for v in variants)
    base_title = base_site.label(base.title, "base")
    by_section: dict[str, list] = {}
    for ch in changes:
        by_section.setdefault(ch.section or "?", []).append(ch)
    listed = [{"kind": ch.kind, "section": ch.section or "", "target": ch.target,
               "word": site.ui(ch.kind if ch.kind in _UI["en"] else "patched"),
               "before": ch.before if ch.kind in ("cell", "option") else None,
               "after": ch.after, "variant": by_file.get(ch.loc.path) if len(variants) > 1
               else None} for ch in changes]
    sections = []
    for number in sorted(by_section, key=_section_key):
        sec_v = next((s for s in variant.sections if s.number == number), None)
        sec_b = next((s for s in base.sections if s.number == number), None)
        sec_any = sec_v or sec_b
        page_b = base_site.pages.get(sec_b.loc.path) if sec_b else None
        rows = []
        for ch in by_section[number]:         # one row per change: base left, variant right
            left, right = _redline_change(ch, variant, base, lang, hl, sources, base_site,
                                          var_site)
            rows.append({"kind": ch.kind, "left": left, "right": right})
        sections.append({"number": number, "title": site.label(sec_any.label, "") if sec_any
                         else "", "link": f"{page_b}#{base_site.section_id[id(sec_b)]}"
                         if sec_b else None, "rows": rows})
    words = {k: site.ui(k) for k in ("redline", "base", "variant", "changes", "variants",
                                     "odds", "odds_intro", "question", "example", "outcome",
                                     "before", "after", "no_odds")}
    return _page(site, "redline.html.j2", f"{site.ui('redline')}: {var_title}",
                 _nav(base_site, base_title, True), words=words, var_title=var_title,
                 variants=variants, base_title=base_title, changes=listed, sections=sections,
                 odds=_odds_view(diff, site))


def _side(cls: str, *items) -> dict:
    return {"cls": cls, "parts": [i for i in items if i]}


def _wrap(tag: str, cls: str, *parts) -> dict:
    return {"t": "wrap", "tag": tag, "cls": cls, "parts": [p for p in parts if p]}


def _redline_change(ch, variant, base, lang, hl, sources, base_site, var_site):
    name = re.split(r"[(.]", ch.target, maxsplit=1)[0]
    absent_b = {"t": "absent", "text": var_site.ui("not_in_base")}
    absent_v = {"t": "absent", "text": var_site.ui("not_in_variant")}
    page = "redline.html"

    def block(site, decl, marks=None):
        numbers, lines, m = _decl_source(site, decl)
        return {"t": "code", "block": _code_block(
            site, hl, numbers, lines, page,
            own=None if isinstance(decl, A.ExampleDecl) else decl.name,
            marks=marks if marks is not None else m)}

    def heading(site, decl):
        label = site.label(getattr(decl, "label", None), decl.name)
        return {"t": "heading", "kind": _kind_word(decl), "name": decl.name,
                "label": label if label != decl.name else ""}

    def chart(decl, model, site=None, **kw):
        return {"t": "chart", "chart": chart_view(decl, model, lang, sources, site=site,
                                                  page=page, **kw)}

    if ch.kind == "cell":
        fb, fv = _find_by_name(base, name), _find_by_name(variant, name)
        if fb is None or fv is None:
            return _side("change cell", absent_b), _side("change cell", absent_v)
        old, new = fb[2], fv[2]
        changed = _table_diff(old, new, variant, lang, sources)
        own = [n for n in new.annotations if n.loc.path in getattr(variant, "own_files", set())]
        left = _side("change cell", heading(base_site, old),
                     chart(old, base, changed={k: None for k in changed},
                           id_prefix="base-chart-"))
        right = _side("change cell", heading(var_site, new),
                      chart(new, variant, var_site, changed=changed,
                            id_prefix="variant-chart-"),
                      {"t": "notes", "notes": _annotations_view(var_site, own, page, ch.target)}
                      if own else None)
        return left, right
    if ch.kind == "option":
        fb, fv = _find_by_name(base, name), _find_by_name(variant, name)
        left = _side("change option", *((heading(base_site, fb[2]), block(base_site, fb[2]))
                                        if fb else (absent_b,)))
        right = _side("change option", heading(var_site, fv[2]) if fv else None,
                      {"t": "default", "word": var_site.ui("default"), "before": ch.before,
                       "after": ch.after})
        return left, right
    if ch.kind == "dropped":
        fb = _find_by_name(base, name)
        if fb is None:
            return _side("change dropped", absent_b), _side("change dropped", absent_v)
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
            fv = _find_by_name(variant, name)
            left = _side("change dropped-item", heading(base_site, old),
                         block(base_site, old, marks=marks))
            right = _side("change dropped-item",
                          {"t": "dropped_item", "item": item, "word": var_site.ui("dropped")},
                          *((heading(var_site, fv[2]), block(var_site, fv[2])) if fv
                            else (absent_v,)))
            return left, right
        return (_side("change dropped", _wrap("del", "dropped", heading(base_site, old),
                                              block(base_site, old))),
                _side("change dropped", absent_v))
    if ch.kind == "added":
        fv = _find_by_loc(variant, ch.loc)
        if fv is None:
            return _side("change added", absent_b), _side("change added")
        new = fv[2]
        return (_side("change added", absent_b),
                _side("change added", _wrap("ins", "added", heading(var_site, new),
                                            block(var_site, new),
                                            chart(new, variant, var_site,
                                                  id_prefix="variant-chart-")
                                            if isinstance(new, A.TableDecl) else None)))
    if ch.kind == "replaced":
        fb = _find_by_name(base, name)
        fv = _find_by_name(variant, name)
        left = [_wrap("del", "dropped", heading(base_site, fb[2]), block(base_site, fb[2]))
                if fb else absent_b]
        right = [_wrap("ins", "added", heading(var_site, fv[2]), block(var_site, fv[2]))
                 if fv else absent_v]
        if fb and fv and isinstance(fb[2], A.TableDecl) and isinstance(fv[2], A.TableDecl):
            changed = _table_diff(fb[2], fv[2], variant, lang, sources)
            left.append(chart(fb[2], base, changed={k: None for k in changed},
                              id_prefix="base-chart-"))
            right.append(chart(fv[2], variant, var_site, changed=changed,
                               id_prefix="variant-chart-"))
        return _side("change replaced", *left), _side("change replaced", *right)
    return _side("change"), _side("change", {"t": "text", "text": _change_summary(ch)})
