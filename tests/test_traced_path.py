"""The traced path of compile/record.py (generated bodies, a plain rule's traced entry)
records the same trace as the step-by-step functions it stands in for: every node, value,
argument, modifier and "as above" of every expectation of every bundled rulebook."""
from __future__ import annotations

from pathlib import Path

import pytest

from drillbook.compile import record
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


def _traces(path, step_by_step, monkeypatch):
    if step_by_step:             # the functions of __init__.py, which record every step
        monkeypatch.setattr(record, "rule_value", lambda program, d, params, slow: slow)
        monkeypatch.setattr(record, "entry", lambda program, d, once, value: once)
        monkeypatch.setattr(record, "modifier_items", lambda program, m, slow: slow)
    rb = Rulebook.open(str(path))
    out = []
    for ex, state, options, rolls, exp in expectations(rb):
        ctx = Ctx(state, Dice(rolls, seed=7), options, True)
        try:
            rb.program.compile_expr(exp.expr)(ctx, [None] * exp.frame)
            got = _plain(ctx.trace)
        except DrillError as e:
            got = ("error", e.diagnostics[0].code, e.diagnostics[0].loc.line)
        out.append((ex.name, got))
    monkeypatch.undo()
    return out


@pytest.mark.parametrize("path", BOOKS, ids=lambda p: p.name)
def test_generated_traces_are_the_step_by_step_traces(path, monkeypatch):
    generated = _traces(path, False, monkeypatch)
    step_by_step = _traces(path, True, monkeypatch)
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
