"""Check stage: a parsed rulebook → a checked ``Model``, or located errors.

Passes, in order: declare every name once; give records their field types; give every
rule, table, modifier list and check its result type; lay out and prove every table; type
every rule body; hang exceptions on the rules they name; reject cycles; warn where two
exceptions of one rule can apply at once; type every example.
"""
from __future__ import annotations

from .. import ast as A
from ..errors import Diagnostic, DrillError, did_you_mean, no_such_face
from ..limits import MAX_DEPTH, MAX_FACES
from .effects import check_effect_lists
from .exprs import BOARD_TYPES, Scope, Typer
from .model import Model, warn
from .tables import TableChecker
from .types import (ANY, BOOL, BUILTIN_TYPES, CHECK, EFFECTS, INT, RANGE, VERDICT, Ty,
                    assignable, strip)

COMBINE = ("sum", "largest", "smallest")


def check(loaded) -> Model:
    """Check a loaded rulebook (see ``loader.load``); raise DrillError listing every error."""
    head = loaded.main.header
    model = Model(loaded.main.path, head.label, head.edition, head.languages, loaded.sections)
    model.header_notes = list(head.annotations)
    errors: list[Diagnostic] = []
    Checker(model, errors).run()
    if errors:
        unique = {(d.loc.path, d.loc.line, d.loc.col, d.code, d.message): d for d in errors}
        raise DrillError(sorted(unique.values(),
                                key=lambda d: (d.loc.path, d.loc.line, d.loc.col)))
    return model


class Checker:
    def __init__(self, model: Model, errors: list[Diagnostic]):
        self.m = model
        self.errors = errors
        self.typer = Typer(model, errors)

    def error(self, loc, code, message, hint=None, notes=None):
        self.errors.append(Diagnostic(loc, code, message, hint, notes=notes or []))

    def run(self):
        self.declare()
        self.records()
        self.signatures()
        self.tables()
        self.rules()
        self.requirements()
        self.procedures()
        self.exceptions()
        if not self.errors:
            self.cycles()
        if not self.errors:
            check_effect_lists(self.m, self.errors)
            self.conflicts()
            self.dice_readers()
        self.examples()

    def dice_readers(self):
        """Which rules may read a die (or a choice), and which search the state or a list,
        directly or through what they call."""
        m = self.m
        m.rolls_dice = self.callers_of(set(self.typer.rollers) | set(m.of_kind(A.CheckDecl)))
        m.searching = self.callers_of(set(self.typer.searchers))

    def callers_of(self, names: set) -> set:
        found, calls = set(names), self.typer.calls
        changed = True
        while changed:
            changed = False
            for owner, callees in calls.items():
                if owner not in found and callees & found:
                    found.add(owner)
                    changed = True
        return found

    # ------------------------------------------------------------ names
    def declare(self):
        m = self.m
        langs = set(m.languages)
        numbers = {}
        for sec in m.sections:
            if sec.number in numbers:
                first = numbers[sec.number]
                self.error(sec.loc, "E211", f"section {sec.number} appears twice",
                           "a printed number names one section; put its rules together",
                           [(first.loc, "first here")])
            numbers.setdefault(sec.number, sec)
            for d in sec.items:
                for note in getattr(d, "annotations", []):
                    if note.kind == "numbered":
                        self.error(note.loc, "E323", "'numbered' says a section's number is the "
                                   "rulebook's own; it belongs to the section, not to "
                                   f"{d.a_what}", "move it under the section line")
                if isinstance(d, A.ExampleDecl):
                    m.examples.append(d)
                    continue
                if isinstance(d, A.MarkerDecl):
                    same = [x for x in m.markers.get(d.mark, []) if x.section is sec]
                    if same:
                        self.twice(d, same[0], f"marker '{d.mark}' in section {sec.number}")
                    m.markers.setdefault(d.mark, []).append(d)
                if d.name in m.decls:
                    self.twice(d, m.decls[d.name], f"'{d.name}'")
                    continue
                m.decls[d.name] = d
                if isinstance(d, A.EnumDecl):
                    for i, mem in enumerate(d.members):
                        if mem.name in m.members:
                            other = m.members[mem.name][0]
                            self.error(mem.loc, "E205", f"'{mem.name}' is already a level of "
                                       f"{other.name}", "names of levels are unique in a rulebook",
                                       [(other.loc, f"{other.name} declared here")])
                        else:
                            m.members[mem.name] = (d, i)
        for loc, _, label in m.labels():      # nested ones too: fields, modifiers, steps
            self.labels(label, loc, langs)
        for name, (enum, _) in m.members.items():
            if name in m.decls:
                self.error(m.decls[name].loc, "E205", f"'{name}' is also a level of {enum.name}")
        for name, d in m.decls.items():     # Position, Facing, Direction may be a board's own
            if name in BUILTIN_TYPES and name not in BOARD_TYPES:
                self.error(d.loc, "E212", f"'{name}' is a type of the language; "
                           f"{d.a_what} cannot take its name",
                           f"rename it ({name}Band, {name}Kind...): a parameter or field typed "
                           f"{name} means the language's {name}")

    def labels(self, label, loc, langs):
        if label is None or not langs:
            return
        for lang in label.translations:
            if lang not in langs:
                self.error(loc, "E206", f"label in '{lang}', which the rulebook does not declare",
                           f"add it to the header: languages {', '.join(sorted(langs | {lang}))}")

    def twice(self, new, old, what):
        sec = old.section.number if old.section else "?"
        self.error(new.loc, "E207", f"{what} is declared twice",
                   "rename one of them", [(old.loc, f"first declared here (section {sec})")])

    def records(self):
        for name, r in self.m.of_kind(A.RecordDecl).items():
            fields: dict[str, Ty] = {}
            for f in r.fields:
                if f.name in fields:
                    self.error(f.loc, "E207", f"field '{f.name}' of {name} is declared twice")
                fields[f.name] = self.typer.type_ref(f.type)
            self.m.record_types[name] = fields
        for name, r in self.m.of_kind(A.RecordDecl).items():
            for f in r.fields:
                if f.default is not None:
                    self.typer.expect(f.default, Scope(None), self.m.record_types[name][f.name],
                                      f"the default of {name}.{f.name}")

    def signatures(self):
        m = self.m
        for name, d in m.decls.items():
            if isinstance(d, A.Define) and d.returns is not None:
                m.returns[name] = self.typer.type_ref(d.returns)
            elif isinstance(d, A.ModifiersDecl):
                m.returns[name] = INT
            elif isinstance(d, A.CheckDecl):
                m.returns[name] = CHECK
            elif isinstance(d, A.RequirementsDecl):
                m.returns[name] = VERDICT
            elif isinstance(d, A.ProcedureDecl):
                m.returns[name] = EFFECTS
            elif isinstance(d, A.RequireDecl):
                m.returns[name] = BOOL
            elif isinstance(d, A.DieDecl) and d.low > d.high:
                self.error(d.loc, "E302", f"die '{name}' has no faces: {d.low}..{d.high}")
            elif isinstance(d, A.DieDecl) and d.high - d.low + 1 > MAX_FACES:
                self.error(d.loc, "E522", f"die '{name}' has {d.high - d.low + 1} faces; the "
                           f"limit is {MAX_FACES}", "a die of a game has a few faces; a large "
                           "number is a range type, like 0..5000")

    def tables(self):
        tc = TableChecker(self.m, self.typer, self.errors)
        for name, t in self.m.of_kind(A.TableDecl).items():
            lay = tc.layout(t)
            if lay is not None:
                self.m.tables[name] = lay
                self.m.returns[name] = lay.result

    def params(self, owner, params):
        return Scope(owner, [(p.name, self.typer.type_ref(p.type)) for p in params or []])

    # ------------------------------------------------------------ rules
    def rules(self):
        m = self.m
        defines = m.of_kind(A.Define)
        # rules without a declared type take the type of their value: type those first
        pending = [d for d in defines.values() if d.name not in m.returns]
        for d in pending:
            scope = self.params(d.name, d.params)
            if d.value is None:
                self.error(d.loc, "E312", f"'{d.name}' has no value and no declared type",
                           f"write define {d.name} -> Type, or give it '= value'")
                m.returns[d.name] = ANY
                continue
            m.returns[d.name] = self.typer.expr(d.value, scope)
            m.frame_size[d.name] = scope.size
        for d in defines.values():
            scope = self.params(d.name, d.params)
            if d.when is not None:
                self.typer.expect(d.when, scope, BOOL, "a 'when' condition")
            if d.value is not None and d not in pending:
                self._value(d.value, scope, m.returns[d.name], f"the value of '{d.name}'")
            m.frame_size[d.name] = max(m.frame_size.get(d.name, 0), scope.size)
        for name, mods in m.of_kind(A.ModifiersDecl).items():
            if mods.combine not in COMBINE:
                self.error(mods.combine_loc, "E313", f"unknown way to combine modifiers "
                           f"'{mods.combine}'", f"one of: {', '.join(COMBINE)}")
            scope = self.params(name, mods.params)
            seen = {}
            for item in mods.items:
                if item.name in seen:
                    self.error(item.loc, "E207", f"modifier '{item.name}' appears twice in {name}")
                seen[item.name] = item
                self.typer.expect(item.value, scope, INT, f"modifier '{item.name}'")
                if item.when is not None:
                    self.typer.expect(item.when, scope, BOOL, "a 'when' condition")
            m.frame_size[name] = scope.size
        for name, c in m.of_kind(A.CheckDecl).items():
            scope = self.params(name, c.params)
            self.typer._Roll(A.Roll(c.dice.loc, c.dice), scope)
            if c.when is not None:
                self.typer.expect(c.when, scope, BOOL, "a 'when' condition")
            if c.modifier is not None:
                self.typer.expect(c.modifier, scope, INT, "the roll's modifier")
            want = RANGE if c.op == "within" else INT
            self.typer.expect(c.target, scope, want, "the target of the check")
            m.frame_size[name] = scope.size

    def requirements(self):
        m = self.m
        for name, r in m.of_kind(A.RequireDecl).items():
            owner = m.decls.get(r.list_name)
            if not isinstance(owner, A.RequirementsDecl):
                lists = [n for n, d in m.decls.items() if isinstance(d, A.RequirementsDecl)]
                self.error(r.list_loc, "E208", f"requirement '{name}' names '{r.list_name}', which "
                           "is not a list of requirements", did_you_mean(r.list_name, lists))
                continue
            r._params = owner.params
            m.items_of.setdefault(r.list_name, []).append(r)
            scope = self.params(name, owner.params)
            if r.value is None:
                self.error(r.loc, "E312", f"requirement '{name}' gives no condition ('= ...')",
                           "write = the condition that must hold")
            else:
                self.typer.expect(r.value, scope, BOOL, f"requirement '{name}'")
            if r.when is not None:
                self.typer.expect(r.when, scope, BOOL, "a 'when' condition")
            m.frame_size[name] = scope.size
            self.typer.calls.setdefault(r.list_name, set()).add(name)
        for name, lst in m.of_kind(A.RequirementsDecl).items():
            if name not in m.items_of:
                self.error(lst.loc, "E317", f"requirements '{name}' has no requirement",
                           f"add one: require some_name of {name} = condition")
            params = lst.params or []
            if lst.every_state and (len(params) != 1 or params[0].type.kind != "named"
                                    or params[0].type.name not in m.record_types):
                self.error(lst.loc, "E324", f"requirements '{name}' for every state must take "
                           "one thing of the state, a record", f"requirements {name}(u: Unit) "
                           "... for every state: each Unit of a state file is checked")

    def procedures(self):
        m = self.m
        for name, proc in m.of_kind(A.ProcedureDecl).items():
            scope = self.params(name, proc.params)
            seen = {}
            for step in proc.steps:
                if step.name in seen:
                    self.error(step.loc, "E207", f"step '{step.name}' appears twice in {name}")
                seen[step.name] = step
                if step.when is not None:
                    self.typer.expect(step.when, scope, BOOL, "a 'when' condition")
                if not step.stop:
                    if step.value is None:
                        self.error(step.loc, "E312", f"step '{step.name}' does nothing",
                                   "give it its effects: = set ... / = nothing")
                    else:
                        self.typer.expect(step.value, scope, EFFECTS, f"step '{step.name}'")
            m.frame_size[name] = scope.size

    def exceptions(self):
        m = self.m
        for name, e in m.of_kind(A.ExceptionDecl).items():
            target = m.decls.get(e.target)
            if not isinstance(target, (A.Define, A.ExceptionDecl, A.RequireDecl)):
                rules = [n for n, d in m.decls.items()
                         if isinstance(d, (A.Define, A.ExceptionDecl, A.RequireDecl))]
                what = f"is {target.a_what}" if target is not None else "does not exist"
                self.error(e.target_loc, "E208", f"exception '{name}' names '{e.target}', which "
                           f"{what}; an exception overrides a rule or another exception",
                           did_you_mean(e.target, rules))
                continue
            m.children.setdefault(e.target, []).append(e)
        for name, e in m.of_kind(A.ExceptionDecl).items():
            root, seen = e, set()
            while isinstance(root, A.ExceptionDecl):
                if root.name in seen:
                    self.error(e.loc, "E209", f"exception '{name}' is part of a cycle of exceptions",
                               " -> ".join(sorted(seen)))
                    root = None
                    break
                seen.add(root.name)
                root = m.decls.get(root.target)
            if len(seen) > MAX_DEPTH:        # exceptions to exceptions: one error, the first
                if len(seen) == MAX_DEPTH + 1:   # one past the limit
                    self.error(e.loc, "E524", f"exception '{name}' is an exception to more than "
                               f"{MAX_DEPTH} exceptions in a chain; the limit is {MAX_DEPTH}",
                               "make it an exception to the rule itself")
                continue
            if not isinstance(root, (A.Define, A.RequireDecl)):
                continue
            m.root_of[name] = root
            scope = self.params(root.name, root.params)
            if e.when is None:
                self.error(e.loc, "E314", f"exception '{name}' needs a 'when' condition",
                           "an exception that always applies replaces the rule: use a variant's "
                           "'replace' instead")
            else:
                self.typer.expect(e.when, scope, BOOL, "a 'when' condition")
            if e.value is None:
                self.error(e.loc, "E312", f"exception '{name}' gives no value ('= ...')")
            else:
                self._value(e.value, scope, m.returns.get(root.name, ANY),
                            f"the value of exception '{name}' (it overrides {root.name})")
            m.frame_size[root.name] = max(m.frame_size.get(root.name, 0), scope.size)

    def _value(self, e: A.Expr, scope, want, what: str) -> None:
        """A rule's value: an optional one where the rule's type is not optional is checked
        when worked out (``needed``: none there stops, located, E604), not where a caller
        meets it."""
        got = self.typer.expect(e, scope, want, what)
        if got.kind == "opt" and want.kind not in ("opt", "any"):
            e.needed = what

    # ------------------------------------------------------------ cycles
    def cycles(self):
        calls = dict(self.typer.calls)
        # an exception's calls count as calls of the rule it belongs to
        graph = {}
        for owner, callees in calls.items():
            graph.setdefault(owner, set()).update(callees)
        state: dict[str, int] = {}
        depth: dict[str, int] = {}          # the longest chain of calls from each rule
        for root in sorted(graph):          # depth first, without recursion
            if state.get(root) is not None:
                continue
            stack = [root]
            todo = [iter(sorted(graph.get(root, ())))]
            state[root] = 1
            while todo:
                c = next(todo[-1], None)
                if c is None:
                    n = stack.pop()
                    todo.pop()
                    state[n] = 2
                    depth[n] = 1 + max((depth.get(k, 0) for k in graph.get(n, ())), default=0)
                    if depth[n] > MAX_DEPTH and n in self.m.decls:
                        self.error(self.m.decls[n].loc, "E524", f"'{n}' starts a chain of "
                                   f"more than {MAX_DEPTH} rules calling rules; the limit is "
                                   f"{MAX_DEPTH}", "flatten the chain")
                        return
                    continue
                if state.get(c) == 1:
                    cyc = stack[stack.index(c):] + [c]
                    d = self.m.decls[c]
                    self.error(d.loc, "E210", f"'{c}' depends on itself: {' -> '.join(cyc)}",
                               "a rule may not use itself, directly or through others")
                    return
                if state.get(c) is None:
                    state[c] = 1
                    stack.append(c)
                    todo.append(iter(sorted(graph.get(c, ()))))

    # ------------------------------------------------------------ static conflicts
    def conflicts(self):
        for parent, kids in self.m.children.items():
            for i, a in enumerate(kids):
                for b in kids[i + 1:]:
                    if a.when is None or b.when is None:
                        continue
                    if not disjoint(a.when, b.when):
                        warn(self.m, Diagnostic(
                            b.loc, "W501", f"exceptions '{a.name}' and '{b.name}' both override "
                            f"'{parent}' and nothing in their conditions stops both applying at once",
                            f"if both apply, evaluation stops with a conflict; make one an "
                            f"exception to the other (exception {b.name} to {a.name}) or make "
                            f"their conditions exclusive",
                            notes=[(a.loc, f"'{a.name}' is declared here")]))

    # ------------------------------------------------------------ examples
    def examples(self):
        from ..state import check_givens  # the state module types given entities
        for ex in self.m.examples:
            entities = check_givens(self, ex.givens)
            for loc, die, faces in ex.rolls:
                d = self.m.decls.get(die)
                if not isinstance(d, A.DieDecl):
                    self.error(loc, "E204", f"unknown die '{die}'", did_you_mean(
                        die, [n for n, x in self.m.decls.items() if isinstance(x, A.DieDecl)]))
                    continue
                for f in faces:
                    if not d.low <= f <= d.high:
                        self.error(loc, "E414", *no_such_face(die, f, d.low, d.high))
            ex.choice_frame = 0
            for loc, name, values in ex.choices:
                for v in values:
                    scope = Scope(None, entities=entities)
                    self.typer.expr(v, scope)
                    ex.choice_frame = max(ex.choice_frame, scope.size)
            for loc, name, _ in ex.options:
                if not isinstance(self.m.decls.get(name), A.OptionDecl):
                    self.error(loc, "E202", f"unknown option '{name}'", did_you_mean(
                        name, [n for n, x in self.m.decls.items() if isinstance(x, A.OptionDecl)]))
            if not ex.expects:
                self.error(ex.loc, "E315", f"example \"{ex.name}\" expects nothing",
                           "add an 'expect' line: an example must be able to fail")
            lists = self.typer.effect_lists
            for exp in ex.expects:
                scope = Scope(None, entities=entities)
                self.typer.expect(exp.expr, scope, BOOL, "an expectation")
                exp.frame = scope.size
            if not self.errors and self.typer.effect_lists != lists:   # a list of effects
                check_effect_lists(self.m, self.errors, [exp.expr for exp in ex.expects])


class _Stop(Exception):
    pass


_NONE, _SOME = "<none>", "<anything but none>"


def _meet(a: set, b: set) -> set:
    """The values both sets of facts allow (``_SOME`` stands for every value but none)."""
    if a == {_SOME}:
        return b - {_NONE}
    if b == {_SOME}:
        return a - {_NONE}
    return a & b


def _facts(cond):
    """What a condition insists on: {subject text: {values it may have}}."""
    if isinstance(cond, A.Binary) and cond.op == "and":
        out = {}
        for part in (_facts(cond.left), _facts(cond.right)):
            for k, v in part.items():
                out[k] = _meet(out[k], v) if k in out else v
        return out
    if isinstance(cond, A.IsNone):
        return {_path(cond.value): {_SOME} if cond.negated else {_NONE}}
    if isinstance(cond, A.Binary) and cond.op == "==":
        for a, b in ((cond.left, cond.right), (cond.right, cond.left)):
            if isinstance(b, A.Name) and b.ref and b.ref[0] == "member":
                return {_path(a): {b.name}}
            if isinstance(b, (A.IntLit, A.BoolLit)):
                return {_path(a): {b.value}}
    if isinstance(cond, A.MemberOf) and all(
            isinstance(o, A.Name) and o.ref and o.ref[0] == "member" for o in cond.options):
        return {_path(cond.value): {o.name for o in cond.options}}
    if isinstance(cond, A.FieldOf) or isinstance(cond, A.Name):
        return {_path(cond): {True}}
    if isinstance(cond, A.Unary) and cond.op == "not":
        inner = cond.operand
        if isinstance(inner, (A.FieldOf, A.Name)):
            return {_path(inner): {False}}
    return {}


_path = A.to_source         # two conditions speak of the same thing when they read alike


def disjoint(a, b) -> bool:
    """True when the two conditions visibly cannot both hold."""
    fa, fb = _facts(a), _facts(b)
    return any(k in fb and not _meet(fa[k], fb[k]) for k in fa)


__all__ = ["check", "Model", "assignable", "strip"]
