"""Variant stage (between parse and check): a variant file patches a base rulebook by name.

    variant "House rule: failed by 4 or more" of "../rulebook.drill"

    replace big_failure with                 -- a rule, exception, table, modifier list...
      define big_failure ...                 -- (written as items of the same section)
    drop some_exception                      -- a rule, exception or table; list.item for a modifier
    in section 7.4                           -- add rules, exceptions, examples to a section
      exception ...
    change some_table(RowKey, ColumnKey) to 0-4
    switch SomeOption on

Every target is checked to exist.  Two variants applied together that patch the same
target differently are a clash.  The patched rulebook is then checked like any other.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

from . import ast as A
from .errors import Diagnostic, DrillError, Loc, did_you_mean, fail, source_line
from .loader import Loaded, display_path, load, read_and_parse, resolve_main


def is_variant(path: str) -> bool:
    if os.path.isdir(path) or not os.path.isfile(path):
        return False
    try:
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                s = line.strip()
                if s and not s.startswith("--"):
                    return s.startswith("variant ")
    except (OSError, UnicodeDecodeError):
        return False
    return False


@dataclass(frozen=True, slots=True)
class Change:
    """One patch as applied, for ``drillbook diff`` and for clash detection."""
    kind: str            # replaced | dropped | added | cell | option
    target: str
    section: str | None
    loc: Loc
    before: str | None = None
    after: str | None = None


class _Patched:
    """A loaded rulebook whose sections a variant has patched (what ``check`` reads)."""

    def __init__(self, base: Loaded, sections, header):
        self.root = base.root
        self.main = A.SourceFile(base.main.path, header, [], [], [])
        self.sections = sections


def parse_variant(path: str, where: Loc | None = None) -> A.SourceFile:
    if not path or "\0" in path:
        fail(where or Loc("<command line>"), "E010", f"{path!r} names no variant file",
             "give the path of a variant file")
    shown = display_path(path)
    parsed = read_and_parse(path, shown, where or Loc("<command line>"))
    if parsed.header is None or parsed.header.base is None:
        fail(Loc(shown), "E901", "a variant file starts with: variant \"Title\" of \"path\"")
    if parsed.uses:
        fail(parsed.uses[0].loc, "E901", "a variant cannot 'use' files; patch the base instead")
    return parsed


def base_path(variant: A.SourceFile, path: str) -> str:
    return os.path.normpath(os.path.join(os.path.dirname(path), variant.header.base))


def apply_variants(base_dir: str, variant_paths: list[str], where: Loc | None = None):
    """Load the base afresh, apply each variant in order; return (patched, changes, header)."""
    variants = [(p, parse_variant(p, where)) for p in variant_paths]
    base = load(base_dir, where)
    header = base.main.header
    sections = [A.Section(s.loc, s.number, s.label, list(s.items), list(s.annotations))
                for s in base.sections]
    for sec in sections:
        for d in sec.items:
            d.section = sec
    changes: list[Change] = []
    seen: dict[str, tuple[A.Patch, str]] = {}
    errors: list[Diagnostic] = []
    for path, var in variants:
        for patch in var.patches:
            key = _key(patch)
            text = _patch_text(patch)
            if key in seen and seen[key][1] != text:
                first = seen[key][0]
                errors.append(Diagnostic(patch.loc, "E903", f"clash: two variants patch "
                                         f"'{key}' differently", "apply only one of them, or make "
                                         "them agree", notes=[(first.loc, "the other patch")]))
                continue
            seen[key] = (patch, text)
            try:
                changes.extend(_apply(patch, sections))
            except DrillError as e:
                errors.extend(e.diagnostics)
        for sec in var.sections:
            if any(s.number == sec.number for s in sections):
                errors.append(Diagnostic(sec.loc, "E904", f"section {sec.number} already exists "
                                         "in the base rulebook", f"add to it with: in section "
                                         f"{sec.number}"))
                continue
            sections.append(sec)
            for d in sec.items:
                changes.append(Change("added", d.name, sec.number, d.loc, None, _decl_text(d)))
    if errors:
        raise DrillError(errors)
    title = variants[-1][1].header if variants else header
    patched_header = A.Header(title.loc, title.label, header.edition, header.languages)
    return _Patched(base, sections, patched_header), changes, header


def _key(p: A.Patch) -> str:
    if p.kind == "cell":
        return f"{p.target}({', '.join(str(k) for _, k in p.keys)})"
    if p.kind == "add":
        return f"section {p.target}: " + ", ".join(getattr(i, "name", "?") for i in p.items)
    return p.target


def _patch_text(p: A.Patch) -> str:
    line = source_line(p.loc.path, p.loc.line) or ""
    if p.kind in ("replace", "add"):
        return _key(p) + "|" + "|".join(_decl_text(i) for i in p.items)
    return line.strip()


def _decl_text(d) -> str:
    """A declaration's own source lines, joined (not the line after it, where the parser's
    end position may fall, inside the next line's indentation)."""
    last = d.loc.end_line or d.loc.line
    tail = source_line(d.loc.path, last) or ""
    if last > d.loc.line and not tail[: max(d.loc.end_col - 1, 0)].strip():
        last -= 1
    lines = [(source_line(d.loc.path, n) or "").strip() for n in range(d.loc.line, last + 1)]
    return " ".join(x for x in lines if x)


def _find(sections, name: str):
    for sec in sections:
        for i, d in enumerate(sec.items):
            if d.name == name:
                return sec, i, d
    return None


def _not_found(p: A.Patch, sections, what="rule, exception, table or list"):
    names = [d.name for s in sections for d in s.items]
    fail(p.target_loc, "E902", f"the base rulebook has no {what} named '{p.target}'",
         did_you_mean(p.target.split(".")[0], names))


def _apply(p: A.Patch, sections) -> list[Change]:
    if p.kind == "replace":
        found = _find(sections, p.target)
        if found is None:
            _not_found(p, sections)
        sec, i, old = found
        if not any(getattr(item, "name", None) == p.target for item in p.items):
            fail(p.loc, "E905", f"the replacement must declare '{p.target}' again",
                 "replace X with a block that declares X")
        sec.items[i:i + 1] = p.items
        for item in p.items:
            item.section = sec
            if getattr(item, "name", None) == p.target:    # the patch's own notes go with it
                item.annotations = list(item.annotations) + p.annotations
        return [Change("replaced", p.target, sec.number, p.loc, _decl_text(old),
                       " / ".join(_decl_text(i) for i in p.items))]
    if p.kind == "drop":
        name, _, item = p.target.partition(".")
        found = _find(sections, name)
        if found is None:
            _not_found(p, sections)
        sec, i, old = found
        if item:
            if not isinstance(old, A.ModifiersDecl):
                fail(p.target_loc, "E902", f"'{name}' is {old.a_what}; only a modifier list has "
                     "items to drop")
            kept = [m for m in old.items if m.name != item]
            if len(kept) == len(old.items):
                fail(p.target_loc, "E902", f"modifier list '{name}' has no modifier '{item}'",
                     did_you_mean(item, [m.name for m in old.items]))
            new = A.ModifiersDecl(old.loc, old.name, old.params, old.label, old.combine,
                                  old.combine_loc, old.cap, kept)
            new.section, new.annotations = sec, old.annotations
            sec.items[i] = new
            return [Change("dropped", p.target, sec.number, p.loc, item, None)]
        del sec.items[i]
        return [Change("dropped", p.target, sec.number, p.loc, _decl_text(old), None)]
    if p.kind == "add":
        sec = next((s for s in sections if s.number == p.target), None)
        if sec is None:
            fail(p.target_loc, "E902", f"the base rulebook has no section {p.target}",
                 did_you_mean(p.target, [s.number for s in sections]))
        sec.items.extend(p.items)
        sec.annotations = list(sec.annotations) + p.annotations
        for item in p.items:
            item.section = sec
        return [Change("added", getattr(item, "name", "?"), sec.number, item.loc, None,
                       _decl_text(item)) for item in p.items]
    if p.kind == "cell":
        return [_change_cell(p, sections)]
    if p.kind == "option":
        found = _find(sections, p.target)
        if found is None or not isinstance(found[2], A.OptionDecl):
            _not_found(p, sections, "option")
        sec, i, old = found
        new = A.OptionDecl(old.loc, old.name, old.label, p.switch == "on")
        new.section, new.annotations = sec, old.annotations
        sec.items[i] = new
        return [Change("option", p.target, sec.number, p.loc, "on" if old.default else "off",
                       p.switch)]
    raise AssertionError(p.kind)


def _matches(cell: A.Cell, key) -> bool:
    if cell.kind in ("name", "int"):
        return cell.value == key
    return False


def _change_cell(p: A.Patch, sections) -> Change:
    found = _find(sections, p.target)
    if found is None or not isinstance(found[2], A.TableDecl):
        _not_found(p, sections, "table")
    sec, i, old = found
    keys = [k for _, k in p.keys]
    if len(keys) != len(old.params):
        fail(p.loc, "E906", f"table '{old.name}' has {len(old.params)} key(s); this names "
             f"{len(keys)}")
    header, body = old.rows[0], old.rows[1:]
    col = 1
    if len(keys) == 2:
        cols = [j for j, c in enumerate(header.cells) if j and _matches(c, keys[1])]
        if not cols:
            fail(p.keys[1][0], "E906", f"table '{old.name}' has no column {keys[1]}",
                 did_you_mean(str(keys[1]), [A.cell_source(c) for c in header.cells[1:]]))
        col = cols[0]
    rows = [r for r in body if _matches(r.cells[0], keys[0])]
    if not rows:
        covering = [r for r in body if r.cells[0].kind == "range"
                    and isinstance(keys[0], int)
                    and r.cells[0].value[0] <= keys[0] <= r.cells[0].value[1]]
        hint = ("that row covers a range: replace the whole table instead" if covering
                else did_you_mean(str(keys[0]), [A.cell_source(r.cells[0]) for r in body
                                                 if r.cells]))
        fail(p.keys[0][0], "E906", f"table '{old.name}' has no row {keys[0]}", hint)
    row = rows[0]
    if col >= len(row.cells):
        fail(p.loc, "E906", f"table '{old.name}' row {keys[0]} has no cell {col}")
    before = row.cells[col]
    new_cells = list(row.cells)
    new_cells[col] = p.cell
    new_rows = [A.Row(r.loc, new_cells, r.annotations) if r is row else r for r in old.rows]
    new = A.TableDecl(old.loc, old.name, old.params, old.returns, old.label, new_rows)
    new.section, new.annotations = sec, old.annotations + p.annotations
    sec.items[i] = new
    return Change("cell", _key(p), sec.number, p.loc, A.cell_source(before),
                  A.cell_source(p.cell))


def load_variant(path: str, where: Loc | None = None, more: list[str] | None = None):
    """Check a variant (and any more variants applied after it); keep the base model too."""
    from .check import check
    paths = [path] + list(more or [])
    first = parse_variant(path, where)
    base_dir = base_path(first, path)
    resolve_main(base_dir, first.header.loc)
    titles = [(first.header.loc.path, first.header.label)]
    given = {os.path.realpath(path)}
    for other in paths[1:]:
        var = parse_variant(other, where)
        titles.append((var.header.loc.path, var.header.label))
        if os.path.realpath(other) in given:
            fail(var.header.loc, "E908", f"the variant {display_path(other)} is given twice",
                 "give each variant once: applied again, it would patch what it has patched "
                 "already")
        given.add(os.path.realpath(other))
        if os.path.realpath(resolve_main(base_path(var, other))) != os.path.realpath(
                resolve_main(base_dir)):
            fail(var.header.loc, "E907", "this variant patches another rulebook than the first one")
    patched, changes, _ = apply_variants(base_dir, paths, where)
    model = check(patched)
    model.base = check(load(base_dir, where))
    model.patches = changes
    model.own_files = {display_path(p) for p in paths}
    model.variant_titles = titles          # (file, label) of each variant, in order applied
    return model
