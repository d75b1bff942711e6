"""Compile stage, fast path: one generated function per check and per rule, with what it
calls inlined as straight-line code when no trace is asked for.

A call is inlined when the callee needs nothing a call gives: a table (one dictionary
lookup; a missing cell still goes through the table's own function, which reports it), a
sum of modifiers without a cap, or a rule without exceptions or condition — provided the
callee reads no dice (its one result per question is remembered), is not a rule that
searches the state (remembered too, to save the search; a list of modifiers that calls one
is inlined, the call inside staying remembered), uses no local slots beyond its
parameters, and its arguments are plain names or constants (so inlining never evaluates an
argument twice).  The callee's parameters are replaced by the caller's
arguments.  This module builds what runs when ``ctx.trace`` is None; ``record.py`` builds
the traced bodies with the same ``Inliner``, every call kept as a call.
The safety rules of ``codegen.py`` hold: only generated names and integer literals appear
in the source, every rulebook value is passed in through the function's globals.
"""
from __future__ import annotations

import contextlib
import re
import types

from .. import ast as A
from ..check.types import strip
from ..geometry import Hex
from ..limits import MAX_INT
from ..runtime import CheckResult, not_taken
from . import lower, slots
from .codegen import HELPERS, _Gen, compiled

_CONSTANT = re.compile(r"^(k\d+|\(-?\d+\)|True|False|None)$")
_TRIVIAL = re.compile(r"^(s\[\d+\]|k\d+|_t\d+|_p\d+|_e|\(-?\d+\)|True|False|None)$")
MAX_DEPTH = 3                 # how deep calls are inlined into one function
_STATE = "    E = ctx.state.entities\n"    # the state's entities, read once per function


_UNSET = object()             # a field path's slot before the path is first read
_KEYS = {"int", "bool", "text", "enum", "record", "position", "facing", "union"}


class Inliner(_Gen):
    """Generates untraced code, inlining what it calls.  A field path from a parameter
    (``w.commander.rating``) read more than once in a function is read once: its slot
    (``_c1``) starts empty and is filled where the path is first evaluated, so a none still
    stops at the first read, located.  A parameter's own field (``w.commander``) read more
    than once, or inside a loop, is read on entry (``_p1``): the parameter is checked for
    none there, and reading a field of a thing cannot go wrong.  Other paths inside a search
    or a loop are left alone: their things change per turn."""

    def __init__(self, program, params: int = 0, counts=None):
        super().__init__(program)
        self.subst = None     # the caller's argument sources, while a callee is inlined
        self.depth = 0
        self.direct: dict[int, str] = {}    # a local slot -> the comprehension variable
        self.entity_var = False             # whether that variable is a search's entity
        self.params = {f"s[{i}]" for i in range(params)}
        self.stable = set(self.params)   # sources that never change: parameters, and the
        # temporaries that bind a call's arguments outside any loop (each is set once)
        self.counting = counts is None
        self.counts: dict = {} if counts is None else counts
        self.cse: dict = {}       # a field path read more than once -> its slot
        self.loops = 0
        self.assumed: set = set()     # the parameters read as never none
        self.hoisted: dict = {}       # a parameter's field read at entry -> its slot
        self.entry: list = []         # the lines that read them there
        self.present: list = []       # those of them typed as a thing that is never none
        self.consts["_U"] = _UNSET

    def _slot(self, i):
        if self.subst is not None:
            return self.subst[int(i)]
        if int(i) in self.direct:
            return self.direct[int(i)]
        return super()._slot(i)

    # an innermost search or 'for' names its thing by the comprehension's own variable,
    # instead of storing it in a local slot each time (a nested one, or a body that is
    # compiled apart and reads the slots, still stores it)
    def _query(self, q):
        with self._loop():
            if not _innermost(q.cond):
                return super()._query(q)
            source = self._query_source(q)
            with self._direct(q.ref, True):
                return f"for _e in {source} if ({self.gen(q.cond)})"

    def _each(self, each, number=False):
        with self._loop():
            if not (_innermost(each.element) and _innermost(each.cond)):
                return super()._each(each, number)
            source = self._each_source(each)
            with self._direct(each.ref, False):
                cond = f" if ({self.gen(each.cond)})" if each.cond is not None else ""
                element = self.val(each.element) if number else self.gen(each.element)
            return f"({element}) for _e in {source}{cond}"

    @contextlib.contextmanager
    def _direct(self, slot, search: bool):
        self.direct[int(slot)] = "_e"
        self.entity_var = search
        try:
            yield
        finally:
            del self.direct[int(slot)]
            self.entity_var = False

    def _builtin_exists(self, e):     # untraced: nothing to record
        return f"any(True {self._query(e.args[0])})"

    def _Code(self, e):                 # an operand lower.py has worked out already
        return e.code

    def _never_none(self, code):
        # the thing a search is looking at (an entity of the state), or a parameter
        # checked on entry (see _build)
        if code in self.params:
            self.assumed.add(code)
            return True
        return code == "_e" and self.entity_var

    @contextlib.contextmanager
    def _loop(self):
        self.loops += 1
        try:
            yield
        finally:
            self.loops -= 1

    def _builtin_marked(self, e):
        """Untraced, ``marked`` reads the cell's markers only: one dictionary lookup."""
        return self._marks_read(*self._marked_keys(e))

    def _Call(self, e):
        if e.ref[0] == "builtin":
            return super()._Call(e)
        p, name = self.p, e.ref[1]
        d = p.model.decls.get(name)
        if name in p.small:                     # see leaves.py: not remembered
            return self._small(name, d, self._args(e))
        if isinstance(d, A.TableDecl) and name in p.model.tables and not self.plain:
            return self._lookup(name, self._args(e))
        if self.depth >= MAX_DEPTH:
            return super()._Call(e)
        args = self._args(e)
        # a rule that reads dice is remembered per question (one die, one result); a rule
        # that searches the state is remembered to save time and stays a call, but a list
        # of modifiers that calls one is inlined (the search it calls stays remembered)
        if (d is None or name in p.model.rolls_dice
                or not all(_TRIVIAL.match(a) for a in args)
                or p.model.frame_size.get(name, 0) > len(args)):
            return self._remembered(name, args, e)
        if isinstance(d, A.ModifiersDecl) and d.combine == "sum" and d.cap is None:
            parts = []
            with self._inside(args):
                for item in d.items:
                    v = self.val(item.value)        # none stops located (E604)
                    parts.append(f"({v})" if item.when is None
                                 else f"(({v}) if ({self.gen(item.when)}) else 0)")
            return "(" + " + ".join(["0"] + parts) + ")"
        if (type(d) is A.Define and d.value is not None and d.when is None
                and not p.model.children.get(name) and name not in p.model.searching):
            with self._inside(args):
                return f"({self.gen(d.value)})"
        return self._remembered(name, args, e)

    def _remembered(self, name, args, e):
        """A call of a rule remembered per question (``_once_per_question``): the result
        already worked out in this question is read in place, without the call; the rule
        is called the first time.  Only for arguments a dictionary can hold as keys."""
        d = self.p.model.decls.get(name)
        if (self.plain or d is None or isinstance(d, A.TableDecl)
                or not all(a.type is not None and strip(a.type).kind in _KEYS for a in e.args)):
            return self._call(name, args)
        bound, names = self._bound(args)
        v, key = self.tmp(), self.tmp()
        made = "(" + ", ".join([self.k(name)] + names) + ",)"
        call = (f"({v} if ({v} := ctx.rolled.get(({key} := {made}), _U)) is not _U else "
                f"{self.k(self.p._ref(name))}.fn.miss(ctx, [{', '.join(names)}], {key}))")
        return f"(({', '.join(bound)},) and {call})" if bound else call

    def _bound(self, args):
        """A call's arguments, each evaluated once: the assignments that bind those that are
        not plain names or constants to temporaries, and the names to use for all of them
        (a temporary bound outside any loop never changes)."""
        bound, names = [], []
        for a in args:
            if _TRIVIAL.match(a):
                names.append(a)
            else:
                t = self.tmp()
                bound.append(f"({t} := {a})")
                names.append(t)
                if not self.loops:
                    self.stable.add(t)
        return bound, names

    def _product(self, a, b, loc):          # _mul's test in line, its error in the helper
        if self.plain:
            return super()._product(a, b, loc)
        x, y, t = self.tmp(), self.tmp(), self.tmp()
        return (f"({t} if -{MAX_INT} <= ({t} := ({x} := {a}) * ({y} := {b})) <= {MAX_INT} "
                f"else _mul({x}, {y}, {loc}))")

    def _number(self, code, loc):           # _num's test in line, its error in the helper
        if self.plain:
            return super()._number(code, loc)
        t, held = self.hold(code)
        return f"({t} if {held}.__class__ is int else _num({t}, {loc}))"

    def _required(self, code, loc, what):   # _req's test in line, its error in the helper
        if self.plain:
            return super()._required(code, loc, what)
        t, held = self.hold(code)
        return f"({t} if {held} is not None else _req({t}, {loc}, {what}))"

    def _geometry(self, e):
        """``distance(a, b)`` and ``adjacent(a, b)`` of two hexes worked out in line (the
        axial formula of ``Board.distance``); anything else, a none among them, goes
        through ``_distance``, which says what is wrong."""
        if self.plain or e.name not in ("distance", "adjacent"):
            return super()._geometry(e)
        pair_a, pair_b = self.hold(self.gen(e.args[0])), self.hold(self.gen(e.args[1]))
        a, b = pair_a[0], pair_b[0]
        dq, dr = self.tmp(), self.tmp()
        self.consts["_Hex"] = Hex
        general = (f"_distance({self.k(self.p.board)}, {self.k(e.name)}, {self.k(e.loc)}, "
                   f"{a}, {b})")
        hexes = (f"((abs(({dq} := {a}.q - {b}.q)) + abs(({dr} := {a}.r - {b}.r)) "
                 f"+ abs({dq} + {dr})) // 2)")
        code = (f"({hexes} if {self.binding(pair_a, pair_b)}"
                f"{a}.__class__ is _Hex and {b}.__class__ is _Hex else {general})")
        return f"({code} == 1)" if e.name == "adjacent" else code

    def _lookup(self, name, args):
        """A table's cell as one dictionary lookup, each key evaluated once as in a call; a
        missing cell goes through the table's own function, which reports it."""
        one = len(args) == 1
        cells = self.p.table_column(name) if one else self.p.table_cells(name)
        keys, held = zip(*map(self.hold, args))
        key = ", ".join(held)
        t = self.tmp()
        return (f"({t}[0] if ({t} := {self.k(cells)}.get({key if one else f'({key},)'})) "
                f"is not None else {self._call(name, list(keys))})")

    def _column(self, e):
        """``chart(t).hi`` as one lookup in the column's values by key, or None when ``e``
        is not a field of a chart's row (see ``Program.table_column``).  A missing row goes
        through the table's own function, which reports it."""
        call, p = e.subject, self.p
        if self.plain or not isinstance(call, A.Call) or call.ref[0] == "builtin":
            return None
        name = call.ref[1]
        lay = p.model.tables.get(name)
        if (not isinstance(p.model.decls.get(name), A.TableDecl) or lay is None
                or lay.shape != "chart" or strip(e.type).kind in ("record", "list")):
            return None
        column = p.table_column(name, e.name)
        (key, held), t = self.hold(self._args(call)[0]), self.tmp()
        row = f"{self._call(name, [key])}.fields[{self.k(e.name)}]"
        return (f"({t} if ({t} := {self.k(column)}.get({held}, _U)) "
                f"is not _U else {row})")

    def _small(self, name, d, args):
        """A small rule, its result kept in a slot when the same call on the same
        unchanging arguments appears more than once in the function (as for a path)."""
        code = self._small_code(name, d, args)
        if self.loops or self.plain or not all(
                a in self.stable or _CONSTANT.match(a) for a in args):
            return code
        return self._remember(("#call", name, *args), code)

    def _repeated(self, key, weight: int = 1) -> bool:
        """The first pass counts each read of ``key`` (``weight`` times); the second says
        whether it is read at least twice, and so gets a slot."""
        if self.counting:
            self.counts[key] = self.counts.get(key, 0) + weight
            return False
        return self.counts.get(key, 0) >= 2

    def _remember(self, key, code):
        if not self._repeated(key):
            return code
        slot = self.cse.get(key)
        if slot is None:
            slot = self.cse[key] = f"_c{len(self.cse) + 1}"
        return f"({slot} if {slot} is not _U else ({slot} := {code}))"

    def _small_code(self, name, d, args):
        """A small rule (leaves.py), inlined when its shape allows: a plain rule, or a rule
        with one exception and no condition of its own (no conflict is possible), its
        arguments bound once to temporaries; otherwise called without being remembered."""
        p = self.p
        kids = p.model.children.get(name, [])
        shape = (type(d) is A.Define and d.value is not None and d.when is None
                 and p.model.frame_size.get(name, 0) <= len(args) and len(kids) <= 1
                 and all(k.when is not None and k.value is not None
                         and not p.model.children.get(k.name) for k in kids))
        if not shape or (self.plain and not all(_TRIVIAL.match(a) for a in args)):
            pad = p.model.frame_size.get(name, 0) - len(args)
            slots = ", ".join(args + ["None"] * max(pad, 0))
            return f"{self.k(p.fast_ref(name))}.fn(ctx, [{slots}])"
        bound, names = self._bound(args)
        with self._inside(names):
            body = self.gen(d.value)
            if kids:
                body = f"({self.gen(kids[0].value)}) if ({self.gen(kids[0].when)}) else ({body})"
        if bound:
            return f"(({', '.join(bound)},) and ({body}))"
        return f"({body})"

    def _path(self, e):
        """The key of a field path whose root never changes in this function, or None."""
        names = []
        while isinstance(e, A.FieldOf):
            if not e.ref or e.ref[0] in ("check", "verdict", "range"):
                return None
            names.append(e.name)
            e = e.subject
        if not isinstance(e, A.Name) or e.ref[0] != "local":
            return None
        root = self._Name(e)
        return (root, *names) if root in self.stable else None

    def _FieldOf(self, e):
        fused = self._column(e)
        if fused is not None:
            return fused
        key = None if self.plain else self._path(e)
        if key is not None and e is self.want_ids:
            key += ("#ids",)
        if key is not None and key[0] in self.params and len(key) - (e is self.want_ids) == 2:
            return self._hoist(key, self._field(e), e.type is not None and e.type.kind == "record")
        if key is None or self.loops:
            return self._field(e)
        return self._remember(key, self._field(e))

    def _hoist(self, key, code, thing: bool):
        """A field of a parameter (``w.commander``) read more than once, or inside a loop,
        is read once on entry, after the parameter is checked for none: reading a field
        of a thing can go wrong in no way, so reading it early changes no answer.  A field
        typed as a thing (not optional) that is none on entry (a broken state) hands the
        question to the general function too, so the code after it may read it without
        a test (``slots.settled`` drops those tests)."""
        if not self._repeated(key, 2 if self.loops else 1):
            return code
        slot = self.hoisted.get(key)
        if slot is None:
            slot = self.hoisted[key] = f"_p{len(self.hoisted) + 1}"
            self.entry.append(f"    {slot} = {code}")
            if thing:
                self.present.append(slot)
        return slot

    def _Index(self, e):
        """``m.path[i]``: kept in a slot, as a field path is, when both the list's path and
        the index never change in this function."""
        code = super()._Index(e)
        key = None if self.loops or self.plain else self._path(e.subject)
        i = e.index
        if isinstance(i, A.Name) and i.ref[0] == "local":
            at = self._Name(i)
        elif isinstance(i, A.IntLit):
            at = str(int(i.value))
        else:
            return code
        if key is None or not (at in self.stable or at.isdigit()):
            return code
        return self._remember(("#at", *key, at), code)

    def _thing_at(self, ids_code, index_code, loc):
        if self.plain:
            return super()._thing_at(ids_code, index_code, loc)
        pair_ids, pair_at = self.hold(ids_code), self.hold(index_code)
        ids, at = pair_ids[0], pair_at[0]
        return (f"(E.get({ids}[{at}]) if {self.binding(pair_ids, pair_at)}"
                f"{ids} is not None and {at}.__class__ is int and 0 <= {at} < len({ids}) "
                f"else _thing_at(ctx, {ids}, {at}, {loc}))")       # is said by the helper

    def _field(self, e):
        # (a parameter typed as a record can still be none at run time: the(...) passed to
        # it finds nothing, so its field goes through the none check of codegen.py, E604)
        code = super()._FieldOf(e)
        if code.startswith("_deref(ctx, ") and not self.plain:    # the call, inlined
            t = self.tmp()
            return f"(E.get({t}) if ({t} := {code[12:-1]}).__class__ is str else {t})"
        return code

    def _call(self, name, args):
        return f"{self.k(self.p._ref(name))}.fn(ctx, [{', '.join(args)}])"

    def _inside(self, args):
        inliner = self

        class Frame:
            def __enter__(self):
                self.saved = inliner.subst
                inliner.subst = args
                inliner.depth += 1

            def __exit__(self, *exc):
                inliner.subst = self.saved
                inliner.depth -= 1
        return Frame()


def _innermost(e) -> bool:
    """No search, loop or separately compiled body inside ``e``."""
    return not lower.has(e, lower.NESTED)


def _function(src: str, consts: dict, name: str, defaults=()):
    where = f"<drillbook fast {name}>"
    if " is not _U else (_c" in src or " is not None else _" in src:
        code = compiled(src, where, slots.settled)   # the tests that need not run go
    else:
        code = compiled(src, where)
    fn_code = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    env = dict(HELPERS)
    env.update(consts)
    return types.FunctionType(fn_code, env, "drillbook_" + name, tuple(defaults) or None)


def _build(program, params: int, name: str, make, general, cls=None, defaults=()):
    """One generated function from ``make(gen) -> lines``, made twice: the first time only
    counts the field paths read more than once (see ``Inliner._FieldOf``); the second
    emits them read once, and their slots set empty after the line that reads the state.
    A parameter the code reads fields of without a none check is checked once on entry:
    when it is none, the statement ``general(gen)`` hands the question to the general
    function, which stops where the rule first reads it, located."""
    cls = cls or Inliner
    counter = cls(program, params)
    make(counter)
    gen = cls(program, params, counter.counts)
    lines = make(gen)
    at = next(i for i, line in enumerate(lines) if line == _STATE.rstrip("\n")) + 1
    if gen.cse:
        lines.insert(at, "    " + " = ".join(gen.cse.values()) + " = _U")
    if gen.entry:
        if gen.present:
            test = " or ".join(f"{p} is None" for p in gen.present)
            lines[at:at] = [f"    if {test}:", f"        {general(gen)}"]
        lines[at:at] = gen.entry
    if gen.assumed:
        test = " or ".join(f"{p} is None" for p in sorted(gen.assumed))
        lines[at:at] = [f"    if {test}:", f"        {general(gen)}"]
    return _function("\n".join(lines) + "\n", gen.consts, name, defaults)


def modifier_sum(program, m: A.ModifiersDecl, slow):
    """``fn(ctx, s)`` adding up a list of modifiers, their calls inlined (``slow(ctx,
    args)`` for a parameter that is none)."""
    n = len(m.params or [])

    def make(gen):
        lines = ["def f(ctx, s):", _STATE.rstrip("\n"), "    r = 0"]
        for item in m.items:
            v = gen.val(item.value)                     # none stops located (E604)
            if item.when is None:
                lines.append(f"    r += {v}")
            else:
                lines += [f"    if {gen.gen(item.when)}:", f"        r += {v}"]
        return lines + ["    return r"]
    return _build(program, n, "modifiers", make,
                  lambda gen: f"return {gen.k(slow)}(ctx, s[:{int(n)}])")


def check(program, c: A.CheckDecl, traced, pad: list, recorded=None):
    """The untraced ``fn(ctx, args)`` of a check as one function: target, roll, modifier,
    clamp and judgement in a line, what they call inlined; ``recorded`` (or ``traced``)
    when a trace is asked for, ``traced`` for everything else (a target that is none, a
    modifier that may be none)."""
    if c.modifier is not None and c.modifier.type.kind in ("opt", "any"):
        return None
    return _build(program, len(c.params or []), "check",
                  lambda gen: _check_lines(program, c, traced, pad, gen, recorded),
                  lambda gen: f"return {gen.k(traced)}(ctx, args)")


def _check_lines(program, c, traced, pad, gen, recorded):
    die = program.model.decls[c.dice.die]
    count, low, high = c.dice.count, die.low, die.high
    g = gen.k
    target = gen.gen(c.target)
    mod = gen.gen(c.modifier) if c.modifier is not None else "0"
    name, op, run = g(c.name), c.op, g(traced)
    lines = ["def f(ctx, args):",
             "    if ctx.trace is not None:",
             f"        return {g(recorded or traced)}(ctx, args)",
             f"    s = args + {g(pad)}" if pad else "    s = args",
             _STATE.rstrip("\n")] + _taken_lines(c, gen) + [
             f"    goal = {target}",
             "    if goal is None:",
             f"        return {run}(ctx, args)"]
    if op == "within":
        lines += ["    if goal.low > goal.high:",
                  f"        return _Result({name}, None, 0, None, {g(op)}, goal, False, 0)"]
    if count == 1:
        lines.append(f"    natural = ctx.dice.roll({g(die.name)}, {int(low)}, {int(high)}, "
                     f"{g(c.dice.loc)})")
    else:
        lines.append(f"    natural = ctx.dice.roll_sum({g(die.name)}, {int(low)}, {int(high)}, "
                     f"{int(count)}, {g(c.dice.loc)})")
    lines += [f"    mod = {mod}"] + judging(c, count * low, count * high)
    lines.append(f"    return _Result({name}, natural, mod, total, {g(op)}, goal, ok, margin)")
    gen.consts["_Result"] = CheckResult
    return lines


def _taken_lines(c: A.CheckDecl, gen, then: str = "return {r}") -> list:
    """The lines that return the result of a check not taken when its ``when`` does not
    hold (none without a ``when``); ``then`` says how the result is given back."""
    if c.when is None:
        return []
    r = gen.k(not_taken(c.name, c.op))
    return [f"    if not ({gen.gen(c.when)}):"] + [
        "        " + line for line in then.format(r=r).split("\n")]


def judging(c: A.CheckDecl, lowest: int, highest: int) -> list:
    """The lines that judge a check's roll: ``natural`` and ``mod`` to ``total`` (clamped
    to the dice's ``lowest`` and ``highest`` sums when the check says so) to ``ok`` and
    ``margin`` against ``goal``."""
    lines = ["    total = natural + mod"]
    if c.clamped:
        lo, hi = int(lowest), int(highest)
        lines.append(f"    total = ({lo}) if total < ({lo}) else ({hi}) if total > ({hi}) "
                     "else total")
    if c.op == "at_most":
        return lines + ["    ok = total <= goal", "    margin = goal - total if ok else total - goal"]
    if c.op == "at_least":
        return lines + ["    ok = total >= goal", "    margin = total - goal if ok else goal - total"]
    inside = "min(total - lo, hi - total)"
    if c.clamped:           # an end the clamped total cannot pass is not counted (_judge)
        inside = (f"(hi - total if lo <= ({lo}) and hi < ({hi}) else total - lo "
                  f"if hi >= ({hi}) and lo > ({lo}) else {inside})")
    return lines + ["    lo, hi = goal.low, goal.high",
                    "    ok = lo <= total <= hi",
                    f"    margin = ({inside} if ok else "
                    "total - hi if total > hi else lo - total)"]


def rule(program, d, params: int, slow, pad, fallback):
    """The untraced ``fn(ctx, s, key=None)`` of a rule or requirement item and its
    exceptions, as one function, when no exception has exceptions of its own and each gives
    a value; None otherwise.  Two exceptions that both apply, and a rule none of whose cases
    applies, go to the general ``slow(ctx, args)`` of ``__init__.py``, which reports them.

    Called with the key of its arguments (unpadded), the same function is the rule's first
    call in a question: it spends the budget, works the rule out and remembers the result
    under ``key``, without a call of ``miss`` and of the function behind it.  Traced or
    enumerating, it hands the call to ``fallback`` (a late-bound ref to the rule's
    ``miss``, see ``_once_per_question``), which knows how to do those."""
    kids = program.model.children.get(d.name, [])
    if d.value is None or any(k.when is None or k.value is None
                              or program.model.children.get(k.name) for k in kids):
        return None

    def give(gen, code):                # a result returned off the main path, remembered
        gen.consts["_keep"] = _keep
        return f"return _keep(ctx, key, {code})"

    def general(gen):
        return give(gen, f"{gen.k(slow)}(ctx, s[:{int(params)}])")

    def kept(indent):                   # the result remembered, then returned
        at = " " * indent
        return [f"{at}if key is not None:", f"{at}    ctx.rolled[key] = r", f"{at}return r"]

    def make(gen):
        lines = ["def f(ctx, s, key=None):", "    if key is not None:",
                 "        if ctx.dice.memo is not None or ctx.trace is not None:",
                 f"            return {gen.k(fallback)}.fn(ctx, s, key)"] + spend_one(8)
        if pad:
            lines.append(f"        s = s + {gen.k(list(pad))}")
        lines += [_STATE.rstrip("\n")] + (["    hit = False"] if kids else [])
        for i, kid in enumerate(kids):
            lines.append(f"    if {gen.gen(kid.when)}:")
            if i:
                lines += ["        if hit:", f"            {general(gen)}"]
            lines += lower.lines(gen, kid.value, "r", 8) + ["        hit = True"]
        if kids:
            lines += ["    if hit:"] + kept(8)
        if d.when is not None:
            lines += [f"    if not ({gen.gen(d.when)}):",
                      f"        {give(gen, 'True') if isinstance(d, A.RequireDecl) else general(gen)}"]
        return lines + lower.lines(gen, d.value, "r", 4) + kept(4)
    return _build(program, params, "rule", make, general, defaults=(None,))


def spend_one(indent: int) -> list:
    """The lines of ``ctx.budget.spend(1)`` in generated code, without its call (one rule
    worked out counts against the question's budget of work, E525)."""
    at = " " * indent
    return [f"{at}_b = ctx.budget", f"{at}_b.left -= 1", f"{at}if _b.left < 0:",
            f"{at}    _b.spend(0)"]


def _keep(ctx, key, value):
    """A rule's result, remembered for the question when ``key`` is given."""
    if key is not None:
        ctx.rolled[key] = value
    return value
