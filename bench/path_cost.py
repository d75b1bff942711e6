"""Benchmark: the cost of a 20-hex path on a 30×30 hex map (Musket & Pike TEC, 7.8.7),
evaluated by drillbook against a hand-written Python function of the same rule, over the
same seeded maps and paths, in one process.  Prints the ratio; asserts both sides agree.

    python bench/path_cost.py [--n 10000] [--seed 1]
"""
from __future__ import annotations

import random

from common import ROOT, arguments, best_of, quiet_heap

from drillbook.evaluate import Rulebook                  
from drillbook.runtime import Ctx, Dice, Entity, State   

BOOK = ROOT / "rulebooks" / "musket-and-pike"
SIZE, PATH_HEXES = 30, 20
# heavy infantry's printed costs (the TEC rows whose HI cost survives in the source)
HEX_COST = {"Woods": 2, "Marsh": 1, "Brush": 2, "HedgedRoad": 2, "Stream": 2, "Village": 2,
            "Bridge": 2, "Castle": 2}
SIDE_COST = {"Hedge": 1, "StreamSide": 1, "UpSteepSlope": 1, "DownSteepSlope": 1,
             "Fortification": 1, "BridgeSide": 1}
OTHER_WAY = {"UpSteepSlope": "DownSteepSlope", "DownSteepSlope": "UpSteepSlope"}
NEIGHBOURS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1))


def make_map(rng):
    hexes = {(q, r): rng.choice(sorted(HEX_COST)) for q in range(SIZE) for r in range(SIZE)}
    sides = {}
    for (q, r) in hexes:
        for dq, dr in ((1, 0), (0, 1), (1, -1)):      # each neighbour pair once
            other = (q + dq, r + dr)
            if other in hexes and rng.random() < 0.3:
                sides[((q, r), other)] = rng.choice(sorted(SIDE_COST))
    return hexes, sides


def make_path(rng, hexes):
    here = (rng.randrange(SIZE), rng.randrange(SIZE))
    path = [here]
    while len(path) < PATH_HEXES:
        q, r = path[-1]
        options = [(q + dq, r + dr) for dq, dr in NEIGHBOURS if (q + dq, r + dr) in hexes
                   and (q + dq, r + dr) not in path]
        if not options:
            return make_path(rng, hexes)
        path.append(rng.choice(options))
    return path


# --------------------------------------------------------------- the hand-written baseline
def by_hand(hexes, sides, path):
    total = 0
    for before, after in zip(path, path[1:]):
        total += HEX_COST[hexes[after]]
        side = sides.get((before, after))
        if side is None:
            side = sides.get((after, before))
            side = OTHER_WAY.get(side, side)
        if side is not None:
            total += SIDE_COST[side]
    return total


# --------------------------------------------------------------- the same map as a state
def to_state(rb, hexes, sides, paths):
    lv = {(e, x.name): x for e, xs in rb.program.levels.items() for x in xs}
    ents, by_type = {}, {"Hex": [], "Hexside": [], "Move": [], "Unit": ["pikes"],
                         "Wing": ["w"], "Leader": ["wc"]}
    hid = {}
    for (q, r), terrain in hexes.items():
        ident = f"h{q}_{r}"
        hid[(q, r)] = ident
        ents[ident] = Entity("Hex", ident, {"q": q, "r": r, "terrain": lv[("HexTerrain", terrain)],
                                            "other": lv[("HexTerrain", "Clear")], "features": ()})
        by_type["Hex"].append(ident)
    for n, ((a, b), terrain) in enumerate(sides.items()):
        ident = f"s{n}"
        ents[ident] = Entity("Hexside", ident, {"a": hid[a], "b": hid[b], "gentle_slope": False,
                                                "terrain": lv[("HexsideTerrain", terrain)]})
        by_type["Hexside"].append(ident)
    ents["wc"] = Entity("Leader", "wc", {"rating": 0, "side": lv[("Side", "FirstSide")],
                                         "at": None, "no_continue": False, "removed": False})
    ents["w"] = Entity("Wing", "w", {"order": lv[("Order", "MakeReady")], "commander": "wc",
                                     "side": lv[("Side", "FirstSide")], "active": False,
                                     "army_commander": None, "cavalry": False})
    ents["pikes"] = Entity("Unit", "pikes", {
        "class": lv[("UnitClass", "HeavyInfantry")], "wing": "w", "printed_morale": 7,
        "morale": lv[("MoraleState", "Normal")], "formation": lv[("Formation", "FormationNormal")],
        "hits": 0, "casualty_threshold": None, "at": None, "facing": None})
    for n, path in enumerate(paths):
        ident = f"m{n}"
        ents[ident] = Entity("Move", ident, {"unit": "pikes", "path": tuple(hid[h] for h in path),
                                             "attached_artillery": False, "allowance": 40,
                                             "gentle_slopes_before": 0})
        by_type["Move"].append(ident)
    return State(ents, {k: tuple(v) for k, v in by_type.items()})



def main():
    args = arguments(10_000)

    rng = random.Random(args.seed)
    hexes, sides = make_map(rng)
    paths = [make_path(rng, hexes) for _ in range(50)]
    rb = Rulebook.open(str(BOOK))
    state = to_state(rb, hexes, sides, paths)
    path_cost = rb.program.callables["path_cost"]
    moves = [state.entities[f"m{n}"] for n in range(len(paths))]
    work = [(i % len(paths)) for i in range(args.n)]
    options = frozenset()

    def engine():
        return [path_cost(Ctx(state, Dice(), options), [moves[i]]) for i in work]

    def baseline():
        return [by_hand(hexes, sides, paths[i]) for i in work]

    quiet_heap()
    expected = baseline()
    assert engine() == expected, "drillbook and the hand-written function disagree"
    t_hand = best_of(args.repeats, baseline)
    t_eng = best_of(args.repeats, engine)
    print(f"path cost (7.8.7), {PATH_HEXES}-hex paths on a {SIZE}x{SIZE} map with "
          f"{len(sides)} hexsides, {args.n} evaluations; both sides agree")
    print(f"  hand-written Python : {t_hand * 1e6 / args.n:9.2f} µs per path")
    print(f"  drillbook           : {t_eng * 1e6 / args.n:9.2f} µs per path  ratio "
          f"{t_eng / t_hand:6.1f}x")


if __name__ == "__main__":
    main()
