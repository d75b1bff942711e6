"""The fast path's planning (compile/leaves.py), field paths read once, parameters checked on
entry, and searches lowered to statements (compile/lower.py) answer exactly as the traced
path does: the same values, and the same located errors (code, line and column)."""
from __future__ import annotations

import pytest

from drillbook.compile.leaves import MAX_NODES, small_rules
from drillbook.errors import DrillError
from drillbook.evaluate import Rulebook
from drillbook.runtime import Ctx, Dice, show

BOOK = '''\
rulebook "Fast path" edition "1" languages en

section 1 "Things"
  scale Morale
    Normal
    Shaken
    Broken
  record Leader
    rating: -3..3 = 0
  record Hex
    q: Int
    cost: 0..9 = 1
  record Unit
    leader: Leader?
    morale: Morale = Normal
    hits: 0..9 = 0
    path: list of Hex = []
  record Pair
    a: Unit
    b: Unit?

section 2 "Rules"
  define rating(u: Unit) -> Int "the leader's rating, or 0"
    = (if u.leader is none then 0 else u.leader.rating + u.leader.rating - u.leader.rating)
  define bad(u: Unit) -> Bool "shaken or worse" = u.morale >= Shaken
  define battered(u: Unit) -> Bool "more than half of the units are shaken or worse"
    = 2 * count(Unit x where bad(x)) > count(Unit x where x.hits >= 0)
  define any_broken -> Bool "a unit is broken" = exists(Unit x where x.morale == Broken)
  define all_normal -> Bool "every unit is normal" = every(x.morale == Normal for x in units())
  define units -> list of Unit "every unit" = [x for x in [the(Unit y where y.hits == 9)] if x is not none]
  define hurt -> Int "hits of all units" = sum(x.hits for x in all_units())
  define all_units -> list of Unit "every unit, by hits" = [the(Unit y where y.hits == 1), the(Unit y where y.hits == 2)]
  define first_hurt -> Int? "the first hits above 1" = first(i for i from 1 to 5 if i > 1)
  define some_hurt -> Bool "a hit above 3" = some(i > 3 for i from 1 to 5)
  define the_broken -> Unit? "the broken unit" = the(Unit x where x.morale == Broken)
  define step_cost(u: Unit, i: Int) -> Int "the cost of the i-th hex" = u.path[i].cost + u.path[i].cost
  define steps(u: Unit) -> Int "hexes on the path" = len(u.path) - 1
  define other_rating(p: Pair) -> Int "the second unit's leader" = p.b.leader.rating + p.a.hits
  define maybe_hits(u: Unit?) -> Int "a parameter that may be none" = u.hits + u.hits
  define guarded_hits(u: Unit?) -> Int "read only when there" = (if u is none then 0 else u.hits + u.hits)
  define pair_of(x: Unit, y: Unit) -> Pair? "the pair of two units, either way"
    = the(Pair p where (p.a == x and p.b == y) or (p.a == y and p.b == x))
  define pairs_led(x: Unit) -> Int "pairs whose first unit is x" = count(Pair p where p.a == x)
  define in_a_pair(x: Unit) -> Bool "x is some pair's second unit" = exists(Pair p where p.b == x)
  define morale_value(u: Unit) -> Int "printed" = 5
  exception shaken to morale_value "shaken" when u.morale == Shaken = 3
  exception hurt_unit to morale_value "hurt" when u.hits > 0 = 2
'''


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fast")
    (folder / "rulebook.drill").write_text(BOOK, encoding="utf-8")
    return Rulebook.open(str(folder))


STATES = {
    "calm": "Leader:\n  l: {rating: 2}\nHex:\n  h0: {q: 0, cost: 1}\n  h1: {q: 1, cost: 3}\n"
            "Unit:\n  u: {leader: l, hits: 1, path: [h0, h1]}\n  v: {hits: 2, morale: Shaken}\n"
            "Pair:\n  p: {a: u, b: v}\n  q: {a: v, b: u}\n",
    "broken": "Leader:\n  l: {rating: -1}\nUnit:\n  u: {leader: l, morale: Broken}\n"
              "  v: {morale: Broken, hits: 9}\nPair:\n  p: {a: u}\n",
}
QUESTIONS = ["rating(u)", "rating(v)", "battered(u)", "any_broken", "all_normal", "hurt",
             "first_hurt", "some_hurt", "the_broken", "step_cost(u, 1)", "step_cost(u, 2)",
             "steps(u)", "other_rating(p)", "morale_value(u)", "morale_value(v)",
             "maybe_hits(the(Unit x where x.hits == 7))", "maybe_hits(u)",
             "guarded_hits(the(Unit x where x.hits == 7))", "guarded_hits(u)",
             "pair_of(u, v)", "pair_of(v, u)", "pair_of(u, u)", "pairs_led(u)", "pairs_led(v)",
             "in_a_pair(u)", "in_a_pair(v)"]


def _answer(rb, state, question, trace):
    fn, _, size, _ = rb.question(question, state)
    try:
        return show(fn(Ctx(state, Dice(), frozenset(), trace), [None] * size))
    except DrillError as e:
        d = e.diagnostics[0]
        return f"{d.code} {d.loc.line}:{d.loc.col} {d.message}"


@pytest.mark.parametrize("name", sorted(STATES))
def test_fast_and_traced_answers_agree(book, tmp_path, name):
    path = tmp_path / "state.yaml"
    path.write_text(STATES[name], encoding="utf-8")
    state = book.state(str(path))
    answers = {q: (_answer(book, state, q, False), _answer(book, state, q, True))
               for q in QUESTIONS}
    for q, (fast, traced) in answers.items():
        assert fast == traced, f"{q}: fast {fast!r}, traced {traced!r}"
    if name == "calm":
        assert answers["rating(u)"][0] == "2" and answers["rating(v)"][0] == "0"
        assert answers["step_cost(u, 1)"][0] == "6"
        assert answers["step_cost(u, 2)"][0].startswith("E615 ")
        assert answers["steps(u)"][0] == "1"
        assert answers["morale_value(v)"][0].startswith("E607 ")   # both exceptions apply
        assert answers["morale_value(u)"][0] == "2"
        assert answers["hurt"][0] == "3" and answers["battered(u)"][0] == "no"
        # a search answered by its index alone (lower._indexed, exact): both ways found
        assert answers["pair_of(u, v)"][0].startswith("E614 ")
        assert answers["pair_of(u, u)"][0] == "none" and answers["pairs_led(u)"][0] == "1"
        assert answers["in_a_pair(u)"][0] == "yes"
    else:
        assert answers["the_broken"][0].startswith("E614 ")        # two broken units
        assert answers["other_rating(p)"][0].startswith("E604 ")   # p.b is none
        assert answers["maybe_hits(the(Unit x where x.hits == 7))"][0].startswith("E604 ")
        assert answers["guarded_hits(the(Unit x where x.hits == 7))"][0] == "0"
        assert answers["any_broken"][0] == "yes" and answers["battered(u)"][0] == "yes"
        assert answers["pair_of(u, v)"][0] == "none" and answers["pairs_led(u)"][0] == "1"
        assert answers["in_a_pair(v)"][0] == "no" and answers["pairs_led(v)"][0] == "0"


def test_the_fast_path_does_what_this_test_says(book):
    """The shapes above really take the fast path: small rules, lowered loops."""
    small = small_rules(book.model)
    assert {"rating", "bad", "battered", "any_broken", "step_cost", "morale_value"} <= small
    assert MAX_NODES >= 80


def test_a_chain_that_doubles_is_remembered(tmp_path):
    """Each rule calling the one before twice: small near the bottom, remembered above,
    so the question costs a call per level, not 2^levels."""
    lines = ['rulebook "Chain" edition "1" languages en', "", 'section 1 "Chain"',
             '  define r0(n: Int) -> Int "zero" = n + 1']
    for i in range(1, 41):
        lines.append(f'  define r{i}(n: Int) -> Int "level {i}" = r{i - 1}(n) + r{i - 1}(n)')
    (tmp_path / "rulebook.drill").write_text("\n".join(lines) + "\n", encoding="utf-8")
    rb = Rulebook.open(str(tmp_path))
    small = small_rules(rb.model)
    assert "r0" in small and "r40" not in small
    fn, _, size, _ = rb.question("r40(1)", rb.state(None))
    assert fn(Ctx(rb.state(None), Dice(), frozenset()), [None] * size) == 2 * 2 ** 40
