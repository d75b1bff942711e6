"""Format stage: tidy .drill source without losing a comment.

``format_text(text)`` returns the tidied text of one file:

- every comment and every blank-line paragraph is kept; runs of blank lines become one,
  blank lines at the start and the end of the file go, and the file ends with one newline;
- each block level is indented by 2 spaces; a line that continues an expression inside
  ( ) or [ ] keeps its place relative to the line that opened the bracket;
- a comment line is indented like the innermost block it reaches into (among those open
  around it, the one before it and the one the next line opens);
- trailing whitespace is stripped;
- the cells of consecutive table rows (``| a | b |`` lines) are padded to the width of
  their column, measured in display width (wide characters count 2, combining marks 0).

Nothing else inside a line changes.  The input must parse (a ``DrillError`` is raised
otherwise, and nothing is written), and the formatted text is parsed again and must give
the same AST, locations aside (``same_ast``), or the formatter refuses with a
``DrillError`` rather than change what a file means.

``format_paths(paths, check)`` formats every .drill file under the given files and
folders: with ``check`` it only returns the files that would change; otherwise it
rewrites them atomically (a temporary file in the same folder, then ``os.replace``).
"""
from __future__ import annotations

import os
import tempfile
import unicodedata

from .ast import node_fields
from .errors import Diagnostic, DrillError, Loc, fail, remember_source
from .lines import normalize
from .syntax import parse_file

INDENT = "  "

__all__ = ["format_text", "format_paths", "strip_locs", "same_ast", "display_width"]


# ------------------------------------------------------------------ scanning one line
def _scan(line: str, depth: int):
    """Read a line of code from bracket depth ``depth``: return (depth after the line,
    index where a ``--`` comment starts or None, indexes of the ``|`` outside strings)."""
    i, n = 0, len(line)
    bars = []
    while i < n:
        ch = line[i]
        if ch == '"':
            i += 1
            while i < n and line[i] != '"':
                i += 2 if line[i] == "\\" else 1
            i += 1
            continue
        if ch == "-" and line.startswith("--", i):
            return depth, i, bars
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth = max(depth - 1, 0)
        elif ch == "|":
            bars.append(i)
        i += 1
    return depth, None, bars


def display_width(s: str) -> int:
    """Columns ``s`` takes in a terminal or an editor: wide characters 2, marks 0."""
    width = 0
    for ch in s:
        if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
            continue
        width += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return width


def _indent_of(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


# ------------------------------------------------------------------ the formatter
class _Line:
    __slots__ = ("text", "kind", "indent", "level", "shift", "cells", "comment")

    def __init__(self, text: str, kind: str):
        self.text = text          # the line without trailing whitespace
        self.kind = kind          # blank | comment | code | cont | row
        self.indent = _indent_of(text)
        self.level = 0
        self.shift = 0            # for continuation lines: how far their statement moved
        self.cells = None         # for table rows: the stripped cells
        self.comment = None       # for table rows: a trailing comment


def _classify(text: str) -> list[_Line]:
    lines: list[_Line] = []
    depth = 0
    for raw in text.split("\n"):
        line = raw.rstrip()
        if depth > 0:
            item = _Line(line, "cont" if line else "blank")
            depth, _, _ = _scan(line, depth)
            lines.append(item)
            continue
        body = line.lstrip(" ")
        if not body:
            lines.append(_Line("", "blank"))
            continue
        if body.startswith("--"):
            lines.append(_Line(line, "comment"))
            continue
        new_depth, comment_at, bars = _scan(line, 0)
        item = _Line(line, "code")
        if body.startswith("|") and new_depth == 0 and len(bars) >= 2:
            end = comment_at if comment_at is not None else len(line)
            if not line[bars[-1] + 1:end].strip():
                item.kind = "row"
                item.cells = [line[a + 1:b].strip() for a, b in zip(bars, bars[1:])]
                item.comment = line[comment_at:].rstrip() if comment_at is not None else None
        depth = new_depth
        lines.append(item)
    return lines


def _assign_levels(lines: list[_Line]) -> None:
    """Block levels of code lines (as the parser's indenter sees them), then of comments."""
    stack = [0]
    code = [ln for ln in lines if ln.kind in ("code", "row")]
    for ln in code:
        if ln.indent > stack[-1]:
            stack.append(ln.indent)
        else:
            while ln.indent < stack[-1] and len(stack) > 1:
                stack.pop()
        ln.level = len(stack) - 1
        ln.shift = len(INDENT) * ln.level - ln.indent
    # Continuation lines move with the line that opened their bracket.
    shift = 0
    for ln in lines:
        if ln.kind in ("code", "row"):
            shift = ln.shift
        elif ln.kind == "cont":
            ln.shift = shift
    # Comment lines: the level of the deepest block that their indentation reaches, among the
    # blocks open at that point and the one the next code line is in.
    stack = [(0, 0)]        # (original indent, level)
    following: list = [None] * len(lines)      # the next code line after each line
    nxt = None
    for i in range(len(lines) - 1, -1, -1):
        following[i] = nxt
        if lines[i].kind in ("code", "row"):
            nxt = lines[i]
    for i, ln in enumerate(lines):
        if ln.kind in ("code", "row"):
            while stack and stack[-1][0] > ln.indent:
                stack.pop()
            if not stack or stack[-1][0] != ln.indent:
                stack.append((ln.indent, ln.level))
            continue
        if ln.kind != "comment":
            continue
        known = list(stack)
        if following[i] is not None:
            known.append((following[i].indent, following[i].level))
        fits = [k for k in known if k[0] <= ln.indent] or [(0, 0)]
        ln.level = max(fits)[1]


def _align_rows(lines: list[_Line]) -> None:
    """Pad the cells of each run of consecutive table rows to their column's width."""
    i = 0
    while i < len(lines):
        if lines[i].kind != "row":
            i += 1
            continue
        j = last = i
        while j < len(lines) and (lines[j].kind == "comment" or (
                lines[j].kind == "row" and lines[j].level == lines[i].level) or (
                lines[j].kind == "code" and lines[j].level > lines[i].level)):  # notes of a row
            if lines[j].kind == "row":
                last = j
            j += 1
        j = last + 1
        run = [ln for ln in lines[i:j] if ln.kind == "row"]
        widths: list[int] = []
        for ln in run:
            for k, cell in enumerate(ln.cells):
                w = display_width(cell)
                if k == len(widths):
                    widths.append(w)
                else:
                    widths[k] = max(widths[k], w)
        for ln in run:
            parts = [cell + " " * (widths[k] - display_width(cell))
                     for k, cell in enumerate(ln.cells)]
            text = "| " + " | ".join(parts) + " |"
            if ln.comment:
                text += " " + ln.comment
            ln.text = " " * ln.indent + text
        i = j


def _emit(lines: list[_Line]) -> str:
    out: list[str] = []
    for ln in lines:
        if ln.kind == "blank":
            if out and out[-1] != "":
                out.append("")
            continue
        body = ln.text.lstrip(" ")
        if ln.kind == "cont":       # keeps its place relative to its statement's first line
            indent = " " * max(ln.indent + ln.shift, 0)
        else:
            indent = INDENT * ln.level
        out.append(indent + body)
    while out and out[-1] == "":
        out.pop()
    return "\n".join(out) + "\n" if out else ""


def _tidy(text: str) -> str:
    if text.startswith("\ufeff"):
        text = text[1:]
    text = normalize(text)
    lines = _classify(text)
    _assign_levels(lines)
    _align_rows(lines)
    return _emit(lines)


def format_text(text: str, path: str = "<input>") -> str:
    """The tidied text of one .drill file; raises ``DrillError`` if it does not parse."""
    before = parse_file(path, text)
    result = _tidy(text)
    if result == text:
        return text
    try:
        after = parse_file(path, result)
    except DrillError as e:
        raise _refuse(path, f"its formatted text would not parse ({e.diagnostics[0].message})") from None
    finally:
        remember_source(path, text)        # diagnostics quote the file as it is on disk
    if not same_ast(before, after):
        raise _refuse(path, "its formatted text would parse to different rules")
    return result


def _refuse(path: str, why: str) -> DrillError:
    return DrillError([Diagnostic(Loc(path), "E990", f"fmt leaves this file as it is: {why}",
                                  "this is a bug in drillbook fmt; please report it")])


# ------------------------------------------------------------------ comparing ASTs
# Attributes set outside the dataclass fields that are not syntax: a declaration's
# back-reference to its section, and what the check stage fills in on expressions.
_NOT_SYNTAX = {"section", "type", "ref"}


def strip_locs(node):
    """A plain, comparable copy of an AST node with every ``Loc`` left out."""
    if isinstance(node, Loc):
        return None
    if isinstance(node, (list, tuple)):
        return tuple(strip_locs(x) for x in node if not isinstance(x, Loc))
    if isinstance(node, dict):
        return tuple(sorted((k, strip_locs(v)) for k, v in node.items()))
    names = node_fields(node)
    if names is not None:
        extra = [k for k in vars(node) if k not in names] if hasattr(node, "__dict__") else []
        out = [type(node).__name__]
        for name in list(names) + [k for k in extra if k not in _NOT_SYNTAX]:
            value = getattr(node, name)
            if isinstance(value, Loc):
                continue
            out.append((name, strip_locs(value)))
        return tuple(out)
    return node


def same_ast(a, b) -> bool:
    return strip_locs(a) == strip_locs(b)


# ------------------------------------------------------------------ files
def _drill_files(paths: list[str]) -> list[str]:
    found: list[str] = []
    for p in paths:
        if os.path.isdir(p):
            inside = os.path.realpath(p)
            for root, dirs, files in os.walk(p):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                found += [os.path.join(root, f) for f in sorted(files) if f.endswith(".drill")
                          and _within(os.path.join(root, f), inside)]
        elif os.path.isfile(p):
            found.append(p)
        else:
            fail(Loc("<command line>"), "E010", f"no such file or folder: '{p}'")
    seen, unique = set(), []
    for f in found:
        key = os.path.realpath(f)
        if key not in seen:
            seen.add(key)
            unique.append(f)
    return unique


def _within(path: str, folder: str) -> bool:
    """Is ``path`` (a symlink followed) a regular file inside ``folder``?  fmt never
    rewrites a file outside the folder it was given, nor a device or a pipe."""
    real = os.path.realpath(path)
    return os.path.commonpath([real, folder]) == folder and os.path.isfile(real)


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8", newline="") as fh:
            return fh.read()
    except UnicodeDecodeError:
        fail(Loc(path), "E011", f"'{path}' is not UTF-8 text")
    except OSError as e:
        fail(Loc(path), "E010", f"cannot read '{path}': {e.strerror}")
    return ""


def write_atomically(path: str, text: str) -> None:
    """Replace the file at ``path`` with ``text``: a temporary file beside it, then a rename."""
    write_all([(path, text)])


def write_all(pairs: list[tuple[str, str]]) -> None:
    """Replace several files, all or nothing: every new text is written to a temporary file
    beside its target first; only when all are written are they renamed into place."""
    staged: list[tuple[str, str]] = []
    try:
        for path, text in pairs:
            try:
                staged.append(_stage(path, text))
            except OSError as e:
                e.filename = path          # name the file the user gave, not the temporary
                raise
    except BaseException:
        for tmp, _ in staged:
            _unlink(tmp)
        raise
    for n, (tmp, target) in enumerate(staged):
        try:
            os.replace(tmp, target)
        except BaseException:
            for rest, _ in staged[n:]:
                _unlink(rest)
            raise


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _stage(path: str, text: str) -> tuple[str, str]:
    """(temporary file holding ``text``, the file it is to replace)."""
    target = os.path.realpath(path)
    folder = os.path.dirname(target)
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(target) + ".", suffix=".tmp",
                               dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        try:
            os.chmod(tmp, os.stat(target).st_mode & 0o7777)
        except OSError:
            pass
    except BaseException:
        _unlink(tmp)
        raise
    return tmp, target


def format_plan(paths: list[str]) -> list[tuple[str, str, str]]:
    """(path, text, formatted text) of every .drill file under ``paths`` that would change;
    a ``DrillError`` with the diagnostics of every file that does not parse."""
    changed: list[tuple[str, str, str]] = []
    errors: list[Diagnostic] = []
    for f in _drill_files(paths):
        try:
            text = _read(f)
            new = format_text(text, f)
        except DrillError as e:
            errors.extend(e.diagnostics)
            continue
        if new != text:
            changed.append((f, text, new))
    if errors:
        raise DrillError(errors)
    return changed


def format_paths(paths: list[str], check: bool) -> tuple[list[str], int]:
    """Format every .drill file under ``paths``; return (files changed or that would change,
    exit status).  Every file is read and formatted before any is written: if one does not
    parse, a ``DrillError`` with the diagnostics of every such file is raised and nothing is
    written.  With ``check`` nothing is written and the status is 1 if a file would change."""
    changed = [(f, new) for f, _, new in format_plan(paths)]
    if not check:
        try:
            write_all(changed)
        except OSError as e:
            where = e.filename or (changed[0][0] if changed else "<command line>")
            fail(Loc(where), "E010", f"cannot write '{where}': {e.strerror}; no file was changed")
    return [f for f, _ in changed], (1 if check and changed else 0)
