"""Editor stage: completion — the names, levels, fields, keywords and dice that fit here.

``completion(ix, text, path, line, col)`` reads the text before the cursor (the editor's
live text: the last checked model may be a few keystrokes old) and offers:

- after ``x.`` the fields of x's record type (or of a check, range or verdict);
- where a level is expected (``x.level >= ``, ``in [``, an argument or a given field of an
  enum or scale type, ``set u.order to ``) the levels of that enum or scale;
- after ``roll`` the dice;
- elsewhere every name in scope, the keywords and the built-in functions.

Each item carries its label (in every language) and its section.
"""
from __future__ import annotations

import re

from lsprotocol import types as T

from .. import ast as A
from ..check.exprs import BUILTINS
from ..check.types import (BUILTIN_TYPES, CHECK_FIELDS, RANGE_FIELDS, VERDICT_FIELDS, Ty,
                           strip)
from .features import labels, section_line
from .project import real

# The reserved words, as completion offers them (tests/test_parity.py keeps this list equal
# to the grammar's keywords).  Each with what it is for.
KEYWORDS = {
    "rulebook": "the main file's header", "variant": "a variant's header", "edition": "header",
    "languages": "header", "use": "use another file", "section": "a printed section",
    "enum": "named values", "scale": "ordered levels", "record": "a record type",
    "die": "a die", "faces": "a die's faces; a board's facings (faces vertices)",
    "option": "an optional rule",
    "marker": "a footnote marker", "define": "a rule", "exception": "an exception to a rule",
    "table": "a printed table", "modifiers": "a list of die-roll modifiers",
    "combine": "how modifiers combine", "capped": "cap on the modifiers' total",
    "check": "a die-roll check", "clamped": "clamp the modified roll", "at": "at most / at least",
    "most": "at most", "least": "at least", "within": "within a range",
    "requirements": "a list of requirements", "require": "one requirement",
    "every": "for every state: a list checked on every state file read",
    "state": "for every state: a list checked on every state file read",
    "procedure": "a sequence of steps", "step": "a step", "stop": "a step that stops",
    "example": "an executable example", "given": "an example's entity",
    "expect": "an example's expectation", "source": "where a value comes from",
    "numbered": "the section's number is the rulebook's own (the source prints none)",
    "doubt": "a doubtful reading", "gap": "what the sources lack", "note": "a note",
    "when": "condition", "if": "if ... then ... else", "then": "if ... then / effects in order: A then B", "else": "else",
    "and": "both", "or": "either", "not": "negation", "in": "membership / for x in",
    "is": "is none / is not none", "none": "no value", "nothing": "no effects",
    "true": "true", "false": "false", "roll": "roll a die", "choose": "a player's choice",
    "from": "choose from / for i from", "to": "exception to / set ... to / from ... to",
    "for": "for x in list", "where": "Type x where condition", "after": "after effects: value",
    "set": "set a field", "add": "add to a field", "remove": "remove an entity",
    "of": "require x of / list of / variant of", "list": "list of Type",
    "default": "default value", "replace": "variant: replace", "with": "replace ... with",
    "drop": "variant: drop", "change": "variant: change a cell", "switch": "variant: switch",
    "board": "the rulebook's board", "hex": "board hex ...", "columns": "hex columns",
    "rows": "hex rows", "odd": "odd columns or rows lower", "even": "even columns or rows lower",
    "axial": "axial hex coordinates", "let": "let x = value: effects",
    "vertices": "board hex ... faces vertices: a unit faces a hex corner",
    "hexsides": "board hex ... faces hexsides: a unit faces a hexside",
    "each": "for each x in list: effects",
}

_CHAIN = r"[A-Za-z_]\w*(?:\([^()]*\))?(?:\.[A-Za-z_]\w*)*"
_FIELD = re.compile(r"(" + _CHAIN + r")\.(\w*)$")
_COMPARE = re.compile(r"(" + _CHAIN + r")\s*(?:==|!=|<=|>=|<|>)\s*\w*$")
_IN_LIST = re.compile(r"(" + _CHAIN + r")\s+in\s+\[[^\]]*$")
_SET = re.compile(r"\bset\s+(" + _CHAIN + r")\s+to\s+\w*$")
_ROLL = re.compile(r"\broll\s+(?:\d+\s+)?\w*$|^\s*roll\s+\w*$")
_GIVEN = re.compile(r"\bgiven\s+(\w+)\s*:\s*([A-Za-z_]\w*)")
_QUERY = re.compile(r"\b([A-Z]\w*)\s+(\w+)\s+where\b")


def completion(ix, text: str, path: str, line: int, col: int,
               only_sure: bool = False) -> T.CompletionList:
    """What may be typed at (line, col).  ``only_sure`` (a completion the editor asked for
    because a space was typed) offers only levels and dice, never the whole list."""
    lines = text.splitlines()
    current = lines[line - 1] if 0 < line <= len(lines) else ""
    before = current[: col - 1]
    above = "\n".join(lines[max(0, line - 40): line - 1] + [before])
    if ix is None or ix.model is None:
        return T.CompletionList(False, [] if only_sure else _keywords())
    m = ix.model
    where = _enclosing(m, path, line)
    if _ROLL.search(before):
        return T.CompletionList(False, [_decl_item(m, d) for d in m.decls.values()
                                        if isinstance(d, A.DieDecl)])
    found = _FIELD.search(before)
    if found:
        return T.CompletionList(False, _fields(m, _type_of(m, found.group(1), where, above)))
    for pattern in (_SET, _COMPARE, _IN_LIST):
        found = pattern.search(before)
        if found:
            ty = _type_of(m, found.group(1), where, above)
            if ty is not None and strip(ty).kind in ("enum", "union"):
                return T.CompletionList(False, _levels(m, strip(ty).name))
    ty = _argument_type(m, before)
    if ty is not None and strip(ty).kind in ("enum", "union"):
        return T.CompletionList(False, _levels(m, strip(ty).name))
    return T.CompletionList(False, [] if only_sure else _everything(m, where))


# ------------------------------------------------------------ what is here
def _enclosing(m, path, line):
    for d in list(m.decls.values()) + list(m.examples):
        loc = d.loc
        if real(loc.path) == path and loc.line <= line <= max(loc.end_line, loc.line):
            if loc.end_line == line and loc.end_col <= 3 and line > loc.line:
                continue            # the declaration ends where the next one starts
            return d
    return None


def _ty(m, tref) -> Ty | None:
    if tref is None:
        return None
    if A.number_range(tref):
        return BUILTIN_TYPES["Int"]
    if tref.name in BUILTIN_TYPES:
        base = BUILTIN_TYPES[tref.name]
    else:
        d = m.decls.get(tref.name)
        if isinstance(d, A.EnumDecl):
            base = Ty("enum", d.name)
        elif isinstance(d, A.RecordDecl):
            base = Ty("record", d.name)
        else:
            return None
    if tref.kind == "list":
        return Ty("list", inner=base)
    if tref.kind in ("union", "optional union"):
        return Ty("union", tref.name)
    return base


def _params(m, d):
    if isinstance(d, A.ExceptionDecl):
        d = m.root_of.get(d.name)
    if isinstance(d, A.RequireDecl):
        d = m.decls.get(d.list_name)
    return {p.name: p for p in getattr(d, "params", None) or []}


def _type_of(m, chain: str, where, above: str) -> Ty | None:
    """The type of ``a.b.c`` or ``rule(args).c`` at the cursor, as far as it can be told."""
    head, _, rest = chain.partition(".")
    call = re.match(r"(\w+)\(", head)
    name = call.group(1) if call else head
    ty = None
    params = _params(m, where)
    if name in params and not call:
        ty = _ty(m, params[name].type)
    elif isinstance(where, A.ExampleDecl) and any(g.name == name for g in where.givens):
        ty = Ty("record", next(g.type_name for g in where.givens if g.name == name))
    elif name in m.returns:
        ty = m.returns[name]
    elif name in m.members:
        ty = Ty("enum", m.members[name][0].name)
    else:
        for rx in (_QUERY, _GIVEN):
            for a, b in rx.findall(above):
                var, typ = (b, a) if rx is _QUERY else (a, b)
                if var == name and isinstance(m.decls.get(typ), A.RecordDecl):
                    ty = Ty("record", typ)
    for part in [p for p in rest.split(".") if p] if ty is not None else []:
        ty = _field_types(m, ty).get(part)
        if ty is None:
            return None
    return ty


def _field_types(m, ty) -> dict:
    ty = strip(ty)
    if ty.kind == "record":
        return m.record_types.get(ty.name, {})
    return {"check": CHECK_FIELDS, "range": RANGE_FIELDS, "verdict": VERDICT_FIELDS}.get(
        ty.kind, {})


def _argument_type(m, before: str) -> Ty | None:
    """The type expected at the cursor inside ``name(a, b, `` or ``Type(field = ``."""
    depth, i = 0, len(before) - 1
    while i >= 0:
        ch = before[i]
        if ch == ")":
            depth += 1
        elif ch == "(":
            if depth == 0:
                break
            depth -= 1
        i -= 1
    if i < 0:
        return None
    name = re.search(r"(\w+)\s*$", before[:i])
    inside = before[i + 1:]
    if name is None:
        return None
    d = m.decls.get(name.group(1))
    if isinstance(d, A.RecordDecl):
        field = re.search(r"(\w+)\s*=\s*\w*$", inside)
        return m.record_types.get(d.name, {}).get(field.group(1)) if field else None
    params = getattr(d, "params", None) or []
    index = _top_level_commas(inside)
    return _ty(m, params[index].type) if index < len(params) else None


def _top_level_commas(text: str) -> int:
    depth = count = 0
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "," and depth == 0:
            count += 1
    return count


# ------------------------------------------------------------ items
def _doc(*parts) -> T.MarkupContent:
    return T.MarkupContent(T.MarkupKind.Markdown, "\n\n".join(p for p in parts if p))


def _item(name, kind, what, label, sec, langs, detail="") -> T.CompletionItem:
    where = f"§{sec.number} {sec.label.text or ''}".strip() if sec is not None else ""
    return T.CompletionItem(
        label=name, kind=kind, detail=" · ".join(x for x in (what + detail, where) if x),
        label_details=T.CompletionItemLabelDetails(
            detail=f" {detail}" if detail else None,
            description=(label.text if label is not None and label.text else where) or None),
        documentation=_doc(labels(label, langs), section_line(sec, langs)))


_KIND = {A.EnumDecl: T.CompletionItemKind.Enum, A.RecordDecl: T.CompletionItemKind.Struct,
         A.TableDecl: T.CompletionItemKind.Value, A.DieDecl: T.CompletionItemKind.Constant,
         A.OptionDecl: T.CompletionItemKind.Constant}


def _decl_item(m, d) -> T.CompletionItem:
    ty = m.returns.get(d.name)
    return _item(d.name, _KIND.get(type(d), T.CompletionItemKind.Function), d.what,
                 getattr(d, "label", None), d.section, m.languages,
                 f" → {ty}" if ty is not None else "")


def _levels(m, enum_name: str) -> list:
    e = m.decls.get(enum_name)
    if not isinstance(e, A.EnumDecl):
        return []
    return [_item(x.name, T.CompletionItemKind.EnumMember, f"level of {e.name}", x.label,
                  e.section, m.languages) for x in e.members]


def _fields(m, ty) -> list:
    if ty is None:
        return []
    ty = strip(ty)
    if ty.kind == "record":
        rec = m.decls[ty.name]
        types = m.record_types.get(ty.name, {})
        return [_item(f.name, T.CompletionItemKind.Field, f"field of {rec.name}", f.label,
                      rec.section, m.languages, f": {types.get(f.name)}") for f in rec.fields]
    return [T.CompletionItem(label=k, kind=T.CompletionItemKind.Field, detail=f"{ty} {k}: {v}")
            for k, v in _field_types(m, ty).items()]


def _keywords() -> list:
    return [T.CompletionItem(label=k, kind=T.CompletionItemKind.Keyword, detail=what)
            for k, what in KEYWORDS.items()]


def _everything(m, where) -> list:
    items = [_decl_item(m, d) for d in m.decls.values()]
    for e in m.decls.values():
        if isinstance(e, A.EnumDecl):
            items += _levels(m, e.name)
    for p in _params(m, where).values():
        items.append(T.CompletionItem(label=p.name, kind=T.CompletionItemKind.Variable,
                                      detail=f"parameter of {where.name}"))
    items += [T.CompletionItem(label=b, kind=T.CompletionItemKind.Function,
                               detail="built-in function") for b in BUILTINS]
    return items + _keywords()
