"""Evaluate stage, traces: the log a traced evaluation writes as it goes, and the tree of
steps (``Trace``) that explain, coverage and the tests read from it.

Traced evaluation does not build the tree: it appends flat records to ``ctx.log``, which
costs one ``list.append`` of a tuple per step.  The tree is read from the log when a
reader first asks for a node's ``children`` (``Logged``).  A record is one of:

- a ``Trace``: that step starts; the steps recorded until its ``CLOSE`` are its children
  (its value and detail are set on the node itself);
- ``(step, args)``, ``step`` a ``RuleStep``: a plain rule starts, given ``args``; the
  steps until its ``(END, value)`` are its children;
- ``CLOSE`` or ``(END, value)``: the step started last and not yet ended, ends;
- ``(LEAF, node)``: a step without steps of its own (a die, a choice, a table's cell);
- ``(ABOVE, i)``: a step asked again, shown "as above": the node started at record ``i``,
  without its children;
- ``(SCOPE, to, back)``: from here on the records are those of the evaluation ``to``, not
  of ``back`` (an evaluation on the state effects left, see ``compile/codegen._moved_on``,
  and the way back from it).

A plain rule worked out again with the same arguments in the same evaluation shows "as
above", as ``once`` shows a rule it remembers: rules are pure, so the second time adds
nothing.  A step left open by an error ends where the log ends, its value none, as it
stood when the error stopped the evaluation.
"""
from __future__ import annotations

CLOSE = object()
END = object()
LEAF = object()
ABOVE = object()
SCOPE = object()


class Trace:
    """One step of an evaluation: a rule, table, modifier list, check or roll consulted."""
    __slots__ = ("kind", "name", "decl", "value", "detail", "children")

    def __init__(self, kind, name, decl=None, value=None, detail=None):
        self.kind, self.name, self.decl, self.value = kind, name, decl, value
        self.detail = {} if detail is None else detail
        self.children = []


class RuleStep:
    """What a record of a plain rule's step stands for: the rule, and how its arguments
    are shown (``{parameter: argument}``)."""
    __slots__ = ("name", "decl", "params")

    def __init__(self, name, decl, params):
        self.name, self.decl, self.params = name, decl, tuple(params)

    def node(self, args, value=None) -> Trace:
        return Trace("rule", self.name, self.decl, value,
                     {"args": dict(zip(self.params, args))})


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
    first_of: dict = {}           # an open rule's node -> its key, registered when it ends
    for i, rec in enumerate(log):
        if rec is CLOSE:
            stack.pop()
            kids = stack[-1][1] if stack else top
            continue
        if type(rec) is Trace or type(rec) is Logged:
            made[i] = rec
            kids.append(rec)
            stack.append((rec, rec.children, False))
            kids = rec.children
            continue
        head = rec[0]
        if type(head) is RuleStep:
            args = rec[1]
            try:
                key = (head.name, *args)
                first = seen.get(key)
            except TypeError:       # an argument no dictionary can hold: shown in full
                key = first = None
            if first is not None:
                node = Trace(first.kind, first.name, first.decl, first.value, first.detail)
                kids.append(node)
                stack.append((node, [], True))      # its steps, not shown again
            else:
                node = head.node(args)
                kids.append(node)
                stack.append((node, node.children, False))
                if key is not None:
                    first_of[node] = key
            made[i] = node
            kids = stack[-1][1]
        elif head is END:
            node, _, again = stack.pop()
            if not again:
                node.value = rec[1]
            key = first_of.pop(node, None)
            if key is not None:
                seen.setdefault(key, node)
            kids = stack[-1][1] if stack else top
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
