"""Limits (every stage): the explicit bounds on what a rulebook, a state or a question may ask for.

Each limit is refused with a located error that names it (docs/language.md, "Limits"), so that
no input can make drillbook run for ever, exhaust memory or crash on a number Python will not
print.  The numbers live here, in one place, and nowhere else.
"""
from __future__ import annotations

from .errors import Loc, fail

MAX_DIGITS = 18                   # digits of a number written in a rulebook, state or question
MAX_INT = 10 ** MAX_DIGITS - 1    # ... and of a number computed by `*`
MAX_FACES = 1000                  # faces of one die
MAX_DICE = 100                    # dice of one roll (roll 3 d6)
MAX_RANGE = 100_000               # numbers in a table key range or a `for ... from ... to ...`
MAX_WORK = 5_000_000              # rule calls and loop steps of one question
MAX_ODDS_WORK = 1_000_000         # ... of all the runs of one `odds` question together (a run
                                  # re-walks its path: each unit costs more there)
MAX_DEPTH = 100                   # rules calling rules, `use` files using files, nested state
MAX_FILE_BYTES = 16 * 1024 * 1024  # a rulebook or state file
MAX_OUTPUT_BYTES = 64 * 1024 * 1024   # what one command prints
MAX_SECTION_DIGITS = 40           # characters of a section number


def check_digits(text: str, loc: Loc, what: str = "this number") -> int:
    """An integer written in the input, refused (E521) beyond MAX_DIGITS digits."""
    digits = text.lstrip("+-").lstrip("0")
    if len(digits) > MAX_DIGITS:
        fail(loc, "E521", f"{what} has {len(digits)} digits; the limit is {MAX_DIGITS}",
             "numbers in rulebooks, states and questions are at most "
             f"{MAX_DIGITS} digits long")
    return int(text)


def too_big(loc: Loc, value: int) -> None:
    fail(loc, "E521", f"this computes a number beyond the limit of {MAX_DIGITS} digits",
         "no rule of a game needs numbers this large: look for a rule that multiplies "
         "without end")


def check_span(low: int, high: int, loc: Loc, what: str = "this range") -> None:
    if high - low + 1 > MAX_RANGE:
        fail(loc, "E523", f"{what} covers {high - low + 1} numbers; the limit is {MAX_RANGE}",
             "split it, or write the condition as a comparison")


def too_deep(loc: Loc, what: str) -> None:
    fail(loc, "E524", f"{what} nests more than {MAX_DEPTH} levels deep; "
         f"the limit is {MAX_DEPTH}", "flatten the chain")


def too_much_work(loc: Loc, limit: int = MAX_WORK) -> None:
    odds = " (for the odds, in all its runs together)" if limit != MAX_WORK else ""
    fail(loc, "E525", f"this question needs more than {limit:,} rule calls and loop "
         f"steps{odds}; the limit is {limit:,}",
         "ask about fewer things at once, or give some of the rolls and choices")


class Budget:
    """The work one question may do: rule calls and loop steps, counted as they happen.
    Exhausted, it stops evaluation at the last loop or search it counted (or the question)."""
    __slots__ = ("left", "loc", "limit")

    def __init__(self, limit: int = MAX_WORK):
        self.left = self.limit = limit
        self.loc = None

    def spend(self, n: int, loc: Loc | None = None) -> None:
        self.left -= n
        if loc is not None:
            self.loc = loc
        if self.left < 0:
            too_much_work(self.loc or Loc("<question>"), self.limit)
