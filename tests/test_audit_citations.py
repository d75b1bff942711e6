"""The audits in docs/sources/*-coverage.md cannot go stale: every citation written as

    `rulebooks/GAME/FILE.drill:LINE NAME`

must name a line of that file that declares NAME, read from the parsed rulebook (not from
the text): a section (``section 12.5``, ``12.5`` or ``section``), a rule, exception, table,
modifier list, check, list of requirements, requirement, procedure, record, enum or scale,
die, option or marker by its name; a modifier, procedure step, record field or enum member
by its name or as ``LIST.NAME``; a table row by its key as printed (``MakeReady``, ``4-5``);
a table cell or chart row as ``drillbook coverage`` names it (``to_hit[Foot, Short]``,
``damage[4-5]``); an example by its title, bare or in double quotes; or, when NAME is
``gap``, ``doubt``, ``note``, ``source`` or ``numbered``, a line holding that annotation.
A citation under ``variants/`` is read in that variant.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from conftest import ROOT
from drillbook import ast as A
from drillbook.coverage import _items
from drillbook.errors import DrillError
from drillbook.evaluate import Rulebook

SOURCES = ROOT / "docs" / "sources"
AUDITED = ("musket-and-pike", "general-de-brigade", "by-fire-and-sword")
ANNOTATIONS = ("gap", "doubt", "note", "source", "numbered")
CITATION = re.compile(r"`([\w./-]+\.drill):(\d+) ([^`]+)`")


def _rel(path: str, root: Path) -> str:
    return Path(os.path.relpath(os.path.realpath(path), root)).as_posix()


def declared(model, root: Path) -> dict:
    """{(file relative to root, line): {names declared on that line}} of a checked model."""
    out: dict = {}

    def put(loc, *names):
        out.setdefault((_rel(loc.path, root), loc.line), set()).update(names)

    for sec, note in model.annotations():
        put(note.loc, note.kind)
    for sec in model.sections:
        put(sec.loc, f"section {sec.number}", sec.number, "section")
        for d in sec.items:
            if isinstance(d, A.ExampleDecl):
                put(d.loc, d.name, f'"{d.name}"')
                continue
            for row in d.rows[1:] if isinstance(d, A.TableDecl) else []:
                if row.cells:
                    put(row.loc, A.cell_source(row.cells[0]), str(row.cells[0].value))
            put(d.loc, d.name)
            parts = (getattr(d, "members", None) or getattr(d, "fields", None)
                     or getattr(d, "items", None) or getattr(d, "steps", None) or [])
            for p in parts if not isinstance(d, A.TableDecl) else []:
                put(p.loc, p.name, f"{d.name}.{p.name}")
    for item in _items(model)[0]:
        put(item.loc, item.name)
    return out


def citations(text: str):
    """(line of the Markdown file, path, line, NAME) of every citation in ``text``."""
    for n, line in enumerate(text.splitlines(), 1):
        for m in CITATION.finditer(line):
            yield n, m.group(1), int(m.group(2)), m.group(3).strip()


def stale(md: Path, root: Path) -> list[str]:
    """Every citation of ``md`` that does not hold, as 'md:line: why'."""
    models: dict = {}
    problems = []
    for n, path, line, name in citations(md.read_text(encoding="utf-8")):
        where = f"{md.name}:{n}: `{path}:{line} {name}`"
        file = root / path
        if not file.is_file():
            problems.append(f"{where}: no such file")
            continue
        count = len(file.read_text(encoding="utf-8").splitlines())
        if not 1 <= line <= count:
            problems.append(f"{where}: the file has {count} lines")
            continue
        parts = Path(path).parts
        if "variants" in parts:
            book = path
        else:
            book = str(Path(*parts[:2])) if parts[0] == "rulebooks" else path
        if book not in models:
            try:
                models[book] = declared(Rulebook.open(str(root / book)).model, root)
            except DrillError as e:
                models[book] = None
                problems.append(f"{where}: {book} does not check:\n{e.render()}")
        if models[book] is None:
            continue
        names = models[book].get((path, line), set())
        text = file.read_text(encoding="utf-8").splitlines()[line - 1].strip()
        if name in ANNOTATIONS and text.startswith(f'{name} "'):
            continue          # an annotation the model keeps nowhere it is listed
        if name not in names:
            elsewhere = sorted(ln for (f, ln), there in models[book].items()
                               if f == path and name in there)
            problems.append(f"{where}: that line declares "
                            + (", ".join(sorted(names)) if names else "nothing")
                            + (f" ({name} is on line {', '.join(map(str, elsewhere[:5]))})"
                               if elsewhere else ""))
    return problems


# ------------------------------------------------------------------ the checker itself
def test_checker_accepts_true_citations_and_finds_stale_ones(tmp_path):
    md = tmp_path / "x-coverage.md"
    good = ["`tests/good/coverage.drill:21 broken`",            # an exception
            "`tests/good/coverage.drill:25 morale_drm.horse`",  # a modifier
            "`tests/good/coverage.drill:25 horse`",
            "`tests/good/coverage.drill:39 step_back[Shaken]`",  # a cell
            "`tests/good/coverage.drill:5 section 1`",
            "`tests/good/coverage.drill:5 1`",
            "`tests/good/coverage.drill:5 section`",
            "`tests/good/coverage.drill:40 Broken`",            # a row by its key
            "`tests/good/coverage.drill:43 charge.refused`",    # a stop step
            "`tests/good/coverage.drill:48 a steady foot unit charges, passes and tires`",
            '`tests/good/coverage.drill:48 "a steady foot unit charges, passes and tires"`',
            "`tests/good/labels.drill:4 note`", "`tests/good/labels.drill:7 source`"]
    bad = ["`tests/good/coverage.drill:22 broken`",             # the line moved
           "`tests/good/coverage.drill:21 shaken`",             # another name
           "`tests/good/coverage.drill:21 gap`",                # not a gap line
           "`tests/good/labels.drill:4 source`",                # a note, not a source
           "`tests/good/coverage.drill:6 section`",             # no section starts there
           "`tests/good/coverage.drill:9999 broken`",           # past the end
           "`tests/good/nowhere.drill:1 x`"]
    md.write_text("| rule | where |\n" + "".join(f"| s | {c} |\n" for c in good + bad),
                  encoding="utf-8")
    problems = stale(md, ROOT)
    assert len(problems) == len(bad), "\n".join(problems)
    for p, c in zip(problems, bad):
        assert c in p
    assert "that line declares shaken" in problems[0] or "declares nothing" in problems[0]
    assert "the file has" in problems[-2] and "no such file" in problems[-1]


def test_checker_reads_gap_and_doubt_lines():
    model = Rulebook.open(str(ROOT / "rulebooks" / "musket-and-pike")).model
    index = declared(model, ROOT)
    notes = [(sec, n) for sec, n in model.annotations() if n.kind in ("gap", "doubt")]
    assert notes
    for _, note in notes:
        assert note.kind in index[(_rel(note.loc.path, ROOT), note.loc.line)]


# ------------------------------------------------------------------ the audits
@pytest.mark.parametrize("name", AUDITED)
def test_audit_exists_and_cites(name):
    path = SOURCES / f"{name}-coverage.md"
    assert path.is_file(), f"{path.relative_to(ROOT)} is missing: issue 10 asks for it"
    found = list(citations(path.read_text(encoding="utf-8")))
    assert len(found) >= 50, f"{path.name} cites only {len(found)} `rulebooks/…/x.drill:LINE NAME`"


@pytest.mark.parametrize("path", sorted(SOURCES.glob("*-coverage.md")), ids=lambda p: p.name)
def test_every_citation_of_an_audit_holds(path):
    problems = stale(path, ROOT)
    assert not problems, "\n".join(problems)
