"""AST: the typed tree of a rulebook, as the parse stage builds it.

Nodes carry a ``loc`` (file, line, column).  The check stage annotates expression
nodes in place (``type``, ``ref``); nothing else mutates them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .errors import Loc


# --------------------------------------------------------------------- labels & notes
@dataclass
class Label:
    text: str | None = None
    translations: dict[str, str] = field(default_factory=dict)

    def show(self, name: str, lang: str | None = None) -> str:
        if lang and lang in self.translations:
            return self.translations[lang]
        return self.text or name


@dataclass
class Annotation:
    loc: Loc
    kind: str          # source | doubt | note | gap
    text: str
    label: Label | None = None


# --------------------------------------------------------------------- expressions
@dataclass(eq=False)
class Expr:
    loc: Loc

    def __post_init__(self):
        self.type = None   # filled by the check stage
        self.ref = None    # what a name or call resolved to


@dataclass(eq=False)
class IntLit(Expr):
    value: int


@dataclass(eq=False)
class TextLit(Expr):
    value: str


@dataclass(eq=False)
class BoolLit(Expr):
    value: bool


@dataclass(eq=False)
class NoneLit(Expr):
    pass


@dataclass(eq=False)
class NothingLit(Expr):
    pass


@dataclass(eq=False)
class RangeLit(Expr):
    low: int
    high: int


@dataclass(eq=False)
class Name(Expr):
    name: str


@dataclass(eq=False)
class FieldOf(Expr):
    subject: Expr
    name: str


@dataclass(eq=False)
class Call(Expr):
    name: str
    args: list


@dataclass(eq=False)
class Query(Expr):
    """``Unit u where cond`` — an argument of count/exists/every."""
    type_name: str
    var: str
    cond: Expr


@dataclass(eq=False)
class Unary(Expr):
    op: str            # - + not
    operand: Expr


@dataclass(eq=False)
class Binary(Expr):
    op: str            # + - * == != < <= > >= and or
    left: Expr
    right: Expr


@dataclass(eq=False)
class MemberOf(Expr):
    value: Expr
    options: list


@dataclass(eq=False)
class IsNone(Expr):
    value: Expr
    negated: bool


@dataclass(eq=False)
class If(Expr):
    cond: Expr
    then: Expr
    otherwise: Expr


@dataclass(eq=False)
class ListLit(Expr):
    items: list


@dataclass
class Dice:
    loc: Loc
    count: int
    die: str


@dataclass(eq=False)
class Roll(Expr):
    dice: Dice


@dataclass(eq=False)
class SetEffect(Expr):
    target: Expr       # a FieldOf
    value: Expr


@dataclass(eq=False)
class AddEffect(Expr):
    amount: Expr
    target: Expr       # a FieldOf


@dataclass(eq=False)
class RemoveEffect(Expr):
    target: Expr


# --------------------------------------------------------------------- types
@dataclass
class TypeRef:
    loc: Loc
    kind: str          # named | optional | range | list
    name: str | None = None
    low: int | None = None
    high: int | None = None


@dataclass
class Param:
    loc: Loc
    name: str
    type: TypeRef


# --------------------------------------------------------------------- declarations
@dataclass(eq=False)
class Decl:
    loc: Loc
    name: str

    def __post_init__(self):
        self.section: Section | None = None
        self.annotations: list[Annotation] = []

    @property
    def kind(self) -> str:
        return type(self).__name__.lower()


@dataclass(eq=False)
class Member:
    loc: Loc
    name: str
    label: Label


@dataclass(eq=False)
class EnumDecl(Decl):
    label: Label
    members: list
    ordered: bool      # a scale


@dataclass(eq=False)
class FieldDecl:
    loc: Loc
    name: str
    type: TypeRef
    label: Label
    default: Expr | None = None


@dataclass(eq=False)
class RecordDecl(Decl):
    label: Label
    fields: list


@dataclass(eq=False)
class DieDecl(Decl):
    label: Label
    low: int
    high: int


@dataclass(eq=False)
class OptionDecl(Decl):
    label: Label
    default: bool


@dataclass(eq=False)
class MarkerDecl(Decl):
    mark: str
    label: Label


@dataclass(eq=False)
class Define(Decl):
    params: list | None
    returns: TypeRef | None
    label: Label
    when: Expr | None
    value: Expr | None


@dataclass(eq=False)
class ExceptionDecl(Decl):
    label: Label
    target: str
    target_loc: Loc
    when: Expr | None
    value: Expr | None


@dataclass(eq=False)
class Modifier:
    loc: Loc
    name: str
    value: Expr
    when: Expr | None
    label: Label
    annotations: list


@dataclass(eq=False)
class ModifiersDecl(Decl):
    params: list | None
    label: Label
    combine: str
    combine_loc: Loc
    cap: tuple[int, int] | None
    items: list


@dataclass(eq=False)
class CheckDecl(Decl):
    params: list | None
    label: Label
    dice: Dice
    modifier: Expr | None
    clamped: bool
    op: str            # at_most | at_least | within
    target: Expr


@dataclass(eq=False)
class Cell:
    loc: Loc
    kind: str          # int | pair | range | name | text | na | corner
    value: Any
    markers: list


@dataclass(eq=False)
class Row:
    loc: Loc
    cells: list


@dataclass(eq=False)
class TableDecl(Decl):
    params: list
    returns: TypeRef
    label: Label
    rows: list


@dataclass(eq=False)
class Given:
    loc: Loc
    name: str
    type_name: str
    type_loc: Loc
    fields: list       # [(loc, name, Expr)]


@dataclass(eq=False)
class Expectation:
    loc: Loc
    expr: Expr
    after: Expr | None = None


@dataclass(eq=False)
class ExampleDecl(Decl):
    label: Label
    givens: list
    rolls: list        # [(loc, die, [faces])]
    options: list      # [(loc, name, on)]
    expects: list


# --------------------------------------------------------------------- structure
@dataclass(eq=False)
class Section:
    loc: Loc
    number: str
    label: Label
    items: list
    annotations: list

    def cite(self, lang: str | None = None) -> str:
        return f"{self.number} {self.label.show('', lang)}".strip()


@dataclass(eq=False)
class Patch:
    loc: Loc
    kind: str          # replace | drop | add | cell | option
    target: str
    target_loc: Loc
    items: list = field(default_factory=list)
    section: str | None = None
    keys: list = field(default_factory=list)
    cell: Cell | None = None
    switch: str | None = None
    annotations: list = field(default_factory=list)


@dataclass(eq=False)
class Use:
    loc: Loc
    path: str


@dataclass(eq=False)
class Header:
    loc: Loc
    label: Label
    edition: str | None
    languages: list
    base: str | None = None      # set for a variant: path of the rulebook it patches
    annotations: list = field(default_factory=list)


@dataclass(eq=False)
class SourceFile:
    path: str
    header: Header | None
    uses: list
    sections: list
    patches: list
