"""Evaluate stage: questions, exact odds and examples against a compiled rulebook.

``Rulebook.open(path)`` loads, checks and compiles once; ``ask``, ``odds`` and
``run_examples`` then evaluate as often as needed.  Nothing here knows any game.
"""
from __future__ import annotations

from functools import lru_cache
from math import lcm

from dataclasses import dataclass, field

from . import ast as A
from .check import check
from .check.exprs import Scope
from .check.types import ANY, Ty
from .compile import compile_model
from .errors import Diagnostic, DrillError, Loc, did_you_mean, fail, no_such_face, source_line
from .faces import same_way
from .limits import MAX_ODDS_WORK, MAX_WORK, Budget
from .loader import load
from .runtime import (CheckResult, ChoiceNotOpen, Ctx, Dice, Effect, NeedChoice, NeedRoll,
                      ReusedDice, State, show, show_effects, too_many_outcomes)
from .steps import Logged

MAX_OUTCOMES = 200_000     # replays (outcomes and choices); enumeration stops here rather than run for ever
FORESEEN = 50              # ... or as soon as it foresees this many times more (see below)


@dataclass(slots=True)
class Answer:
    question: str
    value: object
    type: Ty
    trace: object
    dice: list
    state: State
    new_state: State | None = None
    log: list = field(default_factory=list)
    before: State | None = None   # the state the effects apply to (after a leading `after`)
    moved: State | None = None    # the state a leading `after` left (a question asked there)
    unread: list = field(default_factory=list)  # [(kind, name, values)] given, never read
    model: object = None          # the rulebook asked (to cite the sections of effects)


@dataclass(frozen=True, slots=True)
class ExampleResult:
    example: A.ExampleDecl
    passed: bool
    failures: list      # [(Loc, message)]
    traces: list = field(default_factory=list)   # with trace=True: the root of each evaluation


class Rulebook:
    """A rulebook loaded, checked and compiled, ready for questions."""

    def __init__(self, model, program):
        self.model = model
        self.program = program

    @classmethod
    def open(cls, path: str, where: Loc | None = None, variants=()) -> "Rulebook":
        """Load, check and compile a rulebook, or a variant file (with more variants after it)."""
        from .cache import checked_model, quiet_gc
        variants = list(variants)

        def build():
            from .variants import is_variant, load_variant
            if is_variant(path):
                return load_variant(path, where, variants)
            if variants:
                import os
                from .loader import resolve_main
                from .variants import base_path, parse_variant
                base = os.path.realpath(resolve_main(path, where))
                for v in variants:
                    own = os.path.realpath(resolve_main(base_path(parse_variant(v, where), v)))
                    if own != base:
                        fail(where or Loc("<command line>"), "E907",
                             f"'{v}' patches another rulebook than '{path}'")
                return load_variant(variants[0], where, variants[1:])
            return check(load(path, where))
        model = checked_model(path, variants, build)
        with quiet_gc():
            return cls(model, compile_model(model))

    def base(self) -> "Rulebook | None":
        """For a variant: the base rulebook it patches, compiled."""
        if self.model.base is None:
            return None
        return Rulebook(self.model.base, compile_model(self.model.base))

    # ------------------------------------------------------------ inputs
    def state(self, path: str | None, where: Loc | None = None) -> State:
        from .state import load_state         # YAML only for commands that read a state
        return load_state(self.program, path, where)

    def state_problems(self, state: State, options=frozenset()) -> list[Diagnostic]:
        """W702 for each requirement of a list declared ``for every state`` that a thing of
        ``state`` breaks, located at the thing in its state file: the state contradicts the
        rules (a level the rules never let that thing have). The answers still read it as
        given."""
        out = []
        for name, lst in self.model.of_kind(A.RequirementsDecl).items():
            if not lst.every_state:
                continue
            type_name = lst.params[0].type.name
            fn = self.program.callables[name]
            ctx = Ctx(state, Dice(), options)  # no dice, no choices: one context for all
            for ent in state.of_type(type_name):
                try:
                    verdict = fn(ctx, [ent])
                except (DrillError, NeedRoll, NeedChoice):
                    ctx = Ctx(state, Dice(), options)     # what an error left half-done
                    continue                # a list that cannot judge this thing says nothing
                for item in verdict.violated:
                    sec = item.section
                    cited = f"§{sec.number} {sec.label.text or ''}".strip() if sec else name
                    noted = "".join(f"; the rulebook notes: {n.text} ({n.loc.path}:{n.loc.line})"
                                    for n in getattr(item, "annotations", ()) if n.kind == "note")
                    out.append(Diagnostic(
                        state.places.get(ent.id, Loc("<state>")), "W702",
                        f"{ent.id} ({type_name}) does not agree with {cited}: "
                        f"{item.label.text or item.name} ({name}.{item.name})",
                        f"the answers read the state as given; drillbook explain RULEBOOK "
                        f"'{name}({ent.id})' gives the ruling{noted}", severity="warning"))
        return out

    def options(self, names, where: Loc | None = None, start=None) -> frozenset:
        """The options in force: the defaults (or ``start``), switched by NAME[=on|off]."""
        decls = self.model.of_kind(A.OptionDecl)
        on = set(start) if start is not None else {n for n, d in decls.items() if d.default}
        for raw in names or []:
            name, _, state = raw.partition("=")
            if name not in decls:
                fail(where or Loc("<command line>"), "E801", f"unknown option '{name}'",
                     did_you_mean(name, decls) or f"options: {', '.join(decls) or 'none'}")
            if state in ("", "on"):
                on.add(name)
            elif state == "off":
                on.discard(name)
            else:
                fail(where or Loc("<command line>"), "E801", f"option '{name}' is 'on' or 'off'")
        return frozenset(on)

    def rolls(self, given: dict, where: Loc | None = None) -> dict:
        dice = self.model.of_kind(A.DieDecl)
        for die, faces in given.items():
            if die not in dice:
                fail(where or Loc("<command line>"), "E204", f"unknown die '{die}'",
                     did_you_mean(die, dice) or f"dice: {', '.join(dice) or 'none'}")
            for f in faces:
                if not dice[die].low <= f <= dice[die].high:
                    fail(where or Loc("<command line>"), "E414",
                         *no_such_face(die, f, dice[die].low, dice[die].high))
        return given

    # ------------------------------------------------------------ questions
    def question(self, text: str, state: State):
        """Parse and type a question; return (closure, type, frame size, expression)."""
        t, size, expr = self.typed_question(text, state)
        return self.program.compile_expr(expr), t, size, expr

    def typed_question(self, text: str, state: State):
        """Parse and type a question, not compiled yet: (type, frame size, expression)."""
        from .syntax import parse_expr
        expr = parse_expr(text, "<question>")
        entities = {ident: Ty("record", ent.type) for ident, ent in state.entities.items()}
        errors: list[Diagnostic] = []
        from .check.exprs import Typer
        scope = Scope(None, entities=entities)
        t = Typer(self.model, errors).expr(expr, scope)
        if not errors:
            from .check.effects import check_effect_lists
            check_effect_lists(self.model, errors, [expr])
        if errors:
            raise DrillError(errors)
        return t, scope.size, expr

    def ask(self, text, state, rolls=None, options=frozenset(), seed=None, trace=True,
            choices=None) -> Answer:
        t, size, expr = self.typed_question(text, state)
        dice = Dice(rolls, seed=seed, chosen=choices)
        ctx = Ctx(state, dice, options, trace)
        at, slots, rest = ctx, [None] * size, expr       # effects are shown from the state
        if isinstance(expr, A.After):                    # their leading 'after' parts leave
            at, slots, rest = self.program.leading_after(expr, ctx, slots)
        try:
            value = self.program.compile_expr(rest)(at, slots)
        except DrillError as e:         # what was worked out before it, for run's log
            if ctx.trace is not None:
                e.partial = Answer(text, None, t, ctx.trace, dice.read, state, model=self.model)
            raise
        ans = Answer(text, value, t, ctx.trace, dice.read, state, model=self.model)
        ans.unread = dice.unread()
        if at is not ctx:
            ans.moved = at.state            # what the question's leading 'after' parts left
        if t.kind == "effects":
            ans.before = at.state
            ans.new_state, ans.log = ans.before.apply(value)
        return ans

    def evaluator(self, name: str, options=frozenset(), trace: bool = False):
        """A lean question API: ``evaluate(state, args, rolls=None)`` calls the rule, check,
        table... ``name`` on many states, reusing one context and one set of dice instead
        of building them per question (not reentrant: one evaluation at a time).  With
        ``trace``, the last evaluation's trace is ``evaluate.trace``."""
        self.program.callables[name]              # compiled now
        fn = self.program.unremembered[name]      # the first call of a question: nothing
        dice = ReusedDice()                       # to remember it for
        ctx = Ctx(None, dice, options)

        def evaluate(state, args, rolls=None):
            ctx.state = state
            if ctx.rolled:
                ctx.rolled.clear()
            dice.reset(rolls)
            ctx.budget.left = MAX_WORK          # each evaluation has its own budget of work
            if trace:
                ctx.trace = evaluate.trace = Logged("root", "")
                ctx.log = ctx.trace.log
                if ctx.shown:
                    ctx.shown.clear()
            return fn(ctx, args)
        evaluate.trace = None
        return evaluate

    def odds(self, text, state, rolls=None, options=frozenset(), choices=None, alike=True):
        """Exact distribution of the question's value over every die not given, for each
        combination of the players' choices not given (``alike``: see enumerate_outcomes)."""
        fn, t, size, _ = self.question(text, state)
        budget = Budget(MAX_ODDS_WORK)   # one budget of work for every run of the enumeration
        return t, enumerate_outcomes(
            lambda dice: fn(Ctx(state, dice, options, budget=budget), [None] * size),
            rolls, choices, budget, alike)

    # ------------------------------------------------------------ examples
    def run_examples(self, only: str | None = None, trace: bool = False) -> list[ExampleResult]:
        """Run the examples (of a variant: its own); ``trace`` keeps what each evaluated."""
        results = []
        for ex in self.model.examples:
            if only and only not in ex.name:
                continue
            if self.model.own_files and ex.loc.path not in self.model.own_files:
                continue          # a variant answers for its own examples; diff shows the rest
            results.append(self.run_example(ex, trace))
        return results

    def run_example(self, ex: A.ExampleDecl, trace: bool = False) -> ExampleResult:
        failures, traces = [], []

        def context(state, dice):
            ctx = Ctx(state, dice, options, trace)
            if trace:
                traces.append(ctx.trace)
            return ctx
        try:
            from .state import state_from_givens
            state = state_from_givens(self.program, ex.givens)
            options = self.options([f"{n}={'on' if on else 'off'}" for _, n, on in ex.options],
                                   ex.loc)
        except DrillError as e:
            return ExampleResult(ex, False, [(d.loc, d.message) for d in e.diagnostics])
        rolls: dict[str, list[int]] = {}
        for _, die, faces in ex.rolls:
            rolls.setdefault(die, []).extend(faces)
        from .runtime import choice_key
        try:
            chosen = {}
            for _, name, values in ex.choices:
                for v in values:
                    chosen.setdefault(name, []).append(choice_key(
                        self.program.compile_expr(v)(context(state, Dice()),
                                                    [None] * ex.choice_frame)))
        except DrillError as e:
            return ExampleResult(ex, False, [(d.loc, d.message) for d in e.diagnostics])

        def inputs():
            return Dice(rolls, chosen=chosen)
        for exp in ex.expects:
            try:
                here = state
                fn = self.program.compile_expr(exp.expr)
                ok = fn(context(here, inputs()), [None] * exp.frame)
                if not ok:
                    failures.append((exp.loc, self._why(exp, here, inputs, options)))
            except DrillError as e:
                d = e.diagnostics[0]
                failures.append((exp.loc, f"stopped with an error: {d.loc}: {d.message}"))
        return ExampleResult(ex, not failures, failures, traces)

    def _why(self, exp, state, inputs, options) -> str:
        e = exp.expr
        text = _source_text(e.loc) or "the expectation"
        slots = [None] * exp.frame
        if isinstance(e, A.After):      # explain the condition in the state the effects made
            try:
                effects = self.program.compile_expr(e.effects)(Ctx(state, inputs(), options),
                                                                list(slots))
                state, _ = state.apply(effects)
            except DrillError:
                return f"expected {text}, but it is false"
            e = e.then
        if isinstance(e, A.Binary) and e.op == "and":
            for part in (e.left, e.right):     # name the first part that does not hold
                try:
                    ok = self.program.compile_expr(part)(Ctx(state, inputs(), options), list(slots))
                except DrillError:
                    break
                if not ok:
                    e = part
                    break
        story = self._check_story(e, state, inputs, options, exp.frame)
        if story:
            return f"expected {_source_text(e.loc) or text}, but it is false: {story}"
        if isinstance(e, A.Binary) and e.op in ("==", "!=", "<", "<=", ">", ">="):
            text = _source_text(e.loc) or text
            vals = []
            for side in (e.left, e.right):
                try:
                    v = self.program.compile_expr(side)(Ctx(state, inputs(), options),
                                                        [None] * exp.frame)
                    vals.append(show(v))
                except DrillError:
                    vals.append("(error)")
            return f"expected {text}, but the left side is {vals[0]} and the right side {vals[1]}"
        return f"expected {text}, but it is false"


    def _check_story(self, e, state, inputs, options, frame) -> str | None:
        """For a failed expectation about a check (``steady(u).passed``, ``not ...failed``):
        the dice, the modifiers that applied, the total and the target."""
        while isinstance(e, A.Unary) and e.op == "not":
            e = e.operand
        if isinstance(e, A.Binary) and e.op in ("==", "!=", "<", "<=", ">", ">="):
            e = e.left
        if not (isinstance(e, A.FieldOf) and getattr(e.subject, "type", None) is not None
                and e.subject.type.kind == "check"):
            return None
        ctx = Ctx(state, inputs(), options, trace=True)
        try:
            v = self.program.compile_expr(e.subject)(ctx, [None] * frame)
        except DrillError:
            return None
        node = next((n for n in _walk_trace(ctx.trace) if n.kind == "check"), None)
        if not isinstance(v, CheckResult) or node is None:
            return None
        from .phrases import say
        if not v.taken:
            return say(None, "check_not_taken", c=A.to_source(node.decl.when))
        if v.natural is None:
            return say(None, "check_no_roll")
        dice = ", ".join(f"{n.name} rolled {n.value}" for n in node.children if n.kind == "roll")
        mods = [f"{'+' if val > 0 else ''}{val} {item.label.show(item.name)}"
                for m in node.children if m.kind == "modifiers"
                for item, on, val in m.detail["items"] if on]
        need = (say(None, "or_less", n=v.target) if v.op == "at_most" else
                say(None, "or_more", n=v.target) if v.op == "at_least" else
                say(None, "within", r=v.target))
        word = ("passed" if v.passed else "failed") + (f" by {v.margin}" if v.margin else "")
        return (f"{dice or 'no dice'}; modifiers {'; '.join(mods) if mods else 'none'} "
                f"(total {v.modifier:+d}); total {v.total}; needed {need}: {word}")


def _walk_trace(node):
    yield node
    for c in node.children:
        yield from _walk_trace(c)


def _source_text(loc: Loc) -> str | None:
    line = source_line(loc.path, loc.line)
    if line is None:
        return None
    end = loc.end_col if loc.end_line == loc.line and loc.end_col > loc.col else len(line) + 1
    return line[loc.col - 1:end - 1].strip()


def outcome_key(value, known: dict | None = None):
    """How a value is counted in a distribution; ``known`` keeps the texts of effects
    already shown (the outcomes of one enumeration share many)."""
    if isinstance(value, NotOpen):
        return value
    if isinstance(value, CheckResult):
        return "passed" if value.passed else "failed" if value.taken else "not taken"
    if known is not None and isinstance(value, tuple) and value and isinstance(value[0], Effect):
        return show_effects(value, None, known)
    return show(value)


class NotOpen(str):
    """The outcome of the paths of ``odds`` on which a choice given on the command line was
    not one of the options (``not open: reaction = Counter (the options there: ...)``)."""
    __slots__ = ()


OTHER_CHOICES = NotOpen("other rolls ask other choices")


def with_other_choices(dist: dict) -> dict:
    """``dist`` with each combination of choices completed to 1 when odds tried choices
    with several options (every combination is a world of its own, and the worlds add up
    to more than 1): the chance of the rolls on which that combination is not the one
    asked (an option a roll closes: one open only on a good roll) becomes the
    outcome ``OTHER_CHOICES``.  What a path did before its first choice, or before a later
    one (a roll that ended the question before any choice was asked), belongs to every
    combination that starts so.  With every choice given, the worlds are one
    distribution already: ``dist`` is returned as it is."""
    from fractions import Fraction
    if sum(dist.values()) <= 1:
        return dist
    totals: dict = {}
    for (made, _), p in dist.items():
        totals[made] = totals.get(made, 0) + p
    out = dict(dist)
    for made in totals:
        total = sum(p for before, p in totals.items() if len(before) <= len(made)
                    and tuple(made[:len(before)]) == tuple(before))
        if made and total < 1:
            out[(made, OTHER_CHOICES)] = Fraction(1) - total
    return out


class Made(tuple):
    """The players' choices an outcome of ``odds`` was reached by, in the order made: pairs
    (choice, option as written), shown ``crew = c1, target = t2``; none made is empty."""
    __slots__ = ()

    def __str__(self) -> str:
        return ", ".join(f"{c} = {k}" for c, k in self)


def enumerate_outcomes(run, rolls=None, choices=None, budget=None, alike=True) -> dict:
    """Run ``run(dice)`` over every face of every die it reads and every option of every
    choice it asks for; return {(choices made, outcome): Fraction}, the choices made a
    ``Made``.  Dice are weighed by
    chance; choices are not (each combination of choices gets its own distribution).

    Each outcome is one replay of the question along a path of faces and choices; the sum
    of k dice read together is one step weighed by its convolved distribution, and the calls
    the question remembers are shared by the replays that reach them with the same path
    (``Dice.remembered``), so a replay evaluates only what its last step changed.

    Faces alike are replayed once (``alike``, see faces.py): after the replays that follow
    one face of a die, each other face that every comparison those replays made with it
    would have answered the same way is counted with that face's outcomes, weighed by its
    own chance, instead of being replayed.  ``alike=False`` replays every face (the tests
    compare the two).

    Every 1,000 replays the enumeration foresees how many it needs: each replay stands for a
    share of the tree of faces and choices (a branch of b alternatives gives each 1/b of its
    own), and the replays so far divided by the share they covered is the tree's size as
    far as it is known.  Beyond FORESEEN times MAX_OUTCOMES it stops at once (E802, with
    that estimate) instead of working up to the limit first.  Each replay re-walks its path
    of faces and choices: that is work too, spent from ``budget`` (when given) before the
    replay runs."""
    from fractions import Fraction         # only odds needs it
    # A path's chance is kept as whole numbers, ways / whole (whole: the product of the
    # numbers of faces read), and each outcome's chances are summed per whole; the
    # fractions are made once at the end: exact, without a gcd per path.
    ways: dict[tuple, dict] = {}           # outcome -> {whole: ways}
    sums: list = []       # per face of a die being replayed: {(outcome, whole): ways} of
                          # its replays so far, innermost last (see _Alike)
    not_open = None                        # the first given choice a path did not offer
    offered: dict = {}                     # the options of the paths that did not offer it
    memo: dict = {}
    known: dict = {}                       # the texts of the effects shown so far
    stack: list = [((), 1, 1, 1.0, {})]   # paths to replay, and _Alike marks (see below)
    runs, covered = 0, 0.0     # covered: the share of the tree of replays gone through
    foresee_at = 1000          # (a replay may count several: the paths it went on past)

    def count(key, whole, n):
        per = ways.setdefault(key, {})
        per[whole] = per.get(whole, 0) + n
        if sums:
            inner = sums[-1]
            inner[key, whole] = inner.get((key, whole), 0) + n
    while stack:
        top = stack.pop()
        if top.__class__ is _Alike:       # every replay after one face of a die is done
            share = top.next_face(stack, count, sums)
            covered += share
            continue
        path, n, whole, share, groups = top
        runs += 1
        if runs > MAX_OUTCOMES:
            too_many_outcomes(MAX_OUTCOMES)
        if runs >= foresee_at:
            foresee_at = runs + 1000
            foreseen = runs / covered if covered else float("inf")
            if foreseen > FORESEEN * MAX_OUTCOMES:
                too_many_outcomes(MAX_OUTCOMES, foreseen)
        if budget is not None:
            budget.spend(1 + len(path))
        dice = Dice(rolls, path=path, chosen=choices)
        dice.memo, dice.runs, dice.limit = memo, runs, MAX_OUTCOMES
        dice.branches, dice.frames = [], []
        if alike:
            dice.groups = dict(groups)
        try:
            value = run(dice)
        except ChoiceNotOpen as e:        # a given choice a roll closed on this path
            value, not_open = NotOpen(e.outcome()), not_open or e
            offered.update(dict.fromkeys(e.options))
        runs = dice.runs
        made = Made((c, str(k)) for c, k in dice.made)
        key = (made, outcome_key(value, known))      # (may tell a face's group something)
        for at, what in dice.branches:     # the faces and options this replay did not take
            start = dice.path[:at]
            before = {s: g for s, g in dice.groups.items() if s < at} if alike else None
            if len(what) == 1:             # a choice: each option is weighed alike
                share /= len(what[0])
                for i in range(len(what[0]) - 1, 0, -1):
                    stack.append((start + (i,), n, whole, share, before))
                continue
            sums_at, faces = sum_ways(*what)
            whole *= faces
            share /= len(sums_at)
            if alike:
                stack.append(_Alike(dice.groups[at], start, sums_at, n, whole, share, before))
                sums.append({})
            else:
                for f, k in reversed(sums_at[1:]):
                    stack.append((start + (f,), n * k, whole, share, None))
            n *= sums_at[0][1]
        covered += share
        count(key, whole, n)
    if not_open is not None and all(isinstance(k, NotOpen) for _, k in ways):
        fail(not_open.loc, "E611", f"'{not_open.want}' is not one of the options of the "
             f"choice '{not_open.name}'{not_open.asked_by}",
             f"one of: {', '.join(offered)} (on no roll is it one)",
             given=f"{not_open.name}={not_open.want}")
    dist = {}
    for key, per in ways.items():
        whole = lcm(*per)
        dist[key] = Fraction(sum(k * (whole // w) for w, k in per.items()), whole)
    return dist


class _Alike:
    """The faces of one die read on one path, tried in increasing order: the face being
    replayed (the replays after it on the stack above this mark; what they count is summed
    in the innermost of ``sums``), and for each face replayed so far, what its replays
    asked of it and what they counted."""
    __slots__ = ("group", "start", "faces", "n", "whole", "share", "groups", "face", "tried")

    def __init__(self, group, start, faces, n, whole, share, groups):
        self.group, self.start, self.n, self.whole, self.share = group, start, n, whole, share
        self.groups, self.face, self.faces = groups, faces[0], list(reversed(faces[1:]))
        self.tried = []

    def next_face(self, stack, count, sums) -> float:
        """Close the face replayed; count the faces alike to one tried, up to the next that
        is not, which is pushed to be replayed (with this mark under it).  Returns the
        share of the tree the faces counted without a replay stand for."""
        group, (face, k) = self.group, self.face
        done = sums.pop()
        if sums:                           # a face's outcomes are its enclosing face's too
            outer = sums[-1]
            for at, n in done.items():
                outer[at] = outer.get(at, 0) + n
        self.tried.append((face, k, frozenset(group.tests), group.opaque, done))
        share = 0.0
        while self.faces:
            f, kf = self.faces.pop()
            like = next((t for t in self.tried if not t[3] and same_way(t[2], f, t[0])), None)
            if like is None:
                group.tests, group.opaque = set(), False
                self.face = (f, kf)
                sums.append({})
                stack.append(self)
                stack.append((self.start + (f,), self.n * kf, self.whole, self.share,
                              {**self.groups, len(self.start): group}))
                return share
            for (key, whole), n in like[4].items():   # its outcomes, weighed by this face's
                count(key, whole, n // like[1] * kf)   # ways
            share += self.share
        return share


@lru_cache(maxsize=256)
def sum_ways(low: int, high: int, count: int) -> tuple:
    """The sums of ``count`` dice with faces low..high and the ways to roll each, in
    increasing order of the sum (the faces' counts convolved), and the number of rolls."""
    ways = {0: 1}
    for _ in range(count):
        nxt: dict[int, int] = {}
        for total, n in ways.items():
            for f in range(low, high + 1):
                nxt[total + f] = nxt.get(total + f, 0) + n
        ways = nxt
    return tuple(sorted(ways.items())), (high - low + 1) ** count


@lru_cache(maxsize=256)
def sum_distribution(low: int, high: int, count: int) -> tuple:
    """The exact distribution of the sum of ``count`` dice with faces low..high, as
    ((sum, Fraction), ...) in increasing order of the sum: the faces' counts convolved."""
    from fractions import Fraction
    sums, whole = sum_ways(low, high, count)
    return tuple((total, Fraction(n, whole)) for total, n in sums)


__all__ = ["Rulebook", "Answer", "ExampleResult", "Made", "enumerate_outcomes", "ANY",
           "with_other_choices"]
