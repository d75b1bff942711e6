"""Compile stage, traced path: the bodies of rules and lists of modifiers, generated as the
fast path generates them, for evaluation that records a trace.

Traced, every rule, table and list of modifiers a rule calls records its own step, so a
call stays a call here: nothing is inlined.  The rest is the fast path's code (``inline.py``):
searches and loops as ``for`` statements (``lower.py``), field paths read once, parameters
checked for none once on entry.  A none parameter hands the question to the general
function of ``codegen.py``, which stops where the rule first reads it, located.  A plain
rule's step (its node, its arguments, its value, "as above" when asked again) is recorded
by its traced entry (``entry``); the steps of everything else by the wrappers of
``__init__.py``.
"""
from __future__ import annotations

from .. import ast as A
from ..runtime import Trace
from . import lower
from .inline import _STATE, _UNSET, Inliner, _build, _function, spend_one


class Recorder(Inliner):
    """Generates code for traced evaluation: the fast path's, with every call kept (a
    plain rule called through its traced entry, see ``entry``)."""

    def _Call(self, e):
        if e.ref[0] == "builtin":
            return super()._Call(e)
        return self._call(e.ref[1], self._args(e))

    def _column(self, e):           # a table's row is looked up by its call, recorded
        return None

    def _call(self, name, args):
        d = self.p.model.decls.get(name)
        if type(d) is not A.Define:
            return super()._call(name, args)
        return f"{self.k(self.p.traced_ref(name))}.fn(ctx, [{', '.join(args)}])"


def entry(program, d: A.Define, once, value):
    """The traced ``fn(ctx, args)`` of a plain rule, as one function: what ``once`` (the
    rule remembered per question, ``_once_per_question``) does traced, with the rule's
    step recorded in line and ``value(ctx, s)`` (``rule_value``) working it out.  Asked
    again in the question, the rule shows its answer "as above"; untraced, enumerating,
    or given an argument a dictionary cannot hold, it is ``once`` itself."""
    params = [p.name for p in d.params or []]
    pad = program._padding(d.name, d.params)
    gen = Recorder(program)
    k = gen.k
    named = ", ".join(f"{k(p)}: args[{i}]" for i, p in enumerate(params))
    slots = f"args + {k(pad)}" if pad else "args"
    src = "\n".join([
        "def f(ctx, args):",
        f"    key = ({k(d.name)}, *args)",
        "    try:",
        "        value = ctx.rolled.get(key, _U)",
        "    except TypeError:",
        f"        return {k(once)}(ctx, args)",
        "    if value is not _U:",
        "        node = ctx.shown.get(key)",
        "        if node is not None:",
        "            ctx.stack[-1].children.append(_Trace(node.kind, node.name, node.decl, "
        "node.value, node.detail))",
        "        return value",
        "    if ctx.trace is None or ctx.dice.memo is not None:",
        f"        return {k(once)}.miss(ctx, args, key)",
        *spend_one(4),
        "    node = _new(_Trace)",          # Trace(...) without a call of its __init__
        f"    node.kind, node.name, node.decl, node.value = {k('rule')}, {k(d.name)}, {k(d)}, None",
        f"    node.detail, node.children = {{{k('args')}: {{{named}}}}}, []",
        "    stack = ctx.stack",
        "    stack[-1].children.append(node)",
        "    stack.append(node)",
        "    try:",
        f"        value = node.value = {k(value)}(ctx, {slots})",
        "    finally:",
        "        stack.pop()",
        "    ctx.rolled[key] = value",
        "    ctx.shown[key] = node",
        "    return value", ""])
    gen.consts.update(_Trace=Trace, _U=_UNSET, _new=object.__new__)
    return _function(src, gen.consts, "traced entry")


def rule_value(program, d: A.Define, params: int, slow):
    """``fn(ctx, s)``: the value of a rule without exceptions or condition, traced (the
    caller records the rule's step); ``slow(ctx, s)`` for a parameter that is none."""
    def make(gen):
        return (["def f(ctx, s):", _STATE.rstrip("\n")] + lower.lines(gen, d.value, "r", 4)
                + ["    return r"])
    return _build(program, params, "traced rule", make,
                  lambda gen: f"return {gen.k(slow)}(ctx, s)", Recorder)


def modifier_items(program, m: A.ModifiersDecl, slow):
    """``fn(ctx, s, items) -> applied``: each modifier of the list worked out in order,
    ``(modifier, applies, value)`` appended to ``items`` (the trace's) as it is, and the
    values of those that apply returned; ``slow(ctx, s, items)`` for a parameter that is
    none."""
    n = len(m.params or [])

    def make(gen):
        lines = ["def f(ctx, s, items):", _STATE.rstrip("\n"), "    applied = []"]
        for item in m.items:
            k = gen.k(item)
            if item.when is None:
                lines += lower.lines(gen, item.value, "v", 4) + [
                    "    applied.append(v)", f"    items.append(({k}, True, v))"]
            else:
                lines += (lower.lines(gen, item.when, "on", 4) + ["    if on:"]
                          + lower.lines(gen, item.value, "v", 8)
                          + ["        applied.append(v)", "    else:", "        v = None",
                             f"    items.append(({k}, on, v))"])
        return lines + ["    return applied"]
    return _build(program, n, "traced modifiers", make,
                  lambda gen: f"return {gen.k(slow)}(ctx, s, items)", Recorder)
