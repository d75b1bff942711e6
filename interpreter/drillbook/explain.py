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
from .runtime import CheckResult, Entity, Level, Range, Trace, show


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


def _decls(node):
    if node.decl is not None:
        yield node.decl
    decided = node.detail.get("decided_by")
    if decided is not None:
        yield decided
    if node.kind == "requirements":
        for d, _ok in node.detail.get("items", []):
            yield d
    yield from node.detail.get("footnotes", ())


# ------------------------------------------------------------------ prose
def ruling(answer, lang=None) -> str:
    _SAID.set(set())
    v = answer.value
    lines = [say(lang, "question", q=answer.question), say(lang, "ruling", v=_verdict(v, lang))]
    if answer.dice:
        lines.append(say(lang, "dice", d=_dice(answer.dice, lang)))
    lines.append("")
    lines.append(say(lang, "why"))
    for node in answer.trace.children:
        lines += _node(node, 1, lang)
    if answer.log:
        lines.append("")
        lines.append(say(lang, "effects"))
        for eff, text in answer.log:
            where = cite(effect_section(answer, eff), lang)
            lines.append(f"  - {text}" + (f" ({where})" if where else ""))
    secs = sections_of(answer.trace)
    if secs:
        lines.append("")
        lines.append(say(lang, "cited", s="; ".join(cite_section(s, lang) for s in secs)))
    return "\n".join(lines)


def _dice(dice, lang) -> str:
    return ", ".join(f"{d} = {f} ({say(lang, how)})" for d, f, how in dice)


def _verdict(v, lang) -> str:
    from .runtime import Verdict
    if isinstance(v, Verdict):
        if v.allowed:
            return say(lang, "yes_all")
        return say(lang, "no_because",
                   r="; ".join(f"{cite(d, lang)}: {label(d, lang)}" for d in v.violated))
    if isinstance(v, CheckResult):
        if v.natural is None:
            return say(lang, "nothing_to_roll")
        by = say(lang, "by", n=v.margin) if v.margin else ""
        return say(lang, "check_passes" if v.passed else "check_fails", by=by, t=v.total,
                   need=_target(v, lang))
    return show(v, lang)


def _target(v: CheckResult, lang=None) -> str:
    if v.op == "at_most":
        return say(lang, "or_less", n=v.target)
    if v.op == "at_least":
        return say(lang, "or_more", n=v.target)
    return say(lang, "within", r=v.target)


def _node(node: Trace, depth: int, lang) -> list:
    pad = "  " * depth
    kind = node.kind
    out = []
    if kind == "roll":
        return [f"{pad}- " + say(lang, "rolled", die=node.name, n=node.value)]
    if kind == "choice":
        opts = ", ".join(show(o, lang) for o in node.detail["options"])
        return [f"{pad}- " + say(lang, "chose", name=node.name, v=show(node.value, lang),
                                 opts=opts)]
    if kind == "table":
        cell = node.detail["cell"]
        keys = ", ".join(show(k, lang) for k in node.detail["keys"])
        shown = say(lang, "not_applicable") if node.value is None else show(node.value, lang)
        if cell.markers and node.value is not None:
            shown += "".join(cell.markers)          # the cell as printed, its marks with it
        if "row" in node.detail:
            shown = node.detail["row"]
        return [f"{pad}- {label(node.decl, lang)} ({cite(node.decl, lang)}): "
                + say(lang, "chart_gives", keys=keys, v=shown, line=cell.loc.line)
                ] + _footnotes(node, pad, lang)
    if kind == "modifiers":
        out.append(f"{pad}- {label(node.decl, lang)} ({cite(node.decl, lang)}): "
                   + say(lang, "total", n=_signed(node.value)))
        for item, on, v in node.detail["items"]:
            text = item.label.show(item.name, lang)
            if on:
                out.append(f"{pad}    " + say(lang, "applied", n=_signed(v), text=text))
            else:
                out.append(f"{pad}    " + say(lang, "not_applied", text=text))
        for c in node.children:
            out += _node(c, depth + 2, lang)
        return out
    if kind == "check":
        v = node.value
        head = f"{pad}- {label(node.decl, lang)} ({cite(node.decl, lang)}): "
        if v is None:
            return [head + say(lang, "stopped")]
        if v.natural is None:
            out.append(head + say(lang, "check_no_roll"))
        else:
            word = say(lang, "passed" if v.passed else "failed")
            by = say(lang, "by", n=v.margin) if v.margin else ""
            out.append(head + say(lang, "check_line", n=v.natural, m=_signed(v.modifier),
                                  t=v.total, need=_target(v, lang), word=word + by))
        for c in node.children:
            out += _node(c, depth + 1, lang)
        return out
    if kind == "requirements":
        v = node.value
        verdict = say(lang, "allowed" if v is not None and v.allowed else "refused")
        out.append(f"{pad}- {label(node.decl, lang)} ({cite(node.decl, lang)}): {verdict}")
        for d, ok in node.detail.get("items", []):
            mark = say(lang, "satisfied" if ok else "violated")
            out.append(f"{pad}    {mark}: {cite(d, lang)}: {label(d, lang)}")
        for c in node.children:
            out += _node(c, depth + 2, lang)
        return out
    if kind == "procedure":
        out.append(f"{pad}- {label(node.decl, lang)} ({cite(node.decl, lang)}), "
                   + say(lang, "step_by_step"))
        for n, c in enumerate(node.children, 1):
            out += _step(c, n, depth + 1, lang)
        return out
    if kind == "rule":
        decided = node.detail.get("decided_by")
        args = ", ".join(f"{k} = {show(a, lang)}" for k, a in node.detail.get("args", {}).items())
        said = (node.name, args, show(node.value, lang))
        if said in _SAID.get():
            return [f"{pad}- {label(node.decl, lang)}" + (f" ({args})" if args else "") + " "
                    + say(lang, "is", v=show(node.value, lang)) + " " + say(lang, "as_above")]
        _SAID.get().add(said)
        head = f"{pad}- {label(node.decl, lang)}" + (f" ({args})" if args else "") + \
            " " + say(lang, "is", v=show(node.value, lang))
        if decided is not None and decided is not node.decl:
            head += ": " + say(lang, "decides", x=label(decided, lang), where=cite(decided, lang),
                               base=cite(node.decl, lang))
        else:
            head += f" ({cite(node.decl, lang)})"
        out.append(head)
        for decl, status, winner in node.detail.get("considered", []):
            if status == "does not apply":
                out.append(f"{pad}    " + say(lang, "exc_not_apply", x=label(decl, lang),
                                               where=cite(decl, lang)))
        for c in node.children:
            out += _node(c, depth + 1, lang)
        return out
    for c in node.children:
        out += _node(c, depth, lang)
    return out


def _footnotes(node: Trace, pad: str, lang) -> list:
    """The footnotes a looked-up cell carries: each quoted, with the section declaring it."""
    return [f"{pad}    " + say(lang, "footnote", mark=d.mark, text=label(d, lang),
                                where=cite(d, lang))
            for d in node.detail.get("footnotes", ())]


def _step(node: Trace, n: int, depth: int, lang) -> list:
    pad = "  " * depth
    title = node.decl.label.show(node.name, lang)
    if node.decl.stop:
        word = say(lang, "procedure_stops" if node.detail.get("stopped") else "procedure_goes_on")
        return [f"{pad}{n}. {title}: {word}"]
    if node.detail.get("skipped"):
        return [f"{pad}{n}. {title}: " + say(lang, "skipped")]
    out = [f"{pad}{n}. {title}"]
    for c in node.children:
        out += _node(c, depth + 1, lang)
    for _, text in node.detail.get("log", []):
        out.append(f"{pad}   → {text}")
    if not node.detail.get("log"):
        out.append(f"{pad}   → " + say(lang, "no_change"))
    return out


def event_log(answer, lang=None) -> str:
    """A procedure's run as an event log: each step, the dice it read, what changed."""
    _SAID.set(set())
    lines = [say(lang, "procedure", q=answer.question)]
    for node in answer.trace.children:
        if node.kind != "procedure":
            lines += _node(node, 1, lang)
            continue
        lines[0] += f"  ({cite(node.decl, lang)})"
        for n, c in enumerate(node.children, 1):
            lines += _step(c, n, 1, lang)
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
    if isinstance(v, Entity):
        return {"entity": v.id, "type": v.type}
    if isinstance(v, CheckResult):
        return {"check": v.name, "passed": v.passed, "roll": v.natural, "modifier": v.modifier,
                "total": v.total, "op": v.op, "target": to_json(v.target), "margin": v.margin}
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
            {"name": d.name, "status": st, "section": section_json(d)}
            for d, st, _ in node.detail.get("considered", [])]
    if node.kind == "modifiers":
        out["modifiers"] = [{"name": i.name, "label": i.label.text, "applied": on,
                             "value": to_json(v)} for i, on, v in node.detail["items"]]
    if node.kind == "requirements":
        out["requirements"] = [{"name": d.name, "label": d.label.text, "satisfied": ok,
                                "section": section_json(d)} for d, ok in node.detail["items"]]
    if node.kind == "step":
        out["log"] = [text for _, text in node.detail.get("log", [])]
        out["skipped"] = bool(node.detail.get("skipped"))
    if node.kind == "table":
        out["keys"] = [to_json(k) for k in node.detail["keys"]]
        out["cell"] = {"line": node.detail["cell"].loc.line, "col": node.detail["cell"].loc.col}
    out["children"] = [trace_json(c) for c in node.children]
    return out


def answer_json(answer) -> dict:
    out = {"question": answer.question, "type": str(answer.type), "value": to_json(answer.value),
           "shown": show(answer.value),
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
    return out


__all__ = ["ruling", "answer_json", "to_json", "sections_of", "A"]
