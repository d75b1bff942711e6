"""What the benchmarks share: the command line, the timing, and a quiet heap."""
from __future__ import annotations

import argparse
import gc
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "interpreter"))


def arguments(n: int, repeats: int = 3):
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=n, help="evaluations per timing")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeats", type=int, default=repeats, help="timings; the best is kept")
    return ap.parse_args()


def quiet_heap():
    """What both sides built once (the rulebook, the states) is moved out of the garbage
    collector's way before timing, as a long-running host would."""
    gc.collect()
    gc.freeze()


def best_of(repeats: int, fn) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)
