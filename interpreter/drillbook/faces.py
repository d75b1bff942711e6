"""Evaluate stage, odds: faces of a die that remember what the question asked of them.

``odds`` replays a question once per face of each die it reads.  Most rules only compare a
die with a number (``roll d6 + modifiers at least 5``): faces 5 and 6 then go the same way,
and replaying the question for 6 repeats what 5 did.  While enumerating, a die read gives a
``Face``: a whole number that does everything a number does, and records in its ``Group``
each comparison made with it (and with what it was shifted or scaled to: ``roll d6 + 1``).
The faces a group's records cannot tell apart from a face already replayed are counted
with that face's outcomes instead of being replayed (``evaluate.enumerate_outcomes``).

Anything else done with a face (a table looked up by it, an index, a text, a division) is
not recorded: it marks the group ``opaque``, and every face of it is replayed.  A face
never reaches the game state: ``State.apply`` stores it as a plain number (and the apply's
cache marks its group opaque), so nothing shared between replays holds one.
"""
from __future__ import annotations

import operator

_TESTS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
          "==": operator.eq, "!=": operator.ne}


class Group:
    """What the replays of one die's faces asked of them so far: ``tests``, each
    (a, b, op, c) for "a * face + b op c", and ``opaque`` once anything else was done."""
    __slots__ = ("tests", "opaque")

    def __init__(self):
        self.tests = set()
        self.opaque = False


def same_way(tests, face, other) -> bool:
    """Whether every test in ``tests`` (a group's records) goes the same way for the faces
    ``face`` and ``other``."""
    for a, b, op, c in tests:
        test = _TESTS[op]
        if test(a * face + b, c) != test(a * other + b, c):
            return False
    return True


def plain(value):
    """A number as the host may use it (an index, a count, a stored field): a face gives
    its number, and its group can no longer tell faces apart by its records."""
    if value.__class__ is Face:
        value.group.opaque = True
        return value.v
    return value


def _is_int(x) -> bool:
    return x.__class__ is int or x.__class__ is bool


class Face(int):
    """``a * face + b`` for a face of a die being enumerated (see the module's docstring)."""

    def __new__(cls, value: int, group: Group, a: int = 1, b: int = 0):
        f = int.__new__(cls, value)
        f.v, f.group, f.a, f.b = value, group, a, b
        return f

    def _test(self, other, op):
        if _is_int(other):
            self.group.tests.add((self.a, self.b, op, int(other)))
            return _TESTS[op](self.v, other)
        if other.__class__ is Face:
            return _TESTS[op](plain(self), plain(other))
        return _opaque(self, op)(other)

    def __lt__(self, other):
        return self._test(other, "<")

    def __le__(self, other):
        return self._test(other, "<=")

    def __gt__(self, other):
        return self._test(other, ">")

    def __ge__(self, other):
        return self._test(other, ">=")

    def __eq__(self, other):          # none is never a number, whatever the face
        return False if other is None else self._test(other, "==")

    def __ne__(self, other):
        return True if other is None else self._test(other, "!=")

    def __bool__(self):
        self.group.tests.add((self.a, self.b, "!=", 0))
        return self.v != 0

    def __add__(self, other):
        if _is_int(other):
            return Face(self.v + other, self.group, self.a, self.b + other)
        return plain(self) + plain(other)

    __radd__ = __add__

    def __sub__(self, other):
        if _is_int(other):
            return Face(self.v - other, self.group, self.a, self.b - other)
        return plain(self) - plain(other)

    def __rsub__(self, other):
        if _is_int(other):
            return Face(other - self.v, self.group, -self.a, other - self.b)
        return plain(other) - plain(self)

    def __mul__(self, other):
        if _is_int(other):
            return Face(self.v * other, self.group, self.a * other, self.b * other) \
                if other else 0
        return plain(self) * plain(other)

    __rmul__ = __mul__

    def __neg__(self):
        return Face(-self.v, self.group, -self.a, -self.b)

    def __pos__(self):
        return self


_METHODS = {"<": "__lt__", "<=": "__le__", ">": "__gt__", ">=": "__ge__", "==": "__eq__",
            "!=": "__ne__"}


def _opaque(face: Face, name: str):
    """``face``'s number's own method ``name`` (or comparison), its group marked opaque."""
    face.group.opaque = True
    return getattr(face.v, _METHODS.get(name, name))


def _delegate(name):
    def method(self, *args):
        return _opaque(self, name)(*map(plain, args))
    method.__name__ = name
    return method


def _read(name):
    return property(lambda self: getattr(_opaque(self, "__int__")(), name))


# Everything else a number does: the host reads the number itself, so it is not recorded.
for _name in ("__hash__", "__index__", "__int__", "__float__", "__complex__", "__str__",
              "__repr__", "__format__", "__abs__", "__invert__", "__floordiv__",
              "__rfloordiv__", "__truediv__", "__rtruediv__", "__mod__", "__rmod__",
              "__divmod__", "__rdivmod__", "__pow__", "__rpow__", "__lshift__", "__rlshift__",
              "__rshift__", "__rrshift__", "__and__", "__rand__", "__or__", "__ror__",
              "__xor__", "__rxor__", "__round__", "__trunc__", "__floor__", "__ceil__",
              "bit_length", "bit_count", "to_bytes", "as_integer_ratio", "conjugate",
              "__getnewargs__", "__sizeof__"):
    setattr(Face, _name, _delegate(_name))
Face.__reduce_ex__ = lambda self, protocol: (int, (plain(self),))   # kept as a number
Face.__reduce__ = lambda self: (int, (plain(self),))
for _name in ("numerator", "denominator", "real", "imag"):
    setattr(Face, _name, _read(_name))
del _name
