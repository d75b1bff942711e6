"""Limits and robustness: every failure class of the fuzzing campaign (issue 14) stays fixed.

Generated code Python accepts; none stops located before arithmetic; each limit is refused
with a located error naming it (docs/language.md, "Limits"); special files, deep states and
long chains are refused instead of hanging or overflowing; render and fmt write all or
nothing; output is UTF-8 and a full disk is a clean error.  Rulebook-shaped cases are in
tests/bad/ (e521_*, e522_*, e523_*, e001_after_form_feed...), these are the rest.
"""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from conftest import ROOT, assert_located, assert_no_traceback, errors, run_cli

MP = ROOT / "rulebooks" / "musket-and-pike"
MP_STATE = MP / "states" / "shaken-unit.yaml"


def _ask(*argv, cwd=None):
    return run_cli("ask", *map(str, argv), cwd=cwd)


# ------------------------------------------------------------------ generated code
def test_walrus_never_in_a_comprehension_iterable():
    # the index key 'pikes.wing' is a field read inside the query's iterable
    res = _ask(MP, "count(Unit x where x.wing == pikes.wing)", "--state", MP_STATE)
    assert_no_traceback(res)
    assert res.rc == 0 and res.out.split()[0] == "1", res.err


def test_walrus_never_in_a_for_iterable():
    res = _ask(MP, "sum(1 for v in [pikes.wing.commander, the(Leader x where true)])",
               "--state", MP_STATE)
    assert_no_traceback(res)
    assert res.rc in (0, 1), res.err


def test_walrus_never_in_a_list_of_things(book):
    book.write("rulebook.drill", """\
        section 1 "S"
          record U
            near: list of U
            other: U?
        """)
    (book.root / "s.yaml").write_text("U:\n  a: {near: [a], other: a}\n", encoding="utf-8")
    for q in ("len(a.other.near)", "set a.near to [a.other, a]"):
        res = book.run("ask", "rulebook.drill", q, "--state", "s.yaml")
        assert_no_traceback(res)
        assert res.rc == 0, res.err


def test_flat_sum_is_generated_once_per_term(monkeypatch):
    from drillbook.compile import codegen
    from drillbook.evaluate import Rulebook
    rb = Rulebook.open(str(MP))
    state = rb.state(str(MP_STATE))
    calls = []
    real = codegen._Gen.gen

    def counting(self, e):
        calls.append(1)
        return real(self, e)
    monkeypatch.setattr(codegen._Gen, "gen", counting)
    terms = 50
    ans = rb.ask(" + ".join(["pikes.printed_morale"] * terms), state, trace=False)
    assert ans.value == 7 * terms
    assert len(calls) < 5 * terms      # linear, not 2^terms


def test_none_in_arithmetic_stops_located(book):
    book.write("rulebook.drill", """\
        section 1 "S"
          die d6 faces 1..6
          table t(r: d6) -> Int
            | d6  | v |
            | 1-5 | 1 |
            | 6   | — |
          define total(r: Int) -> Int = t(r) + 1
        """)
    res = book.run("ask", "rulebook.drill", "total(6)")
    assert_located(res, "E604", "none", path="rulebook.drill", line=9)


@pytest.mark.parametrize("question", ["sum(first(v for v from 1 to 0) for w from 1 to 2)",
                                      "first(v for v from 1 to 0) + 1",
                                      "-first(v for v from 1 to 0)"])
def test_none_in_a_sum_stops_located(book, question):
    book.write("rulebook.drill", 'section 1 "S"\n  define a -> Int = 1\n')
    res = book.run("ask", "rulebook.drill", question)
    assert_located(res, "E604", "none here", path="<question>")


def test_product_beyond_the_limit_is_e521(book):
    book.write("rulebook.drill", """\
        section 1 "S"
          define a -> Int = 999999999 * 999999999
          define b -> Int = a * a
        """)
    res = book.run("ask", "rulebook.drill", "b")
    assert_located(res, "E521", "beyond the limit of 18 digits", path="rulebook.drill", line=5)


# ------------------------------------------------------------------ check, render, diff
def test_misspelt_record_in_a_question_is_e201():
    res = _ask(MP, "the(Unitt x where true).morale", "--state", MP_STATE)
    assert_located(res, "E201", "is not a record type", path="<question>", col=5)


def test_huge_number_in_a_question_is_e521():
    res = _ask(MP, "1 + " + "9" * 5000)
    assert_located(res, "E521", "digits; the limit is 18", path="<question>", col=5)


def test_variant_replace_block_with_an_annotation(book):
    book.write("rulebook.drill", """\
        section 1 "S"
          define a -> Int = 1
        """)
    book.write("v.drill", """\
        variant "V" of "rulebook.drill"
        replace a with
          note "why"
          define a -> Int = 2
        """, header=False)
    for argv in (("check", "v.drill"), ("diff", "rulebook.drill", "v.drill"),
                 ("render", "rulebook.drill", "-o", "site", "--variant", "v.drill")):
        res = book.run(*argv)
        assert_no_traceback(res)
        assert res.rc in (0, 1), res.err


def test_diff_of_a_variant_with_a_huge_number(book):
    book.write("rulebook.drill", """\
        section 1 "S"
          define a -> Int = 1
        """)
    book.write("v.drill", 'variant "V" of "rulebook.drill"\nreplace a with\n'
               '  define a -> Int = ' + "7" * 4400 + "\n", header=False)
    res = book.run("diff", "rulebook.drill", "v.drill")
    assert_located(res, "E521", "digits", path="v.drill", line=3)


def test_empty_variant_argument():
    res = run_cli("check", str(MP), "--variant", "")
    assert_no_traceback(res)
    assert res.rc in (1, 2) and errors(res.err), res.err


def test_render_of_a_file_ending_inside_a_block(book, tmp_path):
    book.write("rulebook.drill", 'section 1 "S"\n  define a -> Int = 1\n  define b -> Int = 2')
    res = book.run("render", "rulebook.drill", "-o", "site")
    assert_no_traceback(res)
    assert res.rc == 0, res.err


@pytest.mark.parametrize("out", ["file.txt/site", "x" * 300])
def test_render_into_an_impossible_folder_is_e810(book, out):
    book.write("rulebook.drill", 'section 1 "S"\n  define a -> Int = 1\n')
    (book.root / "file.txt").write_text("x", encoding="utf-8")
    res = book.run("render", "rulebook.drill", "-o", out)
    assert_located(res, "E810", "", path="<command line>", rc=2)


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write into any folder")
def test_render_into_an_unwritable_folder_is_e810(book):
    book.write("rulebook.drill", 'section 1 "S"\n  define a -> Int = 1\n')
    locked = book.root / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        res = book.run("render", "rulebook.drill", "-o", "locked/site")
    finally:
        locked.chmod(0o755)
    assert_located(res, "E810", "cannot write", path="<command line>", rc=2)


# ------------------------------------------------------------------ limits on work
def test_sum_over_a_huge_range_is_e523():
    res = _ask(MP, "sum(1 for x from 0 to 100000000000)")
    assert_located(res, "E523", "the limit is 100000", path="<question>")


def test_nested_loops_run_out_of_work_e525():
    res = _ask(MP, "sum(sum(1 for y from 1 to 100000) for x from 1 to 100000)")
    assert_located(res, "E525", "the limit is 5,000,000", path="<question>")


def test_rules_are_memoised_per_question(book):
    lines = ["section 1 \"S\"", "  define r0(n: Int) -> Int = n + 1"]
    for i in range(1, 41):
        lines.append(f"  define r{i}(n: Int) -> Int = r{i - 1}(n) + r{i - 1}(n)")
    book.write("rulebook.drill", "\n".join(lines) + "\n")
    res = book.run("ask", "rulebook.drill", "r40(0)")
    assert res.rc == 0 and res.out.split()[0] == str(2 ** 40), res.err
    res = book.run("explain", "rulebook.drill", "r40(0)")     # traced: linear too
    assert res.rc == 0 and len(res.out) < 100_000, res.err


def test_odds_over_many_choices_stop_at_the_outcome_limit(book):
    book.write("rulebook.drill", """\
        section 1 "S"
          record T
            n: Int
          define pick -> Int = (choose a from T x where true).n + (choose b from T x where true).n + (choose c from T x where true).n
        """)
    state = "T:\n" + "".join(f"  t{i}: {{n: {i}}}\n" for i in range(100))
    (book.root / "s.yaml").write_text(state, encoding="utf-8")
    res = book.run("odds", "rulebook.drill", "pick", "--state", "s.yaml")
    assert_no_traceback(res)
    assert res.rc in (0, 1), res.err
    if res.rc == 1:
        assert any(d.code in ("E802", "E525") for d in errors(res.err)), res.err


def _rolling_units(book, units: int):
    """A rulebook whose units each roll a d6 (``hits`` counts the hits; ``busy`` also does
    about 100 loop steps per unit, as many as 99 + its face: a loop's length reads the
    face, so odds replay every face of it instead of counting faces alike once), and a
    state of ``units`` of them."""
    book.write("rulebook.drill", """\
        section 1 "S"
          die d6 faces 1..6
          record U
            n: Int
          check hit(u: U) = roll d6 at least 4
          define hits -> Int = count(U u where hit(u).passed)
          define busy -> Int = count(U u where sum(x for x from 1 to 99 + hit(u).roll) > 0 and hit(u).passed)
        """)
    state = "U:\n" + "".join(f"  u{i}: {{n: {i}}}\n" for i in range(units))
    (book.root / "s.yaml").write_text(state, encoding="utf-8")


def test_odds_that_foresee_far_too_many_outcomes_stop_early(book):
    """Twenty units each rolling a d6: 6^20 outcomes.  The first thousand replays foresee
    far more than the limit, and the enumeration stops there, saying so (E802), instead of
    working through 200,000 replays first."""
    _rolling_units(book, 20)
    res = book.run("odds", "rulebook.drill", "hits", "--state", "s.yaml")
    assert_no_traceback(res)
    assert res.rc == 1 and [d.code for d in errors(res.err)] == ["E802"], res.err
    assert "foresee about" in res.err, res.err


def test_odds_that_foresee_few_outcomes_are_enumerated(book):
    """Five units: 6^5 = 7,776 faces, 32 outcomes of the count; exact, not refused."""
    _rolling_units(book, 5)
    res = book.run("odds", "rulebook.drill", "hits", "--state", "s.yaml")
    assert res.rc == 0, res.err
    assert "1/32" in res.out and "5/32" in res.out, res.out


def test_odds_have_a_smaller_budget_of_work_than_one_run(book):
    """Five units rolling (7,776 replays), each replay doing 500 loop steps: 3.9 million
    in all, within one question's 5,000,000 but past the 1,000,000 all the runs of one
    odds question may share (a run costs more per step), so odds stop with E525 in a few
    seconds; the same question with the rolls given is answered."""
    _rolling_units(book, 5)
    res = book.run("odds", "rulebook.drill", "busy", "--state", "s.yaml")
    assert_no_traceback(res)
    assert res.rc == 1 and [d.code for d in errors(res.err)] == ["E525"], res.err
    assert "1,000,000" in res.err and "for the odds" in res.err, res.err
    res = book.run("ask", "rulebook.drill", "busy", "--state", "s.yaml",
                   "--roll", "d6=4,4,1,1,6")
    assert res.rc == 0 and res.out.split()[0] == "3", res.err


def test_a_line_of_5000_unknown_names_is_reported_quickly(book):
    book.write("rulebook.drill", 'section 1 "S"\n  define a -> Int = '
               + " + ".join(f"n{i}" for i in range(5000)) + "\n")
    res = book.run("check", "rulebook.drill")
    assert_no_traceback(res)
    assert res.rc == 1 and errors(res.err), res.err[:2000]


@pytest.mark.parametrize("what, count", [("rules", 2000), ("exceptions", 2000)])
def test_long_chains_are_refused_e524(book, what, count):
    lines = ['section 1 "S"', "  define r0 -> Int = 0"]
    for i in range(1, count):
        if what == "rules":
            lines.append(f"  define r{i} -> Int = r{i - 1} + 1")
        else:
            target = "r0" if i == 1 else f"e{i - 1}"
            lines.append(f"  exception e{i} to {target} when true = {i}")
    book.write("rulebook.drill", "\n".join(lines) + "\n")
    res = book.run("check", "rulebook.drill")
    assert_located(res, "E524", "the limit is 100", path="rulebook.drill", count=None)


def test_a_chain_of_used_files_is_refused_e524(book):
    book.write("rulebook.drill", 'use "f1.drill"\nsection 1 "S"\n  define a -> Int = 1\n')
    for i in range(1, 1200):
        (book.root / f"f{i}.drill").write_text(f'use "f{i + 1}.drill"\n', encoding="utf-8")
    (book.root / "f1200.drill").write_text("", encoding="utf-8")
    res = book.run("check", "rulebook.drill")
    assert_located(res, "E524", "files using files", count=None)


# ------------------------------------------------------------------ files and states
@pytest.mark.parametrize("special", ["/dev/zero", "fifo"])
def test_special_state_files_are_refused_e526(book, special):
    if special == "fifo":
        os.mkfifo(book.root / "fifo")
    book.write("rulebook.drill", 'section 1 "S"\n  define a -> Int = 1\n')
    res = book.run("ask", "rulebook.drill", "a", "--state", special)
    assert_located(res, "E526", "regular files only", path="<command line>", rc=2)


def test_check_of_a_device_is_refused_e526():
    res = run_cli("check", "/dev/zero")
    assert_located(res, "E526", "regular files only", path="<command line>", rc=2)


def test_a_deeply_nested_state_is_refused_located(book):
    book.write("rulebook.drill", 'section 1 "S"\n  record T\n    n: Int\n  define a -> Int = 1\n')
    (book.root / "s.yaml").write_text("T:\n  t1: {n: " + "[" * 100_000 + "]" * 100_000 + "}\n",
                                      encoding="utf-8")
    res = book.run("ask", "rulebook.drill", "a", "--state", "s.yaml")
    d = assert_located(res, "E524", "this state file", path="s.yaml")
    assert d.line == 2


def test_state_number_with_5000_digits_is_e521(book):
    book.write("rulebook.drill", 'section 1 "S"\n  record T\n    n: Int\n  define a -> Int = 1\n')
    (book.root / "s.yaml").write_text("T:\n  t1: {n: " + "9" * 5000 + "}\n", encoding="utf-8")
    res = book.run("ask", "rulebook.drill", "a", "--state", "s.yaml")
    assert_located(res, "E521", "digits", path="s.yaml", line=2)


def test_state_with_a_form_feed_is_located_on_its_line(book):
    book.write("rulebook.drill", 'section 1 "S"\n  record T\n    n: Int\n  define a -> Int = 1\n')
    (book.root / "s.yaml").write_text("# one\n# two \f\nT:\n  t1: {n: oops}\n", encoding="utf-8")
    res = book.run("ask", "rulebook.drill", "a", "--state", "s.yaml")
    assert_located(res, "E701", "", path="s.yaml", line=2)


def test_output_beyond_the_limit_is_e527(book, monkeypatch):
    from drillbook import output
    monkeypatch.setattr(output, "MAX_OUTPUT_BYTES", 1000)
    book.write("rulebook.drill", 'section 1 "S"\n  record T\n    xs: list of Int\n'
               '  define a -> Int = 1\n')
    (book.root / "s.yaml").write_text("T:\n  t1: {xs: [" + ", ".join(["12345"] * 2000) + "]}\n",
                                      encoding="utf-8")
    res = book.run("ask", "rulebook.drill", "t1.xs", "--state", "s.yaml")
    assert_located(res, "E527", "the limit is 1,000", path="<command line>")


# ------------------------------------------------------------------ writing files
def test_render_failing_midway_leaves_the_old_site(book, monkeypatch):
    book.write("rulebook.drill", 'section 1 "S"\n  define a -> Int = 1\n')
    assert book.run("render", "rulebook.drill", "-o", "site").rc == 0
    before = sorted(os.listdir(book.root / "site"))
    index = (book.root / "site" / "index.html").read_text(encoding="utf-8")
    import builtins
    real_open, opened = builtins.open, []

    def failing_open(path, mode="r", *a, **k):
        if "w" in mode and ".render-" in str(path):
            opened.append(path)
            if len(opened) > 2:
                raise OSError(28, "No space left on device")
        return real_open(path, mode, *a, **k)
    monkeypatch.setattr(builtins, "open", failing_open)
    res = book.run("render", "rulebook.drill", "-o", "site")
    monkeypatch.undo()
    assert_located(res, "E810", "No space left", path="<command line>", rc=2)
    assert sorted(os.listdir(book.root / "site")) == before
    assert (book.root / "site" / "index.html").read_text(encoding="utf-8") == index
    assert not [n for n in os.listdir(book.root) if ".render-" in n]


def test_render_swaps_the_site_in_with_one_rename(tmp_path):
    from drillbook import atomic
    old, new = tmp_path / "site", tmp_path / "new"
    old.mkdir()
    (old / "a").write_text("old", encoding="utf-8")
    new.mkdir()
    (new / "a").write_text("new", encoding="utf-8")
    assert atomic._exchange(str(new), str(old))      # this system exchanges in one call
    assert (old / "a").read_text(encoding="utf-8") == "new"
    assert (new / "a").read_text(encoding="utf-8") == "old"


MESSY = 'rulebook "T" edition "1" languages en\nsection 1 "S"\n    define a -> Int = 1\n'


def test_fmt_writes_all_files_or_none(tmp_path, monkeypatch):
    from drillbook import fmt
    a, b = tmp_path / "a.drill", tmp_path / "b.drill"
    a.write_text(MESSY, encoding="utf-8")
    b.write_text(MESSY, encoding="utf-8")
    real = fmt._stage

    def second_fails(path, text):
        if path.endswith("b.drill"):
            raise OSError(28, "No space left on device")
        return real(path, text)
    monkeypatch.setattr(fmt, "_stage", second_fails)
    res = run_cli("fmt", str(a), str(b))
    assert_located(res, "E010", "no file was changed", count=None)
    assert a.read_text(encoding="utf-8") == MESSY and b.read_text(encoding="utf-8") == MESSY
    assert sorted(os.listdir(tmp_path)) == ["a.drill", "b.drill"]


def test_fmt_of_a_folder_never_follows_a_symlink_out_of_it(tmp_path):
    outside = tmp_path / "outside.drill"
    outside.write_text(MESSY, encoding="utf-8")
    folder = tmp_path / "book"
    folder.mkdir()
    (folder / "link.drill").symlink_to(outside)
    (folder / "own.drill").write_text(MESSY, encoding="utf-8")
    res = run_cli("fmt", str(folder))
    assert res.rc == 0, res.err
    assert outside.read_text(encoding="utf-8") == MESSY          # untouched
    assert (folder / "own.drill").read_text(encoding="utf-8") != MESSY


# ------------------------------------------------------------------ environments
def test_russian_labels_with_an_ascii_locale():
    env = dict(os.environ, LC_ALL="C", LANG="C", PYTHONIOENCODING="ascii",
               PYTHONPATH=str(ROOT / "interpreter"))
    p = subprocess.run([sys.executable, "-m", "drillbook", "explain", str(MP),
                        "morale_check(pikes)", "--state", str(MP_STATE), "--roll", "d10=3",
                        "--lang", "ru"], capture_output=True, env=env, timeout=120)
    assert p.returncode == 0, p.stderr.decode("utf-8", "replace")
    assert "Решение".encode("utf-8") in p.stdout


def test_a_full_stdout_is_a_clean_error():
    with open("/dev/full", "w") as full:
        env = dict(os.environ, PYTHONPATH=str(ROOT / "interpreter"))
        p = subprocess.run([sys.executable, "-m", "drillbook", "check", str(MP)],
                           stdout=full, stderr=subprocess.PIPE, text=True, env=env, timeout=120)
    assert p.returncode == 1, p.stderr
    assert "error[E804]" in p.stderr and "E999" not in p.stderr, p.stderr
    assert "Traceback" not in p.stderr and "Exception ignored" not in p.stderr, p.stderr


# ------------------------------------------------------------------ what must stay true
def test_python_tags_in_a_state_run_nothing(book, tmp_path):
    marker = tmp_path / "ran"
    book.write("rulebook.drill", 'section 1 "S"\n  record T\n    n: Int\n  define a -> Int = 1\n')
    (book.root / "s.yaml").write_text(
        f"T:\n  t1: !!python/object/apply:os.system ['touch {marker}']\n", encoding="utf-8")
    res = book.run("ask", "rulebook.drill", "a", "--state", "s.yaml")
    assert_no_traceback(res)
    assert res.rc == 1 and not marker.exists()


def test_limits_are_documented_with_their_codes():
    from drillbook import limits
    doc = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")
    assert "## Limits" in doc
    for code in ("E521", "E522", "E523", "E524", "E525", "E526", "E527", "E804"):
        assert f"| {code} |" in doc, code
    for value in (limits.MAX_DIGITS, limits.MAX_FACES, limits.MAX_DICE, limits.MAX_DEPTH):
        assert str(value) in doc
    assert f"{limits.MAX_RANGE:,}" in doc and f"{limits.MAX_WORK:,}" in doc
    assert f"{limits.MAX_ODDS_WORK:,}" in doc


def test_the_same_seed_gives_the_same_output_across_processes_and_hash_seeds():
    outs = set()
    for hash_seed in ("0", "1", "12345"):
        env = dict(os.environ, PYTHONHASHSEED=hash_seed, PYTHONPATH=str(ROOT / "interpreter"))
        p = subprocess.run([sys.executable, "-m", "drillbook", "explain", str(MP),
                            "morale_check(pikes)", "--state", str(MP_STATE), "--seed", "7"],
                           capture_output=True, text=True, env=env, timeout=120)
        assert p.returncode == 0, p.stderr
        outs.add(p.stdout)
    assert len(outs) == 1
