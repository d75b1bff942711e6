"""What the benchmarks share: the command line, the timing, a quiet heap, a bare parser.

Timing is CPU time (``time.process_time``, or the children's CPU time from ``resource``
for whole processes), as medians over interleaved rounds: each round times every side once,
so a load on the machine that comes and goes weighs on all sides alike.
"""
from __future__ import annotations

import argparse
import gc
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "interpreter"))


def arguments(n: int, repeats: int = 3):
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=n, help="evaluations per timing")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeats", type=int, default=repeats, help="interleaved rounds")
    return ap.parse_args()


def quiet_heap():
    """What both sides built once (the rulebook, the states) is moved out of the garbage
    collector's way before timing, as a long-running host would."""
    gc.collect()
    gc.freeze()


def rounds(sides: dict, count: int) -> dict:
    """{name: median CPU seconds of one call} over ``count`` interleaved rounds; the order
    of the sides turns each round."""
    names = list(sides)
    times: dict = {n: [] for n in names}
    for r in range(count):
        for name in names[r % len(names):] + names[:r % len(names)]:
            t = time.process_time()
            sides[name]()
            times[name].append(time.process_time() - t)
    return {n: statistics.median(ts) for n, ts in times.items()}


def best_of(repeats: int, fn) -> float:
    """The median CPU time of ``fn`` over ``repeats`` runs (kept for the single scripts)."""
    return rounds({"fn": fn}, repeats)["fn"]


def child_env() -> dict:
    """The environment of a user's shell: bytecode is cached as after ``pip install``."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def child_cpu(argv, env, cwd=None) -> float:
    """The CPU time (user + system) one process takes, from start to exit."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(map(str, argv))} failed: {done.stderr.decode()[-400:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def bare_parser():
    """A Lark parser of drillbook's grammar with drillbook's options, building a plain
    parse tree: the floor a load is measured against."""
    from lark import Lark
    from drillbook.syntax import Layout, _grammar_text
    return Lark(_grammar_text(), parser="lalr", postlex=Layout(), start=["start", "expr_start"],
                propagate_positions=True, maybe_placeholders=True, cache=True)
