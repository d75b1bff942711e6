"""Every rulebook in tests/good checks clean and passes its examples; every file in
tests/bad fails with the one located error its first lines announce:

    -- expect: E123 a fragment of the message
    -- at: LINE:COL            (optional: where the error points)
    -- errors: N               (optional: how many errors in all; 1 when absent)
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import (LOCATED, TESTS, assert_located, assert_no_traceback, diagnostics, errors,
                      run_cli, source_line)

GOOD_DIR = TESTS / "good"
BAD_DIR = TESTS / "bad"

GOOD = sorted(GOOD_DIR.glob("*.drill")) + sorted(
    p for p in GOOD_DIR.iterdir() if p.is_dir() and (p / "rulebook.drill").is_file())
BAD = sorted(BAD_DIR.glob("*.drill")) + sorted(BAD_DIR.glob("*/part*.drill"))   # part: a used file


def _rel(p: Path) -> str:
    return p.relative_to(TESTS).as_posix()


def _expectation(path: Path):
    head = path.read_text(encoding="utf-8").splitlines()[:4]
    m = re.fullmatch(r"-- expect: (E\d{3}) (.+)", head[0])
    assert m, f"{path.name}: first line must be '-- expect: E123 message fragment'"
    code, fragment = m.group(1), m.group(2).strip()
    line = col = None
    count = 1
    for h in head[1:]:
        if a := re.fullmatch(r"-- at: (\d+):(\d+)", h):
            line, col = int(a.group(1)), int(a.group(2))
        if e := re.fullmatch(r"-- errors: (\d+)", h):
            count = int(e.group(1))
    return code, fragment, line, col, count


def test_there_are_good_and_bad_files():
    assert len(GOOD) >= 5
    assert len(BAD) >= 40
    assert any(p.is_dir() for p in GOOD), "a multi-file rulebook folder is among the good ones"


# ------------------------------------------------------------------ good
@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.name)
def test_good_rulebook_checks_clean(path):
    res = run_cli("check", _rel(path), cwd=TESTS)
    assert_no_traceback(res)
    assert res.rc == 0, res.err
    assert res.out.startswith("ok: "), res.out
    assert res.err == "", f"a good rulebook has no warnings:\n{res.err}"


@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.name)
def test_good_rulebook_examples_pass(path):
    res = run_cli("test", "-v", _rel(path), cwd=TESTS)
    assert_no_traceback(res)
    m = re.fullmatch(r"(\d+) passed, (\d+) failed", res.last_line)
    assert m, res.out
    assert res.rc == 0 and m.group(2) == "0", res.out + res.err
    assert int(m.group(1)) > 0
    # -v lists every example as ok, with its section
    assert res.out.count("ok    §") == int(m.group(1))


@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.name)
def test_good_rulebook_check_json(path):
    import json
    res = run_cli("check", "--json", _rel(path), cwd=TESTS)
    assert res.rc == 0, res.err
    data = json.loads(res.out)
    assert data["ok"] is True and data["warnings"] == []


# ------------------------------------------------------------------ bad
@pytest.mark.parametrize("path", BAD, ids=lambda p: p.stem)
def test_bad_rulebook_fails_located(path):
    code, fragment, line, col, count = _expectation(path)
    rel = _rel(path)
    res = run_cli("check", rel, cwd=TESTS)
    d = assert_located(res, code, fragment, rc=1, path=rel, line=line, col=col, count=count)
    # the quoted line is the file's own line, and every diagnostic printed is located
    assert d.source == source_line(path, d.line)
    for other in diagnostics(res.err):
        assert other.path == rel
        assert other.source == source_line(path, other.line), res.err
        assert other.caret_col == other.col, res.err
    assert res.out == ""


@pytest.mark.parametrize("path", BAD, ids=lambda p: p.stem)
def test_bad_rulebook_fails_test_command_too(path):
    code, fragment, line, col, count = _expectation(path)
    rel = _rel(path)
    res = run_cli("test", rel, cwd=TESTS)
    assert_no_traceback(res)
    assert res.rc == 1
    assert any(d.code == code and fragment in d.message for d in errors(res.err)), res.err
    assert res.last_line == "0 passed, 0 failed"


@pytest.mark.parametrize("path", BAD, ids=lambda p: p.stem)
def test_bad_rulebook_json_still_errors_on_stderr(path):
    import json
    code, *_ = _expectation(path)
    res = run_cli("check", "--json", _rel(path), cwd=TESTS)
    assert_no_traceback(res)
    assert res.rc == 1
    assert LOCATED.match(res.err.splitlines()[0])
    data = json.loads(res.out)             # and the same errors as JSON on stdout
    assert data["ok"] is False and any(e["code"] == code for e in data["errors"])
