"""Render stage, part 4: a variant's redline, base and variant side by side."""
from __future__ import annotations

import re

from .. import ast as A
from .site import (_Site,
    _UI,
    _code_block,
    _esc,
    _indent,
    _kind_word,
    _section_key)
from .charts import (_annotations_html,
    cell_text,
    chart_html)
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


