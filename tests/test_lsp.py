"""The language server: end to end over stdio with pytest-lsp (a real client starting
``python -m drillbook lsp``), on the bundled rulebooks; then the pure features, fast,
without a client.

The end-to-end tests never write a bundled file: they send changed texts as unsaved
buffers (didOpen / didChange), as an editor does while the author types.
"""
from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as T
from pytest_lsp import ClientServerConfig, LanguageClient

from drillbook.errors import DrillError
from drillbook.fmt import format_text
from drillbook.lsp import complete, features as F, index
from drillbook.lsp.project import ParseCache, analyse, find_main, real

ROOT = Path(__file__).resolve().parent.parent
MP = ROOT / "rulebooks" / "musket-and-pike"
ORDERS, MORALE, RALLY = MP / "orders.drill", MP / "morale.drill", MP / "rally.drill"
VOCAB, VARIANT = MP / "vocabulary.drill", MP / "variants" / "harder-rally.drill"

e2e = pytest.mark.asyncio(loop_scope="module")   # one server for the end-to-end tests

ENV = dict(os.environ, PYTHONPATH=str(ROOT / "interpreter") + os.pathsep
           + os.environ.get("PYTHONPATH", ""))


@pytest_lsp.fixture(scope="module", config=ClientServerConfig(
    server_command=[sys.executable, "-m", "drillbook", "lsp"], server_env=ENV))
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(T.InitializeParams(
        capabilities=T.ClientCapabilities(), root_uri=ROOT.as_uri(),
        workspace_folders=[T.WorkspaceFolder(ROOT.as_uri(), "drillbook")]))
    yield
    await lsp_client.shutdown_session()


# ------------------------------------------------------------------ helpers
def uri(p: Path) -> str:
    return p.resolve().as_uri()


def where(text: str, needle: str, nth: int = 0, offset: int = 0) -> T.Position:
    """The position of the ``nth`` ``needle`` in ``text``, ``offset`` characters in."""
    start = -1
    for _ in range(nth + 1):
        start = text.index(needle, start + 1)
    line = text.count("\n", 0, start)
    col = start - (text.rfind("\n", 0, start) + 1) + offset
    return T.Position(line, col)


_versions: dict[str, int] = {}


def open_doc(client, path: Path, text: str | None = None) -> str:
    text = path.read_text(encoding="utf-8") if text is None else text
    _versions[uri(path)] = 1
    client.text_document_did_open(T.DidOpenTextDocumentParams(
        T.TextDocumentItem(uri(path), "drillbook", 1, text)))
    return text


def change_doc(client, path: Path, text: str) -> None:
    _versions[uri(path)] += 1
    client.text_document_did_change(T.DidChangeTextDocumentParams(
        T.VersionedTextDocumentIdentifier(version=_versions[uri(path)], uri=uri(path)),
        [T.TextDocumentContentChangeWholeDocument(text)]))


def close_doc(client, path: Path) -> None:
    client.text_document_did_close(T.DidCloseTextDocumentParams(
        T.TextDocumentIdentifier(uri(path))))


async def diagnostics(client, path: Path, until, timeout: float = 30.0):
    """Wait until the diagnostics published for ``path`` satisfy ``until``."""
    deadline = time.monotonic() + timeout
    while True:
        got = client.diagnostics.get(uri(path))
        if got is not None and until(got):
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"diagnostics for {path.name} never satisfied the test: {got}")
        await asyncio.sleep(0.02)


def codes(diags) -> set:
    return {d.code for d in diags}


async def hover_text(client, path, pos) -> str:
    h = await client.text_document_hover_async(T.HoverParams(
        T.TextDocumentIdentifier(uri(path)), pos))
    assert h is not None, f"no hover at {pos}"
    return h.contents.value


# ------------------------------------------------------------------ end to end
@e2e
async def test_diagnostics_for_an_introduced_error_and_their_clearing(client):
    text = open_doc(client, ORDERS)
    await diagnostics(client, ORDERS, lambda d: len(d) == 0)
    broken = text.replace("and wing_units_battered(w)", "and wing_units_batered(w)")
    change_doc(client, ORDERS, broken)
    got = await diagnostics(client, ORDERS, lambda d: "E202" in codes(d))
    d = next(x for x in got if x.code == "E202")
    assert "wing_units_batered" in d.message and "did you mean 'wing_units_battered'" in d.message
    assert d.severity == T.DiagnosticSeverity.Error and d.source == "drillbook"
    assert d.range.start == where(broken, "wing_units_batered(")
    assert d.range.end == where(broken, "wing_units_batered(", offset=len("wing_units_batered"))
    change_doc(client, ORDERS, text)
    await diagnostics(client, ORDERS, lambda d: len(d) == 0)
    close_doc(client, ORDERS)


@e2e
async def test_an_error_in_a_used_file_shows_in_the_files_that_use_it(client):
    text = open_doc(client, VOCAB)
    change_doc(client, VOCAB, text.replace("    morale: MoraleState", "    moral: MoraleState"))
    got = await diagnostics(client, RALLY, lambda d: "E203" in codes(d))
    assert any("no field 'morale'" in d.message for d in got)
    change_doc(client, VOCAB, text)
    await diagnostics(client, RALLY, lambda d: len(d) == 0)
    close_doc(client, VOCAB)


@e2e
async def test_hover_on_a_table_a_cell_a_modifier_and_a_level(client):
    text = ORDERS.read_text(encoding="utf-8")
    table = await hover_text(client, ORDERS, where(text, "table initiative", offset=7))
    assert "**table** `initiative`" in table and "-> Range" in table
    assert "en: Continuation and Preemption Table" in table and "ru: Таблица Продления" in table
    assert "§4.3" in table and "*source*: EN-PAC prints NA" in table
    cell = await hover_text(client, ORDERS, where(text, "| 0-3", offset=2))
    assert "row **Charge** · column **Continuation**" in cell and "§4.3" in cell
    assert "ru: Таблица Продления и Перехвата" in cell
    mod = await hover_text(client, ORDERS, where(text, "cavalry_wing:"))
    assert "value `-1` when `w.cavalry`" in mod and "ru: Кавалерийское Крыло" in mod
    assert "*source*: S1 -1" in mod and "§4.3" in mod
    level = await hover_text(client, ORDERS, where(text, "u.morale >= Shaken", offset=12))
    assert "scale `MoraleState`" in level and "← `Normal` · `Broken` →" in level
    assert "en: Morale Shaken" in level and "ru: потрясены" in level and "§12" in level


@e2e
async def test_definition_and_references_across_use_files(client):
    text = RALLY.read_text(encoding="utf-8")
    pos = where(text, "u.morale in [Shaken", offset=len("u.morale in ["))
    locs = await client.text_document_definition_async(T.DefinitionParams(
        T.TextDocumentIdentifier(uri(RALLY)), pos))
    assert [loc.uri for loc in locs] == [uri(MORALE)]
    assert locs[0].range.start == where(MORALE.read_text(encoding="utf-8"), "    Shaken", offset=4)
    field = await client.text_document_definition_async(T.DefinitionParams(
        T.TextDocumentIdentifier(uri(RALLY)), where(text, "u.morale", offset=3)))
    assert field[0].uri == uri(VOCAB)
    refs = await client.text_document_references_async(T.ReferenceParams(
        text_document=T.TextDocumentIdentifier(uri(RALLY)), position=pos,
        context=T.ReferenceContext(True)))
    files = {r.uri for r in refs}
    assert {uri(MORALE), uri(RALLY), uri(ORDERS)} <= files
    assert len(refs) >= 20


@e2e
async def test_definition_from_a_variant_to_its_base(client):
    text = open_doc(client, VARIANT)
    await diagnostics(client, VARIANT, lambda d: len(d) == 0)
    locs = await client.text_document_definition_async(T.DefinitionParams(
        T.TextDocumentIdentifier(uri(VARIANT)), where(text, "change order_change", offset=8)))
    assert [loc.uri for loc in locs] == [uri(ORDERS)]
    item = await client.text_document_definition_async(T.DefinitionParams(
        T.TextDocumentIdentifier(uri(VARIANT)), where(text, "battered_to_rally")))
    assert item[0].uri == uri(ORDERS)
    assert item[0].range.start == where(ORDERS.read_text(encoding="utf-8"), "battered_to_rally:")
    change_doc(client, VARIANT, text.replace("drop order_change_drm.battered_to_rally",
                                             "drop order_change_drm.battered_to_raly"))
    got = await diagnostics(client, VARIANT, lambda d: "E902" in codes(d))
    assert any("battered_to_rally" in d.message for d in got)
    change_doc(client, VARIANT, text)
    await diagnostics(client, VARIANT, lambda d: len(d) == 0)
    close_doc(client, VARIANT)


@e2e
async def test_completion_of_levels_and_fields(client):
    text = open_doc(client, RALLY)
    typed = text.replace("= in_activation(u) and u.morale in [Shaken, Broken] and "
                         "order_allows(u, Rallying)", "= u.morale >= ", 1)
    change_doc(client, RALLY, typed)
    pos = where(typed, "= u.morale >= ", offset=len("= u.morale >= "))
    got = await client.text_document_completion_async(T.CompletionParams(
        T.TextDocumentIdentifier(uri(RALLY)), pos))
    assert [i.label for i in got.items] == ["Normal", "Shaken", "Broken", "Eliminated"]
    shaken = got.items[1]
    assert shaken.kind == T.CompletionItemKind.EnumMember
    assert shaken.label_details.description == "Morale Shaken" and "§12" in shaken.detail
    typed = typed.replace("= u.morale >= ", "= u.wi", 1)
    change_doc(client, RALLY, typed)
    got = await client.text_document_completion_async(T.CompletionParams(
        T.TextDocumentIdentifier(uri(RALLY)), where(typed, "= u.wi", offset=4)))
    labels = [i.label for i in got.items]
    assert {"morale", "wing", "printed_morale"} <= set(labels) and "Shaken" not in labels
    field = next(i for i in got.items if i.label == "morale")
    assert field.kind == T.CompletionItemKind.Field and ": MoraleState" in field.detail
    change_doc(client, RALLY, text)
    close_doc(client, RALLY)


@e2e
async def test_document_symbols_are_the_section_outline_with_printed_numbers(client):
    got = await client.text_document_document_symbol_async(T.DocumentSymbolParams(
        T.TextDocumentIdentifier(uri(ORDERS))))
    names = [s.name for s in got]
    assert names[:2] == ["5 Leaders and Orders", "4.3 Continuation and Preemption"]
    assert "5.7 Order Change Table" in names
    sec = next(s for s in got if s.name.startswith("4.3"))
    assert sec.kind == T.SymbolKind.Namespace and "ru: Продление" in sec.detail
    assert "initiative" in [c.name for c in sec.children]


@e2e
async def test_workspace_symbols(client):
    got = await client.workspace_symbol_async(T.WorkspaceSymbolParams("order_change"))
    found = {s.name: s for s in got}
    assert {"order_change", "order_change_roll", "order_change_drm"} <= set(found)
    assert found["order_change"].container_name.startswith("§5.7")
    assert found["order_change"].location.uri == uri(ORDERS)


@e2e
async def test_formatting_is_drillbook_fmt(client):
    text = ORDERS.read_text(encoding="utf-8")
    messy = text.replace("    | Charge        | 0-3          | 0-4        |",
                         "    |Charge|0-3|0-4|   ")
    assert messy != text
    open_doc(client, ORDERS, messy)
    edits = await client.text_document_formatting_async(T.DocumentFormattingParams(
        T.TextDocumentIdentifier(uri(ORDERS)), T.FormattingOptions(2, True)))
    assert len(edits) == 1 and edits[0].range.start == T.Position(0, 0)
    assert edits[0].new_text == format_text(messy) == text
    close_doc(client, ORDERS)


@e2e
async def test_a_did_you_mean_code_action(client):
    text = ORDERS.read_text(encoding="utf-8")
    broken = text.replace("and wing_units_battered(w)", "and wing_units_batered(w)")
    open_doc(client, ORDERS, broken)
    got = await diagnostics(client, ORDERS, lambda d: "E202" in codes(d))
    diag = next(d for d in got if d.code == "E202")
    actions = await client.text_document_code_action_async(T.CodeActionParams(
        T.TextDocumentIdentifier(uri(ORDERS)), diag.range, T.CodeActionContext([diag])))
    assert actions, "no quick fix for a did-you-mean hint"
    fix = actions[0]
    assert fix.title == "Change to 'wing_units_battered'" and fix.kind == T.CodeActionKind.QuickFix
    (edit,) = fix.edit.changes[uri(ORDERS)]
    assert edit.range == diag.range and edit.new_text == "wing_units_battered"
    change_doc(client, ORDERS, text)
    await diagnostics(client, ORDERS, lambda d: len(d) == 0)
    close_doc(client, ORDERS)


def _apply(text: str, edits) -> str:
    lines = text.split("\n")
    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character),
                    reverse=True):
        assert e.range.start.line == e.range.end.line
        ln = lines[e.range.start.line]
        lines[e.range.start.line] = (ln[: e.range.start.character] + e.new_text
                                     + ln[e.range.end.character:])
    return "\n".join(lines)


@e2e
async def test_rename_a_level_across_the_rulebooks_files(client):
    text = MORALE.read_text(encoding="utf-8")
    pos = where(text, "    Shaken", offset=4)
    edit = await client.text_document_rename_async(T.RenameParams(
        T.TextDocumentIdentifier(uri(MORALE)), pos, "Wavering"))
    assert {uri(MORALE), uri(RALLY), uri(ORDERS)} <= set(edit.changes)
    renamed = {F.path_of(u): _apply(Path(F.path_of(u)).read_text(encoding="utf-8"), es)
               for u, es in edit.changes.items()}
    assert "Morale Shaken" in renamed[real(str(MORALE))]        # labels are not code
    after = analyse(str(MP / "rulebook.drill"), renamed, ParseCache())
    assert not any(after.diagnostics.values()), after.diagnostics
    assert "Wavering" in after.model.members and "Shaken" not in after.model.members


@e2e
async def test_rename_refused_where_a_variant_names_it(client):
    text = ORDERS.read_text(encoding="utf-8")
    with pytest.raises(Exception) as refused:
        await client.text_document_rename_async(T.RenameParams(
            T.TextDocumentIdentifier(uri(ORDERS)), where(text, "table order_change", offset=6),
            "order_switch"))
    assert "harder-rally.drill names 'order_change'" in str(refused.value)


@e2e
async def test_a_change_on_disk_is_checked_again(client, tmp_path):
    import shutil
    book = tmp_path / "multi"
    shutil.copytree(ROOT / "tests" / "good" / "multi", book)
    rules, vocab = book / "parts" / "rules.drill", book / "parts" / "vocabulary.drill"
    open_doc(client, rules)
    await diagnostics(client, rules, lambda d: len(d) == 0)
    vocab.write_text(vocab.read_text(encoding="utf-8").replace("    Horse\n", "    Hors\n"),
                     encoding="utf-8")
    client.workspace_did_change_watched_files(T.DidChangeWatchedFilesParams(
        [T.FileEvent(uri(vocab), T.FileChangeType.Changed)]))
    got = await diagnostics(client, rules, lambda d: "E202" in codes(d))
    assert any("'Horse'" in d.message for d in got)
    close_doc(client, rules)


@e2e
async def test_a_garbage_file_does_not_crash_the_server(client, tmp_path):
    junk = tmp_path / "junk.drill"
    junk.write_bytes(b"")
    open_doc(client, junk, "section ((( \x00 \"unclosed\n\t| | |\n@@@ define define =\n")
    got = await diagnostics(client, junk, lambda d: len(d) > 0)
    assert got[0].severity == T.DiagnosticSeverity.Error and got[0].code in ("E001", "E002")
    assert await client.text_document_hover_async(T.HoverParams(
        T.TextDocumentIdentifier(uri(junk)), T.Position(0, 2))) is None
    await client.text_document_completion_async(T.CompletionParams(
        T.TextDocumentIdentifier(uri(junk)), T.Position(2, 3)))
    await client.text_document_document_symbol_async(T.DocumentSymbolParams(
        T.TextDocumentIdentifier(uri(junk))))
    change_doc(client, junk, "\ufeff" + "x" * 5000 + "(" * 300)
    await diagnostics(client, junk, lambda d: len(d) > 0 and d != got)
    close_doc(client, junk)
    text = ORDERS.read_text(encoding="utf-8")              # and it still answers
    assert "**table**" in await hover_text(client, ORDERS, where(text, "table initiative",
                                                                  offset=7))


# ------------------------------------------------------------------ the pure features
@pytest.fixture(scope="module")
def mp():
    a = analyse(str(MP / "rulebook.drill"), {}, ParseCache())
    return a, index.build(a.model)


def _at(path: Path, needle: str, nth=0, offset=0):
    pos = where(path.read_text(encoding="utf-8"), needle, nth, offset)
    return real(str(path)), pos.line + 1, pos.character + 1


def test_the_rulebook_of_a_used_file_is_found(tmp_path):
    def files_of(main):
        return analyse(main, {}, ParseCache()).files
    assert find_main(real(str(RALLY)), {}, files_of) == real(str(MP / "rulebook.drill"))
    assert find_main(real(str(VARIANT)), {}, files_of) == real(str(VARIANT))
    lone = tmp_path / "sub" / "lone.drill"       # under a rulebook that does not use it
    lone.parent.mkdir()
    lone.write_text('section 1 "x"\n', encoding="utf-8")
    (tmp_path / "rulebook.drill").write_text('rulebook "T" languages en\n', encoding="utf-8")
    assert find_main(real(str(lone)), {}, files_of) == real(str(lone))


def test_a_file_no_rulebook_uses_is_checked_for_syntax_only(tmp_path):
    lone = tmp_path / "lone.drill"
    lone.write_text('section 1 "x"\n  define a = 1\n', encoding="utf-8")
    a = analyse(str(lone), {}, ParseCache())
    assert [d.code for d in a.diagnostics[real(str(lone))]] == ["W001"]


def _main_files():
    found = sorted((ROOT / "tests" / "bad").glob("*.drill")) + sorted(
        (ROOT / "tests" / "good").rglob("*.drill")) + sorted((ROOT / "rulebooks").glob(
            "*/rulebook.drill")) + sorted((ROOT / "rulebooks").glob("*/variants/*.drill"))
    return [p for p in found if p.read_text(encoding="utf-8").lstrip().startswith(
        ("rulebook", "variant", "--")) and "W001" not in p.name]


@pytest.mark.parametrize("path", _main_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_server_reports_what_drillbook_check_reports(path):
    """The same error and warning codes, at the same places, as ``drillbook check``."""
    from drillbook.check import check
    from drillbook.loader import load
    from drillbook.variants import is_variant, load_variant
    try:
        model = load_variant(str(path)) if is_variant(str(path)) else check(load(str(path)))
        want = model.warnings
    except DrillError as e:
        want = e.diagnostics
    a = analyse(str(path), {}, ParseCache())
    got = [d for ds in a.diagnostics.values() for d in ds]
    if [d.code for d in want] == ["E013"]:     # for the server: a file no rulebook uses
        assert [d.code for d in got] == ["W001"] and "'rulebook' header" in got[0].hint
        return
    key = (lambda d: (real(d.loc.path), d.loc.line, d.loc.col, d.code))
    assert sorted(map(key, got)) == sorted(map(key, want))


def test_unsaved_text_wins_over_the_disk():
    path = real(str(ORDERS))
    text = ORDERS.read_text(encoding="utf-8").replace("wing_units_battered(w) \"", "x(w) \"", 1)
    a = analyse(str(MP / "rulebook.drill"), {path: text}, ParseCache())
    assert "E202" in {d.code for d in a.diagnostics[path]}


def test_hover_on_a_parameter_and_a_field(mp):
    a, ix = mp
    h = F.hover(a, ix, *_at(ORDERS, "w.cavalry", offset=0))
    assert "**parameter** `w: Wing` of `initiative_drm`" in h.contents.value
    h = F.hover(a, ix, *_at(ORDERS, "w.cavalry", offset=2))
    assert "**field** `Wing.cavalry: Bool`" in h.contents.value


def test_every_use_has_a_definition(mp):
    _, ix = mp
    missing = {o.key for o in ix.occurrences if o.key not in ix.defs}
    assert not missing


def test_completion_after_roll_offers_the_dice(mp):
    _, ix = mp
    text = ORDERS.read_text(encoding="utf-8").replace("= roll d10 +", "= roll  +", 1)
    pos = where(text, "= roll  +", offset=len("= roll "))
    got = complete.completion(ix, text, real(str(ORDERS)), pos.line + 1, pos.character + 1)
    assert [i.label for i in got.items] == ["d10"]


def test_completion_of_a_call_argument_offers_its_levels(mp):
    _, ix = mp
    text = ORDERS.read_text(encoding="utf-8").replace(
        "initiative(w.order, Continuation)", "initiative(w.order, ", 1)
    pos = where(text, "initiative(w.order, ", offset=len("initiative(w.order, "))
    got = complete.completion(ix, text, real(str(ORDERS)), pos.line + 1, pos.character + 1)
    assert [i.label for i in got.items] == ["Continuation", "Preemption"]


def test_completion_elsewhere_offers_names_keywords_and_builtins(mp):
    _, ix = mp
    text = ORDERS.read_text(encoding="utf-8")
    pos = where(text, "= 2 * count", offset=2)
    got = {i.label: i for i in complete.completion(ix, text, real(str(ORDERS)), pos.line + 1,
                                                   pos.character + 1).items}
    assert {"order_change", "Shaken", "w", "count", "when", "d10"} <= set(got)
    assert got["order_change"].label_details.description == "Order Change Table"
    assert "§5.7" in got["order_change"].detail


def test_rename_refuses_keywords_and_clashes(mp):
    _, ix = mp
    with pytest.raises(F.Refused, match="not a name"):
        F.rename(ix, *_at(MORALE, "    Shaken", offset=4), "table", {})
    with pytest.raises(F.Refused, match="already declared"):
        F.rename(ix, *_at(MORALE, "    Shaken", offset=4), "Broken", {})


def test_positions_count_in_the_encoding_the_client_chose(mp):
    path = real(str(ORDERS))
    text = ORDERS.read_text(encoding="utf-8")
    line_no = next(n for n, ln in enumerate(text.splitlines(), 1) if "Атаковать" in ln)
    line = text.splitlines()[line_no - 1]
    col = len(line) + 1                              # the end of a line with Cyrillic in it
    try:
        for unit, expect in (("utf-16", len(line)), ("utf-8", len(line.encode("utf-8"))),
                             ("utf-32", len(line))):
            F.ENCODING["unit"] = unit
            pos = F.to_lsp(path, line_no, col)
            assert pos.character == expect
            assert F.from_lsp(path, pos) == (line_no, col)
    finally:
        F.ENCODING["unit"] = "utf-16"


def test_a_space_asks_only_for_levels(mp):
    _, ix = mp
    text = ORDERS.read_text(encoding="utf-8")
    pos = where(text, "= 2 * count", offset=2)
    got = complete.completion(ix, text, real(str(ORDERS)), pos.line + 1, pos.character + 1,
                              only_sure=True)
    assert got.items == []


def test_formatting_a_file_that_does_not_parse_gives_no_edit():
    assert F.formatting(real(str(ORDERS)), "section ((\n") is None


def _drill_files():
    return sorted(p for p in list((ROOT / "rulebooks").rglob("*.drill"))
                  + list((ROOT / "tests" / "good").rglob("*.drill")))


@pytest.mark.parametrize("path", _drill_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_parsing_by_sections_gives_the_whole_files_ast(path):
    from drillbook.syntax import parse_file
    text = path.read_text(encoding="utf-8")
    assert repr(ParseCache().parse(str(path), text)) == repr(parse_file(str(path), text))


def test_typing_in_one_section_reparses_only_that_section():
    cache, text = ParseCache(), ORDERS.read_text(encoding="utf-8")
    before = cache.parse(str(ORDERS), text).sections
    after = cache.parse(str(ORDERS), text.replace("wing_units_battered(w) \"", "wub(w) \"")).sections
    assert [b.number for a, b in zip(before, after) if a is not b] == ["5.7"]
    with pytest.raises(DrillError) as e:      # a broken section: the whole file's own error
        cache.parse(str(ORDERS), text.replace("section 5.7 ", "section 5.7 ((( ", 1))
    from drillbook.syntax import parse_file
    with pytest.raises(DrillError) as whole:
        parse_file(str(ORDERS), text.replace("section 5.7 ", "section 5.7 ((( ", 1))
    assert e.value.render() == whole.value.render()


# ------------------------------------------------------------------ the VS Code package
VSCODE = ROOT / "editor-support" / "vscode"


def test_vsce_packages_a_clean_vsix_without_license_or_repository_warnings(tmp_path):
    """``npx @vscode/vsce package`` builds the extension (bundling the language client);
    locally a missing node/npm skips this, in CI (CI=true) it is a failure."""
    import shutil
    import subprocess
    import zipfile
    missing = [f"{tool} is not on PATH" for tool in ("node", "npx") if shutil.which(tool) is None]
    if not (VSCODE / "node_modules" / "@vscode" / "vsce").is_dir():
        missing.append("editor-support/vscode/node_modules/@vscode/vsce is missing (run from "
                       "the repository root: npm ci --prefix editor-support/vscode)")
    if missing:
        if os.environ.get("CI") == "true":
            pytest.fail("CI must build the VS Code package, but " + "; ".join(missing))
        pytest.skip("; ".join(missing))
    out = tmp_path / "drillbook.vsix"
    proc = subprocess.run([shutil.which("npx"), "@vscode/vsce", "package", "-o", str(out)],
                          cwd=VSCODE, capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output[-4000:]
    warnings = [ln for ln in output.splitlines() if "WARNING" in ln or "warn" in ln.lower()]
    assert not [w for w in warnings if "LICENSE" in w or "repository" in w.lower()], warnings
    names = zipfile.ZipFile(out).namelist()
    assert "extension/dist/extension.js" in names and "extension/LICENSE.txt" in names
    assert "extension/package.json" in names and "extension/syntaxes/drillbook.tmLanguage.json" in names
    assert not [n for n in names if n.startswith("extension/test/")], names
    assert not [n for n in names if "node_modules" in n], "the client is bundled, not shipped raw"


# ------------------------------------------------------------------ docs/editors.md
def _snippets(lang: str) -> list[str]:
    import re
    text = (ROOT / "docs" / "editors.md").read_text(encoding="utf-8")
    return re.findall(r"```" + lang + r"\n(.*?)```", text, re.S)


def _editor_commands() -> dict:
    """The command line each editor's snippet in docs/editors.md starts the server with."""
    import json
    import re
    (vscode,) = _snippets("json")
    settings = json.loads(vscode)
    (lua,) = _snippets("lua")
    cmd = re.search(r"cmd = \{([^}]*)\}", lua).group(1)
    (toml,) = _snippets("toml")
    server = re.search(r'\[language-server\.drillbook\]\ncommand = "([^"]+)"\nargs = \[([^]]*)\]',
                       toml)
    assert re.search(r'language-servers = \["drillbook"\]', toml)
    assert re.search(r'file-types = \["drill"\]', toml) and 'filetypes = { "drillbook" }' in lua
    return {"vscode": [settings["drillbook.server.command"], *settings["drillbook.server.args"]],
            "neovim": re.findall(r'"([^"]+)"', cmd),
            "helix": [server.group(1), *re.findall(r'"([^"]+)"', server.group(2))]}


@pytest.mark.parametrize("editor", ["vscode", "neovim", "helix"])
def test_the_editor_snippets_name_a_command_that_exists(editor):
    import shutil
    import subprocess
    command, *args = _editor_commands()[editor]
    assert args == ["lsp"]
    exe = shutil.which(command) or shutil.which(command, path=str(Path(sys.executable).parent))
    assert exe, f"'{command}' is neither on PATH nor beside {sys.executable}"
    proc = subprocess.run([exe, *args, "--help"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.startswith("usage: drillbook lsp"), proc.stderr


def test_the_extension_defaults_are_the_documented_command():
    import json
    props = json.loads((VSCODE / "package.json").read_text(encoding="utf-8"))[
        "contributes"]["configuration"]["properties"]
    documented = _editor_commands()["vscode"]
    assert [props["drillbook.server.command"]["default"],
            *props["drillbook.server.args"]["default"]] == documented


def test_a_long_section_is_parsed_a_group_of_items_at_a_time(monkeypatch):
    from drillbook.lsp import parsecache
    from drillbook.syntax import parse_file
    terrain = MP / "terrain.drill"
    cache, text = ParseCache(), terrain.read_text(encoding="utf-8")
    cache.parse(str(terrain), text)
    calls = []
    monkeypatch.setattr(parsecache, "_PARSE", lambda p, t: calls.append(t) or parse_file(p, t))
    lines = text.split("\n")
    middle = len(lines) // 2                       # inside the longest section, 7.8.7
    assert lines[middle].strip() and not lines[middle].startswith("section")
    lines[middle] = lines[middle] + "  -- a comment typed here"
    changed = "\n".join(lines)
    got = cache.parse(str(terrain), changed)
    written = [ln for ln in calls[0].split("\n") if ln.strip()]
    assert len(calls) == 1 and len(written) < 120       # one piece, not the 320-line section
    assert repr(got) == repr(parse_file(str(terrain), changed))
