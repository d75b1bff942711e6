"""Fuzzing, the bounded budget that runs with every ``python -m pytest``.

Hypothesis draws the random choices of the grammar-aware generators of ``gen.py`` (so a
failure shrinks to a small case), and each case must pass every oracle of ``fuzzlib``.
With ``CI=true`` the budget is about three minutes on this machine ("ci" profile); locally
it is a few seconds ("dev").  ``python tests/fuzz/campaign.py --minutes N`` runs longer.
"""
from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fuzzlib
import gen

COMMON = dict(deadline=None, database=None, derandomize=True, print_blob=True,
              suppress_health_check=list(HealthCheck))
settings.register_profile("ci", **COMMON)
settings.register_profile("dev", **COMMON)
CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
# cases per generator: (ci, dev); about 90 s of CPU time in all with CI=true (3 minutes of
# wall clock when other work shares the 2 cores)
BUDGET = {"question": (1200, 30), "small-rulebook": (400, 10), "cli-question": (3, 1),
          "rulebook": (15, 1), "state": (6, 1), "argv": (60, 4)}


def _examples(kind):
    return settings(settings.get_profile("ci" if CI else "dev"),
                    max_examples=BUDGET[kind][0 if CI else 1])


def _run(kind, rng):
    case = gen.GENERATORS[kind](rng)
    fails = fuzzlib.run_case(case)
    assert not fails, (f"{case}\n" + "\n".join(f"{f.kind}: {f.signature}\n{f.detail}"
                                               for f in fails))


@_examples("question")
@given(st.randoms(use_true_random=False))
def test_well_typed_questions(rng):
    _run("question", rng)


@_examples("cli-question")
@given(st.randoms(use_true_random=False))
def test_questions_on_the_command_line(rng):
    _run("cli-question", rng)


@_examples("small-rulebook")
@given(st.randoms(use_true_random=False))
def test_mutated_small_rulebooks(rng):
    _run("small-rulebook", rng)


@_examples("rulebook")
@given(st.randoms(use_true_random=False))
def test_mutated_rulebooks_and_variants(rng):
    _run("rulebook", rng)


@_examples("state")
@given(st.randoms(use_true_random=False))
def test_mutated_states(rng):
    _run("state", rng)


@_examples("argv")
@given(st.randoms(use_true_random=False))
def test_command_lines(rng):
    _run("argv", rng)
