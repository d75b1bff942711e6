"""Sections whose number the source does not print say so (``numbered "..."``), and a
ruling that cites one says the number is the rulebook's own."""
from __future__ import annotations

import json
from pathlib import Path

from conftest import run_cli

ROOT = Path(__file__).resolve().parent.parent
BFS = ROOT / "rulebooks" / "by-fire-and-sword"


def test_a_ruling_says_which_cited_numbers_are_the_rulebooks_own():
    args = ("explain", BFS, "order_after_morale_test(tabor)", "--state",
            BFS / "states" / "forum-tabor.yaml", "--roll", "d10=8")
    r = run_cli(*args)
    assert r.rc == 0, r.err
    cited = r.out.split("Rules cited: ")[1]
    assert "7.11 Morale of Wagon Trains (numbered by this rulebook" in cited
    # the seed prints no base rules: their numbers (4.3 here) are the rulebook's own too
    assert "4.3 Morale Test Results (numbered by this rulebook" in cited
    r = run_cli("ask", *args[1:], "--json")
    sections = {s["number"]: s["numbered_by_rulebook"] for s in json.loads(r.out)["sections"]}
    assert sections["7.11"] is True and sections["4.3"] is True
    mp = ROOT / "rulebooks" / "musket-and-pike"       # a printed number says nothing more
    r = run_cli("explain", mp, "order_change_roll(horse, Charge)", "--state",
                mp / "states" / "cavalry-wing.yaml", "--roll", "d10=6")
    assert r.rc == 0, r.err
    assert r.out.split("Rules cited: ")[1].startswith("5.7 Order Change Table; ")


def test_numbers_of_our_own_are_marked_section_by_section():
    from drillbook.evaluate import Rulebook
    own = {}
    for name in ("by-fire-and-sword", "general-de-brigade", "musket-and-pike"):
        for sec in Rulebook.open(str(ROOT / "rulebooks" / name)).model.sections:
            own[(name, sec.number)] = sec.numbered_by_rulebook is not None
    # BFS: the seed prints only the wagon chapter (without numbers) and the heading
    # "Chapter 9 - Maneuvers": every other number is the rulebook's own
    assert all(v for (book, n), v in own.items() if book == "by-fire-and-sword" and n != "9")
    assert own[("by-fire-and-sword", "4.3")] and not own[("by-fire-and-sword", "9")]
    # GdB prints 6.1 and 6.5 and numbers their items «1.»..«10.» and steps «1.»..«5.» (6.1.n
    # and 6.5.n cite them), but prints the chapter heading «АТАКА.» without its 6;
    # M&P prints 12.5.1 but not 12.5
    assert not own[("general-de-brigade", "6.1")] and not own[("general-de-brigade", "6.1.1")]
    assert not own[("general-de-brigade", "6.5.4")] and own[("general-de-brigade", "6")]
    assert own[("musket-and-pike", "12.5")] and not own[("musket-and-pike", "12.5.1")]
