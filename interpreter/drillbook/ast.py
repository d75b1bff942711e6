"""AST: the typed tree of a rulebook, as the parse stage builds it.

Nodes carry a ``loc`` (file, line, column).  The check stage annotates expression
nodes in place (``type``, ``ref``); nothing else mutates them.
"""
from __future__ import annotations

from types import CodeType, FunctionType
from typing import Any

from .errors import Loc

_MISSING = object()


class fresh:
    """A field's default made anew for each node: ``annotations: list = fresh(list)``."""
    __slots__ = ("factory",)

    def __init__(self, factory):
        self.factory = factory


def node(cls=None, *, eq: bool = False):
    """A node class from its annotated fields, as ``dataclasses.dataclass`` would make it
    (base fields first, ``__init__`` in field order, ``__post_init__`` called), for less
    import time: every command imports this module, and a rulebook read from the cache
    builds no node by ``__init__``, which is written when a class is first instantiated.
    Nodes compare by identity unless ``eq``, which compares their fields (and makes them
    unhashable)."""
    def build(cls):
        names = list(getattr(cls, "_node_fields", ()))
        defaults = dict(getattr(cls, "_node_defaults", {}))
        for name in cls.__dict__.get("__annotations__", {}):
            if name not in names:
                names.append(name)
            if name in cls.__dict__:
                defaults[name] = cls.__dict__[name]
                if isinstance(defaults[name], fresh):
                    delattr(cls, name)
        cls._node_fields, cls._node_defaults = tuple(names), defaults

        def first(self, *args, **kwargs):
            cls.__init__ = _init(cls)
            cls.__init__(self, *args, **kwargs)
        cls.__init__ = first
        if "__repr__" not in cls.__dict__:
            cls.__repr__ = _repr
        if eq:
            cls.__eq__, cls.__hash__ = _eq, None
        return cls
    return build if cls is None else build(cls)


def _init(cls):
    env, params, body, given = {"_M": _MISSING}, [], [], []
    for name in cls._node_fields:
        default = cls._node_defaults.get(name, _MISSING)
        if default is _MISSING:
            params.append(name)
            body.append(f"self.{name} = {name}")
        elif isinstance(default, fresh):
            env[f"_f_{name}"] = default.factory
            params.append(f"{name}=_M")
            given.append(_MISSING)
            body.append(f"self.{name} = _f_{name}() if {name} is _M else {name}")
        else:
            params.append(f"{name}=_M")
            given.append(default)
            body.append(f"self.{name} = {name}")
    if hasattr(cls, "__post_init__"):
        body.append("self.__post_init__()")
    src = f"def __init__(self, {', '.join(params)}):\n    " + "\n    ".join(body)
    code = compile(src, f"<{cls.__name__} fields>", "exec")
    init = FunctionType(next(c for c in code.co_consts if isinstance(c, CodeType)), env,
                        "__init__", tuple(given) or None)
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    return init


def node_fields(value) -> tuple | None:
    """The field names of an AST node, in order; None for anything else."""
    return None if isinstance(value, type) else getattr(type(value), "_node_fields", None)


def _repr(self):
    return f"{type(self).__name__}({', '.join(f'{n}={getattr(self, n)!r}' for n in self._node_fields)})"


def _eq(self, other):
    if other.__class__ is not self.__class__:
        return NotImplemented
    return all(getattr(self, n) == getattr(other, n) for n in self._node_fields)


# --------------------------------------------------------------------- labels & notes
@node(eq=True)
class Label:
    text: str | None = None
    translations: dict[str, str] = fresh(dict)

    def show(self, name: str, lang: str | None = None) -> str:
        if lang and lang in self.translations:
            return self.translations[lang]
        return self.text or name


@node(eq=True)
class Annotation:
    loc: Loc
    kind: str          # source | doubt | note | gap | numbered
    text: str
    label: Label | None = None


# --------------------------------------------------------------------- expressions
@node
class Expr:
    loc: Loc

    def __post_init__(self):
        deepest = 0
        for value in self.__dict__.values():
            if isinstance(value, Expr):
                if value.depth > deepest:
                    deepest = value.depth
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, Expr) and item.depth > deepest:
                        deepest = item.depth
        self.type = None   # filled by the check stage
        self.ref = None    # what a name or call resolved to
        self.depth = deepest + 1


@node
class IntLit(Expr):
    value: int


@node
class TextLit(Expr):
    value: str


@node
class BoolLit(Expr):
    value: bool


@node
class NoneLit(Expr):
    pass


@node
class NothingLit(Expr):
    pass


@node
class RangeLit(Expr):
    low: int
    high: int


@node
class Name(Expr):
    name: str


@node
class FieldOf(Expr):
    subject: Expr
    name: str


@node
class Call(Expr):
    name: str
    args: list


@node
class Query(Expr):
    """``Unit u where cond`` — an argument of count/exists/every."""
    type_name: str
    var: str
    cond: Expr


@node
class Each(Expr):
    """``EXPR for x in LIST if COND`` or ``EXPR for i from A to B if COND`` — an argument
    of sum/first/every/some."""
    element: Expr
    var: str
    low: Expr | None       # a range low..high ...
    high: Expr | None
    items: Expr | None     # ... or a list
    cond: Expr | None


@node
class Index(Expr):
    subject: Expr
    index: Expr


@node
class Unary(Expr):
    op: str            # - + not
    operand: Expr


@node
class Binary(Expr):
    op: str            # + - * == != < <= > >= and or
    left: Expr
    right: Expr


@node
class MemberOf(Expr):
    value: Expr
    options: list


@node
class InList(Expr):
    """``x in some_list`` — membership in a list worked out at run time."""
    value: Expr
    items: Expr


@node
class IsNone(Expr):
    value: Expr
    negated: bool


@node
class If(Expr):
    cond: Expr
    then: Expr
    otherwise: Expr


@node
class ListLit(Expr):
    items: list


@node(eq=True)
class Dice:
    loc: Loc
    count: int
    die: str


@node
class Roll(Expr):
    dice: Dice


@node
class Choose(Expr):
    """``choose NAME from options``: a player's choice, an input like a die."""
    name: str
    options: Expr      # a list, or a Query over the state


@node
class After(Expr):
    """``after EFFECTS: EXPR`` — EXPR asked of the state the effects produce."""
    effects: Expr
    then: Expr


@node
class SetEffect(Expr):
    target: Expr       # a FieldOf
    value: Expr


@node
class AddEffect(Expr):
    amount: Expr
    target: Expr       # a FieldOf


@node
class RemoveEffect(Expr):
    target: Expr


@node
class Then(Expr):
    """``first then rest`` — effects in order: ``rest`` is worked out on the state ``first``
    leaves; the value is first's effects followed by rest's."""
    first: Expr
    rest: Expr


@node
class Let(Expr):
    """``let name = value: body`` — a local name for a value worked out once."""
    var: str
    value: Expr
    body: Expr


@node
class ForEach(Expr):
    """``for each Type x where cond: body`` or ``for each x in list: body`` — the body's
    effects for each thing in turn, each body on the state the ones before it left."""
    var: str
    type_name: str | None   # the query form ...
    cond: Expr | None
    items: Expr | None      # ... or the list form
    body: Expr


@node
class ListEach(Expr):
    """``[element for x in list if cond]`` — a list built from another."""
    each: Expr              # an Each


# --------------------------------------------------------------------- types
@node(eq=True)
class TypeRef:
    loc: Loc
    kind: str          # named | optional | range | optional range | list | union | optional union
    name: str | None = None
    low: int | None = None
    high: int | None = None


@node(eq=True)
class Param:
    loc: Loc
    name: str
    type: TypeRef


# --------------------------------------------------------------------- declarations
@node
class Decl:
    loc: Loc
    name: str

    def __post_init__(self):
        self.section: Section | None = None
        self.annotations: list[Annotation] = []

    @property
    def kind(self) -> str:
        return type(self).__name__.lower()

    @property
    def what(self) -> str:
        """What a rules author calls this kind of declaration."""
        if isinstance(self, EnumDecl):
            return "scale" if self.ordered else "enum"
        return _WHAT.get(type(self).__name__, "declaration")

    @property
    def a_what(self) -> str:
        """The same with its article: 'an option', 'a rule'."""
        return ("an " if self.what[0] in "aeiou" else "a ") + self.what


@node
class Member:
    loc: Loc
    name: str
    label: Label


@node
class EnumDecl(Decl):
    label: Label
    members: list
    ordered: bool      # a scale


@node
class FieldDecl:
    loc: Loc
    name: str
    type: TypeRef
    label: Label
    default: Expr | None = None


@node
class RecordDecl(Decl):
    label: Label
    fields: list


@node
class DieDecl(Decl):
    label: Label
    low: int
    high: int


@node
class OptionDecl(Decl):
    label: Label
    default: bool


@node
class MarkerDecl(Decl):
    mark: str
    label: Label


@node
class BoardDecl(Decl):
    """The board positions are on: ``board hex columns odd`` or ``board table cm``."""
    label: Label
    grid: str               # hex | table
    layout: str             # axial | columns-odd | columns-even | rows-odd | rows-even | the unit
    faces: str | None = None  # a hex map's facings: vertices | hexsides | None (either)


@node
class Define(Decl):
    params: list | None
    returns: TypeRef | None
    label: Label
    when: Expr | None
    value: Expr | None


@node
class ExceptionDecl(Decl):
    label: Label
    target: str
    target_loc: Loc
    when: Expr | None
    value: Expr | None


@node
class Modifier:
    loc: Loc
    name: str
    value: Expr
    when: Expr | None
    label: Label
    annotations: list


@node
class ModifiersDecl(Decl):
    params: list | None
    label: Label
    combine: str
    combine_loc: Loc
    cap: tuple[int, int] | None
    items: list


@node
class CheckDecl(Decl):
    params: list | None
    label: Label
    dice: Dice
    modifier: Expr | None
    clamped: bool
    op: str            # at_most | at_least | within
    target: Expr
    when: Expr | None = None   # the check is taken only when this holds (else: not taken)


@node
class RequirementsDecl(Decl):
    params: list | None
    label: Label
    every_state: bool = False      # checked on every thing of a state file read (W702)


@node
class RequireDecl(Decl):
    """One requirement: a Bool rule that says whether it is satisfied."""
    list_name: str
    list_loc: Loc
    label: Label
    when: Expr | None
    value: Expr | None

    @property
    def params(self):
        return getattr(self, "_params", None)


@node
class Step:
    loc: Loc
    name: str
    label: Label
    when: Expr | None
    value: Expr | None
    stop: bool = False
    annotations: list = fresh(list)


@node
class ProcedureDecl(Decl):
    params: list | None
    label: Label
    steps: list


@node
class Cell:
    loc: Loc
    kind: str          # int | pair | range | name | set | text | na | corner
    value: Any
    markers: list
    annotations: list = fresh(list)   # notes under its row naming its column
    plus: bool = False                # a number printed with its '+' sign (+1)


@node
class Row:
    loc: Loc
    cells: list
    annotations: list = fresh(list)   # notes under the row, of the whole row


@node
class TableDecl(Decl):
    params: list
    returns: TypeRef
    label: Label
    rows: list


@node
class Given:
    loc: Loc
    name: str
    type_name: str
    type_loc: Loc
    fields: list       # [(loc, name, Expr)]


@node
class Expectation:
    loc: Loc
    expr: Expr


@node
class ExampleDecl(Decl):
    label: Label
    givens: list
    rolls: list        # [(loc, die, [faces])]
    options: list      # [(loc, name, on)]
    expects: list
    choices: list = fresh(list)   # [(loc, name, [Expr])]


# --------------------------------------------------------------------- structure
_WHAT = {"Define": "rule", "ExceptionDecl": "exception", "RecordDecl": "record type",
         "DieDecl": "die", "OptionDecl": "option", "BoardDecl": "board", "MarkerDecl": "footnote marker",
         "ModifiersDecl": "modifier list", "CheckDecl": "check", "TableDecl": "table",
         "ExampleDecl": "example", "RequirementsDecl": "list of requirements",
         "RequireDecl": "requirement", "ProcedureDecl": "procedure"}

MAX_DEPTH = 60     # how deeply expressions may nest (a long a + b + c ... counts each +)


@node
class Section:
    loc: Loc
    number: str
    label: Label
    items: list
    annotations: list

    def cite(self, lang: str | None = None) -> str:
        return f"{self.number} {self.label.show('', lang)}".strip()

    @property
    def numbered_by_rulebook(self) -> str | None:
        """Why the number is the rulebook's own (the source prints none), or None."""
        return next((a.text for a in self.annotations if a.kind == "numbered"), None)


@node
class Patch:
    loc: Loc
    kind: str          # replace | drop | add | cell | option
    target: str
    target_loc: Loc
    items: list = fresh(list)
    section: str | None = None
    keys: list = fresh(list)
    cell: Cell | None = None
    switch: str | None = None
    annotations: list = fresh(list)


@node
class Use:
    loc: Loc
    path: str


@node
class Header:
    loc: Loc
    label: Label
    edition: str | None
    languages: list
    base: str | None = None      # set for a variant: path of the rulebook it patches
    annotations: list = fresh(list)


@node
class SourceFile:
    path: str
    header: Header | None
    uses: list
    sections: list
    patches: list


# --------------------------------------------------------------------- back to text
_PREC = {"or": 1, "and": 2, "==": 4, "!=": 4, "<": 4, "<=": 4, ">": 4, ">=": 4,
         "+": 5, "-": 5, "*": 6}


def to_source(e, prec: int = -1) -> str:
    """An expression written back as drillbook source (used by diff and fmt)."""
    if isinstance(e, IntLit):
        return str(e.value)
    if isinstance(e, TextLit):
        return '"' + e.value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(e, BoolLit):
        return "true" if e.value else "false"
    if isinstance(e, NoneLit):
        return "none"
    if isinstance(e, NothingLit):
        return "nothing"
    if isinstance(e, RangeLit):
        return f"{e.low}..{e.high}"
    if isinstance(e, Name):
        return e.name
    if isinstance(e, FieldOf):
        return f"{to_source(e.subject, 9)}.{e.name}"
    if isinstance(e, Call):
        return f"{e.name}({', '.join(to_source(a) for a in e.args)})"
    if isinstance(e, Query):
        return f"{e.type_name} {e.var} where {to_source(e.cond)}"
    if isinstance(e, Each):
        src = (f"from {to_source(e.low, 5)} to {to_source(e.high, 5)}" if e.items is None
               else f"in {to_source(e.items)}")
        cond = f" if {to_source(e.cond)}" if e.cond is not None else ""
        return f"{to_source(e.element)} for {e.var} {src}{cond}"
    if isinstance(e, Index):
        return f"{to_source(e.subject, 9)}[{to_source(e.index)}]"
    if isinstance(e, Unary):
        text = f"not {to_source(e.operand, 3)}" if e.op == "not" else f"-{to_source(e.operand, 7)}"
        return _paren(text, 3 if e.op == "not" else 7, prec)
    if isinstance(e, Binary):
        p = _PREC[e.op]
        return _paren(f"{to_source(e.left, p)} {e.op} {to_source(e.right, p + 1)}", p, prec)
    if isinstance(e, MemberOf):
        return _paren(f"{to_source(e.value, 5)} in [{', '.join(to_source(o) for o in e.options)}]",
                      4, prec)
    if isinstance(e, InList):
        return _paren(f"{to_source(e.value, 5)} in {to_source(e.items, 9)}", 4, prec)
    if isinstance(e, IsNone):
        return _paren(f"{to_source(e.value, 5)} is {'not ' if e.negated else ''}none", 4, prec)
    if isinstance(e, If):
        return _paren(f"if {to_source(e.cond, 0)} then {to_source(e.then, 0)} else "
                      f"{to_source(e.otherwise, 0)}", 0, prec)
    if isinstance(e, ListLit):
        return "[" + ", ".join(to_source(i) for i in e.items) + "]"
    if isinstance(e, Roll):
        count = f"{e.dice.count} " if e.dice.count != 1 else ""
        return f"roll {count}{e.dice.die}"
    if isinstance(e, After):
        return _paren(f"after {to_source(e.effects, 0)}: {to_source(e.then, 0)}", 0, prec)
    if isinstance(e, Choose):
        return _paren(f"choose {e.name} from {to_source(e.options)}", 0, prec)
    if isinstance(e, SetEffect):
        return _paren(f"set {to_source(e.target, 9)} to {to_source(e.value, 0)}", 0, prec)
    if isinstance(e, AddEffect):
        return _paren(f"add {to_source(e.amount, 5)} to {to_source(e.target, 9)}", 0, prec)
    if isinstance(e, RemoveEffect):
        return _paren(f"remove {to_source(e.target, 9)}", 0, prec)
    if isinstance(e, Then):
        return _paren(f"{to_source(e.first, 0)} then {to_source(e.rest)}", -1, prec)
    if isinstance(e, Let):
        return _paren(f"let {e.var} = {to_source(e.value, 0)}: {to_source(e.body)}", -1, prec)
    if isinstance(e, ForEach):
        src = (f"{e.type_name} {e.var} where {to_source(e.cond, 0)}" if e.type_name is not None
               else f"{e.var} in {to_source(e.items, 0)}")
        return _paren(f"for each {src}: {to_source(e.body)}", -1, prec)
    if isinstance(e, ListEach):
        return f"[{to_source(e.each)}]"
    raise TypeError(type(e).__name__)


def type_source(t: TypeRef) -> str:
    """A declared type written back as the source writes it."""
    if t.kind == "range":
        return f"{t.low}..{t.high}"
    if t.kind == "optional range":
        return f"{t.low}..{t.high}?"
    if t.kind == "optional":
        return f"{t.name}?"
    if t.kind == "list":
        return f"list of {t.name}"
    if t.kind == "union":
        return f"Int or {t.name}"
    if t.kind == "optional union":
        return f"Int or {t.name}?"
    return t.name


def optional_type(t: TypeRef) -> bool:
    """Whether a declared type lets the value be none."""
    return t.kind in ("optional", "optional range", "optional union")


def literal_int(e) -> int | None:
    """The number an expression writes directly (``13``, ``-3``), or None."""
    sign = 1
    while isinstance(e, Unary) and e.op in ("+", "-"):
        sign, e = (-sign if e.op == "-" else sign), e.operand
    return sign * e.value if isinstance(e, IntLit) and not isinstance(e.value, bool) else None


def number_range(t: TypeRef) -> tuple[int, int] | None:
    """The bounds of a declared range of numbers (`1..40`, `1..40?`), or None."""
    return (t.low, t.high) if t.kind in ("range", "optional range") else None


def cell_source(cell: Cell) -> str:
    """A table cell written back as the chart prints it, footnote markers included."""
    if cell.kind == "na":
        text = "—"
    elif cell.kind == "empty":
        text = ""
    elif cell.kind == "range":
        text = f"{cell.value[0]}-{cell.value[1]}"
    elif cell.kind == "pair":
        text = "/".join(f"{v:+d}" for v in cell.value)
    elif cell.kind == "corner":
        text = f"{cell.value[0]} \\ {cell.value[1]}"
    elif cell.kind == "set":
        text = " or ".join(cell.value)
    elif cell.kind == "text":
        text = '"' + cell.value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    elif cell.kind == "int" and cell.plus:
        text = f"+{cell.value}"
    else:
        text = str(cell.value)
    return text + "".join(cell.markers)


def _paren(text: str, own: int, outer: int) -> str:
    return f"({text})" if own < outer else text


def walk(e):
    """Every expression node under ``e``, ``e`` first (each node before the nodes under
    it, in the order of its fields)."""
    stack = [e]
    pop, push = stack.pop, stack.append
    while stack:
        e = pop()
        yield e
        fields = e.__dict__
        if fields.get("depth") == 1:            # a leaf: nothing under it
            continue
        kids = None
        for value in fields.values():
            if isinstance(value, Expr):
                if kids is None:
                    kids = [value]
                else:
                    kids.append(value)
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, Expr):
                        if kids is None:
                            kids = [item]
                        else:
                            kids.append(item)
        if kids is not None:
            if len(kids) == 1:
                push(kids[0])
            else:
                stack.extend(reversed(kids))
