"""``odds`` by distributions (sums of dice convolved, replays sharing remembered calls) gives
exactly the fractions of the old way: one replay from the root per path of single faces.

The old enumerator is kept here as the reference; every question an example of a bundled
rulebook (or variant) asks that reads dice or choices is enumerated both ways, without
and with the example's own rolls and choices, and must agree to the fraction."""
from __future__ import annotations

import textwrap
from fractions import Fraction
from pathlib import Path

import pytest

from drillbook import ast as A
from drillbook.errors import DrillError
from drillbook.evaluate import Rulebook, enumerate_outcomes, outcome_key, sum_distribution
from drillbook.runtime import Ctx, Dice, NeedChoice, NeedRoll, choice_key
from drillbook.state import state_from_givens

ROOT = Path(__file__).resolve().parent.parent
REFERENCE_CAP = 20_000          # "small cases": the old way gives up beyond this


class OneDieAtATime(Dice):
    """The old dice: every die of a sum is its own step, nothing is shared by replays."""

    def roll_sum(self, die, low, high, count, loc):
        total = 0
        for _ in range(count):
            total += self.roll(die, low, high, loc)
        return total


def old_way(run, rolls=None, choices=None, cap=REFERENCE_CAP):
    dist, stack, runs = {}, [([], Fraction(1))], 0
    while stack:
        path, p = stack.pop()
        runs += 1
        if runs > cap:
            return None
        dice = OneDieAtATime(rolls, path=path, chosen=choices)
        try:
            value = run(dice)
        except NeedRoll as need:
            assert need.count == 1
            faces = range(need.low, need.high + 1)
            for f in reversed(faces):
                stack.append((path + [f], p / len(faces)))
            continue
        except NeedChoice as need:
            for i in reversed(range(len(need.options))):
                stack.append((path + [i], p))
            continue
        made = tuple((n, str(k)) for n, k in dice.made)
        key = (made, outcome_key(value))
        dist[key] = dist.get(key, Fraction(0)) + p
    return dist


def both_ways(fn, size, state, options, rolls=None, choices=None, cap=REFERENCE_CAP):
    def run(dice):
        return fn(Ctx(state, dice, options), [None] * size)
    try:
        old = old_way(run, rolls, choices, cap)
    except DrillError as e:
        old = ("error", e.diagnostics[0].message)
    if old is None:
        return None
    try:
        new = enumerate_outcomes(run, rolls, choices)
    except DrillError as e:
        new = ("error", e.diagnostics[0].message)
    return old, new


def _questions(ex, model):
    """Every expectation of an example, and every call in it that reads dice."""
    out = []
    for exp in ex.expects:
        out.append(A.to_source(exp.expr))
        for node in A.walk(exp.expr):
            if isinstance(node, A.Call) and node.name in model.rolls_dice:
                out.append(A.to_source(node))
    return list(dict.fromkeys(out))


def _books():
    for folder in sorted((ROOT / "rulebooks").iterdir()):
        if (folder / "rulebook.drill").is_file():
            yield str(folder)
            for v in sorted((folder / "variants").glob("*.drill")):
                yield str(v)


@pytest.mark.parametrize("path", list(_books()), ids=lambda p: Path(p).stem)
def test_every_example_question_has_the_same_odds_as_the_old_way(path):
    rb = Rulebook.open(path)
    compared = 0
    for ex in rb.model.examples:
        try:
            state = state_from_givens(rb.program, ex.givens)
            options = rb.options([f"{n}={'on' if on else 'off'}" for _, n, on in ex.options],
                                 ex.loc)
        except DrillError:
            continue
        rolls: dict = {}
        for _, die, faces in ex.rolls:
            rolls.setdefault(die, []).extend(faces)
        chosen: dict = {}
        try:
            for _, name, values in ex.choices:
                for v in values:
                    chosen.setdefault(name, []).append(choice_key(rb.program.compile_expr(v)(
                        Ctx(state, Dice(), options), [None] * ex.choice_frame)))
        except DrillError:
            chosen = {}
        for text in _questions(ex, rb.model):
            try:
                fn, _, size, _ = rb.question(text, state)
            except DrillError:
                continue
            for given, picks in ((None, None), (rolls, chosen)):
                got = both_ways(fn, size, state, options, given, picks)
                if got is None:
                    continue
                old, new = got
                assert new == old, f"{ex.name}: odds of {text} differ"
                compared += 1
    assert compared > 0


def asked(tmp_path, book: str, question: str):
    """(state, fn, frame size) of a question to a one-file rulebook, on one unit u."""
    (tmp_path / "rulebook.drill").write_text(book, encoding="utf-8")
    (tmp_path / "state.yaml").write_text("Unit:\n  u: {hits: 1}\n", encoding="utf-8")
    rb = Rulebook.open(str(tmp_path))
    state = rb.state(str(tmp_path / "state.yaml"))
    fn, _, size, _ = rb.question(question, state)
    return state, fn, size


SUMS = """\
rulebook "Sums" edition "1" languages en

section 1 "Dice"
  die d6 faces 1..6
  die d10 faces 0..9
  record Unit
    hits: 0..5 = 0
  modifiers drm(u: Unit)
    hits: u.hits
  check volley(u: Unit) = roll 3 d6 + drm(u) at least 12
  check two(u: Unit) = roll 2 d10 + drm(u) at most 9
  define pair(u: Unit) -> Int = roll 2 d6 + roll d6
  define twice(u: Unit) -> Bool = volley(u).passed and volley(u).passed_by > 2
  define pick(u: Unit) -> Int = (choose how from [1, 2, 3]) + roll 2 d6
"""


@pytest.mark.parametrize("question", [
    "volley(u)", "two(u)", "pair(u)", "twice(u)", "pick(u)", "[pick(u), volley(u).total]",
    "volley(u).passed and two(u).failed", "if volley(u).passed then pair(u) else pick(u)"])
def test_sums_of_dice_and_shared_calls_agree_with_single_faces(tmp_path, question):
    state, fn, size = asked(tmp_path, textwrap.dedent(SUMS), question)
    for rolls in (None, {"d6": [6]}, {"d6": [2, 5], "d10": [9]}):
        old, new = both_ways(fn, size, state, frozenset(), rolls, cap=100_000)
        assert new == old


def test_ten_d10_is_no_longer_too_large(tmp_path):
    (tmp_path / "rulebook.drill").write_text(textwrap.dedent(SUMS).replace(
        "roll 2 d10", "roll 10 d10"), encoding="utf-8")
    (tmp_path / "state.yaml").write_text("Unit:\n  u: {hits: 0}\n", encoding="utf-8")
    rb = Rulebook.open(str(tmp_path))
    _, dist = rb.odds("two(u)", rb.state(str(tmp_path / "state.yaml")))
    # P(sum of 10 faces 0..9 <= 9): compositions of at most 9 into 10 parts, C(19, 10)
    assert dist[((), "passed")] == Fraction(92378, 10 ** 10)
    assert sum(dist.values()) == 1


def test_sum_distribution_is_the_convolution():
    dist = dict(sum_distribution(1, 6, 2))
    assert dist[7] == Fraction(1, 6) and dist[2] == Fraction(1, 36) and sum(dist.values()) == 1
    assert len(sum_distribution(1, 6, 8)) == 41


# Faces alike (faces.py): a face every comparison answers as it answered another face is
# counted with that face's outcomes, not replayed.  Everything else done with a face must
# replay it: each question here uses a die another way, and must agree with single faces.
FACES = """\
rulebook "Faces" edition "1" languages en

section 1 "Faces"
  die d6 faces 1..6
  scale Morale
    Steady
    Shaken
    Broken
    Routed
  record Unit
    hits: 0..20 = 0
    morale: Morale = Steady
  table by_face(f: d6) -> Int
    | f   | value |
    | 1-2 | 0     |
    | 3-5 | 1     |
    | 6   | 3     |
  check volley(u: Unit) = roll 2 d6 + u.hits at least 9
  define worse(u: Unit) -> Morale = next(u.morale, roll d6 - 3)
  define hit_after(u: Unit) -> Bool = after add roll d6 to u.hits: u.hits >= 4
"""


@pytest.mark.parametrize("question", [
    "roll d6 >= 4", "roll d6 + 2 > 5", "2 - roll d6 < 0", "-(roll d6) <= -5",
    "roll d6 * 2 >= 7", "roll d6 * 0", "roll d6 in [2, 4, 6]", "by_face(roll d6)",
    "[10, 20, 30, 40, 50, 60][roll d6 - 1]", "sum(i for i from 1 to roll d6)",
    "abs(roll d6 - 4)", "min(roll d6, 3)", "max(roll d6, 3) == 3", "roll d6 + roll d6 >= 7",
    "if roll d6 == 1 then 0 else roll d6", "roll d6", "volley(u).passed",
    "volley(u).passed_by", "worse(u)", "hit_after(u)",
    "after add roll d6 to u.hits: u.hits", "[roll d6 > 3, roll d6 > 4]"])
def test_faces_alike_agree_with_single_faces(tmp_path, question):
    state, fn, size = asked(tmp_path, FACES, question)
    for rolls in (None, {"d6": [6]}):
        old, new = both_ways(fn, size, state, frozenset(), rolls, cap=100_000)
        assert new == old
        assert new == enumerate_outcomes(
            lambda dice: fn(Ctx(state, dice, frozenset()), [None] * size), rolls, alike=False)


@pytest.mark.parametrize("question, replays", [
    ("roll d6 >= 4", 2), ("roll 8 d6 at most 30", 2), ("roll 2 d6 + 1 >= 8", 2),
    ("by_face(roll d6)", 6), ("roll d6 >= 4 and roll d6 >= 3", 3)])
def test_faces_alike_are_replayed_once(tmp_path, question, replays):
    """A die only compared with numbers is replayed once per way the comparisons go; one
    looked up in a table is replayed once per face."""
    state, fn, size = asked(tmp_path, FACES.replace(
        '  define worse', '  check many(u: Unit) = roll 8 d6 at most 30\n  define worse'),
        question.replace("roll 8 d6 at most 30", "many(u).passed"))
    runs = []

    def run(dice):
        runs.append(dice.path)
        return fn(Ctx(state, dice, frozenset()), [None] * size)
    enumerate_outcomes(run)
    assert len(runs) == replays, runs

