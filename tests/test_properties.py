"""Property tests: whatever text the checker is fed, it answers with DrillError or a model.

Two sources of input: random text over an alphabet of drillbook's own words and symbols,
and random mutations (insertions, deletions, swapped and re-indented lines) of the good
rulebooks in tests/good.  The CLI must turn every outcome into exit 0, 1 or 2 without a
traceback.  Hypothesis is derandomized and capped so the suite stays fast and stable.
"""
from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import LOCATED, TESTS, run_cli
from drillbook.check import check
from drillbook.compile import compile_model
from drillbook.errors import DrillError
from drillbook.loader import load

SETTINGS = dict(derandomize=True, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])

WORK = Path(tempfile.mkdtemp(prefix="drillbook-props-"))

GOOD_TEXTS = [p.read_text(encoding="utf-8") for p in sorted((TESTS / "good").glob("*.drill"))]

TOKENS = [
    "rulebook", "section", "1", "12.4", '"T"', '"x"', "enum", "scale", "record", "die", "d6",
    "faces", "1..6", "0..9", "option", "default", "on", "marker", "*", "†", "define",
    "exception", "to", "when", "=", "==", "!=", "<", ">=", "table", "modifiers", "combine",
    "largest", "capped", "check", "roll", "at", "most", "least", "within", "example", "given",
    "expect", "after", "use", "source", "doubt", "note", "gap", "if", "then", "else", "set",
    "add", "remove", "count", "exists", "next", "prev", "max", "none", "nothing", "is", "not",
    "and", "or", "in", "list", "of", "Int", "Bool", "Range", "Effects", "Text", "->", ":",
    "?", "(", ")", "[", "]", ",", ".", "|", "\\", "—", "-", "+", "No", "Yes", "u", "x", "Unit",
    "Foot", "Horse", "u.arm", "--", "\n", "\n  ", "\n    ", "\n      ", " ", " ", " ",
]


def _write(text: str) -> str:
    path = WORK / "rulebook.drill"
    path.write_text(text, encoding="utf-8")
    return str(path)


def _check_text(text: str):
    """load + check + compile; only DrillError may come out, and it renders located."""
    path = _write(text)
    try:
        model = check(load(path))
    except DrillError as e:
        rendered = e.render()
        assert rendered and e.diagnostics
        assert LOCATED.match(rendered.splitlines()[0]), rendered
        return
    compile_model(model)


token_text = st.lists(st.sampled_from(TOKENS), max_size=60).map(" ".join)
header_text = token_text.map(lambda t: 'rulebook "T" edition "1" languages en\n\n' + t)
raw_text = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)),
                   max_size=200)


@settings(max_examples=60, **SETTINGS)
@given(st.one_of(token_text, header_text, raw_text))
def test_random_text_gives_only_drill_errors(text):
    _check_text(text)


@st.composite
def mutated(draw):
    text = draw(st.sampled_from(GOOD_TEXTS))
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["insert", "delete", "swap", "indent", "duplicate"]))
        lines = text.split("\n")
        if kind == "insert":
            at = draw(st.integers(0, len(text)))
            text = text[:at] + draw(st.sampled_from(TOKENS)) + text[at:]
        elif kind == "delete":
            at = draw(st.integers(0, len(text)))
            text = text[:at] + text[at + draw(st.integers(1, 12)):]
        elif kind == "swap":
            a, b = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
            lines[a], lines[b] = lines[b], lines[a]
            text = "\n".join(lines)
        elif kind == "indent":
            a = draw(st.integers(0, len(lines) - 1))
            lines[a] = draw(st.sampled_from(["", " ", "  ", "    "])) + lines[a].lstrip(" ")
            text = "\n".join(lines)
        else:
            a = draw(st.integers(0, len(lines) - 1))
            lines.insert(a, lines[a])
            text = "\n".join(lines)
    return text


@settings(max_examples=80, **SETTINGS)
@given(mutated())
def test_mutated_rulebooks_give_only_drill_errors(text):
    _check_text(text)


@settings(max_examples=40, **SETTINGS)
@given(mutated())
def test_the_cli_never_shows_a_traceback(text):
    path = _write(text)
    res = run_cli("check", path)
    assert res.rc in (0, 1, 2), res.err
    assert "Traceback" not in res.err and "error[E999]" not in res.err, res.err
    if res.rc:
        assert LOCATED.match(res.err.splitlines()[0]), res.err
