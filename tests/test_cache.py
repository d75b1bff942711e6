"""The on-disk cache of checked rulebooks: a hit skips the parse, an edit makes the entry
stale, a corrupt entry is ignored and rebuilt, --no-cache neither reads nor writes, and a
cached model prints the same warnings and never hides an error."""
from __future__ import annotations

from pathlib import Path

import pytest

from drillbook import cache, loader
from conftest import ROOT, errors

RULES = """
section 1 "Numbers"
  define base -> Int = 2
  define twice -> Int = base + base

  example "twice"
    expect twice == 4
"""

OVERLAP = """
section 1 "S"
  enum Arm
    Foot
    Horse
  record Unit
    arm: Arm
    fresh: Bool
  define speed(u: Unit) -> Int "speed" = 1
  exception foot to speed "foot" when u.arm == Foot = 2
  exception fresh to speed "fresh" when u.fresh = 3
"""


@pytest.fixture
def cached(tmp_path, monkeypatch):
    where = tmp_path / "cache"
    monkeypatch.setenv("DRILLBOOK_CACHE_DIR", str(where))
    monkeypatch.setattr(cache, "enabled", True)
    return where


def entries(where: Path):
    return sorted((where / "models").glob("*.pickle")) if (where / "models").exists() else []


def no_parsing(monkeypatch):
    def refuse(*a, **k):
        raise AssertionError("parsed although the cache holds this rulebook")
    monkeypatch.setattr(loader, "parse_file", refuse)


def test_a_second_open_is_read_from_the_cache(book, cached, monkeypatch):
    rb = book.write("rb.drill", RULES)
    assert book.run("test", rb).rc == 0 and len(entries(cached)) == 1
    no_parsing(monkeypatch)
    res = book.run("test", rb)
    assert res.rc == 0 and "1 passed" in res.out
    res = book.run("ask", rb, "twice")
    assert res.rc == 0 and res.out.strip() == "4"


def test_an_edited_file_makes_the_entry_stale(book, cached):
    rb = book.write("rb.drill", RULES)
    assert book.run("ask", rb, "twice").out.strip() == "4"
    book.write("rb.drill", RULES.replace("base -> Int = 2", "base -> Int = 5"))
    assert book.run("ask", rb, "twice").out.strip() == "10"
    res = book.run("test", rb)
    assert res.rc == 1 and "1 failed" in res.out


def test_an_edited_used_file_makes_the_entry_stale(book, cached):
    book.write("rulebook.drill", 'use "more.drill"\n' + RULES)
    book.write("more.drill", 'section 2 "More"\n  define extra -> Int = 1\n', header=False)
    assert book.run("ask", ".", "extra + twice").out.strip() == "5"
    book.write("more.drill", 'section 2 "More"\n  define extra -> Int = 7\n', header=False)
    assert book.run("ask", ".", "extra + twice").out.strip() == "11"


def test_a_corrupt_entry_is_ignored_and_rebuilt(book, cached):
    rb = book.write("rb.drill", RULES)
    assert book.run("ask", rb, "twice").rc == 0
    [entry] = entries(cached)
    entry.write_bytes(b"not a pickle at all")
    res = book.run("ask", rb, "twice")
    assert res.rc == 0 and res.out.strip() == "4" and res.err == ""
    assert entry.read_bytes() != b"not a pickle at all"
    entry.write_bytes(entry.read_bytes()[:100])          # truncated
    assert book.run("ask", rb, "twice").out.strip() == "4"


def test_no_cache_neither_reads_nor_writes(book, cached, monkeypatch):
    rb = book.write("rb.drill", RULES)
    assert book.run("ask", rb, "twice", "--no-cache").rc == 0
    assert entries(cached) == []
    assert book.run("ask", rb, "twice").rc == 0 and len(entries(cached)) == 1

    def refuse(entry):
        raise AssertionError("read the cache under --no-cache")
    monkeypatch.setattr(cache, "_read", refuse)
    res = book.run("test", rb, "--no-cache")
    assert res.rc == 0 and "1 passed" in res.out


def test_a_cached_model_prints_the_same_warnings(book, cached, monkeypatch):
    rb = book.write("rb.drill", OVERLAP)
    first = book.run("check", rb)
    assert first.rc == 0 and "warning[W501]" in first.err
    no_parsing(monkeypatch)
    again = book.run("check", rb)
    assert again.rc == 0 and again.err == first.err and again.out == first.out


def test_an_error_is_never_cached(book, cached):
    rb = book.write("rb.drill", RULES.replace("base + base", "base + missing"))
    for _ in range(2):
        res = book.run("check", rb)
        assert res.rc == 1 and [d.code for d in errors(res.err)] == ["E202"]
    assert entries(cached) == []


def test_bundled_rulebooks_answer_the_same_from_the_cache(cached, capsys):
    from drillbook.cli import main
    argv = ["test", str(ROOT / "rulebooks" / "general-de-brigade")]
    assert main(argv) == 0
    first = capsys.readouterr().out
    assert main(argv) == 0
    assert capsys.readouterr().out == first and len(entries(cached)) == 1
