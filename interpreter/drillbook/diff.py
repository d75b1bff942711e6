"""Explain stage, for variants: what a variant changes, down to the odds.

Lists the rules replaced, dropped and added, the table cells and options changed; then,
over the situations the base rulebook's own examples set up, every check or dice-reading
rule whose exact distribution differs, before and after, and every example whose result
changes.
"""
from __future__ import annotations

from fractions import Fraction

from . import ast as A
from .errors import DrillError
from .evaluate import Made, enumerate_outcomes
from .limits import MAX_ODDS_WORK, Budget
from .phrases import say
from .runtime import Ctx
from .state import state_from_givens


def semantic_diff(variant) -> dict:
    base = variant.base()
    if base is None:
        return {"error": "not a variant"}
    changes = [{"kind": c.kind, "target": c.target, "section": c.section,
                "at": f"{c.loc.path}:{c.loc.line}:{c.loc.col}", "before": c.before,
                "after": c.after} for c in variant.model.patches]
    by_loc = {(e.loc.path, e.loc.line): e for e in variant.model.examples}
    odds, examples, seen, shown_at = [], [], set(), {}
    for ex in base.model.examples:
        twin = by_loc.get((ex.loc.path, ex.loc.line))
        if twin is None:
            examples.append({"example": ex.name, "section": _sec(ex), "before": "ran",
                             "after": "dropped"})
            continue
        b, v = base.run_example(ex), variant.run_example(twin)
        if b.passed != v.passed:
            examples.append({"example": ex.name, "section": _sec(ex),
                             "before": "passes" if b.passed else "fails",
                             "after": "passes" if v.passed else "fails",
                             "why": [m for _, m in v.failures]})
        for text in _dice_questions(ex, base.model):
            key = (ex.name, text)
            if key in seen:
                continue
            seen.add(key)
            before = _odds(base, ex, text)
            after = _odds(variant, twin, text)
            shown = (text, tuple(sorted(before.items())), tuple(sorted(after.items())))
            if before != after and shown in shown_at:     # the same question, the same odds:
                shown_at[shown].setdefault("also", []).append(ex.name)   # shown once
            elif before != after:
                shown_at[shown] = {"question": text, "example": ex.name, "section": _sec(ex),
                                   "before": _fmt(before), "after": _fmt(after)}
                odds.append(shown_at[shown])
    titles = getattr(variant.model, "variant_titles", None) or []
    return {"variant": variant.model.title.text,
            "variants": [label.text for _, label in titles] or [variant.model.title.text],
            "base": base.model.title.text,
            "changes": changes, "odds": odds, "examples": examples}


def _sec(decl):
    return decl.section.number if decl.section else None


def _dice_questions(ex, model):
    """The calls in an example's expectations that read dice: checks and dice rules."""
    out = []
    for exp in ex.expects:
        for root in (exp.expr,):
            for node in A.walk(root):
                if isinstance(node, A.Call) and node.name in model.rolls_dice:
                    text = A.to_source(node)
                    if text not in out:
                        out.append(text)
    return out


def _odds(rb, ex, text):
    try:
        state = state_from_givens(rb.program, ex.givens)
        options = rb.options([f"{n}={'on' if on else 'off'}" for _, n, on in ex.options])
        fn, _, size, _ = rb.question(text, state)
        budget = Budget(MAX_ODDS_WORK)
        return enumerate_outcomes(
            lambda dice: fn(Ctx(state, dice, options, budget=budget), [None] * size),
            budget=budget)
    except DrillError as e:
        return {(Made(), "error: " + e.diagnostics[0].message): Fraction(1)}


def _fmt(dist):
    return {(f"if {made}: {out}" if made else out): f"{p.numerator}/{p.denominator}"
            for (made, out), p in sorted(dist.items())}


MANY_OUTCOMES = 8       # beyond this many outcomes, the text lists only those that change


def render_text(d: dict, lang=None) -> str:
    named = " then ".join(f"\"{v}\"" for v in d.get("variants") or [d["variant"]])
    lines = [f"{'variants' if len(d.get('variants') or ()) > 1 else 'variant'} {named} "
             f"of \"{d['base']}\"", "", "Changes:"]
    for c in d["changes"]:
        where = f"§{c['section']}" if c["section"] else ""
        if c["kind"] == "cell":
            lines.append(f"  cell      {c['target']}: {c['before']} → {c['after']}  ({where}, {c['at']})")
        elif c["kind"] == "option":
            lines.append(f"  option    {c['target']}: {c['before']} → {c['after']}  ({where})")
        else:
            lines.append(f"  {c['kind']:<9} {c['target']}  ({where}, {c['at']})")
            if c["kind"] in ("replaced", "dropped"):     # what the house rule changes
                lines.append(f"      {say(lang, 'diff_before')} {c['before']}")
            if c["kind"] == "replaced":
                lines.append(f"      {say(lang, 'diff_after')} {c['after']}")
    if not d["changes"]:
        lines.append("  none")
    lines += ["", "Odds that change (in the situations of the base rulebook's examples):"]
    for o in d["odds"]:
        lines.append(f"  {o['question']}  — example \"{o['example']}\" (§{o['section']})")
        keys = sorted(set(o["before"]) | set(o["after"]))
        same = [k for k in keys if o["before"].get(k, "0") == o["after"].get(k, "0")]
        many = len(keys) > MANY_OUTCOMES          # then only what changes (GdB round 16 T2)
        for k in keys:
            b, a = o["before"].get(k, "0"), o["after"].get(k, "0")
            if many and b == a:
                continue
            mark = "" if b == a else "   *"
            lines.append(f"      {k:<28} {b:>7} → {a:<7} ({_pct(b)} → {_pct(a)}){mark}")
        if many and same:
            lines.append(f"      (and {len(same)} outcomes whose odds do not change)")
        for other in o.get("also", []):
            lines.append(f"      the same in example \"{other}\"")
    if not d["odds"]:
        lines.append("  none")
    lines += ["", "Examples of the base rulebook whose result changes:"]
    for e in d["examples"]:
        lines.append(f"  §{e['section']} \"{e['example']}\": {e['before']} → {e['after']}")
        for why in e.get("why", []):
            lines.append("      " + say(lang, "diff_why", w=why))
    if not d["examples"]:
        lines.append("  none")
    return "\n".join(lines)


def _pct(frac: str) -> str:
    n, _, dd = frac.partition("/")
    value = Fraction(int(n), int(dd or 1))
    return f"{float(value) * 100:.1f}%"
