"""Explain stage: ``describe`` — every question a checked rulebook answers, and its records.

Built on the checked ``Model`` (no second parser): each rule, check, table, modifier list,
requirement list and procedure with its signature, labels, section, the dice it reads and
the players' choices it asks for (directly or through what it consults); each record type
with its fields, types, ranges and defaults.  ``describe_json`` is the data; ``render`` and
``render_one`` write it as text.
"""
from __future__ import annotations

from . import ast as A
from .check.geometry import board_of
from .geometry import Board
from .phrases import say

# what a player asks, by declaration class, in the order describe lists them
QUESTION_KINDS = {A.Define: "rule", A.CheckDecl: "check", A.TableDecl: "table",
                  A.ModifiersDecl: "modifiers", A.RequirementsDecl: "requirements",
                  A.ProcedureDecl: "procedure"}


def _labels(label) -> dict:
    if label is None:
        return {}
    out = {"en": label.text} if label.text else {}
    out.update(label.translations)
    return out


def _section(decl) -> dict | None:
    sec = getattr(decl, "section", None)
    return None if sec is None else {"number": sec.number, "title": sec.label.text,
                                     "labels": _labels(sec.label)}


def _exprs(model, d):
    """The expressions a declaration evaluates itself (not through what it calls)."""
    out = [getattr(d, "when", None), getattr(d, "value", None)]
    if isinstance(d, A.CheckDecl):
        out += [d.modifier, d.target]
    if isinstance(d, A.ModifiersDecl):
        for m in d.items:
            out += [m.value, m.when]
    if isinstance(d, A.ProcedureDecl):
        for st in d.steps:
            out += [st.when, st.value]
    for x in model.children.get(d.name, []):          # its exceptions, and theirs
        out += _exprs(model, x)
    if isinstance(d, A.RequirementsDecl):
        for r in model.items_of.get(d.name, []):
            out += _exprs(model, r)
    return [e for e in out if e is not None]


class _Reach:
    """What each declaration reads, directly or through the declarations it consults."""

    def __init__(self, model):
        self.m = model
        self.memo: dict[str, tuple] = {}

    def direct(self, d):
        dice, choices, calls = [], [], []
        if isinstance(d, A.CheckDecl):
            dice.append(d.dice.die)
        for root in _exprs(self.m, d):
            for e in A.walk(root):
                if isinstance(e, A.Roll) and e.dice.die not in dice:
                    dice.append(e.dice.die)
                elif isinstance(e, A.Choose) and e.name not in [c["name"] for c in choices]:
                    choices.append({"name": e.name, "from": A.to_source(e.options),
                                    "at": f"{e.loc.path}:{e.loc.line}"})
                elif isinstance(e, (A.Call, A.Name)) and e.name in self.m.decls:
                    if isinstance(self.m.decls[e.name], tuple(QUESTION_KINDS)) \
                            and e.name not in calls and e.name != d.name:
                        calls.append(e.name)
        return dice, choices, calls

    def of(self, name):
        """(dice, choices, consults) of a declaration, everything it reaches included."""
        if name in self.memo:
            return self.memo[name]
        self.memo[name] = ([], [], [])          # the checker refused cycles; stay safe anyway
        dice, choices, calls = self.direct(self.m.decls[name])
        dice, choices = list(dice), list(choices)
        for c in calls:
            d2, c2, _ = self.of(c)
            dice += [x for x in d2 if x not in dice]
            choices += [x for x in c2 if x["name"] not in [y["name"] for y in choices]]
        self.memo[name] = (dice, choices, calls)
        return self.memo[name]


def consulted(model, expr) -> list:
    """The declarations a question's expression may consult, directly or through what they
    consult (``_Reach``), each once, in the order reached: what odds gives the doubts of."""
    reach, seen, out = _Reach(model), set(), []
    todo = [e.name for e in A.walk(expr) if isinstance(e, (A.Call, A.Name))
            and isinstance(model.decls.get(e.name), tuple(QUESTION_KINDS))]
    while todo:
        name = todo.pop(0)
        if name not in seen:
            seen.add(name)
            out.append(model.decls[name])
            todo += reach.of(name)[2]
    return out


def choice_names(model) -> list:
    """The name of every players' choice the rulebook asks for (``choose NAME from``)."""
    reach, names = _Reach(model), []
    for d in model.decls.values():
        if isinstance(d, tuple(QUESTION_KINDS)):
            names += [c["name"] for c in reach.direct(d)[1] if c["name"] not in names]
    return names


def _params(model, d) -> list:
    """Each argument, and the words it is written in when its type is an enum or scale, or
    how a question writes it when it is a position on the board."""
    out = []
    for p in d.params or []:
        entry = {"name": p.name, "type": A.type_source(p.type)}
        named = p.type.name if p.type.kind in ("named", "optional") else None
        words = model.decls.get(named) if named else None
        if isinstance(words, A.EnumDecl):
            entry["levels"] = [m.name for m in words.members]
        if named == "Position":
            entry["written"] = _position_written(model)
        if named in ("Facing", "Direction") and words is None and board_of(model) is not None:
            entry["written"] = _facing_written(model, named == "Facing")
        out.append(entry)
    return out


def _position_written(model) -> str:
    board = board_of(model)
    if board is None or board.grid != "hex":
        unit = f" {board.layout}" if board is not None else ""
        return f"position(x, y), in{unit or ' the board unit'}: position(30, 12)"
    if board.layout == "axial":
        return "position(q, r), the hex's axial coordinates: position(5, 9)"
    return "position(column, row), as the map prints the hex: hex 0509 is position(5, 9)"


def _facing_written(model, counter: bool) -> str:
    b = board_of(model)
    allowed = Board.declared(b).facings(counter)
    if allowed is None:
        return "degrees 0..359, clockwise from the top of the table: 90"
    what = {"vertices": " (a unit faces a hex vertex)", "hexsides": " (a unit faces a hexside)"}
    return ("degrees clockwise from the top of the map: " + ", ".join(map(str, allowed[:-1]))
            + f" or {allowed[-1]}" + (what.get(b.faces, "") if counter else ""))


def _returns(model, d) -> str:
    t = model.returns.get(d.name)
    if isinstance(d, A.Define) and d.returns is not None:
        return A.type_source(d.returns)
    if isinstance(d, A.TableDecl):
        return A.type_source(d.returns)
    return str(t) if t is not None else "?"


def signature(model, d) -> str:
    ps = ", ".join(f"{p['name']}: {p['type']}" for p in _params(model, d))
    head = f"{d.name}({ps})" if d.params is not None else d.name
    return f"{head} -> {_returns(model, d)}"


def _notes(d) -> list:
    return [{"kind": n.kind, "text": n.text, "at": f"{n.loc.path}:{n.loc.line}"}
            for n in getattr(d, "annotations", []) or []]


def _where(d) -> str:
    return f"{d.loc.path}:{d.loc.line}"


def question_json(model, d, reach=None) -> dict:
    reach = reach or _Reach(model)
    dice, choices, calls = reach.of(d.name)
    out = {"name": d.name, "kind": QUESTION_KINDS[type(d)], "signature": signature(model, d),
           "params": _params(model, d), "returns": _returns(model, d),
           "label": d.label.text, "labels": _labels(d.label), "section": _section(d),
           "at": _where(d), "dice": dice, "choices": choices, "consults": calls,
           "notes": _notes(d)}
    if isinstance(d, A.CheckDecl):
        out["roll"] = _roll_source(d)
        out["when"] = A.to_source(d.when) if d.when is not None else None
    if isinstance(d, A.Define):
        out["exceptions"] = [{"name": x.name, "label": x.label.text, "section": _section(x),
                              "at": _where(x), "notes": _notes(x)}
                             for x in model.children.get(d.name, [])]
    if isinstance(d, A.ModifiersDecl):
        out["modifiers"] = [{"name": m.name, "label": m.label.text, "labels": _labels(m.label),
                             "value": _signed_source(m.value),
                             "when": A.to_source(m.when) if m.when is not None else None,
                             "at": f"{m.loc.path}:{m.loc.line}", "notes": _notes(m)}
                            for m in d.items]
    if isinstance(d, A.RequirementsDecl):
        out["every_state"] = d.every_state
        out["requirements"] = [{"name": r.name, "label": r.label.text,
                                "labels": _labels(r.label), "section": _section(r),
                                "at": _where(r), "notes": _notes(r)}
                               for r in model.items_of.get(d.name, [])]
    if isinstance(d, A.ProcedureDecl):
        out["steps"] = [{"name": s.name, "label": s.label.text, "labels": _labels(s.label),
                         "stops": s.stop, "at": f"{s.loc.path}:{s.loc.line}",
                         "notes": _notes(s)} for s in d.steps]
    if isinstance(d, A.TableDecl) and d.name in model.tables:
        lay = model.tables[d.name]
        out["shape"] = lay.shape
        out["columns"] = [A.cell_source(c) for c in d.rows[0].cells[1:]] if d.rows else []
        out["rows"] = len(lay.rows)
        out["chart"] = ["| " + " | ".join(A.cell_source(c) for c in row.cells) + " |"
                        for row in d.rows]          # as the rulebook writes it, row by row
    return out


def _roll_source(c: A.CheckDecl) -> str:
    """A check's roll as written: ``roll 2 d6 - u.hits at least 7``."""
    dice = f"{c.dice.count} {c.dice.die}" if c.dice.count > 1 else c.dice.die
    mod = A.to_source(c.modifier) if c.modifier is not None else ""
    if mod:
        mod = f" - {mod[1:]}" if mod.startswith("-") else f" + {mod}"
    target = {"at_most": "at most", "at_least": "at least", "within": "within"}[c.op]
    return (f"roll {dice}{mod}{' clamped' if c.clamped else ''} {target} "
            f"{A.to_source(c.target)}")


def _signed_source(e) -> str:
    """A modifier's value as the chart prints it: +1, -2, or an expression."""
    text = A.to_source(e)
    return f"+{text}" if isinstance(e, A.IntLit) and e.value > 0 else text


def field_json(model, rec, f) -> dict:
    t = f.type
    out = {"name": f.name, "type": A.type_source(t), "label": f.label.text,
           "labels": _labels(f.label), "required": f.default is None
           and not A.optional_type(t) and t.kind != "list",
           "default": A.to_source(f.default) if f.default is not None else None}
    if A.number_range(t):
        out["range"] = list(A.number_range(t))
    target = model.decls.get(t.name) if t.name else None
    if isinstance(target, A.EnumDecl):
        out["levels"] = [m.name for m in target.members]
    if isinstance(target, A.RecordDecl):
        out["refers_to"] = target.name
    return out


def record_json(model, rec) -> dict:
    return {"name": rec.name, "kind": "record", "label": rec.label.text,
            "labels": _labels(rec.label), "section": _section(rec), "at": _where(rec),
            "fields": [field_json(model, rec, f) for f in rec.fields], "notes": _notes(rec)}


def _other_json(model, d) -> dict:
    """Enums, dice and options: the words a question's arguments are written in."""
    out = {"name": d.name, "kind": d.what, "label": getattr(d, "label", A.Label()).text,
           "labels": _labels(getattr(d, "label", None)), "section": _section(d),
           "at": _where(d), "notes": _notes(d)}
    if isinstance(d, A.EnumDecl):
        out["levels"] = [{"name": m.name, "label": m.label.text, "labels": _labels(m.label)}
                         for m in d.members]
    if isinstance(d, A.DieDecl):
        out["faces"] = [d.low, d.high]
    if isinstance(d, A.OptionDecl):
        out["default"] = "on" if d.default else "off"
    return out


def _in_order(model):
    for sec in model.sections:
        for d in sec.items:
            if model.decls.get(getattr(d, "name", None)) is d:
                yield d


def describe_json(model) -> dict:
    reach = _Reach(model)
    questions, records, words = [], [], []
    for d in _in_order(model):
        if type(d) in QUESTION_KINDS:
            questions.append(question_json(model, d, reach))
        elif isinstance(d, A.RecordDecl):
            records.append(record_json(model, d))
        elif isinstance(d, (A.EnumDecl, A.DieDecl, A.OptionDecl)):
            words.append(_other_json(model, d))
    return {"rulebook": model.title.text,
            "languages": list(model.languages), "questions": questions,
            "records": records, "vocabulary": words}


def find(data: dict, name: str) -> dict | None:
    for group in ("questions", "records", "vocabulary"):
        for item in data[group]:
            if item["name"] == name:
                return item
    return None


def names(data: dict) -> list:
    return [i["name"] for g in ("questions", "records", "vocabulary") for i in data[g]]


# ------------------------------------------------------------------ text
def _lab(item, lang) -> str:
    labels = item.get("labels") or {}
    return labels.get(lang or "en") or item.get("label") or ""


def _sec(item, lang) -> str:
    s = item.get("section")
    if not s:
        return ""
    title = (s.get("labels") or {}).get(lang or "en") or s.get("title") or ""
    return f"§{s['number']} {title}".strip()


def _reads(item, lang) -> list:
    out = []
    if item.get("dice"):
        out.append(say(lang, "d_reads", dice=", ".join(item["dice"])))
    for c in item.get("choices", []):
        out.append(say(lang, "d_asks", name=c["name"], options=c["from"]))
    return out


def render(data: dict, lang=None) -> str:
    """Every question and record type, grouped by section."""
    lines = [say(lang, "d_title", title=data["rulebook"], q=len(data["questions"]),
                 r=len(data["records"])), ""]
    current = object()
    for q in data["questions"]:
        sec = _sec(q, lang)
        if sec != current:
            lines.append(sec or say(lang, "d_no_section"))
            current = sec
        label = _lab(q, lang)
        lines.append(f"  {q['kind']:<12} {q['signature']}" + (f'  "{label}"' if label else ""))
        for r in _reads(q, lang):
            lines.append(f"  {'':<12} {r}")
    lines += ["", say(lang, "d_records")]
    for r in data["records"]:
        lines += _record_lines(r, lang)
    if data["vocabulary"]:
        lines += ["", say(lang, "d_words")]
        for w in data["vocabulary"]:
            lines.append("  " + _word_line(w, lang))
    lines += ["", say(lang, "d_more")]
    return "\n".join(lines)


def _record_lines(r, lang) -> list:
    label = _lab(r, lang)
    lines = [f"  {r['name']}" + (f' "{label}"' if label else "") + f"  ({_sec(r, lang)})"]
    width = max((len(f["name"]) for f in r["fields"]), default=0)
    for f in r["fields"]:
        extra = []
        if f["default"] is not None:
            extra.append(say(lang, "d_default", v=f["default"]))
        elif f["required"]:
            extra.append(say(lang, "d_required"))
        if f.get("levels"):
            extra.append(say(lang, "d_one_of", v=", ".join(f["levels"])))
        fl = _lab(f, lang)
        lines.append(f"    {f['name']:<{width}}  {f['type']}"
                     + (f"  ({'; '.join(extra)})" if extra else "")
                     + (f'  "{fl}"' if fl else ""))
    return lines


def _word_line(w, lang) -> str:
    label = _lab(w, lang)
    head = f"{w['kind']:<7} {w['name']}" + (f' "{label}"' if label else "")
    if "levels" in w:
        head += ": " + ", ".join(x["name"] for x in w["levels"])
    if "faces" in w:
        head += f": {w['faces'][0]}..{w['faces'][1]}"
    if "default" in w:
        head += f" ({say(lang, 'd_default', v=w['default'])})"
    return head


def render_one(item: dict, lang=None) -> str:
    """One question, record type or word in full."""
    label = _lab(item, lang)
    lines = []
    if item["kind"] == "record":
        lines += [l[2:] for l in _record_lines(item, lang)]
    elif "signature" in item:
        lines.append(f"{item['kind']} {item['signature']}")
        if label:
            lines.append(f'  "{label}"')
        others = {k: v for k, v in (item.get("labels") or {}).items() if k != (lang or "en")}
        for k, v in others.items():
            lines.append(f'  {k} "{v}"')
    else:
        lines.append(_word_line(item, lang))
    lines.append("  " + say(lang, "d_section", s=_sec(item, lang) or "—", at=item["at"]))
    for p in item.get("params", []):
        line = "  " + say(lang, "d_param", name=p["name"], type=p["type"])
        if p.get("levels"):
            line += ": " + say(lang, "d_one_of", v=", ".join(p["levels"]))
        if p.get("written"):
            line += ": " + say(lang, "d_written", v=p["written"])
        lines.append(line)
    if item.get("roll"):
        lines.append("  " + item["roll"])
    if item.get("when"):
        lines.append("  " + say(lang, "d_taken_when", c=item["when"]))
    lines += ["  " + r for r in _reads(item, lang)]
    if item.get("consults"):
        lines.append("  " + say(lang, "d_consults", v=", ".join(item["consults"])))
    for x in item.get("exceptions", []):
        lines.append("  " + say(lang, "d_exception", name=x["name"], s=_sec(x, lang),
                                at=x["at"]))
    for m in item.get("modifiers", []):
        cond = f" when {m['when']}" if m["when"] else ""
        lines.append(f"  {m['name']}: {m['value']}{cond}  \"{_lab(m, lang)}\"")
    if item.get("every_state"):
        lines.append("  " + say(lang, "d_every_state"))
    for r in item.get("requirements", []):
        lines.append(f"  require {r['name']}  \"{_lab(r, lang)}\"  ({_sec(r, lang)})")
    for n, s in enumerate(item.get("steps", []), 1):
        lines.append(f"  {n}. {s['name']}  \"{_lab(s, lang)}\"" + ("  (stop)" if s["stops"] else ""))
    if item.get("columns"):
        lines.append("  " + say(lang, "d_columns", v=", ".join(item["columns"]),
                                n=item["rows"]))
        lines += [f"    {row}" for row in item.get("chart", [])]
    notes = list(item.get("notes", []))
    for group in ("modifiers", "requirements", "steps", "exceptions"):
        for x in item.get(group, []):
            notes += [dict(n, of=x["name"]) for n in x.get("notes", [])]
    for n in notes:
        of = f" [{n['of']}]" if n.get("of") else ""
        lines.append(f"  {n['kind']}{of}: {n['text']}  ({n['at']})")
    return "\n".join(lines)
