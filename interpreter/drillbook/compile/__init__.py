"""Compile stage: a checked ``Model`` → a ``Program`` of generated functions, built once, run many times.

Rules with exceptions follow default logic: the exceptions of a rule are tried first; if
exactly one gives a value it decides, if two do evaluation stops with a conflict naming
both, if none does the rule's own case decides.  An exception can have exceptions too.
"""
from __future__ import annotations

from typing import Callable, NamedTuple

from .. import ast as A
from ..errors import Diagnostic, DrillError
from ..runtime import (NEVER, ChartRow, CheckResult, Ctx, Entity, Level, Range, Verdict, not_taken,
                       show)
from ..steps import ABOVE, END, LEAF, Logged, Step, Trace
from ..check.geometry import board_of
from ..geometry import Board
from . import inline, record
from .codegen import ExprCompiler, moved_on
from .leaves import SmallRules

_EMPTY = object()        # "this rule or exception does not apply"


class _Entry(NamedTuple):
    """The ways into a rule besides its general function, for ``_once_per_question``."""
    untraced: Callable               # fn(ctx, args): the rule worked out without a trace
    recorded: Callable | None = None     # fn(ctx, args): worked out traced (a plain rule)
    body: Callable | None = None         # fn() -> its traced body (record.rule_value)
    first: _Ref | None = None            # its generated first call, see inline.rule


class _Ref:
    """A late-bound callable, so that rules may call rules compiled after them."""
    __slots__ = ("fn",)

    def __init__(self):
        self.fn = None


class _Callables(dict):
    """A rulebook's compiled rules, tables, checks... by name, each compiled when first
    asked for."""

    def __init__(self, program):
        super().__init__()
        self.program = program

    def __missing__(self, name):
        if name not in self.program._pending:
            raise KeyError(name)
        return self.program._compile(name)


class Program:
    """A checked model's rules, compiled.  ``generated=False`` builds the step-by-step
    functions of this module only, without the generated fast and traced code of
    ``inline.py`` and ``record.py``: the slower oracle the tests and the fuzzer check that
    code against (the same answers, the same located errors, the same traces)."""

    def __init__(self, model, generated: bool = True):
        self.model = model
        self.generated = generated
        self.levels: dict[str, list[Level]] = {}
        for name, enum in model.of_kind(A.EnumDecl).items():
            self.levels[name] = [Level(name, m.name, i, m.label) for i, m in enumerate(enum.members)]
        board = board_of(model)
        self.board = Board.declared(board) if board else None
        self.refs: dict[str, _Ref] = {}
        self.cell_marks: dict[str, dict] = {}     # table -> {(key, column): markers}
        self.defaults: dict = {}                  # a field's default expression -> its value
        self.exprs = ExprCompiler(self)
        self.callables: dict[str, object] = _Callables(self)
        self._pending: dict = {}
        self._cells: dict = {}                    # table -> {(key, key): cell}
        self._columns: dict = {}                  # (table, column) -> see table_column
        self.unremembered: dict = {}              # name -> its function before _once_per_question
        self.fast: dict[str, _Ref] = {}           # name -> its untraced fn(ctx, slots)
        self.entries: dict[str, _Entry] = {}      # name -> its ways in, see _define
        self.traced: dict[str, _Ref] = {}         # name -> its traced entry (record.py)
        self._bodies: dict[str, _Ref] = {}        # name -> its traced body, see traced_body_ref
        self._small = None
        self._steps: dict = {}                    # see step
        for name, d in model.decls.items():
            build = {A.Define: self._define, A.TableDecl: self._table,
                     A.ModifiersDecl: self._modifiers, A.CheckDecl: self._check,
                     A.RequireDecl: self._define, A.RequirementsDecl: self._requirements,
                     A.ProcedureDecl: self._procedure}.get(type(d))
            if build is not None and (not isinstance(d, A.TableDecl) or name in model.tables):
                self._pending[name] = (build, d)
                self._ref(name).fn = self._on_first_call(name)

    # ------------------------------------------------------------ calls
    def _ref(self, name) -> _Ref:
        return self.refs.setdefault(name, _Ref())

    @property
    def small(self) -> SmallRules:
        """The rules untraced evaluation need not remember per question (leaves.py)."""
        if self._small is None:
            self._small = SmallRules(self.model)
        return self._small

    def fast_ref(self, name) -> _Ref:
        """A late-bound ``fn(ctx, slots)``: the rule ``name`` untraced and not remembered,
        its local slots already padded (compiled when first called)."""
        ref = self.fast.get(name)
        if ref is None:
            ref = self.fast[name] = _Ref()

            def first(ctx, s):
                self.callables[name]
                return ref.fn(ctx, s)
            ref.fn = first
        return ref

    def traced_ref(self, name) -> _Ref:
        """A late-bound ``fn(ctx, args)`` the traced code of ``record.py`` calls ``name``
        by: the rule's own traced entry when it is a plain rule, the rule otherwise."""
        ref = self.traced.get(name)
        if ref is None:
            ref = self.traced[name] = _Ref()

            def first(ctx, args):
                once = self.callables[name]
                entry = self.entries.get(name)
                ref.fn = once if (entry is None or entry.body is None
                                  or not self.generated) else record.entry(
                    self, self.model.decls[name], once, entry.body())
                return ref.fn(ctx, args)
            ref.fn = first
        return ref

    def traced_body_ref(self, name) -> _Ref:
        """A late-bound ``fn(ctx, slots)``: the traced body of the plain rule ``name``
        (record.rule_value), which records the steps of what it consults but not its own
        (its caller does), generated when first called."""
        ref = self._bodies.get(name)
        if ref is None:
            ref = self._bodies[name] = _Ref()

            def first(ctx, s):
                self.callables[name]
                ref.fn = self.entries[name].body()
                return ref.fn(ctx, s)
            ref.fn = first
        return ref

    def _on_first_call(self, name):
        """What a rule is until it is first called: compiling it, then calling it.  A
        question compiles only the rules it reaches, whatever else the rulebook holds."""
        def first(ctx, args):
            return self.callables[name](ctx, args)
        first.miss = lambda ctx, args, key: self.callables[name].miss(ctx, args, key)
        return first

    def _compile(self, name):
        build, d = self._pending.pop(name)
        fn = self.unremembered[name] = build(d)
        if not isinstance(d, A.TableDecl):     # every rule once per question (polynomial)
            entry = self.entries.get(name)
            fn = _once_per_question(name, fn, name not in self.model.rolls_dice,
                                    *((entry.recorded, entry.untraced) if entry else ()))
            if entry is not None and entry.first is not None:
                entry.first.fn, fn.miss = fn.miss, self.fast_ref(name).fn
        dict.__setitem__(self.callables, name, fn)
        self._ref(name).fn = fn
        return fn

    def compile_all(self) -> "Program":
        for name in list(self._pending):
            if name in self._pending:
                self._compile(name)
        return self

    def table_cells(self, table: str) -> dict:
        """A compiled table's cells by keys, as its lookup reads them (for inlining)."""
        if table in self._pending:
            self._compile(table)
        return self._cells[table]

    def table_column(self, table: str, field=None) -> dict:
        """A one-key table's cells by the bare key (no ``(key, None)`` tuple to build), or,
        given a column of a chart, that column's values by key: ``chart(t).hi`` is then one
        dictionary lookup.  Made once per table and column, for inlining."""
        made = self._columns.get((table, field))
        if made is None:
            cells = self.table_cells(table)
            made = self._columns[(table, field)] = {
                k0: hit if field is None else hit[0].fields[field]
                for (k0, _), hit in cells.items() if field is None or field in hit[0].fields}
        return made

    def cell_marks_of(self, table: str) -> dict:
        """The footnote markers of a table's cells, filled in when the table is compiled."""
        if table in self._pending:
            self._compile(table)
        return self.cell_marks.setdefault(table, {})

    def compile_expr(self, e: A.Expr):
        return self.exprs.expr(e)

    def leading_after(self, e: A.Expr, ctx, slots):
        """A question's leading ``after EFFECTS:`` parts worked out once, on ``ctx``: the
        context and slots of the state they leave, and the rest of the question to work
        out there (its changes are shown from that state, not from the one asked)."""
        while isinstance(e, A.After):
            effects = self.compile_expr(e.effects)(ctx, slots)
            ctx, slots = moved_on(ctx, slots, effects)
            e = e.then
        return ctx, slots, e

    def step(self, name, kind: str = "rule") -> Step:
        """What the trace's compact records of a plain rule, a list of modifiers, a table or
        a die (``kind``) stand for (steps.py), one for each."""
        step = self._steps.get((kind, name))
        if step is None:
            d = self.model.decls.get(name) if kind != "roll" else None
            step = self._steps[(kind, name)] = Step(
                kind, name, d, [p.name for p in getattr(d, "params", None) or []])
        return step

    def trace_choice(self, name, value, options):
        return Trace("choice", name, value=value, detail={"options": options})

    def _padding(self, name, params) -> list:
        """The empty local slots a rule needs beyond its parameters."""
        return [None] * max(0, self.model.frame_size.get(name, 0) - len(params or []))

    # ------------------------------------------------------------ rules & exceptions
    def _case(self, d):
        when = self.exprs.expr(d.when) if d.when is not None else None
        value = self.exprs.expr(d.value) if d.value is not None else None
        kids = [self._case(k) for k in self.model.children.get(d.name, [])]
        return d, when, value, kids

    def _define(self, d: A.Define):
        tree = self._case(d)
        name = d.name
        params = [p.name for p in d.params or []]
        pad = self._padding(name, d.params)
        if not tree[3] and tree[1] is None and tree[2] is not None:
            slow = tree[2]        # a plain rule: no exceptions, no condition
            first = _Ref() if self.generated else None
            untraced = self.fast_ref(name).fn = inline.rule(
                self, d, len(params), lambda ctx, args: slow(ctx, args + pad if pad else args),
                pad, first) if self.generated else slow
            value = None
            step = self.step(name)

            def body():
                nonlocal value
                if value is None:       # the traced body, generated when first traced
                    value = (record.rule_value(self, d, len(params), slow) if self.generated
                             else slow)
                return value

            def recorded(ctx, args):
                traced = value or body()
                log = ctx.log
                log.append((step, args))
                v = traced(ctx, args + pad if pad else args)
                log.append((END, v))
                return v
            self.entries[name] = _Entry(untraced if not pad
                                        else lambda ctx, args: untraced(ctx, args + pad),
                                        recorded, body, first)

            def plain(ctx, args):
                if ctx.trace is None:
                    return untraced(ctx, args + pad if pad else args)
                return recorded(ctx, args)
            return plain

        def general(ctx, args):
            s = args + pad if pad else args
            node = None
            if ctx.trace is not None:
                node = Trace("rule", name, d, detail={"args": dict(zip(params, args)),
                                                      "considered": []})
                ctx.enter(node)
            try:
                got = self._decide(tree, ctx, s, node)
            finally:
                if node is not None:
                    ctx.leave()
            if got is _EMPTY:
                if isinstance(d, A.RequireDecl):   # a requirement that does not apply is met
                    if node is not None:
                        node.value = True
                        node.detail["inapplicable"] = True      # explain says so
                    return True
                given = ", ".join(f"{p} = {show(v)}" for p, v in zip(params, args))
                when = getattr(d, "when", None)
                raise DrillError([Diagnostic(
                    when.loc if when is not None else d.loc, "E606",
                    f"no case of '{name}' applies here ({given})" if given else
                    f"no case of '{name}' applies here",
                    "its own 'when' (this condition) is false for these arguments and no "
                    "exception applies")])
            decl, v = got
            if node is not None:
                node.value = v
                node.detail["decided_by"] = decl
            return v
        first = _Ref()
        fast = inline.rule(self, d, len(params), general, pad, first) if self.generated else None
        n = len(params)
        self.fast_ref(name).fn = fast or (lambda ctx, s: general(ctx, s[:n]))
        if fast is None:
            return general
        self.entries[name] = _Entry(fast if not pad else lambda ctx, args: fast(ctx, args + pad),
                                    first=first)

        def with_exceptions(ctx, args):
            if ctx.trace is None:
                return fast(ctx, args + pad if pad else args)
            return general(ctx, args)
        return with_exceptions

    def _decide(self, tree, ctx, s, node):
        decl, when, value, kids = tree
        found = []
        for kid in kids:
            got = self._decide(kid, ctx, s, node)
            if got is not _EMPTY:
                found.append(got)
        if len(found) > 1:
            (a, _), (b, _) = found[0], found[1]
            raise DrillError([Diagnostic(
                b.loc, "E607", f"conflict: exceptions '{a.name}' ({_cite(a)}) and '{b.name}' "
                f"({_cite(b)}) both apply to '{decl.name}' and neither overrides the other",
                "decide which wins: make one an exception to the other",
                notes=[(a.loc, f"'{a.name}' applies too")])])
        if found:
            if node is not None:
                node.detail["considered"].append((decl, "overridden", found[0][0]))
            return found[0]
        applies = when is None or when(ctx, s)
        if node is not None and decl is not node.decl:
            node.detail["considered"].append((decl, "applies" if applies else "does not apply",
                                              None))
        if not applies or value is None:
            return _EMPTY
        return decl, value(ctx, s)

    # ------------------------------------------------------------ requirements
    def _requirements(self, r: A.RequirementsDecl):
        items = [(d, self._ref(d.name)) for d in self.model.items_of.get(r.name, [])]
        name, params = r.name, [p.name for p in r.params or []]

        def verdict(ctx, args):
            node = None
            if ctx.trace is not None:          # its arguments shown as a rule's are
                node = Trace("requirements", name, r, detail={
                    "items": [], "args": dict(zip(params, args))})
                ctx.enter(node)
            try:
                violated, satisfied = [], []
                for d, ref in items:
                    ok = ref.fn(ctx, args)
                    (satisfied if ok else violated).append(d)
                    if node is not None:
                        node.detail["items"].append((d, ok))
            finally:
                if node is not None:
                    ctx.leave()
            result = Verdict(name, tuple(violated), tuple(satisfied))
            if node is not None:
                node.value = result
            return result
        return verdict

    # ------------------------------------------------------------ procedures
    def _procedure(self, p: A.ProcedureDecl):
        steps = [(st, self.exprs.expr(st.when) if st.when is not None else None,
                  self.exprs.expr(st.value) if st.value is not None else None) for st in p.steps]
        pad = self._padding(p.name, p.params)
        name = p.name
        params = [q.name for q in p.params or []]

        def run(ctx, args):
            state, done = ctx.state, ()
            node = None
            if ctx.trace is not None:
                node = Trace("procedure", name, p, detail={"steps": []})
                ctx.enter(node)
            token, first = None, 0
            if node is None and ctx.dice.memo is not None:    # odds: resume where replays
                token, resumed = ctx.dice.procedure_start()    # that went this way got to
                if resumed:
                    first, state, done = resumed
                frame = [token]                 # where the replays that take another face
                ctx.dice.frames.append(frame)   # or option in this step resume
            key = step_node = None
            try:
                for i, (st, when, value) in enumerate(steps):
                    if i < first:
                        continue
                    if token is not None:
                        frame[1:] = i, state, done, ctx.dice.step, ctx.dice._snapshot()
                        snap_at = frame[5]
                        key, known = ctx.dice.step_known(run, i, state, args)
                        if known is not None:        # this step read no dice on this state
                            if known[2]:
                                break
                            state, done = known[0], done + known[1]
                            continue
                    sub = Ctx(state, ctx.dice, ctx.options, budget=ctx.budget)
                    s = [state.entities.get(a.id) if isinstance(a, Entity) else a
                         for a in args] + pad
                    step_node = None
                    if node is not None:      # a step's own evaluation, in its own log
                        step_node = Logged("step", st.name, st)
                        step_node.detail["args"] = dict(zip(params, s))   # as the step saw them,
                        step_node.detail["before"] = state                # on this state
                        sub.trace, sub.log = step_node, step_node.log
                        ctx.log.append((LEAF, step_node))
                    holds = when is None or when(sub, s)
                    before, effects, stops = state, (), False
                    if st.stop:
                        if step_node is not None:
                            step_node.detail["stopped"] = holds
                        stops = holds
                    elif not holds:
                        if step_node is not None:
                            step_node.detail["skipped"] = True
                    else:
                        effects = value(sub, s)
                        state, log = state.apply(effects)
                        done += effects
                        if step_node is not None:
                            step_node.value = effects
                            step_node.detail["log"] = log
                    if key is not None:
                        ctx.dice.step_done(key, snap_at, before, state, effects, stops)
                    if stops:
                        break
            except DrillError:
                if step_node is not None:       # run's log before the error ends here
                    step_node.detail["failed"] = True
                raise
            finally:
                if node is not None:
                    ctx.leave()
                if token is not None:
                    ctx.dice.frames.pop()
            if node is not None:
                node.value = done
            return done
        return run

    # ------------------------------------------------------------ tables
    def _table(self, t: A.TableDecl):
        lay = self.model.tables[t.name]
        cells: dict = {}
        marks = self.cell_marks.setdefault(t.name, {})
        section = t.section.number if t.section is not None else None

        def footnotes(*cells_):
            """The footnotes the marks on these cells stand for, as the section declares them."""
            found = []
            for c in cells_:
                for mark in c.markers:
                    d = self.model.marker_for(mark, section)
                    if d is not None and d not in found:
                        found.append(d)
            return tuple(found)
        for keys, key_cell, values in lay.rows:
            for col_keys, cell, parsed in values:
                v = self._cell_value(parsed)
                notes = footnotes(cell, key_cell)
                for rk in keys:
                    for ck in col_keys:
                        cells[(rk, ck)] = (v, cell, key_cell, notes)
                        marks[(self._level_key(lay, 0, rk),
                               ck if lay.shape == "chart" else self._level_key(lay, 1, ck))] = \
                            frozenset(cell.markers) | frozenset(key_cell.markers)
        if lay.shape == "chart":
            rec = lay.result.name
            rows = {}
            for keys, key_cell, values in lay.rows:
                fields = {cols[0]: self._cell_value(parsed) for cols, _, parsed in values}
                printed = ", ".join(f"{cols[0]} {A.cell_source(cell)}" for cols, cell, _ in values)
                notes = footnotes(key_cell, *(cell for _, cell, _ in values))
                for rk in keys:
                    rows[(rk, None)] = (ChartRow(rec, f"{t.name}[{self._show_key(rk)}]", fields),
                                        key_cell, printed, notes)
            cells = rows
        two = lay.shape == "2d"
        name = t.name

        by_level = self._cells[t.name] = {}
        for (k0, k1), hit in cells.items():
            by_level[(self._level_key(lay, 0, k0), self._level_key(lay, 1, k1))] = hit

        step = self.step(name, "table")

        def lookup(ctx, args):
            hit = by_level.get((args[0], args[1] if two else None))
            if hit is None:
                raise DrillError([Diagnostic(t.loc, "E608", f"table '{name}' has no cell for "
                                             f"{', '.join(show(a) for a in args)}")])
            if ctx.log is not None:       # the cell it found, as record.py records it
                ctx.log.append((step, args, hit))
            return hit[0]
        return lookup

    @staticmethod
    def _show_key(k):
        return str(k)

    def _level_key(self, lay, i, key):
        """A table key as evaluation meets it: the Level object for an enum key."""
        if key is None or i >= len(lay.key_types) or lay.key_types[i][0] != "enum":
            return key
        enum = lay.key_types[i][2]
        return next(lv for lv in self.levels[enum] if lv.name == key)

    def _cell_value(self, parsed):
        kind = parsed[0]
        if kind == "na":
            return None
        if kind == "never":
            return NEVER
        if kind == "range":
            return Range(parsed[1], parsed[2])
        if kind == "member":
            return self.levels[parsed[1]][parsed[2]]
        if kind == "members":
            return tuple(self.levels[parsed[1]][i] for i in parsed[2])
        if kind == "pair":
            rec = self.model.decls[parsed[1]]
            first, second = (f.name for f in rec.fields)
            return Entity(parsed[1], f"{parsed[2]}/{parsed[3]}",
                          {first: parsed[2], second: parsed[3]})
        return parsed[1]          # int, text, bool

    # ------------------------------------------------------------ modifiers
    def _modifiers(self, m: A.ModifiersDecl):
        items = [(i, self.exprs.expr(i.value), self.exprs.expr(i.when) if i.when else None)
                 for i in m.items]
        how, cap, name = m.combine, m.cap, m.name
        pad = self._padding(name, m.params)
        if how == "sum" and cap is None:
            traced = self._traced_modifiers(m, items, pad)
            if not self.generated:
                return traced
            fast = inline.modifier_sum(self, m, traced)

            def summed(ctx, args):
                if ctx.trace is not None:
                    return traced(ctx, args)
                return fast(ctx, args + pad if pad else args)
            return summed
        return self._traced_modifiers(m, items, pad)

    def _traced_modifiers(self, m, items, pad):
        how, cap, name = m.combine, m.cap, m.name

        def slow(ctx, s, worked):
            applied = []
            for item, value, when in items:
                on = when is None or when(ctx, s)
                v = value(ctx, s) if on else None
                if on:
                    applied.append(v)
                worked.append((item, on, v))
            return applied
        each = fast = None
        step = self.step(name, "modifiers")

        def total(ctx, args):
            nonlocal each, fast
            s = args + pad if pad else args
            log = ctx.log
            if log is None:
                if fast is None:        # generated when first called
                    fast = (record.modifier_items(self, m, slow, traced=False)
                            if self.generated else slow)
                applied = fast(ctx, s, [])
            else:                       # its step, as record.py records one in line
                if each is None:
                    each = record.modifier_items(self, m, slow) if self.generated else slow
                items = []
                log.append((step, args, items))
                applied = each(ctx, s, items)
            if how == "sum":
                result = sum(applied)
            elif not applied:
                result = 0
            else:
                result = max(applied) if how == "largest" else min(applied)
            if cap is not None:
                result = max(cap[0], min(cap[1], result))
            if log is not None:
                log.append((END, result))
            return result
        return total

    # ------------------------------------------------------------ checks
    def _check(self, c: A.CheckDecl):
        die = self.model.decls[c.dice.die]
        count, low, high = c.dice.count, die.low, die.high
        modifier = self.exprs.expr(c.modifier) if c.modifier is not None else (lambda ctx, s: 0)
        if c.modifier is not None and c.modifier.type.kind in ("opt", "any"):
            raw, mod_loc = modifier, c.modifier.loc

            def modifier(ctx, s):
                value = raw(ctx, s)
                if value is None:
                    raise DrillError([Diagnostic(mod_loc, "E604", "the roll's modifier is none "
                                                 "here", "check it first with 'is none'")])
                return value
        target = self.exprs.expr(c.target)
        taken = self.exprs.expr(c.when) if c.when is not None else None
        op, name, clamped, loc = c.op, c.name, c.clamped, c.dice.loc
        skipped = not_taken(name, op)
        pad = self._padding(name, c.params)
        die_name, lowest, highest = die.name, count * low, count * high
        reach = (lowest, highest) if clamped else None

        def fast(ctx, args):
            if ctx.trace is not None:
                return run(ctx, args)
            s = args + pad if pad else args
            if taken is not None and not taken(ctx, s):
                return skipped
            goal = target(ctx, s)
            if goal is None:
                return run(ctx, args)          # reports the located error
            if op == "within" and goal.low > goal.high:
                return CheckResult(name, None, 0, None, op, goal, False, 0)
            if count == 1:
                natural = ctx.dice.roll(die_name, low, high, loc)
            else:
                natural = ctx.dice.roll_sum(die_name, low, high, count, loc)
            mod = modifier(ctx, s)
            total = natural + mod
            if clamped:
                total = lowest if total < lowest else highest if total > highest else total
            return _judge(name, natural, mod, total, op, goal, reach)

        step, rolled = self.step(name, "check"), self.step(die_name, "roll")

        def run(ctx, args):
            s = args + pad if pad else args
            log = ctx.log
            if log is not None:         # its step, as record.check records it
                log.append((step, args))
            if taken is not None and not taken(ctx, s):
                result = skipped
                if log is not None:
                    log.append((END, result))
                return result
            goal = target(ctx, s)
            if goal is None:
                record.no_target(c, args)
            if op == "within" and goal.empty:
                result = CheckResult(name, None, 0, None, op, goal, False, 0)
            else:
                natural = 0
                for _ in range(count):
                    face = ctx.dice.roll(die_name, low, high, loc)
                    if log is not None:
                        log.append((rolled, face))
                    natural += face
                mod = modifier(ctx, s)
                total = natural + mod
                if clamped:
                    total = max(lowest, min(highest, total))
                result = _judge(name, natural, mod, total, op, goal, reach)
            if log is not None:
                log.append((END, result))
            return result
        recorded = None

        def traced(ctx, args):          # generated when first traced
            nonlocal recorded
            if recorded is None:
                recorded = record.check(self, c, run, pad) or run
            return recorded(ctx, args)
        if not self.generated:
            return fast
        return inline.check(self, c, run, pad, traced) or fast


def _once_per_question(name, fn, dice_free=False, recorded=None, untraced=None):
    """A rule gives one result per question for the same arguments: asking
    ``morale_check(u)`` twice reads the die once (rules are pure), and a rule that calls
    another twice per level costs one call per level, not 2^levels.  Each rule worked out
    counts against the question's budget of work (E525).  Traced, a rule asked again shows
    its answer without the steps that led to it ("as above").  Given, ``recorded(ctx,
    args)`` works the rule out traced, recording its step, and ``untraced(ctx, args)``
    works it out untraced."""
    missing = object()
    untraced = untraced or fn

    def miss(ctx, args, key):
        """The rule worked out the first time in this question (``key`` not remembered)."""
        budget = ctx.budget                     # Budget.spend(1), without its call
        budget.left -= 1
        if budget.left < 0:
            budget.spend(0)
        if ctx.dice.memo is not None:     # enumerating: replays share what they computed
            value = ctx.rolled[key] = ctx.dice.remembered(ctx, key, fn, args, dice_free)
        elif ctx.trace is None:
            value = ctx.rolled[key] = untraced(ctx, args)
        else:                           # its step starts at the log's record n
            n = len(ctx.log)
            value = ctx.rolled[key] = (recorded or fn)(ctx, args)
            ctx.shown[key] = n if len(ctx.log) > n else None
        return value

    def once(ctx, args):
        key = (name, *args)
        try:
            value = ctx.rolled.get(key, missing)
        except TypeError:               # an argument that cannot be remembered (a list...)
            ctx.budget.spend(1)
            return fn(ctx, args)
        if value is missing:
            return miss(ctx, args, key)
        if ctx.trace is not None:
            at = ctx.shown.get(key)
            if at is not None:
                ctx.log.append((ABOVE, at))
        return value
    once.miss = miss            # what generated code calls when it finds nothing remembered
    # (Program._compile puts the rule's generated first call there, see inline.rule)
    return once


def _judge(name, natural, mod, total, op, goal, reach=None):
    """The result of a check; ``reach`` is (lowest, highest) when the total is clamped to
    them: then an end of a ``within`` range that the total cannot pass is not counted in
    how far inside it passed (``clamped within 0-4`` with a 1 passes by 3, not 1)."""
    if op == "at_most":
        ok = total <= goal
        margin = goal - total if ok else total - goal
    elif op == "at_least":
        ok = total >= goal
        margin = total - goal if ok else goal - total
    else:
        ok = goal.low <= total <= goal.high
        low_open = reach is not None and goal.low <= reach[0]       # cannot be passed
        high_open = reach is not None and goal.high >= reach[1]
        margin = (goal.high - total if low_open and not high_open else
                  total - goal.low if high_open and not low_open else
                  min(total - goal.low, goal.high - total)) if ok else (
            total - goal.high if total > goal.high else goal.low - total)
    return CheckResult(name, natural, mod, total, op, goal, ok, margin)


def _cite(d) -> str:
    sec = d.section
    return f"§{sec.number} {sec.label.text or ''}".strip() if sec else "?"


def compile_model(model, generated: bool = True) -> Program:
    return Program(model, generated)
