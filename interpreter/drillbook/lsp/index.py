"""Editor stage: where every name of a checked rulebook is declared and used.

``build(model)`` walks the checked model — declarations, the expressions the checker
resolved (``node.ref``), type references, table cells, examples — and lists each
occurrence of a name as a ``Span`` (one line, 1-based columns, end exclusive) with a key:

    ("decl", name)              a rule, table, enum, record, die, option, marker, list...
    ("member", name)            a level of an enum or scale
    ("field", record, name)     a field of a record type
    ("modifier", list, name)    one modifier of a modifier list
    ("param", owner, name)      a parameter of a rule, table, list, check or procedure

``add_variant`` adds a variant's patches and its own items on top of its base's index, so
that a variant's names lead to the base's declarations.
"""
from __future__ import annotations

import re
from functools import lru_cache
from dataclasses import dataclass, field

from .. import ast as A
from ..check.types import strip
from ..errors import Loc
from .project import line_of, real

_BUILTIN_TYPES = {"Int", "Bool", "Text", "Range", "Effects", "Check"}
_NOT_WALKED = {"section", "annotations", "label", "type", "ref", "loc"}
_PARAMS_OF = (A.Define, A.TableDecl, A.ModifiersDecl, A.CheckDecl, A.RequirementsDecl,
              A.ProcedureDecl)


@dataclass(frozen=True)
class Span:
    path: str        # real path
    line: int
    col: int
    end: int

    def holds(self, path: str, line: int, col: int) -> bool:
        return path == self.path and line == self.line and self.col <= col <= self.end


@dataclass
class Occurrence:
    span: Span
    key: tuple
    definition: bool = False


@dataclass
class CellAt:
    span: Span
    table: A.TableDecl
    row: int
    col: int


@dataclass
class Index:
    model: object
    occurrences: list = field(default_factory=list)
    defs: dict = field(default_factory=dict)       # key -> Span
    objects: dict = field(default_factory=dict)    # key -> (AST node, its owner or None)
    cells: list = field(default_factory=list)      # [CellAt]

    def at(self, path: str, line: int, col: int) -> Occurrence | None:
        for occ in self.occurrences:
            if occ.span.holds(path, line, col):
                return occ
        return None

    def cell_at(self, path: str, line: int, col: int) -> CellAt | None:
        for c in self.cells:
            if c.span.holds(path, line, col):
                return c
        return None

    def uses(self, key) -> list:
        return [o for o in self.occurrences if o.key == key]

    # ------------------------------------------------------------ recording
    def add(self, span: Span | None, key, definition=False, obj=None, owner=None, keep=False):
        if span is None:
            return
        self.occurrences.append(Occurrence(span, key, definition))
        if definition and not (keep and key in self.defs):
            self.defs[key] = span
            self.objects[key] = (obj, owner)


def word(loc: Loc, name: str, line: int | None = None, col: int | None = None) -> Span | None:
    """Where ``name`` stands as a whole word on ``loc``'s (or the given) line, at or after
    the given column."""
    line = line or loc.line
    text = line_of(loc.path, line)
    if text is None or not name:
        return None
    start = (col or loc.col) - 1
    m = _pattern(name).search(text, max(start, 0))
    if m is None:
        return None
    return Span(real(loc.path), line, m.start() + 1, m.end() + 1)


@lru_cache(maxsize=4096)
def _pattern(name: str):
    return re.compile(r"(?<![\w])" + re.escape(name) + r"(?![\w])")


def token(loc: Loc, name: str) -> Span:
    return Span(real(loc.path), loc.line, loc.col, loc.col + len(name))


def build(model) -> Index:
    ix = Index(model)
    for sec in model.sections:
        for d in sec.items:
            declare(ix, d)
    for sec in model.sections:
        for d in sec.items:
            uses_in(ix, d)
    return ix


def add_variant(ix: Index, variant: A.SourceFile, model=None) -> Index:
    """The base's index ``ix`` with a variant's own items and patch targets added."""
    if model is not None:
        ix.model = model
    items = [i for p in variant.patches for i in p.items] + [
        d for s in variant.sections for d in s.items]
    for d in items:
        declare(ix, d, keep=True)
    for d in items:
        uses_in(ix, d)
    for p in variant.patches:
        target, _, item = p.target.partition(".")
        ix.add(word(p.target_loc, target), ("decl", target))
        if item:
            ix.add(word(p.target_loc, item), ("modifier", target, item))
        for loc, key in p.keys:
            if isinstance(key, str) and key in ix.model.members:
                ix.add(word(loc, key), ("member", key))
    return ix


# ------------------------------------------------------------ declarations
def declare(ix: Index, d, keep=False) -> None:
    if isinstance(d, A.ExampleDecl):
        return
    ix.add(word(d.loc, d.name), ("decl", d.name), True, d, None, keep)
    if isinstance(d, A.EnumDecl):
        for m in d.members:
            ix.add(token(m.loc, m.name), ("member", m.name), True, m, d, keep)
    elif isinstance(d, A.RecordDecl):
        for f in d.fields:
            ix.add(token(f.loc, f.name), ("field", d.name, f.name), True, f, d, keep)
    elif isinstance(d, A.ModifiersDecl):
        for m in d.items:
            ix.add(token(m.loc, m.name), ("modifier", d.name, m.name), True, m, d, keep)
    for p in getattr(d, "params", None) or [] if isinstance(d, _PARAMS_OF) else []:
        ix.add(token(p.loc, p.name), ("param", d.name, p.name), True, p, d, keep)


# ------------------------------------------------------------ uses
def _params_owner(model, d):
    """The declaration whose parameters ``d``'s expressions see."""
    if isinstance(d, A.ExceptionDecl):
        root = model.root_of.get(d.name)
        return _params_owner(model, root) if root is not None else None
    if isinstance(d, A.RequireDecl):
        return model.decls.get(d.list_name)
    return d if isinstance(d, _PARAMS_OF) else None


def uses_in(ix: Index, d) -> None:
    m = ix.model
    owner = _params_owner(m, d)
    params = {p.name for p in getattr(owner, "params", None) or []} if owner else set()
    for t in _typerefs(d):
        if t.name and t.name not in _BUILTIN_TYPES and t.name in m.decls:
            ix.add(word(t.loc, t.name), ("decl", t.name))
    if isinstance(d, A.ExceptionDecl):
        ix.add(token(d.target_loc, d.target), ("decl", d.target))
    if isinstance(d, A.RequireDecl):
        ix.add(token(d.list_loc, d.list_name), ("decl", d.list_name))
    if isinstance(d, A.TableDecl):
        _cells(ix, d)
    if isinstance(d, A.ExampleDecl):
        _example(ix, d)
    if isinstance(d, A.CheckDecl):
        ix.add(word(d.dice.loc, d.dice.die), ("decl", d.dice.die))
    for e in _exprs(d):
        _expr(ix, e, owner, params)


def _typerefs(d):
    for p in getattr(d, "params", None) or []:
        yield p.type
    if getattr(d, "returns", None) is not None:
        yield d.returns
    for f in d.fields if isinstance(d, A.RecordDecl) else []:
        yield f.type


def _exprs(obj):
    """Every expression node held by a declaration (its rules, modifiers, steps, examples)."""
    for k, value in vars(obj).items():
        if k not in _NOT_WALKED:
            yield from _within(value)


def _within(value):
    if isinstance(value, A.Expr):
        yield from A.walk(value)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _within(item)
    elif isinstance(value, (A.Modifier, A.Step, A.Given, A.Expectation, A.FieldDecl)):
        yield from _exprs(value)


def _expr(ix: Index, e, owner, params) -> None:
    m = ix.model
    ref = e.ref
    if isinstance(e, A.Name):
        if isinstance(ref, tuple) and ref[0] == "member":
            ix.add(token(e.loc, e.name), ("member", e.name))
        elif isinstance(ref, tuple) and ref[0] == "local":
            if e.name in params:
                ix.add(token(e.loc, e.name), ("param", owner.name, e.name))
        elif e.name in m.decls and (ref is None or ref[0] in ("rule", "option", "requirement")):
            ix.add(token(e.loc, e.name), ("decl", e.name))
    elif isinstance(e, A.Call):
        if e.name in m.decls and not (isinstance(ref, tuple) and ref[0] == "builtin"):
            ix.add(token(e.loc, e.name), ("decl", e.name))
    elif isinstance(e, A.FieldOf):
        if isinstance(ref, tuple) and ref[0] == "record" and e.loc.end_line:
            end = e.loc.end_col
            ix.add(Span(real(e.loc.path), e.loc.end_line, end - len(e.name), end),
                   ("field", ref[1], e.name))
    elif isinstance(e, A.Roll):
        ix.add(word(e.dice.loc, e.dice.die), ("decl", e.dice.die))
    elif isinstance(e, A.Query) and e.type_name in m.decls:
        ix.add(word(e.loc, e.type_name), ("decl", e.type_name))


def _cells(ix: Index, t: A.TableDecl) -> None:
    m = ix.model
    layout = m.tables.get(t.name)
    record = None
    if layout is not None and layout.shape == "chart":
        res = strip(layout.result)
        record = res.name if res.kind == "record" else None
    for i, row in enumerate(t.rows):
        for j, cell in enumerate(row.cells):
            span = Span(real(cell.loc.path), cell.loc.line, cell.loc.col,
                        max(cell.loc.end_col, cell.loc.col + 1) if cell.loc.end_line ==
                        cell.loc.line else cell.loc.col + 1)
            ix.cells.append(CellAt(span, t, i, j))
            if cell.kind != "name":
                continue
            if i == 0 and record and cell.value in m.record_types.get(record, {}):
                ix.add(token(cell.loc, cell.value), ("field", record, cell.value))
            elif cell.value in m.members:
                ix.add(token(cell.loc, cell.value), ("member", cell.value))


def _example(ix: Index, ex: A.ExampleDecl) -> None:
    m = ix.model
    for g in ex.givens:
        if g.type_name in m.decls:
            ix.add(word(g.type_loc, g.type_name), ("decl", g.type_name))
        for loc, name, _ in g.fields:
            ix.add(token(loc, name), ("field", g.type_name, name))
    for loc, die, _ in ex.rolls:
        if die in m.decls:
            ix.add(word(loc, die), ("decl", die))
    for loc, name, _ in ex.options:
        if name in m.decls:
            ix.add(word(loc, name, col=loc.col + len("option")), ("decl", name))
