"""Parse stage, part 2: the Lark Transformer that turns grammar rules into the typed AST.

This module and ``syntax/__init__.py`` are the only places that know grammar rule names.
"""
from __future__ import annotations

from lark import Token, v_args
from lark.visitors import Transformer_NonRecursive

from .. import ast as A
from ..errors import Loc, fail, source_line
from ..limits import MAX_DICE, MAX_SECTION_DIGITS, check_digits


def _unquote(tok: Token) -> str:
    body = str(tok)[1:-1]
    if "\\" not in body:
        return body
    out, i = [], 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            out.append({"n": "\n", "t": "\t"}.get(nxt, nxt))
            i += 2
        else:
            out.append(ch)
            i += 1
    return "".join(out)


class Builder(Transformer_NonRecursive):
    """One method per grammar rule; each returns an AST node or a plain value."""

    def __init__(self, path: str):
        super().__init__()
        self.path = path

    # ------------------------------------------------------------ helpers
    def loc(self, meta) -> Loc:
        if getattr(meta, "empty", True):
            return Loc(self.path)
        return Loc(self.path, meta.line, meta.column, meta.end_line, meta.end_column)

    def tloc(self, tok: Token) -> Loc:
        return Loc(self.path, tok.line, tok.column, tok.end_line or tok.line,
                   tok.end_column or tok.column + len(tok))

    def INT(self, tok: Token) -> int:           # every number written in a rulebook
        if isinstance(tok, int):                 # already read (a token callback ran)
            return tok
        return check_digits(str(tok), self.tloc(tok))

    def SECNUM(self, tok: Token) -> Token:
        if len(tok) > MAX_SECTION_DIGITS:
            fail(self.tloc(tok), "E521", f"this section number is {len(tok)} characters long; "
                 f"the limit is {MAX_SECTION_DIGITS}")
        return tok

    def __default__(self, data, children, meta):
        raise AssertionError(f"grammar rule {data!r} has no builder")  # a bug, not a user error

    # ------------------------------------------------------------ file
    @v_args(meta=True, inline=True)
    def start(self, meta, *items):
        header, uses, sections, patches = None, [], [], []
        for item in items:
            if isinstance(item, A.Header):
                header = item
            elif isinstance(item, A.Use):
                uses.append(item)
            elif isinstance(item, A.Section):
                sections.append(item)
            elif isinstance(item, A.Patch):
                patches.append(item)
        return A.SourceFile(self.path, header, uses, sections, patches)

    @v_args(meta=True, inline=True)
    def header(self, meta, label, edition, languages, annotations):
        return A.Header(self.loc(meta), label, edition, languages or [],
                        annotations=annotations or [])

    @v_args(meta=True, inline=True)
    def variant_header(self, meta, label, base, languages, annotations):
        return A.Header(self.loc(meta), label, None, languages or [], _unquote(base),
                        annotations or [])

    @v_args(inline=True)
    def edition(self, s):
        return _unquote(s)

    def languages(self, names):
        return [str(n) for n in names]

    @v_args(meta=True, inline=True)
    def use(self, meta, path):
        return A.Use(self.loc(meta), _unquote(path))

    # ------------------------------------------------------------ labels & notes
    def label(self, children):
        text = None
        translations = {}
        for ch in children:
            if isinstance(ch, Token):
                text = _unquote(ch)
            else:
                translations[ch[0]] = ch[1]
        return A.Label(text, translations)

    @v_args(inline=True)
    def translation(self, lang, text):
        return (str(lang), _unquote(text))

    def annotations(self, items):
        return list(items)

    @v_args(meta=True, inline=True)
    def source(self, meta, text):
        return A.Annotation(self.loc(meta), "source", _unquote(text))

    @v_args(meta=True, inline=True)
    def doubt(self, meta, text):
        return A.Annotation(self.loc(meta), "doubt", _unquote(text))

    @v_args(meta=True, inline=True)
    def numbered(self, meta, text):
        return A.Annotation(self.loc(meta), "numbered", _unquote(text))

    @v_args(meta=True, inline=True)
    def gap(self, meta, text):
        return A.Annotation(self.loc(meta), "gap", _unquote(text))

    @v_args(meta=True, inline=True)
    def note(self, meta, label):
        return A.Annotation(self.loc(meta), "note", label.text or "", label)

    # ------------------------------------------------------------ sections
    @v_args(meta=True, inline=True)
    def section(self, meta, number, label, *items):
        number = self.SECNUM(number)
        decls = [i for i in items if isinstance(i, A.Decl)]
        notes = [i for i in items if isinstance(i, A.Annotation)]
        sec = A.Section(self.loc(meta), str(number), label, decls, notes)
        for d in decls:
            d.section = sec
        return sec

    # ------------------------------------------------------------ vocabulary
    def _enum(self, meta, name, label, members, ordered):
        decl = A.EnumDecl(self.loc(meta), str(name), label or A.Label(),
                          [m for m in members if isinstance(m, A.Member)], ordered)
        return self._annotate(decl, [m for m in members if isinstance(m, A.Annotation)])

    @v_args(meta=True, inline=True)
    def enum(self, meta, name, label, *members):
        return self._enum(meta, name, label, members, False)

    @v_args(meta=True, inline=True)
    def scale(self, meta, name, label, *members):
        return self._enum(meta, name, label, members, True)

    @v_args(meta=True, inline=True)
    def member(self, meta, name, label):
        return A.Member(self.tloc(name), str(name), label or A.Label())

    @v_args(meta=True, inline=True)
    def record(self, meta, name, label, *fields):
        decl = A.RecordDecl(self.loc(meta), str(name), label or A.Label(),
                            [f for f in fields if isinstance(f, A.FieldDecl)])
        return self._annotate(decl, [f for f in fields if isinstance(f, A.Annotation)])

    @v_args(meta=True, inline=True)
    def field(self, meta, name, typ, default, label):
        return A.FieldDecl(self.tloc(name), str(name), typ, label or A.Label(), default)

    @v_args(meta=True, inline=True)
    def named_type(self, meta, name):
        return A.TypeRef(self.loc(meta), "named", str(name))

    @v_args(meta=True, inline=True)
    def optional_type(self, meta, name):
        return A.TypeRef(self.loc(meta), "optional", str(name))

    @v_args(meta=True, inline=True)
    def int_range_type(self, meta, low, high, kind="range"):
        return A.TypeRef(self.loc(meta), kind, None, low, high)

    @v_args(meta=True, inline=True)
    def optional_range_type(self, meta, low, high):
        return self.int_range_type(meta, low, high, "optional range")

    @v_args(meta=True, inline=True)
    def list_type(self, meta, name):
        return A.TypeRef(self.loc(meta), "list", str(name))

    @v_args(meta=True, inline=True)
    def union_type(self, meta, first, second, kind="union"):
        if str(first) != "Int":
            fail(self.tloc(first), "E106", "a column that mixes numbers and printed words is "
                 "written 'Int or Words' (Int first)", f"write Int or {second}")
        return A.TypeRef(self.loc(meta), kind, str(second))

    @v_args(meta=True, inline=True)
    def optional_union_type(self, meta, first, second):
        return self.union_type(meta, first, second, "optional union")

    def _annotate(self, decl, annotations):
        decl.annotations = list(annotations or [])
        return decl

    @v_args(meta=True, inline=True)
    def die(self, meta, name, label, low, high, annotations):
        return self._annotate(A.DieDecl(self.loc(meta), str(name), label or A.Label(), low, high),
                              annotations)

    @v_args(meta=True, inline=True)
    def option(self, meta, name, label, default, annotations):
        on = False
        if default is not None:
            word, wloc = default
            if word not in ("on", "off"):
                fail(wloc, "E102", f"an option's default is 'on' or 'off', not '{word}'")
            on = word == "on"
        return self._annotate(A.OptionDecl(self.loc(meta), str(name), label or A.Label(), on),
                              annotations)

    @v_args(inline=True)
    def default(self, word):
        return (str(word), self.tloc(word))

    @v_args(meta=True, inline=True)
    def marker(self, meta, mark, name, label, annotations):
        return self._annotate(A.MarkerDecl(self.loc(meta), str(name), str(mark), label or A.Label()),
                              annotations)

    # ------------------------------------------------------------ rules
    @v_args(meta=True, inline=True)
    def board_hex(self, meta, layout, faces, label, annotations):
        return self._annotate(A.BoardDecl(self.loc(meta), "board", label or A.Label(), "hex",
                                          layout, faces), annotations)

    @v_args(meta=True, inline=True)
    def board_table(self, meta, unit, label, annotations):
        return self._annotate(A.BoardDecl(self.loc(meta), "board", label or A.Label(), "table",
                                          str(unit)), annotations)

    def layout_axial(self, _):
        return "axial"

    def layout_columns_odd(self, _):
        return "columns-odd"

    def layout_columns_even(self, _):
        return "columns-even"

    def layout_rows_odd(self, _):
        return "rows-odd"

    def layout_rows_even(self, _):
        return "rows-even"

    def faces_vertices(self, _):
        return "vertices"

    def faces_hexsides(self, _):
        return "hexsides"

    def params(self, children):
        return [c for c in children if c is not None]

    @v_args(meta=True, inline=True)
    def param(self, meta, name, typ):
        return A.Param(self.tloc(name), str(name), typ)

    @v_args(inline=True)
    def returns(self, typ):
        return typ

    @v_args(meta=True, inline=True)
    def when(self, meta, expr):
        return ("when", expr, self.loc(meta))

    @v_args(meta=True, inline=True)
    def value(self, meta, expr):
        return ("value", expr, self.loc(meta))

    def clauses(self, items):
        return list(items)

    def _split_clauses(self, parts):
        when = value = None
        notes = []
        for part in parts:
            if isinstance(part, list):
                for p in part:
                    if isinstance(p, A.Annotation):
                        notes.append(p)
                    else:
                        when, value = self._one_clause(p, when, value)
            elif part is not None:
                when, value = self._one_clause(part, when, value)
        return when, value, notes

    def _one_clause(self, clause, when, value):
        kind, expr, loc = clause
        if kind == "when":
            if when is not None:
                fail(loc, "E103", "this rule already has a 'when' condition",
                     "join the conditions with 'and'")
            return expr, value
        if value is not None:
            fail(loc, "E103", "this rule already has a value ('= ...')",
                 "a comparison is written '==', as in 'when x == 2'")
        return when, expr

    @v_args(meta=True)
    def define(self, meta, children):
        name, params, returns, label, *rest = children
        when, value, notes = self._split_clauses(rest)
        d = A.Define(self.loc(meta), str(name), params, returns, label or A.Label(), when, value)
        return self._annotate(d, notes)

    @v_args(meta=True)
    def exception(self, meta, children):
        name, target, label, *rest = children
        when, value, notes = self._split_clauses(rest)
        e = A.ExceptionDecl(self.loc(meta), str(name), label or A.Label(), str(target),
                            self.tloc(target), when, value)
        return self._annotate(e, notes)

    @v_args(meta=True, inline=True)
    def modifiers(self, meta, name, params, label, combine, *items):
        how, cap, cloc = ("sum", None, self.loc(meta)) if combine is None else combine
        return A.ModifiersDecl(self.loc(meta), str(name), params, label or A.Label(), how, cloc,
                               cap, list(items))

    @v_args(meta=True, inline=True)
    def combine(self, meta, how):
        return (str(how), None, self.tloc(how))

    @v_args(meta=True, inline=True)
    def combine_capped(self, meta, how, low, high):
        return (str(how), (low, high), self.tloc(how))

    @v_args(meta=True, inline=True)
    def modifier(self, meta, name, expr, when, label, annotations):
        cond = when[1] if when else None
        return A.Modifier(self.tloc(name), str(name), expr, cond, label or A.Label(),
                          list(annotations or []))

    @v_args(meta=True, inline=True)
    def check(self, meta, name, params, label, when, dice, modified, clamped, target,
              annotations):
        op, expr = target
        c = A.CheckDecl(self.loc(meta), str(name), params, label or A.Label(), dice, modified,
                        clamped is not None, op, expr, when[1] if when else None)
        return self._annotate(c, annotations)

    @v_args(meta=True, inline=True)
    def dice(self, meta, *parts):
        if len(parts) == 1:
            return A.Dice(self.loc(meta), 1, str(parts[0]))
        count = self.INT(parts[0])
        if count < 1:
            fail(self.loc(meta), "E104", "roll at least one die")
        if count > MAX_DICE:
            fail(self.loc(meta), "E522", f"a roll of {count} dice; the limit is {MAX_DICE}")
        return A.Dice(self.loc(meta), count, str(parts[1]))

    def modified(self, parts):
        """``+ a - b + c`` after a roll: the terms added left to right, each with its sign."""
        total = None
        for sign, term in zip(parts[::2], parts[1::2]):
            if total is None:
                total = term if str(sign) == "+" else A.Unary(term.loc, "-", term)
            else:
                total = A.Binary(term.loc, str(sign), total, term)
        return self._deep(total)

    def clamped(self, _):
        return True

    @v_args(inline=True)
    def at_most(self, expr):
        return ("at_most", expr)

    @v_args(inline=True)
    def at_least(self, expr):
        return ("at_least", expr)

    @v_args(inline=True)
    def within(self, expr):
        return ("within", expr)

    # ------------------------------------------------------------ requirements & procedures
    @v_args(meta=True, inline=True)
    def requirements(self, meta, name, params, label, every_state, annotations):
        d = A.RequirementsDecl(self.loc(meta), str(name), params, label or A.Label(),
                               every_state is not None)
        return self._annotate(d, annotations)

    def every_state(self, _children):
        return True

    @v_args(meta=True)
    def require(self, meta, children):
        name, list_name, label, *rest = children
        when, value, notes = self._split_clauses(rest)
        d = A.RequireDecl(self.loc(meta), str(name), str(list_name), self.tloc(list_name),
                          label or A.Label(), when, value)
        return self._annotate(d, notes)

    @v_args(meta=True, inline=True)
    def procedure(self, meta, name, params, label, *body):
        steps = [b for b in body if isinstance(b, A.Step)]
        notes = [b for b in body if isinstance(b, A.Annotation)]
        return self._annotate(A.ProcedureDecl(self.loc(meta), str(name), params,
                                              label or A.Label(), steps), notes)

    @v_args(meta=True)
    def step(self, meta, children):
        name, label, *rest = children
        when, value, notes = self._split_clauses(rest)
        return A.Step(self.tloc(name), str(name), label or A.Label(), when, value, False, notes)

    @v_args(meta=True, inline=True)
    def stop_step(self, meta, name, label, cond, annotations):
        return A.Step(self.tloc(name), str(name), label or A.Label(), cond, None, True,
                      list(annotations or []))

    # ------------------------------------------------------------ tables
    @v_args(meta=True, inline=True)
    def table(self, meta, name, params, returns, label, *body):
        rows = [b for b in body if isinstance(b, A.Row)]
        notes = [b for b in body if isinstance(b, A.Annotation)]
        for row in rows:
            self._place_row_notes(rows[0], row)
        t = A.TableDecl(self.loc(meta), str(name), params, returns, label or A.Label(), rows)
        return self._annotate(t, notes)

    @v_args(meta=True, inline=True)
    def row(self, meta, *items):
        *cells, notes = items
        loc = self.loc(meta)
        row = A.Row(loc, [c if c is not None else A.Cell(self._between_bars(loc, i), "empty",
                                                        None, [])
                          for i, c in enumerate(cells)])
        row.pending = list(notes or [])
        return row

    def row_notes(self, items):
        return list(items)

    def row_note(self, items):
        return ([], items[0])

    def cell_note(self, items):
        return (list(items[:-1]), items[-1])

    @staticmethod
    def _place_row_notes(header: A.Row, row: A.Row) -> None:
        """Notes under a row go to the row, or to its cells in the columns they name."""
        for keys, note in getattr(row, "pending", []):
            if not keys:
                row.annotations.append(note)
            for loc, key in keys:
                cols = [j for j, c in enumerate(header.cells) if j and _names_column(c, key)]
                if not cols or cols[0] >= len(row.cells):
                    heads = ", ".join(A.cell_source(c) for c in header.cells[1:])
                    fail(loc, "E413", f"this table has no column '{key}'",
                         f"its columns: {heads}")
                row.cells[cols[0]].annotations.append(note)
        row.__dict__.pop("pending", None)

    @staticmethod
    def _between_bars(row: Loc, index: int) -> Loc:
        """Where the index-th cell of a row stands: just after its opening |."""
        line = source_line(row.path, row.line) or ""
        bars = [n for n, ch in enumerate(line) if ch == "|"]
        col = bars[index] + 2 if index < len(bars) else row.col
        return Loc(row.path, row.line, col, row.line, col + 1)

    @v_args(meta=True, inline=True)
    def cell(self, meta, value, *marks):
        value.markers = [str(m) for m in marks]
        value.loc = self.loc(meta)
        return value

    @v_args(meta=True, inline=True)
    def corner(self, meta, a, b):
        return A.Cell(self.loc(meta), "corner", (str(a), str(b)), [])

    @v_args(meta=True, inline=True)
    def cell_int(self, meta, sign, n):
        cell = A.Cell(self.loc(meta), "int", self.signed(sign, n) if sign else self.INT(n), [])
        cell.plus = sign is not None and str(sign) == "+"     # '+1' is written back as printed
        return cell

    @v_args(meta=True, inline=True)
    def cell_pair(self, meta, a, b):
        return A.Cell(self.loc(meta), "pair", (a, b), [])

    @v_args(meta=True, inline=True)
    def cell_range(self, meta, low, sign, high):
        if str(sign) != "-":
            fail(self.tloc(sign), "E105", "a range in a table cell is written low-high, like 0-5")
        return A.Cell(self.loc(meta), "range", (self.INT(low), self.INT(high)), [])

    @v_args(meta=True, inline=True)
    def cell_name(self, meta, name):
        if str(name) == "NA":
            return A.Cell(self.loc(meta), "na", None, [])
        return A.Cell(self.loc(meta), "name", str(name), [])

    @v_args(meta=True, inline=True)
    def cell_set(self, meta, *names):
        return A.Cell(self.loc(meta), "set", [str(n) for n in names], [])

    @v_args(meta=True, inline=True)
    def cell_text(self, meta, text):
        return A.Cell(self.loc(meta), "text", _unquote(text), [])

    @v_args(meta=True, inline=True)
    def cell_na(self, meta, _):
        return A.Cell(self.loc(meta), "na", None, [])

    @v_args(inline=True)
    def signed(self, *parts):
        if len(parts) == 2:
            return -self.INT(parts[1]) if str(parts[0]) == "-" else self.INT(parts[1])
        return self.INT(parts[0])

    # ------------------------------------------------------------ examples
    @v_args(meta=True, inline=True)
    def example(self, meta, label, *lines):
        ex = A.ExampleDecl(self.loc(meta), label.text or "", label, [], [], [], [], [])
        notes = []
        for line in lines:
            if isinstance(line, A.Annotation):
                notes.append(line)
            else:
                getattr(ex, line[0]).append(line[1])
        return self._annotate(ex, notes)

    @v_args(meta=True, inline=True)
    def given(self, meta, name, type_name, *inits):
        fields = [i for i in inits if i is not None]
        return ("givens", A.Given(self.loc(meta), str(name), str(type_name), self.tloc(type_name),
                                  fields))

    @v_args(meta=True, inline=True)
    def field_init(self, meta, name, expr):
        return (self.tloc(name), str(name), expr)

    @v_args(meta=True, inline=True)
    def rolls(self, meta, die, *faces):
        return ("rolls", (self.loc(meta), str(die), list(faces)))

    @v_args(meta=True, inline=True)
    def switch(self, meta, name, state):
        on = True
        if state is not None:
            if str(state) not in ("on", "off"):
                fail(self.tloc(state), "E102", f"an option is switched 'on' or 'off', not '{state}'")
            on = str(state) == "on"
        return ("options", (self.loc(meta), str(name), on))

    @v_args(meta=True, inline=True)
    def chosen(self, meta, name, *values):
        return ("choices", (self.loc(meta), str(name), list(values)))

    @v_args(meta=True, inline=True)
    def expect(self, meta, expr):
        return ("expects", A.Expectation(self.loc(meta), expr))


    # ------------------------------------------------------------ variants
    @v_args(meta=True, inline=True)
    def patch_replace(self, meta, name, *items):
        decls = [i for i in items if not isinstance(i, A.Annotation)]   # notes on the patch
        return A.Patch(self.loc(meta), "replace", str(name), self.tloc(name), decls,
                       annotations=[i for i in items if isinstance(i, A.Annotation)])

    @v_args(meta=True, inline=True)
    def patch_drop(self, meta, name, item, annotations):
        target = f"{name}.{item}" if item is not None else str(name)
        return A.Patch(self.loc(meta), "drop", target, self.tloc(name),
                       annotations=list(annotations or []))

    @v_args(meta=True, inline=True)
    def patch_add(self, meta, number, *items):
        decls = [i for i in items if not isinstance(i, A.Annotation)]
        return A.Patch(self.loc(meta), "add", str(number), self.tloc(number), decls,
                       section=str(number),
                       annotations=[i for i in items if isinstance(i, A.Annotation)])

    @v_args(meta=True, inline=True)
    def patch_cell(self, meta, name, *rest):
        *keys, cell, annotations = rest
        return A.Patch(self.loc(meta), "cell", str(name), self.tloc(name),
                       keys=[k for k in keys if k is not None], cell=cell,
                       annotations=list(annotations or []))

    @v_args(meta=True, inline=True)
    def cell_key(self, meta, key):
        return (self.loc(meta), str(key) if isinstance(key, Token) else key)

    @v_args(meta=True, inline=True)
    def patch_option(self, meta, name, state):
        if str(state) not in ("on", "off"):
            fail(self.tloc(state), "E102", f"an option is switched 'on' or 'off', not '{state}'")
        return A.Patch(self.loc(meta), "option", str(name), self.tloc(name), switch=str(state))

    # ------------------------------------------------------------ expressions
    @v_args(inline=True)
    def expr_start(self, expr):
        return expr

    @v_args(meta=True, inline=True)
    def if_expr(self, meta, c, t, e):
        return self._deep(A.If(self.loc(meta), c, t, e))

    @v_args(meta=True, inline=True)
    def set_effect(self, meta, target, value):
        return A.SetEffect(self.loc(meta), target, value)

    @v_args(meta=True, inline=True)
    def add_effect(self, meta, amount, target):
        return A.AddEffect(self.loc(meta), amount, target)

    @v_args(meta=True, inline=True)
    def remove_effect(self, meta, target):
        return A.RemoveEffect(self.loc(meta), target)

    @v_args(meta=True, inline=True)
    def after_expr(self, meta, effects, then):
        return A.After(self.loc(meta), effects, then)

    @v_args(meta=True, inline=True)
    def then_effect(self, meta, first, rest):
        return self._deep(A.Then(self.loc(meta), first, rest))

    @v_args(meta=True, inline=True)
    def let_expr(self, meta, name, value, body):
        return self._deep(A.Let(self.loc(meta), str(name), value, body))

    @v_args(meta=True, inline=True)
    def for_each_query(self, meta, type_name, var, cond, body):
        return self._deep(A.ForEach(self.loc(meta), str(var), str(type_name), cond, None, body))

    @v_args(meta=True, inline=True)
    def for_each_list(self, meta, var, items, body):
        return self._deep(A.ForEach(self.loc(meta), str(var), None, None, items, body))

    @v_args(meta=True, inline=True)
    def list_each(self, meta, element, var, source, cond):
        each = self.each(meta, element, var, source, cond)
        return self._deep(A.ListEach(self.loc(meta), each))

    @v_args(meta=True, inline=True)
    def choice(self, meta, name, options):
        return A.Choose(self.loc(meta), str(name), options)

    @v_args(meta=True, inline=True)
    def or_(self, meta, a, b):
        return self._deep(A.Binary(self.loc(meta), "or", a, b))

    @v_args(meta=True, inline=True)
    def and_(self, meta, a, b):
        return self._deep(A.Binary(self.loc(meta), "and", a, b))

    @v_args(meta=True, inline=True)
    def not_(self, meta, a):
        return self._deep(A.Unary(self.loc(meta), "not", a))

    @v_args(meta=True, inline=True)
    def compare(self, meta, a, op, b):
        return self._deep(A.Binary(self._oploc(op, meta), str(op), a, b))

    @v_args(meta=True, inline=True)
    def arith(self, meta, a, op, b):
        return self._deep(A.Binary(self._oploc(op, meta), str(op), a, b))

    @staticmethod
    def _deep(e):
        if e.depth > A.MAX_DEPTH:
            fail(e.loc, "E005", f"this expression nests more than {A.MAX_DEPTH} levels deep",
                 "split it into named rules (define ...) and combine those")
        return e

    def _oploc(self, op, meta):
        loc = self.loc(meta)
        return Loc(loc.path, loc.line, loc.col, loc.end_line, loc.end_col)

    @v_args(meta=True, inline=True)
    def member_of(self, meta, value, items):
        if isinstance(items, A.ListLit):      # x in [A, B]: the options are written out
            return A.MemberOf(self.loc(meta), value, items.items)
        return self._deep(A.InList(self.loc(meta), value, items))

    @v_args(meta=True, inline=True)
    def is_none(self, meta, value):
        return A.IsNone(self.loc(meta), value, False)

    @v_args(meta=True, inline=True)
    def is_not_none(self, meta, value):
        return A.IsNone(self.loc(meta), value, True)

    @v_args(meta=True, inline=True)
    def negate(self, meta, sign, operand):
        if str(sign) == "+":
            return operand
        if isinstance(operand, A.IntLit):
            return A.IntLit(self.loc(meta), -operand.value)
        return self._deep(A.Unary(self.loc(meta), "-", operand))

    @v_args(meta=True, inline=True)
    def field_of(self, meta, subject, name):
        return self._deep(A.FieldOf(self.loc(meta), subject, str(name)))

    @v_args(meta=True, inline=True)
    def call(self, meta, name, *args):
        return self._deep(A.Call(self.tloc(name), str(name), [a for a in args if a is not None]))

    @v_args(meta=True, inline=True)
    def each(self, meta, element, var, source, cond):
        low, high, items = source
        return self._deep(A.Each(self.loc(meta), element, str(var), low, high, items, cond))

    @v_args(inline=True)
    def each_range(self, low, high):
        return (low, high, None)

    @v_args(inline=True)
    def each_list(self, items):
        return (None, None, items)

    @v_args(meta=True, inline=True)
    def index(self, meta, subject, i):
        return self._deep(A.Index(self.loc(meta), subject, i))

    @v_args(meta=True, inline=True)
    def query(self, meta, type_name, var, cond):
        return A.Query(self.loc(meta), str(type_name), str(var), cond)

    @v_args(meta=True, inline=True)
    def int_lit(self, meta, n):
        return A.IntLit(self.loc(meta), self.INT(n))

    @v_args(meta=True, inline=True)
    def range_lit(self, meta, a, b):
        return A.RangeLit(self.loc(meta), self.INT(a), self.INT(b))

    @v_args(meta=True, inline=True)
    def text_lit(self, meta, s):
        return A.TextLit(self.loc(meta), _unquote(s))

    @v_args(meta=True, inline=True)
    def name(self, meta, n):
        return A.Name(self.tloc(n), str(n))

    @v_args(meta=True, inline=True)
    def mark_arg(self, meta, m):
        """A footnote marker named by its printed glyph: marked(table(keys), ⁴)."""
        return A.Name(self.tloc(m), str(m))

    @v_args(meta=True, inline=True)
    def true_lit(self, meta):
        return A.BoolLit(self.loc(meta), True)

    @v_args(meta=True, inline=True)
    def false_lit(self, meta):
        return A.BoolLit(self.loc(meta), False)

    @v_args(meta=True, inline=True)
    def none_lit(self, meta):
        return A.NoneLit(self.loc(meta))

    @v_args(meta=True, inline=True)
    def nothing_lit(self, meta):
        return A.NothingLit(self.loc(meta))

    @v_args(meta=True, inline=True)
    def roll(self, meta, dice):
        return A.Roll(self.loc(meta), dice)

    @v_args(meta=True, inline=True)
    def list_lit(self, meta, *items):
        return self._deep(A.ListLit(self.loc(meta), [i for i in items if i is not None]))


def _names_column(cell: A.Cell, key) -> bool:
    """Does a header cell head the column ``key`` names (a name, a number, a number in a range)?"""
    if cell.kind in ("name", "int"):
        return cell.value == key
    if cell.kind == "range" and isinstance(key, int):
        return cell.value[0] <= key <= cell.value[1]
    return False
