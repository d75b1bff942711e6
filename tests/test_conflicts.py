"""The checker warns where two exceptions of one rule can apply at once, and not where
their conditions exclude each other (by level, by number, by none / not none)."""
from __future__ import annotations

from drillbook.cli import main

BOOK = '''rulebook "n"
section 1 "S"
  enum Arm
    Foot
    Horse
  record U
    l: U?
    x: Int
    arm: Arm
  define f(u: U) -> Int = 0
  exception a to f when u.l is none = 1
  exception b to f when u.l is not none = 2
  define g(u: U) -> Int = 0
  exception c to g when u.l is not none and u.arm == Foot = 1
  exception d to g when u.arm == Horse = 2
  define h(u: U) -> Int = 0
  exception e to h when u.l is not none = 1
  exception k to h when u.x == 3 = 2
'''


def test_only_overlapping_exceptions_are_warned_about(tmp_path, capsys):
    (tmp_path / "rulebook.drill").write_text(BOOK, encoding="utf-8")
    code = main(["check", str(tmp_path)])
    out, err = capsys.readouterr()
    assert code == 0
    warned = [line for line in err.splitlines() if "warning[W501]" in line]
    assert len(warned) == 1, err
    assert "exceptions 'e' and 'k' both override 'h'" in warned[0]
