"""Fuzzing, regressions: every reproducer the campaign saved in tests/fuzz/found/ passes.

Each ``found/*.json`` holds a shrunk case and the failure it once showed; the case is run
again under every oracle of ``fuzzlib`` and must now pass them all.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import fuzzlib

FOUND = sorted((Path(__file__).parent / "found").glob("*.json"))


@pytest.mark.parametrize("path", FOUND, ids=[p.stem for p in FOUND])
def test_reproducer_now_passes(path):
    saved = json.loads(path.read_text(encoding="utf-8"))
    fails = fuzzlib.run_case(saved["case"])
    assert not fails, "\n".join(f"{f.kind}: {f.signature}\n{f.detail}" for f in fails)


def test_there_are_reproducers():
    assert FOUND, "tests/fuzz/found/ holds the failures the campaign found and shrank"
