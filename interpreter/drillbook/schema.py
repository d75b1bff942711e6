"""Explain stage: a JSON Schema for a rulebook's state files, from its checked record types.

``state_schema(model)`` describes what ``state.py`` reads: record types at the top, each
mapping entity ids to their fields; every field typed (whole numbers with their printed
ranges, enum levels by name, references to other entities by id, optional and list fields),
required unless it has a default, is optional or is a list.  Editors that know JSON Schema
(YAML language servers do) validate a state as it is typed.

``SCHEMA_VERSION`` is the version of every ``--json`` output of the command line; the
schemas of those outputs are in ``docs/schemas/``.
"""
from __future__ import annotations

from . import ast as A
from .check.geometry import board_of
from .geometry import Board

SCHEMA_VERSION = 1
DIALECT = "https://json-schema.org/draft/2020-12/schema"


def _label(label, lang) -> str | None:
    return None if label is None else (label.show("", lang) or None)


def _base(model, name: str) -> dict:
    if name == "Int":
        return {"type": "integer"}
    if name == "Bool":
        return {"type": "boolean"}
    if name in ("Text",):
        return {"type": "string"}
    d = model.decls.get(name)
    if isinstance(d, A.EnumDecl):
        return {"enum": [m.name for m in d.members]}
    if isinstance(d, A.RecordDecl):
        return {"type": "string", "description": f"the id of a {name} in this state"}
    if isinstance(d, A.DieDecl):
        return {"type": "integer", "minimum": d.low, "maximum": d.high}
    board = board_of(model)
    if d is None and name in ("Facing", "Direction") and board is not None:
        allowed = Board.declared(board).facings(name == "Facing")
        return ({"type": "integer", "minimum": 0, "maximum": 359} if allowed is None
                else {"enum": allowed})
    return {}                 # a type a state file cannot write: state.py reports it


def field_schema(model, f: A.FieldDecl, lang=None) -> dict:
    t = f.type
    if t.kind == "range":
        out = {"type": "integer", "minimum": t.low, "maximum": t.high}
    elif t.kind == "optional range":
        out = {"anyOf": [{"type": "integer", "minimum": t.low, "maximum": t.high},
                         {"type": "null"}, {"const": "none"}]}
    elif t.kind == "optional":
        out = {"anyOf": [_base(model, t.name), {"type": "null"}, {"const": "none"}]}
    elif t.kind == "list":
        out = {"type": "array", "items": _base(model, t.name)}
    elif t.kind in ("union", "optional union"):
        out = {"anyOf": [{"type": "integer"}, _base(model, t.name)]}
        if t.kind == "optional union":
            out["anyOf"] += [{"type": "null"}, {"const": "none"}]
    else:
        out = _base(model, t.name)
    text = _label(f.label, lang)
    out["title"] = f"{f.name}: {A.type_source(t)}"
    if text:
        out["description"] = text
    if f.default is not None:
        out["default"] = _default(f.default)
    return out


def _default(e):
    if isinstance(e, (A.IntLit, A.BoolLit, A.TextLit)):
        return e.value
    if isinstance(e, A.NoneLit):
        return None
    n = A.literal_int(e)
    return n if n is not None else A.to_source(e)


def _required(f: A.FieldDecl) -> bool:
    return f.default is None and not A.optional_type(f.type) and f.type.kind != "list"


def record_schema(model, rec: A.RecordDecl, lang=None) -> dict:
    entity = {"type": "object", "additionalProperties": False,
              "properties": {f.name: field_schema(model, f, lang) for f in rec.fields},
              "required": [f.name for f in rec.fields if _required(f)]}
    out = {"type": "object", "description": f"{rec.name} entities by id",
           "additionalProperties": entity}
    text = _label(rec.label, lang)
    if text:
        out["title"] = text
    return out


def state_schema(model, lang=None) -> dict:
    records = [d for d in model.decls.values() if isinstance(d, A.RecordDecl)]
    return {"$schema": DIALECT,
            "title": f"{model.title.show('', lang)}: a game state",
            "description": "record types, each mapping entity ids to their fields "
                           "(written by drillbook schema)",
            "type": ["object", "null"], "additionalProperties": False,
            "properties": {r.name: record_schema(model, r, lang) for r in records}}
