"""Compile stage, fast path: the searches and loops of a rule's value as Python statements.

Written as a comprehension, a search costs a generator, and every temporary it names
becomes a closure cell; written as a ``for`` statement in the rule's own function, it
costs neither.  Lowered here: a value that is a search or loop (count, exists, sum, every,
some, first, the) whose body holds no other search or loop, or that is built from such
values by ``if``, ``not``, arithmetic and comparisons.  Anything else stays an expression.

Evaluation order and the errors met are unchanged: operands are worked out left to right,
and each is checked (a none, a printed word where a number is needed) right after it is
worked out, where the operator would have checked it.
"""
from __future__ import annotations

import copy

from .. import ast as A
from ..check.types import strip
from .codegen import _exact_keys, _index_keys

_LOOPS = {"count", "exists", "sum", "every", "some", "first", "the", "all"}
NESTED = (A.Query, A.Each, A.ForEach, A.ListEach, A.After, A.Then, A.Let)


class Code:
    """An operand already worked out into a local variable of the generated function."""

    def __init__(self, code: str, like):
        self.code, self.loc, self.ref = code, like.loc, None
        self.type = like.type


def has(e, kinds) -> bool:
    """Whether a node of one of ``kinds`` stands in ``e`` (or under it)."""
    return e is not None and any(isinstance(n, kinds) for n in A.walk(e))


def lines(gen, e, into: str, indent: int) -> list[str]:
    """Python statements that set the variable ``into`` to the value of ``e``."""
    pad = " " * indent
    if not has(e, (A.Query, A.Each)):
        return [f"{pad}{into} = {gen.gen(e)}"]
    needed = getattr(e, "needed", None)     # an optional value where one is needed (E604)
    if needed is not None:
        t = gen.tmp()
        return _lines(gen, e, t, indent) + [
            f"{pad}{into} = {gen._required(t, gen.k(e.loc), gen.k(needed))}"]
    return _lines(gen, e, into, indent)


def _lines(gen, e, into: str, indent: int) -> list[str]:
    pad = " " * indent
    if isinstance(e, A.If):
        c = gen.tmp()
        return (lines(gen, e.cond, c, indent) + [f"{pad}if {c}:"]
                + lines(gen, e.then, into, indent + 4) + [f"{pad}else:"]
                + lines(gen, e.otherwise, into, indent + 4))
    if isinstance(e, A.Unary) and e.op == "not":
        c = gen.tmp()
        return lines(gen, e.operand, c, indent) + [f"{pad}{into} = (not {c})"]
    if (isinstance(e, A.Call) and e.ref and e.ref[0] == "builtin" and e.ref[1] in _LOOPS
            and not any(has(x, NESTED) for x in _body(e.args[0]))):
        return _loop(gen, e, into, indent)
    if isinstance(e, A.Binary) and e.op not in ("and", "or") and not any(
            x.type is None or strip(x.type).kind == "union" for x in (e.left, e.right)):
        return _binary(gen, e, into, indent)
    return [f"{pad}{into} = {gen.gen(e)}"]


def _body(arg):
    if isinstance(arg, A.Query):
        return [arg.cond]
    return [arg.element, arg.cond]


def _binary(gen, e, into, indent):
    """Both operands into variables, each checked as the operator checks it, then the
    operator on the two variables."""
    pad = " " * indent
    out, operands = [], []
    strict = e.op not in ("==", "!=")
    what = "a level" if strip(e.left.type).kind == "enum" else "a number"
    for side in (e.left, e.right):
        t = gen.tmp()
        out += lines(gen, side, t, indent)
        if strict and side.type.kind in ("opt", "any", "none"):
            out.append(f"{pad}{t} = {gen.val(Code(t, side), what)}")
            checked = Code(t, side)
            checked.type = strip(side.type) if side.type.kind == "opt" else side.type
            operands.append(checked)
        else:
            operands.append(Code(t, side))
    whole = copy.copy(e)
    whole.left, whole.right = operands
    return out + [f"{pad}{into} = {gen.gen(whole)}"]


def _loop(gen, e, into, indent):
    pad, inner = " " * indent, " " * (indent + 4)
    kind, arg = e.ref[1], e.args[0]
    before, exact = [], False
    with gen._loop():
        if isinstance(arg, A.Query):
            before, source, exact = _indexed(gen, arg, pad)
            with gen._direct(arg.ref, True):    # what an exact index finds needs no test
                cond, element = (None if exact else gen.gen(arg.cond)), None
        else:
            source = gen._each_source(arg)
            with gen._direct(arg.ref, False):
                cond = gen.gen(arg.cond) if arg.cond is not None else None
                element = gen.val(arg.element) if kind == "sum" else gen.gen(arg.element)
    found = _found(gen, kind, arg)
    if exact and kind in ("the", "count", "exists", "all"):    # what the index found: no loop
        return before + [f"{pad}{into} = " + {
            "count": f"len({source})", "exists": f"len({source}) > 0",
            "all": f"tuple({source})",
            "the": _only(gen, e, source, f"list({source})")}[kind]] + (
            [f"{pad}if {into}:", f"{pad}    _L(({found}, {source}[0]))"] if found else [])
    start = {"count": "0", "exists": "False", "sum": "0", "every": "True", "some": "False",
             "first": "None", "the": "[]", "all": "[]"}[kind]
    body = {"count": [f"{into} += 1"],
            "exists": [f"{into} = True"] + ([f"_L(({found}, _e))"] if found else []) + ["break"],
            "sum": [f"{into} += {element}"],
            "every": [f"if not ({element}):", f"    {into} = False", "    break"],
            "some": [f"if {element}:", f"    {into} = True", "    break"],
            "first": [f"{into} = {element}", "break"],
            "the": [f"{into}.append(_e)"], "all": [f"{into}.append(_e)"]}[kind]
    out = before + [f"{pad}{into} = {start}", f"{pad}for _e in {source}:"]
    if cond is not None:
        out.append(f"{inner}if {cond}:")
        inner += "    "
    out += [inner + b for b in body]
    if kind == "the":               # exactly one, or none; more stops, located (E614)
        out.append(f"{pad}{into} = {_only(gen, e, into, into)}")
    if kind == "all":
        out.append(f"{pad}{into} = tuple({into})")
    return out


def _found(gen, kind, arg) -> str | None:
    """Traced (a generator that records steps, ``record.py``): the step an ``exists``
    records with the thing it found, so that a ruling names it, as codegen's ``_exists``
    records it on the step-by-step path; None otherwise."""
    if not getattr(gen, "records_steps", False) or kind != "exists":
        return None
    return gen._found_step(arg)


def _only(gen, e, found, as_list):
    """``the(...)`` of what a search found: its one thing, none, or E614 (more than one)."""
    return (f"{found}[0] if len({found}) == 1 else None if not {found} "
            f"else _the({as_list}, {gen.k(e.loc)}, {gen.k(e.args[0].type_name)})")


def _indexed(gen, q, pad):
    """Statements before a search's loop, the name of what it walks through, and whether
    that is exactly what the condition holds for.  When every alternative of the condition
    looks up the same fields, the state's index for them (once built, see ``_candidates``)
    is read in place; otherwise ``_candidates`` as before.  When the condition is nothing
    but those lookups (``codegen._exact_keys``) and no thing looked up can be none, the
    index is built if need be (not a short list read whole) and what it finds is the
    answer: the condition is not tested again."""
    keys = _index_keys(q)
    fields = {tuple(f for f, _ in alt) for alt in keys} if keys else set()
    if len(fields) != 1 or len(keys) > 2:
        return [], gen._query_source(q), False
    fields = fields.pop()
    out, names, exact = [], [], _exact_keys(q)
    for alt in keys:                    # the keys, worked out as _candidates is given them
        t, parts = gen.tmp(), []
        for _, v in alt:
            code, sure = gen._key_code(v)
            parts.append(f"{code}, ")
            exact = exact and sure
        out.append(f"{pad}{t} = (" + "".join(parts) + ")")
        names.append(t)
    index, found = gen.tmp(), gen.tmp()
    pairs = ", ".join(f"({gen.k(fields)}, {n})" for n in names)
    general = f"_candidates(ctx, {gen.k(q.type_name)}, ({pairs},), {gen.k(q.loc)})"
    out += [f"{pad}{index} = ctx.state.indexes.get({gen.k((q.type_name, fields))})",
            f"{pad}if {index} is None:"]
    if exact:
        out += [f"{pad}    {index} = ctx.state.index({gen.k(q.type_name)}, {gen.k(fields)})"]
        inner = pad
    else:
        out += [f"{pad}    {found} = {general}", f"{pad}else:"]
        inner = pad + "    "
    out += [f"{inner}{found} = {index}.get({names[0]}, ())"]
    if len(names) == 2:                 # (a, b) or (b, a): found both ways, merged in order
        other = gen.tmp()
        out += [f"{inner}{other} = {index}.get({names[1]}, ())",
                f"{inner}if {other}:",
                f"{inner}    {found} = {general} if {found} else {other}"]
    return out, found, exact
