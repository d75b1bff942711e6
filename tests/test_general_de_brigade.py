"""General de Brigade, charges 6.1-6.5 (issue 5): the rulebook checks clean, its examples
pass, and the acceptance questions give the answers the printed rules give."""
from __future__ import annotations

import json
import re
from pathlib import Path

from drillbook.cli import main

ROOT = Path(__file__).resolve().parent.parent
GDB = ROOT / "rulebooks" / "general-de-brigade"
STATES = GDB / "states"
DISORDERED = STATES / "disordered-battalion.yaml"
CHARGE = STATES / "charge.yaml"


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_check_is_clean_without_warnings(capsys):
    code, out, err = run(capsys, "check", GDB)
    assert code == 0, err
    assert out.startswith("ok: General de Brigade")
    assert "warning" not in err and err == ""


def test_at_least_30_examples_and_all_pass(capsys):
    code, out, err = run(capsys, "test", GDB)
    m = re.search(r"(\d+) passed, (\d+) failed", out)
    assert m, out
    assert code == 0 and m.group(2) == "0", out
    assert int(m.group(1)) >= 30


def test_disordered_battalion_20_cm_away_lists_both_restrictions_with_sections(capsys):
    code, out, err = run(capsys, "explain", GDB, "may_charge(bn_4e, tomsk, Charge)",
                         "--state", DISORDERED)
    assert code == 0, err
    ruling = next(line for line in out.splitlines() if line.startswith("Ruling:"))
    assert ruling.startswith("Ruling: no:")
    assert "§6.1.1 Command Radius" in ruling and "15 cm" in ruling
    assert "§6.1.2 Formed" in ruling
    assert ruling.count("§") == 2
    assert "VIOLATED: §6.1.1" in out and "VIOLATED: §6.1.2" in out
    assert "Dice:" not in out          # the optional rule is off by default: nothing rolled


def test_ask_lists_both_violations(capsys):
    code, out, err = run(capsys, "ask", GDB, "may_charge(bn_4e, tomsk, Charge)",
                         "--state", DISORDERED)
    assert code == 0, err
    assert out.startswith("refused: §6.1.1 ") and "; §6.1.2 " in out


def test_optional_rule_attack_order_and_a_4_lifts_the_radius(capsys):
    args = ("--state", DISORDERED, "--option", "OptionalCommandRoll", "--roll", "d6=4")
    # the disordered battalion: the radius no longer refuses, its disorder still does
    code, out, err = run(capsys, "ask", GDB, "may_charge(bn_4e, tomsk, Charge)", *args)
    assert code == 0, err
    assert out.strip().startswith("refused: §6.1.2 ") and "§6.1.1" not in out
    # the formed battalion in the same place, same order, same roll: allowed
    code, out, err = run(capsys, "ask", GDB, "may_charge(bn_46e, tomsk, Charge)", *args)
    assert code == 0, err
    assert out.strip() == "allowed"
    code, out, err = run(capsys, "explain", GDB, "command_roll(bn_46e, tomsk)", *args)
    assert "rolled 4, modifier +1, total 5; needed 5 or more: passed" in out
    assert "applied +1: the unit had an Attack order" in out


def test_optional_rule_off_a_4_changes_nothing(capsys):
    code, out, err = run(capsys, "ask", GDB, "may_charge(bn_46e, tomsk, Charge)",
                         "--state", DISORDERED, "--roll", "d6=4")
    assert code == 0, err
    assert out.strip().startswith("refused: §6.1.1 ")


def test_optional_rule_needs_the_attack_order_for_a_4(capsys):
    code, out, err = run(capsys, "ask", GDB, "command_roll(bn_46e, tomsk)", "--state",
                         DISORDERED, "--option", "OptionalCommandRoll", "--roll", "d6=3")
    assert out.strip() == "failed by 1"


RUN = ("run", GDB, "charge_sequence(fr_18e, tomsk)", "--state", CHARGE,
       "--option", "OptionalCommandRoll")


def test_run_stopped_by_an_error_prints_the_log_up_to_it_then_the_error(capsys):
    # round 11 Q8: a reaction not open in the middle of a phase; the player must see how
    # far the phase got, and why Counter is closed (the charger has halted)
    code, out, err = run(capsys, "run", GDB, "charge_phase", "--state", STATES / "charge-phase.yaml",
                         "--choice", "reaction=Bogus")
    assert code == 2 and "error[E611]" in err and "asked by chosen_reaction(d = " in err, err
    assert err.startswith("<command line>:") and "note: the rule asks for the choice here" in err
    assert out.startswith("Procedure: charge_phase, up to the error below"), out[:200]
    assert "stopped by the error below" in out and "Traceback" not in err
    assert out.index("stopped by the error below") > out.index("1. ")


def test_run_with_given_dice_prints_the_log_step_by_step(capsys):
    code, out, err = run(capsys, *RUN, "--roll", "d6=4", "--choice", "reaction=Stand",
                         "--choice", "charger_result=Pass", "--choice", "defender_result=Waver")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("Procedure: charge_sequence(fr_18e, tomsk)  (§6.5")
    steps = [re.sub(r" \((\w+\.\w+ = [^,()]+(, )?)+\)", "", line.strip())   # less the
             for line in lines if re.match(r"  \d+\. ", line)]          # fields read
    expected = ["1. (1) the phasing player declares",
                "2. (2) then the non-phasing player declares his: skipped",
                "3. stop: 6.5 (1)-(2), every charge is declared before any is resolved",
                "4. stop if the charge may not be declared",
                "5. 6.1(2): a charger no longer formed since it declared",
                "6. a counter-charge chosen at (3) against a charge that lapsed",
                "7. 6.1.8: a charge that lapsed never reaches contact",
                "8. stop: the charge lapsed: the procedure goes on",
                "9. (3) 6.1.9", "10. (3) the charged unit chooses its reaction",
                "11. a counter-charge chosen at (3) lapses",
                "12. 6.1(5), 6.5 step 4: a Manoeuvre chosen at (3) lapses",
                "13. step 1: the chargers move half", "14. step 2: the defenders fire",
                "15. step 3: other units fire", "16. step 4: the chargers test their morale",
                "17. step 4: the result of the chargers' test",
                "18. 6.1.8", "19. stop if the chargers failed",
                "20. step 5: the defenders or counter-chargers test",
                "21. step 5: the result of the defenders' test",
                "22. step 5: a counter-charger that wavers, retreats or routs",
                "23. the chargers close to contact"]
    assert len(steps) == len(expected)
    for got, want in zip(steps, expected):
        assert got.startswith(want), (got, want)
    for change in ("fr_18e.charging: none → tomsk", "tomsk.reaction: none → Stand",
                   "tomsk.fired: no → yes", "fr_18e.supporting_fire: 0 → 1",
                   "fr_18e.test_result: none → Pass", "tomsk.morale: Steady → Wavering",
                   "tomsk.disordered: no → yes", "fr_18e.in_contact: no → yes"):
        assert f"→ {change}" in out, change
    assert "d6 rolled 4" in out
    assert "Dice: d6 = 4 (given)" in out
    assert "the players chose charger_result = Pass" in out
    # the log runs in order: the chargers test before the defenders
    assert out.index("fr_18e.test_result") < out.index("tomsk.defender_result")


def test_run_a_failed_test_stops_before_the_defenders(capsys):
    code, out, err = run(capsys, *RUN, "--roll", "d6=5", "--choice", "reaction=Counter",
                         "--choice", "charger_result=Retreat")
    assert code == 0, err
    assert "→ fr_18e.morale: Steady → Retreating" in out
    assert "→ fr_2e.disordered: no → yes" in out
    assert "→ tomsk.charging: none → fr_18e" in out
    assert "the procedure stops here" in out
    assert "tomsk.defender_result" not in out


def test_same_seed_gives_the_same_log(capsys):
    first = run(capsys, *RUN, "--seed", "6")
    second = run(capsys, *RUN, "--seed", "6")
    assert first[0] == 0 and second[0] == 0, first[2]
    assert first[1] == second[1]
    assert "(drawn)" in first[1] and "Procedure: charge_sequence" in first[1]


def test_different_seeds_can_give_different_logs(capsys):
    logs = {run(capsys, *RUN, "--seed", str(s))[1] for s in range(1, 8)}
    assert len(logs) > 1


def test_odds_of_contact_follow_the_optional_roll(capsys):
    code, out, err = run(capsys, "odds", GDB,
                         "after charge_sequence(fr_18e, tomsk): fr_18e.in_contact",
                         "--state", CHARGE, "--option", "OptionalCommandRoll",
                         "--choice", "reaction=Stand", "--choice", "charger_result=Pass",
                         "--choice", "defender_result=Pass", "--json")
    assert code == 0, err
    import json
    outcomes = {o["outcome"]: o["fraction"] for o in json.loads(out)["outcomes"]}
    assert outcomes == {"yes": "1/2", "no": "1/2"}


# ------------------------------------------------------------------ the table (issue 9)
TABLE = STATES / "table.yaml"


def ask(capsys, question, state=TABLE, *extra):
    code, out, err = run(capsys, "ask", GDB, question, "--state", state, *extra)
    assert code == 0, err
    return out.strip()


def test_the_table_is_a_real_board_of_a_dozen_units():
    units = TABLE.read_text(encoding="utf-8").split("Unit:")[1].split("ChargeLane:")[0]
    assert len([l for l in units.splitlines() if "at: [" in l and "facing:" in l]) >= 12


def test_distances_and_the_arc_come_from_positions(capsys, tmp_path):
    assert ask(capsys, "may_charge(fr_18e, tomsk, Charge)") == "allowed"
    # the 4e stands 27 cm from its brigadier, and a wood (the one gap-marked input) blocks its
    # view of the jägers: both refuse, each with its section
    out = ask(capsys, "may_charge(fr_4e, jaegers, Charge)")
    assert out.startswith("refused: §6.1.1 ") and "§6.1.4 " in out and out.count("§") == 2
    # the brigadier rides up to the 4e: the radius no longer refuses
    near = tmp_path / "near.yaml"
    near.write_text(TABLE.read_text(encoding="utf-8").replace("at: [25, -9]", "at: [45, -8]"),
                    encoding="utf-8")
    out = ask(capsys, "may_charge(fr_4e, jaegers, Charge)", near)
    assert "§6.1.1" not in out and "§6.1.4" in out
    # the 18e turns 30° away: its target leaves the 22° arc (6.1.5 and 6.1.6)
    turned = tmp_path / "turned.yaml"
    turned.write_text(TABLE.read_text(encoding="utf-8").replace(
        "at: [20, 0], facing: 0", "at: [20, 0], facing: 30"), encoding="utf-8")
    out = ask(capsys, "may_charge(fr_18e, tomsk, Charge)", turned)
    assert out.startswith("refused: §6.1.5 ") and "§6.1.6 " in out


def test_halt_feeds_back_the_halted_chargers_may_not_charge(capsys):
    args = ("--choice", "reaction=Stand", "--choice", "charger_result=Halt")
    assert ask(capsys, "after charge_sequence(fr_18e, tomsk): fr_18e.test_result", TABLE,
               *args) == "Halt"
    assert ask(capsys, "after charge_sequence(fr_18e, tomsk): may_charge(fr_18e, tomsk, Charge).allowed",
               TABLE, *args) == "no"
    assert ask(capsys, "after charge_sequence(fr_18e, tomsk): violates(may_charge(fr_18e, tomsk, Charge), not_halted)",
               TABLE, *args) == "yes"


def test_a_halted_unit_is_refused_citing_6_5_4(capsys, tmp_path):
    halted = tmp_path / "halted.yaml"
    halted.write_text(TABLE.read_text(encoding="utf-8").replace(
        "attack_order: true, charge_move: 20,", "attack_order: true, test_result: Halt, charge_move: 20,"),
        encoding="utf-8")
    out = ask(capsys, "may_charge(fr_18e, tomsk, Charge)", halted)
    assert out.startswith("refused: §6.5.4 ") and "Halt" in out and out.count("§") == 1
    # and the charge sequence stops at the declaration
    code, out, err = run(capsys, "run", GDB, "charge_sequence(fr_18e, tomsk)", "--state", halted)
    assert code == 0, err
    assert "the procedure stops here" in out and "fr_18e.charging" not in out


def test_relation_flags_the_positions_decide_are_gone():
    text = "\n".join(p.read_text(encoding="utf-8") for p in GDB.rglob("*.drill"))
    for flag in ("commander_distance", "within_arc", "ChargePath", "line_of_sight:", "needs_turn", "straight_run:",
                 "charged_by:", "faces_charger:"):
        assert flag not in text, flag
    # line of sight over terrain has no geometry in the seed: an input, marked gap
    assert re.search(r'gap "sight_blocked: line of sight over terrain', text)


# ------------------------------------------------------------------ the rules questioner's findings
FLANK = STATES / "flank.yaml"
PASSES = ("--choice", "charger_result=Pass", "--choice", "defender_result=Pass")


def test_a_friendly_unit_or_the_unit_itself_is_refused_as_a_target(capsys):
    assert ask(capsys, "may_charge(fr_2e, fr_18e, Charge)", CHARGE).startswith(
        "refused: §6.1 the target is another unit, of the enemy")
    out = ask(capsys, "may_charge(fr_18e, fr_18e, Charge)", CHARGE)
    assert out.startswith("refused: §6.1 the target is another unit, of the enemy")


def test_turning_to_face_takes_the_flank_plus_away(capsys):
    q = "after charge_sequence(hus, drag): hus.flank_plus"
    assert ask(capsys, q, FLANK, "--choice", "reaction=Stand", *PASSES) == "yes"
    assert ask(capsys, q, FLANK, "--choice", "reaction=Counter", *PASSES) == "no"


def test_the_defender_rolls_its_own_die_to_counter_charge(capsys):
    args = ("--option", "OptionalCommandRoll", "--choice", "reaction=Counter", *PASSES)
    q = "after charge_sequence(fr_bn, ru_bn): ru_bn.reaction"
    assert ask(capsys, q, FLANK, "--roll", "d6=5", *args) == "Counter"
    code, out, err = run(capsys, "ask", GDB, q, "--state", FLANK, "--roll", "d6=3", *args)
    assert code != 0 and "error[E611]" in err and "no Counter unless may_charge" in err


def test_a_state_with_nobody_phasing_names_the_missing_flag(capsys, tmp_path):
    # FINDINGS2 M4: with no unit marked phasing every charge is refused by the enemy rule;
    # the ruling's doubts say why (the gap stands on `enemies`, which the refusal reads)
    state = tmp_path / "nobody-phasing.yaml"
    state.write_text("Commander:\n  b1: {rank: Brigadier, at: [0, -10]}\nUnit:\n"
                     "  a: {arm: Infantry, at: [0, 0], facing: 0, brigadier: b1, charge_move: 20}\n"
                     "  b: {arm: Infantry, at: [0, 18], facing: 180, charge_move: 20}\n")
    code, out, err = run(capsys, "explain", GDB, "may_charge(a, b, Charge)", "--state", state)
    assert code == 0, err
    assert out.startswith("Question:") and "Ruling: no: §6.1 Charge Restrictions: the target is another unit, of the enemy" in out
    assert "belong to different players (their phasing flags differ) (u = a, t = b) is no" in out
    doubts = out.split("Doubts in the sources of this ruling:")[1]
    assert "gap (§6, enemies):" in doubts and "marks no unit 'phasing: true'" in doubts


def test_printed_item_numbers_are_not_called_the_rulebooks_own(capsys):
    # FINDINGS2 M2: S3 prints the restrictions «1.»..«10.» and the steps «1.»..«5.»; only the
    # chapter number 6 (heading «АТАКА.») is the rulebook's own
    code, out, err = run(capsys, "explain", GDB, "may_charge(bn_4e, tomsk, Charge)",
                         "--state", DISORDERED)
    assert code == 0, err
    cited = out.split("Rules cited: ")[1]
    assert "6.1.1 Command Radius;" in cited and "6.5.4 The Chargers' Morale Test;" in cited
    assert "6.1.1 Command Radius (numbered" not in cited
    assert "6 Charges (numbered by this rulebook, not by the source)" in cited


def test_a_list_written_without_brackets_says_to_bracket_it(capsys, tmp_path):
    text = (GDB / "states" / "charge.yaml").read_text(encoding="utf-8")
    assert "retreats_through: [fr_2e]" in text
    state = tmp_path / "charge.yaml"
    state.write_text(text.replace("retreats_through: [fr_2e]", "retreats_through: fr_2e"),
                     encoding="utf-8")
    code, out, err = run(capsys, "ask", GDB, "charge_distance(fr_18e)", "--state", state)
    assert code == 1 and "Traceback" not in err
    assert "error[E707]: fr_18e.retreats_through must be a list of Unit, written in brackets" in err
    assert "hint: write [fr_2e], or [] for none" in err


def test_a_comma_list_for_a_choice_is_told_to_repeat_the_flag(capsys):
    code, out, err = run(capsys, "run", GDB, "charge_sequence(fr_18e, tomsk)", "--state",
                         GDB / "states" / "charge.yaml", "--option", "OptionalCommandRoll",
                         "--roll", "d6=4", "--choice", "reaction=Stand",
                         "--choice", "charger_result=Pass,Halt", "--choice", "defender_result=Waver")
    assert code == 2 and "E611" in err and "Traceback" not in err
    assert "--choice charger_result=Pass --choice charger_result=Halt" in err, err


def test_run_in_russian_writes_none_in_russian(capsys):
    code, out, err = run(capsys, *RUN, "--roll", "d6=4", "--choice", "reaction=Stand",
                         "--choice", "charger_result=Pass", "--choice", "defender_result=Waver",
                         "--lang", "ru")
    assert code == 0, err
    assert "fr_18e.charging: не задано → tomsk" in out, out
    assert ": none →" not in out


def test_a_declaration_charge_phase_strikes_out_warns_with_the_rulebooks_note(capsys, tmp_path):
    """A charged unit's own declaration written for charge_phase breaks consistent_charge
    (W702); the warning says what the rulebook notes of it: charge_phase strikes it out
    (round 13 Q22b)."""
    state = tmp_path / "phase.yaml"
    state.write_text(
        "Commander:\n  b_fr: {rank: Brigadier, at: [10, -8], phasing: true}\n"
        "  b_ru: {rank: Brigadier, at: [10, 28]}\nUnit:\n"
        "  fr: {arm: Infantry, phasing: true, at: [0, 0], brigadier: b_fr, charge_move: 20, "
        "charging: ru}\n"
        "  fr2: {arm: Infantry, phasing: true, at: [20, 0], brigadier: b_fr, charge_move: 20}\n"
        "  ru: {arm: Infantry, at: [0, 18], facing: 180, brigadier: b_ru, charge_move: 20, "
        "charging: fr2}\n", encoding="utf-8")
    code, out, err = run(capsys, "ask", GDB, "ru.charging", "--state", state)
    assert code == 0 and out.strip() == "fr2", err
    assert "warning[W702]: ru (Unit)" in err and "own_charge_declared_first" in err, err
    assert "the rulebook notes: a state written for charge_phase holds the declarations" in err


LONELY = """\
Commander:
  b_far: {rank: Brigadier, at: [100, -40], phasing: true}
  b_ru: {rank: Brigadier, at: [0, 60]}
Unit:
  fr: {arm: Infantry, phasing: true, at: [100, 0], brigadier: b_far, charge_move: 20, attack_order: true}
  ru: {arm: Infantry, at: [100, 18], facing: 180, brigadier: b_ru, charge_move: 20, morale: Routing}
"""


def test_odds_list_the_doubts_of_the_rules_they_may_consult(capsys, tmp_path):
    """GdB round 14 N4: the 2/3 of a charge out of command radius under the optional
    command roll (+2: an Attack order, a routing target) rests on the doubt '+1 for each
    that holds'; odds shows it first, the rule that reads the die, then the others' gaps
    first, in text and JSON (rounds 14 and 16)."""
    state = tmp_path / "lonely.yaml"
    state.write_text(LONELY, encoding="utf-8")
    args = ["odds", GDB, "may_charge(fr, ru, Charge)", "--state", state,
            "--option", "OptionalCommandRoll"]
    code, out, err = run(capsys, *args)
    assert code == 0, err
    text = out.split("Doubts in the rules this question may consult:")
    assert len(text) == 2 and "allowed" in text[0] and "2/3" in text[0], out
    rules = text[1].split("Doubts the sections consulted state of all their rules:")[0]
    lines = [line for line in rules.splitlines() if line.startswith("  - ")]
    assert "command_roll)" in lines[0] and "+1 for each" in lines[0], lines  # a die reads it
    kinds = [line.split()[1] for line in lines[1:]]      # the rest: gaps first
    assert kinds == sorted(kinds, key=lambda k: k != "gap") and "gap" in kinds
    code, out, err = run(capsys, *args, "--json")
    data = json.loads(out)
    assert any(d["of"] == "command_roll" and "+1 for each" in d["text"] for d in data["doubts"])


Q23 = """\
Commander:
  b_fr: {rank: Brigadier, at: [0, -5], phasing: true}
  b_ru: {rank: Brigadier, at: [5, 26]}
Unit:
  fr: {arm: Infantry, phasing: true, at: [0, 0], brigadier: b_fr, charge_move: 20, charging: ru}
  ru: {arm: Infantry, at: [0, 18], facing: 180, brigadier: b_ru, charge_move: 20}
  ru2: {arm: Infantry, at: [6, 16], facing: 200, brigadier: b_ru, charge_move: 20, charging: fr}
"""


def test_a_procedure_step_shows_the_fields_its_condition_read(capsys, tmp_path):
    """GdB round 14 N22: fr's counter-charge on ru2 lapses because its own charge went into
    contact; the step says so with the fields its 'when' read, and a skipped step too."""
    state = tmp_path / "q23.yaml"
    state.write_text(Q23, encoding="utf-8")
    code, out, err = run(capsys, "run", GDB, "charge_phase", "--state", state,
                         "--choice", "reaction=Stand", "--choice", "reaction=Counter",
                         *["--choice", "charger_result=Pass"] * 2,
                         *["--choice", "defender_result=Pass"] * 2)
    assert code == 0, err
    lapsed = [line for line in out.splitlines() if "a counter-charge chosen at (3) lapses" in line]
    assert any(line.endswith("it stands (d.test_result = Pass, d.in_contact = yes)")
               for line in lapsed), lapsed
    assert any("d.in_contact = no): skipped" in line for line in lapsed), lapsed


def test_the_doubts_of_skipped_steps_come_last_under_their_own_heading(capsys):
    """GdB round 15 Q26: a step whose condition did not hold keeps its doubts, apart, after
    those of the rules that decided and of the whole sections; --json marks them."""
    args = ("explain", GDB, "charge_sequence(fr_18e, tomsk)", "--state", CHARGE,
            "--option", "OptionalCommandRoll", "--roll", "d6=4", "--choice", "reaction=Stand",
            "--choice", "charger_result=Pass", "--choice", "defender_result=Waver")
    code, out, err = run(capsys, *args)
    assert code == 0, err
    heads = [line for line in out.splitlines() if line.startswith("Doubts")]
    assert heads == ["Doubts in the sources of this ruling:",
                     "Doubts the sections consulted state of all their rules:",
                     "Doubts of the procedure steps this run skipped (their condition did "
                     "not hold):"], heads
    skipped = out.split(heads[2])[1]
    assert "charge_sequence.charge_lapses" in skipped, skipped
    assert "charge_sequence.charge_lapses" not in out.split(heads[2])[0]
    code, out, err = run(capsys, *args, "--json")
    doubts = json.loads(out)["doubts"]
    flags = [d.get("skipped", False) for d in doubts]
    assert flags == sorted(flags) and any(flags) and not all(flags)
