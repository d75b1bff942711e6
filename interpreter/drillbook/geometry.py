"""Evaluate stage, geometry: positions, facings and distances on a rulebook's board.

Pure mathematics and nothing about any game: a hex grid as a map prints it (columns or rows,
odd or even ones shifted half a hex, or axial coordinates), or a table top measured in some
unit.  Directions and facings are degrees clockwise from the top of the board (north = 0).
Table-top distances are exact: a ``Distance`` keeps its square as a fraction, so "within
15 cm" is decided without rounding.
"""
from __future__ import annotations

import math
import operator
from fractions import Fraction

SQRT3 = math.sqrt(3)
MAX_RING = 20            # hexes_within(a, n): n at most this (a bounded amount of work)

# axial (q, r) steps to the six neighbours, clockwise from the top of the board
_FLAT = ((0, -1), (1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0))       # 0, 60, ..., 300
_POINTY = ((1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1))      # 30, 90, ..., 330


class Facings:
    """The facings a field may hold on a board, as a bound: called with a number, it says
    why the number is not one (None when it is). Equal for equal boards."""
    __slots__ = ("board", "counter")

    def __init__(self, board: "Board", counter: bool):
        self.board, self.counter = board, counter

    def __call__(self, n) -> str | None:
        return self.board.facing_problem(n, self.counter)

    def _key(self):
        return self.board.grid, self.board.layout, self.board.faces, self.counter

    def __eq__(self, other):
        return isinstance(other, Facings) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return f"Facings{self._key()!r}"


def _listed(numbers) -> str:
    return ", ".join(map(str, numbers))


class Board:
    """How the board's printed coordinates map to geometry."""
    __slots__ = ("grid", "layout", "flat", "label", "faces")

    def __init__(self, grid: str, layout: str, label=None, faces: str | None = None):
        self.grid, self.layout, self.label, self.faces = grid, layout, label, faces
        self.flat = not layout.startswith("rows")

    @classmethod
    def declared(cls, decl) -> "Board":
        """The board a rulebook's ``board`` line declares."""
        return cls(decl.grid, decl.layout, decl.label, decl.faces)

    def facing_problem(self, n, counter: bool = True) -> str | None:
        """Why n is not a facing a counter on this board can have (``counter``; a Facing
        field), or not a direction on it (a Direction field); None when it is one.
        Degrees 0..359; on a hex map a hexside or a vertex, and for a counter the one the
        board's ``faces`` names when it names one."""
        if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= 359:
            return ("a facing is a whole number of degrees 0..359, clockwise from the top of "
                    f"the board, not {n!r}")
        if not self.hexes:
            return None
        if n % 30:
            return ("on a hex map a facing points at a hexside or a vertex: a multiple of 30 "
                    f"degrees, not {n}")
        if not counter:
            return None
        hexside = self.hexside_step(n) is not None
        if self.faces == "vertices" and hexside:
            return (f"on this map a unit faces a hex vertex ({_listed(self.facings())}); "
                    f"{n} points at a hexside")
        if self.faces == "hexsides" and not hexside:
            return (f"on this map a unit faces a hexside ({_listed(self.facings())}); "
                    f"{n} points at a vertex")
        return None

    def facings(self, counter: bool = True) -> list[int] | None:
        """The facings a counter may have here (``counter``), or the directions; None on a
        table top, where every degree is one."""
        if not self.hexes:
            return None
        faces = self.faces if counter else None
        first = 0 if self.flat else 30
        if faces == "vertices":
            first = 30 - first
        step = 30 if faces is None else 60
        return list(range(first % step, 360, step))

    @property
    def hexes(self) -> bool:
        return self.grid == "hex"

    # ---------------------------------------------------------------- positions
    def position(self, a, b) -> "Hex | Point":
        """The position printed (a, b): column and row of a hex, or x and y on a table."""
        if not self.hexes:
            return Point(Fraction(a), Fraction(b))
        col, row = int(a), int(b)
        if self.layout == "axial":
            return Hex(col, row, self)
        lines, parity = self.layout.split("-")
        if lines == "columns":
            return Hex(col, row - _shift(col, parity), self)
        return Hex(col - _shift(row, parity), row, self)

    def printed(self, h: "Hex") -> tuple[int, int]:
        """The column and row the map prints for a hex."""
        if self.layout == "axial":
            return h.q, h.r
        lines, parity = self.layout.split("-")
        if lines == "columns":
            return h.q, h.r + _shift(h.q, parity)
        return h.q + _shift(h.r, parity), h.r

    def centre(self, p) -> tuple[float, float]:
        """Where a position is, in board units, x to the right and y down the board (a
        table top measures y up the table, from the edge nearest the reader)."""
        if isinstance(p, Point):
            return float(p.x), -float(p.y)
        if self.flat:
            return 1.5 * p.q, SQRT3 * (p.r + p.q / 2)
        return SQRT3 * (p.q + p.r / 2), 1.5 * p.r

    # ---------------------------------------------------------------- measures
    def distance(self, a, b):
        if isinstance(a, Hex):
            dq, dr = a.q - b.q, a.r - b.r
            return (abs(dq) + abs(dr) + abs(dq + dr)) // 2
        return Distance((a.x - b.x) ** 2 + (a.y - b.y) ** 2, self.layout)

    def direction(self, a, b) -> int | None:
        """Degrees from a towards b (0 = up the board, clockwise); None when a is b."""
        (x1, y1), (x2, y2) = self.centre(a), self.centre(b)
        if (x1, y1) == (x2, y2):
            return None
        return round(math.degrees(math.atan2(x2 - x1, y1 - y2))) % 360

    def neighbours(self, a: "Hex") -> tuple:
        steps = _FLAT if self.flat else _POINTY
        return tuple(Hex(a.q + dq, a.r + dr, self) for dq, dr in steps)

    def hexside_step(self, facing: int):
        """The axial step across the hexside a facing points at; None for a vertex."""
        first = 0 if self.flat else 30
        if (facing - first) % 60:
            return None
        steps = _FLAT if self.flat else _POINTY
        return steps[((facing - first) // 60) % 6]

    def within(self, a: "Hex", n: int) -> tuple:
        """Every hex at distance 1..n from a, ring by ring, each ring clockwise."""
        out = []
        steps = _FLAT if self.flat else _POINTY
        for k in range(1, n + 1):
            # start k steps in direction 4 (down-left / left), walk each side of the ring
            q, r = a.q + steps[4][0] * k, a.r + steps[4][1] * k
            for side in range(6):
                dq, dr = steps[side]
                for _ in range(k):
                    out.append(Hex(q, r, self))
                    q, r = q + dq, r + dr
        return tuple(out)

    def line(self, a: "Hex", b: "Hex") -> tuple:
        """The hexes a straight line from the centre of a to the centre of b passes
        through, a and b included (a line along a hexside takes the hexes on its right)."""
        n = self.distance(a, b)
        if n == 0:
            return (a,)
        out = []
        aq, ar, bq, br = a.q + 1e-6, a.r + 1e-6, b.q + 1e-6, b.r + 1e-6
        for i in range(n + 1):
            t = i / n
            out.append(_round_hex(aq + (bq - aq) * t, ar + (br - ar) * t, self))
        return tuple(out)


def _shift(line: int, parity: str) -> int:
    """How far the printed numbering of a shifted column (or row) runs from axial."""
    return (line - (line & 1)) // 2 if parity == "odd" else (line + (line & 1)) // 2


def _round_hex(fq: float, fr: float, board) -> "Hex":
    fs = -fq - fr
    q, r, s = round(fq), round(fr), round(fs)
    dq, dr, ds = abs(q - fq), abs(r - fr), abs(s - fs)
    if dq > dr and dq > ds:
        q = -r - s
    elif dr > ds:
        r = -q - s
    return Hex(q, r, board)


def bearing(board, a, facing: int, b) -> int | None:
    """Where b lies seen from a facing ``facing``: -179..180 degrees, 0 dead ahead,
    positive to the right; None when a is b."""
    d = board.direction(a, b)
    if d is None:
        return None
    rel = (d - facing) % 360
    return rel - 360 if rel > 180 else rel


class Hex:
    """A hex of the map, kept in axial coordinates, shown as the map prints it."""
    __slots__ = ("q", "r", "board", "key")

    def __init__(self, q: int, r: int, board: Board):
        self.q, self.r, self.board = q, r, board
        self.key = hash((q, r))          # hexes are keys of every rule remembered per question

    def __eq__(self, other):
        return self is other or (other.__class__ is Hex and self.q == other.q and self.r == other.r)

    def __hash__(self):
        return self.key

    def __repr__(self):
        col, row = self.board.printed(self)
        if self.board.layout != "axial" and 0 <= col <= 99 and 0 <= row <= 99:
            return f"{col:02d}{row:02d}"
        return f"({col}, {row})"


class Point:
    """A point on a table top, in the board's unit (exact fractions)."""
    __slots__ = ("x", "y")

    def __init__(self, x: Fraction, y: Fraction):
        self.x, self.y = x, y

    def __eq__(self, other):
        return isinstance(other, Point) and (self.x, self.y) == (other.x, other.y)

    def __hash__(self):
        return hash((self.x, self.y))

    def __repr__(self):
        return f"({_num(self.x)}, {_num(self.y)})"


class Distance:
    """An exact table-top distance: compares with numbers and with other distances."""
    __slots__ = ("square", "unit")

    def __init__(self, square: Fraction, unit: str):
        self.square, self.unit = square, unit

    def _sq(self, other):
        if isinstance(other, Distance):
            return other.square
        if isinstance(other, bool) or not isinstance(other, int):
            return NotImplemented
        return None if other < 0 else Fraction(other) ** 2

    def _cmp(self, other, op):
        sq = self._sq(other)
        if sq is NotImplemented:
            return NotImplemented
        if sq is None:                      # a negative number: every distance is greater
            return op(1, 0)
        return op(self.square, sq)

    def __lt__(self, other):
        return self._cmp(other, operator.lt)

    def __le__(self, other):
        return self._cmp(other, operator.le)

    def __gt__(self, other):
        return self._cmp(other, operator.gt)

    def __ge__(self, other):
        return self._cmp(other, operator.ge)

    def __eq__(self, other):
        result = self._cmp(other, operator.eq)
        return False if result is NotImplemented else result

    def __hash__(self):
        return hash(("distance", self.square))

    def __repr__(self):
        """Exact when the distance is a number written with a few decimals (20, 12.5);
        otherwise to two decimals, marked '≈', so that 20.025 never reads as 20.0."""
        root = _exact_root(self.square)
        if root is not None:
            return f"{_num(root)} {self.unit}"
        return f"≈{math.sqrt(self.square):.2f} {self.unit}"


def _exact_root(square: Fraction) -> Fraction | None:
    """The square root of a fraction when it is one with at most three decimals."""
    n, d = math.isqrt(square.numerator), math.isqrt(square.denominator)
    if n * n != square.numerator or d * d != square.denominator:
        return None
    root = Fraction(n, d)
    return root if (root * 1000).denominator == 1 else None


def _num(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else f"{float(x):g}"


def parse_number(text: str) -> Fraction | None:
    """A number as a state file writes it: 12, -3, 12.5 (no exponents, no fractions)."""
    t = text.strip()
    body = t[1:] if t[:1] in "+-" else t
    whole, _, frac = body.partition(".")
    if not (whole.isdigit() or (not whole and frac)) or (frac and not frac.isdigit()) \
            or len(body) > 30:
        return None
    return Fraction(t)
