"""Compile stage, traced path: the bodies of checks, rules and lists of modifiers,
generated as the fast path generates them, for evaluation that records a trace.

Traced, every rule, table, list of modifiers and die a question consults records its
step in the log (``steps.py``).  What the fast path inlines is inlined here too, with its
step recorded in line: a plain rule (a record when it starts, one when it ends), a sum of
modifiers (with each modifier's ``(modifier, applies, value)``) and a table's cell.  The
rest is the fast path's code (``inline.py``): searches and loops as ``for`` statements
(``lower.py``), field paths read once, parameters checked for none once on entry.  A none
parameter hands the question to the general function of ``codegen.py``, which stops where
the rule first reads it, located.  What is not inlined is called: a plain rule through
its traced entry (``entry``), which records its step and remembers it ("as above" when
asked again); everything else through the functions of ``__init__.py``, which record
their own.
"""
from __future__ import annotations

from .. import ast as A
from ..errors import Diagnostic, DrillError
from ..runtime import CheckResult, show
from ..steps import ABOVE, END
from . import lower
from .codegen import _Gen
from .inline import (_STATE, _UNSET, MAX_DEPTH, Inliner, _build, _function, _taken_lines,
                     judging, spend_one)


_LOG = "    _L = ctx.log.append"      # what a step is recorded by (steps.py)


class Recorder(Inliner):
    """Generates code for traced evaluation: the fast path's, with the step of a plain
    rule, a sum of modifiers or a table's cell recorded where it is inlined (``_Call``),
    and every other call kept (a plain rule too deep to inline, unless it is small,
    called through its traced entry, see ``entry``)."""
    records_steps = True        # its functions bind ``_L`` (lower.py records a search's find)

    def __init__(self, program, params: int = 0, counts=None):
        super().__init__(program, params, counts)
        self.consts["_END"] = END

    _builtin_exists = _Gen._builtin_exists    # what it found is recorded, as lower.py does

    def _Call(self, e):
        if e.ref[0] == "builtin":
            return super()._Call(e)
        name, args = e.ref[1], self._args(e)
        d, m = self.p.model.decls.get(name), self.p.model
        if isinstance(d, A.TableDecl) and name in m.tables:
            return self._table(name, args)
        small = name in self.p.small                                   # (leaves.py)
        if small and self._plain_rule(name, d, searching=True) and (
                self.depth >= MAX_DEPTH or name in m.searching
                or m.frame_size.get(name, 0) > len(args)):
            return self._direct_call(name, d, args)
        if (self.depth >= MAX_DEPTH and not small) or m.frame_size.get(name, 0) > len(args):
            return self._call(name, args)
        if (isinstance(d, A.ModifiersDecl) and d.combine == "sum" and d.cap is None
                and name not in m.rolls_dice):
            return self._modifiers(name, d, args)
        if not self._plain_rule(name, d):
            return self._call(name, args)
        # the rule's step in line: it starts (its arguments), its value is worked out,
        # it ends (its value), each a record of the log; "as above" when asked again is
        # read from the log (steps.py), as nothing here is remembered
        bound, names = self._bound(args)
        with self._inside(names):
            body = self.gen(d.value)
        return self._recorded(bound, names, self.p.step(name), body)

    def _recorded(self, bound, names, step, value, items=None):
        """A step recorded around the code of its ``value``: it starts (its arguments,
        bound once by ``_bound``; a list of modifiers' ``items`` too), the value is worked
        out, it ends (the value)."""
        v = self.tmp()
        opened = f"{self.k(step)}, {_listed(names)}" + (f", ({items} := [])" if items else "")
        code = f"(_L(({opened})), ({v} := {value}), _L((_END, {v})))[1]"
        return f"(({', '.join(bound)},) and {code})" if bound else code

    def _plain_rule(self, name, d, searching: bool = False) -> bool:
        """Whether a rule's call can be inlined traced: a rule without exceptions or
        condition that reads no dice and (unless ``searching``) searches nothing."""
        m = self.p.model
        return (type(d) is A.Define and d.value is not None and d.when is None
                and not m.children.get(name) and (searching or name not in m.searching)
                and name not in m.rolls_dice)

    def _direct_call(self, name, d, args):
        """A small plain rule that cannot be inlined here (it searches, needs slots of its
        own, or is too deep), called straight to its traced body with its step recorded
        around the call: as the fast path calls it without remembering it (leaves.py), and
        as ``entry`` would record it, "as above" read from the log."""
        bound, names = self._bound(args)
        slots = ", ".join(names + ["None"] * len(self.p._padding(name, d.params)))
        body = f"{self.k(self.p.traced_body_ref(name))}.fn(ctx, [{slots}])"
        return self._recorded(bound, names, self.p.step(name), body)

    def _modifiers(self, name, d, args):
        """A sum of modifiers in line, its step recorded as a call records it: it starts
        (its arguments, its list of items), each modifier is worked out in order and its
        ``(modifier, applies, value)`` listed, it ends (the sum)."""
        bound, names = self._bound(args)
        items, parts = self.tmp(), ["0"]
        with self._inside(names):
            for item in d.items:
                k, v = self.k(item), self.tmp()
                value = self.val(item.value)            # none stops located (E604)
                if item.when is None:
                    parts.append(f"({items}.append(({k}, True, ({v} := {value}))) or {v})")
                    continue
                on = self.tmp()
                when = self.gen(item.when)
                parts.append(f"(({items}.append(({k}, {on}, ({v} := {value}))) or {v}) "
                             f"if ({on} := {when}) else ({items}.append(({k}, {on}, None)) or 0))")
        return self._recorded(bound, names, self.p.step(name, "modifiers"), " + ".join(parts), items)

    def _table(self, name, args):
        """A table's cell as one dictionary lookup, the cell recorded (its keys, the cell
        found); a missing cell goes through the table's own function, which reports it."""
        one = len(args) == 1
        cells = self.p.table_column(name) if one else self.p.table_cells(name)
        keys, held = zip(*map(self.hold, args))
        key = ", ".join(held)
        t, step = self.tmp(), self.k(self.p.step(name, "table"))
        return (f"({t}[0] if ({t} := {self.k(cells)}.get({key if one else f'({key},)'})) "
                f"is not None and _L(({step}, {_listed(keys)}, {t})) is None "
                f"else {self._call(name, list(keys))})")

    def _column(self, e):           # a table's row is looked up by its call, recorded
        return None

    def _builtin_marked(self, e):
        """Traced, the cell ``marked`` asks about is recorded as its table's lookup is (the
        row the chart prints, with its sources, doubts and gaps), then its markers are
        read as the fast path reads them; a cell the table does not hold records
        nothing, and is marked with nothing."""
        if self.plain:                # no := in a comprehension's source: the general way
            return _Gen._builtin_marked(self, e)
        table, column, mark, keys = self._marked_keys(e)
        names, binds = zip(*map(self.hold, keys))
        one = len(names) == 1
        cells = self.p.table_column(table) if one else self.p.table_cells(table)
        key = names[0] if one else f"({', '.join(names)},)"
        t, step = self.tmp(), self.k(self.p.step(table, "table"))
        recorded = (f"(({t} := {self.k(cells)}.get({key})) is not None "
                    f"and _L(({step}, {_listed(names)}, {t})))")
        marked = self._marks_read(table, column, mark, names)
        return f"({self.binding(*zip(names, binds))}({recorded}, {marked})[1])"

    def _call(self, name, args):
        d = self.p.model.decls.get(name)
        if type(d) is not A.Define:
            return super()._call(name, args)
        return f"{self.k(self.p.traced_ref(name))}.fn(ctx, [{', '.join(args)}])"


def _listed(names) -> str:
    """Names as the source of a tuple."""
    return "(" + "".join(f"{n}, " for n in names) + ")"


def entry(program, d: A.Define, once, value):
    """The traced ``fn(ctx, args)`` of a plain rule, as one function: what ``once`` (the
    rule remembered per question, ``_once_per_question``) does traced, with the rule's
    step recorded in line and ``value(ctx, s)`` (``rule_value``) working it out.  Asked
    again in the question, the rule shows its answer "as above"; untraced, enumerating,
    or given an argument a dictionary cannot hold, it is ``once`` itself."""
    pad = program._padding(d.name, d.params)
    gen = Recorder(program)
    k = gen.k
    slots = f"args + {k(pad)}" if pad else "args"
    src = "\n".join([
        "def f(ctx, args):",
        f"    key = ({k(d.name)}, *args)",
        "    try:",
        "        value = ctx.rolled.get(key, _U)",
        "    except TypeError:",
        f"        return {k(once)}(ctx, args)",
        "    if value is not _U:",
        "        at = ctx.shown.get(key)",
        "        if at is not None:",
        "            ctx.log.append((_ABOVE, at))",
        "        return value",
        "    if ctx.trace is None or ctx.dice.memo is not None:",
        f"        return {k(once)}.miss(ctx, args, key)",
        *spend_one(4),
        "    log = ctx.log",
        "    ctx.shown[key] = len(log)",
        f"    log.append(({k(program.step(d.name))}, args))",
        f"    value = {k(value)}(ctx, {slots})",
        "    log.append((_END, value))",
        "    ctx.rolled[key] = value",
        "    return value", ""])
    gen.consts.update(_U=_UNSET, _ABOVE=ABOVE, _END=END)
    return _function(src, gen.consts, "traced entry")


def rule_value(program, d: A.Define, params: int, slow):
    """``fn(ctx, s)``: the value of a rule without exceptions or condition, traced (the
    caller records the rule's step); ``slow(ctx, s)`` for a parameter that is none."""
    def make(gen):
        return (["def f(ctx, s):", _STATE.rstrip("\n"), _LOG] + lower.lines(gen, d.value, "r", 4)
                + ["    return r"])
    return _build(program, params, "traced rule", make,
                  lambda gen: f"return {gen.k(slow)}(ctx, s)", Recorder)


def modifier_items(program, m: A.ModifiersDecl, slow, traced: bool = True):
    """``fn(ctx, s, items) -> applied``: each modifier of the list worked out in order,
    ``(modifier, applies, value)`` appended to ``items`` (the trace's) as it is, and the
    values of those that apply returned; ``slow(ctx, s, items)`` for a parameter that is
    none.  Not ``traced``, the same without a step recorded, what it calls inlined as
    the fast path inlines it (a list that takes the largest, or has a cap)."""
    n = len(m.params or [])

    def make(gen):
        lines = ["def f(ctx, s, items):", _STATE.rstrip("\n")] + ([_LOG] if traced else [])
        lines.append("    applied = []")
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
    return _build(program, n, "traced modifiers" if traced else "modifiers", make,
                  lambda gen: f"return {gen.k(slow)}(ctx, s, items)",
                  Recorder if traced else Inliner)


def check(program, c: A.CheckDecl, run, pad: list):
    """The traced ``fn(ctx, args)`` of a check as one function: its step starts, the target
    and the modifier are worked out as the fast path works them out (what they call
    inlined, each step recorded), each die rolled is recorded, and the step ends with the
    result; ``run`` (the step-by-step function of ``__init__.py``) for a parameter that is
    none or a modifier that may be none."""
    if c.modifier is not None and c.modifier.type.kind in ("opt", "any"):
        return None
    die = program.model.decls[c.dice.die]
    count, low, high = c.dice.count, die.low, die.high

    def make(gen):
        g = gen.k
        name, op = g(c.name), g(c.op)
        rolled = (f"ctx.dice.roll({g(die.name)}, {int(low)}, {int(high)}, {g(c.dice.loc)})")
        step = g(program.step(die.name, "roll"))
        lines = ["def f(ctx, args):", f"    s = args + {g(pad)}" if pad else "    s = args",
                 _STATE.rstrip("\n"), _LOG,
                 f"    _L(({g(program.step(c.name, 'check'))}, args))"]
        lines += _taken_lines(c, gen, "_L((_END, {r}))\nreturn {r}")
        lines += [f"    goal = {gen.gen(c.target)}",
                 "    if goal is None:", f"        no_target({g(c)}, args)"]
        if c.op == "within":
            lines += ["    if goal.low > goal.high:",
                      f"        r = _Result({name}, None, 0, None, {op}, goal, False, 0)",
                      "        _L((_END, r))", "        return r"]
        if count == 1:
            lines += [f"    natural = {rolled}", f"    _L(({step}, natural))"]
        else:
            lines += ["    natural = 0", f"    for _ in range({int(count)}):",
                      f"        face = {rolled}", f"        _L(({step}, face))",
                      "        natural += face"]
        mod = gen.gen(c.modifier) if c.modifier is not None else "0"
        lines += [f"    mod = {mod}"] + judging(c, count * low, count * high)
        lines += [f"    r = _Result({name}, natural, mod, total, {op}, goal, ok, margin)",
                  "    _L((_END, r))", "    return r"]
        gen.consts.update(_Result=CheckResult, no_target=no_target)
        return lines
    return _build(program, len(c.params or []), "traced check", make,
                  lambda gen: f"return {gen.k(run)}(ctx, args)", Recorder)


def no_target(c: A.CheckDecl, args=()):
    """A check whose target does not apply here (E609), named with its arguments."""
    given = ", ".join(f"{p.name} = {show(a)}" for p, a in zip(c.params or [], args))
    raise DrillError([Diagnostic(
        c.target.loc, "E609", f"check '{c.name}'" + (f" ({given})" if given else "")
        + f": its target {A.to_source(c.target)} is — here: the rules give no roll for "
        "this case", "the chart leaves this case out (—); where the rules take no roll, "
        "say so with the check's 'when' (docs/language.md, Checks)")])
