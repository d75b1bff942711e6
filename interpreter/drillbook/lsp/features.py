"""Editor stage: what the language server answers, as pure functions of an analysis.

Each function takes an ``project.Analysis`` (the rulebook as the editor's texts make it),
its ``index.Index`` and a place (a real path, a 1-based line and column) and returns
lsprotocol values: diagnostics, hover text, locations, symbols, edits, code actions.
Nothing here talks to a client; ``server.py`` does that.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

from lsprotocol import types as T

from .. import ast as A
from ..errors import DrillError
from ..fmt import format_text
from ..loader import display_path
from ..syntax import grammar_keywords
from .project import first_word, line_of, real, text_of

_QUOTED = re.compile(r"'([^']+)'")
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


# ------------------------------------------------------------ positions
def uri(path: str) -> str:
    return Path(path).as_uri()


def path_of(doc_uri: str) -> str:
    from urllib.parse import unquote, urlparse
    return real(unquote(urlparse(doc_uri).path))


ENCODING = {"unit": "utf-16"}     # what an LSP "character" counts; the server sets it


def _units(text: str) -> int:
    unit = ENCODING["unit"]
    if unit == "utf-8":
        return len(text.encode("utf-8"))
    if unit == "utf-32":
        return len(text)
    return sum(2 if ord(ch) > 0xFFFF else 1 for ch in text)


def character(text: str, col: int) -> int:
    """The LSP character offset of 1-based column ``col`` of a line."""
    return _units(text[: max(col - 1, 0)]) + max(col - 1 - len(text), 0)


def column(text: str, character: int) -> int:
    """The 1-based column of an LSP character offset in a line."""
    units, col = 0, 1
    for ch in text:
        if units >= character:
            break
        units += _units(ch)
        col += 1
    return col + max(character - units, 0)


def to_lsp(path: str, line: int, col: int) -> T.Position:
    """A 1-based (line, column) as an LSP position."""
    return T.Position(line=max(line - 1, 0), character=character(line_of(path, line) or "", col))


def from_lsp(path: str, pos: T.Position) -> tuple[int, int]:
    return pos.line + 1, column(line_of(path, pos.line + 1) or "", pos.character)


def span_range(span) -> T.Range:
    return T.Range(to_lsp(span.path, span.line, span.col), to_lsp(span.path, span.line, span.end))


def loc_range(loc) -> T.Range:
    path = real(loc.path)
    start = to_lsp(path, loc.line, loc.col)
    if loc.end_line and (loc.end_line, loc.end_col) > (loc.line, loc.col):
        return T.Range(start, to_lsp(path, loc.end_line, loc.end_col))
    text = line_of(path, loc.line) or ""
    m = re.compile(r"[\w.]+").match(text, max(loc.col - 1, 0))
    end = m.end() + 1 if m and m.end() > loc.col - 1 else loc.col + 1
    return T.Range(start, to_lsp(path, loc.line, end))


# ------------------------------------------------------------ diagnostics
def diagnostics(analysis, path: str) -> list[T.Diagnostic]:
    """Every error and warning of ``drillbook check`` in one file, with code, range and hint."""
    out = []
    for d in analysis.diagnostics.get(path, []):
        message = d.message + (f"\nhint: {d.hint}" if d.hint else "")
        related = [T.DiagnosticRelatedInformation(T.Location(uri(real(loc.path)),
                                                             loc_range(loc)), text)
                   for loc, text in d.notes if os.path.exists(loc.path)]
        out.append(T.Diagnostic(
            range=loc_range(d.loc) if real(d.loc.path) == path else T.Range(
                T.Position(0, 0), T.Position(0, 1)),
            message=message, code=d.code, source="drillbook",
            severity=T.DiagnosticSeverity.Warning if d.severity == "warning"
            else T.DiagnosticSeverity.Error,
            related_information=related or None,
            data={"hint": d.hint} if d.hint else None))
    return out


# ------------------------------------------------------------ hover
def labels(label, languages) -> str:
    """A label in every language it is given in: 'en: Order · ru: Приказ'."""
    if label is None:
        return ""
    parts = []
    if label.text:
        parts.append(f"{languages[0] if languages else 'label'}: {label.text}")
    parts += [f"{lang}: {text}" for lang, text in label.translations.items()]
    return " · ".join(parts)


def section_line(sec, languages) -> str:
    if sec is None:
        return ""
    names = labels(sec.label, languages)
    return f"§{sec.number}" + (f" — {names}" if names else "")


def notes(annotations) -> list[str]:
    return [f"*{n.kind}*: {n.text}" for n in annotations or [] if n.kind != "note"] + [
        f"*note*: {n.text}" for n in annotations or [] if n.kind == "note"]


def signature(loc) -> str:
    """A declaration's first line as written, up to its label (or its '= value')."""
    text = (line_of(loc.path, loc.line) or "")[loc.col - 1:]
    for stop in (' "', " = "):
        if stop in text:
            text = text[: text.index(stop)]
    return text.rstrip()


def written(loc) -> str:
    """The source text a one-line node was written as."""
    text = line_of(loc.path, loc.line) or ""
    end = loc.end_col if loc.end_line == loc.line else len(text) + 1
    return text[loc.col - 1:end - 1]


def _block(*parts) -> str:
    return "\n\n".join(p for p in parts if p)


def hover(analysis, ix, path: str, line: int, col: int) -> T.Hover | None:
    langs = ix.model.languages if ix.model is not None else []
    cell = ix.cell_at(path, line, col)
    occ = ix.at(path, line, col)
    if cell is not None and (cell.row > 0 and cell.col > 0 or occ is None):
        text = _cell_hover(ix, cell, langs)
        rng = span_range(cell.span)
    elif occ is not None:
        text = _key_hover(ix, occ.key, langs)
        rng = span_range(occ.span)
    else:
        return None
    if not text:
        return None
    return T.Hover(T.MarkupContent(T.MarkupKind.Markdown, text), rng)


def _key_hover(ix, key, langs) -> str:
    m = ix.model
    obj, owner = ix.objects.get(key, (None, None))
    if obj is None:
        return ""
    if key[0] == "decl":
        d = obj
        ty = m.returns.get(d.name)
        shape = ""
        if isinstance(d, A.TableDecl) and d.name in m.tables:
            lay = m.tables[d.name]
            shape = f"table ({lay.shape}), {len(d.rows) - 1} rows × {len(d.rows[0].cells) - 1} columns"
        return _block(f"**{d.what}** `{d.name}`", f"```drill\n{signature(d.loc)}\n```",
                      f"→ `{ty}`" if ty is not None else "", shape, labels(d.label, langs)
                      if hasattr(d, "label") else "", section_line(d.section, langs),
                      "\n\n".join(notes(d.annotations)))
    if key[0] == "member":
        members = [x.name for x in owner.members]
        i = members.index(obj.name)
        if owner.ordered:
            around = (f"← `{members[i - 1]}`" if i > 0 else "(lowest)") + " · " + (
                f"`{members[i + 1]}` →" if i + 1 < len(members) else "(highest)")
            where = f"level {i + 1} of {len(members)} of scale `{owner.name}`: {around}"
        else:
            where = f"one of enum `{owner.name}`: " + ", ".join(f"`{x}`" for x in members)
        return _block(f"**level** `{obj.name}`", where, labels(obj.label, langs),
                      labels(owner.label, langs), section_line(owner.section, langs))
    if key[0] == "field":
        ty = m.record_types.get(owner.name, {}).get(obj.name)
        default = f"default `{A.to_source(obj.default)}`" if obj.default is not None else ""
        return _block(f"**field** `{owner.name}.{obj.name}: {ty}`", default,
                      labels(obj.label, langs), section_line(owner.section, langs))
    if key[0] == "modifier":
        cond = f" when `{A.to_source(obj.when)}`" if obj.when is not None else " (always)"
        return _block(f"**modifier** `{obj.name}` of `{owner.name}`",
                      f"value `{A.to_source(obj.value)}`{cond}", labels(obj.label, langs),
                      section_line(owner.section, langs), "\n\n".join(notes(obj.annotations)))
    if key[0] == "param":
        return _block(f"**parameter** `{obj.name}: {written(obj.type.loc)}` of `{owner.name}`",
                      section_line(owner.section, langs))
    return ""


def _cell_hover(ix, cell, langs) -> str:
    t, rows = cell.table, cell.table.rows
    c = rows[cell.row].cells[cell.col]
    row_head = A.cell_source(rows[cell.row].cells[0]) if cell.col > 0 else ""
    col_head = A.cell_source(rows[0].cells[cell.col]) if cell.row > 0 and cell.col < len(
        rows[0].cells) else ""
    heads = " · ".join(x for x in (f"row **{row_head}**" if row_head else "",
                                   f"column **{col_head}**" if col_head else "") if x)
    marks = []
    for mark in c.markers:
        d = ix.model.marker_for(mark, t.section.number if t.section else None)
        if d is not None:
            marks.append(f"`{mark}` {d.name}: {labels(d.label, langs)}")
    level = _key_hover(ix, ("member", c.value), langs) if c.kind == "name" else ""
    return _block(f"**cell** `{A.cell_source(c)}` of table `{t.name}`", heads,
                  labels(t.label, langs), section_line(t.section, langs), "\n\n".join(marks),
                  level)


# ------------------------------------------------------------ navigation
def definition(ix, path, line, col) -> list[T.Location]:
    occ = ix.at(path, line, col)
    if occ is None or occ.key not in ix.defs:
        return []
    span = ix.defs[occ.key]
    return [T.Location(uri(span.path), span_range(span))]


def references(ix, path, line, col, include_declaration=True) -> list[T.Location]:
    occ = ix.at(path, line, col)
    if occ is None:
        return []
    seen, out = set(), []
    for o in ix.uses(occ.key):
        if (o.span in seen) or (o.definition and not include_declaration):
            continue
        seen.add(o.span)
        out.append(T.Location(uri(o.span.path), span_range(o.span)))
    return out


# ------------------------------------------------------------ symbols
_KINDS = {A.Define: T.SymbolKind.Function, A.ExceptionDecl: T.SymbolKind.Function,
          A.TableDecl: T.SymbolKind.Array, A.EnumDecl: T.SymbolKind.Enum,
          A.RecordDecl: T.SymbolKind.Struct, A.DieDecl: T.SymbolKind.Constant,
          A.OptionDecl: T.SymbolKind.Boolean, A.MarkerDecl: T.SymbolKind.Key,
          A.ModifiersDecl: T.SymbolKind.Operator, A.CheckDecl: T.SymbolKind.Method,
          A.RequirementsDecl: T.SymbolKind.Interface, A.RequireDecl: T.SymbolKind.Property,
          A.ProcedureDecl: T.SymbolKind.Event, A.ExampleDecl: T.SymbolKind.Object}


def _name_range(loc, name) -> T.Range:
    from .index import word
    span = word(loc, name)
    return span_range(span) if span is not None else loc_range(loc)


def document_symbols(analysis, path) -> list[T.DocumentSymbol]:
    """The section outline of one file, with the printed numbers, and what each declares."""
    parsed = analysis.parsed.get(path)
    if parsed is None:
        return []
    langs = parsed.header.languages if parsed.header else []
    out = []
    for sec in parsed.sections:
        kids = []
        for d in sec.items:
            name = f'"{d.name}"' if isinstance(d, A.ExampleDecl) else d.name
            rng = loc_range(d.loc)
            kids.append(T.DocumentSymbol(name=name, kind=_KINDS.get(type(d), T.SymbolKind.Field),
                                         range=rng, selection_range=_within(
                                             _name_range(d.loc, d.name), rng),
                                         detail=d.what))
        rng = loc_range(sec.loc)
        out.append(T.DocumentSymbol(name=f"{sec.number} {sec.label.text or ''}".strip(),
                                    kind=T.SymbolKind.Namespace, range=rng,
                                    selection_range=_within(_name_range(sec.loc, sec.number), rng),
                                    detail=labels(sec.label, langs), children=kids))
    for p in parsed.patches:
        rng = loc_range(p.loc)
        out.append(T.DocumentSymbol(name=f"{p.kind} {p.target}", kind=T.SymbolKind.Event,
                                    range=rng, selection_range=_within(
                                        _name_range(p.target_loc, p.target.split('.')[0]), rng),
                                    detail="variant patch"))
    return out


def _within(inner: T.Range, outer: T.Range) -> T.Range:
    """An LSP client insists that a selection range lie inside its symbol's range."""
    key = (lambda p: (p.line, p.character))
    if key(inner.start) < key(outer.start) or key(inner.end) > key(outer.end):
        return T.Range(outer.start, outer.start)
    return inner


def workspace_symbols(indexes, query: str) -> list[T.WorkspaceSymbol]:
    q = query.lower()
    out, seen = [], set()
    for ix in indexes:
        for key, span in ix.defs.items():
            if key[0] != "decl" or key in seen or q not in key[1].lower():
                continue
            seen.add(key)
            d, _ = ix.objects[key]
            sec = f"§{d.section.number} {d.section.label.text or ''}".strip() if d.section else None
            out.append(T.WorkspaceSymbol(name=key[1], kind=_KINDS.get(type(d), T.SymbolKind.Field),
                                         location=T.Location(uri(span.path), span_range(span)),
                                         container_name=sec))
    return out


# ------------------------------------------------------------ formatting
def formatting(path: str, text: str) -> list[T.TextEdit] | None:
    """``drillbook fmt`` of the whole document, as one edit; None when it does not parse."""
    try:
        tidy = format_text(text, display_path(path))
    except DrillError:
        return None
    if tidy == text:
        return []
    lines = text.split("\n")
    end = T.Position(len(lines) - 1, character(lines[-1], len(lines[-1]) + 1))
    return [T.TextEdit(T.Range(T.Position(0, 0), end), tidy)]


# ------------------------------------------------------------ code actions
def code_actions(analysis, path: str, rng: T.Range) -> list[T.CodeAction]:
    """A quick fix for every 'did you mean' hint of the checker whose error touches ``rng``."""
    out = []
    for diag in diagnostics(analysis, path):
        hint = (diag.data or {}).get("hint") or ""
        if "did you mean" not in hint or not _overlaps(diag.range, rng):
            continue
        wrong = _wrong_word(path, diag)
        if wrong is None:
            continue
        start, end = wrong
        for candidate in _QUOTED.findall(hint):
            edit = T.TextEdit(T.Range(start, end), candidate)
            out.append(T.CodeAction(title=f"Change to '{candidate}'",
                                    kind=T.CodeActionKind.QuickFix, diagnostics=[diag],
                                    is_preferred=len(out) == 0,
                                    edit=T.WorkspaceEdit(changes={uri(path): [edit]})))
    return out


def _overlaps(a: T.Range, b: T.Range) -> bool:
    key = (lambda p: (p.line, p.character))
    return key(a.start) <= key(b.end) and key(b.start) <= key(a.end)


def _wrong_word(path, diag):
    """The misspelt word inside a diagnostic's range: the quoted name its message gives."""
    line = diag.range.start.line + 1
    text = line_of(path, line) or ""
    first, last = from_lsp(path, diag.range.start)[1], len(text) + 1
    if diag.range.end.line == diag.range.start.line:
        last = from_lsp(path, diag.range.end)[1]
    for word in _QUOTED.findall(diag.message.split("\n")[0]):
        spots = [m for m in re.finditer(r"(?<!\w)" + re.escape(word) + r"(?!\w)", text)
                 if first - 1 <= m.start() and m.end() <= last - 1]
        if spots:
            m = spots[-1]
            return to_lsp(path, line, m.start() + 1), to_lsp(path, line, m.end() + 1)
    return None


# ------------------------------------------------------------ rename
RENAMEABLE = ("decl", "member", "field", "modifier", "param")


class Refused(Exception):
    """A rename that cannot be done; the message says why."""


def rename(ix, path, line, col, new: str, variant_texts: dict) -> T.WorkspaceEdit:
    """Rename a rule, level or field everywhere in the rulebook's files.  ``variant_texts``
    holds the other variant files of the workspace that patch this rulebook (path -> text):
    if one of them names the old name, the rename is refused."""
    occ = ix.at(path, line, col)
    if occ is None or occ.key[0] not in RENAMEABLE:
        raise Refused("there is no rule, level or field to rename here")
    old = occ.key[-1]
    if not _IDENT.match(new) or new in grammar_keywords():
        raise Refused(f"'{new}' is not a name drillbook accepts (letters, digits and _, "
                      "not a keyword)")
    m = ix.model
    if occ.key[0] in ("decl", "member") and (new in m.decls or new in m.members):
        raise Refused(f"'{new}' is already declared in this rulebook")
    if occ.key[0] == "field" and new in m.record_types.get(occ.key[1], {}):
        raise Refused(f"{occ.key[1]} already has a field '{new}'")
    pattern = re.compile(r"(?<!\w)" + re.escape(old) + r"(?!\w)")
    for vpath, text in sorted(variant_texts.items()):
        for n, ln in enumerate(text.splitlines(), 1):
            code = ln.split("--", 1)[0]
            if pattern.search(code):
                raise Refused(f"the variant {display_path(vpath)} names '{old}' (line {n}); "
                              "renaming it here would break that variant")
    changes: dict[str, list] = {}
    seen = set()
    for o in ix.uses(occ.key):
        if o.span in seen:
            continue
        seen.add(o.span)
        changes.setdefault(uri(o.span.path), []).append(T.TextEdit(span_range(o.span), new))
    return T.WorkspaceEdit(changes=changes)


def workspace_variants(roots, base_main: str, texts: dict, cache, skip: str | None = None) -> dict:
    """The variant files under ``roots`` that patch the rulebook ``base_main`` (path -> text)."""
    from ..loader import resolve_main
    from ..variants import base_path
    found = {}
    for root in roots:
        for folder, dirs, files in os.walk(root):
            dirs[:] = [d for d in dirs if not d.startswith(".") and d != "node_modules"]
            for f in files:
                p = real(os.path.join(folder, f))
                text = text_of(p, texts) if f.endswith(".drill") and p != skip else None
                if text is None or first_word(text) != "variant":
                    continue
                try:
                    parsed = cache.parse(display_path(p), text)
                    target = real(resolve_main(base_path(parsed, p)))
                except DrillError:
                    continue
                if target == base_main:
                    found[p] = text
    return found
