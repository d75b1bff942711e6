"""Fuzzing, campaign: run generated cases for N minutes, shrink each distinct failure, save it.

    python tests/fuzz/campaign.py --minutes 30 [--jobs 2] [--seed 0] [--kinds question,rulebook]

Each worker is a separate process (``--worker``) that runs cases seed after seed under the
oracles of ``fuzzlib`` and reports one JSON line per case; a worker that dies (a crash the
oracles could not catch) is reported as a failure of the case it was running and replaced.
At the end every distinct failure (by signature) is shrunk to a minimal reproducer and
written to ``tests/fuzz/found/NAME.json``, which ``tests/fuzz/test_found.py`` replays as a
regression test.  The summary counts cases, E999s, misplaced carets, hangs and blow-ups.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
# the interpreter under test: this checkout's, or another's (--interpreter, e.g. to replay
# the campaign against an older main and collect the reproducers of what it got wrong)
UNDER_TEST = os.environ.get("DRILLBOOK_FUZZ_INTERPRETER", str(HERE.parents[1] / "interpreter"))
sys.path.insert(0, str(HERE))
sys.path.insert(0, UNDER_TEST)

FOUND = HERE / "found"


def case_for(seed: int, kinds=None) -> dict:
    import gen
    rng = random.Random(seed)
    if kinds:
        return gen.GENERATORS[rng.choice(kinds)](rng)
    return gen.any_case(rng)


def worker(start: int, step: int, until: float, kinds) -> None:
    """Run seeds start, start+step, ... until the clock says stop; one JSON line each."""
    import fuzzlib
    seed = start
    while time.time() < until:
        print(json.dumps({"start": seed}), flush=True)
        try:
            case = case_for(seed, kinds)
            fails = fuzzlib.run_case(case)
        except Exception as e:      # noqa: BLE001 - a bug of the fuzzer itself
            case, fails = {"seed": seed, "kind": "fuzzer"}, [fuzzlib.Failure(
                "fuzzer", f"fuzzer:{type(e).__name__}", repr(e))]
        print(json.dumps({"seed": seed, "kind": case.get("kind"),
                          "fails": [f.as_json() for f in fails]}), flush=True)
        seed += step


def shrink(case: dict, signature: str, budget: float = 60.0) -> dict:
    """A smaller case that still fails with ``signature``: fewer command lines, fewer lines
    in each file, fewer words in the question (greedy, within ``budget`` seconds)."""
    import fuzzlib
    deadline = time.time() + budget

    def still(c) -> bool:
        if time.time() > deadline:
            return False
        try:
            return any(f.signature == signature for f in fuzzlib.run_case(c))
        except Exception:            # noqa: BLE001
            return False

    best = json.loads(json.dumps(case))
    if len(best.get("runs") or []) > 1:
        for i in reversed(range(len(best["runs"]))):
            trial = dict(best, runs=best["runs"][:i] + best["runs"][i + 1:])
            if trial["runs"] and still(trial):
                best = trial
    for rel in list(best.get("files") or {}):
        lines = best["files"][rel].split("\n")
        chunk = max(1, len(lines) // 2)
        while chunk >= 1 and time.time() < deadline:
            i, changed = 0, False
            while i < len(lines):
                trial_lines = lines[:i] + lines[i + chunk:]
                trial = dict(best, files=dict(best["files"], **{rel: "\n".join(trial_lines)}))
                if trial_lines and still(trial):
                    best, lines, changed = trial, trial_lines, True
                else:
                    i += chunk
            if not changed:
                chunk //= 2
    if best.get("kind") == "question":
        words = best["question"].split(" ")
        i = 0
        while i < len(words) and time.time() < deadline:
            trial = dict(best, question=" ".join(words[:i] + words[i + 1:]))
            if still(trial):
                best, words = trial, words[:i] + words[i + 1:]
            else:
                i += 1
        for key, empty in (("rolls", {}), ("options", []), ("odds", False), ("explain", False)):
            if best.get(key) and still(dict(best, **{key: empty})):
                best = dict(best, **{key: empty})
    return best


def save(case: dict, failure: dict) -> Path:
    FOUND.mkdir(exist_ok=True)
    # the signature names the class of failure (several hangs share one), so the case is
    # part of the name: a new reproducer never overwrites an earlier one
    what = failure["signature"] + json.dumps(case, sort_keys=True, ensure_ascii=False)
    digest = hashlib.sha1(what.encode()).hexdigest()[:10]
    path = FOUND / f"{failure['kind']}-{digest}.json"
    path.write_text(json.dumps({"failure": failure, "case": case}, ensure_ascii=False,
                               indent=1) + "\n", encoding="utf-8")
    return path


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=1.0)
    ap.add_argument("--jobs", type=int, default=max(1, min(2, os.cpu_count() or 1)))
    ap.add_argument("--seed", type=int, default=int(time.time()) % 1_000_000)
    ap.add_argument("--kinds", default="", help="comma-separated: question,cli-question,"
                    "rulebook,state,argv (default: all, weighted)")
    ap.add_argument("--no-shrink", action="store_true")
    ap.add_argument("--shrink-seconds", type=float, default=30.0,
                    help="time to shrink each distinct failure")
    ap.add_argument("--worker", nargs=3, type=float, metavar=("START", "STEP", "UNTIL"),
                    help=argparse.SUPPRESS)
    ap.add_argument("--interpreter", metavar="DIR",
                    help="fuzz the drillbook package under DIR (default: this checkout's)")
    args = ap.parse_args(argv)
    if args.interpreter and os.environ.get("DRILLBOOK_FUZZ_INTERPRETER") != \
            os.path.abspath(args.interpreter):
        os.environ["DRILLBOOK_FUZZ_INTERPRETER"] = os.path.abspath(args.interpreter)
        os.execv(sys.executable, [sys.executable, str(Path(__file__).resolve())] + [
            a for a in (argv if argv is not None else sys.argv[1:])])
    kinds = [k for k in args.kinds.split(",") if k]
    if args.worker:
        worker(int(args.worker[0]), int(args.worker[1]), args.worker[2], kinds)
        return 0
    until = time.time() + args.minutes * 60
    started = time.time()
    counts, by_kind = Counter(), Counter()
    first: dict[str, tuple[int, dict]] = {}
    cases = 0
    procs = {}

    def spawn(slot, start):
        cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", str(start),
               str(args.jobs), str(until)]
        if kinds:
            cmd += ["--kinds", ",".join(kinds)]
        procs[slot] = [subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True), None]

    for slot in range(args.jobs):
        spawn(slot, args.seed + slot)
    import selectors
    sel = selectors.DefaultSelector()
    for slot, (p, _) in procs.items():
        sel.register(p.stdout, selectors.EVENT_READ, slot)
    while procs:
        for key, _ in sel.select(timeout=5):
            slot = key.data
            p, running = procs[slot]
            line = p.stdout.readline()
            if not line:                       # the worker ended, or died
                sel.unregister(p.stdout)
                rc = p.wait()
                del procs[slot]
                if rc != 0 and running is not None:
                    cases += 1
                    sig = f"crash:exit {rc}"
                    counts[sig] += 1
                    first.setdefault(sig, (running, {"kind": "crash", "signature": sig,
                                                     "detail": f"worker exit {rc}"}))
                    if time.time() < until:
                        spawn(slot, running + args.jobs)
                        sel.register(procs[slot][0].stdout, selectors.EVENT_READ, slot)
                continue
            try:
                msg = json.loads(line)
            except ValueError:                 # something printed past the oracles
                continue
            if "start" in msg:
                procs[slot][1] = msg["start"]
                continue
            procs[slot][1] = None
            cases += 1
            by_kind[msg["kind"]] += 1
            for f in msg["fails"]:
                counts[f["signature"]] += 1
                first.setdefault(f["signature"], (msg["seed"], f))
    elapsed = time.time() - started
    kinds_count = Counter()
    for sig, n in counts.items():
        kinds_count[first[sig][1]["kind"]] += n
    print(f"fuzz campaign: {cases} cases in {elapsed / 60:.1f} min "
          f"({cases / max(elapsed, 1e-9):.0f}/s, {args.jobs} jobs, seed {args.seed})")
    print("  by kind: " + ", ".join(f"{k} {n}" for k, n in sorted(by_kind.items())))
    print(f"  E999 internal errors: {kinds_count['internal']}, misplaced carets: "
          f"{kinds_count['located']}, hangs: {kinds_count['hang']}, memory blow-ups: "
          f"{kinds_count['memory']}, tracebacks: {kinds_count['traceback']}, crashes: "
          f"{kinds_count['crash']}, other: " + str(sum(kinds_count.values()) - sum(
              kinds_count[k] for k in ("internal", "located", "hang", "memory", "traceback",
                                       "crash"))))
    print(f"  distinct failures: {len(counts)}")
    for sig, n in counts.most_common():
        seed, f = first[sig]
        line = f"  {n:6d}  {sig}  (seed {seed})"
        if not args.no_shrink and f["kind"] != "crash":
            small = shrink(case_for(seed, kinds), sig, args.shrink_seconds)
            line += f" -> {save(small, f).relative_to(HERE.parents[1])}"
        print(line)
    return 1 if counts else 0


if __name__ == "__main__":
    sys.exit(main())
