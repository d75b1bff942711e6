"""`drillbook coverage`: what the examples exercise, counted on a small rulebook whose
examples are known way by way (tests/good/coverage.drill), the command's text, JSON and
exit codes, and — for CI — every bundled rulebook at 100%."""
from __future__ import annotations

import json
import os

import pytest

from conftest import ROOT, TESTS, assert_located, assert_no_traceback, run_cli
from drillbook.coverage import KINDS, coverage, uncovered_places
from drillbook.schema import SCHEMA_VERSION
from drillbook.evaluate import Rulebook

SMALL = "good/coverage.drill"

# What the three examples of tests/good/coverage.drill leave unseen, item by item.
SMALL_MISSING = {
    ("exceptions", "exception broken"): ["applied"],
    ("modifiers", "modifier morale_drm.horse"): ["applied"],
    ("rules", "rule unused"): ["used"],
    ("requirements", "requirement unhurt"): ["violated"],
    ("cells", "table step_back[Shaken]"): ["looked up"],
    ("cells", "table step_back[Broken]"): ["looked up"],
    ("steps", "stop charge.refused"): ["stopped"],
}
SMALL_TOTALS = {"rules": (2, 3), "exceptions": (3, 4), "modifiers": (2, 3),
                "requirements": (3, 4), "cells": (1, 3), "steps": (2, 3)}


@pytest.fixture(scope="module")
def small():
    return coverage(Rulebook.open(str(TESTS / SMALL)))


def test_small_rulebook_counts_every_way(small):
    assert small.passed == 3 and not small.failed
    missing = {(i.kind, i.title): i.missing for i in small.uncovered()}
    assert missing == SMALL_MISSING
    assert {k: small.totals(k) for k in KINDS} == SMALL_TOTALS
    assert small.totals() == (13, 20)
    assert small.percent() == 65.0


def test_small_rulebook_sees_both_ways_where_examples_show_them(small):
    seen = {i.title: [w for w, s in i.ways.items() if s] for i in small.items}
    assert seen["exception shaken"] == ["applied", "not applied"]
    assert seen["requirement steady"] == ["met", "violated"]
    assert seen["modifier morale_drm.hits"] == ["applied"]     # no 'when': one way only
    assert seen["check morale_check"] == ["used"]
    assert seen["step charge.test"] == ["taken"]
    assert seen["table step_back[Steady]"] == ["looked up"]


def test_uncovered_locations_point_at_the_declarations(small):
    lines = (TESTS / SMALL).read_text(encoding="utf-8").splitlines()
    places = uncovered_places(small)
    [path] = {path for path, _, _ in places}            # as the model writes it
    assert os.path.samefile(path, TESTS / SMALL)
    assert places[(path, 21, 3)] == ["exception broken: never applied"]
    at = {(line, col): lines[line - 1][col - 1:] for _, line, col in places}
    assert at == {(21, 3): "exception broken to morale_value \"Broken: 1\" when u.morale == Broken = 1",
                  (25, 5): 'horse: 1 when u.arm == Horse "horse"',
                  (29, 3): "define unused(u: Unit) -> Int = 0",
                  (34, 3): 'require unhurt of may_charge "no hits" = u.hits == 0',
                  (39, 16): "Broken |",             # the cell, in the row of Shaken
                  (40, 16): "Broken |",
                  (43, 10): 'refused "a unit that may not charge stays" when may_charge(u).refused',
                  (42, 3): 'procedure charge(u: Unit) "the charge"'}      # a step, at its procedure too
    assert places[(path, 42, 3)] == ["stop charge.refused: never stopped"]


def test_failing_examples_are_not_counted(book):
    path = book.write("r.drill", """\
        section 1 "One"
          define a() -> Int = 1
          define b() -> Int = 2

          example "a is one"
            expect a() == 1

          example "b is wrongly three"
            expect b() == 3
        """)
    res = book.run("coverage", path)
    assert_no_traceback(res)
    assert res.rc == 1
    assert "1 examples passed, 1 failed and not counted" in res.out
    assert "r.drill:5:3: rule b: never used" in res.out
    assert "examples of r.drill fail" in res.err


def test_text_report(small):
    res = run_cli("coverage", SMALL, cwd=TESTS)
    assert_no_traceback(res)
    assert res.rc == 0, res.err
    out = res.out.splitlines()
    assert out[0] == "coverage of Coverage (good/coverage.drill): 3 examples passed"
    assert "§1 Morale: 3 not fully covered" in out
    assert "  good/coverage.drill:25:5: modifier morale_drm.horse: never applied" in out
    assert "  good/coverage.drill:43:10: stop charge.refused: never stopped" in out
    assert out[-1].split() == ["overall", "13", "20", "65.0%"]
    assert "cells" in res.out and "33.3%" in res.out


def test_verbose_lists_every_section(small):
    res = run_cli("coverage", "-v", SMALL, cwd=TESTS)
    assert res.rc == 0, res.err
    assert "§1 Morale: 7 of 10 ways seen, 3 not fully covered" in res.out.splitlines()
    assert "§2 Charges: 6 of 10 ways seen, 4 not fully covered" in res.out.splitlines()
    assert "§3" not in res.out                     # examples only: nothing to count there
    quiet = run_cli("coverage", SMALL, cwd=TESTS).out
    assert "ways seen" not in quiet and len(quiet.splitlines()) == len(res.out.splitlines())


def test_json_report():
    res = run_cli("coverage", SMALL, "--json", cwd=TESTS)
    assert_no_traceback(res)
    assert res.rc == 0, res.err
    data = json.loads(res.out)
    assert data["schema_version"] == SCHEMA_VERSION == 1
    [rb] = data["rulebooks"]
    assert rb["rulebook"] == "Coverage" and rb["path"] == SMALL
    assert rb["examples"] == {"passed": 3, "failed": []}
    assert rb["overall"] == {"seen": 13, "total": 20, "percent": 65.0}
    assert rb["totals"]["cells"] == {"seen": 1, "total": 3, "percent": 33.33}
    assert [s["section"] for s in rb["sections"]] == ["1", "2"]
    assert sum(s["total"] for s in rb["sections"]) == 20
    horse = next(i for s in rb["sections"] for i in s["items"] if i["name"] == "morale_drm.horse")
    assert horse == {"kind": "modifiers", "what": "modifier", "name": "morale_drm.horse",
                     "path": SMALL, "line": 25, "col": 5, "seen": ["not applied"],
                     "missing": ["applied"]}


def test_fail_under():
    assert run_cli("coverage", SMALL, "--fail-under", "65", cwd=TESTS).rc == 0
    res = run_cli("coverage", SMALL, "--fail-under", "65.5", cwd=TESTS)
    assert res.rc == 1
    assert "coverage of good/coverage.drill is 65.0%, under --fail-under 65.5" in res.err


@pytest.mark.parametrize("value", ["101", "-1", "nan", "lots"])
def test_fail_under_takes_a_percentage(value):
    res = run_cli("coverage", SMALL, "--fail-under", value, cwd=TESTS)
    assert_located(res, "E800", "--fail-under", rc=2, path="<command line>")


def test_several_rulebooks_and_a_variant():
    variant = "rulebooks/musket-and-pike/variants/harder-rally.drill"
    res = run_cli("coverage", "tests/" + SMALL, variant, "--json", cwd=ROOT)
    assert res.rc == 0, res.err
    books = json.loads(res.out)["rulebooks"]
    assert [b["path"] for b in books] == ["tests/" + SMALL, variant]
    # a variant answers for its own files: its own examples, what its own files declare
    items = [i for s in books[1]["sections"] for i in s["items"]]
    assert items and all(i["path"] == variant for i in items)
    assert books[1]["examples"]["passed"] == 1


def test_an_unknown_rulebook_is_located():
    res = run_cli("coverage", "no-such-rulebook", cwd=TESTS)
    assert_no_traceback(res)
    assert res.rc in (1, 2) and "error[" in res.err


# ------------------------------------------------------------------ CI: every bundled rulebook
# Issue 10 asks for 100% coverage of every bundled rulebook; `.ci/run` fails when one drops
# below.  A rulebook that may not reach 100% for a while can be listed here, with the reason,
# and is then expected to fail — strictly: once it reaches 100%, its entry must go.
NOT_YET_FULL: dict[str, str] = {}
BUNDLED = sorted(p.name for p in (ROOT / "rulebooks").iterdir() if (p / "rulebook.drill").is_file())


def test_every_bundled_rulebook_is_listed():
    assert {"musket-and-pike", "general-de-brigade", "by-fire-and-sword"} <= set(BUNDLED)
    assert set(NOT_YET_FULL) <= set(BUNDLED)


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=pytest.mark.xfail(reason=NOT_YET_FULL[n], strict=True))
    if n in NOT_YET_FULL else n for n in BUNDLED])
def test_bundled_rulebook_is_fully_covered(name):
    res = run_cli("coverage", f"rulebooks/{name}", "--fail-under", "100", cwd=ROOT)
    assert_no_traceback(res)
    assert res.rc == 0, res.out + res.err


def test_json_report_follows_its_schema(tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((ROOT / "docs" / "schemas" / "coverage.schema.json").read_text())
    variant = tmp_path / "drops-only.drill"
    base = (ROOT / "rulebooks" / "by-fire-and-sword" / "rulebook.drill").as_posix()
    variant.write_text(f'variant "Drops one rule" of "{base}"\n\ndrop wagons_never_disorganized\n',
                       encoding="utf-8")
    res = run_cli("coverage", "tests/" + SMALL, "rulebooks/general-de-brigade", variant,
                  "--json", cwd=ROOT)
    data = json.loads(res.out)
    jsonschema.validate(data, schema)
    assert data["rulebooks"][2]["overall"]["percent"] is None      # a variant that only drops
    data["rulebooks"][0]["sections"][0]["items"][0]["missing"] = ["forgotten"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(data, schema)
