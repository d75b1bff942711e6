"""CLI: colour on a terminal, through Rich — errors, rulings and diffs.

Output is written as plain text first; on a terminal (or with ``--color=always`` or
``FORCE_COLOR``) the same text is styled by pattern and printed through Rich.  ``NO_COLOR``
and ``--color=never`` keep it plain, and so does any output that is not a terminal, so
that pipes, files and golden tests see exactly the plain text.
"""
from __future__ import annotations

import os

# (pattern, style) per kind of output; the first group, if any, is what is styled
_STYLES = {
    "error": [(r"^\S.*?: (error)\[E\d{3}\]", "bold red"),
              (r"^\S.*?: (warning)\[[EW]\d{3}\]", "bold yellow"),
              (r"^\S.*?: (note):", "bold cyan"),
              (r"^(\S+?:\d+:\d+):", "bold"),
              (r"^  [ \t]*(\^+)$", "bold red"),
              (r"^  (hint:)", "bold green")],
    "ruling": [(r"^(\S[^:]*:)", "bold"),
               (r"§[\w.]+", "cyan"),
               (r"\b(passed|passes|allowed|satisfied|yes)\b", "green"),
               (r"\b(failed|fails|refused|VIOLATED|no)\b", "red"),
               (r"(doubt|gap|CONFLICT)\b", "bold yellow"),
               (r"(changed by the variant)", "bold magenta"),
               (r"(\+\d+|−\d+)", "bold")],
    "diff": [(r"^(\S.*:)$", "bold"),
             (r"§[\w.]+", "cyan"),
             (r"→", "bold"),
             (r"(\*)$", "bold yellow"),
             (r"^  (replaced|dropped|added|cell|option)\b", "magenta"),
             (r"^-.*$", "red"), (r"^\+.*$", "green"), (r"^@@.*$", "cyan")],
    "test": [(r"^(FAIL)\b", "bold red"), (r"^(ok)\b", "green"),
             (r"\b(\d+ passed)", "green"), (r"\b([1-9]\d* failed)", "bold red")],
}


def wanted(stream, flag: str | None = "auto") -> bool:
    """Should output to ``stream`` be coloured?"""
    if flag == "never":
        return False
    if flag == "always":
        return True
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def write(stream, text: str, kind: str, colour: bool) -> None:
    """Print ``text`` (and a newline) to ``stream``, styled for ``kind`` when ``colour``."""
    if not colour:
        print(text, file=stream)
        return
    from rich.console import Console
    from rich.text import Text
    styled = Text(text)
    for pattern, style in _STYLES.get(kind, []):
        import re
        for m in re.finditer(pattern, text, re.MULTILINE):
            start, end = m.span(1) if m.groups() else m.span()
            styled.stylize(style, start, end)
    Console(file=stream, force_terminal=True, color_system="standard", highlight=False,
            soft_wrap=True, emoji=False, markup=False).print(styled)
