"""Evaluate stage, inputs: the game state from a YAML/JSON file or an example's ``given`` lines.

A state file maps record types to entities by id::

    Piece:
      p1: {strength: 3, state: Ready, owner: blue}
    Side:
      blue: {name: "Blue"}

Every field is checked against the rulebook's record types; a wrong one is reported at its
line and column in the file.
"""
from __future__ import annotations

import yaml

from . import ast as A
from .check.types import Ty, bound_problem, field_bound, strip
from .errors import Diagnostic, DrillError, Loc, a_or_an, did_you_mean, fail, remember_source
from .files import read_text
from .geometry import Board, parse_number
from .limits import MAX_DEPTH, MAX_DIGITS, too_deep
from .lines import normalize, position, split_lines
from .runtime import Entity, State


def bounds_of(program) -> dict:
    """What each bounded field may hold: (low, high) for a range of numbers or a die's
    faces, a Facings for a facing or a direction (called with a number, it says why the
    number is none there)."""
    model, out = program.model, {}
    for name, rec in model.of_kind(A.RecordDecl).items():
        for f in rec.fields:
            lim = field_bound(program.board, f, model.record_types[name][f.name], model.decls)
            if lim is not None:
                out[(name, f.name)] = lim
    return out


# ------------------------------------------------------------------ state files
def load_state(program, path: str | None, where: Loc | None = None) -> State:
    """Read and validate a state file; ``None`` gives the empty state."""
    if path is None:
        return State({}, {}, bounds_of(program))
    if "\0" in path:
        fail(where or Loc("<command line>"), "E010", "a path cannot hold a NUL character")
    text = read_text(path, where or Loc("<command line>"), "state file ")
    return read_state_text(program, path, text)


def read_state_text(program, path: str, text: str) -> State:
    """Validate a state given as text (a file's, or standard input's as ``<stdin>``)."""
    text = normalize(text)
    remember_source(path, text)
    _TEXTS[path] = text
    try:
        _nesting(text, path)
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        index = mark.index if mark is not None else getattr(e, "position", None)
        loc = _at(path, index) if index is not None else Loc(path)
        problem = getattr(e, "problem", None) or (
            f"character {e.character!r} is not allowed" if hasattr(e, "character") else str(e))
        fail(loc, "E701", "this state file is not valid YAML or JSON: "
             + " ".join(str(problem).split()))
    except RecursionError:                  # _nesting keeps this from happening
        fail(Loc(path), "E524", "this state file nests too deeply")
    return StateReader(program, path).read(node)


_TEXTS: dict[str, str] = {}       # state file -> its text, to place YAML's marks


def _at(path: str, index: int) -> Loc:
    """The line and column of character ``index`` of a state file, counted as the lexer and
    the error quotes count them (YAML would also end lines at U+2028 and friends)."""
    text = _TEXTS.get(path, "")
    line, col = position(text, min(index, len(text)))
    lines = split_lines(text)
    if line > len(lines):             # the end of the file: after its last line's text
        line, col = len(lines), len(lines[-1]) + 1
    return Loc(path, line, col)


def _nesting(text: str, path: str) -> None:
    """Refuse (E524) a state nested more than MAX_DEPTH levels deep, before PyYAML's
    recursive composer would meet it; YAML's scanner reads it without recursion."""
    depth = 0
    opens = (yaml.BlockMappingStartToken, yaml.BlockSequenceStartToken,
             yaml.FlowMappingStartToken, yaml.FlowSequenceStartToken)
    closes = (yaml.BlockEndToken, yaml.FlowMappingEndToken, yaml.FlowSequenceEndToken)
    for tok in yaml.scan(text, Loader=yaml.SafeLoader):
        if isinstance(tok, opens):
            depth += 1
            if depth > MAX_DEPTH:
                too_deep(_at(path, tok.start_mark.index), "this state file")
        elif isinstance(tok, closes):
            depth -= 1


def _loc(path, node) -> Loc:
    start = _at(path, node.start_mark.index)
    width = max(1, len(str(getattr(node, "value", "")))) if isinstance(node, yaml.ScalarNode) else 1
    return Loc(path, start.line, start.col, start.line, start.col + width)


class StateReader:
    def __init__(self, program, path):
        self.p = program
        self.m = program.model
        self.path = path
        self.errors: list[Diagnostic] = []

    def err(self, node, code, message, hint=None):
        self.errors.append(Diagnostic(_loc(self.path, node), code, message, hint))

    def read(self, node) -> State:
        raw: dict[str, tuple[str, dict, object]] = {}
        if node is None:
            return State({}, {}, bounds_of(self.p))
        if not isinstance(node, yaml.MappingNode):
            fail(_loc(self.path, node), "E702", "a state file maps record types to their entities",
                 "write the record type, then its entities by id, e.g.  Unit: {u1: {strength: 3}}")
        for tnode, body in node.value:
            if not isinstance(tnode, yaml.ScalarNode):
                self.err(tnode, "E702", "a record type's name is a plain word, like Unit")
                continue
            tname = tnode.value
            if tname not in self.m.record_types:
                self.err(tnode, "E703", f"unknown record type '{tname}'",
                         did_you_mean(tname, self.m.record_types))
                continue
            if not isinstance(body, yaml.MappingNode):
                self.err(body, "E702", f"under {tname}, give each entity by id: id: {{...}}")
                continue
            for inode, fields in body.value:
                if not isinstance(inode, yaml.ScalarNode):
                    self.err(inode, "E702", "an entity's id is a plain word, like u1")
                    continue
                ident = str(inode.value)
                if ident in raw:
                    self.err(inode, "E704", f"entity id '{ident}' is used twice")
                    continue
                if ident in self.m.decls or ident in self.m.members:
                    self.err(inode, "E704", f"entity id '{ident}' is also a name in the rulebook",
                             "choose another id")
                    continue
                if not isinstance(fields, yaml.MappingNode):
                    self.err(fields, "E702", f"{ident}'s fields are written as a mapping")
                    continue
                raw[ident] = (tname, fields, inode)
        entities, by_type = {}, {}
        for ident, (tname, fields, inode) in raw.items():
            values = self.fields(tname, ident, fields, inode, raw)
            entities[ident] = Entity(tname, ident, values)
            by_type.setdefault(tname, []).append(ident)
        if self.errors:
            raise DrillError(self.errors)
        return State(entities, {k: tuple(v) for k, v in by_type.items()}, bounds_of(self.p),
                     places={i: _loc(self.path, inode) for i, (_, _, inode) in raw.items()})

    def fields(self, tname, ident, node, inode, raw) -> dict:
        decls = {f.name: f for f in self.m.decls[tname].fields}
        types = self.m.record_types[tname]
        values = {}
        for knode, vnode in node.value:
            if not isinstance(knode, yaml.ScalarNode):
                self.err(knode, "E702", "a field's name is a plain word, like strength")
                continue
            fname = knode.value
            if fname in values:             # YAML keeps the last one: the first is lost
                self.err(knode, "E712", f"{ident}.{fname} is given twice",
                         "keep one value: a state file gives each field once")
                continue
            if fname not in decls:
                self.err(knode, "E705", f"a {tname} has no field '{fname}'",
                         did_you_mean(fname, decls) or f"its fields: {', '.join(decls)}")
                continue
            values[fname] = self.value(vnode, types[fname], decls[fname], raw, f"{ident}.{fname}")
        for fname, f in decls.items():
            if fname not in values:
                if f.default is not None:
                    values[fname] = constant(self.p, f.default)
                elif types[fname].kind in ("opt",):
                    values[fname] = None
                elif types[fname].kind == "list":
                    values[fname] = ()
                else:
                    self.err(inode, "E706", f"{ident} ({tname}) has no value for '{fname}'",
                             f"add {fname}: ... (it is {types[fname]})")
        return values

    def place(self, node, kind, where, counter=True):
        if isinstance(node, yaml.SequenceNode):
            raw = [n.value if isinstance(n, yaml.ScalarNode) else None for n in node.value]
        elif isinstance(node, yaml.ScalarNode):
            raw = node.value
        else:
            raw = None

        def fail_here(message):
            self.err(node, "E707", f"{where}: {message}")
        return _place(self.p.board, kind, raw, fail_here, counter)

    def value(self, node, ty: Ty, decl, raw, where):
        if strip(ty).kind in ("position", "facing") and not _is_none(node):
            return self.place(node, strip(ty).kind, where, decl.type.name != "Direction")
        if not isinstance(node, yaml.ScalarNode):
            if ty.kind == "list" and isinstance(node, yaml.SequenceNode):
                return tuple(self.value(n, ty.inner, decl, raw, where) for n in node.value)
            self.err(node, "E707", f"{where} must be {ty}")
            return None
        text = node.value
        if ty.kind == "list" and not node.tag.endswith(":null"):
            self.err(node, "E707", f"{where} must be {a_or_an(ty)}, written in brackets",
                     f"write [{text}], or [] for none")
            return None
        if node.tag.endswith(":null") or text in ("null", "~", "none", ""):
            if ty.kind == "opt":
                return None
            self.err(node, "E707", f"{where} must be {ty}, not none")
            return None
        t = strip(ty)
        if t.kind == "int":
            if len(text.strip().lstrip("+-").lstrip("0")) > MAX_DIGITS:
                self.err(node, "E521", f"{where} has more than {MAX_DIGITS} digits; "
                         f"the limit is {MAX_DIGITS}")
                return None
            try:
                n = int(text)
            except ValueError:
                self.err(node, "E707", f"{where} must be a whole number, not '{text}'")
                return None
            lim = field_bound(None, decl, ty, self.m.decls)    # a range, or a die's faces
            if isinstance(lim, tuple) and not lim[0] <= n <= lim[1]:
                self.err(node, "E708", f"{where} is {n}, outside {lim[0]}..{lim[1]}")
            return n
        if t.kind == "bool":
            low = text.lower()
            if low in ("true", "yes", "on"):
                return True
            if low in ("false", "no", "off"):
                return False
            self.err(node, "E707", f"{where} must be true or false, not '{text}'")
            return None
        if t.kind == "text":
            return text
        if t.kind == "enum":
            levels = self.p.levels[t.name]
            for lv in levels:
                if lv.name == text:
                    return lv
            self.err(node, "E707", f"{where} must be {a_or_an(t.name)}, not '{text}'",
                     did_you_mean(text, [lv.name for lv in levels]) or
                     f"one of: {', '.join(lv.name for lv in levels)}")
            return None
        if t.kind == "record":
            if text not in raw:
                self.err(node, "E709", f"{where} names '{text}', which is not in the state",
                         did_you_mean(text, raw))
                return None
            if raw[text][0] != t.name:
                self.err(node, "E707", f"{where} must be {a_or_an(t.name)}; "
                         f"'{text}' is {a_or_an(raw[text][0])}")
            return text
        self.err(node, "E707", f"{where}: {a_or_an(t)} cannot be written in a state file")
        return None


def _is_none(node) -> bool:
    return isinstance(node, yaml.ScalarNode) and (
        node.tag.endswith(":null") or node.value in ("null", "~", "none", ""))


def _place(board, kind, raw, fail_here, counter=True):
    """A position or a facing as a state file or a question writes it (``counter``: a
    counter's facing, which the board's ``faces`` limits; else any direction)."""
    if board is None:
        return fail_here(f"a {kind} needs a board, and the rulebook declares none")
    if kind == "facing":
        n = raw if isinstance(raw, int) else parse_number(str(raw))
        problem = board.facing_problem(int(n) if n is not None and int(n) == n else raw, counter)
        return fail_here(problem) if problem else int(n)
    if isinstance(raw, str) and board.hexes and board.layout != "axial" \
            and len(raw) == 4 and raw.isdigit():
        raw = [raw[:2], raw[2:]]                     # "1012": column 10, row 12 as printed
    if not isinstance(raw, (list, tuple)) or len(raw) != 2:
        return fail_here(f"a position is two numbers, [column, row] on a hex map or [x, y] on "
                         f"a table top{' (or the printed hex number, like 1012)' if board.hexes else ''}")
    nums = [parse_number(str(v)) for v in raw]
    if any(n is None for n in nums) or (board.hexes and any(n.denominator != 1 for n in nums)):
        return fail_here("the coordinates of a position are "
                         + ("whole numbers" if board.hexes else "numbers, like 12.5"))
    return board.position(*nums)


def constant(program, e: A.Expr):
    """The value of a field's default, worked out once per program (a state file with a
    thousand hexes does not compile the default a thousand times)."""
    cache = program.defaults
    if e not in cache:
        from .runtime import Ctx, Dice
        cache[e] = program.compile_expr(e)(Ctx(State({}, {}), Dice(), frozenset()), [])
    return cache[e]


# ------------------------------------------------------------------ examples' given lines
def check_givens(checker, givens) -> dict:
    """Type an example's given entities; return {name: record Ty} for its expectations."""
    from .check.exprs import Scope
    from .check.geometry import board_of
    m = checker.m
    decl = board_of(m)
    board = decl and Board.declared(decl)
    entities = {}
    for g in givens:
        if g.type_name not in m.record_types:
            checker.error(g.type_loc, "E201", f"unknown record type '{g.type_name}'",
                          did_you_mean(g.type_name, m.record_types))
            continue
        if g.name in entities or g.name in m.decls or g.name in m.members:
            checker.error(g.loc, "E704", f"'{g.name}' is already a name here")
            continue
        entities[g.name] = Ty("record", g.type_name)
    fields_of: dict = {}
    for g in givens:
        if g.name not in entities:
            continue
        types = m.record_types[g.type_name]
        decls = fields_of.get(g.type_name)
        if decls is None:
            decls = fields_of[g.type_name] = {f.name: f for f in m.decls[g.type_name].fields}
        seen = set()
        g.frame = 0
        for loc, fname, expr in g.fields:
            if fname not in types:
                checker.error(loc, "E705", f"a {g.type_name} has no field '{fname}'",
                              did_you_mean(fname, types))
                continue
            if fname in seen:
                checker.error(loc, "E207", f"{g.name}.{fname} is given twice")
                continue
            seen.add(fname)
            scope = Scope(None, entities=entities)
            checker.typer.expect(expr, scope, types[fname], f"{g.name}.{fname}")
            g.frame = max(g.frame, scope.size)
            for node in A.walk(expr):
                if isinstance(node, A.Query) and node.type_name == g.type_name:
                    checker.error(node.loc, "E711", f"{g.name}.{fname} counts {g.type_name}s, "
                                  f"and {g.name} is one of them while it is being given",
                                  "give the number directly")
            lim = field_bound(board, decls[fname], types[fname], m.decls)
            n = A.literal_int(expr)
            problem = lim is not None and n is not None and bound_problem(lim, n)
            if problem:
                checker.error(expr.loc, "E708", f"{g.name}.{fname} is {n}, {problem}")
        for fname, f in decls.items():
            if fname not in seen and f.default is None and types[fname].kind not in ("opt", "list"):
                checker.error(g.loc, "E706", f"{g.name} ({g.type_name}) has no value for "
                              f"'{fname}'", f"add {fname} = ... (it is {types[fname]})")
    return entities


def state_from_givens(program, givens) -> State:
    """The game state an example's ``given`` lines describe.  A given may read another
    (``hits = b.hits``), in any order, as long as no two read each other."""
    from .runtime import Ctx, Dice
    m = program.model
    entities, by_type = {}, {}
    for g in givens:
        types = m.record_types[g.type_name]
        values = {}
        for f in m.decls[g.type_name].fields:
            if f.default is not None:
                values[f.name] = constant(program, f.default)
            elif types[f.name].kind == "list":
                values[f.name] = ()
            else:
                values[f.name] = None
        entities[g.name] = Entity(g.type_name, g.name, values)
        by_type.setdefault(g.type_name, []).append(g.name)
    bounds = bounds_of(program)
    state = State(entities, {k: tuple(v) for k, v in by_type.items()}, bounds)
    ctx = Ctx(state, Dice(), frozenset())
    for g in _in_dependency_order(givens):
        for loc, fname, expr in g.fields:
            v = program.compile_expr(expr)(ctx, [None] * getattr(g, "frame", 0))
            lim = bounds.get((g.type_name, fname))
            problem = lim is not None and isinstance(v, int) and not isinstance(v, bool) \
                and bound_problem(lim, v)
            if problem:
                fail(expr.loc, "E708", f"{g.name}.{fname} is {v}, {problem}")
            if isinstance(v, tuple):
                v = tuple(x.id if isinstance(x, Entity) else x for x in v)
            entities[g.name].fields[fname] = v.id if isinstance(v, Entity) else v
    return state


def _in_dependency_order(givens):
    """Givens ordered so that each comes after the givens its fields read."""
    names = {g.name: g for g in givens}
    of_type: dict[str, list[str]] = {}
    for g in givens:
        of_type.setdefault(g.type_name, []).append(g.name)
    needs = {}
    for g in givens:
        deps = set()
        for _, _, expr in g.fields:
            if isinstance(expr, A.Name):
                continue              # naming another given (other = b) reads none of its fields
            for node in A.walk(expr):
                if isinstance(node, A.Name) and node.ref and node.ref[0] == "entity":
                    deps.add(node.ref[1])
                elif isinstance(node, A.Query):
                    deps.update(of_type.get(node.type_name, ()))
        deps.discard(g.name)
        needs[g.name] = deps & set(names)
    order, state = [], {}

    def visit(name, chain):
        if state.get(name) == 2:
            return
        if state.get(name) == 1:
            cyc = chain[chain.index(name):] + [name]
            fail(names[name].loc, "E710", "these givens read each other: " + " -> ".join(cyc),
                 "give one of them its value directly")
        state[name] = 1
        for dep in sorted(needs[name]):
            visit(dep, chain + [name])
        state[name] = 2
        order.append(names[name])

    for g in givens:
        visit(g.name, [])
    return order
