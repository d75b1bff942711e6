"""drillbook fmt: idempotent, meaning-preserving, keeps every comment and paragraph, aligns
table columns, refuses files that do not parse, and writes atomically."""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from drillbook.errors import DrillError
from drillbook.fmt import display_width, format_paths, format_text, same_ast, strip_locs
from drillbook.syntax import parse_file

ROOT = Path(__file__).resolve().parent.parent
BUNDLED = sorted((ROOT / "rulebooks").glob("**/*.drill"))
GOOD = sorted((ROOT / "tests" / "good").glob("**/*.drill"))
ALL = BUNDLED + GOOD


def _id(p: Path) -> str:
    return str(p.relative_to(ROOT))


# A messy but valid file: odd indentation (5 and 4 spaces), trailing blanks, runs of blank
# lines, comments everywhere (also inside brackets and after table rows), a table whose
# columns are not aligned and hold wide characters, a continuation line inside brackets.
MESSY = (
    "\n\n"
    "-- top comment\n"
    'rulebook "T" edition "1" languages en   \n'
    "\n\n\n"
    'section 5 "Fire"    \n'
    "     -- a comment in an odd place\n"
    "    enum Arm\n"
    "          Foot   -- foot\n"
    '          Horse "Кони"\n'
    "       -- between members\n"
    "          Guns\n"
    "    die d6 faces 1..6\n"
    '    marker * star "only against a flank"\n'
    "\n"
    "    -- a table\n"
    '    table to_hit(a: Arm, d: Arm) -> Range "hits on"\n'
    "        | a \\ d | Foot | Horse | Guns |   \n"
    '        | Foot | 1-4 | 1-3* | No |  -- row comment "x|y"\n'
    "        -- in the middle of the table\n"
    "        | Horse | 1-3 | 1-2 | No |\n"
    '        | Guns | 1-5 | 1-2 | 1-2 |\n'
    "\n\n"
    '    define f(a: Arm) -> Bool "x"\n'
    "        = a in [Foot,\n"
    "                  Horse,   -- continuation comment\n"
    "             Guns]\n"
    '        note "n"\n'
    '    table name_of(a: Arm) -> Text\n'
    '      | a | name |\n'
    '      | Foot | "步兵" |\n'
    '      | Horse | "cavalry" |\n'
    '      | Guns | "e\u0301" |\n'
    "-- trailing comment\n"
    "\n\n\n"
)


def comments(text: str) -> list[str]:
    """Every comment of a .drill text, in order (a "--" outside a string to the line end)."""
    out = []
    for line in text.split("\n"):
        in_string = False
        i = 0
        while i < len(line):
            ch = line[i]
            if in_string:
                if ch == "\\":
                    i += 1
                elif ch == '"':
                    in_string = False
            elif ch == '"':
                in_string = True
            elif line.startswith("--", i):
                out.append(line[i:].rstrip())
                break
            i += 1
    return out


def paragraphs(text: str) -> list[list[str]]:
    """Groups of non-blank lines separated by blank lines, each line stripped."""
    groups, current = [], []
    for line in text.split("\n"):
        if line.strip():
            current.append(line.strip())
        elif current:
            groups.append(current)
            current = []
    if current:
        groups.append(current)
    return groups


def table_runs(text: str) -> list[list[str]]:
    """Runs of consecutive table-row lines (comment lines between rows are skipped)."""
    runs, current = [], []
    for line in text.split("\n"):
        body = line.strip()
        if body.startswith("|"):
            current.append(line)
        elif body.startswith("--") and current:
            continue
        elif current:
            runs.append(current)
            current = []
    if current:
        runs.append(current)
    return runs


def bar_columns(line: str) -> list[int]:
    """Display columns of the '|' separators of a row (not those in strings or comments)."""
    cols, width, in_string = [], 0, False
    i = 0
    while i < len(line):
        ch = line[i]
        if not in_string and line.startswith("--", i):
            break
        if ch == '"':
            in_string = not in_string
        if ch == "|" and not in_string:
            cols.append(width)
        width += display_width(ch)
        i += 1
    return cols


# ------------------------------------------------------------------ every bundled file
@pytest.mark.parametrize("path", ALL, ids=_id)
def test_formatting_twice_equals_once(path):
    text = path.read_text(encoding="utf-8")
    once = format_text(text, str(path))
    assert format_text(once, str(path)) == once


@pytest.mark.parametrize("path", ALL, ids=_id)
def test_formatted_file_parses_to_the_same_ast(path):
    text = path.read_text(encoding="utf-8")
    once = format_text(text, str(path))
    before = parse_file(str(path), text)
    after = parse_file(str(path), once)
    assert strip_locs(before) == strip_locs(after)


@pytest.mark.parametrize("path", ALL, ids=_id)
def test_formatting_keeps_comments_and_paragraphs(path):
    text = path.read_text(encoding="utf-8")
    once = format_text(text, str(path))
    assert [c.strip() for c in comments(once)] == [c.strip() for c in comments(text)]
    assert [len(p) for p in paragraphs(once)] == [len(p) for p in paragraphs(text)]


@pytest.mark.parametrize("path", ALL, ids=_id)
def test_reindented_file_formats_the_same(path):
    """Indent by 4 per level instead of 2, trailing blanks, doubled blank lines: the
    formatter brings it back to what it makes of the original."""
    text = path.read_text(encoding="utf-8")
    messy = []
    depth = moved = 0
    for line in text.split("\n"):
        body = line.lstrip(" ")
        indent = len(line) - len(body)
        if depth == 0:
            moved = indent
            messy.append(" " * (indent * 2) + body + "   ")
        else:                          # continuation lines move with their statement
            messy.append(" " * (indent + moved) + body)
        if not body:
            messy.append("")
        code = re.sub(r'"([^"\\]|\\.)*"', '""', body).split("--")[0]
        depth += code.count("(") + code.count("[") - code.count(")") - code.count("]")
    messy_text = "\n".join(messy)
    assert format_text(messy_text, str(path)) == format_text(text, str(path))


def test_the_formatter_has_something_to_do_on_messy_input():
    out = format_text(MESSY)
    assert out != MESSY
    assert format_text(out) == out
    assert same_ast(parse_file("<input>", MESSY), parse_file("<input>", out))


# ------------------------------------------------------------------ what it does
def test_comments_survive_and_are_indented_with_their_block():
    out = format_text(MESSY)
    assert [c.strip() for c in comments(out)] == [c.strip() for c in comments(MESSY)]
    lines = out.split("\n")
    assert lines[0] == "-- top comment"
    assert "  -- a comment in an odd place" in lines
    assert "  -- a table" in lines
    assert "    -- in the middle of the table" in lines
    assert lines[-2] == "-- trailing comment"


def test_blank_lines_collapse_and_the_file_ends_with_one_newline():
    out = format_text(MESSY)
    assert "\n\n\n" not in out
    assert out.endswith("\n") and not out.endswith("\n\n")
    assert not out.startswith("\n")
    assert all(line == line.rstrip() for line in out.split("\n"))
    # the paragraphs are the same (spacing aside), fewer blank lines between them
    def squeeze(groups):
        return [[re.sub(r"\s+", " ", ln) for ln in p] for p in groups]
    assert squeeze(paragraphs(out)) == squeeze(paragraphs(MESSY))


def test_indentation_is_two_spaces_per_block():
    out = format_text(MESSY).split("\n")
    assert 'section 5 "Fire"' in out
    assert "  enum Arm" in out
    assert "    Foot   -- foot" in out
    assert "  die d6 faces 1..6" in out
    assert '  define f(a: Arm) -> Bool "x"' in out
    assert "    = a in [Foot," in out
    assert '    note "n"' in out


def test_continuation_lines_keep_their_place_relative_to_their_statement():
    out = format_text(MESSY).split("\n")
    first = next(i for i, ln in enumerate(out) if ln.strip().startswith("= a in [Foot,"))
    # in the input: "= a" at column 8, "Horse" at 18 and "Guns]" at 13; the statement
    # moved from 8 to 4, so its continuation lines move by 4 too
    assert out[first + 1] == " " * 14 + "Horse,   -- continuation comment"
    assert out[first + 2] == " " * 9 + "Guns]"


def test_table_columns_are_aligned():
    out = format_text(MESSY)
    runs = table_runs(out)
    assert len(runs) == 2
    for run in runs:
        columns = [bar_columns(line) for line in run]
        assert all(c == columns[0] for c in columns), run
    assert "    | Foot  | 1-4  | 1-3*  | No   | -- row comment \"x|y\"" in out.split("\n")


def test_wide_and_combining_characters_count_by_display_width():
    assert display_width("步兵") == 4
    assert display_width("e\u0301") == 1
    out = format_text(MESSY)
    run = table_runs(out)[1]
    assert run[1].endswith('| "步兵"    |')        # 6 columns wide, padded to "cavalry"'s 9
    assert run[3].endswith('| "e\u0301"       |')
    columns = [bar_columns(line) for line in run]
    assert all(c == columns[0] for c in columns), run


@pytest.mark.parametrize("path", ALL, ids=_id)
def test_bundled_tables_come_out_aligned(path):
    out = format_text(path.read_text(encoding="utf-8"), str(path))
    for run in table_runs(out):
        columns = [bar_columns(line) for line in run]
        assert all(c == columns[0] for c in columns), "\n".join(run)


def test_an_unchanged_file_is_returned_as_it_is():
    out = format_text(MESSY)
    assert format_text(out) is out or format_text(out) == out


# ------------------------------------------------------------------ errors
BROKEN = 'rulebook "T" edition "1" languages en\n\nsection 5 "Fire"\n  define x ==\n'


def test_a_file_that_does_not_parse_raises_drill_error():
    with pytest.raises(DrillError) as e:
        format_text(BROKEN, "broken.drill")
    assert e.value.diagnostics[0].code == "E001"


def test_a_file_with_tab_indentation_raises_and_is_left_alone(tmp_path):
    p = tmp_path / "tabs.drill"
    text = 'rulebook "T" edition "1" languages en\n\nsection 5 "Fire"\n\tdie d6 faces 1..6\n'
    p.write_text(text, encoding="utf-8")
    with pytest.raises(DrillError) as e:
        format_paths([str(p)], check=False)
    assert e.value.diagnostics[0].code == "E002"
    assert p.read_text(encoding="utf-8") == text


def test_a_file_with_a_syntax_error_is_left_untouched(tmp_path):
    bad = tmp_path / "bad.drill"
    bad.write_text(BROKEN + "   \n\n\n", encoding="utf-8")
    before = bad.read_bytes()
    stat = bad.stat()
    with pytest.raises(DrillError):
        format_paths([str(bad)], check=False)
    assert bad.read_bytes() == before
    assert bad.stat().st_ino == stat.st_ino and bad.stat().st_mtime_ns == stat.st_mtime_ns
    assert sorted(os.listdir(tmp_path)) == ["bad.drill"]


def test_one_bad_file_in_a_folder_means_nothing_is_written(tmp_path):
    good = tmp_path / "a.drill"
    good.write_text(MESSY, encoding="utf-8")
    bad = tmp_path / "b.drill"
    bad.write_text(BROKEN, encoding="utf-8")
    with pytest.raises(DrillError) as e:
        format_paths([str(tmp_path)], check=False)
    assert [d.loc.path for d in e.value.diagnostics] == [str(bad)]
    assert good.read_text(encoding="utf-8") == MESSY
    assert bad.read_text(encoding="utf-8") == BROKEN


def test_a_missing_path_is_an_error(tmp_path):
    with pytest.raises(DrillError) as e:
        format_paths([str(tmp_path / "nope")], check=True)
    assert e.value.diagnostics[0].code == "E010"


# ------------------------------------------------------------------ files
def test_check_lists_files_that_would_change_and_writes_nothing(tmp_path):
    messy = tmp_path / "sub" / "messy.drill"
    messy.parent.mkdir()
    messy.write_text(MESSY, encoding="utf-8")
    tidy = tmp_path / "tidy.drill"
    tidy.write_text(format_text(MESSY), encoding="utf-8")
    (tmp_path / "notes.txt").write_text("not a rulebook  \n", encoding="utf-8")
    changed, status = format_paths([str(tmp_path)], check=True)
    assert changed == [str(messy)] and status == 1
    assert messy.read_text(encoding="utf-8") == MESSY
    changed, status = format_paths([str(tidy)], check=True)
    assert changed == [] and status == 0


def test_formatting_replaces_the_file_atomically(tmp_path):
    p = tmp_path / "messy.drill"
    p.write_text(MESSY, encoding="utf-8")
    os.chmod(p, 0o640)
    inode = p.stat().st_ino
    changed, status = format_paths([str(tmp_path)], check=False)
    assert changed == [str(p)] and status == 0
    assert p.read_text(encoding="utf-8") == format_text(MESSY)
    assert p.stat().st_ino != inode            # a new file renamed over the old one
    assert p.stat().st_mode & 0o777 == 0o640   # with the old one's permissions
    assert sorted(os.listdir(tmp_path)) == ["messy.drill"]       # no temporary file left
    # a second run has nothing to do
    assert format_paths([str(p)], check=False) == ([], 0)
    assert format_paths([str(p)], check=True) == ([], 0)


def test_a_failure_midway_leaves_the_original(tmp_path, monkeypatch):
    p = tmp_path / "messy.drill"
    p.write_text(MESSY, encoding="utf-8")

    def broken_replace(src, dst):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(DrillError) as e:
        format_paths([str(p)], check=False)
    assert "cannot write" in e.value.diagnostics[0].message
    assert p.read_text(encoding="utf-8") == MESSY
    assert sorted(os.listdir(tmp_path)) == ["messy.drill"]       # the temporary file is gone


def test_a_symlinked_file_is_formatted_through_the_link(tmp_path):
    real = tmp_path / "real.drill"
    real.write_text(MESSY, encoding="utf-8")
    link = tmp_path / "link.drill"
    link.symlink_to(real)
    format_paths([str(link)], check=False)
    assert link.is_symlink()
    assert real.read_text(encoding="utf-8") == format_text(MESSY)


def test_crlf_input_comes_out_with_unix_newlines():
    out = format_text(MESSY.replace("\n", "\r\n"))
    assert "\r" not in out
    assert out == format_text(MESSY)


# ------------------------------------------------------------------ random untidiness
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402


def _untidy(text: str, draw) -> str:
    """The same file, untidied at random: cells re-padded, blank lines doubled, trailing
    blanks added, indentation scaled by a factor (continuation lines move along)."""
    factor = draw(st.integers(1, 4))
    out, depth, moved = [], 0, 0
    for line in text.split("\n"):
        body = line.lstrip(" ")
        indent = len(line) - len(body)
        if depth == 0:
            moved = indent * (factor - 1)
            if body.startswith("|") and "--" not in body and '"' not in body:
                cells = [c.strip() for c in body.strip("|").split("|")]
                pads = [draw(st.integers(0, 3)) for _ in cells]
                body = "|" + "|".join(" " * p + c + " " * q
                                      for c, p, q in zip(cells, pads, reversed(pads))) + "|"
        new = " " * (indent + moved) + body
        if body:
            new += " " * draw(st.integers(0, 2))
        out.append(new)
        if not body and draw(st.booleans()):
            out.append(" " * draw(st.integers(0, 3)))
        code = re.sub(r'"([^"\\]|\\.)*"', '""', body).split("--")[0]
        depth += code.count("(") + code.count("[") - code.count(")") - code.count("]")
    return "\n".join(out)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(ALL), st.data())
def test_untidy_versions_of_a_file_format_like_the_file(path, data):
    text = path.read_text(encoding="utf-8")
    messy = _untidy(text, data.draw)
    tidy = format_text(text, str(path))
    assert format_text(messy, str(path)) == tidy


def test_the_formatter_refuses_to_change_what_a_file_means(tmp_path, monkeypatch):
    """A safety net: if the tidied text ever parsed to other rules (or not at all), the
    file is left as it is and the error says so."""
    from drillbook import fmt
    p = tmp_path / "messy.drill"
    p.write_text(MESSY, encoding="utf-8")
    monkeypatch.setattr(fmt, "_tidy", lambda text: text.replace("1-4", "1-5"))
    with pytest.raises(DrillError) as e:
        format_paths([str(p)], check=False)
    assert e.value.diagnostics[0].code == "E990"
    assert "different rules" in e.value.diagnostics[0].message
    monkeypatch.setattr(fmt, "_tidy", lambda text: text + "  define\n")
    with pytest.raises(DrillError) as e:
        format_text(MESSY, str(p))
    assert "would not parse" in e.value.diagnostics[0].message
    assert p.read_text(encoding="utf-8") == MESSY
