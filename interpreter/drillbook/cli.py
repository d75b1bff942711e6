"""CLI: the ``drillbook`` command — check, test, ask, explain, odds, run, diff, render, fmt,
describe, schema.

Exit codes: 0 ok; 1 rule errors, bad state or failed examples; 2 bad usage.
No Python traceback ever reaches the user: every error is printed located, with a caret.
Every ``--json`` output carries ``schema_version`` (its schemas: docs/schemas/); ``-`` reads
a rulebook file, a state or a question from standard input; colour only on a terminal.
"""
from __future__ import annotations

import argparse
import json
import shlex
import sys

from .errors import Diagnostic, DrillError, Loc, a_or_an, did_you_mean, remember_source

CMDLINE = "<command line>"


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message):          # argparse would print and exit(2) itself
        raise UsageError(message)


def _point(argv: list[str], message: str) -> DrillError:
    """A usage error located on the command line, with a caret under the offending word."""
    line = "drillbook " + " ".join(shlex.quote(a) for a in argv)
    remember_source(CMDLINE, line)
    col = len("drillbook ") + 1
    pos = len("drillbook ")
    for a in argv:
        q = shlex.quote(a)
        if a and (f"'{a}'" in message or f" {a}" in message or message.endswith(a)):
            col = pos + 1
            break
        pos += len(q) + 1
    return DrillError([Diagnostic(Loc(CMDLINE, 1, col, 1, col + 1), "E800", message,
                                  "see drillbook --help")])


def _rolls(values: list[str], argv) -> dict:
    out: dict[str, list[int]] = {}
    for v in values or []:
        die, eq, faces = v.partition("=")
        try:
            nums = [int(x) for x in faces.split(",")] if eq else None
        except ValueError:
            nums = None
        if not die or nums is None:
            raise _point(argv, f"--roll takes DIE=FACE[,FACE...], like d10=7, not '{v}'")
        out.setdefault(die, []).extend(nums)
    return out


LANGS_HELP = "language of labels and phrases: en, ru, de, or one the rulebook declares"


def _common(q, lang=True):
    """Options every command that prints takes alike."""
    q.add_argument("--color", "--colour", dest="color", choices=("auto", "always", "never"),
                   default="auto", help="colour on a terminal (auto), always or never")
    if lang:
        q.add_argument("--lang", help=LANGS_HELP)


def _question_args(q, name):
    q.add_argument("rulebook", help="a rulebook folder or file ('-' reads it from stdin)")
    q.add_argument("--variant", action="append", default=[], metavar="FILE",
                   help="apply this variant file (repeat to combine variants)")
    q.add_argument("question", help=("an expression, e.g. 'morale_test(u1)'" if name != "run"
                                     else "a procedure call, e.g. 'charge_sequence(b1, b2)'")
                   + " ('-' reads it from stdin)")
    q.add_argument("--state", help="YAML or JSON file with the game state ('-': stdin)")
    q.add_argument("--roll", action="append", default=[], metavar="DIE=FACE",
                   help="a die's face(s), in the order rolled; may repeat")
    q.add_argument("--option", action="append", default=[], metavar="NAME[=on|off]")
    q.add_argument("--choice", action="append", default=[], metavar="NAME=VALUE",
                   help="a player's choice, in the order made; may repeat")
    q.add_argument("--json", action="store_true", help="machine-readable output")
    if name != "odds":
        q.add_argument("--seed", type=int, help="draw dice not given from this seed")
    _common(q)


def _check_args(c):
    c.add_argument("path", help="a rulebook folder or file ('-' reads it from stdin)")
    c.add_argument("--variant", action="append", default=[], metavar="FILE",
                   help="apply this variant file (repeat to combine variants)")
    c.add_argument("--doubts", action="store_true", help="list every doubt and gap in the sources")
    c.add_argument("--untranslated", action="store_true",
                   help="list every label without a translation into each language the "
                        "header declares after the first")
    c.add_argument("--json", action="store_true")
    _common(c)


def _test_args(t):
    t.add_argument("paths", nargs="+", help="rulebooks or variant files ('-': one from stdin)")
    t.add_argument("-k", dest="only", help="run only examples whose name contains this text")
    t.add_argument("-v", "--verbose", action="store_true", help="list every example")
    t.add_argument("--json", action="store_true", help="every example's result as JSON")
    t.add_argument("--junit-xml", metavar="FILE", help="also write the results as JUnit XML")
    _common(t)


def _render_args(r):
    r.add_argument("rulebook")
    r.add_argument("-o", "--out", required=True, metavar="DIR", help="the folder to write")
    r.add_argument("--variant", action="append", default=[], metavar="FILE",
                   help="also write redline.html: the base and this variant side by side")
    r.add_argument("--json", action="store_true", help="list the files written as JSON")
    _common(r)


def _fmt_args(f):
    f.add_argument("paths", nargs="+")
    f.add_argument("--check", action="store_true",
                   help="write nothing; list the files that would change and exit 1 if any")
    f.add_argument("--diff", action="store_true",
                   help="write nothing; print what would change as a unified diff, exit 1 if any")
    f.add_argument("--json", action="store_true", help="the files changed, as JSON")
    _common(f, lang=False)


def _diff_args(d):
    d.add_argument("base", help="the base rulebook")
    d.add_argument("variant", nargs="+", help="one or more variant files, applied in order")
    d.add_argument("--json", action="store_true")
    _common(d)


def _describe_args(d):
    d.add_argument("rulebook", help="a rulebook folder or file ('-' reads it from stdin)")
    d.add_argument("name", nargs="?", help="show this rule, check, table, record type... in full")
    d.add_argument("--variant", action="append", default=[], metavar="FILE",
                   help="describe the rulebook as this variant makes it")
    d.add_argument("--json", action="store_true")
    _common(d)


def _schema_args(s):
    s.add_argument("rulebook", help="a rulebook folder or file ('-' reads it from stdin)")
    s.add_argument("-o", "--out", metavar="FILE", help="write the schema here (else stdout)")
    s.add_argument("--variant", action="append", default=[], metavar="FILE")
    _common(s)


def _coverage_args(v):
    v.add_argument("paths", nargs="+")
    v.add_argument("--json", action="store_true")
    v.add_argument("-v", "--verbose", action="store_true", help="list every section")
    v.add_argument("--fail-under", type=float, metavar="N",
                   help="exit 1 if a rulebook's overall coverage is below N percent")


def _lsp_args(ls):
    ls.add_argument("--stdio", action="store_true", help="talk over stdin/stdout (the default)")


# one entry per command: (name, help, arguments); the functions are in COMMANDS below
SUBCOMMANDS = [
    ("check", "check a rulebook: syntax, names, types, tables, cycles", _check_args),
    ("test", "run the examples of one or more rulebooks", _test_args),
    ("ask", "evaluate a question against a game state", lambda q: _question_args(q, "ask")),
    ("explain", "answer a question as a ruling that cites the rules",
     lambda q: _question_args(q, "explain")),
    ("odds", "exact distribution of a question over the dice not given",
     lambda q: _question_args(q, "odds")),
    ("run", "play a procedure and print its event log", lambda q: _question_args(q, "run")),
    ("diff", "what a variant changes: rules, cells, options, odds", _diff_args),
    ("describe", "list every question a rulebook answers and the records a state holds",
     _describe_args),
    ("schema", "write a JSON Schema for the rulebook's state files", _schema_args),
    ("render", "write a static HTML site for reviewers", _render_args),
    ("fmt", "tidy .drill files: indentation, aligned tables, comments kept", _fmt_args),
    ("coverage", "what the examples exercise, and what they never do", _coverage_args),
    ("lsp", "run the language server for editors (LSP over stdio)", _lsp_args),
]


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="drillbook", description="A rules language for historical wargames.")
    p.add_argument("--version", action="store_true", help="print drillbook's version")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name, helptext, add in SUBCOMMANDS:
        add(sub.add_parser(name, help=helptext, description=helptext))
    for name, command in sub.choices.items():
        if name != "fmt":
            command.add_argument("--no-cache", action="store_true",
                                 help="neither read nor write the cache of checked rulebooks")
    return p


def command_list() -> str:
    width = max(len(n) for n, _, _ in SUBCOMMANDS)
    return "\n".join(f"  {n:<{width}}  {h}" for n, h, _ in SUBCOMMANDS)


_COLOUR = {"flag": "auto"}


def _say(text: str, kind: str = "plain", stream=None) -> None:
    """Print to stdout (or ``stream``), coloured for ``kind`` on a terminal."""
    from .colour import wanted, write
    stream = stream or sys.stdout
    write(stream, text, kind, wanted(stream, _COLOUR["flag"]))


def _errors(text: str) -> None:
    _say(text, "error", sys.stderr)


def _json(data: dict) -> None:
    """Every JSON output: its schema version first (schemas in docs/schemas/)."""
    from .schema import SCHEMA_VERSION
    if _STATE_WARNINGS:              # a state file that contradicts the rules (W702)
        data = {**data, "state_warnings": [w.as_json() for w in _STATE_WARNINGS]}
    print(json.dumps({"schema_version": SCHEMA_VERSION, **data}, ensure_ascii=False, indent=2))


def main(argv: list[str] | None = None) -> int:
    argv_given, argv = argv, list(sys.argv[1:] if argv is None else argv)
    from .output import finish, guard
    with guard(argv) as out:         # UTF-8, bounded, a failed write located (output.py)
        return finish(out, _main(argv, argv_given))


def _main(argv: list[str], argv_given) -> int:
    _COLOUR["flag"] = "auto"
    _STDIN.clear()
    _STATE_WARNINGS.clear()
    try:
        args, extra = build_parser().parse_known_args(argv)
        if extra and getattr(args, "name", "") is None and len(extra) == 1 \
                and not extra[0].startswith("-"):     # describe BOOK --variant V NAME
            args.name = extra.pop()
        if extra:
            raise UsageError(f"unrecognized arguments: {' '.join(extra)}")
        _COLOUR["flag"] = getattr(args, "color", "auto")
        if args.version:
            from . import __version__
            print(f"drillbook {__version__}")
            return 0
        if not args.command:
            _errors(_point(argv, "choose a command: " + ", ".join(
                n for n, _, _ in SUBCOMMANDS)).render())
            print("commands:\n" + command_list(), file=sys.stderr)
            return 2
        from . import cache
        cache.enabled = not getattr(args, "no_cache", False)
        cache.freeze = argv_given is None and args.command != "lsp"   # one command per process
        return COMMANDS[args.command](args, argv)
    except UsageError as e:
        _errors(_point(argv, str(e)).render())
        return 2
    except DrillError as e:
        e = _at_the_argument(e, argv)
        _errors(e.render())
        if any(d.code in ("E527", "E804") for d in e.diagnostics):   # output, not usage
            return 1
        return 2 if all(d.loc.path == CMDLINE for d in e.diagnostics) else 1
    except RecursionError:
        print(f"{CMDLINE}:1:1: error[E998]: the rulebook nests too deeply to evaluate",
              file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:          # the reader (e.g. head) went away: nothing to report
        import os
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as e:  # a bug in drillbook itself: say so, located, without a traceback
        line = "drillbook " + " ".join(shlex.quote(a) for a in argv)
        remember_source(CMDLINE, line)
        d = Diagnostic(Loc(CMDLINE, 1, 1), "E999", f"internal error: {type(e).__name__}: {e}",
                       "this is a bug in drillbook, not in your rulebook; please report it "
                       "with this command line")
        print(DrillError([d]).render(), file=sys.stderr)
        return 3


STDIN = "-"
STDIN_PATH = "<stdin>"
_STDIN: dict = {}
_STATE_WARNINGS: list = []      # W702 of the state file read by this command (its --json holds them)


def _stdin(argv, what: str) -> str:
    """Standard input's text, read once; only one of rulebook, state and question may be '-'."""
    if _STDIN and _STDIN.get("what") != what:
        raise _point(argv, f"'-' reads one thing from stdin; it already gives the {_STDIN['what']}")
    if "text" not in _STDIN:
        _STDIN.update(what=what, text=sys.stdin.read())
    return _STDIN["text"]


def _open(path, argv, variants=()):
    from .evaluate import Rulebook
    if path == STDIN:
        return _open_stdin(argv, variants)
    return Rulebook.open(path, _where(argv, path), variants)


def _open_stdin(argv, variants):
    """A one-file rulebook given on standard input (it may not 'use' other files)."""
    import os
    from .check import check
    from .compile import compile_model
    from .errors import fail
    from .evaluate import Rulebook
    from .loader import Loaded
    from .syntax import parse_file
    if variants:
        fail(_where(argv, variants[0]), "E800", "a rulebook read from stdin takes no --variant")
    parsed = parse_file(STDIN_PATH, _stdin(argv, "rulebook"))
    if parsed.header is None or parsed.header.base is not None:
        fail(Loc(STDIN_PATH), "E013", "a rulebook read from stdin starts with a 'rulebook' header",
             'write: rulebook "Title" edition "1" languages en')
    if parsed.uses:
        fail(parsed.uses[0].loc, "E014", "a rulebook read from stdin cannot 'use' files",
             "check its folder instead: drillbook check FOLDER")
    model = check(Loaded(os.getcwd(), parsed, [parsed]))
    return Rulebook(model, compile_model(model))


def _lang(args, argv, model=None):
    """The --lang of any command, checked alike: a language of the phrase table or one the
    rulebook declares (labels fall back to the rulebook's own text)."""
    lang = getattr(args, "lang", None)
    if lang is None:
        return None
    from .phrases import LANGUAGES
    known = set(LANGUAGES) | set(getattr(model, "languages", None) or [])
    if lang not in known:
        from .errors import fail
        fail(_where(argv, lang), "E810", f"no labels or phrases in '{lang}'",
             f"languages: {', '.join(sorted(known))}")
    declared = list(getattr(model, "languages", None) or [])
    if declared and lang not in declared:      # the phrases translated, the labels not
        print(Diagnostic(_where(argv, lang), "W802", f"this rulebook has no labels in "
                         f"'{lang}': its rules are shown in '{declared[0]}', the words around "
                         f"them in '{lang}'", f"its languages: {', '.join(declared)}",
                         severity="warning").render(), file=sys.stderr)
    return lang


def _at_the_argument(e: DrillError, argv) -> DrillError:
    """An error about a value the command line gave (a ``--choice`` the rule does not
    offer) points at that argument; where the rulebook asks for it becomes its note (M&P
    round 14 T3)."""
    moved = []
    for d in e.diagnostics:
        name, _, want = (d.given or "").partition("=")
        arg = next((a for a in argv if a == d.given or a.startswith(f"{name}=") and want in
                    [w.strip() for w in a[len(name) + 1:].split(",")]), None) if d.given else None
        if arg is None:
            moved.append(d)
            continue
        moved.append(Diagnostic(_where(argv, arg), d.code, d.message, d.hint, d.severity,
                                [(d.loc, "the rule asks for the choice here")] + d.notes))
    return DrillError(moved)


def _where(argv, word) -> Loc:
    line = "drillbook " + " ".join(shlex.quote(a) for a in argv)
    remember_source(CMDLINE, line)
    pos = len("drillbook ")
    for a in argv:
        if a == word or (word and a.endswith("=" + word) and a.startswith("--")):
            return Loc(CMDLINE, 1, pos + 1, 1, pos + 1 + len(shlex.quote(a)))
        pos += len(shlex.quote(a)) + 1
    return Loc(CMDLINE, 1, 1)


# ------------------------------------------------------------------ commands
def cmd_check(args, argv) -> int:
    if args.json:
        try:
            rb = _open(args.path, argv, args.variant)
        except DrillError as e:          # JSON on stdout, the located errors on stderr
            _json({"ok": False, "errors": [d.as_json() for d in e.diagnostics]})
            _errors(e.render())
            return 2 if all(d.loc.path == CMDLINE for d in e.diagnostics) else 1
    else:
        rb = _open(args.path, argv, args.variant)
    rb.program.compile_all()           # questions compile what they reach; check compiles all
    m = rb.model
    lang = _lang(args, argv, m)
    from . import ast as A
    notes = [(sec, n) for sec, n in m.annotations() if n.kind in ("doubt", "gap")]
    if args.json:
        _json({"rulebook": m.title.text, "ok": True,
               "warnings": [w.as_json() for w in m.warnings],
               "doubts": [{"path": n.loc.path, "line": n.loc.line, "col": n.loc.col,
                           "kind": n.kind, "text": n.text,
                           "section": sec.number if sec is not None else None}
                          for sec, n in notes]})
        return 0
    for w in m.warnings:
        _errors(w.render())
    count = {k: len(m.of_kind(cls)) for k, cls in (
        ("rules", A.Define), ("exceptions", A.ExceptionDecl), ("tables", A.TableDecl),
        ("modifier lists", A.ModifiersDecl), ("checks", A.CheckDecl),
        ("requirement lists", A.RequirementsDecl), ("procedures", A.ProcedureDecl))}
    print(f"ok: {m.title.show('', lang)} — {len(m.sections)} sections, "
          + ", ".join(f"{n} {k}" for k, n in count.items())
          + f", {len(m.examples)} examples; {len(notes)} doubts and gaps"
          + (f"; {len(m.warnings)} warnings" if m.warnings else ""))
    if args.doubts:
        for sec, n in notes:
            where = f" (§{sec.number})" if sec is not None else ""
            print(f"{n.loc}: {n.kind}{where}: {n.text}")
    if args.untranslated:
        for loc, lang, what, text in _untranslated(m):
            print(f"{loc}: untranslated ({lang}): {what} \"{text}\"")
    return 0


def _untranslated(m):
    """(loc, language, what, text) of each label with text but no translation into one of
    the header's languages after the first (examples are the authors', not the players')."""
    langs = list(m.languages)[1:]
    example_locs = {ex.loc for ex in m.examples}
    for loc, what, label in m.labels():
        if label is None or not label.text or loc in example_locs:
            continue
        for lang in langs:
            if lang not in label.translations:
                yield loc, lang, what, label.text


def cmd_test(args, argv) -> int:
    from .explain import example_json
    results, broken = [], []
    for path in args.paths:
        try:
            rb = _open(path, argv)
        except DrillError as e:
            _errors(e.render())
            broken.append((path, e))
            continue
        _lang(args, argv, rb.model)
        results += [(path, r) for r in rb.run_examples(args.only)]
    passed = sum(1 for _, r in results if r.passed)
    failed = len(results) - passed
    if args.junit_xml:
        from .junit import write_junit
        write_junit(args.junit_xml, results, broken, _where(argv, args.junit_xml))
    if args.json:
        _json({"passed": passed, "failed": failed, "ok": not failed and not broken,
               "examples": [example_json(path, r) for path, r in results],
               "errors": [d.as_json() for _, e in broken for d in e.diagnostics]})
    else:
        lines = []
        for _, r in results:
            ex = r.example
            sec = ex.section.number if ex.section else "?"
            if r.passed:
                if args.verbose:
                    lines.append(f"ok    §{sec} {ex.name}")
                continue
            lines.append(f"FAIL  §{sec} {ex.name}  ({ex.loc})")
            for loc, msg in r.failures:
                lines += [f"      {loc}: {m}" if i == 0 else f"      {m}"
                          for i, m in enumerate(msg.split("\n"))]
        lines.append(f"{passed} passed, {failed} failed")
        _say("\n".join(lines), "test")
    if not results and not broken:
        print("drillbook: no example ran" + (f" (none matches -k {args.only!r})"
                                             if args.only else ""), file=sys.stderr)
        return 1
    return 1 if failed or broken else 0


def _choices(values, argv) -> dict:
    out: dict[str, list[str]] = {}
    for v in values or []:
        name, eq, value = v.partition("=")
        if not name or not eq or not value:
            raise _point(argv, f"--choice takes NAME=VALUE, like crew=c1, not '{v}'")
        out.setdefault(name, []).append(value)
    return out


def _question_inputs(args, argv):
    rb = _open(args.rulebook, argv, args.variant)
    args.lang = _lang(args, argv, rb.model)
    if args.question == STDIN:
        args.question = _stdin(argv, "question").strip()
    if args.state == STDIN:
        from .state import read_state_text
        state = read_state_text(rb.program, STDIN_PATH, _stdin(argv, "state"))
    else:
        state = rb.state(args.state, _where(argv, args.state) if args.state else None)
    rolls: dict[str, list[int]] = {}
    for value in args.roll:          # each --roll is checked where it was written
        for die, faces in rb.rolls(_rolls([value], argv), _where(argv, value)).items():
            rolls.setdefault(die, []).extend(faces)
    options = rb.options([], None)
    for value in args.option:
        options = rb.options([value], _where(argv, value), options)
    args.chosen = _choices(args.choice, argv)
    if args.state is not None:
        for w in rb.state_problems(state, options):     # the state contradicts the rules
            print(w.render(), file=sys.stderr)
            _STATE_WARNINGS.append(w)
    return rb, state, rolls, options


def _ask(args, argv, trace):
    rb, state, rolls, options = _question_inputs(args, argv)
    try:
        ans = rb.ask(args.question, state, rolls, options, seed=args.seed, trace=trace,
                     choices=args.chosen)
    except DrillError as e:
        _no_state_hint(e, args, state)
        raise
    _warn_unread(ans, argv)
    _warn_left(rb, ans, options, args.question)
    return rb, ans


def _warn_left(rb, ans, options, question) -> None:
    """W702 for a state the question itself makes, located at the question: the one its
    leading 'after' parts leave (``after set ...: q``), and the one its effects leave (a
    procedure's end), for each requirement broken there and not already in the state file
    (M&P round 13/14 Q24: a hypothetical move into an enemy's hex says so)."""
    seen = {w.message for w in _STATE_WARNINGS}
    where = Loc("<question>", 1, 1, 1, len(question) + 1)
    remember_source("<question>", question)
    for moved, said in ((ans.moved, "in the state its leading 'after' parts leave"),
                        (ans.new_state, "in the state its effects leave")):
        if moved is None or moved is ans.state:
            continue
        for w in rb.state_problems(moved, options):
            if w.message not in seen:
                seen.add(w.message)
                d = Diagnostic(where, "W702", f"{said}, {w.message}", w.hint, severity="warning")
                print(d.render(), file=sys.stderr)
                _STATE_WARNINGS.append(d)


def _warn_unread(ans, argv) -> None:
    """A --roll or --choice the question never read is said, located: the answer does not
    depend on it (a choice the rules make for the players, a die rolled fewer times)."""
    known = None
    for kind, name, values in ans.unread:
        if kind == "choice":
            written = f"{name}={values[0]}"
            given = sum(1 for a in argv if a.startswith(f"{name}="))
            message = (f"the choice '{name}' was given ({', '.join(values)}) but this question "
                       "never asked it: the answer does not depend on it")
            if len(values) < given:                    # some of them were read (GdB T5)
                message = (f"the choice '{name}' was given more times than this question "
                           f"asked it: {', '.join(values)} never read (the answer does not "
                           f"depend on {'them' if len(values) > 1 else 'it'})")
            hint = "drillbook describe RULEBOOK NAME lists the choices a rule asks for"
            if known is None:
                from .describe import choice_names
                known = choice_names(ans.model) if ans.model is not None else []
            if name not in known:                       # a misspelt name (GdB round 15 T4)
                message = f"the rulebook asks for no choice named '{name}'"
                hint = did_you_mean(name, known) or (
                    f"its choices: {', '.join(known)}" if known else "it asks for no choice")
        else:
            written = f"{name}=" + ",".join(map(str, values))
            faces = ", ".join(map(str, values))
            message = (f"the face{'s' if len(values) > 1 else ''} {faces} given for {name} "
                       f"{'were' if len(values) > 1 else 'was'} never read: the question "
                       f"rolled {name} fewer times")
            hint = None
        where = _where(argv, written) if written in argv else next(
            (_where(argv, a) for a in argv if a.startswith(f"{name}=")), _where(argv, written))
        print(Diagnostic(where, "W801", message, hint, severity="warning").render(),
              file=sys.stderr)


def _no_state_hint(e: DrillError, args, state) -> None:
    """An unknown name in a question asked without --state is most likely an entity id."""
    if args.state is not None or state.entities:
        return
    for d in e.diagnostics:
        if d.code == "E202" and d.loc.path == "<question>":
            name = d.message.split("'")[1] if "'" in d.message else ""
            if d.hint and d.hint.startswith("did you mean"):   # a name of the rulebook, likely
                d.hint += (f" (if '{name}' is a thing of the game state, give the state "
                           "with --state FILE)")
                continue
            d.message = f"unknown name '{name}': no state given, so the question has no " \
                        "entities"
            d.hint = "give the game state with --state FILE (YAML or JSON)" + (
                f"; {d.hint}" if d.hint else "")


def cmd_ask(args, argv) -> int:
    from .runtime import show_answer
    rb, ans = _ask(args, argv, trace=args.json)
    if args.json:
        from .explain import answer_json
        _json(answer_json(ans, rb.model))
        return 0
    lines = [show_answer(ans.value, ans.type, args.lang)]
    lines += [f"  {text}" for text in _log(ans, args.lang)]
    _say("\n".join(lines), "ruling")
    return 0


def _log(ans, lang):
    from .explain import effects_log
    return effects_log(ans, lang)


def cmd_explain(args, argv) -> int:
    from .explain import answer_json, ruling
    rb, ans = _ask(args, argv, trace=True)
    if args.json:
        out = answer_json(ans, rb.model)
        out["ruling"] = ruling(ans, args.lang, rb.model)
        _json(out)
        return 0
    _say(ruling(ans, args.lang, rb.model), "ruling")
    return 0


def cmd_run(args, argv) -> int:
    from .explain import answer_json, event_log
    try:
        rb, ans = _ask(args, argv, trace=True)
    except DrillError as e:          # the steps worked out before it, then the error
        partial = getattr(e, "partial", None)
        if partial is not None and not args.json and str(partial.type) == "Effects" and any(
                n.kind == "procedure" for n in partial.trace.children):
            _say(event_log(partial, args.lang, partial.model), "ruling")
        raise
    if str(ans.type) != "Effects":
        raise _point(argv, f"'{args.question}' is {a_or_an(ans.type)}, not a procedure: "
                     "use ask or explain")
    if args.json:
        out = answer_json(ans, rb.model)
        out["log"] = _log(ans, args.lang)
        _json(out)
        return 0
    _say(event_log(ans, args.lang, rb.model), "ruling")
    return 0


def cmd_odds(args, argv) -> int:
    from .evaluate import with_other_choices
    from .explain import doubt_lines, doubts_of_rules, outcome_label
    rb, state, rolls, options = _question_inputs(args, argv)
    t, dist = rb.odds(args.question, state, rolls, options, args.chosen)
    rows = sorted(with_other_choices(dist).items(), key=lambda kv: (kv[0][0], -kv[1], kv[0][1]))
    from .describe import consulted                     # a reading the odds may rest on
    doubts = doubts_of_rules(rb.model, consulted(rb.model, rb.typed_question(
        args.question, state)[2]))
    if args.json:
        _json({"question": args.question, "type": str(t), "outcomes": [
            {"choices": str(made), "outcome": k, "fraction": f"{p.numerator}/{p.denominator}",
             "percent": round(float(p) * 100, 4)} for (made, k), p in rows],
            "doubts": doubts})
        return 0
    shown = {k: outcome_label(rb.model, k, args.lang) for (_, k), _ in rows}
    width = min(max(len(v) for v in shown.values()), ODDS_WIDTH)  # a long outcome pads none
    lines = [f"odds of {args.question}:"]
    for made, outcomes in _same_odds_together(rows):
        if made:
            lines.append(f"  if {made}:")
        pad = "    " if made else "  "
        for k, p in outcomes:
            frac = f"{p.numerator}/{p.denominator}"
            lines.append(f"{pad}{shown[k]:<{width}}  {frac:>9}  {float(p) * 100:7.3f}%")
    lines += doubt_lines(doubts, args.lang, "odds_doubts_head")
    _say("\n".join(lines), "ruling")
    return 0


ODDS_WIDTH = 60     # outcomes are padded to line their odds up, up to this many characters


def _same_odds_together(rows) -> list:
    """The outcomes grouped by the players' choices made (``a = x, b = y``), the groups
    that differ in one choice only and give the same odds written as one:
    ``a = x, b = y or z``.  A choice that changes nothing then shows as such."""
    from .evaluate import Made
    groups: dict = {}
    for (made, k), p in rows:
        groups.setdefault(made, []).append((k, p))
    merged = [(list(made), tuple(o)) for made, o in groups.items()]
    for i in range(max((len(m) for m, _ in merged), default=0)):
        buckets: dict = {}
        for made, odds in merged:
            if len(made) <= i:
                buckets[(id(made),)] = [(made, odds)]
                continue
            key = (odds, tuple(c for c, _ in made), tuple(made[:i] + made[i + 1:]))
            buckets.setdefault(key, []).append((made, odds))
        merged = []
        for same in buckets.values():
            made, odds = same[0]
            if len(same) > 1:
                options = " or ".join(m[i][1] for m, _ in same)
                made = made[:i] + [(made[i][0], options)] + made[i + 1:]
            merged.append((made, odds))
    return [(str(Made(made)), list(odds)) for made, odds in merged]


def cmd_render(args, argv) -> int:
    from .render import render_site
    rb = _open(args.rulebook, argv, args.variant)
    variant = rb.model if rb.model.base is not None else None
    if variant is not None:
        from .diff import semantic_diff            # the redline shows the odds that change
    from .coverage import uncovered_of
    written = render_site(rb.model, args.out, _lang(args, argv, rb.model), variant,
                          semantic_diff(rb) if variant is not None else None, uncovered_of(rb))
    if args.json:
        _json({"out": args.out, "written": list(written)})
        return 0
    print(f"wrote {len(written)} files to {args.out}")
    return 0


def cmd_fmt(args, argv) -> int:
    import os
    from .fmt import format_paths, format_plan
    for p in args.paths:
        if not os.path.exists(p):
            from .errors import fail
            fail(_where(argv, p), "E010", f"no such file or folder: '{p}'")
    if args.diff:
        import difflib
        plan = format_plan(args.paths)
        text = "".join("".join(difflib.unified_diff(
            old.splitlines(True), new.splitlines(True), path, f"{path} (formatted)"))
            for path, old, new in plan)
        if args.json:
            _json({"changed": [p for p, _, _ in plan], "diff": text, "written": False})
        elif text:
            _say(text.rstrip("\n"), "diff")
        return 1 if plan else 0
    changed, status = format_paths(args.paths, args.check)
    if args.json:
        _json({"changed": changed, "written": not args.check})
        return status
    for path in changed:
        print(("would reformat " if args.check else "reformatted ") + path)
    if not changed:
        print("all files already formatted")
    return status


def cmd_diff(args, argv) -> int:
    import os
    from .diff import render_text, semantic_diff
    from .loader import resolve_main
    from .variants import base_path, is_variant, parse_variant
    from .files import read_text
    for v in args.variant:
        read_text(v, _where(argv, v), "variant file ")    # missing, a folder, not UTF-8...
        if not is_variant(v):
            from .errors import fail
            fail(_where(argv, v), "E800", f"'{v}' is not a variant file",
                 'a variant file starts with: variant "Title" of "path"')
        own = os.path.realpath(resolve_main(base_path(parse_variant(v), v)))
        if own != os.path.realpath(resolve_main(args.base, _where(argv, args.base))):
            from .errors import fail
            fail(_where(argv, v), "E907", f"'{v}' patches another rulebook than '{args.base}'")
    rb = _open(args.variant[0], argv, args.variant[1:])
    lang = _lang(args, argv, rb.model)
    result = semantic_diff(rb)
    if args.json:
        _json(result)
    else:
        _say(render_text(result, lang), "diff")
    return 0


def cmd_describe(args, argv) -> int:
    from .describe import describe_json, find, names, render, render_one
    from .errors import did_you_mean, fail
    rb = _open(args.rulebook, argv, args.variant)
    lang = _lang(args, argv, rb.model)
    data = describe_json(rb.model)
    if args.name is not None:
        item = find(data, args.name)
        if item is None:
            fail(_where(argv, args.name), "E202", f"'{args.name}' is not a name in this rulebook",
                 did_you_mean(args.name, names(data))
                 or "drillbook describe RULEBOOK lists every name")
        if args.json:
            _json({"rulebook": data["rulebook"], "item": item})
        else:
            print(render_one(item, lang))
        return 0
    if args.json:
        _json(data)
    else:
        print(render(data, lang))
    return 0


def cmd_schema(args, argv) -> int:
    from .schema import state_schema
    rb = _open(args.rulebook, argv, args.variant)
    text = json.dumps(state_schema(rb.model, _lang(args, argv, rb.model)), ensure_ascii=False,
                      indent=2) + "\n"
    if args.out:
        from .errors import fail
        from .fmt import write_atomically
        import os
        if not os.path.isdir(os.path.dirname(os.path.abspath(args.out))):
            fail(_where(argv, args.out), "E010", f"no folder for '{args.out}'")
        write_atomically(args.out, text)
        print(f"wrote {args.out}")
        return 0
    sys.stdout.write(text)
    return 0


def cmd_coverage(args, argv) -> int:
    from .coverage import coverage_command
    if args.fail_under is not None and not 0 <= args.fail_under <= 100:
        raise _point(argv, "--fail-under takes a percentage from 0 to 100, "
                     f"not {args.fail_under:g}")
    return coverage_command([_open(p, argv) for p in args.paths], args.json, args.fail_under,
                            args.verbose)


def cmd_lsp(args, argv) -> int:
    if not (hasattr(sys.stdin, "buffer") and hasattr(sys.stdout, "buffer")):
        raise _point(argv, "lsp: the language server talks over standard input and output, "
                     "and these are not byte streams here; start it from an editor "
                     "(docs/editors.md)")
    from .lsp import serve           # imported here: only the server pays for pygls
    serve()
    return 0


COMMANDS = {
    "check": cmd_check,
    "test": cmd_test,
    "ask": cmd_ask,
    "explain": cmd_explain,
    "odds": cmd_odds,
    "diff": cmd_diff,
    "run": cmd_run,
    "describe": cmd_describe,
    "schema": cmd_schema,
    "render": cmd_render,
    "fmt": cmd_fmt,
    "coverage": cmd_coverage,
    "lsp": cmd_lsp,
}


if __name__ == "__main__":
    sys.exit(main())
