"""Evaluate stage, runtime values: levels, ranges, entities, the game state, dice, traces.

Values are immutable.  A ``State`` is never changed in place: ``apply`` returns a new one.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from itertools import islice

from .errors import DrillError, Loc, fail
from .faces import Face, Group, plain
from .limits import Budget
from .steps import CLOSE, Logged, Trace


@dataclass(frozen=True, slots=True, eq=False)
class Level:
    """A member of an enum or a level of a scale (Normal, Shaken, ...); one object per
    level, compared by identity."""
    enum: str
    name: str
    index: int
    label: object

    def __repr__(self):
        return self.name


@dataclass(frozen=True, slots=True, eq=False)
class Range:
    """Inclusive range of numbers; an empty range is printed 'No' (nothing succeeds)."""
    low: int
    high: int

    @property
    def empty(self) -> bool:
        return self.low > self.high

    def __contains__(self, n: int) -> bool:
        return self.low <= n <= self.high

    def __eq__(self, other):
        return isinstance(other, Range) and (self.empty and other.empty or (
            self.low, self.high) == (other.low, other.high))

    def __hash__(self):
        return hash(("range", None if self.empty else (self.low, self.high)))

    def __repr__(self):
        return "No" if self.empty else (str(self.low) if self.low == self.high
                                        else f"{self.low}-{self.high}")


NEVER = Range(1, 0)


@dataclass(frozen=True, slots=True, eq=False)
class Entity:
    """One record of the game state, named by its id."""
    type: str
    id: str
    fields: dict

    def __repr__(self):
        return self.id

    # Entities compare by identity: within one state each id has exactly one Entity, and
    # every evaluation that moves to a new state looks its entities up again by id.


class ChartRow(Entity):
    """A row of a chart read row by row (a table whose result is a record): shown by its
    cells, 'movement MAPlus2, formation_hits no', not by its name (M&P round 15 T1)."""
    __slots__ = ()


@dataclass(slots=True, eq=False)
class CheckResult:
    """What a check produced: the natural roll, the modified total, the target, the result.

    ``natural`` is None when nothing was rolled (the table said No, or the check was not
    taken); ``margin`` is how far the total was inside (passed) or outside (failed) the
    target.  A check whose ``when`` does not hold is not ``taken``: it neither passed nor
    failed, and its ``target`` is None."""
    name: str
    natural: int | None
    modifier: int
    total: int | None
    op: str
    target: object
    passed: bool
    margin: int
    taken: bool = True

    def __repr__(self):
        return f"CheckResult({self.name}: {show(self)})"

    def field(self, name):
        if name == "passed":
            return self.passed
        if name == "failed":
            return self.taken and not self.passed
        if name == "taken":
            return self.taken
        if name == "rolled":
            return self.natural is not None
        if name == "roll":
            return self.natural if self.natural is not None else 0
        if name == "total":
            return self.total if self.total is not None else 0
        if name == "passed_by":
            return self.margin if self.passed else 0
        if name == "failed_by":
            return 0 if self.passed else self.margin
        raise KeyError(name)


def not_taken(name: str, op: str) -> CheckResult:
    """The result of a check whose ``when`` does not hold: nothing rolled, neither passed
    nor failed."""
    return CheckResult(name, None, 0, None, op, None, False, 0, False)


@dataclass(frozen=True, slots=True)
class Verdict:
    """The answer of a list of requirements: allowed, or refused with every violated one."""
    name: str
    violated: tuple           # the requirement declarations that do not hold
    satisfied: tuple

    @property
    def allowed(self) -> bool:
        return not self.violated

    def field(self, name):
        if name == "allowed":
            return not self.violated
        if name == "refused":
            return bool(self.violated)
        if name == "violations":
            return len(self.violated)
        raise KeyError(name)


@dataclass(frozen=True, slots=True)
class Effect:
    kind: str                 # set | add | remove
    entity: str
    field: str | None
    value: object
    loc: Loc


@dataclass()
class State:
    """The game state: entities by id, and the ids of each record type in file order."""
    entities: dict
    by_type: dict
    bounds: dict = field(default_factory=dict)     # (type, field) -> (low, high) or Facings
    indexes: dict = field(default_factory=dict, compare=False, repr=False)
    places: dict = field(default_factory=dict, compare=False, repr=False)  # id -> Loc in its file

    def of_type(self, name: str) -> tuple:
        """The entities of a type in file order, as a tuple built once per state."""
        found = self.indexes.get(name)
        if found is None:
            ents = self.entities
            found = self.indexes[name] = tuple(map(ents.__getitem__, self.by_type.get(name, ())))
        return found

    def index(self, type_name: str, fields: tuple) -> dict:
        """{values of ``fields`` (a thing by its id): the entities of a type that hold
        them, in file order}, built once per state: states never change."""
        index = self.indexes.get((type_name, fields))
        if index is None:
            index = {}
            for ident in self.by_type.get(type_name, ()):
                ent = self.entities[ident]
                held = tuple(ent.fields.get(f) for f in fields)
                if any(isinstance(v, list) for v in held):
                    continue
                index.setdefault(held, []).append(ent)
            index = self.indexes[(type_name, fields)] = {k: tuple(v) for k, v in index.items()}
        return index

    def position(self, type_name: str) -> dict:
        """Where each entity of a type stands in file order (to merge index lookups)."""
        key = ("#order", type_name)
        order = self.indexes.get(key)
        if order is None:
            order = self.indexes[key] = {i: n for n, i in enumerate(self.by_type.get(type_name, ()))}
        return order

    def apply(self, effects, lang: str | None = None) -> tuple["State", list]:
        """Apply effects in order; return the new state and a log of what changed (its
        phrases and values in ``lang``).  The same effects on the same state give the same
        new state object (states never change), so that the replays of ``odds`` meet the
        same entities."""
        if lang is not None:
            return self._apply(effects, lang)
        try:
            key = ("#apply", tuple(effects))
            hash(key)
        except TypeError:
            return self._apply(effects)
        done = self.indexes.get(key)
        if done is None:
            done = self.indexes[key] = self._apply(effects)
        return done[0], list(done[1])

    def _apply(self, effects, lang: str | None = None) -> tuple["State", list]:
        from .phrases import say
        ents = dict(self.entities)
        by_type = {k: list(v) for k, v in self.by_type.items()}
        log = []
        for eff in effects:
            ent = ents.get(eff.entity)
            if ent is None:
                fail(eff.loc, "E601", f"'{eff.entity}' is no longer in the game state",
                     "an earlier effect removed it")
            if eff.kind == "remove":
                del ents[eff.entity]
                by_type[ent.type].remove(eff.entity)
                log.append((eff, say(lang, "log_removed", e=eff.entity)))
                continue
            old = ent.fields[eff.field]
            new = plain(old + eff.value if eff.kind == "add" else eff.value)
            lim = self.bounds.get((ent.type, eff.field))
            if lim is not None and isinstance(new, int) and not isinstance(new, bool):
                if isinstance(lim, tuple) and not lim[0] <= new <= lim[1]:
                    fail(eff.loc, "E602", f"{eff.entity}.{eff.field} would become {new}, outside "
                         f"{ent.type}.{eff.field} {lim[0]}..{lim[1]}",
                         "the rules must keep it in range (for example with max(...))")
                problem = not isinstance(lim, tuple) and lim(new)
                if problem:
                    fail(eff.loc, "E602", f"{eff.entity}.{eff.field} would become {new}: {problem}",
                         "turn a facing with turn(facing, degrees) by what the map allows")
            fields = dict(ent.fields)
            fields[eff.field] = new
            ents[eff.entity] = Entity(ent.type, ent.id, fields)
            if old == new and type(old) is type(new):     # set to what it was, or add 0
                log.append((eff, f"{eff.entity}.{eff.field}: {show(old, lang)} "
                                 + say(lang, "log_unchanged")))
            else:
                log.append((eff, f"{eff.entity}.{eff.field}: {show(old, lang)} → "
                                 f"{show(new, lang)}"))
        return State(ents, {k: tuple(v) for k, v in by_type.items()}, self.bounds), log


class NeedRoll(Exception):
    """Raised while enumerating: the evaluation asks for a die nobody has chosen yet (or
    for the sum of ``count`` such dice, enumerated at once by its convolved distribution)."""

    def __init__(self, die, low, high, count=1):
        super().__init__(die)
        self.die, self.low, self.high, self.count = die, low, high, count


class NeedChoice(Exception):
    """Raised while enumerating: the evaluation asks for a choice nobody has made yet."""

    def __init__(self, name, options):
        super().__init__(name)
        self.name, self.options = name, options


class ChoiceNotOpen(Exception):
    """Raised while enumerating: a choice given on the command line is not one of the
    options on this path of the dice (a roll decided what is open). ``odds`` counts the
    path as an outcome of its own instead of stopping."""

    def __init__(self, name, want, options, loc, asker=None):
        super().__init__(name)
        self.name, self.want, self.options, self.loc = name, want, options, loc
        self.asked_by = _asked_by(asker)      # ' asked by reply(u = u_foot)'

    def outcome(self) -> str:
        return (f"not open: {self.name} = {self.want} (the options there: "
                f"{', '.join(self.options)})")


_SAID_AS = {"true": "yes", "false": "no"}   # a Bool choice, given as a rule writes it


def choice_key(v) -> str:
    """How a chosen value is named on the command line and in outcomes."""
    if isinstance(v, (Entity,)):
        return v.id
    if isinstance(v, Level):
        return v.name
    return show(v)


def too_many_outcomes(limit: int, foreseen: float | None = None):
    """E802: more replays than ``limit``; with ``foreseen``, as many as the replays so
    far let foresee."""
    what = f"more than {limit} dice outcomes and choices to enumerate"
    if foreseen is not None:
        what += (f" (the first replays foresee about {foreseen:.1e})" if foreseen < 1e300
                 else " (the first replays foresee more than can be counted)")
    fail(Loc("<question>"), "E802", what, "give some of the rolls with --roll DIE=N or some "
         "of the choices with --choice NAME=ID, or ask about a smaller part of the question")


class Dice:
    """Where the inputs of a question come from — die rolls and players' choices: given
    first, then drawn from a seed, or enumerated, or else a located error asking for them."""
    # What most questions leave as it is; set on the instance only when given.
    rng = None                       # a seeded random generator, to draw what is not given
    path = None                      # faces and choices chosen so far, when enumerating
    step = 0
    where = None
    chosen = {}                      # choice name -> keys in order (never changed here)
    memo = None                      # when enumerating: results of calls shared by replays
    calls = 0                        # calls remembered or looked up so far in this replay
    branches = None                  # when enumerating: where this replay went on first
    runs = 0                         # when enumerating: replays so far, as if one per path,
    limit = 0                        # and how many may be
    frames = ()                      # when enumerating: the procedures running, innermost last
    groups = None                    # when enumerating: step -> the Group of the die read there

    def __init__(self, given=None, seed=None, path=None, where: Loc | None = None, chosen=None):
        self.given = given or {}         # die -> faces in order; never changed here
        self.used = {}                   # die -> how many of its given faces were read
        self.picks = {}                  # choice name -> how many of its given keys were used
        self.made = []                   # [(choice name, key)] in order
        self.read = []                   # [(die, face, how)] in order
        if chosen:
            self.chosen = chosen
        if seed is not None:
            import random           # only questions with --seed draw
            self.rng = random.Random(seed)
        if path is not None:
            self.path = path
        if where is not None:
            self.where = where

    def unread(self) -> list:
        """What was given and never read: [("roll", die, faces), ("choice", name, keys)]."""
        out = [("roll", die, faces[self.used.get(die, 0):]) for die, faces in self.given.items()
               if self.used.get(die, 0) < len(faces)]
        return out + [("choice", name, keys[self.picks.get(name, 0):])
                      for name, keys in self.chosen.items() if self.picks.get(name, 0) < len(keys)]

    def roll(self, die: str, low: int, high: int, loc: Loc) -> int:
        queue = self.given.get(die)
        n = self.used.get(die, 0)
        if queue is not None and n < len(queue):
            face = queue[n]
            self.used[die] = n + 1
            self.read.append((die, face, "given"))
            return face
        if self.path is not None:
            if self.step < len(self.path):
                face = self.path[self.step]
                self.step += 1
            elif self.branches is None:
                raise NeedRoll(die, low, high)
            else:
                face = self._branch((low, high, 1))
            self.read.append((die, face, "enumerated"))
            group = self.groups.get(self.step - 1) if self.groups else None
            return face if group is None else Face(face, group)
        if self.rng is not None:
            face = self.rng.randint(low, high)
            self.read.append((die, face, "drawn"))
            return face
        n = self.used.get(die, 0) + 1
        fail(loc, "E603", f"this needs a roll of {die} (roll number {n} of {die}) and none was given",
             f"give it with --roll {die}=N, draw it with --seed N, or ask 'odds' to enumerate it")
        return 0

    def roll_sum(self, die: str, low: int, high: int, count: int, loc: Loc) -> int:
        """The sum of ``count`` rolls of a die.  Given faces are read one by one, as
        ``roll`` reads them; when enumerating, the dice left are one step whose faces
        are the possible sums (``odds`` weighs them by their convolved distribution)."""
        count = plain(count)
        if self.path is None or count == 1:
            total = 0
            for _ in range(count):
                total += self.roll(die, low, high, loc)
            return total
        queue = self.given.get(die)
        total = 0
        if queue is not None:
            while count and self.used.get(die, 0) < len(queue):
                total += self.roll(die, low, high, loc)
                count -= 1
        if count <= 1:
            return total + self.roll(die, low, high, loc) if count else total
        if self.step < len(self.path):
            face = self.path[self.step]
            self.step += 1
        elif self.branches is None:
            raise NeedRoll(die, low, high, count)
        else:
            face = self._branch((low, high, count))
        self.read.append((f"{count}{die}", face, "enumerated"))
        group = self.groups.get(self.step - 1) if self.groups else None
        return total + (face if group is None else Face(face, group))

    def _branch(self, what) -> int:
        """Enumerating, the path ends where a die or a choice is read: this replay goes on
        with the first face (the lowest sum) or option, and leaves the others to the
        replays that follow (``branches``: where, and what was read).  The procedures
        running keep where those replays resume, as if the path had stopped here."""
        self.runs += 1                       # the replay that would have started here
        if self.runs > self.limit:
            too_many_outcomes(self.limit)
        for frame in reversed(self.frames):
            self.procedure_stopped(*frame)
        self.branches.append((self.step, what))
        if self.groups is not None and len(what) == 3:     # a die: its faces' group
            self.groups[self.step] = Group()
        first = what[0] * what[2] if len(what) == 3 else 0
        self.path = self.path + (first,)
        self.step += 1
        return first

    # -------------------------------------------------- sharing work between the replays
    # A replay of ``odds`` follows a path of faces and choices.  Everything it does before it
    # reads path entry k depends on entries 0..k-1 only, so the n-th remembered call (or
    # procedure) of a replay, reached with the path read so far P, is the same computation
    # in every replay that reaches it with P: its result, what it read and how many calls
    # it made can be copied instead of evaluated again.
    def _point(self, kind):
        n = self.calls
        self.calls = n + 1
        return (kind, n, self.path[:self.step]), self.step, n   # the path is a tuple here

    def _snapshot(self):
        return (len(self.made), len(self.read), dict(self.used) if self.used else None,
                dict(self.picks) if self.picks else None, self.calls)

    def _since(self, snap):
        made, read, used, picks, calls = snap
        return (self.made[made:], self.read[read:],
                {d: k for d, k in self.used.items() if (used or {}).get(d) != k},
                {c: k for c, k in self.picks.items() if (picks or {}).get(c) != k},
                self.calls - calls)

    def _found(self, seen, start, longest_first=False):
        """The record whose consumed path continues the current path, or None."""
        path = self.path
        lengths = sorted(seen, reverse=True) if longest_first else seen
        for length in lengths:
            if start + length <= len(path):
                got = seen[length].get(path[start:start + length])
                if got is not None:
                    made, read, used, picks, calls = got[0]
                    self.step = start + length
                    self.made.extend(made)
                    self.read.extend(read)
                    self.used.update(used)
                    self.picks.update(picks)
                    self.calls += calls
                    return got[1]
        return None

    def _keep(self, point, start, snap, record):
        seen = self.memo.setdefault(point, {})
        seen.setdefault(self.step - start, {})[self.path[start:self.step]] = (
            self._since(snap), record)

    # A call that reads no die and makes no choice is a function of its arguments and the
    # state it is asked on, as long as it cannot meet a remembered result that read one:
    # its context remembered none (``Ctx.diced`` says whether it did), or the rule calls
    # no rule that may read dice (``dice_free``, from ``Model.rolls_dice``).  Such a call
    # is shared by every replay that asks it on the same state object (``State.apply``
    # gives equal effects on one state one new state), whatever path led there.  Its
    # record holds the calls it made, so that the replays sharing a path count calls alike.
    def remembered(self, ctx, key, fn, args, dice_free=False):
        """``fn(ctx, args)`` for a call remembered per question (``ctx.rolled[key]``),
        shared by the replays that reach it with the same path or, reading no dice, on
        the same state (see above)."""
        memo = self.memo
        pure = None
        if dice_free or not ctx.diced:       # first the same call on the same state
            state = ctx.state
            pure = ("pure", key, id(state))
            got = memo.get(pure)
            if got is not None and got[0] is state:
                _, value, rolled, calls = got
                self.calls += 1 + calls
                ctx.rolled.update(rolled)
                return value
        point, start, _ = self._point("call")
        seen = memo.get(point)
        if seen is not None:
            got = self._found(seen, start)
            if got is not None:
                value, rolled, diced = got
                ctx.rolled.update(rolled)
                if diced:
                    ctx.diced = True
                return value
        read, made, calls, before = len(self.read), len(self.made), self.calls, len(ctx.rolled)
        snap = self._snapshot()
        value = fn(ctx, args)
        rolled = dict(islice(reversed(ctx.rolled.items()), len(ctx.rolled) - before))
        if len(self.read) == read and len(self.made) == made:
            if pure is not None:
                memo[pure] = (state, value, rolled, self.calls - calls)
                return value
            diced = False
        else:
            diced = ctx.diced = True
        self._keep(point, start, snap, (value, rolled, diced))
        return value

    def procedure_start(self):
        """Where a procedure starts, and the furthest step an earlier replay that went the
        same way reached: (token, (next step, state, effects so far) or None)."""
        point, start, _ = self._point("procedure")
        seen = self.memo.get(point)
        resumed = self._found(seen, start, longest_first=True) if seen else None
        return (point, start, self._snapshot() if resumed is None else resumed[3]), \
            resumed and resumed[:3]

    def procedure_stopped(self, token, step, state, done, at, snap_at):
        """A procedure's step ``step`` stopped for a die or a choice not read yet: the
        replays that follow resume at that step, with the state and effects before it."""
        point, start, snap = token
        here = (self.step, self.made, self.read, self.used, self.picks, self.calls)
        self.step = at
        self.made, self.read = self.made[:snap_at[0]], self.read[:snap_at[1]]
        self.used, self.picks = dict(snap_at[2] or {}), dict(snap_at[3] or {})
        self.calls = snap_at[4]
        self._keep(point, start, snap, (step, state, done, snap))
        self.step, self.made, self.read, self.used, self.picks, self.calls = here

    # A step of a procedure runs in a context of its own, on the state the steps before it
    # left: a step that read no die and made no choice is the same on the same state object
    # in every replay, and is shared as a call reading no dice is.
    def step_known(self, procedure, index, state, args):
        """(key, (state after, effects, stops) or None) of a procedure's step on a state:
        what an earlier replay found there, if the step read no dice."""
        try:
            key = ("step", id(procedure), index, id(state), *args)
            got = self.memo.get(key)
        except TypeError:                    # an argument that cannot be remembered
            return None, None
        if got is None or got[0] is not state:
            return key, None
        self.calls += got[4]
        return key, got[1:4]

    def step_done(self, key, snap, before, after, effects, stops):
        """Keep a step's outcome for the replays that reach it on the same state, if it
        read no dice and made no choice since ``snap`` (``_snapshot`` when it began)."""
        if len(self.made) == snap[0] and len(self.read) == snap[1]:
            self.memo[key] = (before, after, effects, stops, self.calls - snap[4])

    def choose(self, name: str, options: list, loc: Loc, asker=None):
        """``asker``: ((rule, its parameters' names, the call giving the options or
        None), the parameters' values) of the rule asking, named when the choice cannot
        be made (``_asked_by``, ``_why_options``)."""
        if not options:
            fail(loc, "E610", f"the choice '{name}' has nothing to choose from{_asked_by(asker)}")
        keys = [choice_key(o) for o in options]
        queue = self.chosen.get(name)
        n = self.picks.get(name, 0)
        if queue is not None and n < len(queue):
            want = queue[n]
            self.picks[name] = n + 1
            if want not in keys and isinstance(want, str) and _SAID_AS.get(want) in keys:
                want = _SAID_AS[want]
            if want not in keys and self.path is not None and self.branches is not None:
                raise ChoiceNotOpen(name, want, keys, loc, asker)    # odds: an outcome of its own
            if want not in keys:
                made = [w.strip() for w in want.split(",")] if isinstance(want, str) else []
                again = (" --choice ".join(f"{name}={w}" for w in made)
                         if len(made) > 1 and all(w in keys for w in made) else None)
                fail(loc, "E611", f"'{want}' is not one of the options of the choice '{name}'"
                     + _asked_by(asker) + (f" (the {_ordinal(n + 1)} time this question asks it: "
                                           f"the {_ordinal(n + 1)} --choice {name}=...)"
                                           if len(queue) > 1 or n else ""),
                     f"one of: {', '.join(keys)}" + _why_options(asker) + (
                         f"; a choice made more than once takes one --choice each time, in "
                         f"order: --choice {again}" if again else ""), given=f"{name}={want}")
            self.made.append((name, want))
            return options[keys.index(want)]
        if len(options) == 1:           # one option leaves nothing to choose
            self.made.append((name, keys[0]))
            return options[0]
        if self.path is not None:
            if self.step < len(self.path):
                index = self.path[self.step]
                self.step += 1
            elif self.branches is None:
                raise NeedChoice(name, keys)
            else:
                index = self._branch((keys,))
            self.made.append((name, keys[index]))
            return options[index]
        if self.rng is not None:
            index = self.rng.randrange(len(options))
            self.made.append((name, keys[index]))
            return options[index]
        asked = (f", a {_ordinal(n + 1)} time: {n} given" if queue else "")
        near = difflib.get_close_matches(name, [k for k in self.chosen if k != name], 1, 0.75)
        fail(loc, "E612", f"this needs the players' choice '{name}'{_asked_by(asker)}{asked} "
             f"(one of: {', '.join(keys)})",
             f"give it with --choice {name}={keys[0]}" + (" after the ones given" if queue else "")
             + f", or in an example: choose {name} = ..." + (
                 f"; --choice {near[0]}=... was given: is '{near[0]}' a misspelling of '{name}'?"
                 if near else ""))
        return None


def _asked_by(asker) -> str:
    """' asked by reply(u = u_foot)': the rule making a choice, with its arguments."""
    if not asker:
        return ""
    (rule, names, _), values = asker
    args = ", ".join(f"{p} = {show(v)}" for p, v in zip(names, values))
    return f" asked by {rule}({args})"


def _why_options(asker) -> str:
    """' (what replies(u_foot) gives at this point)': the call giving the options."""
    if not asker or asker[0][2] is None:
        return ""
    (_, _, (call, at)), values = asker
    return f" (what {call}({', '.join(show(values[i]) for i in at)}) gives at this point)"


def _ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, ... 11th, 12th, 13th, 21st."""
    tail = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{tail}"


class ReusedDice(Dice):
    """The dice of ``Rulebook.evaluator``: one object for many questions, reset per
    question; the given faces are read without being logged (nothing shows them)."""

    def reset(self, given):
        self.given = given or {}
        if self.used:
            self.used.clear()
        if self.picks:
            self.picks.clear()
        if self.made:
            self.made.clear()
        if self.read:
            self.read.clear()

    def roll(self, die: str, low: int, high: int, loc: Loc) -> int:
        queue = self.given.get(die)
        if queue is not None:
            n = self.used.get(die, 0)
            if n < len(queue):
                self.used[die] = n + 1
                return queue[n]
        return Dice.roll(self, die, low, high, loc)


class Ctx:
    """Everything an evaluation reads: the state, the dice, the options, and the trace."""
    trace = None                  # the root of the trace (steps.Logged), when asked for
    log = None                    # what traced evaluation records (steps.py), when asked
    diced = False                 # when enumerating: something remembered here read dice

    def __init__(self, state: State, dice: Dice, options: frozenset, trace: bool = False,
                 budget: Budget | None = None):
        self.rolled = {}          # (rule, args) -> value: each rule is worked out once
        self.shown = {}           # (rule, args) -> the record its step starts at, traced
        self.budget = Budget() if budget is None else budget   # shared by sub-contexts
        self.state = state
        self.dice = dice
        self.options = options
        if trace:
            self.trace = Logged("root", "")
            self.log = self.trace.log

    def enter(self, node: Trace):
        """A step starts: the steps recorded until ``leave`` are its children."""
        self.log.append(node)

    def leave(self):
        self.log.append(CLOSE)


def show(v, lang: str | None = None) -> str:
    """A value as a rules author would write it."""
    if v is None:
        if lang:
            from .phrases import say
            return say(lang, "none")
        return "none"
    if v is True or v is False:
        from .phrases import say
        return say(lang, "yes" if v else "no")
    if isinstance(v, Level):
        return v.label.show(v.name, lang) if lang else v.name
    if isinstance(v, CheckResult):
        from .phrases import say
        if not v.taken:
            return say(lang, "show_not_taken")
        if v.natural is None:
            return say(lang, "show_no_roll_failed" if not v.passed else "show_no_roll_passed")
        word = say(lang, "passed" if v.passed else "failed")
        return word + say(lang, "by", n=v.margin) if v.margin else word
    if isinstance(v, Verdict):
        from .phrases import say
        if v.allowed:
            return say(lang, "allowed")
        return say(lang, "refused") + ": " + "; ".join(
            f"§{d.section.number} {d.label.show(d.name, lang)}" if d.section else d.name
            for d in v.violated)
    if isinstance(v, tuple) and v and isinstance(v[0], Effect):
        return show_effects(v, lang)
    if isinstance(v, tuple) and not v:
        return "nothing"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(show(x, lang) for x in v) + "]"
    if isinstance(v, ChartRow):
        return ", ".join(f"{k} {show(x, lang)}" for k, x in v.fields.items())
    return str(v)


def show_answer(v, ty, lang: str | None = None) -> str:
    """An answer as ``show`` writes it, knowing its type: an empty list is ``[]``, not the
    ``nothing`` of no effects (both are an empty tuple)."""
    t = ty.inner if getattr(ty, "kind", None) == "opt" else ty
    if isinstance(v, tuple) and not v and getattr(t, "kind", None) == "list":
        return "[]"
    return show(v, lang)


def show_effects(effects: tuple, lang=None, known: dict | None = None) -> str:
    """A list of effects as a rules author would write it; ``known`` (id -> (effect,
    text)) keeps each effect's text for the next list that holds the same effect."""
    if known is None:
        return "; ".join(show_effect(e, lang) for e in effects)
    texts = []
    for e in effects:
        got = known.get(id(e))
        if got is None or got[0] is not e:
            got = known[id(e)] = (e, show_effect(e, lang))
        texts.append(got[1])
    return "; ".join(texts)


def show_effect(e: Effect, lang=None) -> str:
    if e.kind == "remove":
        return f"remove {e.entity}"
    if e.kind == "add":
        return f"add {e.value} to {e.entity}.{e.field}"
    return f"set {e.entity}.{e.field} to {show(e.value, lang)}"


__all__ = ["Level", "Range", "NEVER", "Entity", "CheckResult", "not_taken", "Effect", "State",
           "Dice", "NeedRoll", "Trace", "Ctx", "show", "DrillError"]
