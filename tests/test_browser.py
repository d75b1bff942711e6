"""The review site in a real headless browser (Debian's chromium, driven by Playwright).

The site of the Musket & Pike rulebook with the harder-rally variant is rendered, loaded
from file://, and must show no console error at a desktop width (1400 px) and a phone's
(390 px); show the Order Change Table cell 0-5 in the Make Ready row; navigate when a
section link and a cross-reference are clicked; find a Russian label by the search box
and go to it; put the redline's base and variant side by side on a wide screen and one
above the other on a phone, with the changed cell on screen; and keep wide tables
scrolling inside their own box, so that no page is wider than the phone.  Screenshots
go to artifacts/ (CI keeps them).

Needs the Python package ``playwright`` (its bundled driver only; no browser is ever
downloaded) and the Debian package ``chromium``.  Without them the tests skip here, but
fail under CI (CI=true), where .ci/run installs both.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from drillbook.diff import semantic_diff
from drillbook.evaluate import Rulebook
from drillbook.render import render_site

ROOT = Path(__file__).resolve().parent.parent
MP = ROOT / "rulebooks" / "musket-and-pike"
VARIANT = MP / "variants" / "harder-rally.drill"
ARTIFACTS = ROOT / "artifacts"
WIDTHS = {"desktop": 1400, "phone": 390}

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]


def _chromium() -> str | None:
    for candidate in (os.environ.get("DRILLBOOK_CHROMIUM"), "/usr/bin/chromium",
                      shutil.which("chromium"), shutil.which("chromium-browser")):
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def _missing(reason: str):
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason} — CI must install it (see .ci/run)", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("the Python package 'playwright' is not installed (pip install playwright)")
    executable = _chromium()
    if executable is None:
        _missing("Chromium is not installed (apt-get install chromium)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS, timeout=60_000)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("browser") / "site"
    variant = Rulebook.open(str(VARIANT))
    render_site(variant.model.base, str(out), variant_model=variant.model,
                diff=semantic_diff(variant))
    return out


class Watched:
    """A page whose console errors, uncaught exceptions and failed loads are recorded."""

    def __init__(self, browser, width: int = 1280):
        height = 844 if width < 600 else 900
        self.context = browser.new_context(viewport={"width": width, "height": height})
        self.page = self.context.new_page()
        self.problems: list[str] = []
        self.page.on("console", lambda m: self.problems.append(f"console {m.type}: {m.text}")
                     if m.type in ("error", "warning") else None)
        self.page.on("pageerror", lambda e: self.problems.append(f"page error: {e}"))
        self.page.on("requestfailed",
                     lambda r: self.problems.append(f"failed to load {r.url}: {r.failure}"))

    def close(self):
        self.context.close()


@pytest.fixture
def watched(browser):
    w = Watched(browser)
    yield w
    w.close()


@pytest.fixture(params=list(WIDTHS), ids=list(WIDTHS))
def sized(browser, request):
    """A watched page at a desktop's width and at a phone's."""
    w = Watched(browser, WIDTHS[request.param])
    w.name = request.param
    yield w
    w.close()


def _shot(page, name: str, full_page: bool = False) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / f"screenshot-{name}.png"
    page.screenshot(path=str(shot), full_page=full_page)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    return shot


def _url(path: Path, fragment: str = "") -> str:
    return path.resolve().as_uri() + (f"#{fragment}" if fragment else "")


def _in_viewport(page, selector: str) -> bool:
    return page.eval_on_selector(selector, """el => {
        const r = el.getBoundingClientRect();
        return r.bottom > 0 && r.top < window.innerHeight && Math.abs(r.top) < 40;
    }""")


def test_index_loads_without_console_errors_and_leaves_a_screenshot(site, watched):
    page = watched.page
    page.goto(_url(site / "index.html"), wait_until="load")
    assert page.title() == "Musket & Pike"
    assert page.locator("h1").inner_text() == "Musket & Pike"
    sections = len(Rulebook.open(str(ROOT / "rulebooks" / "musket-and-pike")).model.sections)
    assert page.locator("a.toc-link").count() == sections
    # the stylesheets were applied: the header bar is dark, code is highlighted
    color = page.eval_on_selector("header.site", "el => getComputedStyle(el).backgroundColor")
    assert color == "rgb(43, 58, 74)"
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "screenshot-index.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert watched.problems == []


def test_a_section_link_navigates_to_the_chart(site, watched):
    page = watched.page
    page.goto(_url(site / "index.html"), wait_until="load")
    page.click('a.toc-link[href="orders.html#s-5.7"]')
    page.wait_for_url("**/orders.html#s-5.7")
    assert page.url.endswith("orders.html#s-5.7")
    assert _in_viewport(page, '[id="s-5.7"]')
    cell = page.locator('table.chart[data-table="order_change"] '
                        'tr[data-row="MakeReady"] td[data-col="Charge"]')
    assert cell.inner_text().strip() == "0-5"
    row = page.locator('table.chart[data-table="order_change"] tr[data-row="MakeReady"]')
    assert row.locator("th").inner_text().strip() == "Make Ready"
    assert cell.is_visible()
    # the chart is drawn as a table: the cell lies right of its row's key and below the header
    key_box = row.locator("th").bounding_box()
    cell_box = cell.bounding_box()
    head_box = page.locator('table.chart[data-table="order_change"] thead').bounding_box()
    assert cell_box["x"] > key_box["x"] and cell_box["y"] >= head_box["y"] + head_box["height"] - 1
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "screenshot-order-change.png"))
    assert watched.problems == []


def test_a_cross_reference_navigates_to_the_rule_it_names(site, watched):
    page = watched.page
    page.goto(_url(site / "rally.html", "d-may_rally"), wait_until="load")
    assert _in_viewport(page, '[id="d-may_rally"]')
    link = page.locator('[id="d-may_rally"] a.xref[title="order_allows"]').first
    link.click()
    page.wait_for_url("**/orders.html#d-order_allows")
    assert _in_viewport(page, '[id="d-order_allows"]')
    # within the page too
    page.locator('[id="d-order_change_roll"] a.xref[title="order_change"]').first.click()
    page.wait_for_url("**/orders.html#d-order_change")
    assert _in_viewport(page, '[id="d-order_change"]')
    assert watched.problems == []


def test_the_redline_marks_the_changed_cell(site, watched):
    page = watched.page
    page.goto(_url(site / "redline.html"), wait_until="load")
    cell = page.locator('.side.variant table.chart[data-table="order_change"] '
                        'tr[data-row="Charge"] td[data-col="Rally"]')
    assert "changed" in cell.get_attribute("class").split()
    assert " ".join(cell.inner_text().split()) == "0-5 → 0-4"
    decoration = cell.locator("del").evaluate("el => getComputedStyle(el).textDecorationLine")
    assert "line-through" in decoration
    base = page.locator(".side.base").first.bounding_box()
    variant = page.locator(".side.variant").first.bounding_box()
    assert variant["x"] > base["x"] + base["width"] / 2      # side by side
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "screenshot-redline.png"))
    assert watched.problems == []


def _page_width(page) -> int:
    return page.evaluate("() => document.documentElement.scrollWidth")


def test_every_page_loads_without_errors_and_fits_the_screen(site, sized):
    page = sized.page
    width = WIDTHS[sized.name]
    for html in sorted(site.glob("*.html")):
        page.goto(_url(html), wait_until="load")
        assert page.locator("main").count() == 1, html.name
        # the search script ran: the search box shows
        assert page.locator("#search-input").is_visible(), html.name
        # nothing makes the page wider than the screen: wide tables scroll in their box
        assert _page_width(page) <= width, f"{html.name} is {_page_width(page)} px wide"
    page.goto(_url(site / "index.html"), wait_until="load")
    _shot(page, f"index-{sized.name}", full_page=True)
    assert sized.problems == []


def test_search_finds_a_russian_label_and_goes_to_it(site, sized):
    page = sized.page
    page.goto(_url(site / "index.html"), wait_until="load")
    page.fill("#search-input", "Готовность")          # the Russian label of Make Ready
    first = page.locator("#search-results a").first
    first.wait_for(state="visible")
    assert "Make Ready" in first.inner_text()
    assert first.get_attribute("href") == "orders.html#d-Order"
    count = page.locator("#search-results li.count").inner_text()
    assert count.endswith(" found") and int(count.split()[0]) >= 2
    box = first.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= WIDTHS[sized.name] + 1
    _shot(page, f"search-{sized.name}")
    page.press("#search-input", "ArrowDown")             # the keyboard walks the results
    assert page.evaluate("() => document.activeElement.getAttribute('href')") == \
        "orders.html#d-Order"
    page.keyboard.press("ArrowDown")
    second = page.locator("#search-results a").nth(1).get_attribute("href")
    assert page.evaluate("() => document.activeElement.getAttribute('href')") == second
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowUp")
    assert page.evaluate("() => document.activeElement.id") == "search-input"
    page.press("#search-input", "Enter")
    page.wait_for_url("**/orders.html#d-Order")
    assert _in_viewport(page, '[id="d-Order"]')
    # a table cell, by its row's and column's Russian labels and its text
    page.fill("#search-input", "Готовность Атаковать 0-5")
    hits = page.locator("#search-results a.result-cell")
    hits.first.wait_for(state="visible")
    assert any("Make Ready × Charge = 0-5" in t for t in hits.all_inner_texts())
    # a section by its Russian title, ё or е alike
    page.fill("#search-input", "таблица изменения приказов")
    section = page.locator("#search-results a.result-section").first
    section.wait_for(state="visible")
    assert section.get_attribute("href") == "orders.html#s-5.7"
    # a search given in the address
    page.goto(_url(site / "rally.html") + "?q=Сбор", wait_until="load")
    page.locator("#search-results a").first.wait_for(state="visible")
    assert page.input_value("#search-input") == "Сбор"
    assert sized.problems == []


def test_the_redline_is_side_by_side_on_a_desktop_and_stacked_on_a_phone(site, sized):
    page = sized.page
    width = WIDTHS[sized.name]
    page.goto(_url(site / "redline.html"), wait_until="load")
    assert "House rule: charges are hard to call off" in page.locator("h1").inner_text()
    base = page.locator(".change-row .side.base").first.bounding_box()
    variant = page.locator(".change-row .side.variant").first.bounding_box()
    if width >= 1000:
        assert variant["x"] > base["x"] + base["width"] / 2            # side by side
        assert not page.locator(".side-label").first.is_visible()
    else:
        assert variant["y"] >= base["y"] + base["height"] - 1          # stacked
        assert abs(variant["x"] - base["x"]) < 2
        assert page.locator(".side.variant .side-label").first.is_visible()
    cell = page.locator('.side.variant table.chart[data-table="order_change"] '
                        'tr[data-row="Charge"] td[data-col="Rally"]')
    cell.scroll_into_view_if_needed()
    box = cell.bounding_box()
    assert 0 <= box["x"] and box["x"] + box["width"] <= width, "the changed cell is on screen"
    # the odds that change are shown
    assert page.locator("table.odds tr.differs").count() >= 1
    assert _page_width(page) <= width
    _shot(page, f"redline-{sized.name}")
    assert sized.problems == []


def test_wide_tables_scroll_inside_their_box_on_a_phone(site, sized):
    page = sized.page
    width = WIDTHS[sized.name]
    page.goto(_url(site / "terrain.html", "d-hex_chart"), wait_until="load")
    wrap = page.locator('[id="d-hex_chart"] .chart-wrap')
    overflow = wrap.evaluate("el => getComputedStyle(el).overflowX")
    assert overflow == "auto"
    inner, outer = wrap.evaluate("el => [el.scrollWidth, el.clientWidth]")
    assert outer <= width
    if width < 600:
        assert inner > outer, "the chart is wider than a phone: it scrolls in its box"
        wrap.evaluate("el => { el.scrollLeft = el.scrollWidth; }")
        assert wrap.evaluate("el => el.scrollLeft") > 0
    assert _page_width(page) <= width
    wrap.evaluate("el => { el.scrollLeft = 0; }")
    wrap.scroll_into_view_if_needed()
    _shot(page, f"terrain-chart-{sized.name}")
    # modifier lists stay inside the screen
    page.goto(_url(site / "orders.html", "d-order_change_drm"), wait_until="load")
    for box in page.locator("table.modifiers").evaluate_all(
            "els => els.map(e => e.getBoundingClientRect().right)"):
        assert box <= width + 1
    assert _page_width(page) <= width
    _shot(page, f"modifiers-{sized.name}")
    assert sized.problems == []


def test_a_doubtful_cell_is_flagged_on_the_cell(site, sized):
    page = sized.page
    page.goto(_url(site / "orders.html", "d-order_restrictions"), wait_until="load")
    flagged = page.locator('table.chart[data-table="order_restrictions"] td.doubt')
    assert flagged.count() >= 1
    flag = flagged.first.locator(".cell-flag")
    assert flag.get_attribute("title").startswith("doubt: ")
    flagged.first.scroll_into_view_if_needed()
    assert flag.is_visible()
    _shot(page, f"cell-doubt-{sized.name}")
    assert sized.problems == []
