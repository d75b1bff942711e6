"""drillbook describe and drillbook schema: every question a rulebook answers, the records a
state holds, and a JSON Schema that validates the bundled states."""
from __future__ import annotations

import json
import re
import jsonschema
import pytest
import yaml

from conftest import ROOT, TESTS, assert_located, assert_no_traceback, run_cli

MP = ROOT / "rulebooks" / "musket-and-pike"
GDB = ROOT / "rulebooks" / "general-de-brigade"
RULEBOOKS = sorted(p for p in (ROOT / "rulebooks").iterdir() if (p / "rulebook.drill").is_file())
STATES = [(book, s) for book in RULEBOOKS for s in sorted((book / "states").glob("*.yaml"))]
SCHEMAS = ROOT / "docs" / "schemas"


def test_a_new_user_finds_order_change_roll_with_its_arguments_and_section():
    res = run_cli("describe", MP)
    assert res.rc == 0, res.err
    lines = res.out.splitlines()
    i = lines.index("§5.7 Order Change Table")
    below = lines[i + 1:]
    hit = [l for l in below if "order_change_roll(" in l][0]
    assert "check" in hit and "order_change_roll(w: Wing, desired: Order) -> Check" in hit
    assert '"Order Change roll"' in hit
    assert below[below.index(hit) + 1].strip() == "reads d10"
    # the records a state needs, with their fields, types, ranges and defaults
    assert "  Leader \"leader\"" in res.out
    assert re.search(r"\n    rating +-3\.\.3  \(required\)", res.out)
    assert re.search(r"\n    no_continue +Bool  \(default false\)", res.out)


def test_describe_one_name_in_full():
    res = run_cli("describe", MP, "order_change_roll")
    assert res.rc == 0, res.err
    out = res.out
    assert out.startswith("check order_change_roll(w: Wing, desired: Order) -> Check\n")
    assert 'ru "бросок на изменение приказа"' in out
    assert "section §5.7 Order Change Table, at rulebooks/musket-and-pike/orders.drill:" in out \
        or "section §5.7 Order Change Table, at " in out
    assert "argument w: Wing" in out and "argument desired: Order" in out
    assert "consults changes_its_order, order_change_drm, order_change" in out
    assert ("  roll d10 + order_change_drm(w, desired) clamped within "
            "order_change(w.order, desired)\n") in out
    assert "  taken only when changes_its_order(w, desired) (otherwise not taken" in out
    assert "doubt: a modified roll below 0 is read as 0" in out


def test_describe_a_table_prints_its_chart_as_the_rulebook_writes_it():
    res = run_cli("describe", MP, "order_change")
    assert res.rc == 0, res.err
    assert "columns Charge, MakeReady, ReceiveCharge, Rally; 4 rows" in res.out
    assert "    | MakeReady | 0-5 | — | 0-5 | 0-6 |" in res.out
    assert "Cell(" not in res.out and "Loc(" not in res.out


def test_describe_lists_the_choices_a_procedure_asks_for():
    res = run_cli("describe", GDB, "--json")
    assert res.rc == 0, res.err
    data = json.loads(res.out)
    q = {x["name"]: x for x in data["questions"]}["charge_sequence"]
    assert q["kind"] == "procedure"
    asked = [c["name"] for c in q["choices"]]
    assert "charger_result" in asked and "to_rally" in asked
    assert q["dice"], "the charge sequence rolls its morale tests"
    assert [s["name"] for s in q["steps"]][:2] == ["phasing_declares", "non_phasing_declares"]


def test_describe_lang_ru_and_de():
    ru = run_cli("describe", MP, "Wing", "--lang", "ru")
    assert ru.rc == 0 and 'Wing "крыло"  (§1 Компоненты игры)' in ru.out, ru.out
    assert "(обязательно; одно из Charge, MakeReady, ReceiveCharge, Rally)" in ru.out
    de = run_cli("describe", MP, "--lang", "de")
    assert de.rc == 0 and "Datensatztypen" in de.out and "würfelt d10" in de.out


def test_describe_an_unknown_name_is_located_with_a_suggestion():
    res = run_cli("describe", MP, "order_change_rol")
    d = assert_located(res, "E202", "'order_change_rol' is not a name", rc=2,
                       path="<command line>")
    assert any("order_change_roll" in r for r in d.rest)


@pytest.mark.parametrize("book", RULEBOOKS, ids=lambda p: p.name)
def test_describe_json_matches_its_schema(book):
    res = run_cli("describe", book, "--json")
    assert res.rc == 0, res.err
    data = json.loads(res.out)
    schema = json.loads((SCHEMAS / "describe.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(data, schema)
    kinds = {q["kind"] for q in data["questions"]}
    assert {"rule", "table", "check"} <= kinds or {"rule", "requirements"} <= kinds
    one = run_cli("describe", book, data["questions"][0]["name"], "--json")
    jsonschema.validate(json.loads(one.out), schema)


# ------------------------------------------------------------------ schema
def _schema(book) -> dict:
    res = run_cli("schema", book)
    assert res.rc == 0, res.err
    schema = json.loads(res.out)
    jsonschema.Draft202012Validator.check_schema(schema)
    return schema


@pytest.mark.parametrize("book,state", STATES, ids=lambda p: getattr(p, "name", str(p)))
def test_every_bundled_state_is_valid_under_its_rulebooks_schema(book, state):
    data = yaml.safe_load(state.read_text(encoding="utf-8"))
    jsonschema.validate(data, _schema(book))


def test_the_schema_refuses_what_drillbook_refuses(tmp_path):
    schema = _schema(MP)
    good = {"Leader": {"wc": {"rating": 0}}}
    jsonschema.validate(good, schema)
    for bad in ({"Leader": {"wc": {"rating": 9}}},                 # outside -3..3
                {"Leader": {"wc": {}}},                            # rating is required
                {"Leader": {"wc": {"rating": 0, "charisma": 1}}},  # no such field
                {"Legion": {"x": {}}},                             # no such record type
                {"Wing": {"w": {"order": "Attack", "commander": "wc"}}}):   # not an Order
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, schema)
        path = tmp_path / "bad.yaml"          # and drillbook itself refuses the same state
        path.write_text(yaml.safe_dump(bad), encoding="utf-8")
        res = run_cli("ask", MP, "1", "--state", path)
        assert_no_traceback(res)
        assert res.rc == 1 and "error[E7" in res.err, (bad, res.err)


def test_schema_labels_in_a_language_and_written_to_a_file(tmp_path):
    out = tmp_path / "state.schema.json"
    res = run_cli("schema", MP, "--lang", "ru", "-o", out)
    assert res.rc == 0, res.err
    schema = json.loads(out.read_text(encoding="utf-8"))
    lead = schema["properties"]["Leader"]
    assert lead["title"] == "командир"
    rating = lead["additionalProperties"]["properties"]["rating"]
    assert rating["minimum"] == -3 and rating["maximum"] == 3
    assert rating["description"] == "рейтинг командования"


def test_describe_under_a_variant_shows_what_it_dropped():
    variant = MP / "variants" / "harder-rally.drill"
    base = run_cli("describe", MP, "order_change_drm")
    res = run_cli("describe", MP, "--variant", variant, "order_change_drm")
    assert base.rc == 0 and res.rc == 0, res.err
    assert "  battered_to_rally: -2 when desired == Rally" in base.out
    assert "battered_to_rally" not in res.out
    assert "  cavalry_to_receive: +1 when w.cavalry and desired == ReceiveCharge" in res.out


def test_a_position_argument_says_how_a_question_writes_it():
    res = run_cli("describe", MP, "order_move")
    assert res.rc == 0, res.err
    assert ("argument to: Position: write position(column, row), as the map prints the hex: "
            "hex 0509 is position(5, 9)") in res.out
    bfs = run_cli("describe", ROOT / "rulebooks" / "by-fire-and-sword", "unit_in_blast", "--json")
    assert bfs.rc == 0, bfs.err
    spot = json.loads(bfs.out)["item"]["params"][0]
    assert spot == {"name": "spot", "type": "Position",
                    "written": "position(x, y), in cm: position(30, 12)"}


def test_a_facing_argument_lists_the_facings_the_board_allows():
    faces = TESTS / "good" / "board_faces.drill"
    res = run_cli("describe", faces, "faces_to", "--json")
    assert res.rc == 0, res.err
    f, home = json.loads(res.out)["item"]["params"][1:]
    assert f["written"] == ("degrees clockwise from the top of the map: 30, 90, 150, 210, 270 "
                            "or 330 (a unit faces a hex vertex)")
    assert home["type"] == "Direction" and home["written"].endswith("300 or 330")
    assert "0, 30, 60" in home["written"]
