"""The bundled rulebooks check clean and their examples pass; the acceptance questions
of the spine (issue 2) give the answers the printed rules give."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from drillbook.cli import main

ROOT = Path(__file__).resolve().parent.parent
BOOKS = sorted(p.parent for p in (ROOT / "rulebooks").glob("*/rulebook.drill"))
MP = ROOT / "rulebooks" / "musket-and-pike"


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("book", BOOKS, ids=lambda p: p.name)
def test_rulebook_checks_clean(book, capsys):
    code, out, err = run(capsys, "check", book)
    assert code == 0, err
    assert out.startswith("ok: ")
    assert "warning" not in err


@pytest.mark.parametrize("book", BOOKS, ids=lambda p: p.name)
def test_rulebook_examples_pass(book, capsys):
    code, out, err = run(capsys, "test", book)
    last = out.strip().splitlines()[-1]
    m = re.fullmatch(r"(\d+) passed, (\d+) failed", last)
    assert m, out
    assert code == 0 and m.group(2) == "0", out
    assert int(m.group(1)) > 0


def test_musket_and_pike_has_at_least_40_examples(capsys):
    code, out, _ = run(capsys, "test", MP)
    passed = int(re.search(r"(\d+) passed, 0 failed", out).group(1))
    assert passed >= 40


def test_odds_of_a_shaken_morale_7_unit_is_7_in_10(capsys):
    code, out, err = run(capsys, "odds", MP, "morale_check(pikes)", "--json",
                         "--state", MP / "states" / "shaken-unit.yaml")
    assert code == 0, err
    outcomes = {o["outcome"]: o["fraction"] for o in json.loads(out)["outcomes"]}
    assert outcomes == {"passed": "7/10", "failed": "3/10"}


def test_explain_order_change_names_5_7_and_every_modifier(capsys):
    code, out, err = run(capsys, "explain", MP, "order_change_roll(horse, Charge)",
                         "--state", MP / "states" / "cavalry-wing.yaml", "--roll", "d10=6")
    assert code == 0, err
    assert "§5.7" in out
    assert "passes by 2" in out
    for applied in ("applied −1: WC's leadership rating", "applied −2: plus the AC's rating",
                    "applied +1: Leader adjacent to an enemy", "applied −1: Cavalry Wing changing to Charge"):
        assert applied in out
    assert "not applied: Cavalry Wing changing to Receive Charge" in out
    assert "not applied: Changing to Rally" in out


def test_explain_json_is_stable(capsys):
    code, out, err = run(capsys, "explain", MP, "order_change_roll(horse, Charge)", "--json",
                         "--state", MP / "states" / "cavalry-wing.yaml", "--roll", "d10=6")
    data = json.loads(out)
    assert set(data) >= {"question", "type", "value", "shown", "dice", "trace", "sections", "ruling"}
    assert data["value"]["passed"] is True and data["value"]["total"] == 3
    assert data["dice"] == [{"die": "d10", "face": 6, "how": "given"}]
    mods = data["trace"][0]["children"][-1]
    assert mods["kind"] == "modifiers" and len(mods["modifiers"]) == 6


def test_check_lists_doubts_with_sections(capsys):
    code, out, _ = run(capsys, "check", MP, "--doubts")
    assert code == 0
    assert re.search(r"orders\.drill:\d+:\d+: doubt \(§5\.7\)", out)
    assert re.search(r"morale\.drill:\d+:\d+: gap \(§12\.5\.1\)", out)


def test_lost_values_stay_visible_gaps(capsys):
    code, out, err = run(capsys, "ask", MP, "movement_allowance(HeavyInfantryMover)")
    assert code == 0 and out.strip() == "none"


def test_interpreter_names_no_game_concept():
    words = re.compile(r"\b(wagon|cavalry|cossack|musket|morale|infantry|artillery|terrain|"
                       r"leader|charge|rally|formation)\b", re.I)
    hits = []
    for py in (ROOT / "interpreter" / "drillbook").rglob("*.py"):
        for n, line in enumerate(py.read_text(encoding="utf-8").splitlines(), 1):
            if words.search(line):
                hits.append(f"{py.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not hits, "\n".join(hits)


def test_no_eval_or_exec_of_rule_text():
    for py in (ROOT / "interpreter" / "drillbook").rglob("*.py"):
        text = py.read_text(encoding="utf-8")
        assert not re.search(r"\b(eval|exec)\(", text), py


PLACEHOLDER = re.compile(r"\b\d+\.x\b|\bTODO\b|\bTBD\b|\bXXX\b|\bFIXME\b")


def test_no_placeholder_is_left_in_a_rulebook():
    """A label or annotation citing '(4.x)' or saying TODO is a reader's dead end (BFS round
    13 T7: 'numerical strength (4.x)'); every bundled .drill file, variants included."""
    found = [f"{p.relative_to(ROOT)}:{n}: {m.group(0)}"
             for p in sorted((ROOT / "rulebooks").rglob("*.drill"))
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             for m in PLACEHOLDER.finditer(line)]
    assert not found, "\n".join(found)
