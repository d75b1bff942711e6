"""The three descriptions of drillbook's words agree: the Lark grammar (the reference),
the Pygments lexer (drillbook.highlight) and the VS Code TextMate grammar
(editor-support/vscode/syntaxes/drillbook.tmLanguage.json).  Adding a keyword to the
grammar fails here until both highlighters know it."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from pygments.token import Keyword, Name, Operator

from drillbook import highlight
from drillbook.syntax import grammar_keywords

ROOT = Path(__file__).resolve().parent.parent
LARK = ROOT / "grammar" / "drillbook.lark"
TEXTMATE = ROOT / "editor-support" / "vscode" / "syntaxes" / "drillbook.tmLanguage.json"

# A group of plain words in a TextMate regex: \b(?:and|not|or)\b or \b(section)
_WORD_GROUP = re.compile(r"\\b\((?:\?:)?([A-Za-z_]+(?:\|[A-Za-z_]+)*)\)")


def _rules(node):
    """Every rule (a dict with match or begin) of a TextMate grammar, recursively."""
    if isinstance(node, dict):
        if "match" in node or "begin" in node:
            yield node
        for value in node.values():
            yield from _rules(value)
    elif isinstance(node, list):
        for value in node:
            yield from _rules(value)


def _scopes(rule) -> list[str]:
    scopes = [rule["name"]] if "name" in rule else []
    for key in ("captures", "beginCaptures"):
        scopes += [c["name"] for c in rule.get(key, {}).values() if "name" in c]
    return scopes


def textmate_words(*scope_prefixes: str) -> set[str]:
    """The words of the TextMate rules that give one of these scopes."""
    grammar = json.loads(TEXTMATE.read_text(encoding="utf-8"))
    found = set()
    for rule in _rules(grammar):
        if not any(s.startswith(scope_prefixes) for s in _scopes(rule)):
            continue
        for regex in (rule.get("match"), rule.get("begin")):
            for group in _WORD_GROUP.findall(regex or ""):
                found |= set(group.split("|"))
    return found


TEXTMATE_KEYWORD_SCOPES = ("keyword.", "storage.type.", "constant.language.")


def _diff(a_name, a, b_name, b):
    return (f"in {a_name}, not in {b_name}: {sorted(a - b)}; "
            f"in {b_name}, not in {a_name}: {sorted(b - a)}")


def test_the_grammar_has_keywords():
    assert {"section", "table", "when", "and", "true"} <= grammar_keywords()


def test_grammar_file_and_packaged_grammar_agree():
    text = re.sub(r"//[^\n]*", "", LARK.read_text(encoding="utf-8"))
    words = {w for w in re.findall(r'"([^"\\]+)"', text) if w.isalpha()}
    assert words == grammar_keywords(), _diff("grammar/drillbook.lark", words,
                                              "grammar_keywords()", grammar_keywords())


def test_pygments_keywords_equal_the_grammars():
    lark, pygments = grammar_keywords(), set(highlight.KEYWORDS)
    assert pygments == lark, _diff("the Lark grammar", lark, "highlight.KEYWORDS", pygments)


def test_textmate_keywords_equal_the_grammars():
    lark, textmate = grammar_keywords(), textmate_words(*TEXTMATE_KEYWORD_SCOPES)
    assert textmate == lark, _diff("the Lark grammar", lark, "the TextMate grammar", textmate)


def test_all_three_keyword_sets_are_equal():
    lark = grammar_keywords()
    assert lark == set(highlight.KEYWORDS) == textmate_words(*TEXTMATE_KEYWORD_SCOPES)


@pytest.mark.parametrize("pygments_set, scope", [
    ("DECLARATIONS", "storage.type.declaration"),
    ("OPERATOR_WORDS", "keyword.operator.logical"),
    ("CONSTANTS", "constant.language"),
])
def test_both_highlighters_classify_words_alike(pygments_set, scope):
    ours = set(getattr(highlight, pygments_set))
    theirs = textmate_words(scope)
    assert ours == theirs, _diff(f"highlight.{pygments_set}", ours, f"TextMate {scope}", theirs)


def test_builtins_agree_with_the_checker():
    from drillbook.check.exprs import BUILTINS
    assert set(highlight.BUILTINS) == set(BUILTINS)
    assert textmate_words("support.function") == set(BUILTINS)


@pytest.mark.parametrize("word", sorted(grammar_keywords()))
def test_pygments_lexes_each_keyword_as_one_keyword_token(word):
    tokens = [(t, v) for t, v in highlight.DrillbookLexer().get_tokens(f"= {word} x\n")]
    ttype, value = tokens[2]
    assert value == word
    assert ttype in Keyword or ttype in Operator.Word or ttype is Name.Constant, ttype


def test_completion_keywords_equal_the_grammars():
    from drillbook.lsp.complete import KEYWORDS
    lark, offered = grammar_keywords(), set(KEYWORDS)
    assert offered == lark, _diff("the Lark grammar", lark, "the language server's completion "
                                  "(drillbook.lsp.complete.KEYWORDS)", offered)
