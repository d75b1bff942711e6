"""Compile stage, traced path: the bodies of rules and lists of modifiers, generated as the
fast path generates them, for evaluation that records a trace.

Traced, every rule, table and list of modifiers a rule calls records its own step, so a
call stays a call here: nothing is inlined.  The rest is the fast path's code (``inline.py``):
searches and loops as ``for`` statements (``lower.py``), field paths read once, parameters
checked for none once on entry.  A none parameter hands the question to the general
function of ``codegen.py``, which stops where the rule first reads it, located.  The steps
themselves (a rule's node, its arguments, what it decided) are recorded by the wrappers of
``__init__.py``, as before.
"""
from __future__ import annotations

from .. import ast as A
from . import lower
from .inline import _STATE, Inliner, _build


class Recorder(Inliner):
    """Generates code for traced evaluation: the fast path's, with every call kept."""

    def _Call(self, e):
        if e.ref[0] == "builtin":
            return super()._Call(e)
        return self._call(e.ref[1], self._args(e))


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
