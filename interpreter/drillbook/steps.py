"""Evaluate stage, traces: the log a traced evaluation writes as it goes, and the tree of
steps (``Trace``) that explain, coverage and the tests read from it.

Traced evaluation does not build the tree: it appends flat records to ``ctx.log``, which
costs one ``list.append`` of a tuple per step.  The tree is read from the log when a
reader first asks for a node's ``children`` (``Logged``).  A record is one of:

- a ``Trace``: that step starts; the steps recorded until its ``CLOSE`` are its children
  (its value and detail are set on the node itself);
- ``(step, args)`` or ``(step, args, items)``, ``step`` a ``Step`` of a plain rule, a
  check or a list of modifiers: it starts, given ``args`` (a list of modifiers: its
  ``items``, each ``(modifier, applies, value)``, filled in as they are worked out); the
  steps until its ``(END, value)`` are its children;
- ``(step, keys, cell)``, ``step`` a table's ``Step``: the cell the keys found;
  ``(step, face)``, ``step`` a die's: a face it rolled; ``(step, thing)``, ``step`` a
  search's (``found``): the first thing an ``exists`` found;
- ``CLOSE`` or ``(END, value)``: the step started last and not yet ended, ends;
- ``(LEAF, node)``: a finished step (a choice, or a procedure's step, whose own steps
  are in its own log);
- ``(ABOVE, i)``: a step asked again, shown "as above": the node started at record ``i``,
  without its children;
- ``(SCOPE, to, back)``: from here on the records are those of the evaluation ``to``, not
  of ``back`` (an evaluation on the state effects left, see ``compile/codegen._moved_on``,
  and the way back from it).

A plain rule, check or list of modifiers worked out again with the same arguments in the same
evaluation shows "as above", as ``once`` shows one it remembers: they are pure, so the
second time adds nothing.  A step left open by an error ends where the log ends, its value
none, as it stood when the error stopped the evaluation.
"""
from __future__ import annotations

CLOSE = object()
END = object()
LEAF = object()
ABOVE = object()
SCOPE = object()
_LEAVES = ("table", "roll", "found")


class Trace:
    """One step of an evaluation: a rule, table, modifier list, check or roll consulted."""
    __slots__ = ("kind", "name", "decl", "value", "detail", "children")

    def __init__(self, kind, name, decl=None, value=None, detail=None):
        self.kind, self.name, self.decl, self.value = kind, name, decl, value
        self.detail = {} if detail is None else detail
        self.children = []


class Step:
    """What a compact record stands for (see above): a plain rule, a check, a list of
    modifiers, a table or a die, with what its node shows (a rule's parameters, by which its
    arguments are shown)."""
    __slots__ = ("kind", "name", "decl", "params")

    def __init__(self, kind, name, decl=None, params=()):
        self.kind, self.name, self.decl, self.params = kind, name, decl, tuple(params)

    def node(self, rec) -> Trace:
        kind = self.kind
        if kind == "rule":
            return Trace(kind, self.name, self.decl, None, {"args": dict(zip(self.params, rec[1]))})
        if kind == "modifiers":
            return Trace(kind, self.name, self.decl, None,
                         {"items": rec[2], "args": dict(zip(self.params, rec[1]))})
        if kind == "check":            # its arguments, shown as a rule's are
            return Trace(kind, self.name, self.decl, None,
                         {"args": dict(zip(self.params, rec[1]))} if self.params else None)
        if kind == "roll":
            return Trace(kind, self.name, None, rec[1])
        if kind == "found":               # a search: what decided it (its node in detail)
            return Trace(kind, self.name, None, rec[1], {"search": self.decl})
        hit = rec[2]                      # a table: (value, cell, row's cell or text, notes)
        detail = {"keys": list(rec[1]), "cell": hit[1], "footnotes": hit[3]}
        if isinstance(hit[2], str):
            detail["row"] = hit[2]
        return Trace(kind, self.name, self.decl, hit[0], detail)


class Logged(Trace):
    """A step whose children are read from a log when first asked for: the root of a
    traced evaluation, or a step of a procedure (its own evaluation, its own log)."""
    __slots__ = ("log", "_read")

    def __init__(self, kind, name, decl=None, log=None):
        self.kind, self.name, self.decl, self.value, self.detail = kind, name, decl, None, {}
        self.log = [] if log is None else log
        self._read = None

    @property
    def children(self):
        read = self._read
        if read is None or read[0] != len(self.log):
            read = self._read = (len(self.log), tree(self.log))
        return read[1]


def tree(log) -> list:
    """The steps a log records, in the order they started, each with its children."""
    top: list = []
    stack: list = []              # (node, its children, whether it is shown "as above")
    kids = top
    made: dict = {}               # record index -> the node it started
    scopes: dict = {}             # an evaluation -> {(rule, *args): its first node}
    seen: dict = {}
    for i, rec in enumerate(log):
        if rec.__class__ is not tuple:
            if rec is CLOSE:
                stack.pop()
                kids = stack[-1][1] if stack else top
                continue
            made[i] = rec         # a Trace (or Logged) node: it starts
            kids.append(rec)
            stack.append((rec, rec.children, False))
            kids = rec.children
            continue
        head = rec[0]
        if head is END:
            node, _, again = stack.pop()
            if not again:
                node.value = rec[1]
            kids = stack[-1][1] if stack else top
        elif head.__class__ is Step:
            node = made[i] = head.node(rec)
            kids.append(node)
            if head.kind in _LEAVES:
                continue
            try:
                first = seen.setdefault((head.name, *rec[1]), node)
            except TypeError:       # an argument no dictionary can hold: shown in full
                first = node
            if first is node:
                stack.append((node, node.children, False))
                kids = node.children
            else:                   # asked again: as above, its steps not shown again
                node.value, node.detail = first.value, first.detail
                stack.append((node, [], True))
                kids = stack[-1][1]
        elif head is LEAF:
            made[i] = rec[1]
            kids.append(rec[1])
        elif head is ABOVE:
            shown = made.get(rec[1])
            if shown is not None:
                kids.append(Trace(shown.kind, shown.name, shown.decl, shown.value,
                                  shown.detail))
        elif head is SCOPE:
            scopes.setdefault(id(rec[2]), seen)
            seen = scopes.setdefault(id(rec[1]), {})
    return top
