"""A footnote marker means what the nearest section declaring it says (charts reuse '*')."""
from __future__ import annotations

from drillbook.cli import main

BOOK = '''rulebook "m"
section 7 "Movement"
  enum Who
    Foot
    Guns
  marker * scenario_only "only if the scenario says so"
  table allowance(w: Who) -> Int
    | w    | ma |
    | Foot | 4  |
    | Guns | 2* |

section 7.8 "Terrain"
  marker * formation_hit "formation hit"
  table cost(w: Who) -> Int
    | w    | mp |
    | Foot | 2* |
    | Guns | 3  |
  example "each table reads its own section's *"
    expect marked(cost(Foot), formation_hit) and not marked(cost(Guns), formation_hit)
    expect marked(allowance(Guns), scenario_only) and not marked(allowance(Foot), scenario_only)
'''


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_same_mark_in_two_sections(tmp_path, capsys):
    (tmp_path / "rulebook.drill").write_text(BOOK, encoding="utf-8")
    code, out, err = run(capsys, "test", tmp_path)
    assert code == 0, out + err
    assert out.strip().endswith("1 passed, 0 failed")


def test_same_mark_twice_in_one_section(tmp_path, capsys):
    text = BOOK.replace('  marker * formation_hit "formation hit"\n',
                        '  marker * formation_hit "formation hit"\n  marker * other "again"\n')
    (tmp_path / "rulebook.drill").write_text(text, encoding="utf-8")
    code, out, err = run(capsys, "check", tmp_path)
    assert code == 1
    assert "error[E207]: marker '*' in section 7.8 is declared twice" in err


def test_asking_a_table_about_another_sections_mark(tmp_path, capsys):
    text = BOOK + "    expect not marked(cost(Foot), scenario_only)\n"
    (tmp_path / "rulebook.drill").write_text(text, encoding="utf-8")
    code, out, err = run(capsys, "check", tmp_path)
    assert code == 1
    assert ("error[E319]: in table 'cost' (§7.8) the mark '*' is not scenario_only: "
            "it means formation_hit") in err
