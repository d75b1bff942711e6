"""compile/slots.py: the tests of a generated function that need not run (slot reads, and
none tests of names surely not none).

The pass is checked two ways: on small functions whose rewriting is written out, and on
random functions built from the expressions the inliner emits, run before and after the
pass on random branch outcomes: the value and every call made, in order, must agree, and
so must a stop (E604) where a thing is none."""
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


def test_an_if_statement_is_followed_and_its_ways_meet_after_it():
    out = settled(f"""
        def f(x, t):
            _c1 = _c2 = _U
            if t:
                a = {read(1, 'x.y')}
            else:
                a = {read(1, 'x.y')} + {read(2, 'x.z')}
            return {read(1, 'x.y')} + {read(2, 'x.z')}
    """)
    assert out.count("(_c1 := x.y)") == 2 and "return _c1 + (_c2 if _c2 is not _U" in out


def test_a_branch_that_returns_does_not_meet_the_other():
    out = settled(f"""
        def f(x, t):
            _c1 = _U
            if t:
                return {read(1, 'x.y')}
            a = {read(1, 'x.z')}
            return {read(1, 'x.z')}
    """)
    assert "a = (_c1 := x.z)" in out and out.endswith("return _c1")


def test_comprehensions_not_followed_leave_their_slots_in_doubt():
    out = settled(f"""
        def f(x, t):
            _c1 = _c2 = _U
            b = [{read(2, 'x.z')} for _ in x]
            return {read(1, 'x.y')} + {read(2, 'x.z')}
    """)
    assert out.count("is not _U") == 2 and "(_c1 := x.y)" in out


def test_a_loop_body_keeps_the_test_of_a_slot_it_fills():
    out = settled(f"""
        def f(x):
            _c1 = _c2 = _U
            a = {read(2, 'x.z')}
            for _e in x:
                b = {read(1, 'x.y')} + {read(2, 'x.z')}
            return {read(1, 'x.y')}
    """)
    assert "b = (_c1 if _c1 is not _U else (_c1 := x.y)) + _c2" in out
    assert out.endswith("return _c1 if _c1 is not _U else (_c1 := x.y)")


# ------------------------------------------------------------------ none tests
def field(x: str) -> str:
    return f"({x}.v if {x} is not None else _none(1, 2))"


def test_a_read_that_stopped_on_none_leaves_the_thing_known_after_it():
    out = settled(f"""
        def f(p):
            a = {field('p')}
            return a + {field('p')} + (p if p is not None else _req(p, 1, 2))
    """)
    assert out.endswith("return a + p.v + p")


def test_an_entry_that_hands_a_none_away_makes_the_thing_known():
    out = settled(f"""
        def f(p, q):
            if p is None or q is None:
                return 0
            return {field('p')} + (1 if q is not None and p.v else 2)
    """)
    assert out.endswith("return p.v + (1 if p.v else 2)")


def test_an_and_knows_its_tests_in_its_later_operands_and_its_body():
    out = settled(f"""
        def f(p, t):
            a = (p is not None and t and {field('p')})
            return ({field('p')} if p is not None and t else 0) + a
    """)
    assert "a = p is not None and t and p.v" in out
    assert "return (p.v if p is not None and t else 0) + a" in out


def test_a_value_required_where_it_is_surely_not_none_is_the_value():
    out = settled(f"""
        def f(p, q):
            a = {field('p')}
            b = (_t1 if (_t1 := p) is not None else _req(_t1, 1, 2))
            return (_t2 if (_t2 := q) is not None else _req(_t2, 1, 2)) + {field('_t2')}
    """)
    assert "b = (_t1 := p)" in out
    assert out.endswith("return (_t2 if (_t2 := q) is not None else _req(_t2, 1, 2)) + _t2.v")


def test_a_list_read_that_stopped_leaves_the_list_known():
    out = settled("""
        def f(ctx, E, ids, i):
            a = (E.get(ids[i]) if ids is not None and i is not None and 0 <= i < len(ids) else _thing_at(ctx, ids, i, 1))
            return (E.get(ids[0]) if ids is not None and 0 <= 0 < len(ids) else 0)
    """)
    assert out.endswith("return E.get(ids[0]) if 0 <= 0 < len(ids) else 0")


def test_a_name_set_again_is_no_longer_known():
    out = settled(f"""
        def f(p, g):
            a = {field('p')}
            p = g()
            b = [(p := g()) for _ in a]
            return {field('p')}
    """)
    assert out.endswith("return p.v if p is not None else _none(1, 2)")


def test_a_loop_turn_knows_only_what_the_loop_does_not_set():
    out = settled(f"""
        def f(p, q, xs):
            a = {field('p')} + {field('q')}
            for _e in xs:
                a = {field('p')} + {field('q')}
                q = _e
            return {field('p')}
    """)
    assert "a = p.v + (q.v if q is not None else _none(1, 2))" in out
    assert out.endswith("return p.v")


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
    kind = rng.choice(["if", "and", "or", "tuple", "call", "compare", "add", "walrus",
                       "field", "test", "thing", "required"])
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
        "field": field(f"_t{rng.randint(2, 3)}"),
        "test": f"(_t{rng.randint(2, 3)} is {rng.choice(['', 'not '])}None)",
        "thing": f"(_t{rng.randint(2, 3)} := thing({sub[0]}))",
        "required": "(_t{0} if (_t{0} := {1}) is not None else _req(_t{0}, 1, 2))".format(
            rng.randint(2, 3), rng.choice([sub[0], f"_t{rng.randint(2, 3)}"])),
    }[kind]


def _random_function(rng) -> str:
    lines = ["def f(val, cond, g, num, thing):", "    _c1 = _c2 = _c3 = _U",
             "    _t2 = thing(0)", "    _t3 = thing(1)", "    out = []"]
    for _ in range(rng.randint(1, 4)):
        if rng.random() < 0.15:
            lines.append(f"    _c{rng.randint(1, 3)} = _U")
        if rng.random() < 0.2:
            lines.append(f"    if _t{rng.randint(2, 3)} is None:")
            lines.append("        return out")
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

    def thing(v):                       # a thing, or none, by the branch outcomes
        log.append(("thing", v))
        return None if bits[len(log) % 16] else Thing(len(log))

    def _none(loc, what):
        raise Stopped()

    def _req(value, loc, what):
        if value is None:
            raise Stopped()
        return value

    env = {"_U": EMPTY, "_none": _none, "_req": _req}
    exec(compile(tree_or_src, "<test>", "exec"), env)
    try:
        value = env["f"](val, cond, g, lambda v: v if isinstance(v, int) else len(str(v)),
                         thing)
    except Stopped:
        value = "stopped"
    except (TypeError, AttributeError) as e:   # a thing compared with a number, a field
        value = ("refused", str(e))             # of a number: the same on both sides
    return value, log


class Stopped(Exception):
    pass


class Thing:
    def __init__(self, v):
        self.v = v

    def __eq__(self, other):
        return isinstance(other, Thing) and self.v == other.v

    def __repr__(self):
        return f"Thing({self.v})"


@pytest.mark.parametrize("seed", range(80))
def test_random_functions_give_the_same_values_and_make_the_same_calls(seed):
    rng = random.Random(seed)
    src = _random_function(rng)
    while "is not _U" not in src and "is not None else" not in src:
        src = _random_function(rng)
    tree = ast.parse(src)
    settle(tree.body[0])
    ast.fix_missing_locations(tree)
    for _ in range(30):
        bits = [rng.random() < 0.5 for _ in range(16)]
        assert _run(src, src, bits) == _run(src, tree, bits), src
