"""Benchmark: how long a fresh interpreter takes to import drillbook, beside importing Lark.

Each side runs in its own new process (an import is only cold once per process), in turn,
--n times; the best time of each is kept and the ratio printed.  Three drillbook imports are
timed: the command line as ``drillbook --version`` reaches it, the evaluate stage (what a
host program imports), and the explain stage with its records.  The baseline is
``import lark``, which every drillbook import includes, in the same kind of process.

    python bench/import_time.py [--n 15]
"""
from __future__ import annotations

import os
import subprocess
import sys

from common import ROOT, arguments

SIDES = {
    "import lark (baseline)": "import lark",
    "import dataclasses": "import dataclasses",
    "import drillbook.cli": "import drillbook.cli",
    "import drillbook.evaluate": "import drillbook.evaluate",
    "import drillbook.explain": "import drillbook.explain, drillbook.describe",
}

PROBE = ("import time; t = time.perf_counter(); {stmt}; "
         "print(time.perf_counter() - t)")


def one(stmt: str) -> float:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "interpreter"))
    out = subprocess.run([sys.executable, "-c", PROBE.format(stmt=stmt)], env=env,
                         capture_output=True, text=True, check=True).stdout
    return float(out)


def main() -> None:
    args = arguments(15)
    best = {name: float("inf") for name in SIDES}
    for _ in range(args.n):                     # interleaved, so both see the same machine
        for name, stmt in SIDES.items():
            best[name] = min(best[name], one(stmt))
    base = best["import lark (baseline)"]
    for name, t in best.items():
        print(f"{name:<28} {t * 1000:7.1f} ms   ×{t / base:5.2f} of import lark")


if __name__ == "__main__":
    main()
