"""Errors: the one error type of drillbook, raised by ``fail()``, rendered with a caret.

Every error a user can cause — in a rulebook, a state file, an expression or the command
line — becomes a ``DrillError`` carrying one or more located diagnostics.  The CLI prints
them as ``path:line:col: error[CODE]: message``, the source line, a caret and a hint.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .lines import split_lines

_SOURCES: dict[str, list[str]] = {}


def remember_source(path: str, text: str) -> None:
    """Keep a file's text so that diagnostics can quote its lines."""
    _SOURCES[path] = split_lines(text)


def source_lines(path: str) -> list[str] | None:
    """The lines of a remembered file (split as the lexer counts them)."""
    return _SOURCES.get(path)


def source_line(path: str, line: int) -> str | None:
    lines = _SOURCES.get(path)
    if lines is None or line < 1:
        return None
    return lines[line - 1] if line <= len(lines) else None


@dataclass(slots=True, unsafe_hash=True)
class Loc:
    """Where something stands in a source file (1-based line and column).  Never changed
    once made (compared and hashed by value), though not frozen: a parse makes one per
    node, and a frozen class's ``__init__`` costs three times as much."""
    path: str
    line: int = 1
    col: int = 1
    end_line: int = 0
    end_col: int = 0

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}"

    def __reduce__(self):       # a cached model unpickles its many locations quickly
        return Loc, (self.path, self.line, self.col, self.end_line, self.end_col)


@dataclass(slots=True)
class Diagnostic:
    loc: Loc
    code: str
    message: str
    hint: str | None = None
    severity: str = "error"
    notes: list[tuple[Loc, str]] = field(default_factory=list)
    given: str | None = None      # the command-line argument at fault (``--choice a=b``)

    def render(self) -> str:
        out = [f"{self.loc}: {self.severity}[{self.code}]: {self.message}"]
        out += _quote(self.loc)
        for loc, text in self.notes:
            out.append(f"{loc}: note: {text}")
            out += _quote(loc)
        if self.hint:
            out.append(f"  hint: {self.hint}")
        return "\n".join(out)

    def as_json(self) -> dict:
        return {"path": self.loc.path, "line": self.loc.line, "col": self.loc.col,
                "severity": self.severity, "code": self.code, "message": self.message,
                "hint": self.hint}


def _quote(loc: Loc) -> list[str]:
    line = source_line(loc.path, loc.line)
    if line is None:
        return []
    width = 1
    if loc.end_line == loc.line and loc.end_col > loc.col:
        width = loc.end_col - loc.col
    pad = "".join("\t" if ch == "\t" else " " for ch in line[: max(loc.col - 1, 0)])
    return [f"  {line}", f"  {pad}{'^' * width}"]


class DrillError(Exception):
    """The one error type.  Holds the diagnostics that caused it."""

    def __init__(self, diagnostics: list[Diagnostic]):
        super().__init__(diagnostics[0].message if diagnostics else "error")
        self.diagnostics = diagnostics

    def render(self) -> str:
        return "\n".join(d.render() for d in self.diagnostics)


def fail(loc: Loc, code: str, message: str, hint: str | None = None,
         notes: list[tuple[Loc, str]] | None = None, given: str | None = None) -> None:
    """Raise the one error type at ``loc``; ``given``: the value of a command-line argument
    the error is about (a choice's ``name=value``), which the command line points at."""
    raise DrillError([Diagnostic(loc, code, message, hint, notes=list(notes or []),
                                 given=given)])


_SOUNDS_LIKE_Y = ("uni", "use", "usu", "uti", "ure", "eu", "ewe", "one", "once")


def a_or_an(noun) -> str:
    """'an Order', 'a Unit': a noun of a message (a type, a record, an enum) with the
    article its first sound takes ('u' as in Unit, 'eu' and 'one' take 'a')."""
    noun = str(noun)
    low = noun.lower()
    vowel = low[:1] in ("a", "e", "i", "o", "u") and not low.startswith(_SOUNDS_LIKE_Y)
    return ("an " if vowel else "a ") + noun


def no_such_face(die: str, face: int, low: int, high: int) -> tuple[str, str | None]:
    """The message and hint of a face a die does not have (E414): a d10 whose faces run
    1..10 reads the 0 printed on the die as 10, and one that runs 0..9 the reverse."""
    message = f"{die} has no face {face} (its faces: {low}..{high})"
    if face == 0 and low == 1:
        return message, f"this rulebook reads the die's 0 as {high}: give {die}={high}"
    if face == high + 1 and low == 0:
        return message, f"this rulebook reads the die's {face} as 0: give {die}=0"
    return message, None


def did_you_mean(name: str, candidates) -> str | None:
    """'did you mean ...?' for names like ``name``: first those it is a whole word or run of
    words of ('Ready' for 'MakeReady', 'hits' for 'formation_hits'), then those close in
    spelling and, unless very close, starting with the same letter (so 'facing' does not
    suggest 'wing'); three at most."""
    from difflib import SequenceMatcher, get_close_matches   # only when there is a mistake
    candidates = list(candidates)
    want = name.lower().replace("_", "")
    part = [c for c in candidates if len(want) >= 3 and c.lower() != name.lower()
            and want in _word_runs(c)]
    close = [c for c in get_close_matches(name, candidates, n=3, cutoff=0.6)
             if c[:1].lower() == name[:1].lower()
             or SequenceMatcher(None, name, c).ratio() >= 0.75]
    found = list(dict.fromkeys(part[:3] + close))[:3]
    if not found:
        return None
    return "did you mean " + " or ".join(f"'{c}'" for c in found) + "?"


def _word_runs(name: str) -> set:
    """Every run of whole words of a CamelCase or snake_case name, lower case, joined."""
    import re
    words = [w.lower() for w in re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+", name)]
    return {"".join(words[i:j]) for i in range(len(words)) for j in range(i + 1, len(words) + 1)}
