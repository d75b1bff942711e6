"""Fuzzing, generators: grammar-aware random cases built from the bundled rulebooks.

Every generator takes a ``random.Random`` and returns a *case*: a plain dict that says which
files to write (``base`` names a bundled folder to copy first, ``files`` overrides or adds
texts), which command lines to run, and which oracles apply beyond the ones every run obeys
(``fuzzlib.run_case``).  A case is JSON, so a failure is saved as it is and replayed.

- ``question_case``: a well-typed question, generated from the checker's own types of a
  rulebook's rules, tables, records, levels and of a state's things; asked with and without
  a trace, as odds, as a ruling.
- ``rulebook_case``: a bundled rulebook or variant with line and token edits, indentation,
  control characters, line endings, huge numbers; checked, tested, formatted, rendered.
- ``state_case``: a state file with wrong types, references, nesting, aliases, encodings.
- ``argv_case``: command lines for every subcommand, made of plausible and strange words.
"""
from __future__ import annotations

import functools
import os
import random
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RULEBOOKS = ROOT / "rulebooks"
GOOD = ROOT / "tests" / "good"


# ------------------------------------------------------------------ what there is to fuzz
def bundled() -> list[str]:
    """Bundled rulebook folders, relative to the repository (``rulebooks/NAME``)."""
    return sorted(f"rulebooks/{p.name}" for p in RULEBOOKS.iterdir()
                  if (p / "rulebook.drill").is_file())


def states_of(book: str) -> list[str]:
    folder = ROOT / book / "states"
    return sorted(p.name for p in folder.glob("*.y*ml")) if folder.is_dir() else []


def variants_of(book: str) -> list[str]:
    folder = ROOT / book / "variants"
    return sorted(p.name for p in folder.glob("*.drill")) if folder.is_dir() else []


def drill_files(book: str) -> list[str]:
    folder = ROOT / book
    return sorted(str(p.relative_to(folder)) for p in folder.glob("*.drill"))


@functools.lru_cache(maxsize=None)
def opened(book: str, state: str | None = None):
    """(Rulebook, State) of a bundled rulebook, opened once per process (from the root)."""
    from drillbook.evaluate import Rulebook
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        rb = opened(book)[0] if state is not None else Rulebook.open(book)
        st = rb.state(f"{book}/states/{state}" if state else None)
    finally:
        os.chdir(cwd)
    return rb, st


class Vocabulary:
    """What a rulebook (with one state) offers a question: callables with their parameter
    and result types, levels, record fields, things of the state, options, dice."""

    def __init__(self, book: str, state: str | None):
        from drillbook import ast as A
        from drillbook.check.exprs import Typer
        rb, st = opened(book, state)
        m = rb.model
        typer = Typer(m, [])
        self.levels = {n: [x.name for x in e.members] for n, e in m.of_kind(A.EnumDecl).items()}
        self.scales = {n for n, e in m.of_kind(A.EnumDecl).items()
                       if getattr(e, "ordered", False) or type(e).__name__ == "EnumDecl"
                       and getattr(e, "kind", "") == "scale"}
        self.records = {r: dict(f) for r, f in m.record_types.items()}
        self.calls = []           # (name, [param Ty], result Ty)
        for name, d in m.decls.items():
            if not isinstance(d, (A.Define, A.TableDecl, A.ModifiersDecl, A.CheckDecl,
                                  A.RequirementsDecl, A.ProcedureDecl)):
                continue
            if isinstance(d, A.TableDecl) and name not in m.tables:
                continue
            result = m.returns.get(name)
            if result is None:
                continue
            params = [typer.type_ref(p.type) for p in (d.params or [])]
            self.calls.append((name, params, result))
        self.entities = {}        # record type -> ids
        for ident, ent in st.entities.items():
            self.entities.setdefault(ent.type, []).append(ident)
        self.options = sorted(m.of_kind(A.OptionDecl))
        self.dice = {n: (d.low, d.high) for n, d in m.of_kind(A.DieDecl).items()}


@functools.lru_cache(maxsize=None)
def vocabulary(book: str, state: str | None) -> Vocabulary:
    return Vocabulary(book, state)


# ------------------------------------------------------------------ well-typed questions
class Questions:
    """Random expressions of a wanted type, from a vocabulary (``Ty`` kinds of the checker)."""

    def __init__(self, voc: Vocabulary, rng: random.Random):
        self.v, self.r = voc, rng
        self.locals: list[tuple[str, object]] = []
        self.fresh = 0

    def pick(self, seq):
        return seq[self.r.randrange(len(seq))]

    def gen(self, ty, depth=0) -> str:
        kind = ty.kind
        if depth > 3 or self.r.random() < 0.15 * depth:
            return self.leaf(ty)
        maker = getattr(self, "g_" + kind, None)
        if maker is None:
            return self.leaf(ty)
        return maker(ty, depth + 1)

    # leaves: literals, names, fields of things
    def leaf(self, ty) -> str:
        kind, r = ty.kind, self.r
        mine = [n for n, t in self.locals if t == ty]
        if mine and r.random() < 0.5:
            return self.pick(mine)
        if kind in ("int", "union"):
            if kind == "union" and r.random() < 0.3 and self.v.levels.get(ty.name):
                return self.pick(self.v.levels[ty.name])
            return str(self.pick([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, -1, -3, 100,
                                  r.randrange(-20, 21), 10 ** r.randrange(1, 25)]))
        if kind == "bool":
            return self.pick(["true", "false"] + self.v.options)
        if kind == "enum":
            return self.pick(self.v.levels.get(ty.name) or ["none"])
        if kind == "record":
            ids = self.v.entities.get(ty.name)
            if ids:
                return self.pick(ids)
            return f"the({ty.name} x where true)"
        if kind == "opt":
            return "none" if r.random() < 0.3 else self.leaf(ty.inner)
        if kind == "list":
            return "[" + ", ".join(self.leaf(ty.inner) for _ in range(r.randrange(3))) + "]"
        if kind == "range":
            a = r.randrange(-2, 12)
            return f"{a}..{a + r.randrange(-1, 8)}"
        if kind == "text":
            return self.pick(['"x"', '"Пики"', '"a\\"b"', '"__import__(\'os\')"', '""'])
        if kind == "effects":
            return "nothing"
        return self.fallback(ty)

    def fallback(self, ty) -> str:
        """Anything of type ``ty`` the vocabulary can make, else a literal."""
        calls = [c for c in self.v.calls if c[2] == ty]
        if calls:
            return self.call(self.pick(calls), 3)
        fields = self.fields_of(ty)
        if fields:
            return self.pick(fields)
        return "none"

    def fields_of(self, ty, depth=3) -> list[str]:
        from drillbook.check.types import Ty
        out = []
        for rec, fields in self.v.records.items():
            for f, t in fields.items():
                if t == ty or (t.kind == "opt" and t.inner == ty and self.r.random() < 0.5):
                    subject = self.leaf(Ty("record", rec)) if depth > 2 else self.gen(
                        Ty("record", rec), depth)
                    out.append(f"{subject}.{f}")
        return out

    def call(self, c, depth) -> str:
        name, params, _ = c
        if not params:
            return f"{name}()" if self.r.random() < 0.9 else name
        return f"{name}({', '.join(self.gen(p, depth) for p in params)})"

    def some(self, ty, depth, own):
        """``own`` ways of making ``ty`` beside calls, fields and leaves."""
        r = self.r
        ways = list(own)
        calls = [c for c in self.v.calls if c[2] == ty]
        if calls:
            ways += [lambda: self.call(self.pick(calls), depth)] * 3
        fields = self.fields_of(ty, depth)
        if fields:
            ways += [lambda: self.pick(fields)] * 2
        ways.append(lambda: self.leaf(ty))
        ways.append(lambda: f"if {self.gen(BOOL(), depth)} then {self.gen(ty, depth)} "
                            f"else {self.gen(ty, depth)}")
        return r.choice(ways)()

    def local(self, ty) -> str:
        self.fresh += 1
        name = f"v{self.fresh}"
        self.locals.append((name, ty))
        return name

    def each(self, element_ty, depth, body) -> str:
        from drillbook.check.types import INT, Ty
        r = self.r
        lists = [(rec, f, t) for rec, fs in self.v.records.items() for f, t in fs.items()
                 if t.kind == "list"]
        if lists and r.random() < 0.4:
            rec, f, t = self.pick(lists)
            var = self.local(t.inner)
            source = f"in {self.gen(Ty('record', rec), depth)}.{f}"
        else:
            var = self.local(INT)
            lo = self.gen(INT, depth + 2)
            hi = self.pick([lo, str(r.randrange(0, 12)), self.gen(INT, depth + 2),
                            "100000000000"])
            source = f"from {lo} to {hi}"
        cond = f" if {self.gen(BOOL(), depth)}" if r.random() < 0.4 else ""
        text = f"{body(depth)} for {var} {source}{cond}"
        self.locals.pop()
        return text

    def query(self, depth) -> tuple[str, str]:
        from drillbook.check.types import Ty
        rec = self.pick(sorted(self.v.records))
        var = self.local(Ty("record", rec))
        text = f"{rec} {var} where {self.gen(BOOL(), depth)}"
        self.locals.pop()
        return rec, text

    # one maker per kind
    def g_int(self, ty, d):
        from drillbook.check.types import CHECK
        g = self.gen
        checks = [c for c in self.v.calls if c[2] == CHECK]
        lists = [t for fs in self.v.records.values() for t in fs.values() if t.kind == "list"]
        own = [lambda: f"{g(ty, d)} + {g(ty, d)}", lambda: f"{g(ty, d)} - {g(ty, d)}",
               lambda: f"{g(ty, d)} * {g(ty, d)}", lambda: f"-{g(ty, d)}",
               lambda: f"({g(ty, d)})", lambda: f"abs({g(ty, d)})",
               lambda: f"min({g(ty, d)}, {g(ty, d)})", lambda: f"max({g(ty, d)}, {g(ty, d)})",
               lambda: f"count({self.query(d)[1]})",
               lambda: f"sum({self.each(ty, d, lambda dd: g(ty, dd))})",
               lambda: self.let(ty, d), lambda: f"len({self.list_each(d)})",
               lambda: f"first({self.each(ty, d, lambda dd: g(ty, dd))})",
               lambda: f"{self.list_each(d)}[{g(ty, d)}]"]
        if self.v.dice:
            own.append(lambda: f"roll {self.pick(sorted(self.v.dice))}")
        if checks:
            own.append(lambda: f"{self.call(self.pick(checks), d)}."
                               f"{self.pick(['roll', 'total', 'passed_by', 'failed_by'])}")
        if lists:
            own.append(lambda: f"len({g(self.pick(lists), d)})")
        return self.some(ty, d, own)

    def let(self, ty, d) -> str:
        """``(let v = VALUE : BODY)``, the body of type ``ty`` may read v."""
        from drillbook.check.types import INT
        value = self.gen(INT, d)
        var = self.local(INT)
        body = self.gen(ty, d)
        self.locals.pop()
        return f"(let {var} = {value} : {body})"

    def list_each(self, d) -> str:
        from drillbook.check.types import INT
        return "[" + self.each(INT, d, lambda dd: self.gen(INT, dd)) + "]"

    def g_union(self, ty, d):
        from drillbook.check.types import INT
        return self.some(ty, d, [lambda: self.gen(INT, d)])

    def g_bool(self, ty, d):
        from drillbook.check.types import CHECK, INT, VERDICT, Ty
        g, r = self.gen, self.r
        own = [lambda: f"{g(INT, d)} {self.pick(['<', '<=', '==', '!=', '>', '>='])} {g(INT, d)}",
               lambda: f"{g(ty, d)} and {g(ty, d)}", lambda: f"{g(ty, d)} or {g(ty, d)}",
               lambda: f"not {g(ty, d)}", lambda: f"exists({self.query(d)[1]})",
               lambda: f"len(all({self.query(d)[1]})) > {g(INT, d)}",
               lambda: f"every({self.each(ty, d, lambda dd: g(ty, dd))})",
               lambda: f"some({self.each(ty, d, lambda dd: g(ty, dd))})"]
        enums = sorted(self.v.levels)
        if enums:
            def level_test():
                e = Ty("enum", self.pick(enums))
                if r.random() < 0.5:
                    return f"{g(e, d)} == {self.leaf(e)}"
                return f"{g(e, d)} in [{self.leaf(e)}, {self.leaf(e)}]"
            own.append(level_test)
        opts = [t for fs in self.v.records.values() for t in fs.values() if t.kind == "opt"]
        if opts:
            def none_test():
                t = self.pick(opts)
                fields = self.fields_of(t, d)
                what = self.pick(fields) if fields else self.leaf(t)
                return f"{what} is {'not ' if r.random() < 0.5 else ''}none"
            own.append(none_test)
        checks = [c for c in self.v.calls if c[2] == CHECK]
        if checks:
            own.append(lambda: f"{self.call(self.pick(checks), d)}."
                               f"{self.pick(['passed', 'failed', 'rolled'])}")
        verdicts = [c for c in self.v.calls if c[2] == VERDICT]
        if verdicts:
            own.append(lambda: f"{self.call(self.pick(verdicts), d)}."
                               f"{self.pick(['allowed', 'refused'])}")
        return self.some(ty, d, own)

    def g_enum(self, ty, d):
        g = self.gen
        own = [lambda: f"next({g(ty, d)})", lambda: f"prev({g(ty, d)})",
               lambda: f"max({g(ty, d)}, {g(ty, d)})"]
        return self.some(ty, d, own)

    def g_record(self, ty, d):
        own = [lambda: f"the({ty.name} {self._the_body(ty, d)})"]
        return self.some(ty, d, own)

    def _the_body(self, ty, d):
        var = self.local(ty)
        text = f"{var} where {self.gen(BOOL(), d)}"
        self.locals.pop()
        return text

    def g_opt(self, ty, d):
        return self.some(ty, d, [lambda: self.gen(ty.inner, d), lambda: "none"])

    def g_list(self, ty, d):
        return self.some(ty, d, [lambda: "[" + ", ".join(self.gen(ty.inner, d)
                                                         for _ in range(self.r.randrange(4))) + "]"])

    def g_effects(self, ty, d):
        from drillbook.check.types import INT, Ty
        g = self.gen
        own = [lambda: f"[{g(ty, d)}, {g(ty, d)}]", lambda: f"({g(ty, d)} then {g(ty, d)})",
               lambda: self.let(ty, d)]
        recs = sorted(r for r in self.v.records if self.v.entities.get(r))
        if recs:
            def for_each():
                rec = self.pick(recs)
                var = self.local(Ty("record", rec))
                text = f"(for each {var} {rec} where {g(BOOL(), d)} : {g(ty, d)})"
                self.locals.pop()
                return text
            own.append(for_each)
        int_fields = [(rec, f) for rec, fs in self.v.records.items() for f, t in fs.items()
                      if t.kind == "int"]
        if int_fields:
            def add():
                rec, f = self.pick(int_fields)
                return f"add {g(INT, d)} to {self.leaf(Ty('record', rec))}.{f}"
            own.append(add)
        any_fields = [(rec, f, t) for rec, fs in self.v.records.items() for f, t in fs.items()]
        if any_fields:
            def set_():
                rec, f, t = self.pick(any_fields)
                return f"set {self.leaf(Ty('record', rec))}.{f} to {g(t, d)}"
            own.append(set_)
        return self.some(ty, d, own)


def BOOL():
    from drillbook.check.types import BOOL as B
    return B


def question_case(rng: random.Random, cli: bool = False) -> dict:
    """A well-typed question (sometimes edited into an ill-typed one) with its inputs.  Run
    through the API on a rulebook opened once (fast), or, with ``cli``, as command lines."""
    book = rng.choice(bundled())
    states = states_of(book)
    state = rng.choice(states) if states and rng.random() < 0.9 else None
    voc = vocabulary(book, state)
    q = Questions(voc, rng)
    from drillbook.check.types import BOOL as B, CHECK, EFFECTS, INT, Ty
    wanted = [c[2] for c in voc.calls] + [INT, B, CHECK] + [Ty("enum", e) for e in voc.levels]
    ty = rng.choice(wanted)
    if ty.kind == "effects" and rng.random() < 0.2:
        text = f"after {q.gen(EFFECTS)} : {q.gen(B)}"
    else:
        text = q.gen(ty)
    if rng.random() < 0.05:          # an edit that makes it ill-typed or ill-formed
        text = mutate_text(rng, text, tokens=TOKENS)
    rolls = {}
    for die, (low, high) in sorted(voc.dice.items()):
        if rng.random() < 0.3:
            rolls[die] = [rng.randint(low, high) for _ in range(rng.randrange(1, 4))]
    options = [f"{o}={rng.choice(['on', 'off'])}" for o in voc.options if rng.random() < 0.2]
    case = {"kind": "question", "book": book, "state": state, "question": text,
            "rolls": rolls, "options": options, "seed": rng.randrange(1000),
            "odds": rng.random() < 0.3, "explain": rng.random() < 0.3,
            "lang": rng.choice([None, None, "ru", "de"])}
    return question_argv(case) if cli else case


def question_argv(q: dict) -> dict:
    """The command lines that ask a question case: ask, ask --json, odds, explain."""
    book = q["book"]
    common = [book, q["question"]] + (["--state", f"{book}/states/{q['state']}"]
                                      if q["state"] else [])
    for die, faces in q["rolls"].items():
        common += ["--roll", f"{die}={','.join(map(str, faces))}"]
    for o in q["options"]:
        common += ["--option", o]
    seed = ["--seed", str(q["seed"])]
    runs = [["ask"] + common + seed, ["ask"] + common + seed + ["--json"]]
    if q["odds"]:
        runs.append(["odds"] + common)
    if q["explain"]:
        runs.append(["explain"] + common + seed + (["--lang", q["lang"]] if q["lang"] else []))
    return {"kind": "cli-question", "base": book, "runs": runs, "oracles": ["trace", "seed"]}


# ------------------------------------------------------------------ mutated text
TOKENS = ["section", "define", "exception", "to", "when", "=", "==", "table", "check", "roll",
          "example", "given", "expect", "use", "if", "then", "else", "none", "is", "not", "and",
          "or", "(", ")", "[", "]", ",", ".", "|", "—", "-", "+", "*", "d6", "Int", "Bool",
          "list of", "->", ":", "?", "1..6", "0", "7", "99999999999999999999999", "9" * 5000,
          '"', '"x"', "\\", "--", "for", "from", "sum", "the", "\t", "\f", "\v", "\x00", "\r",
          "\x1b", "\u2028", "\x85", "\ufeff", "é", "漢", "NA", "Nope", "Int or Nope",
          "for every state", "every", "state", "1..12?", "faces vertices"]
CONTROL = ["\f", "\v", "\x00", "\r", "\x1b", "\x7f", "\u2028", "\u2029", "\x85", "\t", "\ufeff"]


def mutate_text(rng: random.Random, text: str, tokens=TOKENS) -> str:
    """One random edit of ``text``: of a line, a token, indentation, a character."""
    lines = text.split("\n")
    n = len(lines)
    i = rng.randrange(n)
    what = rng.randrange(14)
    if what == 0 and n > 1:
        del lines[i]
    elif what == 1:
        lines.insert(i, lines[rng.randrange(n)])
    elif what == 2 and n > 1:
        j = rng.randrange(n)
        lines[i], lines[j] = lines[j], lines[i]
    elif what == 3:
        lines[i] = " " * rng.choice([1, 2, 3, 4, 8]) + lines[i]
    elif what == 4:
        lines[i] = lines[i].lstrip(" ")[: rng.randrange(0, 3)] + lines[i].lstrip(" ")[2:] \
            if rng.random() < 0.3 else lines[i][rng.choice([1, 2]):]
    elif what == 5:
        lines[i] = rng.choice(["\t", " \t", "\t  "]) + lines[i].lstrip(" ")
    elif what in (6, 7):
        line = lines[i]
        k = rng.randrange(len(line) + 1)
        lines[i] = line[:k] + rng.choice(tokens) + (" " if rng.random() < 0.5 else "") + line[k:]
    elif what == 8:
        words = lines[i].split(" ")
        j = rng.randrange(len(words))
        words[j] = rng.choice(tokens + [w[::-1] for w in words if w] + [words[j][:-1]])
        lines[i] = " ".join(words)
    elif what == 9:
        line = lines[i]
        k = rng.randrange(len(line) + 1)
        lines[i] = line[:k] + rng.choice(CONTROL) + line[k:]
    elif what == 10:
        import re
        nums = list(re.finditer(r"\d+", text))
        if nums:
            m = rng.choice(nums)
            big = "9" * rng.choice([19, 30, 400, 4400, 5000])
            return text[:m.start()] + big + text[m.end():]
    elif what == 11:
        return text.replace("\n", rng.choice(["\r\n", "\r", "\n\f", "\n\v"]))
    elif what == 12:
        return text.rstrip("\n")[: max(1, len(text) - rng.randrange(0, 40))]
    else:
        line = lines[i]
        if line:
            k = rng.randrange(len(line))
            lines[i] = line[:k] + line[k + 1:]
    return "\n".join(lines)


def _read(path: Path) -> str:
    with open(path, encoding="utf-8", newline="") as fh:
        return fh.read()


def small_rulebook_case(rng: random.Random) -> dict:
    """A small good rulebook of the tests, edited, checked and formatted (fast)."""
    good = sorted(p.name for p in GOOD.glob("*.drill"))
    text = _read(GOOD / rng.choice(good))
    for _ in range(rng.randrange(1, 4)):
        text = mutate_text(rng, text)
    runs = [["check", "rulebook.drill"]]
    if rng.random() < 0.2:
        runs.append(["test", "rulebook.drill"])
    return {"kind": "small-rulebook", "files": {"rulebook.drill": text}, "runs": runs,
            "oracles": ["fmt"]}


def rulebook_case(rng: random.Random) -> dict:
    books = bundled()
    if rng.random() < 0.25:                  # a small good rulebook of the tests
        good = sorted(p.name for p in GOOD.glob("*.drill"))
        name = rng.choice(good)
        text = _read(GOOD / name)
        for _ in range(rng.randrange(1, 4)):
            text = mutate_text(rng, text)
        files = {"rulebook.drill": text}
        runs = [["check", "rulebook.drill"], ["test", "rulebook.drill"],
                ["fmt", "--check", "rulebook.drill"]]
        if rng.random() < 0.2:
            runs.append(["render", "rulebook.drill", "-o", "site"])
        return {"kind": "rulebook", "files": files, "runs": runs, "oracles": ["fmt"]}
    book = rng.choice(books)
    variants = variants_of(book)
    files = {}
    if variants and rng.random() < 0.35:
        v = rng.choice(variants)
        rel = f"variants/{v}"
        text = _read(ROOT / book / rel)
        for _ in range(rng.randrange(1, 4)):
            text = mutate_text(rng, text)
        files[f"{book}/{rel}"] = text
        runs = [["check", f"{book}/{rel}"], ["diff", book, f"{book}/{rel}"],
                ["fmt", "--check", f"{book}/{rel}"]]
        if rng.random() < 0.3:
            runs.append(["check", book, "--variant", f"{book}/{rel}"])
        if rng.random() < 0.15:
            runs.append(["render", book, "-o", "site", "--variant", f"{book}/{rel}"])
    else:
        rel = rng.choice(drill_files(book))
        text = _read(ROOT / book / rel)
        for _ in range(rng.randrange(1, 4)):
            text = mutate_text(rng, text)
        files[f"{book}/{rel}"] = text
        runs = [["check", book], ["fmt", "--check", f"{book}/{rel}"]]
        if rng.random() < 0.3:
            runs.append(["test", book])
        if rng.random() < 0.1:
            runs.append(["render", book, "-o", "site"])
    return {"kind": "rulebook", "base": book, "files": files, "runs": runs, "oracles": ["fmt"]}


# ------------------------------------------------------------------ mutated states
def mutate_state(rng: random.Random, text: str, voc: Vocabulary) -> str:
    what = rng.randrange(10)
    lines = text.split("\n")
    i = rng.randrange(len(lines))
    if what == 0:                                  # deep nesting, flow or block
        depth = rng.choice([50, 1000, 100_000])
        if rng.random() < 0.5:
            return text + "\nUnit:\n  deep: {x: " + "[" * depth + "]" * depth + "}\n"
        return text + "\n" + "".join(" " * k + f"k{k}:\n" for k in range(min(depth, 3000)))
    if what == 1:                                  # aliases: a billion laughs
        rows = ["a0: &a0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]"]
        for k in range(1, rng.choice([3, 9, 20])):
            rows.append(f"a{k}: &a{k} [" + ", ".join([f"*a{k - 1}"] * 10) + "]")
        rec = rng.choice(sorted(voc.records) or ["Unit"])
        return "\n".join(rows) + f"\n{rec}:\n  x1: {{" + ", ".join(
            f"{f}: *a{len(rows) - 1}" for f in list(voc.records.get(rec, {"f": 0}))[:2]) + "}\n"
    if what == 2:
        lines[i] = lines[i].replace(":", rng.choice([": [", ": {", ":: ", ": !!python/object:os.system ", ": &x ", ": *x "]), 1)
    elif what == 3:
        import re
        lines[i] = re.sub(r"\d+", lambda m: rng.choice(["-1", "9" * 30, "9" * 5000, "1.5", "0x10", "'3'", "null", "[]"]), lines[i], count=1)
    elif what == 4:
        ids = [x for v in voc.entities.values() for x in v] or ["u1"]
        lines[i] = lines[i].replace(rng.choice(ids), rng.choice(ids + ["nobody", "Shaken", "true", "", "~"]), 1)
    elif what == 5:
        lines[i] = rng.choice(["\t", "  ", " \f", "\x00", "\r"]) + lines[i]
    elif what == 6:
        return text.replace("\n", rng.choice(["\r\n", "\r", "\n\n"]))
    elif what == 7:
        levels = [x for v in voc.levels.values() for x in v] or ["X"]
        import re
        lines[i] = re.sub(r": (\w+)", lambda m: ": " + rng.choice(levels + ["5", "yes", "[a, b]", "{}"]), lines[i], count=1)
    elif what == 8:
        del lines[i]
    else:
        lines.insert(i, rng.choice(["---", "...", "%YAML 1.1", "? [a]: b", "<<: *a", "'x': 1", "- 1", "Unit: 5"]))
    return "\n".join(lines)


def state_case(rng: random.Random) -> dict:
    book = rng.choice([b for b in bundled() if states_of(b)])
    state = rng.choice(states_of(book))
    voc = vocabulary(book, state)
    text = _read(ROOT / book / "states" / state)
    for _ in range(rng.randrange(1, 3)):
        text = mutate_state(rng, text, voc)
    q = Questions(voc, rng)
    from drillbook.check.types import INT
    calls = [c for c in voc.calls]
    question = q.call(rng.choice(calls), 2) if calls else q.gen(INT)
    case = {"kind": "state", "base": book, "runs": [], "oracles": []}
    special = rng.random()
    if special < 0.05:
        where = rng.choice(["/dev/zero", "/dev/null", "fifo.yaml", "states", "/proc/self/status"])
        case["fifos"] = ["fifo.yaml"] if where == "fifo.yaml" else []
    elif special < 0.1:
        where = "latin1.yaml"
        case["bytes"] = {where: text.encode("utf-8", "replace").replace(b"\xc3", b"\xe9").hex()}
    else:
        where = "state.yaml"
        case["files"] = {where: text}
    case["runs"] = [["ask", book, question, "--state", where, "--seed", "1"],
                    ["ask", book, question, "--state", where, "--seed", "1", "--json"]]
    case["oracles"] = ["trace", "seed"]
    return case


# ------------------------------------------------------------------ command lines
WORDS = ["--json", "--doubts", "--variant", "--state", "--roll", "--choice", "--option",
         "--lang", "--seed", "-o", "--check", "-k", "-v", "--help", "", " ", "-", "--",
         "d6=3", "d10=0", "d10=7,7", "d6=x", "=", "x=", "--roll=d6=2", "ru", "de", "xx", "-1",
         "99999999999999999999999", "a" * 300, "/dev/null", "/dev/zero", ".", "nowhere",
         "site", "file.txt/sub", "morale_check(pikes)", "1 +", "sum(x for x from 0 to 100000000000)",
         "\x00", "é", "'", '"', "$(echo)", "--variant=", "states", "on", "off"]


def argv_case(rng: random.Random) -> dict:
    book = rng.choice(bundled())
    sub = rng.choice(["check", "test", "ask", "explain", "odds", "run", "diff", "render",
                      "fmt", "describe", "lsp", "bogus", ""])
    things = [book, f"{book}/rulebook.drill", f"{book}/variants"] + [
        f"{book}/variants/{v}" for v in variants_of(book)] + [
        f"{book}/states/{s}" for s in states_of(book)]
    argv = [sub] if sub else []
    for _ in range(rng.randrange(0, 7)):
        argv.append(rng.choice(things + WORDS))
    if sub in ("fmt", "render") or "fmt" in argv or "render" in argv:   # writes: stay here
        argv = [a for a in argv if not a.startswith("/")]
    files = {"file.txt": "not a rulebook\n"}
    return {"kind": "argv", "base": book, "files": files, "runs": [argv], "oracles": ["seed"]}


GENERATORS = {"question": question_case,
              "cli-question": lambda rng: question_case(rng, cli=True),
              "small-rulebook": small_rulebook_case, "rulebook": rulebook_case,
              "state": state_case, "argv": argv_case}
# questions and small rulebooks are cheap (milliseconds); whole bundled rulebooks and states
# on the command line cost a second or more each on this machine
WEIGHTS = {"question": 60, "small-rulebook": 20, "cli-question": 0.2, "rulebook": 0.6,
           "state": 0.3, "argv": 1}


def any_case(rng: random.Random) -> dict:
    kinds = list(WEIGHTS)
    kind = rng.choices(kinds, weights=[WEIGHTS[k] for k in kinds])[0]
    return GENERATORS[kind](rng)
