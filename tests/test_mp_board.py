"""Musket & Pike on a real board (states/board.yaml): reactions decided from positions and
facing (9), a leader's adjacency to an enemy unit that is not Morale Broken (5.7), the
hand-set relation flags gone (issue 9)."""
from __future__ import annotations

import re
from pathlib import Path

from drillbook.cli import main

ROOT = Path(__file__).resolve().parent.parent
MP = ROOT / "rulebooks" / "musket-and-pike"
BOARD = MP / "states" / "board.yaml"


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_may_react_works_out_sector_and_distance_and_cites_9(capsys):
    code, out, err = run(capsys, "explain", MP, "may_react(pikes, VoluntaryHedgehog, lancers)",
                         "--state", BOARD)
    assert code == 0, err
    assert "Ruling: yes" in out
    assert "(u = pikes, mover = lancers) is Flank (§9 Reaction)" in out
    assert "(u = pikes, p = 0705) is Flank (§6.1 Facing)" in out
    assert "hexes between the two units (u = pikes, mover = lancers) is 1 (§9 Reaction)" in out
    assert "sectors Front or Flank, distance 1-2" in out


def test_how_a_unit_may_react_lists_every_reaction_the_chart_allows(capsys):
    code, out, err = run(capsys, "ask", MP, "reactions(pikes, lancers)", "--state", BOARD)
    assert code == 0, err
    assert out.strip() == "[ReactionFire, FacingChange, VoluntaryHedgehog, Withdraw]"
    # the same cavalry two hexes off the tercio's flank: only the voluntary hedgehog and withdraw
    code, out, err = run(capsys, "ask", MP, "reactions(tercio, lancers)", "--state", BOARD)
    assert code == 0, err
    assert out.strip() == "[VoluntaryHedgehog, Withdraw]"
    # a friendly unit's movement triggers nothing
    code, out, err = run(capsys, "ask", MP, "len(reactions(pikes, muskets)) == 0", "--state", BOARD)
    assert out.strip() == "yes"


def _board_with(tmp_path, line, instead):
    """The bundled board state with one of its lines written otherwise."""
    text = BOARD.read_text(encoding="utf-8")
    assert line in text
    path = tmp_path / "board.yaml"
    path.write_text(text.replace(line, instead), encoding="utf-8")
    return path


def test_a_broken_unit_never_reacts(capsys, tmp_path):
    state = _board_with(tmp_path,
        'pikes: {class: HeavyInfantry, wing: foot, printed_morale: 7, at: "0606", facing: 330}',
        'pikes: {class: HeavyInfantry, wing: foot, printed_morale: 7, morale: Broken, at: "0606"}')
    code, out, err = run(capsys, "ask", MP, "len(reactions(pikes, lancers)) == 0", "--state", state)
    assert code == 0, err
    assert out.strip() == "yes"


def test_wc_adjacent_to_an_enemy_changes_with_the_enemy_morale(capsys, tmp_path):
    code, out, err = run(capsys, "explain", MP, "near_enemy(rupert)", "--state", BOARD)
    assert code == 0, err
    assert "Ruling: yes" in out and "§5.7" in out
    # the Broken fugitives next to him do not count; the troopers do
    assert "(e = fugitives, l = rupert) is no" in out
    assert "(e = troopers, l = rupert) is yes" in out
    broken = _board_with(tmp_path,
        'troopers: {class: Cavalry, wing: ironsides, printed_morale: 8, at: "0404", facing: 210}',
        'troopers: {class: Cavalry, wing: ironsides, printed_morale: 8, morale: Broken, at: "0404"}')
    code, out, err = run(capsys, "explain", MP, "near_enemy(rupert)", "--state", broken)
    assert code == 0, err
    assert "Ruling: no" in out
    # and the order change modifier follows: +1 with the troopers steady, nothing once broken
    code, out, _ = run(capsys, "ask", MP, "order_change_drm(horse, Rally)", "--state", BOARD)
    assert out.strip() == "0"       # -1 (Rupert) +1 (adjacent enemy); the AC is away
    code, out, _ = run(capsys, "ask", MP, "order_change_drm(horse, Rally)", "--state", broken)
    assert out.strip() == "-1"


def test_the_ac_stacked_with_or_adjacent_to_the_wc_comes_from_hexes(capsys):
    code, out, err = run(capsys, "ask", MP, "ac_near_wc(foot) and not ac_near_wc(horse)",
                         "--state", BOARD)
    assert code == 0, err
    assert out.strip() == "yes"


def test_rout_toward_the_friendly_edge_is_the_players_choice(capsys):
    code, out, err = run(capsys, "ask", MP, "rout_hexes(fugitives)", "--state", BOARD)
    assert code == 0, err
    options = out.strip()
    assert options.startswith("[") and "0302" in options
    code, out, err = run(capsys, "ask", MP, "rout_step(fugitives)", "--state", BOARD)
    assert code == 1 and "rout_hex" in err
    code, out, err = run(capsys, "ask", MP, "rout_step(fugitives)", "--state", BOARD,
                         "--choice", "rout_hex=0302")
    assert code == 0, err
    assert "0303 → 0302" in out


def test_hand_set_relation_flags_are_gone():
    flags = re.compile(r"\b(adjacent_to_enemy|army_commander_near|with_unit|stacked_with|"
                       r"on_map)\s*[:=]|\bu\.leader\b|(wing|army)_commander\s*=\s*(Stacked|Adjacent)")
    hits = []
    for path in list(MP.rglob("*.drill")) + list(MP.rglob("*.yaml")):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if flags.search(line) and "gap" not in line:
                hits.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not hits, "\n".join(hits)


STATE = """Leader:
  wc: {rating: -1, at: "0404"}
Wing:
  foot: {order: Rally, commander: wc, active: true}
Unit:
  dead: {class: HeavyInfantry, wing: foot, printed_morale: 8, morale: Eliminated, at: "0606"}
  odd: {class: HeavyInfantry, wing: foot, printed_morale: 6, morale: Shaken, at: "0607", casualty_threshold: THRESHOLD}
"""


def test_an_eliminated_unit_has_no_morale_to_check_against(capsys, tmp_path):
    state = tmp_path / "dead.yaml"
    state.write_text(STATE.replace("THRESHOLD", "4"), encoding="utf-8")
    code, out, err = run(capsys, "ask", MP, "morale_check(dead)", "--state", state, "--roll", "d10=3")
    assert code == 1 and "E606" in err and "current_morale" in err and "Traceback" not in err
    assert "(u = dead)" in err and "when u.morale != Eliminated" in err, err


def test_a_state_without_the_army_a_rule_searches_for_says_what_to_add(capsys, tmp_path):
    state = tmp_path / "no-army.yaml"
    state.write_text(STATE.replace("THRESHOLD", "4"), encoding="utf-8")
    code, out, err = run(capsys, "ask", MP, "rally(odd, ByWingCommander)", "--state", state,
                         "--roll", "d10=9")
    assert code == 1 and "E604" in err and "Traceback" not in err, err
    assert "the state file needs an Army that does" in err, err


def test_a_casualty_threshold_below_one_hit_is_refused(capsys, tmp_path):
    state = tmp_path / "odd.yaml"
    state.write_text(STATE.replace("THRESHOLD", "-3"), encoding="utf-8")
    code, out, err = run(capsys, "ask", MP, "reached_threshold(odd)", "--state", state)
    assert code == 1 and "E708" in err and "odd.casualty_threshold is -3, outside 1..40" in err
    assert f"{state}:7:" in err and "Traceback" not in err
    state.write_text(STATE.replace("THRESHOLD", "1"), encoding="utf-8")
    code, out, err = run(capsys, "ask", MP, "reached_threshold(odd)", "--state", state)
    assert code == 0 and out.strip() == "no"


def test_the_preemption_roll_cites_4_4_and_the_chart_it_shares_with_4_3(capsys):
    """The chart is headed 'Continuation and Preemption (4.3, 4.4)': the Continuation roll is
    4.3's, the Preemption roll 4.4's; the table and modifiers both rolls read stay in 4.3."""
    state = MP / "states" / "cavalry-wing.yaml"
    code, out, err = run(capsys, "explain", MP, "preemption(horse)", "--state", state,
                         "--roll", "d10=2", "--color", "never")
    assert code == 0, err
    assert "Preemption roll (w = horse) (§4.4 Continuation and Preemption)" in out
    assert "Continuation and Preemption Table (§4.3 Continuation and Preemption)" in out
    assert out.split("Rules cited: ")[1].startswith("4.4 Continuation and Preemption; 4.3 ")
    code, out, err = run(capsys, "explain", MP, "continuation(horse, false)", "--state", state,
                         "--roll", "d10=2", "--color", "never")
    assert code == 0, err
    assert ("Continuation roll (w = horse, second_attempt = no) (§4.3 Continuation and "
            "Preemption)") in out
    assert "§4.4" not in out


def test_a_state_the_question_makes_is_checked_as_a_state_file_is(capsys):
    """M&P round 13/14 Q24: 'after set pikes.at to position(7, 5)' puts an enemy in the
    lancers' hex; the question is still answered, with W702 located at the question, and
    --json lists it. Without the move there is no warning; two units apart, none either."""
    import json
    q = "after set pikes.at to position(7, 5): reactions(lancers, pikes)"
    code, out, err = run(capsys, "ask", MP, q, "--state", BOARD)
    assert code == 0 and out.strip() == "[]", err
    warned = re.findall(r"^<question>:1:1: warning\[W702\]: in the state its leading 'after' "
                        r"parts leave, (\w+) \(Unit\) does not agree with .*no_enemy_in_its_hex",
                        err, re.M)
    assert sorted(warned) == ["lancers", "pikes"], err
    code, out, err = run(capsys, "ask", MP, q, "--state", BOARD, "--json")
    assert [w["code"] for w in json.loads(out)["state_warnings"]] == ["W702", "W702"]
    code, out, err = run(capsys, "ask", MP, "reactions(lancers, pikes)", "--state", BOARD)
    assert code == 0 and "W702" not in err, err


def test_a_ruling_shows_what_a_modifier_not_applied_and_a_rule_read(capsys):
    """M&P round 15 T8, GdB R4: a modifier that does not apply shows the values its
    condition read (here the desired order); a rule's line shows the fields its value read."""
    code, out, err = run(capsys, "explain", MP, "order_change_roll(horse, Charge)", "--state",
                         MP / "states" / "cavalry-wing.yaml", "--roll", "d10=6")
    assert code == 0, err
    assert ("not applied: Cavalry Wing changing to Receive Charge (its condition does not hold) "
            "(w.cavalry = yes, desired = Charge)") in out, out
    assert ("the AC is stacked with or adjacent to the WC (w = horse) is yes (§5.7 Order Change "
            "Table) (w.army_commander = ac, w.commander = wc)") in out, out
    assert ("(e = pikes, l = wc) is yes (§5.7 Order Change Table) (e.wing.side = SecondSide, "
            "e.wing = foot, l.side = FirstSide, e.morale = Normal, e.at = 0504)") in out, out


def test_a_chart_row_is_shown_by_its_cells_and_a_lost_cell_points_at_its_gap(capsys):
    """M&P round 15 T1, T2: a row of a chart read row by row is answered with its cells (and
    its fields in --json); a — cell the source lost reads 'no value: see the gap below',
    one the chart prints as — still 'does not apply'."""
    import json
    code, out, err = run(capsys, "ask", MP, "formation_movement(Column)")
    assert code == 0 and out.strip() == "movement MAPlus2, formation_hits no", out
    code, out, err = run(capsys, "ask", MP, "formation_movement(Column)", "--json")
    assert json.loads(out)["value"]["fields"]["movement"] == {"level": "MAPlus2",
                                                              "of": "Allowance"}
    code, out, err = run(capsys, "explain", MP, "casualty_threshold_chart(7)")
    assert "at 7 the chart gives — (no value: see the gap below)" in out, out
    code, out, err = run(capsys, "explain", MP, "order_change(Charge, Charge)")
    assert "at Charge, Charge the chart gives — (does not apply)" in out, out


def test_a_morale_check_asked_with_a_friend_as_the_enemy_has_no_ruling(capsys):
    """M&P round 16 Q23: 12.4.3 retreats a Broken unit from the enemy unit; asked with a unit
    of its own side the rule has no case, said at its 'when', not a retreat from a friend."""
    code, out, err = run(capsys, "ask", MP, "take_morale_check(cuirassiers, reiters)",
                         "--state", MP / "states" / "cavalry-wing.yaml", "--roll", "d10=9")
    assert code == 1 and "error[E606]: no case of 'take_morale_check' applies here " \
        "(u = cuirassiers, enemy = reiters)" in err, err
