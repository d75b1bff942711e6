"""Shared helpers for the drillbook test suite.

``run_cli`` runs the CLI in-process (fast: the Lark parser is built once per process) and
captures what it prints; ``run_subprocess`` runs ``python -m drillbook`` for the few tests
that must see the real process exit code.  ``diagnostics`` parses the located error format

    path:line:col: error[CODE]: message
      <the source line>
      <a caret line>

so that tests can assert on codes, positions and message fragments.
"""
from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
import sys
import textwrap
import traceback
from dataclasses import dataclass, field
from pathlib import Path

import pytest

# golden output is plain text: no colour forced in from the environment (colour tests set it)
os.environ.pop("FORCE_COLOR", None)

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent

HEADER = 'rulebook "T" edition "1" languages en\n\n'

LOCATED = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): "
                     r"(?P<severity>error|warning)\[(?P<code>[EW]\d{3})\]: (?P<message>.+)$")
CARET = re.compile(r"^  (?P<pad>[ \t]*)(?P<carets>\^+)$")


@dataclass
class Result:
    rc: int | None
    out: str
    err: str

    @property
    def last_line(self) -> str:
        lines = self.out.strip().splitlines()
        return lines[-1] if lines else ""


@dataclass
class Diag:
    path: str
    line: int
    col: int
    severity: str
    code: str
    message: str
    source: str | None = None       # the quoted source line, without its 2-space indent
    caret_col: int | None = None    # 1-based column of the first '^'
    caret_width: int = 0
    rest: list = field(default_factory=list)   # note and hint lines that follow


@contextlib.contextmanager
def _cwd(path):
    old = os.getcwd()
    if path is not None:
        os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


def run_cli(*argv, cwd=None) -> Result:
    """Run ``drillbook ARGV`` in this process; a Python exception becomes a traceback in err."""
    from drillbook.cli import main
    out, err = io.StringIO(), io.StringIO()
    with _cwd(cwd), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main([str(a) for a in argv])
        except SystemExit as e:                 # argparse --help and friends
            rc = e.code if isinstance(e.code, int) else 2
        except BaseException:                   # noqa: BLE001 - the point is to see it
            traceback.print_exc(file=err)
            rc = None
    return Result(rc, out.getvalue(), err.getvalue())


def run_subprocess(*argv, cwd=None, timeout=60) -> Result:
    """Run ``python -m drillbook ARGV`` as a real process."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "interpreter") + os.pathsep + env.get("PYTHONPATH", "")
    p = subprocess.run([sys.executable, "-m", "drillbook", *map(str, argv)], cwd=cwd,
                       capture_output=True, text=True, timeout=timeout, env=env)
    return Result(p.returncode, p.stdout, p.stderr)


def diagnostics(err: str) -> list[Diag]:
    """Every located diagnostic in ``err``, with its quoted line and caret (lines end at
    \n only: a quoted line may hold a form feed or a vertical tab)."""
    lines = err.split("\n")
    out: list[Diag] = []
    i = 0
    while i < len(lines):
        m = LOCATED.match(lines[i])
        if not m:
            if out:
                out[-1].rest.append(lines[i])
            i += 1
            continue
        d = Diag(m["path"], int(m["line"]), int(m["col"]), m["severity"], m["code"], m["message"])
        if i + 2 < len(lines) and lines[i + 1].startswith("  ") and CARET.match(lines[i + 2]):
            d.source = lines[i + 1][2:]
            c = CARET.match(lines[i + 2])
            d.caret_col = len(c["pad"]) + 1
            d.caret_width = len(c["carets"])
            i += 3
        else:
            i += 1
        out.append(d)
    return out


def errors(err: str) -> list[Diag]:
    return [d for d in diagnostics(err) if d.severity == "error"]


def assert_no_traceback(res: Result):
    """No Python traceback, and no 'internal error' (E999, exit 3): the user never sees a crash."""
    assert "Traceback" not in res.err, res.err
    assert "Traceback" not in res.out, res.out
    assert res.rc is not None, res.err
    assert res.rc != 3 and "error[E999]" not in res.err, f"internal error:\n{res.err}"


def assert_located(res: Result, code: str, fragment: str = "", *, rc: int = 1,
                   path: str | None = None, line: int | None = None, col: int | None = None,
                   count: int | None = 1) -> Diag:
    """The run failed with exit ``rc`` and one located, quoted, careted error ``code``."""
    assert_no_traceback(res)
    assert res.rc == rc, f"exit {res.rc}, expected {rc}\n{res.err}"
    errs = errors(res.err)
    assert errs, f"no located error in:\n{res.err}"
    first_line = res.err.splitlines()[0]
    assert LOCATED.match(first_line), f"stderr does not start with a located error:\n{res.err}"
    if count is not None:
        assert len(errs) == count, f"{len(errs)} errors, expected {count}:\n{res.err}"
    hits = [d for d in errs if d.code == code and fragment in d.message
            and (path is None or d.path == path) and (line is None or d.line == line)
            and (col is None or d.col == col)]
    assert hits, (f"no error[{code}] containing {fragment!r} at "
                  f"{path}:{line}:{col} in:\n{res.err}")
    d = hits[0]
    assert d.source is not None, f"error[{code}] quotes no source line:\n{res.err}"
    assert d.caret_col == d.col, f"caret at column {d.caret_col}, error at {d.col}:\n{res.err}"
    return d


def source_line(path, line: int) -> str:
    """Line ``line`` of a file, lines ending at \n, \r\n or \r and nowhere else."""
    text = Path(path).read_text(encoding="utf-8")      # universal newlines: \r\n, \r -> \n
    return text.split("\n")[line - 1]


# ------------------------------------------------------------------ fixtures
class Book:
    """Writes small rulebooks into a temporary folder that is also the working directory."""

    def __init__(self, root: Path):
        self.root = root

    def write(self, name: str, text: str, header: bool = True) -> str:
        body = textwrap.dedent(text).lstrip("\n")
        p = self.root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text((HEADER if header else "") + body, encoding="utf-8")
        return name

    def run(self, *argv) -> Result:
        return run_cli(*argv, cwd=self.root)


@pytest.fixture
def book(tmp_path) -> Book:
    return Book(tmp_path)


@pytest.fixture(autouse=True, scope="session")
def _own_cache(tmp_path_factory):
    """The cache of checked rulebooks goes to a temporary folder, never the user's."""
    os.environ["DRILLBOOK_CACHE_DIR"] = str(tmp_path_factory.mktemp("drillbook-cache"))
