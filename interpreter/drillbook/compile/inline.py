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
arguments.  Traced evaluation keeps the functions of ``codegen.py`` and ``__init__.py``,
which record every step; this module only builds what runs when ``ctx.trace`` is None.
The safety rules of ``codegen.py`` hold: only generated names and integer literals appear
in the source, every rulebook value is passed in through the function's globals.
"""
from __future__ import annotations

import re
import types

from .. import ast as A
from ..runtime import CheckResult
from .codegen import HELPERS, _Gen

_TRIVIAL = re.compile(r"^(s\[\d+\]|k\d+|\(-?\d+\)|True|False|None)$")
MAX_DEPTH = 3                 # how deep calls are inlined into one function
_STATE = "    E = ctx.state.entities\n"    # the state's entities, read once per function


class Inliner(_Gen):
    def __init__(self, program):
        super().__init__(program)
        self.subst = None     # the caller's argument sources, while a callee is inlined
        self.depth = 0

    def _Name(self, e):
        if e.ref[0] == "local" and self.subst is not None:
            return self.subst[int(e.ref[1])]
        return super()._Name(e)

    def _Call(self, e):
        if e.ref[0] == "builtin" or self.depth >= MAX_DEPTH:
            return super()._Call(e)
        name = e.ref[1]
        p = self.p
        d = p.model.decls.get(name)
        args = self._args(e)
        if isinstance(d, A.TableDecl) and name in p.model.tables and not self.plain:
            cells = p.table_cells(name)          # each key is evaluated once, as in a call
            keys = [self.tmp() for _ in args]
            key = ", ".join(f"({t} := {a})" for t, a in zip(keys, args))
            t = self.tmp()
            return (f"({t}[0] if ({t} := {self.k(cells)}.get(({key}{', None' if len(args) == 1 else ''}))) "
                    f"is not None else {self._call(name, keys)})")
        # a rule that reads dice is remembered per question (one die, one result); a rule
        # that searches the state is remembered to save time and stays a call, but a list
        # of modifiers that calls one is inlined (the search it calls stays remembered)
        if (d is None or name in p.model.rolls_dice
                or not all(_TRIVIAL.match(a) for a in args)
                or p.model.frame_size.get(name, 0) > len(args)):
            return self._call(name, args)
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
        return self._call(name, args)

    def _FieldOf(self, e):
        subject = e.subject
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


def _function(src: str, consts: dict, name: str):
    code = compile(src, f"<drillbook fast {name}>", "exec")
    fn_code = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    env = dict(HELPERS)
    env.update(consts)
    return types.FunctionType(fn_code, env, "drillbook_" + name)


def expr(program, e: A.Expr):
    """``fn(ctx, s)`` for an expression, its calls inlined (for untraced evaluation)."""
    gen = Inliner(program)
    body = gen.gen(e)
    return _function(f"def f(ctx, s):\n{_STATE}    return {body}\n", gen.consts, "expr")


def modifier_sum(program, m: A.ModifiersDecl):
    """``fn(ctx, s)`` adding up a list of modifiers, their calls inlined."""
    gen = Inliner(program)
    lines = ["def f(ctx, s):", _STATE.rstrip("\n"), "    r = 0"]
    for item in m.items:
        v = gen.val(item.value)                     # none stops located (E604)
        if item.when is None:
            lines.append(f"    r += {v}")
        else:
            lines += [f"    if {gen.gen(item.when)}:", f"        r += {v}"]
    lines.append("    return r")
    return _function("\n".join(lines) + "\n", gen.consts, "modifiers")


def check(program, c: A.CheckDecl, traced, pad: list):
    """The untraced ``fn(ctx, args)`` of a check as one function: target, roll, modifier,
    clamp and judgement in a line, what they call inlined; ``traced`` for everything else
    (a trace, a target that is none, a modifier that may be none)."""
    if c.modifier is not None and c.modifier.type.kind in ("opt", "any"):
        return None
    die = program.model.decls[c.dice.die]
    count, low, high = c.dice.count, die.low, die.high
    gen = Inliner(program)
    g = gen.k
    target = gen.gen(c.target)
    mod = gen.gen(c.modifier) if c.modifier is not None else "0"
    name, op, run = g(c.name), c.op, g(traced)
    lines = ["def f(ctx, args):",
             "    if ctx.trace is not None:",
             f"        return {run}(ctx, args)",
             f"    s = args + {g(pad)}" if pad else "    s = args",
             _STATE.rstrip("\n"),
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
    lines += [f"    mod = {mod}", "    total = natural + mod"]
    if c.clamped:
        lo, hi = int(count * low), int(count * high)
        lines.append(f"    total = ({lo}) if total < ({lo}) else ({hi}) if total > ({hi}) "
                     "else total")
    if op == "at_most":
        lines += ["    ok = total <= goal", "    margin = goal - total if ok else total - goal"]
    elif op == "at_least":
        lines += ["    ok = total >= goal", "    margin = total - goal if ok else goal - total"]
    else:
        lines += ["    lo, hi = goal.low, goal.high",
                  "    ok = lo <= total <= hi",
                  "    margin = (min(total - lo, hi - total) if ok else "
                  "total - hi if total > hi else lo - total)"]
    lines.append(f"    return _Result({name}, natural, mod, total, {g(op)}, goal, ok, margin)")
    gen.consts["_Result"] = CheckResult
    return _function("\n".join(lines) + "\n", gen.consts, "check")
