"""Every speed figure of drillbook, each beside its baseline in this same process, with its
target and a ✔ or ✘.  Times are medians of CPU time over interleaved rounds (common.py).

    python bench/run.py [--quick] [--record]

--record appends the printed figures to bench/RESULTS.md with the date and the machine.
Nothing here is a test: the suite never times anything.
"""
from __future__ import annotations

import argparse
import datetime
import os
import platform
import random
import shutil
import sys
import tempfile
from fractions import Fraction

from common import ROOT, bare_parser, child_cpu, child_env, quiet_heap, rounds

import order_change as oc
import path_cost as pc
from drillbook import cache
from drillbook.compile import codegen
from drillbook.evaluate import Rulebook, outcome_key
from drillbook.runtime import Ctx, Dice, NeedChoice, NeedRoll

BOOK = ROOT / "rulebooks" / "musket-and-pike"
GDB = ROOT / "rulebooks" / "general-de-brigade"
LINES: list[str] = []


def report(name: str, figure: str, target: str, ok: bool | None):
    mark = "·" if ok is None else ("✔" if ok else "✘")
    line = f"{mark} {name:<46} {figure:<34} target {target}"
    LINES.append(line)
    print(line, flush=True)


# ------------------------------------------------------------------ 5.7 order change
ZEN_SOURCE = ("max([0, min([9, roll + rating + (ac_rating != null and ac_near ? ac_rating : 0)"
              " + (adjacent ? 1 : 0) + (cavalry and desired == 'Charge' ? -1 : 0)"
              " + (cavalry and desired == 'ReceiveCharge' ? 1 : 0)"
              " + (desired == 'Rally' and 2 * count(units, # != 'Normal') > len(units) ? -2 : 0)"
              "])]) <= table[order][desired]")


def emitted_floor(rb):
    """The floor a code generator can reach: the decision as one straight-line function
    over drillbook's own values (entities, levels, the state), as generated code would
    read them, with the table as one dictionary lookup."""
    lv = {x.name: x for x in rb.program.levels["Order"]}
    shaken = next(x for x in rb.program.levels["MoraleState"] if x.name == "Shaken").index
    table = {(lv[a], lv[b]): v for a, row in oc.TABLE.items() for b, v in row.items()}
    charge, receive, rally = lv["Charge"], lv["ReceiveCharge"], lv["Rally"]

    broken = next(x for x in rb.program.levels["MoraleState"] if x.name == "Broken")

    def hexes(a, b):
        dq, dr = a.q - b.q, a.r - b.r
        return (abs(dq) + abs(dr) + abs(dq + dr)) // 2

    def decide(state, w, desired, roll):
        f = w.fields
        ents = state.entities
        wc = ents[f["commander"]].fields
        drm = wc["rating"]
        ac = f["army_commander"]
        if ac is not None and hexes(ents[ac].fields["at"], wc["at"]) <= 1:
            drm += ents[ac].fields["rating"]
        for i in state.by_type.get("Unit", ()):       # an enemy unit, not Broken, adjacent
            u = ents[i].fields
            if u["at"] is not None and u["morale"] is not broken and \
                    ents[u["wing"]].fields["side"] is not f["side"] and hexes(u["at"], wc["at"]) == 1:
                drm += 1
                break
        if f["cavalry"]:
            if desired is charge:
                drm -= 1
            elif desired is receive:
                drm += 1
        if desired is rally:
            bad = total = 0
            for i in state.by_type.get("Unit", ()):
                u = ents[i].fields
                if u["wing"] == w.id:
                    total += 1
                    if u["morale"].index >= shaken:
                        bad += 1
            if 2 * bad > total:
                drm -= 2
        t = roll + drm
        t = 0 if t < 0 else 9 if t > 9 else t
        return t <= table[f["order"], desired]
    return decide


def order_change(n: int, count: int):
    """The 5.7 check over n seeded states: by hand, by drillbook (trace off, on, and with a
    context built per question), the straight-line floor, and ZEN if installed."""
    rb = Rulebook.open(str(BOOK))
    check = rb.program.callables["order_change_roll"]
    lv = {x.name: x for x in rb.program.levels["Order"]}
    cases = oc.random_cases(n, 1)
    prepared = [(oc.to_state(rb, w), lv[d], {"d10": [r]}, w, d, r) for w, d, r in cases]
    options = frozenset()

    lean = {False: rb.evaluator("order_change_roll"),
            True: rb.evaluator("order_change_roll", trace=True)}

    def engine(trace):                 # the lean question API: one context for all states
        ev = lean[trace]
        return [ev(state, [state.entities["w"], desired], rolls).passed
                for state, desired, rolls, *_ in prepared]

    def read(node):                    # every step of the tree, as explain reads it
        for c in node.children:
            read(c)

    def traced_and_read():             # trace on, and each question's tree of steps read
        ev, out = lean[True], []
        for state, desired, rolls, *_ in prepared:
            out.append(ev(state, [state.entities["w"], desired], rolls).passed)
            read(ev.trace)
        return out

    def per_question():                # a Ctx and Dice built per question
        return [check(Ctx(state, Dice(rolls), options), [state.entities["w"], desired]).passed
                for state, desired, rolls, *_ in prepared]

    def baseline():
        return [oc.by_hand(w, d, r) for _, _, _, w, d, r in prepared]

    expected = baseline()
    assert engine(False) == expected and engine(True) == expected and per_question() == expected
    assert traced_and_read() == expected
    sides = {"hand": baseline, "off": lambda: engine(False), "on": lambda: engine(True),
             "ctx": per_question, "read": traced_and_read}
    zen = None
    floor = emitted_floor(rb)
    assert [floor(st, st.entities["w"], lv[d], r) for st, _, _, w, d, r in prepared] == expected
    sides["line"] = lambda: [floor(st, st.entities["w"], lv[d], r)
                             for st, _, _, w, d, r in prepared]
    try:
        import zen as zen_engine
        expr = zen_engine.compile_expression(ZEN_SOURCE)
        contexts = [dict(w, desired=d, roll=r, table=oc.TABLE) for _, _, _, w, d, r in prepared]
        assert [expr.evaluate(c) for c in contexts] == expected
        sides["zen"] = lambda: [expr.evaluate(c) for c in contexts]
        zen = True
    except ImportError:
        zen = False
    quiet_heap()
    return rounds(sides, count), zen


# ------------------------------------------------------------------ odds
DICE_BOOK = """\
rulebook "Bench dice" edition "1" languages en

section 1 "Dice"
  die d6 faces 1..6
  die d10 faces 1..10
  record Unit
    hits: 0..5 = 0
    veteran: Bool = false
  modifiers drm(u: Unit)
    hits: u.hits  "one per hit"
    vet: -1 when u.veteran  "veterans"
  check volley(u: Unit) = roll 8 d6 + drm(u) at most 30
  check barrage(u: Unit) = roll 10 d10 + drm(u) at most 50
"""


def by_hand_sum_at_most(count, faces, mod, goal):
    ways = {0: 1}
    for _ in range(count):
        nxt: dict = {}
        for s, w in ways.items():
            for f in range(1, faces + 1):
                nxt[s + f] = nxt.get(s + f, 0) + w
        ways = nxt
    return Fraction(sum(w for s, w in ways.items() if s + mod <= goal), faces ** count)


def old_replay(run):
    """The enumeration before convolution: one replay from the root per path of faces."""
    dist, stack = {}, [([], Fraction(1))]
    while stack:
        path, p = stack.pop()
        dice = Dice(None, path=path)
        dice.roll_sum = lambda die, low, high, count, loc, d=dice: sum(
            d.roll(die, low, high, loc) for _ in range(count))
        try:
            value = run(dice)
        except NeedRoll as need:
            faces = range(need.low, need.high + 1)
            stack.extend((path + [f], p / len(faces)) for f in reversed(faces))
            continue
        except NeedChoice as need:
            stack.extend((path + [i], p) for i in reversed(range(len(need.options))))
            continue
        key = (tuple((n, str(k)) for n, k in dice.made), outcome_key(value))
        dist[key] = dist.get(key, Fraction(0)) + p
    return dist


def odds_figures(work: str, count: int):
    folder = os.path.join(work, "dice")
    os.makedirs(folder)
    with open(os.path.join(folder, "rulebook.drill"), "w", encoding="utf-8") as fh:
        fh.write(DICE_BOOK)
    with open(os.path.join(folder, "state.yaml"), "w", encoding="utf-8") as fh:
        fh.write("Unit:\n  u: {hits: 2, veteran: true}\n")
    rb = Rulebook.open(folder)
    state = rb.state(os.path.join(folder, "state.yaml"))
    _, dist = rb.odds("volley(u)", state)
    assert dist[((), "passed")] == by_hand_sum_at_most(8, 6, 1, 30)
    quiet_heap()
    t = rounds({"hand": lambda: by_hand_sum_at_most(8, 6, 1, 30),
                "odds": lambda: rb.odds("volley(u)", state)}, count)
    report("odds of roll 8 d6 + modifiers at most 30", f"{t['odds'] * 1e3:6.2f} ms "
           f"({t['odds'] / t['hand']:4.1f}x by-hand convolution)", "<= 5 ms", t["odds"] <= 0.005)
    try:
        _, dist = rb.odds("barrage(u)", state)
        ok = dist[((), "passed")] == by_hand_sum_at_most(10, 10, 1, 50)
        t10 = rounds({"odds": lambda: rb.odds("barrage(u)", state)}, count)["odds"]
        report("odds of roll 10 d10 + modifiers", f"{t10 * 1e3:6.2f} ms, exact: {ok}",
               "no cap error", ok)
    except Exception as e:            # the cap error the target forbids
        report("odds of roll 10 d10 + modifiers", f"error: {e}", "no cap error", False)

    g = Rulebook.open(str(GDB))
    gstate = g.state(str(GDB / "states" / "charge.yaml"))
    options = g.options(["OptionalCommandRoll"])
    q = "charge_sequence(fr_18e, tomsk)"
    fn, _, size, _ = g.question(q, gstate)
    new = g.odds(q, gstate, None, options)[1]
    assert old_replay(lambda d: fn(Ctx(gstate, d, options), [None] * size)) == new
    quiet_heap()
    t = rounds({"old": lambda: old_replay(lambda d: fn(Ctx(gstate, d, options), [None] * size)),
                "odds": lambda: g.odds(q, gstate, None, options)}, count)
    report("odds of the GdB charge sequence (6.5), all", f"{t['odds'] * 1e3:6.2f} ms "
           f"({t['odds'] / t['old']:4.2f}x the replay)", "<= 10 ms", t["odds"] <= 0.010)


# ------------------------------------------------------------------ loads
def loads(work: str, count: int):
    texts = [p.read_text(encoding="utf-8") for p in sorted(BOOK.glob("*.drill"))]
    parser = bare_parser()

    def bare():
        for t in texts:
            parser.parse(t if t.endswith("\n") else t + "\n", start="start")

    def cold():                        # parse + check; each rule compiles when reached
        cache.enabled = False
        Rulebook.open(str(BOOK))

    def cold_all():                    # parse + check + compile every rule now
        cache.enabled = False
        codegen._CODE.clear()          # as a new process would: no code compiled before
        Rulebook.open(str(BOOK)).program.compile_all()

    def warm():
        cache.enabled = True
        Rulebook.open(str(BOOK))

    os.environ["DRILLBOOK_CACHE_DIR"] = os.path.join(work, "cache")
    warm()
    import gc
    gc.collect()
    gc.disable()        # all sides alike: a collection one side triggers lands in another's time
    try:
        t = rounds({"bare": bare, "cold": cold, "cold_all": cold_all, "warm": warm}, count)
    finally:
        gc.enable()
    cache.enabled = True
    report("cold open (parse + check, no cache)", f"{t['cold'] / t['bare']:5.2f}x bare Lark "
           f"parse ({t['cold'] * 1e3:.0f} ms)", "<= 1.2x", t["cold"] / t["bare"] <= 1.2)
    report("  the same, then compile every rule", f"{t['cold_all'] / t['bare']:5.2f}x bare Lark "
           f"parse ({t['cold_all'] * 1e3:.0f} ms)", "(reference)", None)
    report("cached open", f"{t['warm'] / t['cold']:5.1%} of cold ({t['warm'] * 1e3:.1f} ms)",
           "<= 10%", t["warm"] / t["cold"] <= 0.10)


def ask_process(work: str, count: int):
    env = child_env()
    env["DRILLBOOK_CACHE_DIR"] = os.path.join(work, "cache-ask")
    ask = [sys.executable, "-m", "drillbook", "ask", str(BOOK),
           "order_change_roll(horse, Charge)", "--state",
           str(BOOK / "states" / "cavalry-wing.yaml"), "--roll", "d10=6"]
    lark = [sys.executable, "-c", "import lark"]
    for _ in range(2):                 # bytecode written, cache filled
        child_cpu(ask, env)
        child_cpu(lark, env)
    times: dict = {"ask": [], "lark": []}
    for r in range(count):
        for name, argv in ((("ask", ask), ("lark", lark)) if r % 2 == 0 else
                           (("lark", lark), ("ask", ask))):
            times[name].append(child_cpu(argv, env))
    a, b = (sorted(v)[len(v) // 2] for v in (times["ask"], times["lark"]))
    report("drillbook ask, whole process, warm cache", f"{a / b:5.2f}x import lark "
           f"({a * 1e3:.0f} ms vs {b * 1e3:.0f} ms)", "<= 3x", a / b <= 3)


# ------------------------------------------------------------------ scale
def unrelated(count: int) -> str:
    out = []
    for i in range(count):
        out.append(f'section {900 + i // 100}.{i % 100 + 1} "Unrelated {i}"\n'
                   f"  enum ZzKind{i}\n    ZzA{i}\n    ZzB{i}\n"
                   f"  record ZzThing{i}\n    kind: ZzKind{i}\n    size: 0..9 = 0\n"
                   f"  define zz_big{i}(t: ZzThing{i}) -> Bool = t.size > 5\n"
                   f"  modifiers zz_m{i}(t: ZzThing{i})\n    size: t.size\n    kind: 1 when t.kind == ZzA{i}\n"
                   f"  define zz_score{i}(t: ZzThing{i}) -> Int = zz_m{i}(t) + count(ZzThing{i} x where zz_big{i}(x))\n")
    return "\n".join(out)


def scale(work: str, n: int, count: int):
    """The same 5.7 questions asked of the rulebook with 0, 10, 100 and 1000 unrelated
    sections added: the cost of a question must not grow with rules it does not reach."""
    cache.enabled = False
    engines = {}
    cases = oc.random_cases(n, 2)
    for sections in (0, 10, 100, 1000):
        folder = os.path.join(work, f"scale{sections}")
        shutil.copytree(BOOK, folder)
        if sections:
            with open(os.path.join(folder, "unrelated.drill"), "w", encoding="utf-8") as fh:
                fh.write(unrelated(sections))
            main = os.path.join(folder, "rulebook.drill")
            with open(main, encoding="utf-8") as fh:
                text = fh.read()
            with open(main, "w", encoding="utf-8") as fh:
                fh.write(text.replace('use "vocabulary.drill"',
                                      'use "vocabulary.drill"\nuse "unrelated.drill"', 1))
        rb = Rulebook.open(folder)
        ev = rb.evaluator("order_change_roll")
        lv = {x.name: x for x in rb.program.levels["Order"]}
        prepared = [(oc.to_state(rb, w), lv[d], {"d10": [r]}) for w, d, r in cases]

        def engine(ev=ev, prepared=prepared):
            for state, desired, rolls in prepared:
                ev(state, [state.entities["w"], desired], rolls)
        engines[sections] = engine
    quiet_heap()
    per = rounds(engines, count)
    worst = max(per[k] / per[0] for k in per)
    report("query cost, 0/10/100/1000 unrelated sections",
           " ".join(f"{per[k] / per[0]:.2f}" for k in per) + " x", "<= 1.25x", worst <= 1.25)
    cache.enabled = True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="fewer states and rounds")
    ap.add_argument("--record", action="store_true", help="append to bench/RESULTS.md")
    ap.add_argument("--only", default="", help="some figures: a comma list of "
                    "order,path,odds,loads,ask,scale")
    args = ap.parse_args()
    only = set(filter(None, args.only.split(","))) or {"order", "path", "odds", "loads", "ask",
                                                       "scale"}
    n, count = (5_000, 5) if args.quick else (20_000, 7)
    print(f"drillbook speed, {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, "
          f"{platform.node()}, {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} cores, Python {platform.python_version()}")
    work = tempfile.mkdtemp(prefix="drillbook-bench-")
    try:
        if "order" in only:
            order_figures(n, count)
        if "path" in only:
            pc_t = path_cost_ratio(n // 2, count)
            report("path cost (7.8.7)", f"{pc_t:5.1f}x hand-written", "<= 8x", pc_t <= 8)
        if "odds" in only:
            odds_figures(work, count)
        if "loads" in only:
            loads(work, count)
        if "ask" in only:
            ask_process(work, count)
        if "scale" in only:
            scale(work, n // 4, count)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if args.record:
        record()


def order_figures(n: int, count: int):
    t, zen = order_change(n, count)
    report("5.7 order change, trace off", f"{t['off'] / t['hand']:5.2f}x hand-written "
           f"({t['off'] * 1e6 / n:.2f} µs)", "<= 2.0x", t["off"] / t["hand"] <= 2.0)
    report("  straight-line floor over drillbook values", f"{t['line'] / t['hand']:5.2f}x hand-written",
           "(reference)", None)
    if zen:
        report("  GoRules ZEN compiled expression", f"{t['zen'] / t['hand']:5.2f}x hand-written",
               "slower than drillbook", t["zen"] > t["off"])
    else:
        report("  GoRules ZEN compiled expression", "not installed (pip install '.[bench]')",
               "slower than drillbook", None)
    report("  the same, a Ctx and Dice built per question", f"{t['ctx'] / t['hand']:5.2f}x "
           "hand-written", "(reference)", None)
    report("5.7 order change, trace on", f"{t['on'] / t['hand']:5.2f}x hand-written",
           "<= 5x", t["on"] / t["hand"] <= 5)
    report("  the same, each question's tree of steps read", f"{t['read'] / t['hand']:5.2f}x "
           "hand-written", "(reference)", None)


def path_cost_ratio(n: int, count: int) -> float:
    rng = random.Random(1)
    hexes, sides = pc.make_map(rng)
    paths = [pc.make_path(rng, hexes) for _ in range(50)]
    rb = Rulebook.open(str(BOOK))
    state = pc.to_state(rb, hexes, sides, paths)
    ev = rb.evaluator("path_cost")
    moves = [state.entities[f"m{i}"] for i in range(len(paths))]
    work = [i % len(paths) for i in range(n)]

    def engine():
        return [ev(state, [moves[i]]) for i in work]

    def baseline():
        return [pc.by_hand(hexes, sides, paths[i]) for i in work]

    assert engine() == baseline()
    quiet_heap()
    t = rounds({"hand": baseline, "engine": engine}, count)
    return t["engine"] / t["hand"]


def record():
    path = ROOT / "bench" / "RESULTS.md"
    head = "" if path.exists() else (
        "# Speed figures\n\nEach block is one run of `python bench/run.py`, as printed.\n")
    block = "\n```\n" + "\n".join(LINES) + "\n```\n"
    stamp = (f"\n## {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC — "
             f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
             f"Python {platform.python_version()}, {platform.system()} {platform.release()}\n")
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write((old or head) + stamp + block)
    os.replace(tmp, path)


if __name__ == "__main__":
    main()
