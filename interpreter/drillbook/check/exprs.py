"""Check stage: name resolution and types of expressions.

Annotates each expression node with ``type`` (a ``Ty``) and ``ref`` (what it names), so
the compile stage never looks a name up again.
"""
from __future__ import annotations

from .. import ast as A
from ..errors import Diagnostic, a_or_an, did_you_mean
from ..geometry import Board
from .geometry import SIGNATURES, board_of, type_geometry
from .model import Model
from .types import (ANY, BOOL, BUILTIN_TYPES, CHECK_FIELDS, EFFECTS, INT, NONE, RANGE,
                    RANGE_FIELDS, TEXT, VERDICT_FIELDS, Ty, assignable, bound_problem,
                    field_bound, join, strip)

BOARD_TYPES = ("Position", "Facing", "Direction")
BUILTINS = ("next", "prev", "min", "max", "abs", "count", "exists", "violates", "the", "all",
            "len", "sum", "first", "every", "some", "marked", "hex_distance", "hex_adjacent",
            *SIGNATURES)
EACH = ("sum", "first", "every", "some")
CALLABLE = (A.Define, A.TableDecl, A.ModifiersDecl, A.CheckDecl, A.RequirementsDecl,
            A.ProcedureDecl)


class Scope:
    """The names an expression may use: parameters, query variables, given entities."""

    def __init__(self, owner: str | None, params=(), entities=None):
        self.owner = owner
        self.params = tuple(name for name, _ in params)    # the owner's, in order
        self.names: dict[str, tuple[int, Ty]] = {}
        self.size = 0
        self.entities = entities or {}     # name -> record Ty (examples, ask)
        for name, ty in params:
            self.bind(name, ty)

    def bind(self, name: str, ty: Ty) -> int:
        slot = self.size
        self.size += 1
        self.names[name] = (slot, ty)
        return slot


class Typer:
    def __init__(self, model: Model, errors: list[Diagnostic]):
        self.model = model
        self.errors = errors
        self.calls: dict[str, set[str]] = {}     # owner -> names it calls (for cycles)
        self.rollers: set[str] = set()            # owners that read a die themselves
        self.searchers: set[str] = set()          # owners that search the state or a list
        self.effect_lists = 0                     # lists of effects typed so far
        self.wanted: dict[int, Ty] = {}           # id of a Name -> the type expected there

    # ------------------------------------------------------------ reporting
    def error(self, loc, code, message, hint=None) -> Ty:
        self.errors.append(Diagnostic(loc, code, message, hint))
        return ANY

    def expect(self, e: A.Expr, scope: Scope, want: Ty, what: str) -> Ty:
        if isinstance(e, A.Name):             # an unknown name suggests levels of that type
            self.wanted[id(e)] = want
        got = self.expr(e, scope)
        if not assignable(got, want):
            self.error(e.loc, "E301", f"{what} must be {want}, but this is {got}")
        return got

    # ------------------------------------------------------------ types written in the source
    def type_ref(self, t: A.TypeRef) -> Ty:
        if A.number_range(t):
            if t.low > t.high:
                return self.error(t.loc, "E302", f"the range {t.low}..{t.high} is empty")
            return INT if t.kind == "range" else Ty("opt", inner=INT)
        inner = self._named(t.name, t.loc)
        if t.kind in ("union", "optional union"):
            if inner.kind == "any":               # an unknown name, already reported
                return inner
            if inner.kind != "enum":
                return self.error(t.loc, "E318", f"in 'Int or {t.name}', {t.name} must be an enum "
                                  "of the printed words (like P for prohibited)")
            union = Ty("union", t.name)
            return union if t.kind == "union" else Ty("opt", inner=union)
        if t.kind == "optional":
            return Ty("opt", inner=inner)
        if t.kind == "list":
            return Ty("list", inner=inner)
        return inner

    def _named(self, name: str, loc) -> Ty:
        d = self.model.decls.get(name)
        if name in BUILTIN_TYPES and not (name in BOARD_TYPES and d is not None):
            return BUILTIN_TYPES[name]      # a rulebook's own Facing or Position comes first
        if isinstance(d, A.EnumDecl):
            return Ty("enum", name)
        if isinstance(d, A.RecordDecl):
            return Ty("record", name)
        if isinstance(d, A.DieDecl):
            return INT
        known = list(BUILTIN_TYPES) + [n for n, x in self.model.decls.items()
                                       if isinstance(x, (A.EnumDecl, A.RecordDecl))]
        return self.error(loc, "E201", f"unknown type '{name}'", did_you_mean(name, known))

    # ------------------------------------------------------------ expressions
    def expr(self, e: A.Expr, scope: Scope) -> Ty:
        method = getattr(self, "_" + type(e).__name__)
        t = method(e, scope)
        e.type = t
        return t

    def _IntLit(self, e, scope):
        return INT

    def _TextLit(self, e, scope):
        return TEXT

    def _BoolLit(self, e, scope):
        return BOOL

    def _NoneLit(self, e, scope):
        return NONE

    def _NothingLit(self, e, scope):
        return EFFECTS

    def _RangeLit(self, e, scope):
        if e.low > e.high:
            self.error(e.loc, "E302", f"the range {e.low}..{e.high} is empty")
        return RANGE

    def _Name(self, e, scope):
        want = strip(self.wanted.pop(id(e), ANY))
        if e.name in scope.names:
            slot, ty = scope.names[e.name]
            e.ref = ("local", slot)
            return ty
        if e.name in self.model.members:
            enum, index = self.model.members[e.name]
            e.ref = ("member", enum.name, index)
            return Ty("enum", enum.name)
        if e.name in scope.entities:
            e.ref = ("entity", e.name)
            return scope.entities[e.name]
        d = self.model.decls.get(e.name)
        if isinstance(d, A.OptionDecl):
            e.ref = ("option", e.name)
            return BOOL
        if isinstance(d, CALLABLE) and not isinstance(d, A.TableDecl):
            if d.params:
                return self.error(e.loc, "E303", f"'{e.name}' needs arguments",
                                  f"write {e.name}({', '.join(p.name for p in d.params)})")
            self._called(scope, e.name)
            e.ref = ("rule", e.name)
            return self.model.returns.get(e.name, ANY)
        if d is not None:
            hint = {A.DieDecl: f"a roll of it is a value: roll {e.name}",
                    A.TableDecl: f"look it up with its keys: {e.name}(...)"}.get(type(d))
            return self.error(e.loc, "E304", f"'{e.name}' is {d.a_what}, not a value", hint)
        known = list(scope.names) + list(self.model.members) + list(scope.entities) + [
            n for n, x in self.model.decls.items() if isinstance(x, (A.OptionDecl, A.Define))]
        if want.kind == "enum":               # a level of the enum the place expects
            levels = [m.name for m in self.model.decls[want.name].members]
            hint = did_you_mean(e.name, levels) or (
                f"{want.name} is one of: {', '.join(levels)}" if len(levels) <= 12 else None)
            return self.error(e.loc, "E202", f"unknown name '{e.name}'",
                              hint or did_you_mean(e.name, known))
        return self.error(e.loc, "E202", f"unknown name '{e.name}'", did_you_mean(e.name, known))

    def _called(self, scope, name):
        if scope.owner:
            self.calls.setdefault(scope.owner, set()).add(name)

    def _FieldOf(self, e, scope):
        subject = self.expr(e.subject, scope)
        base = strip(subject)
        if base.kind == "any":
            return ANY
        if base.kind == "record":
            fields = self.model.record_types.get(base.name)
            if fields is None:               # an unknown record type, said where it is named
                return ANY
            if e.name in fields:
                e.ref = ("record", base.name)
                return fields[e.name]
            return self.error(e.loc, "E203", f"a {base.name} has no field '{e.name}'",
                              did_you_mean(e.name, fields) or f"its fields: {', '.join(fields)}")
        table = {"check": CHECK_FIELDS, "range": RANGE_FIELDS,
                 "verdict": VERDICT_FIELDS}.get(base.kind)
        if table is not None:
            if e.name in table:
                e.ref = (base.kind, e.name)
                return table[e.name]
            return self.error(e.loc, "E203", f"a {base} has no field '{e.name}'",
                              did_you_mean(e.name, table) or f"its fields: {', '.join(table)}")
        return self.error(e.loc, "E203", f"a {base} has no fields")

    def _bounded(self, arg, p, ty, name):
        """A number written directly for a parameter with a range (``b: 1..12``), or on a
        board for a Facing or Direction, must be one it may hold (E708), as in a state file."""
        n = A.literal_int(arg)
        if n is None:
            return
        decl = board_of(self.model) if strip(ty).kind == "facing" else None
        lim = field_bound(decl and Board.declared(decl), p, ty, self.model.decls)
        problem = lim is not None and bound_problem(lim, n)
        if problem:
            self.error(arg.loc, "E708", f"argument '{p.name}' of {name} is {n}, {problem}")

    def _Call(self, e, scope):
        if e.name in BUILTINS and e.name not in self.model.decls:
            e.ref = ("builtin", e.name)
            return self._builtin(e, scope)
        d = self.model.decls.get(e.name)
        if isinstance(d, CALLABLE):
            params = d.params or []
            if len(e.args) != len(params):
                return self.error(e.loc, "E305", f"'{e.name}' takes {len(params)} argument(s), "
                                  f"not {len(e.args)}",
                                  f"{e.name}({', '.join(p.name for p in params)})")
            for arg, p in zip(e.args, params):
                ty = self.type_ref(p.type)
                self.expect(arg, scope, ty, f"argument '{p.name}' of {e.name}")
                self._bounded(arg, p, ty, e.name)
            self._called(scope, e.name)
            e.ref = (d.kind, e.name)
            return self.model.returns.get(e.name, ANY)
        if d is not None:
            return self.error(e.loc, "E304", f"'{e.name}' is {d.a_what}; it cannot be called")
        known = list(BUILTINS) + [n for n, x in self.model.decls.items() if isinstance(
            x, CALLABLE)]
        return self.error(e.loc, "E202", f"unknown rule or table '{e.name}'",
                          did_you_mean(e.name, known))

    def _builtin(self, e, scope):
        n, args = e.name, e.args
        if n in ("count", "exists", "the", "all"):
            if len(args) != 1 or not isinstance(args[0], A.Query):
                return self.error(e.loc, "E306", f"write {n}(Type x where condition)")
            self.expr(args[0], scope)
            if args[0].type_name not in self.model.record_types:
                return ANY                   # E201, said by the query
            if n == "the":
                return Ty("opt", inner=Ty("record", args[0].type_name))
            if n == "all":                   # every one, in the order of the state file
                return Ty("list", inner=Ty("record", args[0].type_name))
            return INT if n == "count" else BOOL
        if n in EACH:
            if len(args) != 1 or not isinstance(args[0], A.Each):
                return self.error(e.loc, "E306", f"write {n}(value for x in list) or "
                                  f"{n}(value for i from 1 to n), with 'if condition' if needed")
            t = self.expr(args[0], scope)
            if n == "sum":
                self._want(args[0].element, t, INT)
                return INT
            if n == "first":
                return t if t.kind in ("opt", "any") else Ty("opt", inner=t)
            self._want(args[0].element, t, BOOL)
            return BOOL
        if n == "marked":
            return self._marked(e, scope)
        if any(isinstance(a, A.Each) for a in args):
            return self.error(e.loc, "E306", f"'{n}' does not take 'for ... in ...'")
        if n == "violates":
            return self._violates(e, scope)
        if any(isinstance(a, A.Query) for a in args):
            return self.error(e.loc, "E306", f"'{n}' does not take a 'where' query")
        types = [self.expr(a, scope) for a in args]
        if n in SIGNATURES:
            return type_geometry(self, e, types)
        if n == "len":
            if len(args) != 1 or strip(types[0]).kind not in ("list", "any"):
                return self.error(e.loc, "E306", "len() counts the items of a list")
            return INT
        if n in ("hex_distance", "hex_adjacent"):
            if len(args) != 4:
                return self.error(e.loc, "E305", f"{n} takes the axial coordinates of two hexes: "
                                  f"{n}(q1, r1, q2, r2)")
            for a, t in zip(args, types):
                self._want(a, t, INT)
            return INT if n == "hex_distance" else BOOL
        if n in ("next", "prev"):
            if len(args) not in (1, 2):
                return self.error(e.loc, "E305", f"{n} takes a level and an optional count")
            t = strip(types[0])
            if t.kind != "any" and not (t.kind == "enum" and self.model.decls[t.name].ordered):
                return self.error(args[0].loc, "E307", f"{n}() moves along a scale; this is {t}",
                                  "declare the levels with 'scale' to give them an order")
            if len(args) == 2 and not assignable(types[1], INT):
                self.error(args[1].loc, "E301", "the number of levels must be Int")
            return t
        if n == "abs":
            if len(args) != 1:
                return self.error(e.loc, "E305", "abs takes one number")
            self._want(args[0], types[0], INT)
            return INT
        if not args:
            return self.error(e.loc, "E305", f"{n} needs at least one value")
        first = strip(types[0])
        for a, t in zip(args, types):
            if first.kind == "enum":
                if strip(t) != first:
                    self.error(a.loc, "E301", f"{n}() compares levels of one scale; this is {t}")
            else:
                self._want(a, t, INT)
        if first.kind == "enum" and not self.model.decls[first.name].ordered:
            self.error(e.loc, "E307", f"{first} is an enum without order; {n}() needs a scale")
        return first if first.kind == "enum" else INT

    def _violates(self, e, scope):
        if len(e.args) != 2 or not isinstance(e.args[1], A.Name):
            return self.error(e.loc, "E306", "write violates(requirements(...), requirement_name)")
        t = self.expr(e.args[0], scope)
        if t.kind not in ("verdict", "any"):
            return self.error(e.args[0].loc, "E301", f"violates() asks a verdict of requirements, "
                              f"not {a_or_an(t)}")
        item = self.model.decls.get(e.args[1].name)
        listed = e.args[0].name if isinstance(e.args[0], A.Call) else None
        if not isinstance(item, A.RequireDecl) or (listed and item.list_name != listed):
            items = [n for n, d in self.model.decls.items() if isinstance(d, A.RequireDecl)
                     and (not listed or d.list_name == listed)]
            return self.error(e.args[1].loc, "E202", f"'{e.args[1].name}' is not a requirement"
                              + (f" of {listed}" if listed else ""),
                              did_you_mean(e.args[1].name, items))
        e.args[1].ref = ("requirement", item.name)
        return BOOL

    def _marked(self, e, scope):
        if len(e.args) != 2 or not isinstance(e.args[1], A.Name):
            return self.error(e.loc, "E306", "write marked(table(keys), marker_name) or "
                              "marked(chart(key).column, marker_name)")
        what, mark = e.args
        call, column = what, None
        if isinstance(what, A.FieldOf):
            call, column = what.subject, what.name
        d = self.model.decls.get(call.name) if isinstance(call, A.Call) else None
        if not isinstance(d, A.TableDecl):
            return self.error(what.loc, "E306", "marked() asks about a cell of a table: "
                              "marked(table(keys), marker) or marked(chart(key).column, marker)")
        self.expr(what, scope)
        section = d.section.number if d.section is not None else None
        marker = self.model.decls.get(mark.name)
        if mark.name in self.model.markers:         # named by its printed glyph
            marker = self.model.marker_for(mark.name, section)
            if marker is None:
                return self.error(mark.loc, "E319", f"no footnote marker '{mark.name}' is "
                                  f"declared for table '{d.name}' (§{section})",
                                  "declare it in the table's section: marker "
                                  f"{mark.name} name \"...\"")
        elif not isinstance(marker, A.MarkerDecl):
            names = [m.name for ms in self.model.markers.values() for m in ms]
            return self.error(mark.loc, "E202", f"unknown footnote marker '{mark.name}'",
                              did_you_mean(mark.name, names) or
                              f"declare it: marker {mark.name if not mark.name.isidentifier() else '*'}"
                              f" {mark.name if mark.name.isidentifier() else 'name'} \"...\"")
        meant = self.model.marker_for(marker.mark, section)
        if meant is not marker:
            return self.error(mark.loc, "E319", f"in table '{d.name}' (§{section}) the mark "
                              f"'{marker.mark}' is not {marker.name}" + (
                                  f": it means {meant.name}" if meant is not None else ""),
                              "ask about a marker the table's own section declares")
        e.ref = ("builtin", "marked", call.name, column, marker.mark)
        return BOOL

    def _Each(self, e, scope):
        if scope.owner:
            self.searchers.add(scope.owner)
        if e.items is not None:
            t = strip(self.expr(e.items, scope))
            if t.kind not in ("list", "any"):
                return self.error(e.items.loc, "E306", f"'for {e.var} in' takes a list, not {t}")
            var_type = t.inner if t.kind == "list" else ANY
        else:
            self.expect(e.low, scope, INT, "the start of 'from ... to'")
            self.expect(e.high, scope, INT, "the end of 'from ... to'")
            var_type = INT
        saved = scope.names.get(e.var)
        e.ref = scope.bind(e.var, var_type)
        if e.cond is not None:
            self.expect(e.cond, scope, BOOL, "an 'if' condition")
        t = self.expr(e.element, scope)
        if saved is None:
            del scope.names[e.var]
        else:
            scope.names[e.var] = saved
        return t

    def _bound(self, scope, var, ty, body):
        """Type ``body`` with ``var`` bound to a new local slot of type ``ty``."""
        saved = scope.names.get(var)
        slot = scope.bind(var, ty)
        t = body()
        if saved is None:
            del scope.names[var]
        else:
            scope.names[var] = saved
        return slot, t

    def _Then(self, e, scope):
        self.expect(e.first, scope, EFFECTS, "what comes before 'then'")
        self.expect(e.rest, scope, EFFECTS, "what comes after 'then'")
        return EFFECTS

    def _Let(self, e, scope):
        t = self.expr(e.value, scope)
        if t.kind == "none":
            self.error(e.value.loc, "E312", f"'{e.var}' would always be none")
        e.ref, body = self._bound(scope, e.var, t, lambda: self.expr(e.body, scope))
        return body

    def _ForEach(self, e, scope):
        if scope.owner:
            self.searchers.add(scope.owner)
        if e.type_name is not None:
            d = self.model.decls.get(e.type_name)
            if not isinstance(d, A.RecordDecl):
                return self.error(e.loc, "E201", f"'{e.type_name}' is not a record type",
                                  did_you_mean(e.type_name, self.model.record_types))
            var_type = Ty("record", e.type_name)
        else:
            t = strip(self.expr(e.items, scope))
            if t.kind not in ("list", "any"):
                return self.error(e.items.loc, "E306", f"'for each {e.var} in' takes a list, "
                                  f"not {t}")
            var_type = t.inner if t.kind == "list" else ANY

        def body():
            if e.cond is not None:
                self.expect(e.cond, scope, BOOL, "a 'where' condition")
            self.expect(e.body, scope, EFFECTS, "what 'for each' does to each")
            return EFFECTS
        e.ref, t = self._bound(scope, e.var, var_type, body)
        return t

    def _ListEach(self, e, scope):
        t = self.expr(e.each, scope)
        return Ty("list", inner=t)

    def _InList(self, e, scope):
        t = self.expr(e.value, scope)
        items = strip(self.expr(e.items, scope))
        if items.kind == "any":
            return BOOL
        if items.kind != "list":
            return self.error(e.items.loc, "E306", f"'in' looks in a list, not in {items}")
        if join(t, items.inner) is None:
            self.error(e.loc, "E308", f"cannot look for {t} in {a_or_an(items)}")
        return BOOL

    def _Index(self, e, scope):
        t = strip(self.expr(e.subject, scope))
        self.expect(e.index, scope, INT, "a list's index")
        if t.kind == "any":
            return ANY
        if t.kind != "list":
            return self.error(e.loc, "E306", f"only a list can be indexed, not {t}")
        return t.inner

    def _After(self, e, scope):
        self.expect(e.effects, scope, EFFECTS, "what 'after' applies")
        return self.expr(e.then, scope)

    def _want(self, e, got, want):
        if not assignable(got, want):
            self.error(e.loc, "E301", f"expected {want}, but this is {got}")

    def _Query(self, e, scope):
        if scope.owner:
            self.searchers.add(scope.owner)
        d = self.model.decls.get(e.type_name)
        if not isinstance(d, A.RecordDecl):
            return self.error(e.loc, "E201", f"'{e.type_name}' is not a record type",
                              did_you_mean(e.type_name, self.model.record_types))
        saved = scope.names.get(e.var)
        e.ref = scope.bind(e.var, Ty("record", e.type_name))
        self.expect(e.cond, scope, BOOL, "a 'where' condition")
        if saved is None:
            del scope.names[e.var]
        else:
            scope.names[e.var] = saved
        return ANY

    def _Unary(self, e, scope):
        want = BOOL if e.op == "not" else INT
        self.expect(e.operand, scope, want, f"the operand of '{e.op}'")
        return want

    def _Binary(self, e, scope):
        a = self.expr(e.left, scope)
        b = self.expr(e.right, scope)
        if e.op in ("and", "or"):
            self._want(e.left, a, BOOL)
            self._want(e.right, b, BOOL)
            return BOOL
        if e.op in ("+", "-", "*"):
            for side, t in ((e.left, a), (e.right, b)):
                if strip(t).kind == "distance":
                    self.error(side.loc, "E301", "a table-top distance is compared, not added",
                               "compare it with a number: distance(a, b) <= 15")
                else:
                    self._want(side, t, INT)
            return INT
        sa, sb = strip(a), strip(b)
        if e.op in ("==", "!=") and "distance" in (sa.kind, sb.kind):
            if not {sa.kind, sb.kind} <= {"distance", "int", "any"}:
                self.error(e.loc, "E308", f"cannot compare {a} with {b}")
            return BOOL
        if e.op in ("==", "!="):
            if join(a, b) is None:
                self.error(e.loc, "E308", f"cannot compare {a} with {b}")
            return BOOL
        if sa.kind == "enum" and sa == sb and self.model.decls[sa.name].ordered:
            return BOOL
        if "distance" in (sa.kind, sb.kind) and {sa.kind, sb.kind} <= {"distance", "int", "any"}:
            return BOOL
        if not (assignable(a, INT) and assignable(b, INT)):
            self.error(e.loc, "E308", f"'{e.op}' compares numbers or levels of one scale, "
                       f"not {a} and {b}")
        return BOOL

    def _MemberOf(self, e, scope):
        t = self.expr(e.value, scope)
        for o in e.options:
            ot = self.expr(o, scope)
            if join(t, ot) is None:
                self.error(o.loc, "E308", f"cannot compare {t} with {ot}")
        return BOOL

    def _IsNone(self, e, scope):
        t = self.expr(e.value, scope)
        if t.kind not in ("opt", "any", "none", "union"):   # a chart's word column may say —
            self.error(e.loc, "E309", f"this is {a_or_an(t)}, which is never none",
                       "only optional fields (Type?) can be none")
        return BOOL

    def _If(self, e, scope):
        self.expect(e.cond, scope, BOOL, "an 'if' condition")
        a = self.expr(e.then, scope)
        b = self.expr(e.otherwise, scope)
        t = join(a, b)
        if t is None:
            return self.error(e.loc, "E310", f"'then' gives {a} but 'else' gives {b}")
        return t

    def _ListLit(self, e, scope):
        types = [self.expr(i, scope) for i in e.items]
        if not types:
            return Ty("list", inner=ANY)
        first = types[0]
        for item, t in zip(e.items, types):
            if join(first, t) is None:
                self.error(item.loc, "E310", f"a list holds one type: {first}, not {t}")
        if first.kind == "effects":
            self.effect_lists += 1
            return EFFECTS
        return Ty("list", inner=first)

    def _Choose(self, e, scope):
        if scope.owner:
            self.rollers.add(scope.owner)
            # named in E610-E612 (runtime.Dice.choose), with the call that gives the
            # options when it reads the owner's parameters only (which explain shows)
            o, params = e.options, scope.params
            why = ((o.name, tuple(params.index(a.name) for a in o.args))
                   if isinstance(o, A.Call) and all(isinstance(a, A.Name) and a.name in params
                                                    for a in o.args) else None)
            e.asker = (scope.owner, params, why)
        if isinstance(e.options, A.Query):
            self.expr(e.options, scope)
            return Ty("record", e.options.type_name)
        t = self.expr(e.options, scope)
        if t.kind != "list":
            return self.error(e.options.loc, "E316", f"a choice is made from a list or from "
                              f"'Type x where ...', not from {t}")
        return t.inner

    def _Roll(self, e, scope):
        if scope.owner:
            self.rollers.add(scope.owner)
        d = self.model.decls.get(e.dice.die)
        if not isinstance(d, A.DieDecl):
            dice = [n for n, x in self.model.decls.items() if isinstance(x, A.DieDecl)]
            return self.error(e.dice.loc, "E204", f"unknown die '{e.dice.die}'",
                              did_you_mean(e.dice.die, dice) or "declare it: die d10 faces 0..9")
        return INT

    def _target_field(self, target, scope) -> Ty:
        if not isinstance(target, A.FieldOf):
            return self.error(target.loc, "E311", "an effect changes a field, like p.strength")
        t = self.expr(target, scope)
        if target.ref is None or target.ref[0] != "record":
            return self.error(target.loc, "E311", "an effect changes a field of a record")
        return t

    def _SetEffect(self, e, scope):
        t = self._target_field(e.target, scope)
        self.expect(e.value, scope, t, f"the new value of {e.target.name}")
        return EFFECTS

    def _AddEffect(self, e, scope):
        t = self._target_field(e.target, scope)
        self._want(e.target, t, INT)
        self.expect(e.amount, scope, INT, "the amount added")
        return EFFECTS

    def _RemoveEffect(self, e, scope):
        t = strip(self.expr(e.target, scope))
        if t.kind not in ("record", "any"):
            self.error(e.target.loc, "E311", f"'remove' takes a record of the state, not {t}")
        return EFFECTS


__all__ = ["Typer", "Scope", "RANGE", "TEXT"]

