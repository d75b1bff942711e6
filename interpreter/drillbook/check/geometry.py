"""Check stage: the types of the board's geometry built-ins (distance, bearing, ...).

Each built-in has a signature; some exist only on a hex map.  The board a rulebook declares
(``board hex columns odd``, ``board table cm``) decides what ``distance`` gives: a number of
hexes, or an exact table-top Distance.
"""
from __future__ import annotations

from .. import ast as A
from .types import BOOL, DISTANCE, FACING, INT, POSITION, Ty, assignable

P, F, I = POSITION, FACING, INT
LIST_P = Ty("list", inner=POSITION)

# name -> (argument types, result, hex map only, how to call it)
SIGNATURES = {
    "position": ((I, I), P, False, "position(column, row) or position(x, y)"),
    "distance": ((P, P), None, False, "distance(a, b)"),
    "adjacent": ((P, P), BOOL, True, "adjacent(a, b)"),
    "neighbours": ((P,), LIST_P, True, "neighbours(a)"),
    "hexes_within": ((P, I), LIST_P, True, "hexes_within(a, n)"),
    "direction": ((P, P), F, False, "direction(from, to)"),
    "bearing": ((P, F, P), I, False, "bearing(from, facing, to)"),
    "turn": ((F, I), F, False, "turn(facing, degrees)"),
    "step": ((P, F, I), P, True, "step(from, hexside facing, hexes)"),
    "line": ((P, P), LIST_P, True, "line(from, to)"),
}


def board_of(model):
    return next((d for d in model.decls.values() if isinstance(d, A.BoardDecl)), None)


def type_geometry(typer, e: A.Call, types: list) -> Ty:
    """The type of a call to a geometry built-in, or a located error."""
    want, result, hex_only, how = SIGNATURES[e.name]
    board = board_of(typer.model)
    if board is None:
        return typer.error(e.loc, "E321", f"{e.name}() needs a board, and this rulebook "
                           "declares none", "declare it in the section that prints the map: "
                           "board hex columns odd, or board table cm")
    if hex_only and board.grid != "hex":
        return typer.error(e.loc, "E322", f"{e.name}() works on a hex map; this board is a "
                           f"table top ({board.layout})",
                           "compare distance(a, b) with a number of "
                           f"{board.layout} instead")
    if len(e.args) != len(want):
        return typer.error(e.loc, "E305", f"{e.name} takes {len(want)} argument(s), not "
                           f"{len(e.args)}", f"write {how}")
    for arg, got, w in zip(e.args, types, want):
        if not assignable(got, w):
            typer.error(arg.loc, "E301", f"expected {w}, but this is {got}", f"write {how}")
    if e.name == "distance":
        return INT if board.grid == "hex" else DISTANCE
    return result
