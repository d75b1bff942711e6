"""Variants patch a base rulebook by name; diff shows what changes, down to the odds."""
from __future__ import annotations

import json
from pathlib import Path

from drillbook.cli import main

ROOT = Path(__file__).resolve().parent.parent
MP = ROOT / "rulebooks" / "musket-and-pike"
HOUSE = MP / "variants" / "harder-rally.drill"


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def variant(tmp_path, name, body):
    path = tmp_path / name
    base = (MP / "rulebook.drill").as_posix()
    path.write_text(f'variant "{name}" of "{base}"\n\n{body}', encoding="utf-8")
    return path


def test_variant_checks_and_runs_only_its_own_examples(capsys):
    code, out, err = run(capsys, "test", HOUSE)
    assert code == 0, out + err
    assert out.strip().splitlines()[-1] == "1 passed, 0 failed"


def test_diff_lists_the_cell_the_dropped_modifier_and_the_odds(capsys):
    code, out, err = run(capsys, "diff", MP, HOUSE, "--json")
    assert code == 0, err
    d = json.loads(out)
    kinds = {(c["kind"], c["target"]) for c in d["changes"]}
    assert ("cell", "order_change(Charge, Rally)") in kinds
    assert ("dropped", "order_change_drm.battered_to_rally") in kinds
    cell = next(c for c in d["changes"] if c["kind"] == "cell")
    assert (cell["before"], cell["after"]) == ("0-5", "0-4")
    battered = next(o for o in d["odds"] if o["example"].startswith("5.7 a battered wing"))
    assert battered["before"] == {"failed": "1/5", "passed": "4/5"}
    assert battered["after"] == {"failed": "1/2", "passed": "1/2"}


def test_a_patch_naming_a_missing_rule_is_located(tmp_path, capsys):
    path = variant(tmp_path, "zz-missing.drill", "drop order_chnage\n")
    code, out, err = run(capsys, "check", path)
    assert code == 1
    assert "zz-missing.drill:3:6: error[E902]: the base rulebook has no rule" in err
    assert "did you mean 'order_change'" in err


def test_two_variants_patching_one_cell_differently_clash(tmp_path, capsys):
    path = variant(tmp_path, "zz-clash.drill", "change order_change(Charge, Rally) to 0-6\n")
    code, out, err = run(capsys, "check", HOUSE, "--variant", path)
    assert code == 1
    assert "zz-clash.drill:3:1: error[E903]: clash: two variants patch 'order_change(Charge, Rally)'" in err
    assert "harder-rally.drill:5:1: note: the other patch" in err


def test_two_variants_that_agree_do_not_clash(tmp_path, capsys):
    path = variant(tmp_path, "zz-same.drill", "change order_change(Charge, Rally) to 0-4\n")
    code, out, err = run(capsys, "check", HOUSE, "--variant", path)
    assert code == 0, err


def test_changing_a_cell_of_a_range_row_is_refused_with_a_hint(tmp_path, capsys):
    path = variant(tmp_path, "zz-range.drill", "change leader_casualty(5) to LeaderRemoved\n")
    code, out, err = run(capsys, "check", path)
    assert code == 1
    assert "error[E906]: table 'leader_casualty' has no row 5" in err
    assert "that row covers a range" in err


def test_a_misspelt_row_or_column_of_a_change_says_which_was_meant(tmp_path, capsys):
    """M&P round 15 T6: E906 gives 'did you mean' as E902 does."""
    path = variant(tmp_path, "zz-col.drill", "change order_change(Charge, Rallyy) to 0-4\n")
    code, out, err = run(capsys, "check", path)
    assert code == 1 and "has no column Rallyy" in err and "did you mean 'Rally'?" in err, err
    path = variant(tmp_path, "zz-row.drill", "change order_change(Charg, Rally) to 0-4\n")
    code, out, err = run(capsys, "check", path)
    assert code == 1 and "has no row Charg" in err and "did you mean 'Charge'?" in err, err


def test_the_same_variant_given_twice_is_said_so(capsys):
    """Round 13 Q20: it said 'has no modifier battered_to_rally', the second application
    looking for what the first had dropped."""
    code, out, err = run(capsys, "diff", MP, HOUSE, HOUSE)
    assert code == 1
    assert "error[E908]: the variant" in err and "is given twice" in err, err
    assert "E902" not in err, err


def test_diff_lists_only_the_outcomes_that_change_when_there_are_many():
    """GdB round 16 T2: a distribution of many outcomes shows those whose odds change and
    counts the rest; a short one is shown whole, its changes starred."""
    from drillbook.diff import render_text
    before = {f"outcome {i}": "1/10" for i in range(10)}
    after = dict(before, **{"outcome 0": "0/10", "outcome 1": "2/10"})
    d = {"variant": "v", "base": "b", "changes": [], "examples": [], "odds": [
        {"question": "q", "example": "e", "section": "1", "before": before, "after": after}]}
    text = render_text(d)
    assert "outcome 0" in text and "outcome 1" in text and "outcome 5" not in text
    assert "(and 8 outcomes whose odds do not change)" in text
    d["odds"][0]["before"] = {"yes": "1/2", "no": "1/2"}
    d["odds"][0]["after"] = {"yes": "2/3", "no": "1/3"}
    assert render_text(d).count("   *") == 2 and "do not change" not in render_text(d)
