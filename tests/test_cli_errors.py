"""Bad command lines and bad state files: one located error each, never a traceback.

Usage errors are located on ``<command line>:1:COL`` (the command line is quoted, with a
caret under the offending word) and exit 2; bad state files are located in the YAML file
and exit 1.
"""
from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from conftest import (ROOT, TESTS, assert_located, assert_no_traceback, errors, run_cli,
                      run_subprocess, source_line)

CMD = "<command line>"
CHECKS = "good/checks.drill"         # has dice d10, d6 and options rain, veterans
STATES = TESTS / "bad" / "states"
STATE_FILES = sorted(STATES.glob("*.yaml"))


def col_of(argv, index: int) -> int:
    """The 1-based column of argv[index] in the quoted command line."""
    return len("drillbook ") + 1 + sum(len(shlex.quote(a)) + 1 for a in argv[:index])


def command_line(argv) -> str:
    return "drillbook " + " ".join(shlex.quote(a) for a in argv)


def usage_error(argv, code, fragment, word_index=None, cwd=TESTS):
    res = run_cli(*argv, cwd=cwd)
    col = None if word_index is None else col_of(argv, word_index)
    d = assert_located(res, code, fragment, rc=2, path=CMD, line=1, col=col)
    assert d.source == command_line(argv)
    assert res.out == ""
    return d


# ------------------------------------------------------------------ usage
def test_unknown_command():
    argv = ["frob", CHECKS]
    usage_error(argv, "E800", "invalid choice: 'frob'", 0)


def test_no_command_at_all():
    res = run_cli(cwd=TESTS)
    d = assert_located(res, "E800", "choose a command", rc=2, path=CMD, line=1)
    assert d.caret_col == len("drillbook ") + 1


def test_unknown_flag():
    argv = ["check", "--frob", CHECKS]
    usage_error(argv, "E800", "unrecognized arguments: --frob", 1)


def test_unknown_flag_of_ask():
    argv = ["ask", CHECKS, "1", "--bogus"]
    usage_error(argv, "E800", "--bogus", 3)


@pytest.mark.parametrize("bad", ["d10", "d10=x", "=3", "d10=", "d6=1,x"])
def test_bad_roll_syntax(bad):
    argv = ["ask", CHECKS, "1", "--roll", bad]
    d = usage_error(argv, "E800", f"--roll takes DIE=FACE[,FACE...], like d10=7, not '{bad}'", 4)
    assert d.caret_width >= 1


def test_unknown_die_on_the_command_line():
    argv = ["ask", CHECKS, "1", "--roll", "d12=3"]
    d = usage_error(argv, "E204", "unknown die 'd12'")
    assert d.col in (col_of(argv, 3), col_of(argv, 4))
    assert "did you mean 'd10'" in "\n".join(d.rest)


def test_face_outside_the_die():
    argv = ["ask", CHECKS, "1", "--roll", "d6=7"]
    d = usage_error(argv, "E414", "d6 has no face 7 (its faces: 1..6)")
    assert d.col in (col_of(argv, 3), col_of(argv, 4))


def test_unknown_option():
    argv = ["ask", CHECKS, "1", "--option", "rian"]
    d = usage_error(argv, "E801", "unknown option 'rian'")
    assert d.col in (col_of(argv, 3), col_of(argv, 4))
    assert "did you mean 'rain'" in "\n".join(d.rest)


def test_option_state_is_on_or_off():
    argv = ["ask", CHECKS, "1", "--option", "rain=maybe"]
    usage_error(argv, "E801", "option 'rain' is 'on' or 'off'")


def test_seed_must_be_a_number():
    argv = ["ask", CHECKS, "1", "--seed", "x"]
    usage_error(argv, "E800", "invalid int value: 'x'", 3)


def test_odds_takes_no_seed():
    argv = ["odds", CHECKS, "1", "--seed", "3"]
    usage_error(argv, "E800", "unrecognized arguments: --seed 3", 3)


def test_missing_rulebook_argument():
    usage_error(["check"], "E800", "the following arguments are required: path")
    usage_error(["test"], "E800", "the following arguments are required: paths")
    usage_error(["ask", CHECKS], "E800", "the following arguments are required: question")


def test_missing_rulebook_path():
    argv = ["check", "no/such/rulebook"]
    d = usage_error(argv, "E010", "no such file or folder: 'no/such/rulebook'", 1)
    assert d.caret_width == len("no/such/rulebook")


def test_folder_without_main_file():
    argv = ["check", "bad"]       # tests/bad holds .drill files but no rulebook.drill
    usage_error(argv, "E010", "'bad' is a folder without a rulebook.drill", 1)


def test_missing_rulebook_for_ask():
    argv = ["ask", "nowhere", "1"]
    usage_error(argv, "E010", "no such file or folder: 'nowhere'", 1)


def test_missing_state_file():
    argv = ["ask", "bad/states", "strong(u1)", "--state", "bad/states/nope.yaml"]
    usage_error(argv, "E010", "cannot read state file 'bad/states/nope.yaml'")


def test_missing_state_file_points_at_the_path():
    argv = ["ask", "bad/states", "strong(u1)", "--state", "bad/states/nope.yaml"]
    d = usage_error(argv, "E010", "cannot read state file")
    assert d.col in (col_of(argv, 3), col_of(argv, 4))


def test_second_roll_flag_is_pointed_at():
    argv = ["ask", CHECKS, "1", "--roll", "d6=3", "--roll", "d12=3"]
    d = usage_error(argv, "E204", "unknown die 'd12'")
    assert d.col in (col_of(argv, 5), col_of(argv, 6))


def test_option_equals_form_is_pointed_at():
    argv = ["ask", CHECKS, "1", "--option=rian"]
    d = usage_error(argv, "E801", "unknown option 'rian'")
    assert d.col == col_of(argv, 3)


def test_a_bad_question_is_located_in_the_question():
    res = run_cli("ask", CHECKS, "drm(u) + bonnus", cwd=TESTS)
    d = assert_located(res, "E202", "unknown name 'u'", path="<question>", line=1, col=5,
                       count=None)
    assert d.source == "drm(u) + bonnus"


def test_a_question_with_a_syntax_error():
    res = run_cli("ask", CHECKS, "1 +", cwd=TESTS)
    assert_located(res, "E001", "unexpected", path="<question>", line=1, col=4)


def test_usage_errors_in_a_real_process():
    res = run_subprocess("frob", cwd=TESTS)
    assert res.rc == 2
    assert "Traceback" not in res.err
    assert res.err.startswith(f"{CMD}:1:11: error[E800]: ")
    res = run_subprocess("ask", "bad/states", "1", "--state", "missing.yaml", cwd=TESTS)
    assert res.rc == 2 and "Traceback" not in res.err
    assert "error[E010]: cannot read state file 'missing.yaml'" in res.err


def test_diff_of_a_missing_variant_file_says_it_cannot_read_it():
    bfs = ROOT / "rulebooks" / "by-fire-and-sword"
    res = run_cli("diff", bfs, bfs / "variants" / "nope.drill")
    d = assert_located(res, "E010", "cannot read variant file", rc=2, path="<command line>")
    assert "No such file" in d.message


# ------------------------------------------------------------------ state files
def _expectation(path: Path):
    head = path.read_text(encoding="utf-8").splitlines()[:3]
    code, fragment = re.fullmatch(r"# expect: (E\d{3}) (.+)", head[0]).groups()
    line, col = map(int, re.fullmatch(r"# at: (\d+):(\d+)", head[1]).groups())
    m = re.fullmatch(r"# errors: (\d+)", head[2])
    return code, fragment, line, col, int(m.group(1)) if m else 1


def test_there_are_bad_state_files():
    names = {p.stem for p in STATE_FILES}
    assert {"wrong_type", "unknown_field", "unknown_record_type", "missing_entity",
            "out_of_range", "invalid_yaml"} <= names


@pytest.mark.parametrize("path", STATE_FILES, ids=lambda p: p.stem)
def test_bad_state_file(path):
    code, fragment, line, col, count = _expectation(path)
    rel = path.relative_to(TESTS).as_posix()
    for command in ("ask", "explain", "odds"):
        res = run_cli(command, "bad/states", "strong(u1)", "--state", rel, cwd=TESTS)
        d = assert_located(res, code, fragment, rc=1, path=rel, line=line, col=col, count=count)
        assert d.source == source_line(path, line)
        assert res.out == ""


def test_the_state_rulebook_itself_is_fine():
    res = run_cli("test", "bad/states", cwd=TESTS)
    assert res.rc == 0 and res.last_line == "1 passed, 0 failed", res.out + res.err


def test_a_good_state_file_in_json(tmp_path):
    state = tmp_path / "s.json"
    state.write_text('{"Unit": {"u1": {"strength": 4, "morale": "Shaken"}}}', encoding="utf-8")
    res = run_cli("ask", "bad/states", "strong(u1) and u1.morale == Shaken", "--state", state,
                  cwd=TESTS)
    assert res.rc == 0, res.err
    assert res.out.strip() == "yes"


def test_yaml_ending_early_is_quoted_with_a_caret(tmp_path):
    state = tmp_path / "s.yaml"
    state.write_text("Unit:\n  u1: {strength: 3\n", encoding="utf-8")
    res = run_cli("ask", "bad/states", "strong(u1)", "--state", state, cwd=TESTS)
    d = assert_located(res, "E701", "not valid YAML", rc=1)
    assert d.line <= 2


def test_a_tab_after_a_colon_is_refused_where_it_stands(tmp_path):
    """YAML does not allow a tab to start a value (libyaml reads one; PyYAML, which every
    state goes through, refuses it): found by the fuzzer in /proc/self/status."""
    state = tmp_path / "s.yaml"
    state.write_text("Unit:\n  u1:\t{strength: 3}\n", encoding="utf-8")
    res = run_cli("ask", "bad/states", "strong(u1)", "--state", state, cwd=TESTS)
    d = assert_located(res, "E701", "found character '\\t' that cannot start any token", rc=1)
    assert (d.line, d.col) == (2, 6)


def test_yaml_mapping_as_record_type_key(tmp_path):
    state = tmp_path / "s.yaml"
    state.write_text("[Unit]:\n  u1: {strength: 3}\n", encoding="utf-8")
    res = run_cli("ask", "bad/states", "1", "--state", state, cwd=TESTS)
    assert_no_traceback(res)
    assert res.rc == 1 and errors(res.err) and errors(res.err)[0].line == 1


def test_yaml_list_as_field_key(tmp_path):
    state = tmp_path / "s.yaml"
    state.write_text("Unit:\n  u1: {[strength]: 3}\n", encoding="utf-8")
    res = run_cli("ask", "bad/states", "1", "--state", state, cwd=TESTS)
    assert_no_traceback(res)
    assert res.rc == 1 and errors(res.err) and errors(res.err)[0].line == 2


def test_yaml_list_as_entity_id(tmp_path):
    state = tmp_path / "s.yaml"
    state.write_text("Unit:\n  [u1]: {strength: 3}\n", encoding="utf-8")
    res = run_cli("ask", "bad/states", "1", "--state", state, cwd=TESTS)
    assert_no_traceback(res)
    assert res.rc == 1
    assert errors(res.err) and errors(res.err)[0].line == 2
