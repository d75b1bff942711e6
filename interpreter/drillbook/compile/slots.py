"""Compile stage: the reads of a generated function's slots that need no test.

A value the inliner works out once and reads again (a field path, a small rule's call) is
kept in a slot ``_cN``, set empty (``_U``) on entry, and every read of it is written

    (_cN if _cN is not _U else (_cN := VALUE))

because which read comes first depends on the branches taken.  This pass follows the
function in the order Python evaluates it and rewrites a read where that order decides:

- where the slot is surely filled on every way to the read, the read is ``_cN``;
- where it is surely empty on every way there, the read is ``(_cN := VALUE)``.

Any other read keeps its test.  Only statements of the function's own body are followed,
and an expression or statement the pass does not know leaves the function unchanged: the
pass may miss a read it could simplify, never simplify one it cannot.
"""
from __future__ import annotations

import ast
import copy
import re

_EMPTY = "_U"
_SLOT = re.compile(r"_c\d+$")


# the parts of an expression Python always works out, in the order it works them out
_IN_ORDER = {ast.BinOp: ("left", "right"), ast.UnaryOp: ("operand",),
             ast.Call: ("func", "args", "keywords"), ast.Attribute: ("value",),
             ast.Subscript: ("value", "slice"), ast.Slice: ("lower", "upper", "step"),
             ast.Tuple: ("elts",), ast.List: ("elts",), ast.Set: ("elts",),
             ast.Starred: ("value",)}


class _Unknown(Exception):
    """A construct the pass does not follow: the function is left as it was."""


def settle(fn: ast.FunctionDef) -> ast.FunctionDef:
    """``fn`` with the reads of its slots that need no test rewritten (in place)."""
    slots = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and _SLOT.match(n.id)}
    if not slots:
        return fn
    try:
        new = _Follow(slots).body(copy.deepcopy(fn.body))
    except _Unknown:
        return fn
    fn.body = new
    return fn


def _read(e):
    """The slot of ``(_cN if _cN is not _U else (_cN := VALUE))``, and VALUE; or None."""
    if not (isinstance(e, ast.IfExp) and isinstance(e.body, ast.Name)
            and isinstance(e.orelse, ast.NamedExpr) and isinstance(e.test, ast.Compare)):
        return None
    t = e.test
    slot = e.body.id
    if (isinstance(t.left, ast.Name) and t.left.id == slot and len(t.ops) == 1
            and isinstance(t.ops[0], ast.IsNot) and isinstance(t.comparators[0], ast.Name)
            and t.comparators[0].id == _EMPTY and e.orelse.target.id == slot):
        return slot, e.orelse.value
    return None


class _Follow:
    """Walks statements and expressions in evaluation order, knowing which slots are
    surely filled (``full``) and which may be (``maybe``)."""

    def __init__(self, slots: set):
        self.slots = slots
        self.full: set = set()
        self.maybe: set = set()

    # ---------------------------------------------------------------- statements
    def body(self, stmts: list) -> list:
        return [self.stmt(s) for s in stmts]

    def stmt(self, s):
        if isinstance(s, ast.Assign):
            s.value = self.expr(s.value)
            emptied = isinstance(s.value, ast.Name) and s.value.id == _EMPTY
            for t in s.targets:
                self.target(t, emptied)
            return s
        if isinstance(s, ast.AugAssign):
            s.value = self.expr(s.value)
            self.target(s.target, False)
            return s
        if isinstance(s, (ast.Expr, ast.Return)):
            if s.value is not None:
                s.value = self.expr(s.value)
            return s
        if isinstance(s, (ast.If, ast.For, ast.While, ast.With, ast.Try, ast.Break,
                          ast.Continue, ast.Pass)):
            self.opaque(s)        # followed no further: what it may fill or empty
            return s
        raise _Unknown(type(s).__name__)

    def target(self, t, emptied: bool):
        if isinstance(t, ast.Name):
            if t.id in self.slots:
                if emptied:
                    self.full.discard(t.id)
                    self.maybe.discard(t.id)
                else:
                    self.full.add(t.id)
                    self.maybe.add(t.id)
        elif isinstance(t, (ast.Tuple, ast.List)):
            for x in t.elts:
                self.target(x, False)
        elif isinstance(t, ast.Subscript):
            t.value = self.expr(t.value)
            t.slice = self.expr(t.slice)
        elif isinstance(t, ast.Attribute):
            t.value = self.expr(t.value)
        else:
            raise _Unknown(type(t).__name__)

    def opaque(self, node):
        """A part not followed: any slot assigned in it may be filled, or emptied."""
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id in self.slots:
                self.full.discard(n.id)
                self.maybe.add(n.id)

    # ---------------------------------------------------------------- expressions
    def expr(self, e):
        read = _read(e)
        if read is not None:
            slot, value = read
            if slot in self.full:
                return ast.copy_location(ast.Name(slot, ast.Load()), e)
            if slot not in self.maybe:
                value = self.expr(value)
                self.full.add(slot)
                self.maybe.add(slot)
                e = ast.NamedExpr(ast.Name(slot, ast.Store()), value)
                return ast.copy_location(e, read[1])
            e.orelse.value = self.branch(value)
            self.full.add(slot)
            return e
        if isinstance(e, (ast.Constant, ast.Name)):
            return e
        if isinstance(e, ast.NamedExpr):
            e.value = self.expr(e.value)
            self.target(e.target, False)
            return e
        if isinstance(e, ast.BoolOp):
            self.operands(e)
            return e
        if isinstance(e, ast.IfExp):
            if isinstance(e.test, ast.BoolOp):     # the branch all the operands decided
                every = self.operands(e.test)      # knows what they all filled
                on_body, on_else = (every, self.full) if isinstance(e.test.op, ast.And) \
                    else (self.full, every)
            else:
                e.test = self.expr(e.test)
                on_body = on_else = self.full
            maybe = self.maybe
            self.full, self.maybe = set(on_body), set(maybe)
            e.body = self.expr(e.body)
            after_body, maybe_body = self.full, self.maybe
            self.full, self.maybe = set(on_else), set(maybe)
            e.orelse = self.expr(e.orelse)
            self.full &= after_body
            self.maybe |= maybe_body
            return e
        if isinstance(e, ast.Compare):
            e.left = self.expr(e.left)
            e.comparators[0] = self.expr(e.comparators[0])
            e.comparators[1:] = [self.branch(c) for c in e.comparators[1:]]
            return e
        parts = _IN_ORDER.get(type(e))
        if parts is not None:             # every part worked out, in this order
            for part in parts:
                value = getattr(e, part)
                if isinstance(value, list):
                    setattr(e, part, [self.expr(x) for x in value])
                elif value is not None:
                    setattr(e, part, self.expr(value))
            return e
        if isinstance(e, ast.keyword):
            e.value = self.expr(e.value)
            return e
        if isinstance(e, ast.Dict):
            for i, (k, v) in enumerate(zip(e.keys, e.values)):
                if k is not None:
                    e.keys[i] = self.expr(k)
                e.values[i] = self.expr(v)
            return e
        if isinstance(e, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp,
                          ast.Lambda, ast.JoinedStr)):
            self.opaque(e)        # run later, or many times, or not at all
            return e
        raise _Unknown(type(e).__name__)

    def operands(self, e: ast.BoolOp) -> set:
        """``a and b and c``: the first operand is always worked out, each other one only
        after all those before it.  Returns what is filled once every operand was."""
        e.values[0] = self.expr(e.values[0])
        surely = set(self.full)
        for i in range(1, len(e.values)):
            e.values[i] = self.expr(e.values[i])
        every, self.full = self.full, surely
        return every

    def branch(self, e):
        """An operand that may not be evaluated: what it fills is only maybe filled."""
        full = set(self.full)
        e = self.expr(e)
        self.full = full
        return e
