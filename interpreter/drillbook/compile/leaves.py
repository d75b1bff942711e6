"""Compile stage, planning: which rules are small enough to be worked out afresh at each
untraced call, inlined or called directly, instead of being remembered per question.

Every rule is remembered per question (one result per arguments) so that evaluation costs
time polynomial in the rulebook: a rule that calls another twice per level costs one call
per level, not 2^levels.  Remembering has a price of its own (a key, a lookup, a budget
entry per call), which dominates for a small rule such as "the two leaders are stacked or
adjacent".  A rule that reads no die, whose expression — with everything it calls
expanded — has at most ``MAX_NODES`` nodes and at most one search or loop on any path, costs
a bounded amount of work per call (its one loop is counted against the question's budget by
the loop itself), so it need not be remembered.  Anything larger or deeper stays remembered,
which keeps the polynomial bound: a chain of rules each calling the one before twice
doubles its expanded size per level and crosses ``MAX_NODES`` after a few levels.
"""
from __future__ import annotations

from .. import ast as A

MAX_NODES = 200
_LOOPS = (A.Query, A.Each, A.ForEach)
_TOO_BIG = (MAX_NODES + 1, 2)


class SmallRules:
    """``name in small``: whether the rule (a definition or requirement item) need not be
    remembered per question when evaluated without a trace.  Worked out per rule when first
    asked, so that a question pays only for the rules it reaches."""

    def __init__(self, model):
        self.model = model
        self.sizes: dict = {}

    def __contains__(self, name) -> bool:
        if type(self.model.decls.get(name)) not in (A.Define, A.RequireDecl):
            return False
        if name not in self.sizes:
            _size(self.model, name, self.sizes)
        nodes, loops = self.sizes[name]
        return nodes <= MAX_NODES and loops <= 1


def small_rules(model) -> set:
    """Every small rule of the rulebook, by name (for tests and tools)."""
    small = SmallRules(model)
    return {name for name in model.decls if name in small}


def _exprs(model, name):
    """The expressions a rule evaluates: its own and its exceptions' (nested ones too)."""
    out, todo = [], [model.decls[name]]
    while todo:
        d = todo.pop()
        out += [e for e in (getattr(d, "when", None), getattr(d, "value", None)) if e is not None]
        todo += model.children.get(d.name, [])
    return out


def _size(model, root, sizes):
    """(expanded nodes, deepest loop nesting) of ``root``, saturated at _TOO_BIG; worked
    out with an explicit stack, so a chain of thousands of rules needs no deep recursion."""
    stack, visiting = [root], set()
    while stack:
        name = stack[-1]
        if name in sizes:
            stack.pop()
            continue
        d = model.decls.get(name)
        if type(d) not in (A.Define, A.RequireDecl) or name in model.rolls_dice:
            sizes[name] = _TOO_BIG
            stack.pop()
            continue
        visiting.add(name)
        calls, waiting = [], False
        nodes, loops = 0, 0
        todo = [(e, 0) for e in _exprs(model, name)]
        while todo:
            e, depth = todo.pop()
            nodes += 1
            if isinstance(e, _LOOPS):
                depth += 1
                loops = max(loops, depth)
            if isinstance(e, A.Call) and e.ref and e.ref[0] != "builtin":
                callee = e.ref[1]
                if not isinstance(model.decls.get(callee), A.TableDecl):
                    calls.append((callee, depth))
            for value in vars(e).values():
                if isinstance(value, A.Expr):
                    todo.append((value, depth))
                elif isinstance(value, list):
                    todo += [(x, depth) for x in value if isinstance(x, A.Expr)]
            if nodes > MAX_NODES:
                break
        for callee, _ in calls:
            if callee not in sizes and callee not in visiting:
                stack.append(callee)
                waiting = True
        if waiting and nodes <= MAX_NODES:
            continue
        stack.pop()
        visiting.discard(name)
        for callee, depth in calls:
            n, l = sizes.get(callee, _TOO_BIG)
            nodes += n
            loops = max(loops, depth + l)
        sizes[name] = (nodes, loops) if nodes <= MAX_NODES and loops <= 1 else _TOO_BIG
