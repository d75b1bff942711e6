"""The conventions of a mature command line, each tested: --version, a bare command that
lists every command, '-' for stdin, test --json and --junit-xml, fmt --diff, colour only on a
terminal (NO_COLOR, FORCE_COLOR, --color), --lang alike on every command, schema_version and
JSON Schemas for every --json output; doubts and provenance in rulings; the messages of
issue 13 that used to point the wrong way; the package builds without warnings."""
from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import jsonschema
import pytest

from conftest import ROOT, TESTS, assert_located, assert_no_traceback, run_cli, run_subprocess

MP = ROOT / "rulebooks" / "musket-and-pike"
GDB = ROOT / "rulebooks" / "general-de-brigade"
WING = MP / "states" / "cavalry-wing.yaml"
HARDER = MP / "variants" / "harder-rally.drill"
SCHEMAS = ROOT / "docs" / "schemas"
ANSI = re.compile(r"\x1b\[[0-9;]*m")
ORDER_CHANGE = ("explain", MP, "order_change_roll(horse, Charge)", "--state", WING,
                "--roll", "d10=6")


def schema(name):
    return json.loads((SCHEMAS / f"{name}.schema.json").read_text(encoding="utf-8"))


def run_stdin(text, *argv, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    return run_cli(*argv)


# ------------------------------------------------------------------ --version, bare command
def test_version():
    from drillbook import __version__
    res = run_subprocess("--version")
    assert res.rc == 0 and res.out.strip() == f"drillbook {__version__}"


def test_bare_drillbook_lists_every_command():
    from drillbook.cli import COMMANDS, SUBCOMMANDS
    res = run_cli()
    assert res.rc == 2
    assert {n for n, _, _ in SUBCOMMANDS} == set(COMMANDS)
    listed = re.findall(r"^  (\w+)  ", res.err, re.MULTILINE)
    assert sorted(listed) == sorted(COMMANDS), res.err
    first = res.err.splitlines()[0]
    for name in COMMANDS:
        assert name in first


# ------------------------------------------------------------------ stdin
def test_dash_reads_a_question_from_stdin(monkeypatch):
    res = run_stdin("order_change_roll(horse, Charge)\n", "ask", MP, "-", "--state", WING,
                    "--roll", "d10=6", monkeypatch=monkeypatch)
    assert res.rc == 0, res.err
    assert res.out.strip() == "passed by 2"


def test_dash_reads_a_state_from_stdin(monkeypatch):
    res = run_stdin(WING.read_text(encoding="utf-8"), "ask", MP,
                    "order_change_roll(horse, Charge)", "--state", "-", "--roll", "d10=6",
                    monkeypatch=monkeypatch)
    assert res.rc == 0, res.err
    assert res.out.strip() == "passed by 2"


def test_dash_reads_a_rulebook_file_from_stdin(monkeypatch):
    text = (TESTS / "good" / "checks.drill").read_text(encoding="utf-8")
    res = run_stdin(text, "check", "-", monkeypatch=monkeypatch)
    assert res.rc == 0 and res.out.startswith("ok: "), res.err
    res = run_stdin(text, "test", "-", monkeypatch=monkeypatch)
    assert res.rc == 0 and res.last_line.endswith(" failed"), res.err
    # an error in it is located in <stdin>
    res = run_stdin(text.replace("section", "sektion", 1), "check", "-", monkeypatch=monkeypatch)
    assert res.rc == 1 and res.err.startswith("<stdin>:"), res.err


def test_dash_as_a_real_pipe():
    p = subprocess.run([sys.executable, "-m", "drillbook", "ask", str(MP), "-", "--state",
                        str(WING), "--roll", "d10=6"], input="order_change_roll(horse, Charge)",
                       capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, PYTHONPATH=str(ROOT / "interpreter")))
    assert p.returncode == 0 and p.stdout.strip() == "passed by 2", p.stderr


def test_only_one_thing_comes_from_stdin(monkeypatch):
    res = run_stdin("x", "ask", MP, "-", "--state", "-", monkeypatch=monkeypatch)
    assert res.rc == 2 and "reads one thing from stdin" in res.err, res.err


# ------------------------------------------------------------------ test --json, --junit-xml
def _failing_book(tmp_path):
    book = tmp_path / "book"
    book.mkdir()
    (book / "rulebook.drill").write_text('''rulebook "T" edition "1" languages en

section 1 "S"
  die d6 faces 1..6
  record Unit
    morale: 2..10
    veteran: Bool = false
  modifiers steady_drm(u: Unit) "steadiness modifiers"
    veteran: -1 when u.veteran "veterans"
    always: +2 "the fog of war"
  check steady(u: Unit) "steadiness" = roll d6 + steady_drm(u) at most u.morale
  example "a veteran steadies"
    given u: Unit(morale = 5, veteran = true)
    roll d6 = 6
    expect steady(u).passed
  example "a recruit wavers"
    given u: Unit(morale = 5)
    roll d6 = 6
    expect steady(u).failed
''', encoding="utf-8")
    return book


def test_test_json_and_junit_xml(tmp_path):
    book = _failing_book(tmp_path)
    xml = tmp_path / "junit.xml"
    res = run_cli("test", book, "--json", "--junit-xml", xml)
    assert res.rc == 1
    data = json.loads(res.out)
    jsonschema.validate(data, schema("test"))
    assert (data["passed"], data["failed"], data["ok"]) == (1, 1, False)
    failed = [e for e in data["examples"] if not e["passed"]][0]
    assert failed["example"] == "a veteran steadies" and failed["section"] == "1"
    root = ET.parse(xml).getroot()
    suite = root.find("testsuite")
    assert suite.get("tests") == "2" and suite.get("failures") == "1"
    cases = {c.get("name"): c for c in suite.findall("testcase")}
    assert cases["a veteran steadies"].find("failure") is not None
    assert cases["a recruit wavers"].find("failure") is None
    # the bundled rulebooks: all pass, as JSON too
    res = run_cli("test", MP, GDB, "--json")
    assert res.rc == 0, res.out[-2000:]
    data = json.loads(res.out)
    jsonschema.validate(data, schema("test"))
    assert data["failed"] == 0 and data["passed"] > 50


def test_a_failed_check_example_shows_dice_modifiers_total_and_target(tmp_path):
    res = run_cli("test", _failing_book(tmp_path))
    assert res.rc == 1
    line = [l for l in res.out.splitlines() if "steady(u).passed" in l][0]
    assert "expected steady(u).passed, but it is false:" in line
    assert "d6 rolled 6" in line
    assert "-1 veterans" in line and "+2 the fog of war" in line and "(total +1)" in line
    assert "total 7" in line and "needed 5 or less" in line and "failed by 2" in line


# ------------------------------------------------------------------ fmt --diff
def test_fmt_diff_prints_a_unified_diff_and_writes_nothing(tmp_path):
    f = tmp_path / "messy.drill"
    messy = 'rulebook "T" edition "1" languages en\n\nsection 1 "S"\n  table t(n: 1..2) -> Int\n    | n | v |\n    | 1 | 10 |\n    | 2 | 2 |\n'
    f.write_text(messy, encoding="utf-8")
    res = run_cli("fmt", "--diff", f)
    assert res.rc == 1
    assert f.read_text(encoding="utf-8") == messy
    assert res.out.startswith(f"--- {f}\n+++ {f} (formatted)\n@@ ")
    assert "\n-    | 2 | 2 |\n" in res.out and "\n+    | 2 | 2  |\n" in res.out
    assert "\n     | 1 | 10 |\n" in res.out
    res = run_cli("fmt", "--diff", "--json", f)
    data = json.loads(res.out)
    jsonschema.validate(data, schema("fmt"))
    assert data["changed"] == [str(f)] and data["written"] is False
    run_cli("fmt", f)
    res = run_cli("fmt", "--diff", f)
    assert res.rc == 0 and res.out == ""


# ------------------------------------------------------------------ colour
def test_output_that_is_not_a_terminal_stays_plain(monkeypatch):
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)
    res = run_cli(*ORDER_CHANGE)
    assert res.rc == 0 and not ANSI.search(res.out)


@pytest.mark.parametrize("argv,env,coloured", [
    (["--color", "always"], {}, True),
    (["--color", "never"], {"FORCE_COLOR": "1"}, False),
    ([], {"FORCE_COLOR": "1"}, True),
    ([], {"FORCE_COLOR": "1", "NO_COLOR": "1"}, False),
    (["--color", "always"], {"NO_COLOR": "1"}, True),
    (["--color=auto"], {}, False),
])
def test_colour_flags_and_environment(monkeypatch, argv, env, coloured):
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    res = run_cli(*ORDER_CHANGE, *argv)                                   # a ruling
    assert res.rc == 0 and bool(ANSI.search(res.out)) == coloured
    if coloured:
        assert ANSI.sub("", res.out) == run_cli(*ORDER_CHANGE, "--color", "never").out
    err = run_cli("ask", MP, "order_change_rol(horse, Charge)", "--state", WING, *argv)
    assert err.rc == 1 and bool(ANSI.search(err.err)) == coloured          # an error
    diff = run_cli("diff", MP, HARDER, *argv)
    assert diff.rc == 0 and bool(ANSI.search(diff.out)) == coloured        # a diff


def test_colour_on_a_real_terminal():
    import pty
    master, slave = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    env["PYTHONPATH"] = str(ROOT / "interpreter")
    p = subprocess.Popen([sys.executable, "-m", "drillbook", *map(str, ORDER_CHANGE)],
                         stdout=slave, stderr=slave, env=env)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    p.wait(timeout=120)
    os.close(master)
    out = b"".join(chunks).decode("utf-8", "replace")
    assert p.returncode == 0 and ANSI.search(out), out
    env["NO_COLOR"] = "1"
    p = subprocess.run([sys.executable, "-m", "drillbook", *map(str, ORDER_CHANGE)],
                       capture_output=True, text=True, env=env, timeout=120)
    assert not ANSI.search(p.stdout)


# ------------------------------------------------------------------ --lang
LABEL_COMMANDS = [
    ("check", MP), ("test", MP), ("describe", MP), ("schema", MP),
    ("ask", MP, "order_change_roll(horse, Charge)", "--state", WING, "--roll", "d10=6"),
    ("explain", MP, "order_change_roll(horse, Charge)", "--state", WING, "--roll", "d10=6"),
    ("odds", MP, "order_change_roll(horse, Charge)", "--state", WING),
    ("run", GDB, "charge_sequence(fr_18e, tomsk)", "--state", GDB / "states" / "charge.yaml",
     "--seed", "1"),
    ("diff", MP, HARDER),
]


@pytest.mark.parametrize("argv", LABEL_COMMANDS, ids=lambda a: a[0])
@pytest.mark.parametrize("lang", ["en", "ru", "de"])
def test_lang_is_the_same_on_every_command(argv, lang):
    res = run_cli(*argv, "--lang", lang)
    assert_no_traceback(res)
    assert res.rc in (0, 1) and "E810" not in res.err, res.err
    bad = run_cli(*argv, "--lang", "xx")
    assert_located(bad, "E810", "no labels or phrases in 'xx'", rc=2, path="<command line>")


def test_render_takes_every_language_too(tmp_path):
    res = run_cli("render", MP, "-o", tmp_path / "site", "--lang", "de", "--json")
    assert res.rc == 0, res.err
    data = json.loads(res.out)
    jsonschema.validate(data, schema("render"))
    assert any(p.endswith("index.html") for p in data["written"])


def test_the_effects_log_is_translated():
    argv = ("explain", MP, "change_order(horse, Charge)", "--state", WING, "--roll", "d10=0")
    en = run_cli(*argv)
    assert "  - horse.order: MakeReady → Charge" in en.out, en.out
    ru = run_cli(*argv, "--lang", "ru")
    assert "  - horse.order: Готовность → Атаковать" in ru.out, ru.out
    assert "Изменения в состоянии игры, по порядку:" in ru.out
    de = run_cli("ask", *argv[1:], "--lang", "de")
    assert de.rc == 0 and "horse.order: Make Ready → Charge" in de.out   # no German label: English


def test_one_phrase_table():
    from drillbook.phrases import LANGUAGES, PHRASES
    for key, forms in PHRASES.items():
        assert set(forms) == set(LANGUAGES), key
    pkg = ROOT / "interpreter" / "drillbook"
    owners = [p.relative_to(pkg).as_posix() for p in pkg.rglob("*.py")
              if re.search(r'"de": *"', p.read_text(encoding="utf-8"))]
    assert owners == ["phrases.py"], owners


# ------------------------------------------------------------------ schema_version, schemas
JSON_COMMANDS = [
    ("check", ("check", MP, "--json")),
    ("check", ("check", TESTS / "bad" / "e001_stray_paren.drill", "--json")),
    ("ask", ("ask", MP, "order_change_roll(horse, Charge)", "--state", WING, "--roll", "d10=6",
             "--json")),
    ("explain", (*ORDER_CHANGE, "--json")),
    ("explain", ("explain", HARDER, "order_change_roll(horse, Rally)", "--state", WING,
                 "--roll", "d10=6", "--json")),
    ("odds", ("odds", MP, "order_change_roll(horse, Charge)", "--state", WING, "--json")),
    ("run", ("run", GDB, "charge_sequence(fr_18e, tomsk)", "--state", GDB / "states" / "charge.yaml",
             "--seed", "1", "--json")),
    ("diff", ("diff", MP, HARDER, "--json")),
    ("describe", ("describe", MP, "--json")),
    ("describe", ("describe", MP, "Wing", "--json")),
    ("test", ("test", MP, "--json")),
    ("fmt", ("fmt", "--check", MP, "--json")),
    ("coverage", ("coverage", TESTS / "good" / "coverage.drill", "--json")),
]


@pytest.mark.parametrize("name,argv", JSON_COMMANDS, ids=lambda x: x if isinstance(x, str) else "")
def test_every_json_output_has_a_schema_version_and_matches_its_schema(name, argv):
    res = run_cli(*argv)
    assert_no_traceback(res)
    data = json.loads(res.out)
    assert data["schema_version"] == 1
    assert list(data)[0] == "schema_version"
    jsonschema.validate(data, schema(name))


def test_every_schema_is_a_valid_json_schema_and_has_a_test():
    files = sorted(SCHEMAS.glob("*.schema.json"))
    tested = {n for n, _ in JSON_COMMANDS} | {"render"}
    assert {f.name.split(".")[0] for f in files} == tested
    for f in files:
        jsonschema.Draft202012Validator.check_schema(json.loads(f.read_text(encoding="utf-8")))


# ------------------------------------------------------------------ doubts and provenance
def test_explain_lists_the_57_doubts_under_the_ruling():
    res = run_cli(*ORDER_CHANGE)
    assert res.rc == 0, res.err
    out = res.out
    block = out.split("Doubts in the sources of this ruling:\n")[1].split("\n\n")[0]
    lines = block.splitlines()
    assert len([l for l in lines if l.startswith("  - doubt (§5.7, ")]) == 3, block
    assert any("order_change_roll" in l and "read as 0 ('clamped')" in l for l in lines)
    assert any("order_change)" in l and "orientation (rows = current order)" in l for l in lines)
    assert any("commander_near_enemy" in l and "'Leader'" in l for l in lines)   # a modifier's
    assert out.index("Doubts in the sources") < out.index("Rules cited:")


def test_ask_json_carries_the_doubts():
    res = run_cli("ask", MP, "order_change_roll(horse, Charge)", "--state", WING, "--roll",
                  "d10=6", "--json")
    data = json.loads(res.out)
    assert {(d["kind"], d["section"], d["of"]) for d in data["doubts"]} == {
        ("doubt", "5.7", "order_change_roll"), ("doubt", "5.7", "order_change"),
        ("doubt", "5.7", "order_change_drm.commander_near_enemy"),
        ("gap", "5.7", "order_change_drm.commander")}
    assert all(re.fullmatch(r".+orders\.drill:\d+", d["at"]) for d in data["doubts"])
    assert data["variant_changes"] == []


def test_a_conflict_doubt_is_named_as_one():
    res = run_cli("ask", MP, "continuation(horse, false)", "--state", WING, "--roll", "d10=3",
                  "--option", "NGBG_Landskrona", "--json")
    assert res.rc == 0, res.err
    kinds = {(d["kind"], d["of"]) for d in json.loads(res.out)["doubts"]}
    assert ("conflict", "initiative_drm.landskrona") in kinds, kinds


def test_under_a_variant_the_changed_cell_is_marked_with_the_variants_file_and_line(tmp_path):
    state = tmp_path / "charge.yaml"
    state.write_text("Leader:\n  wc: {rating: 0}\nWing:\n  w: {order: Charge, commander: wc}\n",
                     encoding="utf-8")
    res = run_cli("explain", HARDER, "order_change_roll(w, Rally)", "--state", state,
                  "--roll", "d10=5")
    assert res.rc == 0, res.err
    rel = os.path.relpath(HARDER)
    assert f"the chart gives 0-4 (changed by the variant, {rel}:5)" in res.out, res.out
    assert 'Changed by the variant "House rule: charges are hard to call off":' in res.out
    assert f"  - order_change(Charge, Rally): 0-5 → 0-4 (§5.7, {rel}:5)" in res.out
    assert f"  - order_change_drm.battered_to_rally: dropped (§5.7, {rel}:8)" in res.out
    data = json.loads(run_cli("ask", HARDER, "order_change_roll(w, Rally)", "--state", state,
                              "--roll", "d10=5", "--json").out)
    kinds = {(c["kind"], c["target"], c["at"]) for c in data["variant_changes"]}
    assert ("cell", "order_change(Charge, Rally)", f"{rel}:5") in kinds


def test_diff_text_says_why_an_example_changes():
    res = run_cli("diff", MP, HARDER)
    data = json.loads(run_cli("diff", MP, HARDER, "--json").out)
    for e in data["examples"]:
        for why in e.get("why", []):
            assert f"      why: {why}" in res.out


# ------------------------------------------------------------------ messages
def test_asking_without_a_state_says_so():
    res = run_cli("ask", MP, "order_change_roll(horse, Charge)")
    d = assert_located(res, "E202", "unknown name 'horse': no state given", rc=1,
                       path="<question>")
    assert any("--state FILE" in r for r in d.rest)


def test_a_misspelt_level_without_a_state_suggests_the_level_first():
    """'Ready' is a word of 'MakeReady' (round 13 Q21: it suggested only 'Rally', and said
    the question had no entities, though a table needs no state)."""
    res = run_cli("ask", MP, "order_change(Charge, Ready)")
    d = assert_located(res, "E202", "unknown name 'Ready'", rc=1, path="<question>")
    assert "no state given" not in d.message
    hint = " ".join(d.rest)
    assert "did you mean 'MakeReady'" in hint and "--state FILE" in hint, hint


def test_checking_a_used_file_points_to_its_folder():
    res = run_cli("check", MP / "orders.drill")
    d = assert_located(res, "E013", "is a part of the rulebook in", rc=1)
    assert any(f"drillbook check {os.path.relpath(MP)}" in r for r in d.rest), d.rest


def test_a_missing_field_does_not_suggest_an_unlike_one():
    from drillbook.errors import did_you_mean
    assert did_you_mean("facing", ["class", "wing", "printed_morale"]) is None   # as seen
    assert did_you_mean("moral", ["class", "wing", "morale"]) == "did you mean 'morale'?"
    res = run_cli("ask", MP, "pikes.thing", "--state", MP / "states" / "terrain-map.yaml")
    d = assert_located(res, "E203", "a Unit has no field 'thing'", rc=1)
    assert not any("wing'?" in r for r in d.rest)
    assert any("its fields: class, wing" in r for r in d.rest)


def test_a_marker_is_named_by_its_glyph_in_a_question():
    res = run_cli("ask", MP, "marked(order_restrictions(Rally, Firing), ⁴)")
    assert res.rc == 0 and res.out.strip() == "yes", res.err
    res = run_cli("ask", MP, "marked(order_restrictions(Charge, Firing), ⁴)")
    assert res.rc == 0 and res.out.strip() == "no", res.err


# ------------------------------------------------------------------ packaging
def test_the_package_builds_a_wheel_and_an_sdist_without_warnings(tmp_path):
    pytest.importorskip("build")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    p = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir",
                        str(tmp_path), str(ROOT)], capture_output=True, text=True, env=env,
                       timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    warnings = [l for l in (p.stdout + p.stderr).splitlines() if "warning" in l.lower()]
    assert warnings == []
    built = sorted(f.name for f in tmp_path.iterdir())
    assert any(n.endswith(".whl") for n in built) and any(n.endswith(".tar.gz") for n in built)
    import tarfile
    import zipfile
    whl = next(tmp_path.glob("*.whl"))
    with zipfile.ZipFile(whl) as z:
        meta = z.read(next(n for n in z.namelist() if n.endswith("METADATA"))).decode()
        assert any(n.endswith("licenses/LICENSE") for n in z.namelist())
        assert "drillbook/syntax/drillbook.lark" in z.namelist()
    assert "License-Expression: MIT" in meta and "Classifier: " in meta
    assert "Project-URL: " in meta
    with tarfile.open(next(tmp_path.glob("*.tar.gz"))) as t:
        assert any(n.endswith("/LICENSE") for n in t.getnames())


def test_check_untranslated_lists_each_label_without_a_declared_language():
    res = run_cli("check", "tests/good/labels.drill", "--untranslated", cwd=ROOT)
    assert res.rc == 0, res.err
    listed = [l for l in res.out.splitlines() if "untranslated" in l]
    assert listed == ['tests/good/labels.drill:12:3: untranslated (ru): d10 "ten-sided die"'], res.out
    res = run_cli("check", "rulebooks/musket-and-pike", "--untranslated", cwd=ROOT)
    assert res.rc == 0, res.err
    for line in res.out.splitlines()[1:]:          # every line located, naming what it is
        assert re.match(r'rulebooks/musket-and-pike/\w+\.drill:\d+:\d+: untranslated \(ru\): \S+ ".+"$', line), line


def test_every_error_and_warning_code_the_package_gives_is_in_the_reference_table():
    given = set()
    for path in (ROOT / "interpreter" / "drillbook").rglob("*.py"):
        given |= set(re.findall(r'"([EW]\d{3})"', path.read_text(encoding="utf-8")))
    doc = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")
    table = set(re.findall(r"^\| ([EW]\d{3}) \|", doc, re.M))
    assert len(given) > 80
    assert given - table == set(), "codes given but not in docs/language.md's table"


def test_no_dict_written_in_the_package_gives_a_key_twice():
    """A key written twice in a dict literal silently keeps the last value: the phrase
    'not_applicable' once printed 'the chart gives does not apply' that way."""
    import ast
    twice = []
    for path in sorted((ROOT / "interpreter" / "drillbook").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Dict):
                keys = [k.value for k in node.keys if isinstance(k, ast.Constant)]
                twice += [f"{path.name}:{node.lineno}: {k!r}" for k in set(keys)
                          if keys.count(k) > 1]
    assert twice == []


def test_an_empty_list_is_shown_as_one(tmp_path):
    """An empty list answers '[]', an empty list of effects 'nothing' (both are empty at run
    time; round 13: rout_hexes of a unit that does not rout printed 'nothing')."""
    state = tmp_path / "s.yaml"
    state.write_text("Unit:\n  a: {hits: 0}\n", encoding="utf-8")
    book = TESTS / "good" / "empty_list.drill"
    res = run_cli("ask", book, "wounded(a)", "--state", state)
    assert res.rc == 0 and res.out.strip() == "[]", res.err
    res = run_cli("explain", book, "wounded(a)", "--state", state)
    assert res.rc == 0 and "Ruling: []" in res.out, res.err
