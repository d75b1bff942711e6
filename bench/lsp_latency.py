"""Benchmark: how long the language server takes to give the diagnostics of the Musket &
Pike rulebook after a change, beside a plain ``drillbook check`` of the same texts in the
same process.

The server's path is ``lsp.project.analyse`` (the edited file re-parsed from the editor's
text, the other files' parses reused, the whole rulebook checked) plus the conversion of
every file's diagnostics to LSP.  The baseline is what ``drillbook check`` does: load
(parse every file) and check, from a copy of the rulebook on disk holding the same text.
Each timed change alternates between a broken text (the use of a name nearest the middle
of the file misspelt, in place) and the fixed one, so every change is parsed afresh; both
sides must report the same error codes.  One line per file of the rulebook.

    python bench/lsp_latency.py [--n 6] [--repeats 3]

The server waits ``server.DEBOUNCE`` seconds of quiet after a keystroke before it starts;
that wait is not counted here (it is printed).  Target: <= 150 ms after a change.  The
server's CPU time is printed beside its wall time: on a machine shared with other work
the wall time grows, the CPU time does not.
"""
from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

from common import ROOT, arguments, best_of, quiet_heap

from drillbook.check import check
from drillbook.errors import DrillError
from drillbook.loader import load
from drillbook.lsp import features, index
from drillbook.lsp.project import ParseCache, analyse, real

BOOK = ROOT / "rulebooks" / "musket-and-pike"
TARGET_MS = 150


def plain_check(folder: Path) -> set:
    try:
        model = check(load(str(folder)))
        return {w.code for w in model.warnings}
    except DrillError as e:
        return {d.code for d in e.diagnostics}


def lsp_codes(a) -> set:
    return {d.code for path in a.files for d in features.diagnostics(a, path)}


def broken(text: str, path: str, ix) -> str:
    """The text with the use of a name nearest the middle of the file misspelt, in place
    (the same lines: a keystroke, not a new line)."""
    middle = text.count("\n") // 2
    uses = [o.span for o in ix.occurrences if o.span.path == path and not o.definition
            and o.key[0] == "decl"]
    span = min(uses, key=lambda s: abs(s.line - middle))
    lines = text.split("\n")
    ln = lines[span.line - 1]
    lines[span.line - 1] = ln[: span.end - 1] + "x" + ln[span.end - 1:]
    return "\n".join(lines)


def main():
    args = arguments(6)
    from drillbook.lsp.server import DEBOUNCE
    tmp = Path(tempfile.mkdtemp(prefix="drillbook-bench-"))
    try:
        copy = tmp / "book"
        shutil.copytree(BOOK, copy)
        main_file = real(str(copy / "rulebook.drill"))
        cache = ParseCache()
        ix = index.build(analyse(main_file, {}, cache).model)   # the server's first analysis
        quiet_heap()
        print(f"diagnostics after a change, Musket & Pike ({len(list(copy.glob('*.drill')))} "
              f"files), best of {args.repeats} x {args.n} changes; debounce "
              f"{DEBOUNCE * 1e3:.0f} ms not counted")
        worst = 0.0
        for path in sorted(copy.glob("*.drill"), key=lambda p: p.stat().st_size):
            if path.name == "rulebook.drill":
                continue
            good = path.read_text(encoding="utf-8")
            bad = broken(good, real(str(path)), ix)
            key = real(str(path))
            texts = [{key: bad}, {key: good}]
            expect = []
            for t in (bad, good):
                path.write_text(t, encoding="utf-8")
                expect.append(plain_check(copy))
            assert expect[0] and expect[0] != expect[1], expect
            got = [lsp_codes(analyse(main_file, t, cache)) for t in texts]
            assert got == expect, f"{path.name}: the server says {got}, drillbook check {expect}"

            def server():
                for i in range(args.n):
                    a = analyse(main_file, texts[i % 2], cache)
                    for p in a.files:
                        features.diagnostics(a, p)

            def baseline():
                for i in range(args.n):
                    path.write_text(texts[i % 2][key], encoding="utf-8")
                    plain_check(copy)

            t_lsp = best_of(args.repeats, server) / args.n
            t_base = best_of(args.repeats, baseline) / args.n
            cpu = time.process_time()
            server()
            cpu = (time.process_time() - cpu) / args.n
            path.write_text(good, encoding="utf-8")
            worst = max(worst, t_lsp)
            lines = good.count("\n")
            mark = "ok" if t_lsp * 1e3 <= TARGET_MS else "OVER"
            print(f"  change in {path.name:<17} ({lines:4d} lines): server {t_lsp * 1e3:6.1f} ms "
                  f"(CPU {cpu * 1e3:5.1f} ms), drillbook check {t_base * 1e3:6.1f} ms, ratio "
                  f"{t_lsp / t_base:4.2f}x  [{mark}: target <= {TARGET_MS} ms]")
        print(f"  worst: {worst * 1e3:.1f} ms")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
