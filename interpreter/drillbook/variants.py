"""Variant stage (between parse and check): a variant file patches a base rulebook by name.

Not implemented yet beyond recognising the header; see issue 4.
"""
from __future__ import annotations

from .errors import Loc, fail
from .loader import read_text


def is_variant(path: str) -> bool:
    import os
    if os.path.isdir(path) or not os.path.isfile(path):
        return False
    try:
        head = read_text(path, Loc(path))
    except Exception:
        return False
    for line in head.splitlines():
        s = line.strip()
        if s and not s.startswith("--"):
            return s.startswith("variant ")
    return False


def load_variant(path: str, where: Loc | None = None):
    fail(where or Loc(path), "E900", "variants are not supported yet", "see issue 4")
