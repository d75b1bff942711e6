"""Coverage marks on the review pages, in a real headless browser (as tests/test_browser.py).

`drillbook render` runs the examples and marks what they never exercise: the site of
tests/good/coverage.drill (whose coverage tests/test_coverage.py counts way by way) must
show each uncovered cell, modifier and declaration outlined, with what was never seen, and
nothing else marked.  Without Playwright or Chromium the tests skip, but fail under CI.
"""
from __future__ import annotations

import pytest

from conftest import TESTS, run_cli
from test_browser import ARTIFACTS, _url, browser, watched  # noqa: F401 (fixtures)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("coverage-site") / "site"
    res = run_cli("render", "good/coverage.drill", "-o", str(out), cwd=TESTS)
    assert res.rc == 0, res.err
    return out


def _classes(locator) -> list[str]:
    return (locator.get_attribute("class") or "").split()


def test_uncovered_cells_are_outlined_with_what_was_never_seen(site, watched):
    page = watched.page
    page.goto(_url(site / "coverage.html", "d-step_back"), wait_until="load")
    chart = 'table.chart[data-table="step_back"]'
    for row, marked in (("Steady", False), ("Shaken", True), ("Broken", True)):
        cell = page.locator(f'{chart} tr[data-row="{row}"] td')
        assert ("unexercised" in _classes(cell)) == marked, row
        outline = cell.evaluate("el => getComputedStyle(el).outlineStyle")
        assert (outline == "dashed") == marked, (row, outline)
        if marked:
            assert cell.get_attribute("title") == f"table step_back[{row}]: never looked up"
            assert cell.is_visible()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "screenshot-coverage.png"), full_page=True)
    assert watched.problems == []


def test_uncovered_modifiers_and_declarations_are_marked(site, watched):
    page = watched.page
    page.goto(_url(site / "coverage.html"), wait_until="load")
    horse = page.locator('[id="m-morale_drm-horse"]')
    assert "unexercised" in _classes(horse)
    assert horse.get_attribute("title") == "modifier morale_drm.horse: never applied"
    assert "unexercised" not in _classes(page.locator('[id="m-morale_drm-hits"]'))
    marked = {}
    for art in page.locator("article.decl").all():
        note = art.locator("p.unexercised")
        if note.count():
            marked[art.get_attribute("id")] = " ".join(note.inner_text().split())
    assert marked == {
        "d-broken": "not exercised by any example exception broken: never applied",
        "d-unused": "not exercised by any example rule unused: never used",
        "d-unhurt": "not exercised by any example requirement unhurt: never violated",
        "d-charge": "not exercised by any example stop charge.refused: never stopped",
    }
    note = page.locator('[id="d-broken"] p.unexercised')
    assert note.is_visible()
    assert watched.problems == []
