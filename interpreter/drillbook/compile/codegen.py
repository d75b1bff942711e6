"""Compile stage: expressions → Python functions ``fn(ctx, slots) -> value``.

Each expression tree becomes ONE generated Python function, so evaluating it costs one
call instead of a call per node.  Safety: the generated source contains only names this
module makes up (k0, k1, ... for constants; s[i] for locals; _t3 for temporaries) and
integer literals.  Every value that comes from a rulebook — texts, names, levels, source
locations — is passed in through the function's globals, never spliced into the source.
Functions are built from compiled code objects with ``types.FunctionType``.
"""
from __future__ import annotations

import re
import types

from .. import ast as A
from ..check.geometry import SIGNATURES
from ..check.types import FACING, bound_problem, field_bound, strip
from ..errors import a_or_an, fail
from ..faces import Face, plain
from ..geometry import MAX_RING, Hex, bearing
from ..limits import MAX_INT, MAX_RANGE, check_span, too_big
from ..runtime import Ctx, Effect, Entity, Range, show
from ..steps import LEAF, SCOPE, Step


# ------------------------------------------------------------------ run-time helpers
def _none(loc, what):
    """E604; ``what`` is the text of the value that is none, or (text, hint)."""
    what, hint = what if isinstance(what, tuple) else (
        what, "check it first with 'is none' or give the state a value")
    fail(loc, "E604", f"{what} is none here", hint)


def _entity(ctx, ident, loc):
    ent = ctx.state.entities.get(ident)
    if ent is None:
        fail(loc, "E605", f"'{ident}' is not in the game state")
    return ent


def _ents(ctx, type_name, loc=None):
    state = ctx.state
    found = state.indexes.get(type_name)
    if found is None:
        found = state.of_type(type_name)
    budget = ctx.budget                 # Budget.spend, without its call
    budget.left -= len(found)
    if loc is not None:
        budget.loc = loc
    if budget.left < 0:
        budget.spend(0)
    return found


def _span(ctx, low, high, loc):
    """The numbers of ``for x from low to high``, refused beyond the limits (E523, E525)."""
    if low.__class__ is not int or high.__class__ is not int:     # a die's face
        low, high = plain(low), plain(high)
    if high - low + 1 > MAX_RANGE:
        check_span(low, high, loc, "this 'for'")
    ctx.budget.spend(max(high - low + 1, 0), loc)
    return range(low, high + 1)


def _items(ctx, items, loc):
    ctx.budget.spend(len(items), loc)
    return items


def _candidates(ctx, type_name, lookups, loc=None):
    """The entities a query need look at: those an index finds for each of its keys (a
    short list is read whole: building an index would cost more than it saves)."""
    state = ctx.state
    first = lookups[0][0]
    index = state.indexes.get((type_name, first))
    if index is None:
        if len(state.by_type.get(type_name, ())) <= 32:
            return _ents(ctx, type_name, loc)
        index = state.index(type_name, first)
    if len(lookups) == 1:
        return index.get(lookups[0][1], ())
    hits = []
    for fields, values in lookups:
        found = (index if fields == first else state.index(type_name, fields)).get(values)
        if found:
            hits.append(found)
    if len(hits) <= 1:                  # nothing to merge: already in file order
        return hits[0] if hits else ()
    merged = {ent.id: ent for found in hits for ent in found}
    order = state.position(type_name)
    return sorted(merged.values(), key=lambda ent: order[ent.id])


def _what(e):
    """What E604 says of the value of ``e`` when it is none: its text, and for a search of
    the state (``the(Army a where ...)``) that it found nothing, with what to add."""
    text = f"'{_text(e)}'"
    if isinstance(e, A.Call) and e.name == "the" and e.args and isinstance(e.args[0], A.Query):
        t = e.args[0].type_name
        return (text, f"no {t} of the state matches it: the state file needs {a_or_an(t)} "
                f"that does (or the rule can check it first with 'is none')")
    return text


def _bind(s, slot, value):
    s[slot] = value
    return True


def _req(value, loc, what):
    if value is None:
        _none(loc, what)
    return value


def _within(value, bound, loc, what):
    """A number worked out for a parameter with a range or facings: one it may hold (E619)."""
    if value.__class__ is int or value.__class__ is Face:
        problem = bound_problem(bound, value)
        if problem:
            fail(loc, "E619", f"{what} is worked out as {value}, {problem}",
                 "keep it in range with max and min, or check it first with 'when'")
    return value


def _step(levels, level, direction, by, loc):
    if level is None:
        _none(loc, "the level")
    i = level.index + direction * (by if by.__class__ is int else plain(by))
    last = len(levels) - 1
    return levels[0 if i < 0 else last if i > last else i]


def _lmin(*levels):
    return min(levels, key=lambda lv: lv.index)


def _lmax(*levels):
    return max(levels, key=lambda lv: lv.index)


def _violates(verdict, item):
    return any(d.name == item for d in verdict.violated)


def _roll(ctx, die, low, high, count, loc, step):
    if ctx.trace is None:
        return ctx.dice.roll_sum(die, low, high, count, loc)
    total = 0
    for _ in range(count):
        face = ctx.dice.roll(die, low, high, loc)
        ctx.log.append((step, face))        # the die's step (steps.py)
        total += face
    return total


def _choose(ctx, name, options, loc, tracer, asker=None, args=()):
    value = ctx.dice.choose(name, options, loc, asker and (asker, args))
    if ctx.trace is not None:
        ctx.log.append((LEAF, tracer(name, value, options)))
    return value


def _moved_on(ctx, s, effects):
    """The context and local slots of the state ``effects`` leave (things looked up again
    by id; a thing the effects removed is none there).  Traced, its steps go on in the
    same log, as another evaluation's (see ``_back``)."""
    new_state, _ = ctx.state.apply(effects)
    sub = Ctx(new_state, ctx.dice, ctx.options, budget=ctx.budget)
    if ctx.log is not None:
        sub.trace, sub.log = ctx.trace, ctx.log
        ctx.log.append((SCOPE, sub, ctx))
    fresh = [new_state.entities.get(v.id) if isinstance(v, Entity) else v for v in s]
    return sub, fresh


def _back(ctx, sub):
    """Traced, the steps from here on are ``ctx``'s again, not those of ``sub`` (the
    context ``_moved_on`` made from it)."""
    if ctx.log is not None and sub is not ctx:
        ctx.log.append((SCOPE, ctx, sub))


moved_on = _moved_on        # for a question's own leading after parts (Program.leading_after)


def _after(ctx, s, effects, then):
    sub, fresh = _moved_on(ctx, s, effects)
    try:
        return then(sub, fresh)
    finally:
        _back(ctx, sub)


def _then(ctx, s, first, rest):
    """``first then rest``: rest worked out on the state first leaves."""
    if not first:
        return rest(ctx, s)
    sub, fresh = _moved_on(ctx, s, first)
    try:
        return tuple(first) + tuple(rest(sub, fresh))
    finally:
        _back(ctx, sub)


def _let(s, slot, value):
    s[slot] = value
    return s


def _for_each(ctx, s, slot, things, body):
    """The body's effects for each thing in turn, each on the state the ones before left."""
    out, start = (), ctx
    things = list(things)
    ctx.budget.spend(len(things))
    try:
        for thing in things:
            if isinstance(thing, Entity):
                thing = ctx.state.entities.get(thing.id)
                if thing is None:            # an earlier body removed it
                    continue
            s[slot] = thing
            effects = tuple(body(ctx, s))
            if effects:
                out += effects
                ctx, s = _moved_on(ctx, s, effects)
    finally:
        _back(start, ctx)
    return out


def _num(value, loc):
    if value is None:
        _none(loc, "a number")
    if not isinstance(value, int):
        fail(loc, "E613", f"this is {show(value)}, not a number",
             "compare it first: if x == P then ... else ...")
    return value


def _exists(ctx, step, found):
    """``exists(...)`` of the things a search finds, one by one: traced, the first is
    recorded as what decided it (``steps.py``, a ``found`` step)."""
    for thing in found:
        if ctx.log is not None:
            ctx.log.append((step, thing))
        return True
    return False


def _the(found, loc, type_name):
    if len(found) > 1:
        fail(loc, "E614", f"the(...) found {len(found)} {type_name}s: "
             + ", ".join(e.id for e in found[:5]),
             f"the rule needs exactly one here: if the state should say which {type_name} "
             f"is meant, name it there (a warning W702 above may say where); if not, the "
             f"rule's condition must pick one")
    return found[0] if found else None


def _at(items, i, loc):
    if items is None or i is None:
        _none(loc, "the list or its index")
    if i.__class__ is not int:          # a die's face
        i = plain(i)
    if not 0 <= i < len(items):
        fail(loc, "E615", f"index {i} is outside the list (it has {len(items)} items, 0.."
             f"{len(items) - 1})")
    return items[i]


def _hex_distance(q1, r1, q2, r2):
    dq, dr = q1 - q2, r1 - r2
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def _geo(board, name, loc, *args):
    """A geometry built-in on the rulebook's board; none in stops, located."""
    faces = False
    for a in args:
        if a is None:
            _none(loc, f"a value given to {name}()")
        faces = faces or a.__class__ is Face
    if faces:                            # a die's face, as the board reads it
        args = tuple(map(plain, args))
    if name == "position":
        return board.position(*args)
    if name == "distance":
        return board.distance(*args)
    if name == "adjacent":
        return board.distance(*args) == 1
    if name == "neighbours":
        return board.neighbours(args[0])
    if name == "hexes_within":
        if not 0 <= args[1] <= MAX_RING:
            fail(loc, "E616", f"hexes_within() reaches at most {MAX_RING} hexes, not {args[1]}",
                 "ask about a smaller area")
        return board.within(*args)
    if name == "line":
        return board.line(*args)
    if name == "turn":
        return (args[0] + args[1]) % 360
    if name == "step":
        a, facing, n = args
        move = board.hexside_step(facing)
        if move is None:
            fail(loc, "E617", f"step() moves across a hexside, and facing {facing} points at "
                 "a vertex", "give the direction of a hexside")
        if not 0 <= n <= MAX_RING:
            fail(loc, "E616", f"step() moves at most {MAX_RING} hexes, not {n}")
        return Hex(a.q + move[0] * n, a.r + move[1] * n, board)
    found = (board.direction(*args) if name == "direction"
             else bearing(board, *args))        # bearing
    if found is None:
        fail(loc, "E618", f"{name}() has no answer for a position and itself",
             "check first that the two positions differ")
    return found


def _distance(board, name, loc, a, b):
    """distance() and adjacent() on the rulebook's board; none in stops, located."""
    if a is None or b is None:
        _none(loc, f"a value given to {name}()")
    return board.distance(a, b)


def _marked(marks, key, column, mark):
    return mark in marks.get((key, column), ())


def _marked_at(ctx, cells, step, marks, keys, column, mark):
    """``marked`` as the general path works it out: traced, the cell it reads is recorded
    as its table's lookup records it (a cell the table does not hold records nothing)."""
    second = keys[1] if len(keys) > 1 else None
    if ctx.log is not None:
        hit = cells.get((keys[0], second))
        if hit is not None:
            ctx.log.append((step, keys, hit))
    return mark in marks.get((keys[0], column if column is not None else second), ())


def _deref(ctx, value):
    """A record field holds the id of an entity of the state, or (in a chart) the record."""
    if value is None or isinstance(value, Entity):
        return value
    return ctx.state.entities.get(value)


def _fld(ent, name, loc, what):
    if ent is None:
        _none(loc, what)
    return ent.fields[name]


def _things(ctx, ids):
    """The things a list field names (a helper, not a comprehension in the generated code:
    its iterable may hold an assignment expression, which Python refuses there)."""
    ents = ctx.state.entities
    return tuple(ents.get(i) for i in ids)


def _thing_at(ctx, ids, i, loc):
    """The i-th thing a list field names (``_at`` over ``_things``, one lookup)."""
    return ctx.state.entities.get(_at(ids, i, loc))


def _ids(things):
    return tuple(None if x is None else x.id for x in things)


def _key(value):
    """A value as an index holds it: a thing by its id."""
    return value.id if isinstance(value, Entity) else value


def _rid(ent):
    return None if ent is None else ent.id


def _mul(a, b, loc):
    product = a * b
    if not -MAX_INT <= product <= MAX_INT:
        too_big(loc, product)
    return product


def _id(ent, loc, what):
    if ent is None:
        _none(loc, what)
    return ent.id


_CODE: dict = {}             # (source, where) -> its code: the same rule in a base and a
_CODE_MAX = 20_000           # variant (diff), or a rulebook opened again, compiles once


def compiled(src: str, where: str, make=None):
    """The code of generated ``src`` (``make(src, where)`` or ``compile``), compiled once
    per process: code objects never change, each function gets its own globals."""
    key = (src, where)
    code = _CODE.get(key)
    if code is None:
        if len(_CODE) >= _CODE_MAX:      # a long-lived process (the language server)
            _CODE.clear()
        code = _CODE[key] = (make or _compile_exec)(src, where)
    return code


def _compile_exec(src: str, where: str):
    return compile(src, where, "exec")


_LOCAL = re.compile(r"^(_t\d+|_p\d+|_e)$")   # the locals generated code binds once
HELPERS = {name: obj for name, obj in globals().items()
           if name.startswith("_") and callable(obj) and not name.startswith("__")}
HELPERS["_Effect"] = Effect


class ExprCompiler:
    """Turns checked expression trees into generated Python functions."""

    def __init__(self, program):
        self.p = program

    def expr(self, e: A.Expr):
        gen = _Gen(self.p)
        body = gen.gen(e)
        src = f"def f(ctx, s):\n    return {body}\n"
        code = compiled(src, f"<drillbook {e.loc}>")
        fn_code = next(c for c in code.co_consts if isinstance(c, types.CodeType))
        env = dict(HELPERS)
        env.update(gen.consts)
        return types.FunctionType(fn_code, env, "drillbook_expr")


class _Gen:
    def __init__(self, program):
        self.p = program
        self.consts: dict[str, object] = {}
        self.temps = 0
        self.plain = 0        # > 0 while generating a comprehension's source: no := there
        self.want_ids = None  # the list-of-things field to generate as its ids, not things

    def k(self, value) -> str:
        name = f"k{len(self.consts)}"
        self.consts[name] = value
        return name

    def tmp(self) -> str:
        self.temps += 1
        return f"_t{self.temps}"

    def hold(self, code: str) -> tuple[str, str]:
        """A local name for ``code``'s value, and what evaluates ``code`` into it: a new
        temporary bound with ``:=``, or, when ``code`` is a generated local already (a
        temporary, a parameter's field read on entry, a search's thing), that local
        itself, with nothing copied.  The temporary is numbered either way: the two passes
        of ``inline._build`` must number theirs alike, and only the second reads a field
        path from its slot."""
        t = self.tmp()
        if _LOCAL.match(code):
            return code, code
        return t, f"({t} := {code})"

    @staticmethod
    def binding(*pairs) -> str:
        """What evaluates the ``hold`` pairs that bind a temporary, in order, as the start
        of an ``and`` (a tuple, always true); nothing when every one is a local already."""
        binds = [held for name, held in pairs if held != name]
        return f"({', '.join(binds)},) and " if binds else ""

    def gen(self, e) -> str:
        code = getattr(self, "_" + type(e).__name__)(e)
        needed = getattr(e, "needed", None)     # a rule's optional value, its type not
        if needed is not None:                  # optional (check stage): none stops here
            return self._required(code, self.k(e.loc), self.k(needed))
        return code

    def val(self, e, what="a number") -> str:
        """``e`` where a value is needed: an optional one that is none stops, located; so
        does a printed word (P, OT...) where a number is needed."""
        code = self.gen(e)
        if e.type is not None and strip(e.type).kind == "union":
            return self._number(code, self.k(e.loc))
        if e.type is not None and e.type.kind in ("opt", "any", "none"):
            return self._required(code, self.k(e.loc), self.k(what))
        return code

    def _number(self, code, loc):
        return f"_num({code}, {loc})"

    def _required(self, code, loc, what):
        return f"_req({code}, {loc}, {what})"

    # ------------------------------------------------------------ literals
    def _IntLit(self, e):
        return f"({int(e.value)})"

    def _TextLit(self, e):
        return self.k(e.value)

    def _BoolLit(self, e):
        return "True" if e.value else "False"

    def _NoneLit(self, e):
        return "None"

    def _NothingLit(self, e):
        return "()"

    def _RangeLit(self, e):
        return self.k(Range(e.low, e.high))

    # ------------------------------------------------------------ names
    def _slot(self, i: int) -> str:
        """The code of local slot ``i`` (a parameter, a query's or a let's variable)."""
        return f"s[{int(i)}]"

    def _Name(self, e):
        kind = e.ref[0]
        if kind == "local":
            return self._slot(e.ref[1])
        if kind == "member":
            return self.k(self.p.levels[e.ref[1]][e.ref[2]])
        if kind == "option":
            return f"({self.k(e.ref[1])} in ctx.options)"
        if kind == "entity":
            return f"_entity(ctx, {self.k(e.ref[1])}, {self.k(e.loc)})"
        if kind == "rule":
            return f"{self.k(self.p._ref(e.ref[1]))}.fn(ctx, [])"
        raise AssertionError(e.ref)

    def _FieldOf(self, e):
        kind = e.ref[0]
        if kind in ("check", "verdict", "range"):
            sub = self.val(e.subject, f"'{_text(e.subject)}'")
        else:
            sub = self.gen(e.subject)
        if kind in ("check", "verdict"):
            return f"({sub}).field({self.k(e.name)})"
        if kind == "range":
            attr = {"low": "low", "high": "high", "empty": "empty"}[e.name]
            return f"({sub}).{attr}"
        what = self.k(_what(e.subject))
        ftype = strip(e.type)
        if self._never_none(sub):
            plain = f"{sub}.fields[{self.k(e.name)}]"
        elif self.plain or ftype.kind == "list":
            plain = f"_fld({sub}, {self.k(e.name)}, {self.k(e.loc)}, {what})"
        else:
            t, held = self.hold(sub)
            plain = (f"({t}.fields[{self.k(e.name)}] if {held} is not None "
                     f"else _none({self.k(e.loc)}, {what}))")
        if ftype.kind == "list" and ftype.inner.kind == "record":
            return plain if e is self.want_ids else f"_things(ctx, {plain})"
        if ftype.kind != "record":
            return plain
        return f"_deref(ctx, {plain})"

    def _never_none(self, code: str) -> bool:
        """Whether this code is known to give a thing, never none (see inline.py)."""
        return False

    # ------------------------------------------------------------ calls
    def _Call(self, e):
        if e.ref[0] == "builtin":
            if e.ref[1] in SIGNATURES:
                return self._geometry(e)
            return getattr(self, "_builtin_" + e.ref[1])(e)
        args = ", ".join(self._args(e))
        return f"{self.k(self.p._ref(e.ref[1]))}.fn(ctx, [{args}])"

    def _args(self, e) -> list:
        """A call's arguments; a none where the parameter is not optional stops, located
        (E604), before the rule can meet it in arithmetic."""
        d = self.p.model.decls.get(e.ref[1])
        params = getattr(d, "params", None) or []
        out = []
        for i, a in enumerate(e.args):
            p = params[i] if i < len(params) else None
            if (p is not None and not A.optional_type(p.type) and a.type is not None
                    and a.type.kind in ("opt", "none")):
                code = self.val(a, f"argument '{p.name}' of {e.ref[1]}")
            else:
                code = self.gen(a)
            bound = p is not None and self._bound_to_keep(a, p)
            if bound:
                code = (f"_within({code}, {self.k(bound)}, {self.k(a.loc)}, "
                        f"{self.k(f'argument {p.name!r} of {e.ref[1]}')})")
            out.append(code)
        return out

    def _bound_to_keep(self, a, p):
        """The range or facings a computed argument must be checked against when it is
        worked out, or None: none for a parameter without one, for a number written
        directly (the checker saw it, E708), or for a field whose declared range lies
        within the parameter's."""
        facing = p.type.kind == "named" and p.type.name in ("Facing", "Direction")
        bound = field_bound(self.p.board if facing else None, p, FACING if facing else None,
                            self.p.model.decls)
        if bound is None or A.literal_int(a) is not None:
            return None
        if isinstance(bound, tuple) and isinstance(a, A.FieldOf) and a.ref \
                and a.ref[0] == "record":
            decl = self.p.model.decls.get(a.ref[1])
            held = next((A.number_range(f.type) for f in getattr(decl, "fields", ())
                         if f.name == a.name), None)
            if held is not None and bound[0] <= held[0] and held[1] <= bound[1]:
                return None
        return bound

    def _query(self, q: A.Query):
        return (f"for _e in {self._query_source(q)} "
                f"if _bind(s, {int(q.ref)}, _e) and ({self.gen(q.cond)})")

    def _query_source(self, q: A.Query) -> str:
        """What a query walks through: every thing of its type, or what an index finds."""
        keys = _index_keys(q)
        if keys is None:
            return f"_ents(ctx, {self.k(q.type_name)}, {self.k(q.loc)})"
        self.plain += 1          # the keys are part of the comprehension's iterable
        pairs = ", ".join(f"({self.k(tuple(f for f, _ in alt))}, ("
                          + "".join(f"{self._key_code(v)[0]}, " for _, v in alt) + "))"
                          for alt in keys)
        self.plain -= 1
        return f"_candidates(ctx, {self.k(q.type_name)}, ({pairs},), {self.k(q.loc)})"

    def _key_code(self, v) -> tuple[str, bool]:
        """A value an index is looked up by (a thing by its id, as the state holds it), and
        whether it is never none when it names a thing."""
        code = self.gen(v)
        kind = strip(v.type).kind if v.type is not None else "any"
        if kind == "record":
            sure = self._never_none(code)
            return (f"{code}.id" if sure else f"_rid({code})"), sure
        return (code if kind in ("int", "enum", "bool", "text", "range") else f"_key({code})"), True

    def _builtin_the(self, e):
        q = e.args[0]
        return f"_the([_e {self._query(q)}], {self.k(e.loc)}, {self.k(q.type_name)})"

    def _builtin_all(self, e):
        return f"tuple([_e {self._query(e.args[0])}])"

    def _builtin_len(self, e):
        if _names_things(e.args[0]):          # as many things as ids: none looked up
            return f"len({self._ids_of(e.args[0])})"
        return f"len({self.val(e.args[0], 'the list')})"

    def _ids_of(self, e) -> str:
        """The ids a list-of-things field holds, without looking each thing up."""
        saved, self.want_ids = self.want_ids, e
        try:
            return self.gen(e)
        finally:
            self.want_ids = saved

    def _builtin_hex_distance(self, e):
        return f"_hex_distance({', '.join(self.val(a) for a in e.args)})"

    def _builtin_hex_adjacent(self, e):
        return f"(_hex_distance({', '.join(self.val(a) for a in e.args)}) == 1)"

    def _builtin_marked(self, e):
        table, column, mark, keys = self._marked_keys(e)
        listed = "".join(f"{k}, " for k in keys)
        return (f"_marked_at(ctx, {self.k(self.p.table_cells(table))}, "
                f"{self.k(self.p.step(table, 'table'))}, {self.k(self.p.cell_marks_of(table))}, "
                f"({listed}), {self.k(column)}, {self.k(mark)})")

    def _marked_keys(self, e):
        """What ``marked(...)`` asks about: its table, the column it names (or None), the
        marker, and the code of the table's keys, checked as a lookup's are (E604, E619)."""
        _, _, table, column, mark = e.ref
        what = e.args[0]
        call = what.subject if isinstance(what, A.FieldOf) else what
        return table, column, mark, self._args(call)

    def _marks_read(self, table, column, mark, keys) -> str:
        """The code that reads whether the cell at ``keys`` (codes) carries ``mark``."""
        second = self.k(column) if column is not None else (keys[1] if len(keys) > 1 else "None")
        marks = self.k(self.p.cell_marks_of(table))
        return f"_marked({marks}, {keys[0]}, {second}, {self.k(mark)})"

    def _each(self, each: A.Each, number: bool = False) -> str:
        """``(element) for s[i] in source if cond``; with ``number``, an element that is none
        stops located (E604) before it is added."""
        source, target = self._each_source(each), f"s[{int(each.ref)}]"
        cond = f" if ({self.gen(each.cond)})" if each.cond is not None else ""
        element = self.val(each.element) if number else self.gen(each.element)
        return f"({element}) for {target} in {source}{cond}"

    def _each_source(self, each: A.Each) -> str:
        """What a ``for`` walks through: a span of numbers or a list."""
        self.plain += 1
        where = self.k(each.loc)
        if each.items is None:
            source = f"_span(ctx, {self.val(each.low)}, {self.val(each.high)}, {where})"
        else:
            source = f"_items(ctx, {self.val(each.items, 'the list')}, {where})"
        self.plain -= 1
        return source

    def _builtin_sum(self, e):
        return f"sum({self._each(e.args[0], number=True)})"

    def _builtin_first(self, e):
        return f"next(({self._each(e.args[0])}), None)"

    def _builtin_every(self, e):
        return f"all({self._each(e.args[0])})"

    def _builtin_some(self, e):
        return f"any({self._each(e.args[0])})"

    def _geometry(self, e):
        args = "".join(f", {self.gen(a)}" for a in e.args)
        if e.name in ("distance", "adjacent"):
            call = f"_distance({self.k(self.p.board)}, {self.k(e.name)}, {self.k(e.loc)}{args})"
            return f"({call} == 1)" if e.name == "adjacent" else call
        return f"_geo({self.k(self.p.board)}, {self.k(e.name)}, {self.k(e.loc)}{args})"

    def _Index(self, e):
        if _names_things(e.subject):         # one thing looked up, not the whole list
            return self._thing_at(self._ids_of(e.subject), self.val(e.index), self.k(e.loc))
        return f"_at({self.gen(e.subject)}, {self.val(e.index)}, {self.k(e.loc)})"

    def _thing_at(self, ids_code, index_code, loc):
        return f"_thing_at(ctx, {ids_code}, {index_code}, {loc})"

    def _Each(self, e):
        raise AssertionError("a 'for' is only an argument of sum/first/every/some")

    def _builtin_count(self, e):
        return f"sum(1 {self._query(e.args[0])})"

    def _builtin_exists(self, e):
        """Traced, the thing found is recorded (``_exists``)."""
        return f"_exists(ctx, {self._found_step(e.args[0])}, (_e {self._query(e.args[0])}))"

    def _found_step(self, query) -> str:
        """The step an ``exists`` over ``query`` records with the thing it found."""
        return self.k(Step("found", "exists", query))

    def _step(self, e, direction):
        levels = self.k(self.p.levels[strip(e.type).name])
        by = self.val(e.args[1]) if len(e.args) > 1 else "1"
        return f"_step({levels}, {self.gen(e.args[0])}, {direction}, {by}, {self.k(e.loc)})"

    def _builtin_next(self, e):
        return self._step(e, 1)

    def _builtin_prev(self, e):
        return self._step(e, -1)

    def _builtin_min(self, e):
        return self._least_or_most(e, "min")

    def _builtin_max(self, e):
        return self._least_or_most(e, "max")

    def _least_or_most(self, e, which):
        args = ", ".join(self.val(a, "a value") for a in e.args)
        if len(e.args) == 1:                 # the least of one value is that value
            return f"({args})"
        return f"_l{which}({args})" if strip(e.type).kind == "enum" else f"{which}({args})"

    def _builtin_abs(self, e):
        return f"abs({self.val(e.args[0])})"

    def _builtin_violates(self, e):
        return f"_violates({self.gen(e.args[0])}, {self.k(e.args[1].ref[1])})"

    # ------------------------------------------------------------ operators
    def _Unary(self, e):
        if e.op == "not":
            return f"(not {self.gen(e.operand)})"
        return f"(-{self.val(e.operand)})"

    def _Binary(self, e):
        op = e.op
        if op in ("and", "or", "==", "!="):      # each operand is generated once: a flat
            a, b = self.gen(e.left), self.gen(e.right)     # sum stays linear to compile
            if op == "==" and isinstance(e.right, A.Name) and e.right.ref[0] == "member":
                return f"({a} is {b})"
            if op in ("==", "!=") and isinstance(e.right, A.NoneLit):   # no value equals
                return f"({a} is {'not ' if op == '!=' else ''}None)"     # none but none
            return f"({a} {op} {b})"
        level = strip(e.left.type).kind == "enum"
        what = "a level" if level else "a number"
        a, b = self.val(e.left, what), self.val(e.right, what)
        if level:
            a, b = f"({a}).index", f"({b}).index"
        if op == "*":
            return self._product(a, b, self.k(e.loc))
        return f"({a} {op} {b})"

    def _product(self, a, b, loc):
        return f"_mul({a}, {b}, {loc})"

    def _MemberOf(self, e):
        a = self.gen(e.value)
        if all(isinstance(o, A.Name) and o.ref[0] == "member" for o in e.options):
            levels = frozenset(self.p.levels[o.ref[1]][o.ref[2]] for o in e.options)
            return f"({a} in {self.k(levels)})"
        return f"({a} in ({', '.join(self.gen(o) for o in e.options)},))"

    def _IsNone(self, e):
        return f"({self.gen(e.value)} is {'not ' if e.negated else ''}None)"

    def _If(self, e):
        return f"({self.gen(e.then)} if {self.gen(e.cond)} else {self.gen(e.otherwise)})"

    def _ListLit(self, e):
        items = [self.gen(i) for i in e.items]
        if e.type is not None and e.type.kind == "effects":
            return "(" + " + ".join(items) + ")" if items else "()"
        return "(" + "".join(f"{i}, " for i in items) + ")"

    def _Roll(self, e):
        die = self.p.model.decls[e.dice.die]
        return (f"_roll(ctx, {self.k(die.name)}, {int(die.low)}, {int(die.high)}, "
                f"{int(e.dice.count)}, {self.k(e.dice.loc)}, {self.k(self.p.step(die.name, 'roll'))})")

    def _Choose(self, e):
        if isinstance(e.options, A.Query):
            options = f"[_e {self._query(e.options)}]"
        else:
            options = f"list({self.gen(e.options)})"
        asker = getattr(e, "asker", None)     # the rule asking, and its arguments
        values = "".join(self._slot(i) + ", " for i in range(len(asker[1]))) if asker else ""
        asked = f", {self.k(asker)}, ({values})" if asker else ""
        return (f"_choose(ctx, {self.k(e.name)}, {options}, {self.k(e.loc)}, "
                f"{self.k(self.p.trace_choice)}{asked})")

    def _After(self, e):
        then = ExprCompiler(self.p).expr(e.then)
        return f"_after(ctx, s, {self.gen(e.effects)}, {self.k(then)})"

    def _Then(self, e):
        rest = ExprCompiler(self.p).expr(e.rest)
        return f"_then(ctx, s, {self.gen(e.first)}, {self.k(rest)})"

    def _Let(self, e):
        body = ExprCompiler(self.p).expr(e.body)
        return f"{self.k(body)}(ctx, _let(list(s), {int(e.ref)}, {self.gen(e.value)}))"

    def _ForEach(self, e):
        body = ExprCompiler(self.p).expr(e.body)
        if e.type_name is not None:
            q = A.Query(e.loc, e.type_name, e.var, e.cond)
            q.ref = e.ref
            things = f"[_e {self._query(q)}]"
        else:
            things = self.val(e.items, "the list")
        return f"_for_each(ctx, list(s), {int(e.ref)}, {things}, {self.k(body)})"

    def _ListEach(self, e):
        return f"tuple({self._each(e.each)})"

    def _InList(self, e):
        return f"({self.gen(e.value)} in {self.val(e.items, 'the list')})"

    # ------------------------------------------------------------ effects
    def _target(self, target):
        return (f"_id({self.gen(target.subject)}, {self.k(target.loc)}, "
                f"{self.k(repr(_text(target.subject)))})")

    def _SetEffect(self, e):
        value = self.gen(e.value)
        target = strip(e.target.type)
        if target.kind == "record":
            value = f"_rid({value})"
        elif target.kind == "list" and target.inner.kind == "record":
            value = f"_ids({value})"
        return (f"(_Effect('set', {self._target(e.target)}, {self.k(e.target.name)}, {value}, "
                f"{self.k(e.loc)}),)")

    def _AddEffect(self, e):
        return (f"(_Effect('add', {self._target(e.target)}, {self.k(e.target.name)}, "
                f"{self.val(e.amount)}, {self.k(e.loc)}),)")

    def _RemoveEffect(self, e):
        return (f"(_Effect('remove', _id({self.gen(e.target)}, {self.k(e.loc)}, "
                f"{self.k('what remove takes')}), None, None, {self.k(e.loc)}),)")


_text = A.to_source         # how an expression is quoted in an error message


def _names_things(e) -> bool:
    """A record's field that holds a list of things (kept as their ids)."""
    if not isinstance(e, A.FieldOf) or not e.ref or e.ref[0] in ("check", "verdict", "range"):
        return False
    return e.type.kind == "list" and e.type.inner.kind == "record"


def _index_keys(q: A.Query):
    """For ``T x where (x.f == v and x.g == w ...) or (x.h == u ...)``: [[(f, v), (g, w)],
    [(h, u)]], the field values an index can look up instead of scanning every T (the
    condition is still checked on what the index finds, unless ``_exact_keys`` says it
    need not be); None when some alternative has no such equality."""
    keys = []
    for alt in _split(q.cond, "or"):
        found = [(mine.name, other) for mine, other in _equalities(alt, q.var)]
        if not found:
            return None
        keys.append(found)
    return keys


# the kinds of field whose == is the index's own equality of the values it holds (a thing
# by its id: within one state each id has one Entity, see runtime.Entity)
_EXACT = {"int", "enum", "bool", "text", "record"}


def _exact_keys(q: A.Query) -> bool:
    """Whether what the index finds for ``_index_keys(q)`` is exactly what the condition
    holds for: each alternative is nothing but its equalities, each on a field of a kind
    in ``_EXACT``.  (The caller still asks that a thing looked up is never none.)"""
    for alt in _split(q.cond, "or"):
        found = _equalities(alt, q.var)
        if len(found) != len(_split(alt, "and")) or any(
                strip(mine.type).kind not in _EXACT or other.type is None
                or strip(other.type).kind != strip(mine.type).kind for mine, other in found):
            return False
    return True


def _split(e, op):
    """The operands of a chain of ``op`` (``and``, ``or``), left to right."""
    parts, stack = [], [e]
    while stack:
        x = stack.pop()
        if isinstance(x, A.Binary) and x.op == op:
            stack += [x.right, x.left]
        else:
            parts.append(x)
    return parts


def _equalities(e, var):
    """The ``x.f == v`` parts of a conjunction, as (the field of x, v), one per field."""
    found = []
    for part in _split(e, "and"):
        if not (isinstance(part, A.Binary) and part.op == "=="):
            continue
        for mine, other in ((part.left, part.right), (part.right, part.left)):
            if (isinstance(mine, A.FieldOf) and isinstance(mine.subject, A.Name)
                    and mine.subject.name == var and mine.ref and mine.ref[0] == "record"
                    and strip(mine.type).kind != "list"
                    and all(f.name != mine.name for f, _ in found)
                    and not any(isinstance(n, A.Name) and n.name == var
                                for n in A.walk(other))):
                found.append((mine, other))
                break
    return found
