"""Explain stage: a trace becomes a ruling a player would accept, or stable JSON.

Every step names the section that decided it; a ruling ends with the list of sections cited.
"""
from __future__ import annotations

from fractions import Fraction

from . import ast as A
from contextvars import ContextVar

from .phrases import say

# the rule answers a ruling has already given, so that a repeated one is said once
_SAID: ContextVar[set] = ContextVar("drillbook_said", default=set())
# for a ruling under a variant: the variant's own files, path -> the variant's title
_VARIANT: ContextVar[dict] = ContextVar("drillbook_variant", default={})
_STATE: ContextVar = ContextVar("drillbook_state", default=None)   # what things are looked up in
from .runtime import CheckResult, ChartRow, Entity, Level, Range, Trace, show, show_answer


def effect_section(answer, eff):
    """The section whose rule produced an effect (an object with .section), or None."""
    sec = answer.model.section_at(eff.loc) if getattr(answer, "model", None) else None
    return _InSection(sec) if sec is not None else None


class _InSection:
    __slots__ = ("section",)

    def __init__(self, section):
        self.section = section


def cite_section(sec, lang=None) -> str:
    """A section as the list of rules cited names it; a number the source does not print
    (the rulebook's own) says so."""
    own = " " + say(lang, "own_number") if sec.numbered_by_rulebook else ""
    return sec.cite(lang) + own


def cite(decl, lang=None) -> str:
    sec = getattr(decl, "section", None)
    if sec is None:
        return ""
    title = sec.label.show("", lang)
    return f"§{sec.number}" + (f" {title}" if title else "")


def label(decl, lang=None) -> str:
    lab = getattr(decl, "label", None)
    name = getattr(decl, "name", "")
    return lab.show(name, lang) if lab is not None else name


def sections_of(trace: Trace) -> list:
    seen, out = set(), []

    def walk(node):
        for d in _decls(node):
            sec = getattr(d, "section", None)
            if sec is not None and sec.number not in seen:
                seen.add(sec.number)
                out.append(sec)
        for c in node.children:
            walk(c)
    walk(trace)
    return out


def _decls(node, weighed: bool = False):
    """What a step consulted; ``weighed``: the exceptions it weighed that did not decide it
    too, whose doubts a ruling rests on whether or not they applied (BFS round 14 T2), but
    whose sections it does not cite."""
    if node.decl is not None:
        yield node.decl
    decided = node.detail.get("decided_by")
    if decided is not None:
        yield decided
    for d, _status, _winner in node.detail.get("considered", ()) if weighed else ():
        if d is not decided:
            yield d
    if node.kind == "requirements":
        for d, _ok in node.detail.get("items", []):
            yield d
    yield from node.detail.get("footnotes", ())


# ------------------------------------------------------------------ prose
def ruling(answer, lang=None, model=None) -> str:
    _SAID.set(set())
    _STATE.set(_asked_on(answer))
    model = model if model is not None else getattr(answer, "model", None)
    _VARIANT.set(_variant_files(model))
    v = answer.value
    lines = [say(lang, "question", q=answer.question),
             say(lang, "ruling", v=_verdict(v, answer.type, lang))]
    if answer.dice:
        lines.append(say(lang, "dice", d=_dice(answer.dice, lang)))
    lines.append("")
    lines.append(say(lang, "why"))
    for node in answer.trace.children:
        lines += _node(node, 1, lang)
    lines += _doubt_lines(answer, model, lang)
    lines += _effects_lines(answer, lang)
    secs = sections_of(answer.trace)
    if secs:
        lines.append("")
        lines.append(say(lang, "cited", s="; ".join(cite_section(s, lang) for s in secs)))
    return "\n".join(lines)


def _asked_on(answer):
    """The state the question's value was worked out on (after its leading 'after' parts)."""
    return getattr(answer, "moved", None) or getattr(answer, "state", None)


def _effects_lines(answer, lang) -> list:
    """What the answer's effects changed in the state, each with the section it cites."""
    if not answer.log:
        return []
    lines = ["", say(lang, "effects")]
    for (eff, _), text in zip(answer.log, effects_log(answer, lang)):
        where = cite(effect_section(answer, eff), lang)
        lines.append(f"  - {text}" + (f" ({where})" if where else ""))
    return lines


def _net_changes(answer, lang) -> list:
    """What a procedure changed in all, each field once, from its value before the first
    step to its value after the last (a long log's summary); none when nothing changed."""
    before, after = answer.before, answer.new_state
    if before is None or after is None:
        return []
    lines = []
    for ident, ent in after.entities.items():
        old = before.entities.get(ident)
        for name, value in ent.fields.items():
            was = None if old is None else old.fields.get(name)
            if old is None or was != value or type(was) is not type(value):
                lines.append(f"  - {ident}.{name}: {show(was, lang)} → {show(value, lang)}")
    gone = [ident for ident in before.entities if ident not in after.entities]
    lines += ["  - " + say(lang, "log_removed", e=ident) for ident in gone]
    return ["", say(lang, "net_changes")] + lines if lines else []


def _dice(dice, lang) -> str:
    return ", ".join(f"{d} = {f} ({say(lang, how)})" for d, f, how in dice)


def _verdict(v, ty, lang) -> str:
    from .runtime import Verdict
    if isinstance(v, Verdict):
        if v.allowed:
            return say(lang, "yes_all")
        return say(lang, "no_because",
                   r="; ".join(f"{cite(d, lang)}: {label(d, lang)}" for d in v.violated))
    if isinstance(v, CheckResult):
        if not v.taken:
            return say(lang, "not_taken")
        if v.natural is None:
            return say(lang, "nothing_to_roll")
        by = say(lang, "by", n=v.margin) if v.margin else ""
        return say(lang, "check_passes" if v.passed else "check_fails", by=by, t=v.total,
                   need=_target(v, lang))
    return show_answer(v, ty, lang)            # an empty list '[]', no effects 'nothing'


def _target(v: CheckResult, lang=None) -> str:
    if v.op == "at_most":
        return say(lang, "or_less", n=v.target)
    if v.op == "at_least":
        return say(lang, "or_more", n=v.target)
    return say(lang, "within", r=v.target)


def _worked_target(node: Trace, lang) -> str:
    """A target worked out from more than one value, as written, with the fields of the
    check's arguments it reads: " (target_armour(s) - s.armour_modifier; s.armour_modifier
    = 4)".  Rules it calls show their own value among the check's steps."""
    target = node.decl.target
    if isinstance(target, (A.IntLit, A.Name, A.Call, A.RangeLit, A.FieldOf)):   # one value
        return ""
    read = _fields_read([target], node.detail.get("args", {}), lang, node)
    return f" ({A.to_source(target)}{'; ' + read[2:-1] if read else ''})"


def _empty_cell(node: Trace) -> str:
    """How a — cell reads: 'does not apply', or, where the table, the cell's row or the
    cell carries a gap, 'no value: see the gap' (the source lost it, M&P round 15 T2)."""
    cell = node.detail["cell"]
    notes = _cell_notes(_row_of(node.decl, cell), cell, "row" in node.detail)
    notes += getattr(node.decl, "annotations", None) or []
    return "cell_gap" if any(n.kind == "gap" for n in notes) else "cell_not_applicable"


def _found(node: Trace, lang) -> str:
    """The thing a search found, with the fields of it its condition reads: "Unit u3
    (u.side = red, u.hits = 0)" (M&P round 13 Q8)."""
    search, thing = node.detail["search"], node.value
    if not isinstance(thing, Entity):
        return show(thing, lang)
    return f"{thing.type} {thing.id}" + _fields_read([search.cond], {search.var: thing}, lang)


def _fields_read(exprs, things: dict, lang, steps=None, state=None, values=False) -> str:
    """``_reads`` as the text of a ruling: ' (u.side = red, u.hits = 0)', or ''."""
    read = _reads(exprs, things, lang, steps, state, values)
    return f" ({', '.join(read)})" if read else ""


def _reads(exprs, things: dict, lang, steps=None, state=None, values=False) -> list:
    """['u.wing = w', ...]: each field of ``things`` (name -> Entity) that ``exprs`` read,
    once, in the order written, through things it names too
    ('attacked_wagon(c).unit.in_contact_with_enemy = no', looked up in ``state``, else in
    the state the question was asked on); with ``values``, for a line that does not show
    its arguments, the other values of ``things`` read too ('n = 3'); [] when
    they read none.  With ``steps`` (a step of the trace), a field of what a rule called
    on those things gave is read too, from that call's step: 'shot_wagon(s).crew_armour =
    5' (BFS round 14 T2, T3)."""
    state = state if state is not None else _STATE.get()
    read = []

    def thing_of(x):
        if isinstance(x, A.Name):
            return things.get(x.name)
        if isinstance(x, A.Call) and steps is not None:
            return _called_value(x, things, steps)
        if isinstance(x, A.FieldOf):
            held = thing_of(x.subject)
            v = held.fields.get(x.name) if isinstance(held, Entity) else None
            return state.entities.get(v) if isinstance(v, str) and state is not None else v
        return None
    for e in (n for x in exprs if x is not None for n in A.walk(x)):
        if values and isinstance(e, A.Name) and e.name in things and not isinstance(
                things[e.name], Entity):
            shown = f"{e.name} = {show(things[e.name], lang)}"      # a level, a number...
            if shown not in read:
                read.append(shown)
        if isinstance(e, A.FieldOf):
            held = thing_of(e.subject)
            if isinstance(held, Entity):
                value = show(held.fields.get(e.name), lang)
                shown = f"{A.to_source(e.subject)}.{e.name} = {value}"
                if shown not in read:
                    read.append(shown)
    return read


def _called_value(call, things: dict, node: Trace):
    """What the rule ``call`` names gave, on arguments that are all of ``things``, as a step
    under ``node`` records it; None when no step does."""
    if getattr(call, "ref", None) is None or call.ref[0] == "builtin" or not all(
            isinstance(a, A.Name) and a.name in things for a in call.args):
        return None
    want = [getattr(things[a.name], "id", things[a.name]) for a in call.args]
    todo = list(node.children)
    while todo:
        c = todo.pop(0)
        if c.kind == "rule" and c.name == call.name and [
                getattr(v, "id", v) for v in c.detail.get("args", {}).values()] == want:
            return c.value
        todo += c.children
    return None


def _node(node: Trace, depth: int, lang) -> list:
    pad = "  " * depth
    kind = node.kind
    out = []
    if kind == "roll":
        return [f"{pad}- " + say(lang, "rolled", die=node.name, n=node.value)]
    if kind == "found":
        return [f"{pad}- " + say(lang, "found", x=_found(node, lang))]
    if kind == "choice":
        opts = ", ".join(show(o, lang) for o in node.detail["options"])
        return [f"{pad}- " + say(lang, "chose", name=node.name, v=show(node.value, lang),
                                 opts=opts)]
    if kind == "table":
        cell = node.detail["cell"]
        keys = ", ".join(show(k, lang) for k in node.detail["keys"])
        shown = say(lang, _empty_cell(node)) if node.value is None else show(node.value, lang)
        if cell.kind in ("int", "pair", "range") and node.value is not None:
            shown = A.cell_source(cell)             # a number as printed: +1, -1/+1, 0-3
        elif cell.markers and node.value is not None:
            shown += "".join(cell.markers)          # the cell as printed, its marks with it
        if "row" in node.detail:
            shown = node.detail["row"]
        if cell.loc.path in _VARIANT.get():          # a cell the variant changed
            gives = say(lang, "chart_gives_variant", keys=keys, v=shown,
                        at=f"{cell.loc.path}:{cell.loc.line}")
        else:
            gives = say(lang, "chart_gives", keys=keys, v=shown, line=cell.loc.line)
        return [f"{pad}- {label(node.decl, lang)} ({cite(node.decl, lang)}): " + gives
                ] + _footnotes(node, pad, lang)
    if kind == "modifiers":
        out.append(f"{pad}- {label(node.decl, lang)} ({cite(node.decl, lang)}): "
                   + say(lang, "total", n=_signed(node.value)))
        for item, on, v in node.detail["items"]:
            text = item.label.show(item.name, lang)
            if on:
                out.append(f"{pad}    " + say(lang, "applied", n=_signed(v), text=text))
            else:                                   # with the fields its 'when' read
                out.append(f"{pad}    " + say(lang, "not_applied", text=text) + _fields_read(
                    [item.when], node.detail.get("args", {}), lang, node, values=True))
        out += _kids(node.children, depth + 2, lang)
        return out
    if kind == "check":
        v = node.value
        args = _said(node, lang)[1]
        head = f"{pad}- {label(node.decl, lang)}" + (f" ({args})" if args else "") \
            + f" ({cite(node.decl, lang)})" + _variant_mark(node.decl, lang) + ": "
        if v is None:
            return [head + say(lang, "stopped")]
        if not v.taken:
            out.append(head + say(lang, "check_not_taken", c=A.to_source(node.decl.when)))
        elif v.natural is None:
            out.append(head + say(lang, "check_no_roll"))
        else:
            word = say(lang, "passed" if v.passed else "failed")
            by = say(lang, "by", n=v.margin) if v.margin else ""
            out.append(head + say(lang, "check_line", n=v.natural, m=_signed(v.modifier),
                                  t=v.total, need=_target(v, lang) + _worked_target(node, lang),
                                  word=word + by))
        out += _kids(node.children, depth + 1, lang)
        return out
    if kind == "requirements":
        v = node.value
        verdict = say(lang, "allowed" if v is not None and v.allowed else "refused")
        args = _said(node, lang)[1]
        out.append(f"{pad}- {label(node.decl, lang)}" + (f" ({args})" if args else "")
                   + f" ({cite(node.decl, lang)}): {verdict}")
        idle = _idle_items(node)
        for d, ok in node.detail.get("items", []):
            mark = say(lang, ("not_applicable" if id(d) in idle else "satisfied") if ok
                       else "violated")
            out.append(f"{pad}    {mark}: {cite(d, lang)}: {label(d, lang)}")
        out += _kids(node.children, depth + 2, lang)
        return out
    if kind == "procedure":
        out.append(f"{pad}- {label(node.decl, lang)} ({cite(node.decl, lang)}), "
                   + say(lang, "step_by_step"))
        for n, c in enumerate(node.children, 1):
            out += _step(c, n, depth + 1, lang)
        return out
    if kind == "rule":
        decided = node.detail.get("decided_by")
        said = _said(node, lang)
        args = said[1]
        if said in _SAID.get():
            return [f"{pad}- {label(node.decl, lang)}" + (f" ({args})" if args else "") + " "
                    + _rule_value(node, lang) + " " + say(lang, "as_above")]
        _SAID.get().add(said)
        head = f"{pad}- {label(node.decl, lang)}" + (f" ({args})" if args else "") + \
            " " + _rule_value(node, lang)
        if decided is not None and decided is not node.decl:
            head += ": " + say(lang, "decides", x=label(decided, lang), where=cite(decided, lang),
                               base=cite(node.decl, lang))
        else:
            head += f" ({cite(node.decl, lang)})"
        rule = decided or node.decl                   # the fields its value read (GdB R4)
        head += _fields_read([getattr(rule, "value", None)], node.detail.get("args", {}),
                             lang, node)
        out.append(head + _variant_mark(decided or node.decl, lang))
        for decl, status, winner in node.detail.get("considered", []):
            if status == "does not apply":         # with the fields its 'when' reads
                out.append(f"{pad}    " + say(lang, "exc_not_apply", x=label(decl, lang),
                                               where=cite(decl, lang)) + _fields_read(
                    [getattr(decl, "when", None)], node.detail.get("args", {}), lang, node,
                    values=True))
        out += _kids(node.children, depth + 1, lang)
        return out
    out += _kids(node.children, depth, lang)
    return out


def _rule_value(node: Trace, lang) -> str:
    """What a rule's step says it gave: 'is VALUE'.  A requirement says whether it is
    satisfied, or that it does not apply (its 'when' does not hold), as its list's lines
    do: '1 Hex ... is yes' under 'does not apply: 1 Hex' read as if the move were of one
    hex (M&P round 13 Q9)."""
    if isinstance(node.decl, A.RequireDecl) and isinstance(node.value, bool):
        if node.detail.get("inapplicable"):
            return say(lang, "not_applicable")
        return say(lang, "is", v=say(lang, "satisfied" if node.value else "violated"))
    returns = getattr(node.decl, "returns", None)
    if node.value == () and returns is not None and "list" in returns.kind:
        return say(lang, "is", v="[]")          # an empty list, not the 'nothing' of effects
    return say(lang, "is", v=show(node.value, lang))


def _said(node: Trace, lang) -> tuple:
    """What a rule's step says: shown once, then "as above"."""
    args = ", ".join(f"{k} = {show(a, lang)}" for k, a in node.detail.get("args", {}).items())
    return node.name, args, show(node.value, lang)


def _kids(children, depth: int, lang) -> list:
    """The lines of a step's children; a run of three or more shown "as above" (the same
    rules asked again, as a second search over the same things asks them) is one line that
    names them, and a table's cell read again right after it is not said twice."""
    out: list = []
    run: list = []                      # (child, its one line) shown as above, in a row

    def close():
        if len(run) >= 3:
            names = list(dict.fromkeys(label(c.decl, lang) for c, _ in run))
            out.append("  " * depth + "- " + say(lang, "as_above_many", n=len(run),
                                                   names="; ".join(names)))
        else:
            out.extend(line for _, line in run)
        run.clear()

    last = None
    for c in children:
        if c.kind == "table":               # the same cell read again at once: said once
            seen, last = last, (c.name, tuple(map(repr, c.detail["keys"])))
            if seen == last:
                continue
        else:
            last = None
        again = c.kind == "rule" and _said(c, lang) in _SAID.get()
        lines = _node(c, depth, lang)
        if again:
            run.append((c, lines[0]))
            continue
        close()
        out += lines
    close()
    return out


def _footnotes(node: Trace, pad: str, lang) -> list:
    """The footnotes a looked-up cell carries: each quoted, with the section declaring it."""
    return [f"{pad}    " + say(lang, "footnote", mark=d.mark, text=label(d, lang),
                                where=cite(d, lang))
            for d in node.detail.get("footnotes", ())]


def _step(node: Trace, n: int, depth: int, lang) -> list:
    pad = "  " * depth
    title = node.decl.label.show(node.name, lang) + _fields_read(     # what its 'when' read
        [node.decl.when], node.detail.get("args", {}), lang, node,  # (GdB round 14 N22)
        node.detail.get("before"), values=True)
    if node.decl.stop:
        word = say(lang, "procedure_stops" if node.detail.get("stopped") else "procedure_goes_on")
        return [f"{pad}{n}. {title}: {word}"]
    if node.detail.get("skipped"):
        return [f"{pad}{n}. {title}: " + say(lang, "skipped")]
    if node.detail.get("failed"):
        return [f"{pad}{n}. {title}: " + say(lang, "step_failed")] + _kids(node.children,
                                                                         depth + 1, lang)
    out = [f"{pad}{n}. {title}"]
    out += _kids(node.children, depth + 1, lang)
    for text in _step_log(node, lang):
        out.append(f"{pad}   → {text}")
    if not node.detail.get("log"):
        out.append(f"{pad}   → " + say(lang, "no_change"))
    return out


def event_log(answer, lang=None, model=None) -> str:
    """A procedure's run as an event log: each step, the dice it read, what changed; for
    the ``partial`` answer of an error (``Rulebook.ask``), the steps before it, the step
    it stopped in last."""
    _SAID.set(set())
    _STATE.set(_asked_on(answer))
    model = model if model is not None else getattr(answer, "model", None)
    _VARIANT.set(_variant_files(model))
    lines = [say(lang, "procedure", q=answer.question)]
    if answer.value is None:
        lines[0] = say(lang, "log_before_error", q=answer.question)
    procedures = 0
    for node in answer.trace.children:
        if node.kind != "procedure":
            lines += _node(node, 1, lang)
            continue
        procedures += 1
        lines[0] += f"  ({cite(node.decl, lang)})"
        for n, c in enumerate(node.children, 1):
            lines += _step(c, n, 1, lang)
    if not procedures and answer.value is not None:    # effects of a rule: what they
        lines[0] = say(lang, "effects_of", q=answer.question)   # changed, as a step shows it
        lines += _effects_lines(answer, lang)
    elif answer.value is not None:
        lines += _net_changes(answer, lang)
    lines.append("")
    lines.append(say(lang, "dice", d=_dice(answer.dice, lang) or say(lang, "none_dice")))
    secs = sections_of(answer.trace)
    if secs:
        lines.append(say(lang, "cited", s="; ".join(cite_section(s, lang) for s in secs)))
    return "\n".join(lines)


def _signed(n) -> str:
    if n is None:
        return "0"
    return f"+{n}" if n > 0 else ("−" + str(-n) if n < 0 else "0")


# ------------------------------------------------------------------ JSON
def to_json(v):
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, Level):
        return {"level": v.name, "of": v.enum}
    if isinstance(v, Range):
        return {"range": None if v.empty else [v.low, v.high]}
    if isinstance(v, ChartRow):             # a chart's row: its cells too
        return {"entity": v.id, "type": v.type,
                "fields": {k: to_json(x) for k, x in v.fields.items()}}
    if isinstance(v, Entity):
        return {"entity": v.id, "type": v.type}
    if isinstance(v, CheckResult):
        return {"check": v.name, "passed": v.passed, "roll": v.natural, "modifier": v.modifier,
                "total": v.total, "op": v.op, "target": to_json(v.target), "margin": v.margin,
                "taken": v.taken}
    from .runtime import Verdict
    if isinstance(v, Verdict):
        return {"verdict": v.name, "allowed": v.allowed,
                "violated": [{"name": d.name, "label": d.label.text, "section": section_json(d)}
                             for d in v.violated]}
    if isinstance(v, Fraction):
        return {"fraction": f"{v.numerator}/{v.denominator}", "percent": float(v * 100)}
    if isinstance(v, tuple):
        from .runtime import Effect
        if v and isinstance(v[0], Effect):
            return [{"effect": e.kind, "entity": e.entity, "field": e.field,
                     "value": to_json(e.value)} for e in v]
        return [to_json(x) for x in v]
    return show(v)


def section_json(decl):
    sec = getattr(decl, "section", None)
    return None if sec is None else {"number": sec.number, "title": sec.label.text}


def trace_json(node: Trace) -> dict:
    out = {"kind": node.kind, "name": node.name, "section": section_json(node.decl),
           "value": to_json(node.value)}
    if node.kind == "rule":
        decided = node.detail.get("decided_by")
        out["args"] = {k: to_json(v) for k, v in node.detail.get("args", {}).items()}
        if decided is not None:
            out["decided_by"] = {"name": decided.name, "section": section_json(decided)}
        out["exceptions_considered"] = [
            {"name": d.name, "status": st, "section": section_json(d),
             "read": _reads([getattr(d, "when", None)], node.detail.get("args", {}), None, node,
                            values=True)}
            for d, st, _ in node.detail.get("considered", [])]
        out["read"] = _reads([getattr(decided or node.decl, "value", None)],
                             node.detail.get("args", {}), None, node)
    if node.kind in ("check", "requirements") and "args" in node.detail:
        out["args"] = {k: to_json(v) for k, v in node.detail["args"].items()}
    if node.kind == "modifiers":
        out["modifiers"] = [{"name": i.name, "label": i.label.text, "applied": on,
                             "value": to_json(v)} for i, on, v in node.detail["items"]]
    if node.kind == "requirements":
        idle = _idle_items(node)
        out["requirements"] = [{"name": d.name, "label": d.label.text, "satisfied": ok,
                                "applies": id(d) not in idle, "section": section_json(d)}
                               for d, ok in node.detail["items"]]
    if node.kind == "step":
        out["log"] = [text for _, text in node.detail.get("log", [])]
        out["skipped"] = bool(node.detail.get("skipped"))
    if node.kind == "table":
        out["keys"] = [to_json(k) for k in node.detail["keys"]]
        cell = node.detail["cell"]
        out["cell"] = {"path": cell.loc.path, "line": cell.loc.line, "col": cell.loc.col}
    out["children"] = [trace_json(c) for c in node.children]
    return out


def answer_json(answer, model=None) -> dict:
    _STATE.set(_asked_on(answer))              # what the trace's 'read' looks things up in
    out = {"question": answer.question, "type": str(answer.type), "value": to_json(answer.value),
           "shown": show_answer(answer.value, answer.type),
           "dice": [{"die": d, "face": f, "how": how} for d, f, how in answer.dice],
           "trace": [trace_json(c) for c in answer.trace.children] if answer.trace else [],
           "sections": [{"number": s.number, "title": s.label.text,
                         "numbered_by_rulebook": s.numbered_by_rulebook is not None}
                        for s in (sections_of(answer.trace) if answer.trace else [])]}
    if answer.new_state is not None:
        out["effects"] = [text for _, text in answer.log]
        out["effects_cited"] = [
            {"effect": text, "section": sec.section.number if sec is not None else None}
            for sec, text in ((effect_section(answer, eff), text) for eff, text in answer.log)]
    if answer.trace is not None:
        model = model if model is not None else getattr(answer, "model", None)
        out["doubts"] = doubts_of(answer.trace, model)
        out["variant_changes"] = variant_changes(answer.trace, model)
    return out



# ------------------------------------------------------------------ doubts and provenance
# What decided a ruling, and what the sources say is doubtful about it: every doubt, gap and
# CONFLICT attached to a rule, exception, table, cell (its row's notes, its footnote markers)
# or modifier (applied or not: a doubt may be of its condition) the trace consulted; under a
# variant, everything the variant changed.

def _variant_files(model) -> dict:
    if model is None or getattr(model, "base", None) is None:
        return {}
    return {path: model.title.text for path in model.own_files}


def _variant_mark(decl, lang) -> str:
    if decl is None or decl.loc.path not in _VARIANT.get():
        return ""
    return " " + say(lang, "changed_by_variant", at=f"{decl.loc.path}:{decl.loc.line}")


def _consulted(trace: Trace):
    """(node, what, thing) for every declaration, applied modifier and table cell consulted."""
    def walk(node):
        if node.kind == "step" and node.detail.get("skipped"):
            return                          # its procedure's walk gives its notes, apart
        for d in _decls(node, weighed=True):
            yield node, "decl", d
        if node.kind == "procedure":        # a step's notes are of its procedure's section
            for step in node.children:      # (those of a step skipped, apart: GdB Q26)
                if step.decl is not None:
                    yield node, "skipped" if step.detail.get("skipped") else "decl", step.decl
        if node.kind == "modifiers":     # applied or not: a doubt may be of its condition
            for item, _, _ in node.detail.get("items", []):
                yield node, "modifier", item
        if node.kind == "table":
            yield node, "cell", node.detail["cell"]
        for c in node.children:
            yield from walk(c)
    yield from walk(trace)


def _note_json(note, of: str, section) -> dict:
    kind = "conflict" if note.text.lstrip().upper().startswith("CONFLICT") else note.kind
    return {"kind": kind, "text": note.text, "of": of,
            "section": None if section is None else section.number,
            "at": f"{note.loc.path}:{note.loc.line}"}


def _idle_items(node) -> set:
    """The ids of the requirements of a verdict's step met only because their own 'when'
    does not hold (as worked out in this question's trace)."""
    return {id(c.decl) for c in node.children
            if getattr(c, "detail", None) and c.detail.get("inapplicable")}


_FIRST = {"conflict": 0, "gap": 1, "doubt": 2}


def doubts_of(trace: Trace, model=None) -> list:
    """Every doubt, gap and CONFLICT attached to what decided the ruling: those of its rules
    first, CONFLICTs and gaps before doubts, each in trace order; then those a section
    states of all its rules ("whole section"), in the same order (GdB round 14 Q26, BFS
    T-c: the gap that matters is not lost among the doubts)."""
    return _in_order(_doubts(trace, model))


def _collector():
    """(the list, add(note, of, section, skipped=False)): each doubt and gap once, as JSON;
    ``skipped``: of a procedure step this evaluation skipped."""
    out, seen = [], set()

    def add(note, of, section, skipped=False):
        key = (note.loc.path, note.loc.line, note.loc.col, note.text)
        if note.kind in ("doubt", "gap") and key not in seen:
            seen.add(key)
            out.append(dict(_note_json(note, of, section), **({"skipped": True}
                                                                if skipped else {})))
    return out, add


def _doubts(trace: Trace, model=None) -> list:
    out, add = _collector()
    decls, sections = [], set()
    for node, what, thing in _consulted(trace):
        sec = getattr(node.decl, "section", None)
        if what == "decl":
            decls.append(thing)
            for note in getattr(thing, "annotations", []) or []:
                add(note, thing.name, getattr(thing, "section", None) or sec)
            own = getattr(thing, "section", None)     # the doubts its section states of
            if own is not None and id(own) not in sections:     # all its rules
                sections.add(id(own))
                for note in own.annotations or []:
                    add(note, "whole section", own)
        elif what == "skipped":
            for note in thing.annotations or []:
                add(note, f"{node.decl.name}.{thing.name}", sec, skipped=True)
        elif what == "modifier":
            for note in thing.annotations or []:
                add(note, f"{node.decl.name}.{thing.name}", sec)
        elif what == "cell":
            row = _row_of(node.decl, thing)
            for note in _cell_notes(row, thing, "row" in node.detail):
                add(note, f"{node.name} row {row.loc.line}", sec)
            for mark in thing.markers if model is not None else ():
                marker = model.marker_for(mark, sec.number if sec else None)
                for note in (marker.annotations if marker is not None else []):
                    add(note, f"{node.name} cell {mark}", sec)
    for w in getattr(model, "warnings", []) if model is not None else []:
        if any((w.loc.path, w.loc.line) == (d.loc.path, d.loc.line) for d in decls):
            out.append({"kind": "conflict", "text": w.message, "of": w.code,
                        "section": None, "at": f"{w.loc.path}:{w.loc.line}"})
    return out


def doubts_of_rules(model, decls) -> list:
    """The doubts, gaps and CONFLICTs of ``decls`` (``describe.consulted``: what a question
    may consult, for ``odds``, which keeps no trace), of their exceptions, requirements,
    modifiers and procedure steps, and those their sections state of all their rules;
    ordered as ``doubts_of`` orders them, those of the rules that read a die or a choice
    first in each group: the odds rest on them (GdB round 14 N4, round 16)."""
    (out, add), sections, rolled = _collector(), set(), set()
    for d in decls:
        parts = [(d.name, d)] + [(x.name, x) for x in model.children.get(d.name, [])]
        parts += [(r.name, r) for r in model.items_of.get(d.name, [])]
        parts += [(f"{d.name}.{i.name}", i) for i in getattr(d, "items", None) or []]
        parts += [(f"{d.name}.{st.name}", st) for st in getattr(d, "steps", None) or []]
        for of, part in parts:
            sec = getattr(part, "section", None) or getattr(d, "section", None)
            at = len(out)
            for note in getattr(part, "annotations", None) or []:
                add(note, of, sec)
            owner = part.name if isinstance(part, A.RequireDecl) else d.name
            if owner in model.rolls_dice:
                rolled.update(id(n) for n in out[at:])
            if sec is not None and id(sec) not in sections:
                sections.add(id(sec))
                for note in sec.annotations or []:
                    add(note, "whole section", sec)
    return sorted(_in_order(out), key=lambda n: (n.get("skipped", False),
                                                 n["of"] == "whole section", id(n) not in rolled))


def _in_order(notes: list) -> list:
    """Those of rules first, CONFLICTs and gaps before doubts, then the whole sections',
    then those of the procedure steps skipped."""
    return sorted(notes, key=lambda d: (d.get("skipped", False), d["of"] == "whole section",
                                        _FIRST.get(d["kind"], 2)))


def _row_of(table, cell):
    """The row of a table's declaration that holds this cell (its key cell, for a chart
    read row by row), or None."""
    return next((row for row in getattr(table, "rows", None) or ()
                 if any(c is cell for c in row.cells)), None)


def _cell_notes(row, cell, whole_row: bool) -> list:
    """The notes a lookup read: those under the cell's row, of the whole row, and those
    naming the cell's column (for a chart, whose lookup reads the whole row, every
    column's)."""
    if row is None:
        return list(cell.annotations)
    cells = row.cells if whole_row else [cell]
    return list(row.annotations) + [n for c in cells for n in c.annotations]


def variant_changes(trace: Trace, model=None) -> list:
    """Under a variant: each rule, cell or modifier list the ruling consulted that the
    variant changed, with the variant's file:line."""
    if model is None or getattr(model, "base", None) is None:
        return []
    own = model.own_files
    out, seen = [], set()
    base = getattr(model.base, "decls", {})
    owner = {c.target: _owner(base.get(c.target)) for c in model.patches if c.kind == "dropped"}
    for node, what, thing in _consulted(trace):
        name = getattr(thing, "name", node.name)
        for c in model.patches:
            hit = (what == "decl" and (c.target == name or c.target.startswith(name + ".")
                                       or owner.get(c.target) == name)
                   or what == "cell" and thing.loc.path in own
                   and c.kind == "cell" and c.target.startswith(node.name + "(")
                   and (c.loc.path, c.loc.line) == (thing.loc.path, thing.loc.line))
            key = (c.kind, c.target, c.loc.path, c.loc.line)
            if hit and key not in seen:
                seen.add(key)
                out.append({"kind": c.kind, "target": c.target, "section": c.section,
                            "before": c.before, "after": c.after,
                            "at": f"{c.loc.path}:{c.loc.line}"})
    return out


def _owner(decl) -> str | None:
    """The rule a dropped exception (or requirement) belonged to: a ruling that consults the
    rule shows that the variant dropped it."""
    if isinstance(decl, A.ExceptionDecl):
        return decl.target
    if isinstance(decl, A.RequireDecl):
        return decl.list_name
    return None


def _doubt_lines(answer, model, lang) -> list:
    if answer.trace is None:
        return []
    lines = []
    changes = variant_changes(answer.trace, model)
    if changes:
        lines += ["", say(lang, "variant_head", title=model.title.text)]
        for c in changes:
            what = f"{c['before']} → {c['after']}" if c["kind"] in ("cell", "option") \
                else say(lang, "variant_" + c["kind"]) if c["kind"] in (
                    "replaced", "dropped", "added") else c["kind"]
            lines.append(f"  - {c['target']}: {what} (§{c['section']}, {c['at']})")
    return lines + doubt_lines(doubts_of(answer.trace, model), lang)


def doubt_lines(doubts: list, lang, head: str = "doubts_head") -> list:
    """The lines of a list of doubts (``doubts_of``): those of rules under ``head``, those
    of whole sections under their own heading."""
    lines = []
    heads = [(head, [d for d in doubts if d["of"] != "whole section" and "skipped" not in d]),
             ("sections_head", [d for d in doubts if d["of"] == "whole section"]),
             ("skipped_head", [d for d in doubts if "skipped" in d])]
    for head, notes in heads:
        if notes:
            lines += ["", say(lang, head)]
        for d in notes:
            where = f"§{d['section']}, " if d["section"] else ""
            of = say(lang, "whole_section") if d["of"] == "whole section" else d["of"]
            lines.append(f"  - {say(lang, 'kind_' + d['kind'])} ({where}{of}): "
                         f"{d['text']} ({d['at']})")
    return lines


# ------------------------------------------------------------------ effects, outcomes, examples
def effects_log(answer, lang=None) -> list:
    """What the effects changed, in order, in the reader's language."""
    if answer.new_state is None:
        return []
    if lang is None:
        return [text for _, text in answer.log]
    _, log = (answer.before or answer.state).apply(answer.value, lang)
    return [text for _, text in log]


def _step_log(node: Trace, lang) -> list:
    log = node.detail.get("log", [])
    if lang is None or not log or "before" not in node.detail:
        return [text for _, text in log]
    _, again = node.detail["before"].apply(tuple(e for e, _ in log), lang)
    return [text for _, text in again]


def outcome_label(model, key: str, lang=None) -> str:
    """An outcome of ``odds`` (a level's name, passed, failed...) in the reader's language."""
    if lang is None:
        return key
    if key in model.members:
        enum, i = model.members[key]
        return enum.members[i].label.show(key, lang)
    if key in ("passed", "failed", "allowed", "refused", "yes", "no"):
        return say(lang, key)
    from .evaluate import OTHER_CHOICES
    if key == OTHER_CHOICES:
        return say(lang, "odds_other_choices")
    return key


def example_json(path: str, result) -> dict:
    ex = result.example
    return {"rulebook": path, "example": ex.name, "section": _sec_number(ex),
            "at": f"{ex.loc.path}:{ex.loc.line}", "passed": result.passed,
            "failures": [{"at": f"{loc.path}:{loc.line}:{loc.col}", "message": msg}
                         for loc, msg in result.failures]}


def _sec_number(decl):
    sec = getattr(decl, "section", None)
    return None if sec is None else sec.number


__all__ = ["ruling", "answer_json", "to_json", "sections_of", "doubts_of", "doubts_of_rules",
           "doubt_lines", "variant_changes",
           "effects_log", "outcome_label", "example_json", "A"]
