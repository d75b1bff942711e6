"""Compile stage: the tests of a generated function that need not run.

A value the inliner works out once and reads again (a field path, a small rule's call) is
kept in a slot ``_cN``, set empty (``_U``) on entry, and every read of it is written

    (_cN if _cN is not _U else (_cN := VALUE))

because which read comes first depends on the branches taken.  And a thing that may be
none is read as ``(x.fields[k] if x is not None else _none(...))``, each time, because the
inliner writes each read on its own.  This pass follows the function in the order Python
evaluates it and rewrites where that order decides:

- where a slot is surely filled on every way to its read, the read is ``_cN``; where it
  is surely empty on every way there, the read is ``(_cN := VALUE)``;
- where a name is surely not none on every way to a test of it (a test before it passed,
  or a read before it stopped with E604 if it was none, or the function's entry handed a
  none to the general function), ``x is not None`` is ``True`` and the read is
  ``x.fields[k]``.

Any other read keeps its test.  Only statements of the function's own body are followed
(a loop's body with what holds on every turn), and an expression or statement the pass
does not know leaves the function unchanged: the pass may miss a test it could drop,
never drop one it cannot.
"""
from __future__ import annotations

import ast
import copy
import re

_EMPTY = "_U"
_SLOT = re.compile(r"_c\d+$")
_SLOTS = re.compile(r"\b_c\d+\b")


# the parts of an expression Python always works out, in the order it works them out
_IN_ORDER = {ast.BinOp: ("left", "right"), ast.UnaryOp: ("operand",),
             ast.Call: ("func", "args", "keywords"), ast.Attribute: ("value",),
             ast.Subscript: ("value", "slice"), ast.Slice: ("lower", "upper", "step"),
             ast.Tuple: ("elts",), ast.List: ("elts",), ast.Set: ("elts",),
             ast.Starred: ("value",)}


class _Unknown(Exception):
    """A construct the pass does not follow: the function is left as it was."""


def settle(fn: ast.FunctionDef) -> ast.FunctionDef:
    """``fn`` with the tests it need not run dropped (in place)."""
    slots = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and _SLOT.match(n.id)}
    try:
        new = _Follow(slots).block(copy.deepcopy(fn.body))[0]
    except _Unknown:
        return fn
    fn.body = new
    return fn


def settled(src: str, where: str):
    """The code of the module ``src`` (one generated function), its function with the
    tests it need not run dropped; compiled as written when the pass does not know a
    construct in it."""
    tree = ast.parse(src)
    fn = tree.body[0]
    try:
        fn.body = _Follow(set(_SLOTS.findall(src))).block(fn.body)[0]
    except _Unknown:
        return compile(src, where, "exec")
    return compile(ast.fix_missing_locations(tree), where, "exec")


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


def _none_test(e):
    """``(x, True)`` for ``x is not None``, ``(x, False)`` for ``x is None`` (``x`` a name,
    or a name set by ``:=`` in the test itself); otherwise None."""
    if not (isinstance(e, ast.Compare) and len(e.ops) == 1
            and isinstance(e.comparators[0], ast.Constant) and e.comparators[0].value is None
            and isinstance(e.ops[0], (ast.Is, ast.IsNot))):
        return None
    x = e.left.target if isinstance(e.left, ast.NamedExpr) else e.left
    if not isinstance(x, ast.Name):
        return None
    return x.id, isinstance(e.ops[0], ast.IsNot)


def _facts(e, passed: bool, known: dict | None = None) -> set:
    """The names surely not none when the test ``e`` was true (``passed``) or false.  In
    ``a and b``, what ``a`` said of a name that ``b`` sets again no longer holds."""
    test = _none_test(e)
    if test is not None:
        return {test[0]} if test[1] == passed else set()
    if isinstance(e, ast.BoolOp) and isinstance(e.op, ast.And if passed else ast.Or):
        found: set = set()
        for v in e.values:
            found = (found - _stored(v, known)) | _facts(v, passed, known)
        return found
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Not):
        return _facts(e.operand, not passed, known)
    return set()


def _stops(e, test, present: set) -> bool:
    """Whether ``e``, the else of ``... if test else e``, surely stops (E604, E615): an
    E604 itself; ``_req(x)`` after ``x is not None``; ``_thing_at(ctx, ids, i)`` after
    the test that ``ids[i]`` can be read (``inline._thing_at`` writes the two together;
    a none test of a name surely not none may have been dropped from it)."""
    if not (isinstance(e, ast.Call) and isinstance(e.func, ast.Name)):
        return False
    names = [a.id if isinstance(a, ast.Name) else None for a in e.args]
    if e.func.id == "_none":
        return True
    if e.func.id == "_req":
        return bool(names) and _none_test(test) == (names[0], True)
    if e.func.id == "_thing_at" and len(names) == 4 and isinstance(test, ast.BoolOp) \
            and isinstance(test.op, ast.And):
        ids, at = names[1], names[2]
        tested = {_none_test(v) for v in test.values} | {(x, True) for x in present}
        bounds = [v for v in test.values if isinstance(v, ast.Compare)
                  and ast.dump(v) == ast.dump(ast.parse(f"0 <= {at} < len({ids})",
                                                        mode="eval").body)]
        return (ids, True) in tested and (at, True) in tested and bool(bounds)
    return False


def _stored(node, known: dict | None = None) -> frozenset:
    """The names ``node`` sets (``known`` keeps what was found for each node)."""
    if known is not None:
        got = known.get(node)
        if got is not None:
            return got
    if isinstance(node, ast.Name):
        got = frozenset((node.id,)) if isinstance(node.ctx, ast.Store) else frozenset()
    else:
        got = frozenset().union(*(_stored(c, known) for c in ast.iter_child_nodes(node)))
    if known is not None:
        known[node] = got
    return got


class _Follow:
    """Walks statements and expressions in evaluation order, knowing which slots are
    surely filled (``full``) and which may be (``maybe``), and which names are surely not
    none (``present``)."""

    def __init__(self, slots: set):
        self.slots = slots
        self.full: set = set()
        self.maybe: set = set()
        self.present: set = set()
        self.known: dict = {}         # a node -> the names it sets (see _stored)

    def saved(self) -> tuple:
        return set(self.full), set(self.maybe), set(self.present)

    def restore(self, state: tuple):
        self.full, self.maybe, self.present = (set(x) for x in state)

    def meet(self, a: tuple, b: tuple):
        """Two ways of getting here meet: what holds on both."""
        self.full, self.maybe, self.present = a[0] & b[0], a[1] | b[1], a[2] & b[2]

    # ---------------------------------------------------------------- statements
    def block(self, stmts: list) -> tuple:
        """The statements rewritten, and whether the way through them surely ends in
        them (a return, a raise, a break or continue)."""
        out, ends = [], False
        for s in stmts:
            s, stop = self.stmt(s)
            out.append(s)
            ends = ends or stop
        return out, ends

    def stmt(self, s) -> tuple:
        if isinstance(s, ast.Assign):
            s.value = self.expr(s.value)
            emptied = isinstance(s.value, ast.Name) and s.value.id == _EMPTY
            for t in s.targets:
                self.target(t, emptied)
            return s, False
        if isinstance(s, ast.AugAssign):
            s.value = self.expr(s.value)
            self.target(s.target, False)
            return s, False
        if isinstance(s, (ast.Expr, ast.Return, ast.Raise)):
            value = s.exc if isinstance(s, ast.Raise) else s.value
            if value is not None:
                value = self.expr(value)
                if isinstance(s, ast.Raise):
                    s.exc = value
                else:
                    s.value = value
            return s, not isinstance(s, ast.Expr)
        if isinstance(s, ast.If):
            return s, self.branches(s)
        if isinstance(s, ast.For) and not s.orelse:
            self.loop(s)
            return s, False
        if isinstance(s, (ast.Break, ast.Continue)):
            return s, True
        if isinstance(s, (ast.While, ast.With, ast.Try, ast.Pass)):
            self.opaque(s)        # followed no further: what it may fill or empty
            return s, False
        raise _Unknown(type(s).__name__)

    def branches(self, s: ast.If) -> bool:
        s.test = self.expr(s.test)
        before = self.saved()
        self.present |= _facts(s.test, True, self.known)
        s.body, body_ends = self.block(s.body)
        after_body = self.saved()
        self.restore(before)
        self.present |= _facts(s.test, False, self.known)
        s.orelse, else_ends = self.block(s.orelse)
        if body_ends and not else_ends:
            return False                  # only the else goes on: its state stands
        if else_ends and not body_ends:
            self.restore(after_body)
            return False
        self.meet(after_body, self.saved())
        return body_ends and else_ends

    def loop(self, s: ast.For):
        """Each turn starts with what held before the loop and nothing the loop sets can
        undo; after it, the same (the body may not run at all)."""
        s.iter = self.expr(s.iter)
        stored = _stored(s, self.known)
        emptied = {t.id for n in ast.walk(s) if isinstance(n, ast.Assign)
                   and isinstance(n.value, ast.Name) and n.value.id == _EMPTY
                   for t in n.targets if isinstance(t, ast.Name)}
        self.full -= emptied
        self.maybe |= stored & self.slots
        self.present -= stored
        each_turn = self.saved()
        s.body, _ = self.block(s.body)
        self.restore(each_turn)

    def target(self, t, emptied: bool):
        if isinstance(t, ast.Name):
            self.present.discard(t.id)
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
        """A part not followed: any slot assigned in it may be filled, or emptied, and
        any name assigned in it may be none."""
        stored = _stored(node, self.known)
        self.full -= stored
        self.maybe |= stored & self.slots
        self.present -= stored

    # ---------------------------------------------------------------- expressions
    def expr(self, e):
        read = _read(e)
        if read is not None:
            return self.slot_read(e, *read)
        if isinstance(e, (ast.Constant, ast.Name)):
            return e
        if isinstance(e, ast.NamedExpr):
            e.value = self.expr(e.value)
            self.target(e.target, False)
            if self.never_none(e.value):
                self.present.add(e.target.id)
            return e
        if isinstance(e, ast.BoolOp):
            self.operands(e)
            return _shorter(e)
        if isinstance(e, ast.IfExp):
            return self.choice(e)
        if isinstance(e, ast.Compare):
            test = _none_test(e)
            if test is not None and isinstance(e.left, ast.Name) and test[0] in self.present:
                return ast.copy_location(ast.Constant(test[1]), e)
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

    def never_none(self, e) -> bool:
        return (isinstance(e, ast.Name) and e.id in self.present
                or isinstance(e, ast.Constant) and e.value is not None
                or isinstance(e, (ast.Tuple, ast.List, ast.Set, ast.Dict)))

    def slot_read(self, e, slot, value):
        if slot in self.full:
            return ast.copy_location(ast.Name(slot, ast.Load()), e)
        if slot not in self.maybe:
            value = self.expr(value)
            self.full.add(slot)
            self.maybe.add(slot)
            new = ast.NamedExpr(ast.Name(slot, ast.Store()), value)
            if self.never_none(value):
                self.present.add(slot)
            return ast.copy_location(new, value)
        e.orelse.value = self.branch(value)
        self.full.add(slot)
        self.present.discard(slot)
        return e

    def choice(self, e: ast.IfExp):
        """``a if test else b``: each branch knows what the test decided."""
        test = _none_test(e.test)
        if test is not None and isinstance(e.test.left, ast.Name) and test[0] in self.present:
            return self.expr(e.body if test[1] else e.orelse)
        if (test is not None and test[1] and isinstance(e.test.left, ast.NamedExpr)
                and isinstance(e.body, ast.Name) and e.body.id == test[0]):
            bound = self.expr(e.test.left)           # (x if (x := v) is not None else b)
            if test[0] in self.present:              # with v surely not none: x := v
                return bound
            e.test.left = bound                      # the test worked out: its walrus
            on_body = on_else = self.saved()
        elif isinstance(e.test, ast.BoolOp):   # the branch all the operands decided
            every, first = self.operands(e.test)    # knows what they all did
            on_body, on_else = (every, first) if isinstance(e.test.op, ast.And) \
                else (first, every)
            e.test = _shorter(e.test)
        else:
            e.test = self.expr(e.test)
            on_body = on_else = self.saved()
        maybe = self.maybe
        self.restore(on_body)
        self.maybe = set(maybe)
        self.present |= _facts(e.test, True, self.known)
        e.body = self.expr(e.body)
        after_body = self.saved()
        self.restore(on_else)
        self.maybe = set(maybe)
        self.present |= _facts(e.test, False, self.known)
        stops = _stops(e.orelse, e.test, self.present)
        e.orelse = self.expr(e.orelse)
        if stops:                           # the else stopped: only the body went on
            self.full, self.present = after_body[0], after_body[2]
            self.maybe |= after_body[1]
        else:
            self.meet(after_body, self.saved())
        return e

    def operands(self, e: ast.BoolOp) -> tuple:
        """``a and b and c``: the first operand is always worked out, each other one only
        after all those before it (true for ``and``, false for ``or``).  Returns what
        holds once every operand was worked out, and once the first was; leaves the
        latter, with what any operand may have filled."""
        passed = isinstance(e.op, ast.And)
        e.values[0] = self.expr(e.values[0])
        first = self.saved()
        for i in range(1, len(e.values)):
            self.present |= _facts(e.values[i - 1], passed, self.known)
            e.values[i] = self.expr(e.values[i])
        self.present |= _facts(e.values[-1], passed, self.known)
        every = self.saved()
        later = set().union(*(_stored(v, self.known) for v in e.values[1:]))
        self.full, self.present = set(first[0]), first[2] - later
        first = (first[0], set(self.maybe), first[2] - later)
        return every, first

    def branch(self, e):
        """An operand that may not be evaluated: what it fills is only maybe filled, and
        what it sets may have changed."""
        full, present = set(self.full), self.present - _stored(e, self.known)
        e = self.expr(e)
        self.full, self.present = full, present
        return e


def _shorter(e: ast.BoolOp):
    """``a and True and b`` is ``a and b`` (``or`` with False alike): an operand that is
    the constant that lets the next one run is dropped, unless it is the last."""
    going_on = isinstance(e.op, ast.And)      # the constant after which the next one runs
    values = [v for v in e.values[:-1]
              if not (isinstance(v, ast.Constant) and v.value is going_on)]
    values.append(e.values[-1])
    if len(values) == 1:
        return values[0]
    e.values = values
    return e
