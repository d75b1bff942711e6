"""A rulebook's rules are compiled when first reached: a question compiles only what it
needs, and every rule of every bundled and test rulebook still compiles."""
from __future__ import annotations

from pathlib import Path

import pytest

from drillbook.evaluate import Rulebook

ROOT = Path(__file__).resolve().parent.parent
BOOKS = [p for p in sorted((ROOT / "rulebooks").iterdir()) if (p / "rulebook.drill").exists()]
BOOKS += sorted((ROOT / "tests" / "good").glob("*.drill"))


@pytest.mark.parametrize("path", BOOKS, ids=lambda p: p.stem if p.is_file() else p.name)
def test_every_rule_compiles(path):
    program = Rulebook.open(str(path)).program
    pending = len(program._pending)
    program.compile_all()
    assert program._pending == {} and len(program.callables) >= pending


def test_a_question_compiles_only_what_it_reaches():
    book = ROOT / "rulebooks" / "musket-and-pike"
    rb = Rulebook.open(str(book))
    everything = len(rb.program._pending)
    state = rb.state(str(book / "states" / "cavalry-wing.yaml"))
    ans = rb.ask("order_change_roll(horse, Charge)", state, {"d10": [6]})
    assert str(ans.value) == "CheckResult(order_change_roll: passed by 2)"
    assert 0 < len(rb.program.callables) < everything / 4


def test_generated_code_is_compiled_once_per_process():
    """A rulebook opened again (diff opens a base and its variant) reuses the code objects
    of the sources it generates again; each function still has its own globals."""
    from drillbook.compile import codegen
    book = ROOT / "rulebooks" / "by-fire-and-sword"
    codegen._CODE.clear()
    first = Rulebook.open(str(book))
    first.program.compile_all()
    size = len(codegen._CODE)
    again = Rulebook.open(str(book))
    again.program.compile_all()
    assert size > 100 and len(codegen._CODE) == size
    a, b = (rb.program.fast_ref("closest_target").fn for rb in (first, again))
    assert a.__code__ is b.__code__ and a.__globals__ is not b.__globals__
