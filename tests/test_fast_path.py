"""The untraced fast path (calls inlined, compile/inline.py), the traced path and the
step-by-step functions without generated code give the same values on every expectation of
every bundled rulebook; the lean question API (``Rulebook.evaluator``) answers as ``ask``
does."""
from __future__ import annotations

from pathlib import Path

import pytest

from drillbook.compile import compile_model
from drillbook.errors import DrillError
from drillbook.evaluate import Rulebook
from drillbook.runtime import Ctx, Dice, show
from drillbook.state import state_from_givens

ROOT = Path(__file__).resolve().parent.parent
BOOKS = [p for p in sorted((ROOT / "rulebooks").iterdir()) if (p / "rulebook.drill").exists()]


def _value(fn, state, dice, options, size, trace):
    try:
        return show(fn(Ctx(state, dice, options, trace), [None] * size))
    except DrillError as e:
        return "error: " + e.diagnostics[0].message


def expectations(rb):
    """(example, state, options, rolls, expectation) for every expectation of a rulebook's
    examples whose givens and options can be read."""
    for ex in rb.model.examples:
        try:
            state = state_from_givens(rb.program, ex.givens)
            options = rb.options([f"{n}={'on' if on else 'off'}" for _, n, on in ex.options])
        except DrillError:
            continue
        rolls: dict = {}
        for _, die, faces in ex.rolls:
            rolls.setdefault(die, []).extend(faces)
        for exp in ex.expects:
            yield ex, state, options, rolls, exp


@pytest.mark.parametrize("path", BOOKS, ids=lambda p: p.name)
def test_traced_and_untraced_evaluation_agree(path):
    rb = Rulebook.open(str(path))
    compared = 0
    for ex, state, options, rolls, exp in expectations(rb):
        fn = rb.program.compile_expr(exp.expr)
        fast = _value(fn, state, Dice(rolls, seed=7), options, exp.frame, False)
        traced = _value(fn, state, Dice(rolls, seed=7), options, exp.frame, True)
        assert fast == traced, f"{ex.name}: {fast} != {traced}"
        compared += 1
    assert compared > 10


@pytest.mark.parametrize("path", BOOKS, ids=lambda p: p.name)
def test_generated_and_step_by_step_evaluation_agree(path):
    """The generated code (inline.py, record.py) against the step-by-step functions of
    compile/__init__.py alone (``generated=False``), which share none of its inlining,
    slots or traced records: the same value or the same located error, untraced."""
    rb = Rulebook.open(str(path))
    plain = Rulebook(rb.model, compile_model(rb.model, generated=False))
    compared = 0               # (each program's states: levels are compared by identity)
    for (ex, state, options, rolls, exp), (_, state2, options2, _, _) in zip(
            expectations(rb), expectations(plain)):
        fast = _value(rb.program.compile_expr(exp.expr), state, Dice(rolls, seed=7), options,
                      exp.frame, False)
        slow = _value(plain.program.compile_expr(exp.expr), state2, Dice(rolls, seed=7),
                      options2, exp.frame, False)
        assert fast == slow, f"{ex.name}: {fast} != {slow}"
        compared += 1
    assert compared > 10


def test_the_lean_evaluator_answers_as_ask_does():
    book = ROOT / "rulebooks" / "musket-and-pike"
    rb = Rulebook.open(str(book))
    state = rb.state(str(book / "states" / "cavalry-wing.yaml"))
    order = {lv.name: lv for lv in rb.program.levels["Order"]}
    ev = rb.evaluator("order_change_roll")
    traced = rb.evaluator("order_change_roll", trace=True)
    wing = state.entities["horse"]
    def shown(fn, *args):
        try:
            return show(fn(*args))
        except DrillError as e:
            return "error: " + e.diagnostics[0].message
    for desired in order:
        for face in range(10):
            want = shown(lambda: rb.ask(f"order_change_roll(horse, {desired})", state,
                                        {"d10": [face]}).value)
            assert shown(ev, state, [wing, order[desired]], {"d10": [face]}) == want
            assert shown(traced, state, [wing, order[desired]], {"d10": [face]}) == want
            assert traced.trace.children and traced.trace.children[0].kind == "check"
    with pytest.raises(DrillError, match="needs a roll of d10"):
        ev(state, [wing, order["Rally"]])
