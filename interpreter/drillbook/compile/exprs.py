"""Compile stage: expressions → Python closures ``fn(ctx, slots) -> value``.

Every name was resolved by the check stage (``node.ref``); nothing is looked up by name
while a rulebook is evaluated, and no rulebook text is ever executed as Python.
"""
from __future__ import annotations

import operator

from .. import ast as A
from ..errors import fail
from ..runtime import Effect, Range, show
from ..check.types import strip

_ARITH = {"+": operator.add, "-": operator.sub, "*": operator.mul}
_ORDER = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}


def _none_error(loc, what):
    fail(loc, "E604", f"{what} is none here", "check it first with 'is none' or give the state a value")


class ExprCompiler:
    def __init__(self, program):
        self.p = program          # gives levels, record field kinds, and late-bound rules

    def expr(self, e: A.Expr):
        return getattr(self, "_" + type(e).__name__)(e)

    # ------------------------------------------------------------ literals
    def _IntLit(self, e):
        v = e.value
        return lambda ctx, s: v

    def _TextLit(self, e):
        v = e.value
        return lambda ctx, s: v

    def _BoolLit(self, e):
        v = e.value
        return lambda ctx, s: v

    def _NoneLit(self, e):
        return lambda ctx, s: None

    def _NothingLit(self, e):
        return lambda ctx, s: ()

    def _RangeLit(self, e):
        r = Range(e.low, e.high)
        return lambda ctx, s: r

    # ------------------------------------------------------------ names
    def _Name(self, e):
        kind = e.ref[0]
        if kind == "local":
            slot = e.ref[1]
            return lambda ctx, s: s[slot]
        if kind == "member":
            level = self.p.levels[e.ref[1]][e.ref[2]]
            return lambda ctx, s: level
        if kind == "option":
            name = e.ref[1]
            return lambda ctx, s: name in ctx.options
        if kind == "entity":
            ident, loc = e.ref[1], e.loc

            def entity(ctx, s):
                ent = ctx.state.entities.get(ident)
                if ent is None:
                    fail(loc, "E605", f"'{ident}' is not in the game state")
                return ent
            return entity
        if kind == "rule":
            return self.p.call_site(e.ref[1], [], e.loc)
        raise AssertionError(e.ref)

    def _FieldOf(self, e):
        subject = self.expr(e.subject)
        name, loc = e.name, e.loc
        kind = e.ref[0]
        if kind in ("check", "verdict"):
            def check_field(ctx, s):
                return subject(ctx, s).field(name)
            return check_field
        if kind == "range":
            if name == "empty":
                return lambda ctx, s: subject(ctx, s).empty
            attr = operator.attrgetter(name)
            return lambda ctx, s: attr(subject(ctx, s))
        is_ref = strip(e.type).kind == "record"
        what = f"'{_text(e.subject)}'"

        if is_ref:
            def ref_field(ctx, s):
                try:
                    ident = subject(ctx, s).fields[name]
                except AttributeError:
                    _none_error(loc, what)
                return None if ident is None else ctx.state.entities.get(ident)
            return ref_field

        def plain_field(ctx, s):
            try:
                return subject(ctx, s).fields[name]
            except AttributeError:
                _none_error(loc, what)
        return plain_field

    # ------------------------------------------------------------ calls
    def _Call(self, e):
        if e.ref[0] == "builtin":
            return getattr(self, "_builtin_" + e.ref[1])(e)
        args = [self.expr(a) for a in e.args]
        return self.p.call_site(e.ref[1], args, e.loc)

    def _builtin_count(self, e):
        q = e.args[0]
        slot, cond, tname = q.ref, self.expr(q.cond), q.type_name

        def count(ctx, s):
            n = 0
            ents = ctx.state.entities
            for ident in ctx.state.by_type.get(tname, ()):
                s[slot] = ents[ident]
                if cond(ctx, s):
                    n += 1
            return n
        return count

    def _builtin_exists(self, e):
        q = e.args[0]
        slot, cond, tname = q.ref, self.expr(q.cond), q.type_name

        def exists(ctx, s):
            ents = ctx.state.entities
            for ident in ctx.state.by_type.get(tname, ()):
                s[slot] = ents[ident]
                if cond(ctx, s):
                    return True
            return False
        return exists

    def _step(self, e, direction):
        arg = self.expr(e.args[0])
        by = self.expr(e.args[1]) if len(e.args) > 1 else (lambda ctx, s: 1)
        levels = self.p.levels[strip(e.type).name]
        last = len(levels) - 1
        loc = e.loc

        def step(ctx, s):
            lv = arg(ctx, s)
            if lv is None:
                _none_error(loc, "the level")
            i = lv.index + direction * by(ctx, s)
            return levels[0 if i < 0 else last if i > last else i]
        return step

    def _builtin_next(self, e):
        return self._step(e, 1)

    def _builtin_prev(self, e):
        return self._step(e, -1)

    def _extreme(self, e, pick):
        args = [self.expr(a) for a in e.args]
        if strip(e.type).kind == "enum":
            def by_level(ctx, s):
                return pick((a(ctx, s) for a in args), key=lambda lv: lv.index)
            return by_level
        return lambda ctx, s: pick(a(ctx, s) for a in args)

    def _builtin_min(self, e):
        return self._extreme(e, min)

    def _builtin_max(self, e):
        return self._extreme(e, max)

    def _builtin_violates(self, e):
        verdict = self.expr(e.args[0])
        item = e.args[1].ref[1]
        return lambda ctx, s: any(d.name == item for d in verdict(ctx, s).violated)

    def _After(self, e):
        effects, then = self.expr(e.effects), self.expr(e.then)
        from ..runtime import Ctx, Entity

        def after(ctx, s):
            new_state, _ = ctx.state.apply(effects(ctx, s))
            sub = Ctx(new_state, ctx.dice, ctx.options)
            sub.trace, sub.stack = ctx.trace, ctx.stack
            fresh = [new_state.entities.get(v.id) if isinstance(v, Entity) else v for v in s]
            return then(sub, fresh)
        return after

    def _builtin_abs(self, e):
        arg = self.expr(e.args[0])
        return lambda ctx, s: abs(arg(ctx, s))

    # ------------------------------------------------------------ operators
    def _Unary(self, e):
        a = self.expr(e.operand)
        if e.op == "not":
            return lambda ctx, s: not a(ctx, s)
        return lambda ctx, s: -a(ctx, s)

    def _Binary(self, e):
        a, b, op = self.expr(e.left), self.expr(e.right), e.op
        if op == "and":
            return lambda ctx, s: a(ctx, s) and b(ctx, s)
        if op == "or":
            return lambda ctx, s: a(ctx, s) or b(ctx, s)
        if op == "==":
            if isinstance(e.right, A.Name) and e.right.ref[0] == "member":
                level = self.p.levels[e.right.ref[1]][e.right.ref[2]]
                return lambda ctx, s: a(ctx, s) is level
            return lambda ctx, s: a(ctx, s) == b(ctx, s)
        if op == "!=":
            return lambda ctx, s: a(ctx, s) != b(ctx, s)
        loc = e.loc
        if op in _ARITH:
            fn = _ARITH[op]

            def arith(ctx, s):
                x, y = a(ctx, s), b(ctx, s)
                if x is None or y is None:
                    _none_error(loc, "a number")
                return fn(x, y)
            return arith
        fn = _ORDER[op]
        if strip(e.left.type).kind == "enum":
            def by_level(ctx, s):
                x, y = a(ctx, s), b(ctx, s)
                if x is None or y is None:
                    _none_error(loc, "a level")
                return fn(x.index, y.index)
            return by_level

        def order(ctx, s):
            x, y = a(ctx, s), b(ctx, s)
            if x is None or y is None:
                _none_error(loc, "a number")
            return fn(x, y)
        return order

    def _MemberOf(self, e):
        a = self.expr(e.value)
        opts = [self.expr(o) for o in e.options]
        return lambda ctx, s: a(ctx, s) in [o(ctx, s) for o in opts]

    def _IsNone(self, e):
        a = self.expr(e.value)
        if e.negated:
            return lambda ctx, s: a(ctx, s) is not None
        return lambda ctx, s: a(ctx, s) is None

    def _If(self, e):
        c, t, f = self.expr(e.cond), self.expr(e.then), self.expr(e.otherwise)
        return lambda ctx, s: t(ctx, s) if c(ctx, s) else f(ctx, s)

    def _ListLit(self, e):
        items = [self.expr(i) for i in e.items]
        if e.type is not None and e.type.kind == "effects":
            def effects(ctx, s):
                out = ()
                for i in items:
                    out += i(ctx, s)
                return out
            return effects
        return lambda ctx, s: tuple(i(ctx, s) for i in items)

    def _Roll(self, e):
        die = self.p.model.decls[e.dice.die]
        name, low, high, count, loc = die.name, die.low, die.high, e.dice.count, e.dice.loc

        def roll(ctx, s):
            total = 0
            for _ in range(count):
                face = ctx.dice.roll(name, low, high, loc)
                if ctx.trace is not None:
                    ctx.stack[-1].children.append(self.p.trace_roll(name, face))
                total += face
            return total
        return roll

    def _Choose(self, e):
        name, loc = e.name, e.loc
        if isinstance(e.options, A.Query):
            q = e.options
            slot, cond, tname = q.ref, self.expr(q.cond), q.type_name

            def options(ctx, s):
                ents = ctx.state.entities
                out = []
                for ident in ctx.state.by_type.get(tname, ()):
                    s[slot] = ents[ident]
                    if cond(ctx, s):
                        out.append(ents[ident])
                return out
        else:
            listed = self.expr(e.options)

            def options(ctx, s):
                return list(listed(ctx, s))
        trace_choice = self.p.trace_choice

        def choose(ctx, s):
            opts = options(ctx, s)
            value = ctx.dice.choose(name, opts, loc)
            if ctx.trace is not None:
                ctx.stack[-1].children.append(trace_choice(name, value, opts))
            return value
        return choose

    # ------------------------------------------------------------ effects
    def _target(self, target):
        subject = self.expr(target.subject)
        loc = target.loc
        what = f"'{_text(target.subject)}'"

        def entity(ctx, s):
            ent = subject(ctx, s)
            if ent is None:
                _none_error(loc, what)
            return ent
        return entity

    def _SetEffect(self, e):
        ent, value, fname, loc = self._target(e.target), self.expr(e.value), e.target.name, e.loc
        is_ref = strip(e.target.type).kind == "record"

        def set_effect(ctx, s):
            v = value(ctx, s)
            if is_ref and v is not None:
                v = v.id
            return (Effect("set", ent(ctx, s).id, fname, v, loc),)
        return set_effect

    def _AddEffect(self, e):
        ent, amount, fname, loc = self._target(e.target), self.expr(e.amount), e.target.name, e.loc
        return lambda ctx, s: (Effect("add", ent(ctx, s).id, fname, amount(ctx, s), loc),)

    def _RemoveEffect(self, e):
        target, loc = self.expr(e.target), e.loc

        def remove(ctx, s):
            ent = target(ctx, s)
            if ent is None:
                _none_error(loc, "what 'remove' takes")
            return (Effect("remove", ent.id, None, None, loc),)
        return remove


def _text(e) -> str:
    if isinstance(e, A.Name):
        return e.name
    if isinstance(e, A.FieldOf):
        return _text(e.subject) + "." + e.name
    if isinstance(e, A.Call):
        return e.name + "(...)"
    return show(getattr(e, "value", "…"))
