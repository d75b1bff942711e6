"""Check stage: the types of drillbook values, as the checker reasons about them."""
from __future__ import annotations

from dataclasses import dataclass

from .. import ast as A
from ..geometry import Facings


@dataclass(frozen=True, slots=True)
class Ty:
    kind: str                 # int bool text range effects check none any enum record opt list
    name: str | None = None   # enum or record name
    inner: "Ty | None" = None

    def __reduce__(self):       # a cached model unpickles quickly
        return Ty, (self.kind, self.name, self.inner)

    def __str__(self) -> str:
        if self.kind in ("enum", "record"):
            return self.name
        if self.kind == "opt":
            return f"{self.inner}?"
        if self.kind == "list":
            return f"list of {self.inner}"
        if self.kind == "union":
            return f"Int or {self.name}"
        return {"int": "Int", "bool": "Bool", "text": "Text", "range": "Range",
                "effects": "Effects", "check": "Check", "verdict": "Verdict", "none": "none",
                "position": "Position", "facing": "Facing", "distance": "Distance",
                "any": "?"}[self.kind]


INT = Ty("int")
BOOL = Ty("bool")
TEXT = Ty("text")
RANGE = Ty("range")
EFFECTS = Ty("effects")
CHECK = Ty("check")
VERDICT = Ty("verdict")
NONE = Ty("none")
ANY = Ty("any")
POSITION = Ty("position")     # a hex of the map, or a point of the table top
FACING = Ty("facing")         # degrees clockwise from the top of the board
DISTANCE = Ty("distance")     # an exact table-top distance (on a hex map distances are Int)

BUILTIN_TYPES = {"Int": INT, "Bool": BOOL, "Text": TEXT, "Range": RANGE, "Effects": EFFECTS,
                 "Check": CHECK, "Position": POSITION, "Facing": FACING,
                 "Direction": FACING}

# the fields a check result offers to rules (see docs/language.md, "Checks")
CHECK_FIELDS = {"passed": BOOL, "failed": BOOL, "roll": INT, "total": INT,
                "passed_by": INT, "failed_by": INT, "rolled": BOOL,
                "taken": BOOL}
RANGE_FIELDS = {"low": INT, "high": INT, "empty": BOOL}
VERDICT_FIELDS = {"allowed": BOOL, "refused": BOOL, "violations": INT}


def strip(t: Ty) -> Ty:
    return t.inner if t.kind == "opt" else t


def assignable(value: Ty, target: Ty) -> bool:
    """May a value of type ``value`` stand where ``target`` is expected?"""
    if value.kind == "any" or target.kind == "any":
        return True
    if value.kind == "none":
        return target.kind == "opt"
    if target.kind == "opt":
        return assignable(strip(value), target.inner)
    if value.kind == "opt":       # checked at run time: none here stops with a located error
        return assignable(value.inner, target)
    if value.kind == "list" and target.kind == "list":
        return assignable(value.inner, target.inner)
    if target.kind == "union":          # Int or Words: a number or one of the words
        return value.kind == "int" or (value.kind in ("enum", "union") and
                                        value.name == target.name)
    if value.kind == "union":           # used as a number: a word there stops, located
        return target.kind == "int"
    if target.kind == "effects" and value.kind == "list":
        return value.inner.kind in ("effects", "any")
    if target.kind == "facing" and value.kind == "int":   # a number of degrees
        return True
    return value.kind == target.kind and value.name == target.name


def join(a: Ty, b: Ty) -> Ty | None:
    """The type of ``if c then a else b``; None when they cannot meet."""
    if a.kind == "any":
        return b
    if b.kind == "any":
        return a
    if a.kind == "none":
        return b if b.kind == "opt" else Ty("opt", inner=b)
    if b.kind == "none":
        return a if a.kind == "opt" else Ty("opt", inner=a)
    if strip(a) == strip(b):
        return a if a.kind == "opt" else b
    sa, sb = strip(a), strip(b)
    if {sa.kind, sb.kind} == {"facing", "int"}:
        return FACING
    if sa.kind == "list" and sb.kind == "list":      # [] meets a list of anything
        inner = join(sa.inner, sb.inner)
        if inner is None:
            return None
        both = Ty("list", inner=inner)
        return Ty("opt", inner=both) if "opt" in (a.kind, b.kind) else both
    for u, other in ((sa, sb), (sb, sa)):
        if u.kind == "union" and (other.kind == "int" or (other.kind == "enum" and
                                                           other.name == u.name)):
            return u
    return None


def field_bound(board, f, ty: Ty, decls=None):
    """What a field or a rule's parameter f (declared ``f.type``, of checked type ty) may
    hold, or None: its range of numbers (``1..40``, ``1..40?``), the faces of a die it is
    typed as (``face: d10``, given the model's ``decls``), or on a board (a
    ``geometry.Board``) the facings of a Facing (a counter's: the board's ``faces`` holds)
    or Direction (any direction of the map)."""
    if A.number_range(f.type):
        return A.number_range(f.type)
    die = decls.get(f.type.name) if decls is not None and f.type.kind == "named" else None
    if isinstance(die, A.DieDecl):
        return die.low, die.high
    if board is not None and strip(ty).kind == "facing":
        return Facings(board, f.type.name != "Direction")
    return None


def bound_problem(lim, n) -> str | None:
    """Why the number n cannot be given to what is bounded by lim (see field_bound)."""
    if isinstance(lim, tuple):
        return None if lim[0] <= n <= lim[1] else f"outside {lim[0]}..{lim[1]}"
    return lim(n)
