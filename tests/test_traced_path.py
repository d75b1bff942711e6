"""The traced path of compile/record.py (generated checks and bodies, with what they call
inlined, a plain rule's traced entry) records the same trace as the step-by-step functions
it stands in for: every node, value, argument, modifier and "as above" of every expectation
of every bundled rulebook; and the log the trace is read from (steps.py) keeps the meaning
of "as above", of a state that effects left, and of a step an error stopped."""
from __future__ import annotations

from pathlib import Path

import pytest

from drillbook.compile import compile_model
from drillbook.errors import DrillError
from drillbook.evaluate import Rulebook
from drillbook.runtime import Ctx, Dice, Trace
from test_fast_path import expectations

ROOT = Path(__file__).resolve().parent.parent
BOOKS = [p for p in sorted((ROOT / "rulebooks").iterdir()) if (p / "rulebook.drill").exists()]


def _plain(x):
    if isinstance(x, Trace):
        return (x.kind, x.name, _plain(x.value), _plain(x.detail), [_plain(c) for c in x.children])
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if hasattr(x, "loc") and hasattr(x, "name"):        # a declaration or a modifier
        return ("decl", x.name, x.loc.line, x.loc.col)
    return repr(x)


def _traces(path, step_by_step):
    rb = Rulebook.open(str(path))
    if step_by_step:             # the functions of __init__.py, which record every step
        rb = Rulebook(rb.model, compile_model(rb.model, generated=False))
    out = []
    for ex, state, options, rolls, exp in expectations(rb):
        ctx = Ctx(state, Dice(rolls, seed=7), options, True)
        try:
            rb.program.compile_expr(exp.expr)(ctx, [None] * exp.frame)
            got = _plain(ctx.trace)
        except DrillError as e:
            got = ("error", e.diagnostics[0].code, e.diagnostics[0].loc.line)
        out.append((ex.name, got))
    return out


@pytest.mark.parametrize("path", BOOKS, ids=lambda p: p.name)
def test_generated_traces_are_the_step_by_step_traces(path):
    generated = _traces(path, False)
    step_by_step = _traces(path, True)
    assert len(generated) > 10
    for (name, a), (_, b) in zip(generated, step_by_step):
        assert a == b, name


def test_a_rule_asked_twice_is_shown_as_above():
    """The second call of a rule in a question shows its answer without its steps."""
    book = ROOT / "rulebooks" / "musket-and-pike"
    rb = Rulebook.open(str(book))
    state = rb.state(str(book / "states" / "cavalry-wing.yaml"))
    fn, _, size, _ = rb.question("near_enemy(wc) and near_enemy(wc)", state)
    ctx = Ctx(state, Dice(), frozenset(), True)
    fn(ctx, [None] * size)
    first, again = ctx.trace.children
    assert (first.kind, first.name, again.kind, again.name) == ("rule", "near_enemy") * 2
    assert first.children and not again.children and again.value == first.value


TINY = """rulebook "Trace log" edition "1" languages en

section 1 "Units"
  record Unit
    hits: 0..5 = 0
    partner: Unit? = none
  define double(u: Unit) -> Int "twice the hits" = u.hits * 2
  define both(u: Unit) -> Int "double, twice" = double(u) + double(u)
  define hurt(u: Unit) -> Effects "one more hit" = set u.hits to u.hits + 1
  define partner_hits(u: Unit) -> Int "the partner's hits" = double(u) + u.partner.hits
  define hurt_more_than(n: Int) -> Int "how many have more hits than n"
    = count(Unit u where double(u) > n)
"""


def _tiny(tmp_path, question):
    (tmp_path / "rulebook.drill").write_text(TINY, encoding="utf-8")
    (tmp_path / "state.yaml").write_text("Unit:\n  a: {hits: 1}\n", encoding="utf-8")
    rb = Rulebook.open(str(tmp_path))
    state = rb.state(str(tmp_path / "state.yaml"))
    fn, _, size, _ = rb.question(question, state)
    ctx = Ctx(state, Dice(), frozenset(), True)
    try:
        value = fn(ctx, [None] * size)
    except DrillError as e:
        value = e
    return value, ctx.trace


def _shape(node):
    return [(c.kind, c.name, c.value, _shape(c)) for c in node.children]


def test_an_inlined_rule_asked_twice_is_shown_as_above(tmp_path):
    """double(u) is worked out in line in both's traced body, twice; the trace shows the
    second time as above (no steps of its own), as it shows a rule it remembers."""
    value, trace = _tiny(tmp_path, "both(a)")
    assert value == 4
    assert _shape(trace) == [("rule", "both", 4, [("rule", "double", 2, []),
                                                  ("rule", "double", 2, [])])]
    first, again = trace.children[0].children
    assert again.detail is first.detail and again.detail["args"]["u"].id == "a"


def test_a_rule_after_effects_is_worked_out_again(tmp_path):
    """On the state the effects leave, the same rule with the same arguments is a new
    question: shown in full, with its new value, not "as above"."""
    value, trace = _tiny(tmp_path, "hurt_more_than(3) == 0 and "
                                   "(after hurt(a): hurt_more_than(3) == 1)")
    assert value is True
    rules = [n for n in _walk(trace) if n.kind == "rule" and n.name == "hurt_more_than"]
    assert [(r.value, _shape(r)) for r in rules] == [(0, [("rule", "double", 2, [])]),
                                                     (1, [("rule", "double", 4, [])])]


def test_a_step_an_error_stopped_ends_where_the_log_ends(tmp_path):
    """The steps begun before the error stay in the trace; the one the error stopped has
    no value, as it stood when evaluation stopped."""
    value, trace = _tiny(tmp_path, "partner_hits(a)")
    assert isinstance(value, DrillError) and value.diagnostics[0].code == "E604"
    assert _shape(trace) == [("rule", "partner_hits", None, [("rule", "double", 2, [])])]


def _walk(node):
    for c in node.children:
        yield c
        yield from _walk(c)


MP = ROOT / "rulebooks" / "musket-and-pike"
CAVALRY = MP / "states" / "cavalry-wing.yaml"


@pytest.mark.parametrize("generated", [True, False], ids=["generated", "step-by-step"])
def test_the_thing_an_exists_found_is_a_step_of_the_ruling(generated):
    """M&P round 13 Q8: must_rally is 'not exists(Unit u where ...)'; its ruling names the
    unit that keeps the wing from having to rally, with the fields the search read of it.
    A search that finds nothing records nothing."""
    from drillbook.explain import ruling
    rb = Rulebook.open(str(MP))
    if not generated:
        rb = Rulebook(rb.model, compile_model(rb.model, generated=False))
    state = rb.state(str(CAVALRY))
    answer = rb.ask("must_rally(horse)", state)
    found = [(n.name, n.value.id) for n in _walk(answer.trace) if n.kind == "found"]
    assert (answer.value, found) == (False, [("exists", "cuirassiers")])
    assert ("- found: Unit cuirassiers (u.wing = horse, u.class = Cavalry, u.morale = Normal, "
            "u.formation = FormationNormal)") in ruling(answer, model=rb.model)
    answer = rb.ask("after set cuirassiers.morale to Shaken: must_rally(horse)", state)
    assert answer.value is True          # reiters Shaken, dragoons Broken: none found
    assert [n for n in _walk(answer.trace) if n.kind == "found"] == []
