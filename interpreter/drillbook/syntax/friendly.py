"""Parse stage, part 3: Lark's syntax errors in the words of a rules author.

As Lark recommends, typical mistakes are written as small bad examples; an error whose
parser state matches one of them gets that example's message and hint.
"""
from __future__ import annotations

import re

from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from ..errors import Loc
from ..lines import split_lines

_NAMES = {
    "NAME": "a name", "STRING": 'a quoted text ("...")', "INT": "a number",
    "SECNUM": "a section number like 12.4.1", "_NL": "the end of the line",
    "_INDENT": "an indented block", "_DEDENT": "the end of the block", "SIGN": "'+' or '-'",
    "CMP": "a comparison (==, !=, <, <=, >, >=)", "MARK": "a footnote marker (* # @ § ‡ ¹ ²...)",
    "NA": "'—'", "STAR": "'*'", "$END": "the end of the file",
}

# (message, hint, bad examples).  Each example fails at the point the message describes.
_MISTAKES = [
    ("'=' gives a rule its value; a comparison is written '=='",
     "write 'when x == y'",
     ['rulebook "x"\nsection 1 "s"\n  define a = 1 when b = 2\n',
      'rulebook "x"\nsection 1 "s"\n  exception e to f when x = 1 = 2\n']),
    ("a section needs a number and a quoted title, like: section 12.4 \"Results\"",
     None,
     ['rulebook "x"\nsection "Results"\n', 'rulebook "x"\nsection 12.4\n',
      'rulebook "x"\nsection Results\n']),
    ("a section's rules must be indented under it",
     "indent the lines that belong to the section",
     ['rulebook "x"\nsection 1 "s"\ndefine a = 1\n']),
    ("a table row starts and ends with '|'",
     "write each row as | key | cell | cell |",
     ['rulebook "x"\nsection 1 "s"\n  table t(a: A) -> Int\n    | a | v\n']),
    ("a table needs its parameters and its result type: table name(key: Type) -> Type",
     None,
     ['rulebook "x"\nsection 1 "s"\n  table t\n', 'rulebook "x"\nsection 1 "s"\n  table t(a: A)\n']),
]


def _describe(names) -> str:
    words = sorted({_NAMES.get(n, _literal(n)) for n in names})
    if not words:
        return ""
    if len(words) > 6:
        words = words[:6] + ["..."]
    return "expected " + ", ".join(words)


def _literal(name: str) -> str:
    from . import _parser
    parser, _ = _parser()
    for term in parser.terminals:
        if term.name == name:
            return f"'{term.pattern.value}'" if term.pattern.type == "str" else name.lower()
    return name.lower()


def _two_names(text: str, tok, expected):
    """Two names in a row where a search was expected ('Make Ready'): a name is one word.
    (start column, end column, message, hint), or None."""
    from . import _parser
    where = {t.name for t in _parser()[0].terminals
             if t.pattern.type == "str" and t.pattern.value == "where"}
    if not where & set(expected):
        return None
    lines = split_lines(text)
    if not 1 <= tok.line <= len(lines):
        return None
    before = re.search(r"\b([A-Za-z_]\w*) +([A-Za-z_]\w*) *$", lines[tok.line - 1][:tok.column - 1])
    if before is None:
        return None
    a, b = before.groups()
    return (before.start() + 1, before.start(2) + len(b) + 1,
            f"two names in a row: '{a} {b}'",
            f"a name is one word ({a}{b}); a search is written '{a} {b} where ...'")


def _after_inside(text: str, tok):
    """'x and after set ...': an 'after' inside a longer expression, read as a name.
    (start column, end column, message, hint), or None."""
    lines = split_lines(text)
    if not 1 <= tok.line <= len(lines):
        return None
    before = re.search(r"(?<![\w(])after +$", lines[tok.line - 1][:tok.column - 1])
    if before is None or re.match(r" *(expect|=|when)? *$", lines[tok.line - 1][:before.start()]):
        return None
    return (before.start() + 1, before.start() + 6,
            "'after' inside a longer expression goes in parentheses",
            "write x and (after set u.f to 1: y), or begin with it: expect after set u.f to 1: y")


def _match_mistake(e: UnexpectedInput):
    from . import _parser
    parser, _ = _parser()
    examples = {i: ex for i, (_, _, ex) in enumerate(_MISTAKES)}
    try:
        found = e.match_examples(lambda t: parser.parse(t, start="start"), examples,
                                 use_accepts=True)
    except Exception:  # a broken example must never hide the user's error
        return None
    return None if found is None else _MISTAKES[found]


# the words that start a declaration: they stand at a section's own indentation
_DECLARATION_WORDS = {"define", "exception", "table", "check", "modifiers", "requirements",
                      "require", "procedure", "example", "enum", "scale", "record", "die",
                      "option", "marker", "section"}


def _line_mistake(text: str, path: str, line: int, col: int):
    """Mistakes seen from the line itself: a '#' comment, a line indented too far."""
    lines = text.splitlines()
    if not 1 <= line <= len(lines):
        return None
    here = lines[line - 1]
    stripped = here.lstrip(" \t")
    first = len(here) - len(stripped) + 1
    if col != first:
        return None
    if stripped.startswith(("#", "//")):
        return Loc(path, line, col, line, col + (1 if stripped[0] == "#" else 2)), \
            "comments start with '--' in drillbook", "write: -- " + stripped.lstrip("#/ ")
    word = stripped.split(None, 1)[0] if stripped else ""
    above = next((l for l in reversed(lines[:line - 1])
                  if l.strip() and not l.lstrip().startswith("--")), None)
    if word in _DECLARATION_WORDS and above is not None:
        depth = len(above) - len(above.lstrip(" \t"))
        if first - 1 > depth:
            return Loc(path, line, col, line, col + len(word)), \
                f"this '{word}' is indented more than the line above", \
                f"a {word} starts at the section's indentation: indent it as the " \
                "declarations beside it (only when, '=', source, doubt, note and gap lines " \
                "go under a declaration)"
    return None


def _in_condition(text: str, line: int, col: int) -> bool:
    """Is this column of the line inside a 'when' (or 'if') condition?"""
    lines = text.splitlines()
    before = lines[line - 1][:col - 1] if 1 <= line <= len(lines) else ""
    words = before.replace("(", " ").split()
    return "when" in words or "if" in words


def explain_unexpected(e: UnexpectedInput, text: str, path: str):
    """Return (loc, message, hint) for a Lark syntax error."""
    line = getattr(e, "line", 1) or 1
    col = getattr(e, "column", 1) or 1
    seen = _line_mistake(text, path, line, col)
    if seen is not None:
        return seen
    if isinstance(e, UnexpectedCharacters):
        ch = text[e.pos_in_stream] if e.pos_in_stream < len(text) else ""
        if ch == '"':
            return Loc(path, line, col), "this text is not closed: a '\"' is missing", \
                "close the quote on the same line"
        if ch == ";":
            return Loc(path, line, col), "unexpected character ';': drillbook writes no ';'", \
                "effects one after another are joined with 'then': set a to 1 then set b to 2 " \
                "(after several: after (set a to 1 then set b to 2): ...)"
        return Loc(path, line, col), f"unexpected character {ch!r}", _describe(e.allowed or [])
    if isinstance(e, UnexpectedEOF):
        lines = split_lines(text) or [""]
        return Loc(path, len(lines), len(lines[-1]) + 1), "the file ends in the middle of a rule", \
            _describe(e.expected)
    if isinstance(e, UnexpectedToken):
        tok = e.token
        mistake = _match_mistake(e)
        if tok.type == "$END":
            lines = split_lines(text.rstrip("\n")) or [""]
            loc = Loc(path, len(lines), len(lines[-1]) + 1)
        elif tok.type in ("_NL", "_INDENT", "_DEDENT"):
            loc = Loc(path, tok.line, tok.column)
        else:
            loc = Loc(path, tok.line, tok.column, tok.end_line or tok.line,
                      tok.end_column or tok.column + len(str(tok)))
        if mistake is None and str(tok) == "=" and _in_condition(text, tok.line, tok.column):
            mistake = _MISTAKES[0]
        two = None if mistake or tok.type == "$END" else (
            _after_inside(text, tok) or _two_names(text, tok, e.expected))
        if two is not None:
            start, end, message, hint = two
            return Loc(path, tok.line, start, tok.line, end), message, hint
        if mistake:
            return loc, mistake[0], mistake[1] or _describe(e.expected)
        shown = {"_NL": "unexpected end of line", "_INDENT": "unexpected indented line",
                 "_DEDENT": "unexpected end of the block", "$END": "unexpected end of the file"}.get(
            tok.type, f"unexpected '{tok}'")
        return loc, shown, _describe(e.expected)
    return Loc(path, line, col), "syntax error", None
