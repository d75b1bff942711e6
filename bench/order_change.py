"""Benchmark: the Musket & Pike order-change check (5.7) evaluated by drillbook against a
hand-written Python function of the same decision, over the same 100k seeded random
states, in one process.  Also: load + check of the rulebook against the bare Lark parse of
the same text.  Prints ratios; asserts both sides agree on every state.

    python bench/order_change.py [--n 100000] [--seed 1]
"""
from __future__ import annotations

import random

from common import ROOT, arguments, bare_parser, best_of, quiet_heap, rounds

from drillbook.evaluate import Rulebook
from drillbook.runtime import Ctx, Dice, Entity, State

BOOK = ROOT / "rulebooks" / "musket-and-pike"
ORDERS = ["Charge", "MakeReady", "ReceiveCharge", "Rally"]
MORALE = ["Normal", "Shaken", "Broken", "Eliminated"]

# --------------------------------------------------------------- the hand-written baseline
TABLE = {  # 5.7, rows = current order, columns = desired order
    "Charge": {"MakeReady": 3, "ReceiveCharge": 2, "Rally": 5},
    "MakeReady": {"Charge": 5, "ReceiveCharge": 5, "Rally": 6},
    "ReceiveCharge": {"Charge": 3, "MakeReady": 5, "Rally": 4},
    "Rally": {"Charge": 1, "MakeReady": 4, "ReceiveCharge": 3},
}


def _cube(col: int, row: int) -> tuple:
    """Odd columns half a hex lower (the rulebook's board)."""
    return col, row - (col - (col & 1)) // 2


def _hexes(a: tuple, b: tuple) -> int:
    (x1, z1), (x2, z2) = _cube(*a), _cube(*b)
    return max(abs(x1 - x2), abs(z1 - z2), abs((x1 + z1) - (x2 + z2)))


def by_hand(w: dict, desired: str, roll: int) -> bool | None:
    """The same decision from the same positions: WC at 0505, the AC at 0505 or 0508, an enemy
    unit at 0504 when the case has one.  None: no roll is taken (the order it already has,
    the chart's —)."""
    if w["order"] == desired:
        return None
    wc_at = (5, 5)
    drm = w["rating"]
    if w["ac_rating"] is not None and _hexes((5, 5) if w["ac_near"] else (5, 8), wc_at) <= 1:
        drm += w["ac_rating"]
    enemies = [(5, 4)] if w["adjacent"] else []
    if any(_hexes(e, wc_at) == 1 for e in enemies):
        drm += 1
    if w["cavalry"] and desired == "Charge":
        drm -= 1
    if w["cavalry"] and desired == "ReceiveCharge":
        drm += 1
    if desired == "Rally":
        units = w["units"]
        if 2 * sum(1 for m in units if m != "Normal") > len(units):
            drm -= 2
    total = max(0, min(9, roll + drm))
    return total <= TABLE[w["order"]][desired]


# --------------------------------------------------------------- random states
def random_cases(n: int, seed: int):
    rng = random.Random(seed)
    cases = []
    for _ in range(n):
        order = rng.choice(ORDERS)
        desired = rng.choice([o for o in ORDERS if o != order])
        w = {"order": order, "rating": rng.randint(-3, 1), "adjacent": rng.random() < 0.3,
             "ac_rating": rng.choice([None, -1, -2]), "ac_near": rng.random() < 0.5,
             "cavalry": rng.random() < 0.4,
             "units": [rng.choice(MORALE) for _ in range(rng.randint(1, 6))]}
        cases.append((w, desired, rng.randint(0, 9)))
    return cases


def to_state(rb, w):
    """The wing as a board: the WC at 0505, the AC stacked with him or three hexes away, and
    (when the case says the WC is adjacent to the enemy) a Normal enemy unit at 0504."""
    lv = rb.program.levels
    at = rb.program.board.position
    first = next(x for x in lv["Side"] if x.name == "FirstSide")
    second = next(x for x in lv["Side"] if x.name == "SecondSide")
    normal = next(x for x in lv["MoraleState"] if x.name == "Normal")
    ents, by_type = {}, {"Leader": ["wc"], "Wing": ["w"], "Unit": []}
    ents["wc"] = Entity("Leader", "wc", {"rating": w["rating"], "side": first, "at": at(5, 5),
                                         "no_continue": False, "removed": False})
    ac = None
    if w["ac_rating"] is not None:
        ac = "ac"
        by_type["Leader"].append("ac")
        ents["ac"] = Entity("Leader", "ac", {"rating": w["ac_rating"], "side": first,
                                             "at": at(5, 5) if w["ac_near"] else at(5, 8),
                                             "no_continue": False, "removed": False})
    order = next(x for x in lv["Order"] if x.name == w["order"])
    ents["w"] = Entity("Wing", "w", {"order": order, "side": first, "commander": "wc",
                                     "army_commander": ac, "cavalry": w["cavalry"]})
    for i, m in enumerate(w["units"]):
        uid = f"u{i}"
        by_type["Unit"].append(uid)
        ents[uid] = Entity("Unit", uid, {"wing": "w", "at": None, "morale": next(
            x for x in lv["MoraleState"] if x.name == m)})
    if w["adjacent"]:
        by_type["Wing"].append("foe")
        ents["foe"] = Entity("Wing", "foe", {"order": order, "side": second, "commander": "wc",
                                             "army_commander": None, "cavalry": False})
        by_type["Unit"].append("enemy")
        ents["enemy"] = Entity("Unit", "enemy", {"wing": "foe", "at": at(5, 4), "morale": normal})
    return State(ents, {k: tuple(v) for k, v in by_type.items()})


def main():
    args = arguments(100_000)

    rb = Rulebook.open(str(BOOK))
    check = rb.program.callables["order_change_roll"]
    lv = {x.name: x for x in rb.program.levels["Order"]}
    cases = random_cases(args.n, args.seed)
    prepared = [(to_state(rb, w), lv[d], {"d10": [r]}, w, d, r) for w, d, r in cases]
    options = frozenset()

    def engine(trace):
        out = []
        for state, desired, rolls, *_ in prepared:
            ctx = Ctx(state, Dice(rolls), options, trace)
            out.append(check(ctx, [state.entities["w"], desired]).passed)
        return out

    def baseline():
        return [by_hand(w, d, r) for _, _, _, w, d, r in prepared]

    quiet_heap()
    expected = baseline()
    assert engine(False) == expected, "drillbook and the hand-written function disagree"
    assert engine(True) == expected
    t_hand = best_of(args.repeats, baseline)
    t_off = best_of(args.repeats, lambda: engine(False))
    t_on = best_of(args.repeats, lambda: engine(True))
    share = sum(expected) / len(expected)
    print(f"order change (5.7), {args.n} seeded states, {share:.1%} succeed; both sides agree")
    print(f"  hand-written Python : {t_hand * 1e6 / args.n:8.2f} µs per decision")
    print(f"  drillbook, trace off: {t_off * 1e6 / args.n:8.2f} µs  ratio {t_off / t_hand:5.2f}x  (see bench/run.py for the targets)")
    print(f"  drillbook, trace on : {t_on * 1e6 / args.n:8.2f} µs  ratio {t_on / t_hand:5.2f}x  ")

    # load + check + compile against the bare Lark parse of the same files
    from drillbook import cache
    from drillbook.check import check as run_check
    from drillbook.loader import load
    cache.enabled = False
    files = [p for p in BOOK.glob("*.drill")]
    texts = [p.read_text(encoding="utf-8") for p in files]
    parser = bare_parser()

    def bare():
        for t in texts:
            parser.parse(t if t.endswith("\n") else t + "\n", start="start")

    t = rounds({"parse": bare, "load": lambda: run_check(load(str(BOOK))),
                "full": lambda: Rulebook.open(str(BOOK))}, 5)
    t_parse, t_load, t_full = t["parse"], t["load"], t["full"]
    print(f"rulebook load ({len(files)} files, {sum(len(t) for t in texts)} chars):")
    print(f"  bare Lark parse            : {t_parse * 1e3:7.1f} ms")
    print(f"  drillbook load + check     : {t_load * 1e3:7.1f} ms  ratio {t_load / t_parse:5.2f}x")
    print(f"  load + check + compile     : {t_full * 1e3:7.1f} ms  ratio {t_full / t_parse:5.2f}x")


if __name__ == "__main__":
    main()
