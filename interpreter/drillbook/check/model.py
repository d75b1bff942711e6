"""Check stage: the checked rulebook — every name resolved, every table laid out.

The compile stage reads a ``Model`` and nothing else from the check stage.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .. import ast as A
from ..errors import Diagnostic
from .types import Ty


@dataclass(slots=True)
class TableLayout:
    """A table as the checker understood it: keys per parameter and the cell for each key."""
    decl: A.TableDecl
    shape: str                       # "1d" (one key, one result), "2d", "chart" (columns = fields)
    key_types: list                  # [Ty] per parameter
    columns: list                    # chart: field names; 2d: column keys; 1d: [None]
    rows: list                       # [(row key(s), Cell of the key, [Cell per column])]
    result: Ty


@dataclass()
class Model:
    path: str
    title: A.Label
    edition: str | None
    languages: list
    sections: list
    decls: dict = field(default_factory=dict)        # name -> Decl (one namespace)
    members: dict = field(default_factory=dict)      # member name -> (EnumDecl, index)
    children: dict = field(default_factory=dict)     # rule name -> [ExceptionDecl]
    items_of: dict = field(default_factory=dict)     # requirements name -> [RequireDecl]
    root_of: dict = field(default_factory=dict)      # exception name -> Define
    tables: dict = field(default_factory=dict)       # name -> TableLayout
    markers: dict = field(default_factory=dict)      # mark -> [MarkerDecl], one per section
    examples: list = field(default_factory=list)
    warnings: list = field(default_factory=list)     # [Diagnostic]
    record_types: dict = field(default_factory=dict)  # record name -> {field: Ty}
    returns: dict = field(default_factory=dict)      # rule/table/check/modifiers name -> Ty
    frame_size: dict = field(default_factory=dict)   # rule name -> number of local slots
    rolls_dice: set = field(default_factory=set)     # rules, checks... that may read a die
    searching: set = field(default_factory=set)      # rules that search the state or a list
    base: "Model | None" = None                      # for a variant: the model it patches
    patches: list = field(default_factory=list)      # for a variant: what it changed
    own_files: set = field(default_factory=set)      # for a variant: its own files
    header_notes: list = field(default_factory=list)  # annotations of the rulebook header

    def marker_for(self, mark: str, section: str | None):
        """The declaration a footnote marker has in a section: the one declared in that
        section or the nearest enclosing one (7.8.1, then 7.8, then 7), else the only one."""
        decls = self.markers.get(mark, [])
        by_section = {d.section.number: d for d in decls if d.section is not None}
        number = section or ""
        while number:
            if number in by_section:
                return by_section[number]
            number = number.rpartition(".")[0]
        return decls[0] if len(decls) == 1 else None

    def section_at(self, loc):
        """The innermost section whose text holds ``loc`` (where an effect was written)."""
        best = None
        for sec in self.sections:
            s = sec.loc
            if s.path == loc.path and s.line <= loc.line <= (s.end_line or s.line):
                if best is None or s.line >= best.loc.line:
                    best = sec
        return best

    def of_kind(self, cls):
        return {n: d for n, d in self.decls.items() if isinstance(d, cls)}

    @property
    def default_language(self) -> str | None:
        return self.languages[0] if self.languages else None

    def annotations(self):
        """Every (section, Annotation) in the rulebook, in file order; the header's notes
        come first, with no section."""
        for note in getattr(self, "header_notes", []):
            yield None, note
        for sec in self.sections:
            for note in sec.annotations:
                yield sec, note
            for d in sec.items:
                yield from ((sec, note) for note in _notes_of(d))
                for m in d.items if isinstance(d, A.ModifiersDecl) else []:
                    for note in m.annotations:
                        yield sec, note
                for st in d.steps if isinstance(d, A.ProcedureDecl) else []:
                    for note in st.annotations:
                        yield sec, note


    def labels(self):
        """Every (loc, what, Label) of the rulebook in file order: each section, each
        declaration and what it holds (a level, a field, a modifier, a step)."""
        for sec in self.sections:
            yield sec.loc, f"section {sec.number}", sec.label
            for d in sec.items:
                yield from _labels_of(d)


def _labels_of(d):
    if getattr(d, "label", None) is not None:
        yield d.loc, getattr(d, "name", None) or "?", d.label
    for part in (getattr(d, "members", None), getattr(d, "fields", None),
                 d.items if isinstance(d, A.ModifiersDecl) else None,
                 d.steps if isinstance(d, A.ProcedureDecl) else None):
        for x in part or []:
            if getattr(x, "label", None) is not None:
                what = f"{d.name}.{x.name}"
                yield x.loc, what, x.label


def _notes_of(d) -> list:
    """A declaration's notes; a table's with those under its rows and cells, in file order."""
    if not isinstance(d, A.TableDecl):
        return list(d.annotations)
    notes, seen = list(d.annotations), {id(n) for n in d.annotations}
    for row in d.rows:
        for note in row.annotations + [n for c in row.cells for n in c.annotations]:
            if id(note) not in seen:
                seen.add(id(note))
                notes.append(note)
    return sorted(notes, key=lambda n: (n.loc.path != d.loc.path, n.loc.line, n.loc.col))


def warn(model: Model, diag: Diagnostic) -> None:
    diag.severity = "warning"
    model.warnings.append(diag)
