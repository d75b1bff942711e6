"""drillbook render: the review site of a rulebook — index, sections with anchors, charts
drawn as printed, cross-references that resolve, labels in the chosen language, a redline
for a variant, and atomic writing."""
from __future__ import annotations

import os
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from drillbook import ast as A
from drillbook import render
from drillbook.render import pages as _pages  # noqa: F401  (render.pages is patched below)
from drillbook.errors import DrillError
from drillbook.evaluate import Rulebook
from drillbook.render import SITE_MARKER, render_site

ROOT = Path(__file__).resolve().parent.parent
MP = ROOT / "rulebooks" / "musket-and-pike"
VARIANT = MP / "variants" / "harder-rally.drill"


# ------------------------------------------------------------------ a small DOM
VOID = {"meta", "link", "br", "hr", "img", "input", "col", "area", "base", "wbr", "source"}


class Node:
    def __init__(self, tag, attrs, parent=None):
        self.tag = tag
        self.attrs = dict(attrs)
        self.parent = parent
        self.children: list = []

    @property
    def classes(self) -> set:
        return set((self.attrs.get("class") or "").split())

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def iter(self):
        yield self
        for c in self.children:
            if isinstance(c, Node):
                yield from c.iter()

    def find_all(self, tag=None, cls=None, **attrs):
        for n in self.iter():
            if tag and n.tag != tag:
                continue
            if cls and cls not in n.classes:
                continue
            if any(n.attrs.get(k.replace("_", "-")) != v for k, v in attrs.items()):
                continue
            yield n

    def find(self, tag=None, cls=None, **attrs):
        return next(self.find_all(tag, cls, **attrs), None)

    def by_id(self, ident):
        return next((n for n in self.iter() if n.attrs.get("id") == ident), None)


class _Builder(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {})
        self.cur = self.root
        self.errors: list[str] = []

    def handle_starttag(self, tag, attrs):
        node = Node(tag, attrs, self.cur)
        self.cur.children.append(node)
        if tag not in VOID:
            self.cur = node

    def handle_startendtag(self, tag, attrs):
        self.cur.children.append(Node(tag, attrs, self.cur))

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        n = self.cur
        while n is not None and n.tag != tag:
            n = n.parent
        if n is None:
            self.errors.append(f"</{tag}> closes nothing")
            return
        if n is not self.cur:
            self.errors.append(f"</{tag}> closes <{self.cur.tag}> too")
        self.cur = n.parent

    def handle_data(self, data):
        self.cur.children.append(data)


def dom(path: Path) -> Node:
    b = _Builder()
    b.feed(path.read_text(encoding="utf-8"))
    b.close()
    assert not b.errors, f"{path.name}: {b.errors[:5]}"
    assert b.cur is b.root, f"{path.name}: <{b.cur.tag}> is never closed"
    return b.root


def squash(s: str) -> str:
    return re.sub(r"\s+", " ", s).strip()


# ------------------------------------------------------------------ fixtures
@pytest.fixture(scope="module")
def mp():
    return Rulebook.open(str(MP)).model


@pytest.fixture(scope="module")
def site(mp, tmp_path_factory):
    out = tmp_path_factory.mktemp("site") / "out"
    written = render_site(mp, str(out))
    return out, written


@pytest.fixture(scope="module")
def site_ru(mp, tmp_path_factory):
    out = tmp_path_factory.mktemp("site-ru") / "out"
    render_site(mp, str(out), lang="ru")
    return out


@pytest.fixture(scope="module")
def variant():
    return Rulebook.open(str(VARIANT)).model


@pytest.fixture(scope="module")
def site_variant(variant, tmp_path_factory):
    out = tmp_path_factory.mktemp("site-variant") / "out"
    render_site(variant.base, str(out), variant_model=variant)
    return out


def chart_cell(page: Node, table: str, row: str, col: str) -> Node:
    chart = page.find("table", cls="chart", data_table=table)
    assert chart is not None, f"no chart of {table}"
    tr = chart.find("tr", data_row=row)
    assert tr is not None, f"{table} has no row {row}"
    td = tr.find("td", data_col=col)
    assert td is not None, f"{table} row {row} has no column {col}"
    return td


# ------------------------------------------------------------------ the site
def test_index_and_pages_are_written(site, mp):
    out, written = site
    assert (out / "index.html").is_file()
    assert (out / "style.css").is_file() and (out / "pygments.css").is_file()
    assert ".highlight" in (out / "pygments.css").read_text(encoding="utf-8")
    for f in written:
        assert Path(f).is_file(), f
    pages = {p.name for p in out.glob("*.html")}
    assert {"index.html", "orders.html", "vocabulary.html", "rally.html"} <= pages
    assert "redline.html" not in pages


def test_every_page_is_utf8_html_with_only_the_sites_own_scripts(site):
    out, _ = site
    for page in out.glob("*.html"):
        raw = page.read_bytes()
        text = raw.decode("utf-8")            # strict: valid UTF-8 or an exception
        assert text.startswith("<!DOCTYPE html>")
        assert '<meta charset="utf-8">' in text
        scripts = re.findall(r"<script[^>]*>(.*?)</script>", text, re.S | re.I)
        sources = re.findall(r'<script src="([^"]+)" defer>', text)
        assert sources == ["search-index.js", "search.js"] and scripts == ["", ""]
        assert "javascript:" not in text.lower()
        assert not re.search(r"\son[a-z]+=", text), "no inline event handlers"
        assert "http://" not in text and "https://" not in text
        dom(page)                              # well nested
    script = (out / "search.js").read_text(encoding="utf-8")
    assert not re.search(r"fetch|XMLHttpRequest|https?:|import\(", script), "no network"


def test_index_lists_title_edition_languages_and_sections_by_number(site, mp):
    out, _ = site
    index = dom(out / "index.html")
    text = squash(index.text())
    assert "Musket & Pike" in text
    assert "Series rules 6.0 (reconstructed)" in text
    assert "en, ru" in text
    links = [a for a in index.find_all("a", cls="toc-link")]
    numbers = [a.find("span", cls="secnum").text() for a in links]
    assert sorted(numbers) == sorted(s.number for s in mp.sections)
    keyed = [tuple(int(x) for x in n.split(".")) for n in numbers]
    assert keyed == sorted(keyed), "sections are listed by number"
    assert any(a.attrs["href"] == "orders.html#s-5.7" for a in links)


def test_index_counts_and_lists_every_doubt_and_gap(site, mp):
    out, _ = site
    index = dom(out / "index.html")
    notes = [n for _, n in mp.annotations() if n.kind in ("doubt", "gap")]
    counts = index.find("p", cls="counts")
    assert int(counts.attrs["data-doubts"]) == sum(n.kind == "doubt" for n in notes)
    assert int(counts.attrs["data-gaps"]) == sum(n.kind == "gap" for n in notes)
    assert sum(n.kind == "gap" for n in notes) >= 1
    listed = list(index.find("ul", cls="flagged").find_all("li"))
    assert len(listed) == len(notes)
    texts = {squash(n.text) for n in notes}
    for li in listed:
        assert li.classes & {"doubt", "gap"}
        assert any(t in squash(li.text()) for t in texts)


def test_doubts_and_gaps_are_flagged_where_they_stand(site, mp):
    out, _ = site
    movement = dom(out / "movement.html")
    gaps = list(movement.find_all("li", cls="gap"))
    assert gaps and "annotation" in gaps[0].classes
    assert "lost in S1" in gaps[0].text()
    orders = dom(out / "orders.html")
    art = orders.by_id("d-order_change")
    doubts = list(art.find_all("li", cls="doubt"))      # the table's, and its lost cell's
    assert len(doubts) == 2 and "orientation" in doubts[0].text(), [d.text() for d in doubts]
    assert "taken from EN-PAC" in doubts[1].text()
    lost = chart_cell(orders, "order_change", "MakeReady", "ReceiveCharge")
    assert squash(lost.text()) == "0-5⚠"                   # the cell is flagged where it stands


def test_every_section_has_an_anchor_with_its_number_and_title(site, mp):
    out, _ = site
    ids = {}
    for page in out.glob("*.html"):
        for n in dom(page).iter():
            if "id" in n.attrs:
                ids.setdefault(n.attrs["id"], []).append((page.name, n))
    for sec in mp.sections:
        found = ids.get(f"s-{sec.number}")
        assert found and len(found) == 1, sec.number
        _, node = found[0]
        heading = squash(node.find("h2").text())
        assert heading == f"{sec.number} {sec.label.text}"
    page, node = ids["s-5.7"][0]
    assert page == "orders.html" and node.tag == "section"


def test_declarations_have_anchors_and_highlighted_source(site):
    out, _ = site
    orders = dom(out / "orders.html")
    art = orders.by_id("d-order_change_roll")
    assert art is not None and art.tag == "article"
    code = art.find("div", cls="highlight")
    assert code is not None
    assert code.find("span", cls="kd") is not None        # a Pygments declaration keyword
    assert "clamped within" in squash(code.text())
    numbers = [s.text().strip() for s in code.find_all("span", cls="linenos")]
    assert numbers and numbers[0].isdigit()
    line = int(numbers[0])
    source = (MP / "orders.drill").read_text(encoding="utf-8").split("\n")[line - 1]
    assert source.strip().startswith("check order_change_roll")


def test_the_order_change_chart_is_drawn_as_printed(site):
    out, _ = site
    orders = dom(out / "orders.html")
    assert squash(chart_cell(orders, "order_change", "MakeReady", "Charge").text()) == "0-5"
    assert squash(chart_cell(orders, "order_change", "MakeReady", "ReceiveCharge").text()) \
        == "0-5⚠"                                         # the cell lost in S1 carries a doubt
    assert squash(chart_cell(orders, "order_change", "MakeReady", "Rally").text()) == "0-6"
    na = chart_cell(orders, "order_change", "Charge", "Charge")
    assert squash(na.text()) == "—" and "na" in na.classes
    chart = orders.find("table", cls="chart", data_table="order_change")
    assert squash(chart.find("caption").text()) == "Order Change Table"
    header = [squash(th.text()) for th in chart.find("thead").find_all("th")]
    # the key column is headed as printed, by the labels of the keys, not by the
    # parameter names (which stay in a tooltip)
    assert header == ["Desired order → ↓ Current order", "Charge", "Make Ready",
                      "Receive Charge", "Rally"]
    corner = chart.find("th", cls="corner")
    assert corner.attrs["title"] == "current \\ desired"
    assert [squash(s.text()) for s in corner.find_all("span", cls="key-part")] == [
        "Desired order →", "↓ Current order"]
    row = chart.find("tr", data_row="MakeReady")
    assert squash(row.find("th").text()) == "Make Ready"      # the key column, as printed
    assert [squash(td.text()) for td in row.find_all("td")] == ["0-5", "—", "0-5⚠", "0-6"]


def test_footnote_markers_are_superscripts_with_a_legend(site):
    out, _ = site
    orders = dom(out / "orders.html")
    cell = chart_cell(orders, "order_restrictions", "MakeReady", "Firing")
    sup = cell.find("sup", cls="marker")
    assert sup is not None and sup.text() == "⁴"
    assert squash(cell.text()) == "Yes⁴"
    wrap = orders.find("table", cls="chart", data_table="order_restrictions").parent
    legend = wrap.find("dl", cls="legend")
    assert legend is not None
    text = squash(legend.text())
    for mark in "¹²³⁴":
        assert mark in text
    assert "No Advancing Fire" in text
    movement = dom(out / "movement.html")
    cell = chart_cell(movement, "movement_allowance", "MoraleBrokenUnits", "MA")
    assert cell.find("sup", cls="marker").text() == "**"


def check_links(out: Path) -> tuple[dict, int]:
    """Every link of every page leads to a page of the site and an anchor on it."""
    anchors = {}
    pages = {p.name: dom(p) for p in out.glob("*.html")}
    for name, page in pages.items():
        ids = [n.attrs["id"] for n in page.iter() if "id" in n.attrs]
        assert len(ids) == len(set(ids)), f"{name}: an id is used twice"
        anchors[name] = set(ids)
    checked = 0
    for name, page in pages.items():
        for a in page.find_all("a"):
            href = a.attrs.get("href", "")
            assert not href.startswith(("http:", "https:", "//", "file:", "/")), href
            target, _, frag = href.partition("#")
            target = target or name
            assert target in anchors, f"{name}: link to a missing page {href}"
            if frag:
                assert frag in anchors[target], f"{name}: {href} names no anchor"
                checked += 1
    return pages, checked


def test_cross_references_link_to_existing_anchors(site):
    out, _ = site
    pages, checked = check_links(out)
    assert checked > 100
    # a name in the source of one rule links to the rule it names
    orders = pages["orders.html"]
    art = orders.by_id("d-order_change_roll")
    xrefs = {a.attrs["title"]: a.attrs["href"] for a in art.find_all("a", cls="xref")}
    assert xrefs["order_change"] == "#d-order_change"
    assert xrefs["order_change_drm"] == "#d-order_change_drm"
    assert xrefs["Wing"] == "vocabulary.html#d-Wing"
    # and across files: rally.drill uses order_allows of orders.drill
    rally = pages["rally.html"]
    hrefs = {a.attrs["href"] for a in rally.by_id("d-may_rally").find_all("a", cls="xref")}
    assert "orders.html#d-order_allows" in hrefs
    # the declaration's own name is not a link to itself
    own = [a for a in art.find_all("a", cls="xref") if a.attrs["title"] == "order_change_roll"]
    assert own == []


def test_an_exception_links_to_its_rule_and_the_rule_to_its_exceptions(site):
    out, _ = site
    rally = dom(out / "rally.html")
    exc = rally.by_id("d-army_commander_rallies")
    assert any(a.attrs.get("href") == "#d-may_rally" for a in exc.find("h3").find_all("a"))
    rule = rally.by_id("d-may_rally")
    listed = rule.find("p", cls="exceptions")
    assert listed is not None and "army_commander_rallies" in listed.text()


def test_modifier_lists_are_drawn_as_printed_lists(site):
    out, _ = site
    orders = dom(out / "orders.html")
    table = orders.by_id("d-order_change_drm").find("table", cls="modifiers")
    rows = {squash(tr.find("th").text()).split(" when ")[0]: squash(tr.find("td").text())
            for tr in table.find_all("tr")}
    assert rows["Cavalry Wing changing to Charge"] == "-1"
    assert rows["Cavalry Wing changing to Receive Charge"] == "+1"


def test_labels_in_russian(site_ru):
    out = site_ru
    html_text = (out / "orders.html").read_text(encoding="utf-8")
    assert '<html lang="ru">' in html_text
    orders = dom(out / "orders.html")
    heading = squash(orders.by_id("s-5.7").find("h2").text())
    assert heading == "5.7 Таблица Изменения Приказов"
    chart = orders.find("table", cls="chart", data_table="order_change")
    assert squash(chart.find("caption").text()) == "Таблица Изменения Приказов"
    assert squash(chart.find("tr", data_row="MakeReady").find("th").text()) == "Готовность"
    assert squash(chart_cell(orders, "order_change", "MakeReady", "Charge").text()) == "0-5"
    index = dom(out / "index.html")
    assert "Мушкет и Пика" in index.find("h1").text()
    assert "Таблица Изменения Приказов" in squash(index.text())
    # a label without a Russian translation falls back to English
    assert "Continuation and Preemption die-roll modifiers" in squash(orders.text())


def test_an_unknown_language_is_an_error_and_writes_nothing(mp, tmp_path):
    out = tmp_path / "out"
    with pytest.raises(DrillError) as e:
        render_site(mp, str(out), lang="xx")
    assert "'xx'" in e.value.diagnostics[0].message
    assert not out.exists()
    assert os.listdir(tmp_path) == []


# ------------------------------------------------------------------ variants
def test_a_variant_gets_a_redline_with_the_changed_cell(site_variant):
    out = site_variant
    assert (out / "redline.html").is_file()
    red = dom(out / "redline.html")
    section = red.by_id("r-5.7")
    assert section is not None
    row = section.find("div", cls="change-row")         # one row per change, cell first
    assert "kind-cell" in row.classes
    base_side = row.find("div", cls="base")
    var_side = row.find("div", cls="variant")
    assert base_side is not None and var_side is not None
    new = chart_cell(var_side, "order_change", "Charge", "Rally")
    assert "changed" in new.classes
    assert squash(new.text()) == "0-5 → 0-4"
    assert new.find("del").text() == "0-5" and new.find("ins").text() == "0-4"
    old = chart_cell(base_side, "order_change", "Charge", "Rally")
    assert "changed" in old.classes and squash(old.text()) == "0-5"
    # only that cell changed
    changed = [n for n in var_side.find_all(cls="changed") if n.tag in ("td", "th")]
    assert changed == [new]
    assert "house rule, not printed" in squash(var_side.text())


def test_every_link_of_the_variant_site_resolves(site_variant):
    pages, checked = check_links(site_variant)
    assert "redline.html" in pages
    red = pages["redline.html"]
    assert any(a.attrs.get("href") == "#r-5.7" for a in red.find_all("a"))
    assert list(red.find_all("a", cls="xref")), "the redline's sources link too"


def test_the_redline_strikes_dropped_rules_and_highlights_added_ones(site_variant):
    red = dom(site_variant / "redline.html")
    section = red.by_id("r-5.7")
    rows = list(section.find_all("div", cls="change-row"))
    assert [r.classes - {"sides", "change-row"} for r in rows] == [{"kind-cell"}, {"kind-dropped"},
                                                                 {"kind-added"}]
    base_side = rows[1].find("div", cls="base")
    var_side = rows[1].find("div", cls="variant")
    struck = [squash(d.text()) for d in base_side.find_all("del", cls="dropped")]
    assert any(s.startswith("battered_to_rally: -2") or "battered_to_rally" in s for s in struck)
    kept = var_side.find("div", cls="dropped-item")
    assert kept is not None and "battered_to_rally" not in squash(
        kept.find("div", cls="highlight").text())
    assert "not in the base rulebook" in squash(rows[2].find("div", cls="base").text())
    added = rows[2].find("div", cls="variant").find("ins", cls="added")
    assert added is not None
    assert "house rule: a Charge wing needs 0-4 to change to Rally" in squash(added.text())
    changes = red.find("ul", cls="changes")
    assert len(list(changes.find_all("li"))) == 3
    assert "0-5 → 0-4" in squash(changes.text())


def test_the_variant_site_pages_show_the_patched_rules(variant, tmp_path):
    out = tmp_path / "out"
    render_site(variant, str(out))            # a variant model alone: its own pages + redline
    assert (out / "redline.html").is_file()
    orders = dom(out / "orders.html")
    assert squash(chart_cell(orders, "order_change", "Charge", "Rally").text()) == "0-4"
    drm = orders.by_id("d-order_change_drm")
    assert "battered_to_rally" not in squash(drm.find("div", cls="highlight").text())
    assert "changed by the variant" in squash(drm.text())
    source = squash(orders.by_id("d-order_change").find("div", cls="highlight").text())
    assert "| Charge | — | 0-3 | 0-2 | 0-4 |" in source


# ------------------------------------------------------------------ writing
def _listing(folder: Path) -> dict:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_rerendering_replaces_the_old_site(mp, tmp_path):
    out = tmp_path / "out"
    render_site(mp, str(out))
    (out / "stale.html").write_text("old", encoding="utf-8")
    render_site(mp, str(out), lang="ru")
    assert not (out / "stale.html").exists()
    assert "Готовность" in (out / "orders.html").read_text(encoding="utf-8")
    assert sorted(os.listdir(tmp_path)) == ["out"]          # no temporary folder left


def test_an_error_while_rendering_leaves_the_old_site_intact(mp, tmp_path, monkeypatch):
    out = tmp_path / "out"
    render_site(mp, str(out))
    (out / "mine.txt").write_text("keep me", encoding="utf-8")
    before = _listing(out)

    def broken(*args, **kwargs):
        raise RuntimeError("boom while rendering")
    monkeypatch.setattr(render.pages, "_index", broken)
    with pytest.raises(RuntimeError):
        render_site(mp, str(out), lang="ru")
    assert _listing(out) == before
    assert sorted(os.listdir(tmp_path)) == ["out"]


def test_an_error_while_writing_leaves_the_old_site_intact(mp, tmp_path, monkeypatch):
    out = tmp_path / "out"
    render_site(mp, str(out))
    before = _listing(out)
    real_open = open
    count = {"n": 0}

    def failing_open(path, mode="r", *args, **kwargs):
        if "w" in mode and ".render-" in str(path):
            count["n"] += 1
            if count["n"] == 3:
                raise OSError(28, "No space left on device")
        return real_open(path, mode, *args, **kwargs)
    monkeypatch.setattr("builtins.open", failing_open)
    from drillbook.errors import DrillError
    with pytest.raises(DrillError, match="No space left"):       # located E810
        render_site(mp, str(out), lang="ru")
    monkeypatch.undo()
    assert count["n"] == 3
    assert _listing(out) == before
    assert sorted(os.listdir(tmp_path)) == ["out"]


def test_an_error_into_a_new_folder_writes_nothing(mp, tmp_path, monkeypatch):
    monkeypatch.setattr(render.pages, "_index", lambda *a, **k: (_ for _ in ()).throw(
        RuntimeError("boom")))
    with pytest.raises(RuntimeError):
        render_site(mp, str(tmp_path / "out"))
    assert os.listdir(tmp_path) == []


def test_a_folder_render_did_not_write_is_not_replaced(mp, tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("my notes", encoding="utf-8")
    with pytest.raises(DrillError) as e:
        render_site(mp, str(out))
    assert e.value.diagnostics[0].code == "E810"
    assert (out / "notes.txt").read_text(encoding="utf-8") == "my notes"
    assert sorted(os.listdir(out)) == ["notes.txt"]
    a_file = tmp_path / "file"
    a_file.write_text("x", encoding="utf-8")
    with pytest.raises(DrillError):
        render_site(mp, str(a_file))
    assert a_file.read_text(encoding="utf-8") == "x"


def test_an_empty_folder_is_used(mp, tmp_path):
    out = tmp_path / "empty"
    out.mkdir()
    render_site(mp, str(out))
    assert (out / "index.html").is_file() and (out / SITE_MARKER).is_file()


# ------------------------------------------------------------------ other rulebooks
GOOD = sorted((ROOT / "tests" / "good").glob("*.drill")) + [ROOT / "tests" / "good" / "multi"]


@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.name)
def test_every_good_rulebook_renders(path, tmp_path):
    model = Rulebook.open(str(path)).model
    out = tmp_path / "out"
    written = render_site(model, str(out), lang="ru" if "ru" in model.languages else None)
    assert (out / "index.html").is_file()
    ids = set()
    for page in out.glob("*.html"):
        ids |= {n.attrs["id"] for n in dom(page).iter() if "id" in n.attrs}
    for sec in model.sections:
        assert f"s-{sec.number}" in ids
        for d in sec.items:
            if not isinstance(d, A.ExampleDecl):
                assert f"d-{d.name}" in ids
    assert all(Path(f).exists() for f in written)


BOOKS = sorted(p.parent for p in (ROOT / "rulebooks").glob("*/rulebook.drill"))
VARIANTS = sorted((ROOT / "rulebooks").glob("*/variants/*.drill"))


@pytest.mark.parametrize("book", BOOKS + VARIANTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_bundled_rulebook_and_variant_renders(book, tmp_path):
    model = Rulebook.open(str(book)).model
    out = tmp_path / "out"
    render_site(model, str(out))
    pages, _ = check_links(out)
    ids = set().union(*({n.attrs["id"] for n in p.iter() if "id" in n.attrs}
                        for p in pages.values()))
    for sec in model.sections:
        assert f"s-{sec.number}" in ids
    assert ("redline.html" in pages) == (model.base is not None)


def test_tables_of_every_shape_are_charts(tmp_path):
    model = Rulebook.open(str(ROOT / "tests" / "good" / "tables.drill")).model
    out = tmp_path / "out"
    render_site(model, str(out))
    page = dom(out / "tables.html")
    assert squash(chart_cell(page, "to_hit", "Foot", "Medium").text()) == "1-3*"
    assert squash(chart_cell(page, "damage", "1-3", "hits").text()) == "0"
    assert squash(chart_cell(page, "name_of", "Horse", "name").text()) == "cavalry"
    assert squash(chart_cell(page, "bonus", "Guns", "bonus").text()) == "-1"
    assert squash(chart_cell(page, "profile", "Horse", "speed").text()) == "8"
    legend = page.find("table", data_table="to_hit").parent.find("dl", cls="legend")
    assert "only against a flank" in legend.text()


def test_a_redline_shows_switched_options_replaced_tables_and_new_sections(tmp_path):
    path = tmp_path / "house.drill"
    base = (MP / "rulebook.drill").as_posix()
    path.write_text(
        f'variant "More house rules" of "{base}"\n\n'
        "switch NGBG_Landskrona on\n\n"
        "replace leader_casualty with\n"
        '  table leader_casualty(face: d10) -> LeaderCasualty "Leader Casualty Table"\n'
        "    | face | result        |\n"
        "    | 0-7  | NoEffect      |\n"
        "    | 8-9  | LeaderRemoved |\n\n"
        "drop unit_eliminated\n\n"
        'section 99 "House rules"\n'
        '  define bloody(l: Leader) -> Bool "a leader falls on an 8 or 9"\n'
        "    = leader_casualty(8) == LeaderRemoved\n", encoding="utf-8")
    model = Rulebook.open(str(path)).model
    out = tmp_path / "out"
    render_site(model.base, str(out), variant_model=model)
    pages, _ = check_links(out)
    red = pages["redline.html"]
    kinds = [r.classes - {"sides", "change-row"} for r in red.find_all("div", cls="change-row")]
    assert {"kind-option", "kind-replaced", "kind-dropped", "kind-added"} == set().union(*kinds)
    option = red.find("div", cls="kind-option").find("div", cls="variant")
    assert squash(option.find("p", cls="changed").text()) == "default: off → on"
    replaced = red.find("div", cls="kind-replaced")
    old = replaced.find("div", cls="base")
    new = replaced.find("div", cls="variant")
    assert old.find("del", cls="dropped") is not None and new.find("ins", cls="added") is not None
    cell = new.find("table", data_table="leader_casualty").find("tr", data_row="8-9").find("th")
    assert "changed" in cell.classes
    assert squash(cell.find("del").text()) == "9"
    assert squash(cell.find("ins").text()) == "8-9"
    dropped = red.find("div", cls="kind-dropped")
    assert "unit_eliminated" in squash(dropped.find("div", cls="base").find("del").text())
    added = red.by_id("r-99")
    assert "a leader falls on an 8 or 9" in squash(added.text())
    # the index of the base site links the redline
    assert any(a.attrs.get("href") == "redline.html" for a in pages["index.html"].find_all("a"))


# ------------------------------------------------------------------ templates, search, cells
def test_labels_are_escaped_by_the_templates(tmp_path):
    path = tmp_path / "esc.drill"
    path.write_text(
        'rulebook "<b>Bold</b> & \\"quoted\\"" edition "1" languages en\n\n'
        'section 1 "<script>alert(1)</script>"\n'
        '  enum Arm "<i>arm</i>"\n'
        '    Foot "a < b"\n'
        '  table t(a: Arm) -> Text "<u>t</u>"\n'
        '    | a    | text             |\n'
        '    | Foot | "<img src=x> & y" |\n'
        '      text: doubt "<em>torn</em>"\n', encoding="utf-8")
    out = tmp_path / "out"
    render_site(Rulebook.open(str(path)).model, str(out))
    for page in out.glob("*.html"):
        text = page.read_text(encoding="utf-8")
        for raw in ("<b>Bold", "<script>alert", "<i>arm", "<img src=x>", "<em>torn", "<u>t"):
            assert raw not in text, (page.name, raw)
        dom(page)
    esc = (out / "esc.html").read_text(encoding="utf-8")
    assert "&lt;img src=x&gt; &amp; y" in esc and "&lt;em&gt;torn&lt;/em&gt;" in esc
    assert "&lt;b&gt;Bold&lt;/b&gt; &amp; &#34;quoted&#34;" in esc
    # no f-string HTML and no hand escape calls are left in render/
    for module in (ROOT / "interpreter" / "drillbook" / "render").glob("*.py"):
        code = module.read_text(encoding="utf-8")
        assert "html.escape(" not in code and "_esc(" not in code, module.name
        assert not re.search(r'f["\'][^"\']*<(?:div|td|th|tr|table|span|li|ul|p|a)\b', code), \
            module.name


def _index(out: Path) -> list:
    import json
    data = json.loads((out / "search-index.json").read_text(encoding="utf-8"))
    js = (out / "search-index.js").read_text(encoding="utf-8")
    assert js.startswith("window.DRILLBOOK_SEARCH = ") and js.rstrip().endswith(";")
    assert json.loads(js[len("window.DRILLBOOK_SEARCH = "):].rstrip().rstrip(";")) == data
    return data["entries"]


def test_the_search_index_holds_sections_rules_labels_in_every_language_and_cells(site, mp):
    out, _ = site
    entries = _index(out)
    kinds = {e["k"] for e in entries}
    assert kinds == {"section", "rule", "label", "cell", "note"}
    sections = [e for e in entries if e["k"] == "section"]
    assert len(sections) == len(mp.sections)
    s57 = next(e for e in sections if e["h"] == "orders.html#s-5.7")
    assert "таблица изменения приказов" in s57["w"] and "order change table" in s57["w"]
    member = next(e for e in entries if e["k"] == "label" and e["t"] == "Make Ready (Order)")
    assert "готовность" in member["w"] and member["h"] == "orders.html#d-Order"
    cell = next(e for e in entries if e["k"] == "cell" and e["t"] == "Make Ready × Charge = 0-5"
                and e["g"] == "Order Change Table")
    assert {"0-5", "готовность", "атаковать"} <= set(cell["w"].split())
    # every entry leads to an anchor of the site
    pages, _ = check_links(out)
    ids = {name: {n.attrs["id"] for n in p.iter() if "id" in n.attrs} for name, p in pages.items()}
    for e in entries:
        target, _, frag = e["h"].partition("#")
        assert frag in ids[target], e
    # the ranks: sections first, then rules, labels, cells, notes
    order = ["section", "rule", "label", "cell", "note"]
    assert [order.index(e["k"]) for e in entries] == sorted(order.index(e["k"]) for e in entries)


def test_notes_under_rows_flag_their_cells(tmp_path):
    model = Rulebook.open(str(ROOT / "tests" / "good" / "cell_notes.drill")).model
    out = tmp_path / "out"
    render_site(model, str(out))
    page = dom(out / "cell_notes.html")
    long_ = chart_cell(page, "to_hit", "Foot", "Long")
    assert "doubt" in long_.classes
    flag = long_.find("a", cls="cell-flag")
    assert flag.attrs["title"] == "doubt: torn in the scan: No or 1"
    note = page.by_id(flag.attrs["href"][1:])
    assert note is not None and "torn in the scan" in note.text()
    assert squash(note.find("a", cls="cells").text()) == "Foot × Long"
    assert "doubt" not in chart_cell(page, "to_hit", "Foot", "Short").classes
    for col in ("Short", "Long"):
        assert "gap" in chart_cell(page, "to_hit", "Horse", col).classes
    assert "doubt" in chart_cell(page, "effect", "4-5", "morale").classes
    assert "doubt" not in chart_cell(page, "effect", "4-5", "hits").classes
    # the doubts of cells are counted and listed on the index like every other
    index = dom(out / "index.html")
    counts = index.find("p", cls="counts")
    assert (counts.attrs["data-doubts"], counts.attrs["data-gaps"]) == ("3", "1")
    listed = squash(index.find("ul", cls="flagged").text())
    assert "§3 to_hit (Foot × Long)" in listed and "§3 effect (4-5 × morale)" in listed
    check_links(out)


def test_a_cell_whose_marker_carries_a_doubt_is_flagged(site):
    out, _ = site
    orders = dom(out / "orders.html")
    cell = chart_cell(orders, "order_restrictions", "Charge", "Moving")
    assert "doubt" in cell.classes
    flag = cell.find("a", cls="cell-flag")
    assert flag.attrs["title"].startswith("doubt: ¹: S1 adds limbered artillery")
    assert flag.attrs["href"] == "#d-must_advance"
    assert "doubt" not in chart_cell(orders, "order_restrictions", "MakeReady", "Moving").classes


def test_a_chart_headed_by_the_label_of_its_key(site, site_ru):
    out, _ = site
    terrain = dom(out / "terrain.html")
    corner = terrain.find("table", data_table="hex_chart").find("th", cls="corner")
    assert squash(corner.text()) == "Hex terrain" and corner.attrs["title"] == "t"
    ru = dom(site_ru / "terrain.html").find("table", data_table="hex_chart")
    assert squash(ru.find("th", cls="corner").text()) == "Ландшафт"


BFS = ROOT / "rulebooks" / "by-fire-and-sword"


def test_a_redline_of_two_variants_names_both_and_shows_the_odds(tmp_path):
    from drillbook.diff import semantic_diff
    first = BFS / "variants" / "first-answer.drill"
    second = BFS / "variants" / "failed-by-four.drill"
    rb = Rulebook.open(str(first), variants=[str(second)])
    diff = semantic_diff(rb)
    assert diff["odds"], "these variants change odds"
    out = tmp_path / "out"
    render_site(rb.model.base, str(out), variant_model=rb.model, diff=diff)
    pages, _ = check_links(out)
    red = pages["redline.html"]
    titles = [Rulebook.open(str(p)).model.title.text for p in (first, second)]
    h1 = squash(red.find("h1").text())
    assert all(t in h1 for t in titles)
    listed = [squash(s.text()) for s in red.find_all("strong", cls="variant-title")]
    assert listed == titles
    # each change says which variant made it
    changes = red.find("ul", cls="changes")
    by = {(squash(s.text()), s.attrs["title"]) for s in changes.find_all("span", cls="by-variant")}
    assert by == {(f"(Variant {n})", t) for n, t in enumerate(titles, 1)}
    # the odds that change, as diff computed them: a table per question, changed rows marked
    tables = list(red.find_all("table", cls="odds"))
    assert len(tables) == len(diff["odds"])
    for table, o in zip(tables, diff["odds"]):
        assert table.attrs["data-question"] == o["question"]
        rows = [[squash(td.text()) for td in tr.find_all("td")]
                for tr in table.find("tbody").find_all("tr")]
        for outcome, before, after in rows:
            assert before.split(" ")[0] == o["before"].get(outcome, "0")
            assert after.split(" ")[0] == o["after"].get(outcome, "0")
        assert any("differs" in tr.classes for tr in table.find_all("tr"))


def test_the_cli_renders_a_redline_with_odds(tmp_path):
    from conftest import run_cli
    out = tmp_path / "site"
    res = run_cli("render", str(MP), "-o", str(out), "--variant", str(VARIANT))
    assert res.rc == 0, res.err
    red = dom(out / "redline.html")
    assert list(red.find_all("table", cls="odds"))
    assert (out / "search.js").is_file() and (out / "search-index.json").is_file()


def test_places_no_example_exercises_can_be_marked(mp, tmp_path):
    decl = mp.decls["order_change"]
    cell = decl.rows[1].cells[2]
    drm = mp.decls["order_change_drm"].items[0]
    marks = {(x.loc.path, x.loc.line, x.loc.col) for x in (decl, cell, drm)}
    out = tmp_path / "out"
    render_site(mp, str(out), unexercised=marks)
    orders = dom(out / "orders.html")
    art = orders.by_id("d-order_change")
    assert squash(art.find("p", cls="unexercised").text()) == "not exercised by any example"
    cells = [n for n in art.find_all("td", cls="unexercised")]
    assert len(cells) == 1 and cells[0].attrs["id"] == "c-order_change-1-2"
    assert orders.by_id(f"m-order_change_drm-{drm.name}").attrs.get("class") == "unexercised"
    assert orders.by_id("d-order_change_roll").find("p", cls="unexercised") is None
    # as a coverage report gives them: each place with what was never seen
    render_site(mp, str(out), unexercised={decl.loc: ["table order_change: never looked up"],
                                           cell.loc: ["order_change[Charge, MakeReady]"]})
    art = dom(out / "orders.html").by_id("d-order_change")
    assert squash(art.find("p", cls="unexercised").text()) == (
        "not exercised by any example table order_change: never looked up")
    td = art.find("td", cls="unexercised")
    assert td.attrs["title"] == "order_change[Charge, MakeReady]"


def test_the_words_of_the_site_exist_in_every_language_it_has():
    from drillbook.render.site import _UI
    assert set(_UI) == {"en", "ru", "de"}
    for lang, words in _UI.items():
        assert set(words) == set(_UI["en"]), lang
        for key, text in words.items():
            assert text.count("{") == _UI["en"][key].count("{"), (lang, key)


def test_a_doubt_on_a_variants_changed_cell_flags_that_cell(tmp_path):
    path = tmp_path / "doubtful.drill"
    path.write_text(
        f'variant "Doubtful house rule" of "{(MP / "rulebook.drill").as_posix()}"\n\n'
        "change order_change(Charge, Rally) to 0-4\n"
        '  doubt "the club is not sure it was 0-4"\n', encoding="utf-8")
    model = Rulebook.open(str(path)).model
    out = tmp_path / "out"
    render_site(model, str(out))
    pages, _ = check_links(out)
    cell = chart_cell(pages["orders.html"], "order_change", "Charge", "Rally")
    assert "doubt" in cell.classes and squash(cell.text()).startswith("0-4")
    assert "the club is not sure" in cell.find("a", cls="cell-flag").attrs["title"]
    assert "doubt" not in chart_cell(pages["orders.html"], "order_change", "Charge",
                                     "MakeReady").classes
    red = chart_cell(pages["redline.html"].find("div", cls="variant"), "order_change", "Charge",
                     "Rally")
    assert {"doubt", "changed"} <= red.classes
    flag = red.find("a", cls="cell-flag")
    assert pages["redline.html"].by_id(flag.attrs["href"][1:]) is not None


def test_a_set_cell_is_shown_as_printed_with_its_levels_labels(tmp_path):
    from conftest import TESTS, run_cli
    out = tmp_path / "site"
    r = run_cli("render", str(TESTS / "good" / "board_hex.drill"), "-o", str(out))
    assert r.rc == 0, r.err
    page = (out / "board_hex.html").read_text(encoding="utf-8")
    assert "Front or Flank" in page and "[&#39;Front&#39;" not in page and "['Front'" not in page
