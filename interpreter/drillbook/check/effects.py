"""Check stage: effects in order — what each rule reads and writes of the game state.

Every item of a list of effects ``[A, B]`` is worked out on the same state.  When B reads a
field that A changes (or searches the records A removes), B silently sees the state before A:
the checker rejects that list (E320) and points at both, so the author writes ``A then B``
(B worked out on the state A leaves) or, if the old value is meant, names it with ``let``.
"""
from __future__ import annotations

from .. import ast as A
from ..errors import Diagnostic
from .types import strip

EVERY = "#every"          # (record type, EVERY): which things of that type exist


def check_effect_lists(model, errors: list, exprs=None) -> None:
    """Check every effect list of the rulebook's rules, or of the given expressions (a
    question, an example's expectations)."""
    prints = _Footprints(model)
    if exprs is None:
        exprs = [e for d in model.decls.values() for e in _exprs_of(d, model)]
    for e in exprs:
        for node in A.walk(e):
            if isinstance(node, A.ListLit) and node.type is not None \
                    and node.type.kind == "effects":
                _check_list(node, prints, errors)


def _check_list(lst: A.ListLit, prints, errors):
    seen = []                                   # (item, writes) of the items before
    for item in lst.items:
        reads, writes = prints.of_expr(item)
        for earlier, wrote in seen:
            clash = sorted(reads & wrote)
            if clash:
                errors.append(Diagnostic(
                    item.loc, "E320", f"this effect {_what(clash[0])}, which an earlier "
                    "effect of the same list changes; every item of a list is worked out on "
                    "the state before the list, so it would not see that change",
                    f"write '{A.to_source(earlier)} then {A.to_source(item)}' so it is worked "
                    "out on the state the first leaves (or name the old value with let)",
                    notes=[(earlier.loc, "the earlier effect that changes it")]))
                break
        seen.append((item, writes))


def _what(key) -> str:
    record, field = key
    if field == EVERY:
        return f"looks through the {record} records"
    return f"reads {record}.{field}"


class _Footprints:
    """(reads, writes) of every rule and expression, through the rules it calls."""

    def __init__(self, model):
        self.m = model
        self.done: dict[str, tuple[frozenset, frozenset]] = {}
        self.busy: set[str] = set()

    def of_decl(self, name: str):
        if name in self.done:
            return self.done[name]
        d = self.m.decls.get(name)
        if d is None or name in self.busy:
            return frozenset(), frozenset()
        self.busy.add(name)
        reads, writes = set(), set()
        for e in _exprs_of(d, self.m):
            r, w = self.of_expr(e)
            reads |= r
            writes |= w
        self.busy.discard(name)
        self.done[name] = frozenset(reads), frozenset(writes)
        return self.done[name]

    def of_expr(self, e):
        reads, writes = set(), set()
        targets = set()
        for node in A.walk(e):
            if isinstance(node, (A.SetEffect, A.AddEffect)):
                t = node.target
                if isinstance(t, A.FieldOf) and t.ref and t.ref[0] == "record":
                    writes.add((t.ref[1], t.name))
                    targets.add(id(t))
            elif isinstance(node, A.RemoveEffect):
                ty = node.target.type
                if ty is not None and strip(ty).kind == "record":
                    writes.add((strip(ty).name, EVERY))
            elif isinstance(node, A.FieldOf):
                if id(node) not in targets and node.ref and node.ref[0] == "record":
                    reads.add((node.ref[1], node.name))
            elif isinstance(node, A.Query) or (isinstance(node, A.ForEach)
                                               and node.type_name is not None):
                reads.add((node.type_name, EVERY))
            elif isinstance(node, (A.Call, A.Name)) and node.ref and node.ref[0] not in (
                    "builtin", "local", "member", "option", "entity"):
                r, w = self.of_decl(node.ref[1])
                reads |= r
                writes |= w
        return reads, writes


def _exprs_of(d, model):
    """The expressions a declaration evaluates, its exceptions' included."""
    if isinstance(d, A.Define):
        yield from _cases(d, model)
    elif isinstance(d, A.RequirementsDecl):
        for item in model.items_of.get(d.name, []):
            yield from _cases(item, model)
    elif isinstance(d, A.ModifiersDecl):
        for m in d.items:
            yield m.value
            if m.when is not None:
                yield m.when
    elif isinstance(d, A.CheckDecl):
        if d.when is not None:
            yield d.when
        if d.modifier is not None:
            yield d.modifier
        yield d.target
    elif isinstance(d, A.ProcedureDecl):
        for st in d.steps:
            for e in (st.when, st.value):
                if e is not None:
                    yield e


def _cases(d, model):
    for e in (d.when, d.value):
        if e is not None:
            yield e
    for kid in model.children.get(d.name, []):
        yield from _cases(kid, model)
