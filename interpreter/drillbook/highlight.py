"""Render stage: the Pygments lexer for .drill files.

``DrillbookLexer`` colours rulebook text for Pygments (``pygmentize -l drillbook``, Sphinx,
MkDocs, ...).  It reads the same alphabet as grammar/drillbook.lark:

- ``KEYWORDS`` is every reserved word of the grammar; tests/test_parity.py checks it against
  ``drillbook.syntax.grammar_keywords()`` and against the TextMate grammar of the VS Code
  extension (editor-support/vscode), so the three never drift apart;
- the regular expressions for names, numbers, strings, section numbers, footnote markers and
  NA cells are those of the grammar's terminals.

The lexer is total: any text lexes, and only characters outside the language's alphabet
become ``Error`` tokens.  ``get_tokens_unprocessed`` joins back to the exact input;
``get_tokens`` does too for text with LF line ends that ends with a newline, since this lexer
keeps leading and trailing newlines (``stripnl`` defaults to False, unlike Pygments' default).
"""
from __future__ import annotations

from pygments.lexer import RegexLexer, bygroups, default, include, words
from pygments.token import (Comment, Error, Keyword, Name, Number, Operator, Punctuation,
                            String, Whitespace)

__all__ = ["DrillbookLexer", "KEYWORDS", "DECLARATIONS", "OPERATOR_WORDS", "CONSTANTS",
           "BUILTINS"]

#: Every reserved word of grammar/drillbook.lark (the quoted alphabetic strings).
KEYWORDS = frozenset("""
    add after and at axial board capped change check choose clamped columns combine default
    define die doubt drop each edition else enum even every example exception expect faces
    false for
    from gap given hex hexsides if in is languages least let list marker modifiers most none
    not note nothing numbered odd of option or rows
    procedure record remove replace require requirements roll rulebook scale section set
    source state step stop switch table then to true use variant vertices when where with
    within
""".split())

#: Words that open a declaration (Keyword.Declaration).
DECLARATIONS = frozenset("""
    section enum scale record die option marker board define exception table modifiers check
    example requirements require procedure step stop rulebook variant use
""".split())

#: Logical operators written as words (Operator.Word).
OPERATOR_WORDS = frozenset(["and", "or", "not"])

#: Literal constants written as words (Name.Constant).
CONSTANTS = frozenset(["true", "false", "none", "nothing"])

#: The built-in functions of the checker (drillbook/check/exprs.py); not reserved words.
BUILTINS = ("next", "prev", "min", "max", "abs", "count", "exists", "violates", "the", "all",
            "len", "sum", "first", "every", "some", "marked", "hex_distance", "hex_adjacent",
            "position", "distance", "adjacent", "neighbours", "hexes_within", "direction",
            "bearing", "turn", "step", "line")

#: Plain keywords: everything else the grammar reserves.
OTHER_KEYWORDS = KEYWORDS - DECLARATIONS - OPERATOR_WORDS - CONSTANTS

assert DECLARATIONS <= KEYWORDS and OPERATOR_WORDS <= KEYWORDS and CONSTANTS <= KEYWORDS

# The grammar's terminals, as regular expressions.
NAME = r"[^\W\d¹²³⁴⁵⁶⁷⁸⁹⁰][^\W¹²³⁴⁵⁶⁷⁸⁹⁰]*"
_NAME_END = r"(?![^\W¹²³⁴⁵⁶⁷⁸⁹⁰])"          # the word does not go on
SECNUM = r"\d+(?:\.\d+)*[a-z]?" + _NAME_END
MARK = r"\*+|#|@|§|‡|†+|[¹²³⁴⁵⁶⁷⁸⁹]"
NA = r"[—–]"
_SIGN = r"(?<![\w)\]])[+-]"                      # a sign, not a binary + or -
_WS = r"[^\S\n]+"                                # blanks within a line


def _words(ws):
    return words(sorted(ws, key=lambda w: (-len(w), w)), suffix=_NAME_END)


class DrillbookLexer(RegexLexer):
    """Pygments lexer for drillbook rulebooks (``.drill`` files)."""

    name = "drillbook"
    aliases = ["drillbook", "drill"]
    filenames = ["*.drill"]
    mimetypes = ["text/x-drillbook"]

    def __init__(self, **options):
        # Keep leading/trailing newlines so that line numbers and the joined tokens match
        # the file as written.
        options.setdefault("stripnl", False)
        super().__init__(**options)

    tokens = {
        "root": [
            # A table row: a line whose first character is "|"; its cells are lexed
            # until the end of the line.
            (r"^([^\S\n]*)(\|)", bygroups(Whitespace, Punctuation), "row"),
            # A variant's cell change: "change NAME (keys) to cell".
            (r"(change)" + _NAME_END, Keyword, "change"),
            include("common"),
        ],
        "row": [
            (r"\n", Whitespace, "#pop"),
            include("cells"),
            (NAME, Name),                     # in a row every word is a name: | d | then |
            include("common"),
        ],
        "change": [
            (r"\n", Whitespace, "#pop"),
            include("cells"),
            include("common"),
        ],
        "cells": [
            (r"--.*", Comment.Single),
            (r"\d+[+-]\d+", Number),                       # 0-5
            (r"(?:" + _SIGN + r")?\d+\.\.[+-]?\d+", Number),   # 0..5
            (r"(?:" + _SIGN + r")?\d+", Number.Integer),   # 3, -1, +2
            (MARK, Name.Decorator),                        # 2*, FullMove¹, 0**
            (r"/", Punctuation),                           # 3/2
            (r"\\", Punctuation),                          # order \ kind
        ],
        "common": [
            (r"\n", Whitespace),
            (_WS, Whitespace),
            (r"--.*", Comment.Single),
            (r'"[^"\\\n]*"', String),                  # a string without escapes: one token
            (r'"', String, "string"),
            # Declarations that name something.
            (r"(section)(" + _WS + r")(" + SECNUM + ")",
             bygroups(Keyword.Declaration, Whitespace, Name.Namespace)),
            (r"(define|exception|table|check|modifiers|requirements|require|procedure|step|stop)"
             r"(" + _WS + ")(" + NAME + ")",
             bygroups(Keyword.Declaration, Whitespace, Name.Function)),
            (r"(enum|scale|record)(" + _WS + ")(" + NAME + ")",
             bygroups(Keyword.Declaration, Whitespace, Name.Class)),
            (r"(marker)(" + _WS + ")(" + MARK + ")",
             bygroups(Keyword.Declaration, Whitespace, Name.Decorator)),
            # A field of a record value: never a keyword.
            (r"(\.)(" + NAME + ")", bygroups(Punctuation, Name.Attribute)),
            # A built-in call first: step(...) is geometry, not a procedure's step.
            (words(BUILTINS, suffix=_NAME_END + r"(?=[^\S\n]*\()"), Name.Builtin),
            (_words(DECLARATIONS), Keyword.Declaration),
            (_words(OPERATOR_WORDS), Operator.Word),
            (_words(CONSTANTS), Name.Constant),
            (_words(OTHER_KEYWORDS), Keyword),
            (NAME, Name),
            # Numbers: ranges 0..5 and -3..3, signed and plain integers.
            (r"(?:" + _SIGN + r")?\d+\.\.[+-]?\d+", Number),
            (r"(?:" + _SIGN + r")?\d+", Number.Integer),
            (NA, Name.Constant),
            (r"[¹²³⁴⁵⁶⁷⁸⁹]|§|‡|†+|#|@", Name.Decorator),
            (r"->", Punctuation),
            (r"==|!=|<=|>=|<|>|=|\+|-|\*|\.\.", Operator),
            (r"[|()\[\],:\\/?.]", Punctuation),
            (r".", Error),
        ],
        "string": [
            (r'"', String, "#pop"),
            (r"\\.", String.Escape),
            (r'[^"\\\n]+', String),
            (r"\\", String),                  # a backslash at the end of a line
            default("#pop"),                  # unterminated: the string ends with the line
        ],
    }
