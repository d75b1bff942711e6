"""Explain stage: coverage — what a rulebook's examples exercise, read from their traces.

``coverage(rulebook)`` runs the examples (``Rulebook.run_examples(trace=True)``, the same
run as ``drillbook test``) and walks the trace of every evaluation.  Each thing a rulebook
declares must be seen in each of its ways, section by section:

=============  ==========================================================================
kind           ways it must be seen
=============  ==========================================================================
rules          a definition or check evaluated
exceptions     applied (its own condition held) and not applied (it did not)
modifiers      applied and, for a modifier with a ``when``, not applied
requirements   met and violated
cells          a table cell looked up (a chart — columns that are fields — by its rows)
steps          a procedure step taken (a ``stop`` step: stopping)
=============  ==========================================================================

A way not seen is listed at its declaration (``path:line:col``).  Only examples that pass
count: a failing example proves nothing about what it touched.  A variant answers for its
own files: its own examples and what its own files declare.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from . import ast as A

KINDS = ("rules", "exceptions", "modifiers", "requirements", "cells", "steps")


@dataclass(eq=False)
class Item:
    """One thing a rulebook declares, and which of its ways the examples showed."""
    kind: str                              # one of KINDS
    what: str                              # rule, check, exception, modifier, table, step...
    name: str                              # LIST.ITEM, PROCEDURE.STEP, TABLE[ROW, COLUMN]
    loc: object
    section: object                        # ast.Section or None
    ways: dict = field(default_factory=dict)   # way -> seen (bool), in the order to report
    owner: object = None                   # the declaration a modifier, step or cell is of

    @property
    def title(self) -> str:
        return f"{self.what} {self.name}"

    @property
    def missing(self) -> list[str]:
        return [w for w, seen in self.ways.items() if not seen]


@dataclass
class Coverage:
    title: str
    path: str
    items: list
    passed: int
    failed: list                           # [ExampleResult] that did not pass

    def totals(self, kind: str | None = None) -> tuple[int, int]:
        """(ways seen, ways in all) of one kind, or of every kind."""
        ways = [s for i in self.items if kind is None or i.kind == kind for s in i.ways.values()]
        return sum(ways), len(ways)

    def percent(self, kind: str | None = None) -> float | None:
        """The share of ways seen; None when there is nothing of that kind to see."""
        seen, total = self.totals(kind)
        return None if total == 0 else 100.0 * seen / total

    def uncovered(self) -> list:
        return [i for i in self.items if i.missing]


# ------------------------------------------------------------------ what there is to see
def _items(model):
    """Every item of the rulebook, in file order, and where a trace finds each way:
    {(id of the declaration, cell or step, way): Item}."""
    items, where = [], {}
    own = getattr(model, "own_files", None)

    def add(kind, what, name, obj, loc, section, ways, owner=None):
        if own and loc.path not in own:
            return
        item = Item(kind, what, name, loc, section, {w: False for w in ways}, owner)
        items.append(item)
        for w in ways:
            where.setdefault((id(obj), w), []).append(item)

    for sec in model.sections:
        for d in sec.items:
            if isinstance(d, (A.Define, A.CheckDecl)):
                add("rules", d.what, d.name, d, d.loc, sec, ["used"])
            elif isinstance(d, A.ExceptionDecl):
                add("exceptions", "exception", d.name, d, d.loc, sec,
                    ["applied", "not applied"])
            elif isinstance(d, A.RequireDecl):
                add("requirements", "requirement", d.name, d, d.loc, sec, ["met", "violated"])
            elif isinstance(d, A.ModifiersDecl):
                for m in d.items:
                    add("modifiers", "modifier", f"{d.name}.{m.name}", m, m.loc, sec,
                        ["applied"] + (["not applied"] if m.when is not None else []), d)
            elif isinstance(d, A.ProcedureDecl):
                for st in d.steps:
                    add("steps", "stop" if st.stop else "step", f"{d.name}.{st.name}", st,
                        st.loc, sec, ["stopped" if st.stop else "taken"], d)
            elif isinstance(d, A.TableDecl) and d.name in model.tables:
                _cells(model.tables[d.name], sec, add)
    return items, where


def _cells(lay, sec, add):
    name = lay.decl.name
    for _, key_cell, values in lay.rows:
        row = A.cell_source(key_cell)
        if lay.shape == "chart":           # a chart row is looked up whole
            add("cells", "table", f"{name}[{row}]", key_cell, key_cell.loc, sec, ["looked up"],
                lay.decl)
            continue
        for (header, _), (_, cell, _) in zip(lay.columns, values):
            at = f"{row}, {A.cell_source(header)}" if lay.shape == "2d" else row
            add("cells", "table", f"{name}[{at}]", cell, cell.loc, sec, ["looked up"], lay.decl)


# ------------------------------------------------------------------ what the traces show
def _seen(node, mark):
    """Walk one trace, calling ``mark(object, way)`` for each way it shows."""
    stack = [node]
    while stack:
        n = stack.pop()
        stack.extend(n.children)
        kind, d = n.kind, n.decl
        if kind == "rule":
            mark(d, "used")
            if isinstance(d, A.RequireDecl) and isinstance(n.value, bool):
                mark(d, "met" if n.value else "violated")
            for decl, how, _ in n.detail.get("considered", ()):
                if how in ("applies", "does not apply"):
                    mark(decl, "applied" if how == "applies" else "not applied")
        elif kind == "check":
            mark(d, "used")
        elif kind == "table":
            mark(n.detail.get("cell"), "looked up")
        elif kind == "modifiers":
            for item, on, _ in n.detail.get("items", ()):
                mark(item, "applied" if on else "not applied")
        elif kind == "requirements":
            for item, ok in n.detail.get("items", ()):
                mark(item, "met" if ok else "violated")
        elif kind == "step":
            if n.detail.get("stopped"):
                mark(d, "stopped")
            elif "stopped" not in n.detail and not n.detail.get("skipped"):
                mark(d, "taken")


def coverage(rulebook) -> Coverage:
    """Run the rulebook's examples with traces and count what they exercised."""
    model = rulebook.model
    items, where = _items(model)

    def mark(obj, way):
        for item in where.get((id(obj), way), ()):
            item.ways[way] = True

    results = rulebook.run_examples(trace=True)
    passed = 0
    for r in results:
        if not r.passed:
            continue
        passed += 1
        for root in r.traces:
            if root is not None:
                _seen(root, mark)
    path = sorted(model.own_files)[0] if model.own_files else model.path
    return Coverage(model.title.text, path, items, passed,
                    [r for r in results if not r.passed])


# ------------------------------------------------------------------ reports
def _shown(percent: float | None, places: int = 1) -> float | None:
    """A percentage rounded, but never up to 100: 99.97% is shown as 99.9%."""
    if percent is None:
        return None
    shown = round(percent, places)
    if shown >= 100 and percent < 100:
        shown = math.floor(percent * 10 ** places) / 10 ** places
    return shown


def _cite(sec) -> str:
    return f"§{sec.cite()}" if sec is not None else "(no section)"


def report_text(cov: Coverage, every_section: bool = False) -> str:
    """The uncovered items section by section (``every_section``: each section with its
    count, fully covered or not), then the totals of each kind."""
    out = [f"coverage of {cov.title} ({cov.path}): {cov.passed} examples passed"
           + (f", {len(cov.failed)} failed and not counted" if cov.failed else "")]
    for r in cov.failed:
        out.append(f"  FAIL  {r.example.name}  ({r.example.loc})")
    by_section: dict = {}
    for item in cov.items:
        by_section.setdefault(id(item.section), (item.section, []))[1].append(item)
    for sec, items in by_section.values():
        missing = [i for i in items if i.missing]
        if every_section:
            seen = sum(sum(i.ways.values()) for i in items)
            total = sum(len(i.ways) for i in items)
            out.append(f"{_cite(sec)}: {seen} of {total} ways seen"
                       + (f", {len(missing)} not fully covered" if missing else ""))
        elif missing:
            out.append(f"{_cite(sec)}: {len(missing)} not fully covered")
        for item in missing:
            out.append(f"  {item.loc}: {item.title}: "
                       + ", ".join(f"never {w}" for w in item.missing))
    out.append(f"{'kind':<14}{'seen':>6}{'of':>6}{'percent':>9}")
    for kind in KINDS:
        seen, total = cov.totals(kind)
        if total:
            out.append(f"{kind:<14}{seen:>6}{total:>6}{_shown(cov.percent(kind)):>8.1f}%")
    seen, total = cov.totals()
    overall = f"{_shown(cov.percent()):>8.1f}%" if total else "  (nothing to cover)"
    out.append(f"{'overall':<14}{seen:>6}{total:>6}{overall}")
    return "\n".join(out)


def report_json(cov: Coverage) -> dict:
    def totals(kind=None):
        seen, total = cov.totals(kind)
        return {"seen": seen, "total": total, "percent": _shown(cov.percent(kind), 2)}

    sections: dict = {}
    for item in cov.items:
        sec = item.section
        entry = sections.setdefault(id(sec), {
            "section": sec.number if sec is not None else None,
            "title": sec.label.text if sec is not None else None,
            "seen": 0, "total": 0, "items": []})
        entry["seen"] += sum(item.ways.values())
        entry["total"] += len(item.ways)
        entry["items"].append({"kind": item.kind, "what": item.what, "name": item.name,
                               "path": item.loc.path,
                               "line": item.loc.line, "col": item.loc.col,
                               "seen": [w for w, s in item.ways.items() if s],
                               "missing": item.missing})
    return {"rulebook": cov.title, "path": cov.path,
            "examples": {"passed": cov.passed, "failed": [
                {"name": r.example.name, "path": r.example.loc.path,
                 "line": r.example.loc.line} for r in cov.failed]},
            "totals": {kind: totals(kind) for kind in KINDS},
            "overall": totals(), "sections": list(sections.values())}


def uncovered_places(cov: Coverage) -> dict:
    """{(path, line, col): [what is missing]} of every item not fully covered — the marks
    of the review pages (``render_site(..., unexercised=...)``).  A step has no place of
    its own on the pages: it is listed at its procedure too."""
    out: dict = {}
    for item in cov.uncovered():
        why = f"{item.title}: " + ", ".join(f"never {w}" for w in item.missing)
        places = [item.loc] + ([item.owner.loc] if item.kind == "steps" else [])
        for loc in places:
            out.setdefault((loc.path, loc.line, loc.col), []).append(why)
    return out


def uncovered_of(rulebook) -> dict:
    """The marks of a rulebook's review pages: ``uncovered_places`` of its coverage; for a
    variant, of its own files by its own examples and of the rest by the base's."""
    places = uncovered_places(coverage(rulebook))
    base = rulebook.base()
    if base is not None:
        own = set(rulebook.model.own_files)
        for key, why in uncovered_places(coverage(base)).items():
            if key[0] not in own:
                places.setdefault(key, why)
    return places


def coverage_command(rulebooks, as_json: bool = False, fail_under: float | None = None,
                     every_section: bool = False) -> int:
    """``drillbook coverage``: report each rulebook; 1 if an example fails or a rulebook's
    overall coverage is under ``fail_under`` percent, else 0."""
    import json
    import sys
    from .schema import SCHEMA_VERSION
    covs = [coverage(rb) for rb in rulebooks]
    if as_json:
        print(json.dumps({"schema_version": SCHEMA_VERSION,
                          "rulebooks": [report_json(c) for c in covs]},
                         ensure_ascii=False, indent=2))
    else:
        print("\n\n".join(report_text(c, every_section) for c in covs))
    status = 0
    for c in covs:
        if c.failed:
            print(f"drillbook: {len(c.failed)} examples of {c.path} fail; run drillbook test",
                  file=sys.stderr)
            status = 1
        if fail_under is not None and c.percent() is not None and c.percent() < fail_under:
            print(f"drillbook: coverage of {c.path} is {_shown(c.percent())}%, under "
                  f"--fail-under {fail_under:g}", file=sys.stderr)
            status = 1
    return status
