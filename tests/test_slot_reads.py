"""compile/slots.py: the reads of a generated function's slots that need no test.

The pass is checked two ways: on small functions whose rewriting is written out, and on
random functions built from the expressions the inliner emits, run before and after the
pass on random branch outcomes: the value and every call made, in order, must agree."""
from __future__ import annotations

import ast
import random
import textwrap

import pytest

from drillbook.compile.slots import settle

EMPTY = object()


def settled(src: str) -> str:
    tree = ast.parse(textwrap.dedent(src))
    settle(tree.body[0])
    return ast.unparse(tree.body[0])


def read(n: int, value: str) -> str:
    return f"(_c{n} if _c{n} is not _U else (_c{n} := {value}))"


def test_a_first_read_on_every_way_fills_and_later_reads_trust_it():
    out = settled(f"""
        def f(x):
            _c1 = _U
            a = {read(1, 'x.y')}
            return a + {read(1, 'x.y')}
    """)
    assert "a = (_c1 := x.y)" in out and "return a + _c1" in out


def test_a_read_on_one_branch_only_keeps_its_test_after_the_branch():
    out = settled(f"""
        def f(x, t):
            _c1 = _U
            a = {read(1, 'x.y')} if t else 0
            return a + {read(1, 'x.y')}
    """)
    assert "a = (_c1 := x.y) if t else 0" in out
    assert "return a + (_c1 if _c1 is not _U else (_c1 := x.y))" in out


def test_a_read_filled_on_both_branches_is_trusted_after_them():
    out = settled(f"""
        def f(x, t):
            _c1 = _U
            a = {read(1, 'x.y')} if t else {read(1, 'x.y')} + 1
            return {read(1, 'x.y')}
    """)
    assert "return _c1" in out


def test_the_body_of_an_and_knows_every_operand_ran_and_its_else_does_not():
    out = settled(f"""
        def f(x, t):
            _c1 = _U
            return ({read(1, 'x.y')} if t and {read(1, 'x.y')} else {read(1, 'x.y')})
    """)
    assert out.endswith("return _c1 if t and (_c1 := x.y) else "
                        "_c1 if _c1 is not _U else (_c1 := x.y)")


def test_the_else_of_an_or_knows_every_operand_ran():
    out = settled(f"""
        def f(x, t):
            _c1 = _U
            return (0 if t or {read(1, 'x.y')} else {read(1, 'x.y')})
    """)
    assert out.endswith("return 0 if t or (_c1 := x.y) else _c1")


def test_a_slot_set_empty_again_is_filled_again():
    out = settled(f"""
        def f(x):
            _c1 = _U
            a = {read(1, 'x.y')}
            _c1 = _U
            return {read(1, 'x.z')}
    """)
    assert "return (_c1 := x.z)" in out


def test_statements_and_comprehensions_not_followed_leave_their_slots_in_doubt():
    out = settled(f"""
        def f(x, t):
            _c1 = _c2 = _U
            if t:
                a = {read(1, 'x.y')}
            b = [{read(2, 'x.z')} for _ in x]
            return {read(1, 'x.y')} + {read(2, 'x.z')}
    """)
    assert out.count("is not _U") == 4          # every read kept as it was


def test_a_construct_the_pass_does_not_know_leaves_the_function_as_it_was():
    src = f"""
        def f(x):
            _c1 = _U
            a = {read(1, 'x.y')}
            yield a
    """
    assert settled(src) == ast.unparse(ast.parse(textwrap.dedent(src)).body[0])


# ------------------------------------------------------------------ random functions
def _random_expr(rng, depth: int) -> str:
    """One of the shapes the inliner writes, over slot reads whose value logs itself."""
    if depth <= 0 or rng.random() < 0.2:
        n = rng.randint(1, 3)
        return read(n, f"val({n}, {rng.randint(0, 9)})") if rng.random() < 0.6 else \
            f"cond({rng.randint(0, 15)})"
    kind = rng.choice(["if", "and", "or", "tuple", "call", "compare", "add", "walrus"])
    sub = [_random_expr(rng, depth - 1) for _ in range(3)]
    return {
        "if": f"({sub[0]} if {sub[1]} else {sub[2]})",
        "and": f"({sub[0]} and {sub[1]} and {sub[2]})",
        "or": f"({sub[0]} or {sub[1]})",
        "tuple": f"(({sub[0]}, {sub[1]},) and {sub[2]})",
        "call": f"g({sub[0]}, {sub[1]})",
        "compare": f"({sub[0]} < {sub[1]} < {sub[2]})",
        "add": f"(num({sub[0]}) + num({sub[1]}))",
        "walrus": f"((_t1 := {sub[0]}) and _t1)",
    }[kind]


def _random_function(rng) -> str:
    lines = ["def f(val, cond, g, num):", "    _c1 = _c2 = _c3 = _U", "    out = []"]
    for _ in range(rng.randint(1, 4)):
        if rng.random() < 0.15:
            lines.append(f"    _c{rng.randint(1, 3)} = _U")
        lines.append(f"    out.append({_random_expr(rng, 4)})")
    lines.append("    return out")
    return "\n".join(lines) + "\n"


def _run(src: str, tree_or_src, bits: list) -> tuple:
    log: list = []

    def val(n, k):
        log.append(("val", n, k))
        return (n * 10 + k) % 3

    def cond(i):
        log.append(("cond", i))
        return bits[i]

    def g(a, b):
        log.append(("g", a, b))
        return a if bits[15] else b

    env = {"_U": EMPTY}
    exec(compile(tree_or_src, "<test>", "exec"), env)
    return env["f"](val, cond, g, lambda v: v if isinstance(v, int) else len(str(v))), log


@pytest.mark.parametrize("seed", range(40))
def test_random_functions_give_the_same_values_and_make_the_same_calls(seed):
    rng = random.Random(seed)
    src = _random_function(rng)
    while "is not _U" not in src:
        src = _random_function(rng)
    tree = ast.parse(src)
    settle(tree.body[0])
    ast.fix_missing_locations(tree)
    for _ in range(30):
        bits = [rng.random() < 0.5 for _ in range(16)]
        assert _run(src, src, bits) == _run(src, tree, bits), src
