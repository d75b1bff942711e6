"""The Pygments lexer (drillbook.highlight): snippet files, the bundled rulebooks, the
plugin entry point, and random text.

Snippet files (tests/lexer/*.txt) follow Pygments' own tests/snippets format:

    optional comment

    ---input---
    <the snippet>

    ---tokens---
    'text'        Token.Type (without the leading "Token.")

Expected tokens are written by hand: there is no regeneration switch.
"""
from __future__ import annotations

import ast
import re
import string
from importlib.metadata import entry_points
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pygments.token import Error, string_to_tokentype

from drillbook import highlight
from drillbook.highlight import DrillbookLexer

ROOT = Path(__file__).resolve().parent.parent
SNIPPETS = sorted((ROOT / "tests" / "lexer").glob("*.txt"))
RULEBOOKS = sorted((ROOT / "rulebooks").glob("**/*.drill"))
GOOD = sorted((ROOT / "tests" / "good").glob("**/*.drill"))

_TOKEN_LINE = re.compile(r"""^('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")\s+(\S+)$""")


def load_snippet(path: Path) -> tuple[str, list[tuple[str, str]]]:
    """(input, [(value, token type name)]) of one snippet file, read as Pygments reads it."""
    content = path.read_text(encoding="utf-8")
    content, sep, expected = content.partition("\n---tokens---\n")
    assert sep, f"{path.name}: no ---tokens--- line"
    if content.startswith("---input---\n"):
        content = "\n" + content
    _comment, sep, text = content.rpartition("\n---input---\n")
    assert sep, f"{path.name}: no ---input--- line"
    if not text.endswith("\n"):
        text += "\n"
    tokens = []
    for n, line in enumerate(expected.splitlines(), 1):
        if not line.strip():
            continue
        m = _TOKEN_LINE.match(line)
        assert m, f"{path.name}: token line {n} is not 'value'  Type: {line!r}"
        tokens.append((ast.literal_eval(m.group(1)), m.group(2)))
    return text, tokens


def lex(text: str, **options) -> list[tuple[str, str]]:
    return [(value, str(ttype)[len("Token."):])
            for ttype, value in DrillbookLexer(**options).get_tokens(text)]


def test_snippets_exist():
    assert len(SNIPPETS) >= 15


@pytest.mark.parametrize("path", SNIPPETS, ids=lambda p: p.stem)
def test_snippet(path):
    text, expected = load_snippet(path)
    assert "".join(value for value, _ in expected) == text, \
        f"{path.name}: the expected tokens do not add up to the input"
    for _, name in expected:
        assert str(string_to_tokentype(name)) == "Token." + name, f"unknown token type {name}"
    assert lex(text) == expected


@pytest.mark.parametrize("path", RULEBOOKS + GOOD, ids=lambda p: str(p.relative_to(ROOT)))
def test_rulebook_lexes_without_errors(path):
    text = path.read_text(encoding="utf-8")
    tokens = list(DrillbookLexer().get_tokens(text))
    errors = [value for ttype, value in tokens if ttype in Error]
    assert not errors, f"Error tokens: {errors[:10]}"
    assert "".join(value for _, value in tokens) == text


def test_there_are_bundled_rulebooks():
    assert RULEBOOKS, "no rulebooks/**/*.drill found"


def test_leading_and_trailing_newlines_are_kept():
    text = "\n\n-- a comment\n\n"
    assert "".join(v for _, v in DrillbookLexer().get_tokens(text)) == text


def test_metadata():
    assert DrillbookLexer.name == "drillbook"
    assert DrillbookLexer.aliases == ["drillbook", "drill"]
    assert DrillbookLexer.filenames == ["*.drill"]
    assert DrillbookLexer.mimetypes == ["text/x-drillbook"]
    assert highlight.__doc__.splitlines()[0] == \
        "Render stage: the Pygments lexer for .drill files."


# ---------------------------------------------------------------- the plugin entry point

def _entry_point_installed() -> bool:
    return any(ep.name == "drillbook" and ep.value == "drillbook.highlight:DrillbookLexer"
               for ep in entry_points(group="pygments.lexers"))


needs_entry_point = pytest.mark.skipif(
    not _entry_point_installed(),
    reason="the 'pygments.lexers' entry point drillbook = drillbook.highlight:DrillbookLexer "
           "is not installed: declare it in pyproject.toml and reinstall (pip install -e .)")


@needs_entry_point
def test_pygments_finds_the_lexer_by_name():
    from pygments.lexers import get_lexer_by_name
    assert isinstance(get_lexer_by_name("drillbook"), DrillbookLexer)
    assert isinstance(get_lexer_by_name("drill"), DrillbookLexer)


@needs_entry_point
def test_pygments_finds_the_lexer_by_filename():
    from pygments.lexers import find_lexer_class_for_filename
    assert find_lexer_class_for_filename("x.drill") is DrillbookLexer


# ---------------------------------------------------------------- random text

def _unprocessed(text: str) -> list[tuple[object, str]]:
    return [(ttype, value) for _, ttype, value in DrillbookLexer().get_tokens_unprocessed(text)]


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_random_text_never_raises(text):
    tokens = _unprocessed(text)
    assert "".join(value for _, value in tokens) == text
    list(DrillbookLexer().get_tokens(text))          # the preprocessed path too


# Every character the grammar's terminals use, except "!" (only in "!="); text made of
# these alone is never an Error, however garbled.
ALPHABET = (string.ascii_letters + string.digits + "_ \t\n\r" + "жЁß"
            + '"\\|()[],:.=<>+-*/?' + "#@§‡†¹²³⁴⁵⁶⁷⁸⁹—–")


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=ALPHABET))
def test_text_in_the_alphabet_has_no_errors(text):
    tokens = _unprocessed(text)
    assert "".join(value for _, value in tokens) == text
    assert not [value for ttype, value in tokens if ttype in Error]
