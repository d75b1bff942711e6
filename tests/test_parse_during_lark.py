"""The AST is built during the Lark parse (``syntax._Node``): for every .drill file of the
repository it is exactly the AST the Builder makes from the parse tree in a second pass."""
from __future__ import annotations

from pathlib import Path

import pytest
from lark import Lark

from drillbook.errors import DrillError
from drillbook.syntax import Layout, _grammar_text, parse_file
from drillbook.syntax.build import Builder

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted(p for d in ("rulebooks", "tests") for p in (ROOT / d).rglob("*.drill"))


@pytest.fixture(scope="module")
def two_pass():
    return Lark(_grammar_text(), parser="lalr", postlex=Layout(), start=["start", "expr_start"],
                propagate_positions=True, maybe_placeholders=True)


def test_the_ast_built_during_the_parse_is_the_two_pass_ast(two_pass):
    same = 0
    for path in FILES:
        text = path.read_text(encoding="utf-8")
        try:
            inline = parse_file(str(path), text)
        except DrillError:
            continue            # the bad/ files: their errors are tested elsewhere
        tree = two_pass.parse(text if text.endswith("\n") else text + "\n", start="start")
        assert repr(Builder(str(path)).transform(tree)) == repr(inline), path
        same += 1
    assert same > 20
