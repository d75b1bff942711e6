"""Fuzzing, oracles: run one case (``gen.py``) in this process and list how it fails.

Every command line of a case must:

- exit 0, 1 or 2, never with a Python traceback, ``E999`` (internal error) or ``E998``;
- print each error as ``path:line:col: error[CODE]: message`` with the quoted source line and
  a caret, where the quoted line *is* that line of the input (split at ``\\n``, ``\\r\\n`` or
  ``\\r`` and nowhere else) and the caret stands at that column;
- finish within ``SECONDS`` of CPU time (``WALL`` of wall clock) and ``MEMORY`` bytes more than the process had, and print at most
  ``OUTPUT`` characters.

and, as the case asks (``oracles``): ``trace`` — asking with a trace (``--json``) and without
gives the same answer or the same errors; ``seed`` — running the first command line again
prints the same; ``fmt`` — every .drill file that parses formats idempotently, to the same
AST, keeping every comment.  A question asked of a bundled rulebook must also give the same
answer or the same located errors without generated code (``generated``: the step-by-step
functions of ``compile/__init__.py`` alone, which share none of the fast path's inlining).
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import re
import resource
import shlex
import shutil
import signal
import sys
import tempfile
import time
import traceback
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from gen import ROOT, opened

SECONDS = 10            # of CPU time per command line
WALL = 60               # of wall-clock time (several agents may share the cores)
MEMORY = 1 << 30
OUTPUT = 8 * 1024 * 1024

LOCATED = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): "
                     r"(?P<severity>error|warning)\[(?P<code>[EW]\d{3})\]: (?P<message>.*)$")
CARET = re.compile(r"^  (?P<pad>[ \t]*)(?P<carets>\^+)$")


@dataclass
class Failure:
    kind: str           # internal | traceback | exit | located | hang | memory | output | trace | seed | fmt | generated
    signature: str      # what makes two failures the same bug
    detail: str

    def as_json(self):
        return {"kind": self.kind, "signature": self.signature, "detail": self.detail[:4000]}


class _Timeout(BaseException):
    """Raised by the alarm: not an Exception, so that drillbook's own handlers let it pass."""


@dataclass
class Run:
    argv: list
    rc: object
    out: str
    err: str
    seconds: float = 0.0
    stdin: str = ""           # what the run read as standard input ('-')


def _vm_bytes() -> int:
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[0]) * resource.getpagesize()
    except OSError:
        return 0


@contextlib.contextmanager
def _bounded():
    """At most SECONDS of wall time and MEMORY more bytes of address space."""
    old_handler = signal.signal(signal.SIGALRM, _raise_timeout)
    old_prof = signal.signal(signal.SIGPROF, _raise_timeout)
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    want = _vm_bytes() + MEMORY
    if hard != resource.RLIM_INFINITY:
        want = min(want, hard)
    try:
        resource.setrlimit(resource.RLIMIT_AS, (want, hard))
    except (ValueError, OSError):
        pass
    signal.setitimer(signal.ITIMER_PROF, SECONDS)        # CPU time: fair on a busy machine
    signal.setitimer(signal.ITIMER_REAL, WALL)            # and a wall clock, for blocked reads
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGALRM, old_handler)
        signal.signal(signal.SIGPROF, old_prof)
        try:
            resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
        except (ValueError, OSError):
            pass


def _raise_timeout(signum, frame):
    raise _Timeout()


def run_cli(argv: list, cwd: str, stdin: str = "") -> Run:
    """One command, in this process, with ``stdin`` as its standard input (empty unless
    given: a run never reads the worker's own)."""
    import time
    from drillbook.cli import main
    out, err = io.StringIO(), io.StringIO()
    old, old_stdin = os.getcwd(), sys.stdin
    os.chdir(cwd)
    sys.stdin = io.StringIO(stdin)
    start = time.perf_counter()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                with _bounded():
                    rc = main(list(argv))
            except SystemExit as e:
                rc = e.code if isinstance(e.code, int) else 2
            except _Timeout:
                rc = "timeout"
            except MemoryError:
                rc = "memory"
            except BaseException:             # noqa: BLE001 - the point is to see it
                traceback.print_exc(file=err)
                rc = None
    finally:
        os.chdir(old)
        sys.stdin = old_stdin
    return Run(list(argv), rc, out.getvalue(), err.getvalue(), time.perf_counter() - start,
               stdin)


# ------------------------------------------------------------------ the case's files
@contextlib.contextmanager
def materialize(case: dict):
    """A temporary folder holding the case's files (a bundled folder copied first)."""
    tmp = tempfile.mkdtemp(prefix="drillbook-fuzz-")
    try:
        base = case.get("base")
        if base:
            shutil.copytree(ROOT / base, Path(tmp) / base, symlinks=True)
        for rel, text in (case.get("files") or {}).items():
            p = Path(tmp) / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            with open(p, "w", encoding="utf-8", newline="", errors="surrogatepass") as fh:
                fh.write(text)
        for rel, hexed in (case.get("bytes") or {}).items():
            p = Path(tmp) / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(bytes.fromhex(hexed))
        for rel in case.get("fifos") or []:
            os.mkfifo(Path(tmp) / rel)
        yield tmp
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# ------------------------------------------------------------------ oracles
def input_lines(text: str) -> list[str]:
    """Lines as a reader sees them: ends are \\n, \\r\\n or \\r (an independent splitter)."""
    lines = re.split(r"\r\n|\r|\n", text)
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
    return lines


def parse_diagnostics(err: str) -> list[dict]:
    """Each diagnostic of stderr with its quoted line and caret (split at \\n only: a quoted
    line may hold a form feed or a vertical tab)."""
    lines = err.split("\n")
    out = []
    i = 0
    while i < len(lines):
        m = LOCATED.match(lines[i])
        if not m:
            i += 1
            continue
        d = dict(m.groupdict(), line=int(m["line"]), col=int(m["col"]), source=None, caret=None)
        if i + 2 < len(lines) and lines[i + 1].startswith("  ") and CARET.match(lines[i + 2]):
            d["source"] = lines[i + 1][2:]
            d["caret"] = len(CARET.match(lines[i + 2])["pad"]) + 1
            i += 3
        else:
            i += 1
        out.append(d)
    return out


def _sources_for(path: str, argv: list, cwd: str, stdin: str = "") -> list[list[str]]:
    """The texts an error at ``path`` may quote (several when a run names several; the
    standard input too, when an argument '-' reads it)."""
    if path == "<command line>":
        return [["drillbook " + " ".join(shlex.quote(a) for a in argv)]]
    if path in ("<question>", "<expression>"):
        texts = [a.strip() for a in argv if a.strip()]
        if "-" in argv:
            texts += [stdin, stdin.strip()]
        return [input_lines(t) for t in texts]
    p = Path(cwd) / path
    try:
        if p.is_file() and p.stat().st_size < 32 * 1024 * 1024:
            with open(p, encoding="utf-8", newline="") as fh:
                return [input_lines(fh.read())]
    except (OSError, UnicodeDecodeError):
        pass
    return []


def check_run(run: Run, cwd: str) -> list[Failure]:
    fails = []
    head = " ".join(shlex.quote(a) for a in run.argv)[:200]
    if run.rc == "timeout":
        return [Failure("hang", f"hang:{_shape(run.argv)}", f"{head}: no answer in {SECONDS} s")]
    if run.rc == "memory":
        return [Failure("memory", f"memory:{_shape(run.argv)}", f"{head}: more than 1 GB")]
    if "Traceback (most recent call last)" in run.err or "Traceback (most recent" in run.out:
        last = [x for x in run.err.strip().split("\n") if x.strip()][-1:]
        return [Failure("traceback", "traceback:" + _norm(last[0] if last else ""),
                        f"{head}\n{run.err[-3000:]}")]
    for d in parse_diagnostics(run.err):
        if d["code"] in ("E999", "E998"):
            kind = "memory" if "MemoryError" in d["message"] else "internal"
            fails.append(Failure(kind, f"{d['code']}:{_norm(d['message'])}",
                                 f"{head}\n{run.err[:3000]}"))
    if fails:
        return fails
    if run.rc not in (0, 1, 2):
        fails.append(Failure("exit", f"exit:{run.rc}", f"{head}\n{run.err[:2000]}"))
    if len(run.out) + len(run.err) > OUTPUT:
        fails.append(Failure("output", f"output:{_shape(run.argv)}",
                             f"{head}: {len(run.out) + len(run.err)} characters"))
    for d in parse_diagnostics(run.err):
        texts = _sources_for(d["path"], run.argv, cwd, run.stdin)
        if not texts:
            continue                   # a file the case does not own (a device...)
        ok = False
        for lines in texts:
            if (1 <= d["line"] <= len(lines) and d["source"] == lines[d["line"] - 1]
                    and d["caret"] == d["col"]):
                ok = True
        if d["source"] is None and d["path"] == "<command line>" and d["col"] == 1:
            ok = ok or False
        if not ok:
            fails.append(Failure("located", f"located:{d['code']}:{_norm(d['message'])[:40]}",
                                 f"{head}\n{d['path']}:{d['line']}:{d['col']} quoted "
                                 f"{d['source']!r} caret at {d['caret']}\n{run.err[:2000]}"))
    return fails


def _shape(argv) -> str:
    return argv[0] if argv else "-"


def _norm(message: str) -> str:
    """A message with its particulars (numbers, quoted words) left out, to group bugs."""
    message = re.sub(r"'[^']*'", "'…'", message)
    message = re.sub(r"\d+", "N", message)
    return message[:80]


def comments(text: str) -> Counter:
    """The comments of a .drill text (``--`` to the end of a line, outside a string)."""
    found = Counter()
    for line in input_lines(text):
        in_str, i = False, 0
        while i < len(line):
            ch = line[i]
            if in_str:
                if ch == "\\":
                    i += 1
                elif ch == '"':
                    in_str = False
            elif ch == '"':
                in_str = True
            elif line.startswith("--", i):
                found[line[i:].rstrip()] += 1
                break
            i += 1
    return found


def check_fmt(path: str, text: str) -> list[Failure]:
    from drillbook.errors import DrillError
    from drillbook.fmt import format_text, same_ast
    from drillbook.syntax import parse_file
    try:
        with _bounded():
            try:
                before = parse_file(path, text)
            except DrillError:
                return []
            try:
                once = format_text(text, path)
            except DrillError:
                return []                # fmt refuses (E990) and leaves the file as it is
            twice = format_text(once, path)
            after = parse_file(path, once)
    except _Timeout:
        return [Failure("hang", "hang:fmt", f"fmt of {path} took more than {SECONDS} s")]
    except RecursionError:
        return [Failure("internal", "fmt:RecursionError", path)]
    except Exception as e:               # noqa: BLE001
        return [Failure("internal", f"fmt:{type(e).__name__}:{_norm(str(e))}",
                        f"{path}\n{traceback.format_exc()[-2000:]}")]
    fails = []
    if once != twice:
        fails.append(Failure("fmt", "fmt:not idempotent", path))
    if not same_ast(before, after):
        fails.append(Failure("fmt", "fmt:changes the AST", path))
    if comments(text) != comments(once):
        fails.append(Failure("fmt", "fmt:loses a comment", path))
    return fails


def run_case(case: dict) -> list[Failure]:
    """Every failure of one case (an empty list: it passed every oracle)."""
    if case.get("kind") == "question":
        return run_question(case)
    fails: list[Failure] = []
    with materialize(case) as cwd:
        runs = [run_cli(argv, cwd) for argv in case["runs"]]
        for r in runs:
            fails += check_run(r, cwd)
        oracles = case.get("oracles", ())
        if "trace" in oracles and len(runs) >= 2 and not fails:
            fails += _trace_agrees(runs[0], runs[1])
        if "seed" in oracles and runs and not fails and not _writes(runs[0].argv):
            again = run_cli(case["runs"][0], cwd)
            if (again.rc, again.out, again.err) != (runs[0].rc, runs[0].out, runs[0].err):
                fails.append(Failure("seed", f"seed:{_shape(runs[0].argv)}",
                                     f"{runs[0].argv}\nexit {runs[0].rc}, then {again.rc}\nfirst:\n{runs[0].out[:1000]}{runs[0].err[:1000]}"
                                     f"\nthen:\n{again.out[:1000]}{again.err[:1000]}"))
        if "fmt" in oracles:
            for rel, text in (case.get("files") or {}).items():
                if rel.endswith(".drill"):
                    fails += check_fmt(rel, text)
    return fails


def _writes(argv) -> bool:
    return any(a in ("fmt", "render") for a in argv[:1])


def _trace_agrees(plain: Run, traced: Run) -> list[Failure]:
    head = " ".join(shlex.quote(a) for a in plain.argv)[:200]
    if plain.rc != traced.rc:
        return [Failure("trace", "trace:exit", f"{head}\nwithout a trace: exit {plain.rc}\n"
                        f"{plain.err[:1500]}\nwith a trace: exit {traced.rc}\n{traced.err[:1500]}")]
    if plain.rc != 0:
        a = [(d["code"], d["line"], d["col"]) for d in parse_diagnostics(plain.err)]
        b = [(d["code"], d["line"], d["col"]) for d in parse_diagnostics(traced.err)]
        if a != b:
            return [Failure("trace", "trace:errors", f"{head}\n{plain.err[:1500]}\n----\n"
                            f"{traced.err[:1500]}")]
        return []
    try:
        shown = json.loads(traced.out)["shown"]
    except (ValueError, KeyError, TypeError):
        return [Failure("trace", "trace:json", f"{head}\n{traced.out[:1500]}")]
    if not plain.out.startswith(shown + "\n"):
        return [Failure("trace", "trace:value", f"{head}\nwithout: {plain.out[:500]!r}\n"
                        f"with: {shown[:500]!r}")]
    return []


# ------------------------------------------------------------------ questions through the API
_OPENED: dict = {}


def _opened(book: str, state: str | None):
    """A bundled rulebook opened once per process (load, check, compile), with one state."""
    key = (book, state)
    if key not in _OPENED:
        from drillbook.compile import compile_model
        from drillbook.evaluate import Rulebook
        rb, st = opened(book, state)
        texts = {}
        for p in (ROOT / book).rglob("*"):
            if p.suffix in (".drill", ".yaml") and p.is_file():
                texts[str(p.relative_to(ROOT))] = p.read_text(encoding="utf-8")
        # the same rulebook without generated code, with its own state (levels are
        # compared by identity): the oracle the generated code is checked against
        plain = Rulebook(rb.model, compile_model(rb.model, generated=False))
        cwd = os.getcwd()
        os.chdir(ROOT)
        try:
            plain_st = plain.state(f"{book}/states/{state}" if state else None)
        finally:
            os.chdir(cwd)
        _OPENED[key] = (rb, st, texts, plain, plain_st)
    return _OPENED[key]


def _ask_plain(case, plain, st):
    """What the question gives without a trace and without generated code (see
    ``compile.Program``): ('ok', shown) or ('error', rendered diagnostics)."""
    from drillbook.errors import DrillError
    from drillbook.runtime import show
    try:
        rolls = plain.rolls(case.get("rolls") or {})
        options = plain.options(case.get("options") or [])
        ans = plain.ask(case["question"], st, rolls, options, seed=case.get("seed"))
        return ("ok", show(ans.value))
    except DrillError as e:
        return ("error", e.render())


def _ask_all(case, rb, st):
    """What the question gives without a trace, with one, again without, and as odds:
    each ('ok', shown) or ('error', rendered diagnostics)."""
    from drillbook.errors import DrillError
    from drillbook.explain import answer_json, ruling
    from drillbook.runtime import show
    out = []
    q = case["question"]
    try:
        rolls = rb.rolls(case.get("rolls") or {})
        options = rb.options(case.get("options") or [])
    except DrillError as e:
        return [("error", e.render())] * 3
    for trace in (False, True, False):
        try:
            ans = rb.ask(q, st, rolls, options, seed=case.get("seed"), trace=trace)
            shown = show(ans.value)
            if trace:
                json.dumps(answer_json(ans), ensure_ascii=False)
                if case.get("explain"):
                    text = ruling(ans, case.get("lang"))
                    if len(text) > OUTPUT:
                        raise _TooLong(len(text))
            out.append(("ok", shown))
        except DrillError as e:
            out.append(("error", e.render()))
    if case.get("odds"):
        began = time.process_time()
        first = _odds(rb, q, st, rolls, options, alike=True)
        if time.process_time() - began <= SECONDS / 10:     # quick enough to ask again
            every = _odds(rb, q, st, rolls, options, alike=False)   # every face replayed
            limited = every[0] == "error" and re.search(r"\b(E802|E525)\b", every[1])
            if every != first and not limited:              # (replaying each costs more)
                raise _Unalike(f"odds with faces alike counted once: {first[1][:300]}\n"
                               f"every face replayed: {every[1][:300]}")
        kind, text = first
        out.append((kind, text[:200] if kind == "ok" else text))
    return out


class _TooLong(Exception):
    pass


def _odds(rb, q, st, rolls, options, alike):
    from drillbook.errors import DrillError
    try:
        return ("ok", repr(sorted(rb.odds(q, st, rolls, options, alike=alike)[1].items())))
    except DrillError as e:
        return ("error", e.render())


class _Unalike(Exception):
    """``odds`` counting faces alike once gave another distribution than replaying each."""


def run_question(case: dict) -> list[Failure]:
    from drillbook.errors import remember_source
    rb, st, texts, plain, plain_st = _opened(case["book"], case.get("state"))
    for rel, text in texts.items():          # other cases may have parsed files of that name
        remember_source(rel, text)
    head = f"{case['book']}: {case['question'][:300]}"
    try:
        with _bounded():
            got = _ask_all(case, rb, st)
            step_by_step = _ask_plain(case, plain, plain_st)
    except _Timeout:
        return [Failure("hang", "hang:question", f"{head}: no answer in {SECONDS} s")]
    except MemoryError:
        return [Failure("memory", "memory:question", f"{head}: more than 1 GB")]
    except _TooLong as e:
        return [Failure("output", "output:ruling", f"{head}: a ruling of {e} characters")]
    except _Unalike as e:
        return [Failure("odds", "odds:alike", f"{head}\n{e}")]
    except RecursionError:
        return [Failure("internal", "E998:RecursionError", head)]
    except Exception as e:               # noqa: BLE001 - an internal error
        return [Failure("internal", f"E999:{type(e).__name__}:{_norm(str(e))}",
                        f"{head}\n{traceback.format_exc()[-3000:]}")]
    fails = []
    argv = [case["question"]]
    for kind, text in got:
        if kind == "error":
            run = Run(argv, 1, "", text)
            fails += check_run(run, str(ROOT))
    if fails:
        return fails
    a, b, again = got[0], got[1], got[2]
    if _outcome(a) != _outcome(b):
        fails.append(Failure("trace", "trace:" + a[0] + "/" + b[0],
                             f"{head}\nwithout a trace: {a[1][:800]}\nwith a trace: {b[1][:800]}"))
    if a != again:
        fails.append(Failure("seed", "seed:question", f"{head}\n{a[1][:800]}\nthen: {again[1][:800]}"))
    if _outcome(a) != _outcome(step_by_step):
        fails.append(Failure("generated", "generated:" + a[0] + "/" + step_by_step[0],
                             f"{head}\ngenerated code: {a[1][:800]}\n"
                             f"step by step: {step_by_step[1][:800]}"))
    return fails


def _outcome(result):
    kind, text = result
    if kind == "ok":
        return result
    return kind, [(d["code"], d["path"], d["line"], d["col"]) for d in parse_diagnostics(text)]
