"""Check stage: tables — their shape, their keys, and every cell against its type.

Proves each table complete and without overlaps over its keys (enum members, die faces,
ranges of numbers) and says which row, column or cell is missing or doubled.
"""
from __future__ import annotations

from .. import ast as A
from ..errors import Diagnostic, a_or_an, did_you_mean
from ..limits import MAX_FACES, MAX_RANGE
from .model import Model, TableLayout
from .types import BOOL, INT, RANGE, TEXT, Ty, strip

NEVER_WORDS = ("No", "never", "Never")
YES_WORDS = {"Yes": True, "yes": True, "No": False, "no": False}


class TableChecker:
    def __init__(self, model: Model, typer, errors: list[Diagnostic]):
        self.model = model
        self.typer = typer
        self.errors = errors

    def error(self, loc, code, message, hint=None):
        self.errors.append(Diagnostic(loc, code, message, hint))

    # ------------------------------------------------------------ key domains
    def domain(self, p: A.Param):
        """(kind, values) — kind 'enum' with member names or 'int' with the allowed numbers."""
        t = p.type
        if t.kind == "range":
            if t.high - t.low + 1 > MAX_RANGE:
                self.error(t.loc, "E523", f"the key '{p.name}' covers {t.high - t.low + 1} "
                           f"numbers; the limit is {MAX_RANGE}", "a table is printed: key it "
                           "by a smaller range")
                return None
            return "int", list(range(t.low, t.high + 1)), f"{t.low}..{t.high}"
        d = self.model.decls.get(t.name)
        if t.kind == "named" and isinstance(d, A.EnumDecl):
            return "enum", [m.name for m in d.members], d.name
        if t.kind == "named" and isinstance(d, A.DieDecl):
            if d.high - d.low + 1 > MAX_FACES:
                return None              # the die itself is refused (E522)
            return "int", list(range(d.low, d.high + 1)), f"the faces of {d.name}"
        self.error(t.loc, "E401", "a table key is an enum, a scale, a die or a range like 4..8",
                   f"'{p.name}' cannot be a key")
        return None

    def marks(self, cell: A.Cell, where: str):
        section = self.table.section.number if self.table.section else None
        for mark in cell.markers:
            if self.model.marker_for(mark, section) is None:
                several = len(self.model.markers.get(mark, [])) > 1
                self.error(cell.loc, "E407", f"unknown footnote marker '{mark}' in {where}" + (
                    f": it is declared in several sections, none of them {section} or a "
                    "section around it" if several else ""),
                    f"declare it in the table's section: marker {mark} name \"what it means\"")

    def key_of(self, cell: A.Cell, dom, what: str):
        """The key values a key cell stands for (a member, a number, a range of numbers)."""
        self.marks(cell, what)
        kind, values, shown = dom
        if kind == "enum":
            if cell.kind == "name" and cell.value in values:
                return [cell.value]
            self.error(cell.loc, "E402", f"{what} must be one of {shown}: {', '.join(values)}",
                       did_you_mean(str(cell.value), values))
            return []
        if cell.kind == "int":
            keys = [cell.value]
        elif cell.kind == "range":
            if cell.value[1] - cell.value[0] + 1 > MAX_RANGE:
                self.error(cell.loc, "E523", f"the range {self.show(cell)} covers "
                           f"{cell.value[1] - cell.value[0] + 1} numbers; the limit is {MAX_RANGE}")
                return []
            keys = list(range(cell.value[0], cell.value[1] + 1))
            if not keys:
                self.error(cell.loc, "E403", f"the range {cell.value[0]}-{cell.value[1]} is empty")
        else:
            self.error(cell.loc, "E402", f"{what} must be a number or a range like 0-8 ({shown})")
            return []
        allowed = set(values)
        outside = [k for k in keys if k not in allowed]
        if outside:
            self.error(cell.loc, "E404", f"{what} {self.show(cell)} is outside {shown}")
        return [k for k in keys if k in allowed]

    @staticmethod
    def show(cell: A.Cell) -> str:
        if cell.kind == "range":
            return f"{cell.value[0]}-{cell.value[1]}"
        return str(cell.value)

    def cover(self, seen: dict, keys, cell: A.Cell, what: str):
        for k in keys:
            if k in seen:
                self.error(cell.loc, "E405", f"{what} {k} is covered twice: here and at line "
                           f"{seen[k].loc.line}", "each key must have exactly one row or column")
            else:
                seen[k] = cell

    def missing(self, seen: dict, dom, loc, what: str, table: str):
        kind, values, shown = dom
        lost = [v for v in values if v not in seen]
        if lost:
            self.error(loc, "E406", f"table '{table}' is incomplete: no {what} for "
                       f"{_ranges(lost) if kind == 'int' else ', '.join(map(str, lost))}",
                       f"every value of {shown} needs its {what}; write — for a cell that does "
                       "not apply")

    # ------------------------------------------------------------ cells
    def value(self, cell: A.Cell, want: Ty, where: str):
        """The checked value of a data cell: a tuple the compile stage turns into a value."""
        self.marks(cell, where)
        if cell.kind == "empty":
            self.error(cell.loc, "E416", f"{where} is empty",
                       "write the printed value, or — for a cell that does not apply or was lost")
            return ("na",)
        if cell.kind == "na":
            return ("na",)
        t = strip(want)
        if t == INT and cell.kind == "int":
            return ("int", cell.value)
        if t == RANGE:
            if cell.kind == "range":
                return ("range", *cell.value)
            if cell.kind == "int":
                return ("range", cell.value, cell.value)
            if cell.kind == "name" and cell.value in NEVER_WORDS:
                return ("never",)
        if t == TEXT and cell.kind == "text":
            return ("text", cell.value)
        if t.kind == "union":
            if cell.kind == "int":
                return ("int", cell.value)
            if cell.kind == "name":
                return self.value(cell, Ty("enum", t.name), where)
        if t.kind == "record" and cell.kind in ("pair", "int"):
            fields = self.model.record_types.get(t.name, {})
            if len(fields) == 2 and all(f == INT for f in fields.values()):
                a, b = cell.value if cell.kind == "pair" else (cell.value, cell.value)
                return ("pair", t.name, a, b)
            self.error(cell.loc, "E408", f"{where}: a pair like -1/+1 fills a record of two "
                       f"numbers; {t.name} is not one")
            return ("na",)
        if t == BOOL and cell.kind == "name" and cell.value in YES_WORDS:
            return ("bool", YES_WORDS[cell.value])
        if t.kind == "enum" and cell.kind == "name":
            enum = self.model.decls[t.name]
            names = [m.name for m in enum.members]
            if cell.value in names:
                return ("member", t.name, names.index(cell.value))
            self.error(cell.loc, "E408", f"{where}: '{cell.value}' is not {a_or_an(t.name)}",
                       did_you_mean(cell.value, names) or f"one of: {', '.join(names)}")
            return ("na",)
        if t.kind == "list" and t.inner.kind == "enum" and cell.kind in ("name", "set"):
            enum = self.model.decls[t.inner.name]
            names = [m.name for m in enum.members]
            picked = []
            for word in (cell.value if cell.kind == "set" else [cell.value]):
                if word not in names:
                    self.error(cell.loc, "E408", f"{where}: '{word}' is not {a_or_an(t.inner.name)}",
                               did_you_mean(word, names) or f"one of: {', '.join(names)}")
                    return ("na",)
                picked.append(names.index(word))
            return ("members", t.inner.name, tuple(picked))
        if t.kind == "any":
            return ("na",)
        hint = {"range": "write a range like 0-5, a number, No (nothing succeeds) or —",
                "int": "write a number like 2 or -1, or —",
                "union": f"write a number or one of the words of {t.name}, or —"}.get(t.kind)
        self.error(cell.loc, "E408", f"{where}: this cell must be {t}", hint)
        return ("na",)

    # ------------------------------------------------------------ a whole table
    def layout(self, t: A.TableDecl) -> TableLayout | None:
        self.table = t
        result = self.typer.type_ref(t.returns)
        if not t.rows:
            self.error(t.loc, "E409", f"table '{t.name}' has no rows")
            return None
        if not t.params or len(t.params) > 2:
            self.error(t.loc, "E409", "a table has one key (a column of keys) or two (rows × columns)")
            return None
        doms = [self.domain(p) for p in t.params]
        if None in doms:
            return None
        header, body = t.rows[0], t.rows[1:]
        if strip(result).kind == "record" and len(t.params) == 1:
            return self._chart(t, result, doms[0], header, body)
        return self._grid(t, result, doms, header, body)

    def _grid(self, t, result, doms, header, body):
        two = len(doms) == 2
        first = header.cells[0]
        if first.kind not in ("name", "corner"):
            self.error(first.loc, "E410", "the first cell of the header row names the key column")
        columns, seen_cols = [], {}
        if two:
            for c in header.cells[1:]:
                keys = self.key_of(c, doms[1], f"column '{t.params[1].name}'")
                self.cover(seen_cols, keys, c, "column")
                columns.append((c, keys))
            self.missing(seen_cols, doms[1], header.loc, "column", t.name)
        else:
            if len(header.cells) != 2:
                self.error(header.loc, "E410", "a one-key table has two columns: the key and "
                           "the result")
            columns.append((header.cells[-1], [None]))
        rows, seen_rows = [], {}
        for row in body:
            key_cell, cells = row.cells[0], row.cells[1:]
            keys = self.key_of(key_cell, doms[0], f"row '{t.params[0].name}'")
            self.cover(seen_rows, keys, key_cell, "row")
            if len(cells) != len(columns):
                self._count(row, key_cell, cells, [c for c, _ in columns] if two else [], t)
                rows.append((keys, key_cell, []))
                continue
            values = []
            for (col, col_keys), cell in zip(columns, cells):
                where = f"table '{t.name}' row {self.show(key_cell)}" + (
                    f", column {self.show(col)}" if two else "")
                values.append((col_keys, cell, self.value(cell, result, where)))
            rows.append((keys, key_cell, values))
        self.missing(seen_rows, doms[0], t.loc, "row", t.name)
        has_na = any(v[2][0] == "na" for r in rows for v in r[2])
        out = Ty("opt", inner=result) if has_na and result.kind != "opt" else result
        return TableLayout(t, "2d" if two else "1d", doms, [c for c in columns], rows, out)

    def _count(self, row, key_cell, cells, columns, t):
        """A row whose cells do not match the header: say which row, and which columns."""
        names = [self.show(c) for c in columns]
        want = len(names) if names else 1
        if len(cells) < want:
            what = (f"row {self.show(key_cell)} of '{t.name}' has {len(cells)} cell(s) for "
                    f"{want} column(s)" + (f" ({', '.join(names)})" if names else "")
                    + ": a cell is missing")
            hint = ("each cell stands between two |; a cell that does not apply or was lost "
                    "is written —, so the cells after it stay in their columns")
        else:
            what = (f"row {self.show(key_cell)} of '{t.name}' has {len(cells)} cell(s) for "
                    f"{want} column(s)" + (f" ({', '.join(names)})" if names else "")
                    + ": there are cells beyond the last column")
            hint = "remove the extra cells, or add their column to the header row"
        self.error(row.loc, "E411", what, hint)

    def _chart(self, t, result, dom, header, body):
        rec = strip(result).name
        fields = self.model.record_types[rec]
        columns = []
        for c in header.cells[1:]:
            self.marks(c, f"the header of '{t.name}'")
            if c.kind != "name" or c.value not in fields:
                self.error(c.loc, "E412", f"column '{self.show(c)}' is not a field of {rec}",
                           did_you_mean(str(c.value), fields) or f"fields: {', '.join(fields)}")
                columns.append(None)
            else:
                columns.append(c.value)
        lost = [f for f in fields if f not in columns]
        if lost:
            self.error(header.loc, "E406", f"chart '{t.name}' has no column for "
                       f"{', '.join(lost)} of {rec}")
        rows, seen = [], {}
        for row in body:
            key_cell, cells = row.cells[0], row.cells[1:]
            keys = self.key_of(key_cell, dom, f"row '{t.params[0].name}'")
            self.cover(seen, keys, key_cell, "row")
            if len(cells) != len(columns):
                self._count(row, key_cell, cells, header.cells[1:], t)
                rows.append((keys, key_cell, []))
                continue
            values = []
            for col, cell in zip(columns, cells):
                if col is None:
                    continue
                where = f"chart '{t.name}' row {self.show(key_cell)}, column {col}"
                if cell.kind == "na" and fields[col].kind not in ("opt", "any"):
                    self.error(cell.loc, "E417", f"{where} is —, but the field {col} of {rec} "
                               "cannot be none", f"declare it optional: {col}: "
                               f"{_optional(self.model, rec, col)}")
                values.append(([col], cell, self.value(cell, fields[col], where)))
            rows.append((keys, key_cell, values))
        self.missing(seen, dom, t.loc, "row", t.name)
        return TableLayout(t, "chart", [dom], columns, rows, result)


def _optional(model, rec: str, col: str) -> str:
    """A record field's declared type, written optional."""
    decl = model.decls.get(rec)
    f = next((f for f in getattr(decl, "fields", []) if f.name == col), None)
    return A.type_source(f.type) + "?" if f is not None and f.type.kind in (
        "named", "union") else "its type followed by ?"


def _ranges(nums) -> str:
    nums = sorted(nums)
    out, start, prev = [], nums[0], nums[0]
    for n in nums[1:] + [None]:
        if n is not None and n == prev + 1:
            prev = n
            continue
        out.append(str(start) if start == prev else f"{start}-{prev}")
        if n is not None:
            start = prev = n
    return ", ".join(out)
