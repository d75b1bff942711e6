"""CLI: the ``drillbook`` command — check, test, ask, explain, odds, run, diff, render, fmt.

Exit codes: 0 ok; 1 rule errors, bad state or failed examples; 2 bad usage.
No Python traceback ever reaches the user: every error is printed located, with a caret.
"""
from __future__ import annotations

import argparse
import json
import shlex
import sys

from .errors import Diagnostic, DrillError, Loc, remember_source

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


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="drillbook", description="A rules language for historical wargames.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    c = sub.add_parser("check", help="check a rulebook: syntax, names, types, tables, cycles")
    c.add_argument("path")
    c.add_argument("--variant", action="append", default=[], metavar="FILE",
                   help="apply this variant file (repeat to combine variants)")
    c.add_argument("--doubts", action="store_true", help="list every doubt and gap in the sources")
    c.add_argument("--json", action="store_true")

    t = sub.add_parser("test", help="run the examples of one or more rulebooks")
    t.add_argument("paths", nargs="+")
    t.add_argument("-k", dest="only", help="run only examples whose name contains this text")
    t.add_argument("-v", "--verbose", action="store_true", help="list every example")

    for name, helptext in (("run", "play a procedure and print its event log"),
                           ("ask", "evaluate a question against a game state"),
                           ("explain", "answer a question as a ruling that cites the rules"),
                           ("odds", "exact distribution of a question over the dice not given")):
        q = sub.add_parser(name, help=helptext)
        q.add_argument("rulebook")
        q.add_argument("--variant", action="append", default=[], metavar="FILE",
                       help="apply this variant file (repeat to combine variants)")
        q.add_argument("question", help="an expression, e.g. 'morale_test(u1)'" if name != "run"
                       else "a procedure call, e.g. 'charge_sequence(b1, b2)'")
        q.add_argument("--state", help="YAML or JSON file with the game state")
        q.add_argument("--roll", action="append", default=[], metavar="DIE=FACE",
                       help="a die's face(s), in the order rolled; may repeat")
        q.add_argument("--option", action="append", default=[], metavar="NAME[=on|off]")
        q.add_argument("--choice", action="append", default=[], metavar="NAME=VALUE",
                       help="a player's choice, in the order made; may repeat")
        q.add_argument("--lang", help="language of labels in the answer (e.g. ru)")
        q.add_argument("--json", action="store_true", help="machine-readable output")
        if name != "odds":
            q.add_argument("--seed", type=int, help="draw dice not given from this seed")
    r = sub.add_parser("render", help="write a static HTML site for reviewers")
    r.add_argument("rulebook")
    r.add_argument("-o", "--out", required=True, metavar="DIR", help="the folder to write")
    r.add_argument("--lang", help="language of the labels (e.g. ru)")
    r.add_argument("--variant", action="append", default=[], metavar="FILE",
                   help="also write redline.html: the base and this variant side by side")

    f = sub.add_parser("fmt", help="tidy .drill files: indentation, aligned tables, comments kept")
    f.add_argument("paths", nargs="+")
    f.add_argument("--check", action="store_true",
                   help="write nothing; list the files that would change and exit 1 if any")

    d = sub.add_parser("diff", help="what a variant changes: rules, cells, options, odds")
    d.add_argument("base", help="the base rulebook")
    d.add_argument("variant", nargs="+", help="one or more variant files, applied in order")
    d.add_argument("--json", action="store_true")
    for name, command in sub.choices.items():
        if name != "fmt":
            command.add_argument("--no-cache", action="store_true",
                                 help="neither read nor write the cache of checked rulebooks")

    v = sub.add_parser("coverage", help="what the examples exercise, and what they never do")
    v.add_argument("paths", nargs="+")
    v.add_argument("--json", action="store_true")
    v.add_argument("-v", "--verbose", action="store_true", help="list every section")
    v.add_argument("--fail-under", type=float, metavar="N",
                   help="exit 1 if a rulebook's overall coverage is below N percent")

    ls = sub.add_parser("lsp", help="run the language server for editors (LSP over stdio)")
    ls.add_argument("--stdio", action="store_true", help="talk over stdin/stdout (the default)")
    return p


def main(argv: list[str] | None = None) -> int:
    argv_given, argv = argv, list(sys.argv[1:] if argv is None else argv)
    from .output import finish, guard
    with guard(argv) as out:         # UTF-8, bounded, a failed write located (output.py)
        return finish(out, _main(argv, argv_given))


def _main(argv: list[str], argv_given) -> int:
    try:
        args = build_parser().parse_args(argv)
        if not args.command:
            raise UsageError("choose a command: check, test, ask, explain, odds or diff")
        from . import cache
        cache.enabled = not getattr(args, "no_cache", False)
        cache.freeze = argv_given is None and args.command != "lsp"   # one command per process
        return COMMANDS[args.command](args, argv)
    except UsageError as e:
        print(_point(argv, str(e)).render(), file=sys.stderr)
        return 2
    except DrillError as e:
        print(e.render(), file=sys.stderr)
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


def _open(path, argv, variants=()):
    from .evaluate import Rulebook
    return Rulebook.open(path, _where(argv, path), variants)


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
            print(json.dumps({"ok": False, "errors": [d.as_json() for d in e.diagnostics]},
                             ensure_ascii=False, indent=2))
            print(e.render(), file=sys.stderr)
            return 2 if all(d.loc.path == CMDLINE for d in e.diagnostics) else 1
    else:
        rb = _open(args.path, argv, args.variant)
    rb.program.compile_all()           # questions compile what they reach; check compiles all
    m = rb.model
    from . import ast as A
    notes = [(sec, n) for sec, n in m.annotations() if n.kind in ("doubt", "gap")]
    if args.json:
        print(json.dumps({
            "rulebook": m.title.text, "ok": True,
            "warnings": [w.as_json() for w in m.warnings],
            "doubts": [{"path": n.loc.path, "line": n.loc.line, "col": n.loc.col,
                        "kind": n.kind, "text": n.text,
                        "section": sec.number if sec is not None else None}
                       for sec, n in notes]}, ensure_ascii=False, indent=2))
        return 0
    for w in m.warnings:
        print(w.render(), file=sys.stderr)
    count = {k: len(m.of_kind(cls)) for k, cls in (
        ("rules", A.Define), ("exceptions", A.ExceptionDecl), ("tables", A.TableDecl),
        ("modifier lists", A.ModifiersDecl), ("checks", A.CheckDecl),
        ("requirement lists", A.RequirementsDecl), ("procedures", A.ProcedureDecl))}
    print(f"ok: {m.title.text} — {len(m.sections)} sections, "
          + ", ".join(f"{n} {k}" for k, n in count.items())
          + f", {len(m.examples)} examples; {len(notes)} doubts and gaps"
          + (f"; {len(m.warnings)} warnings" if m.warnings else ""))
    if args.doubts:
        for sec, n in notes:
            where = f" (§{sec.number})" if sec is not None else ""
            print(f"{n.loc}: {n.kind}{where}: {n.text}")
    return 0


def cmd_test(args, argv) -> int:
    passed = failed = 0
    broken = False
    for path in args.paths:
        try:
            rb = _open(path, argv)
        except DrillError as e:
            print(e.render(), file=sys.stderr)
            broken = True
            continue
        for r in rb.run_examples(args.only):
            ex = r.example
            sec = ex.section.number if ex.section else "?"
            if r.passed:
                passed += 1
                if args.verbose:
                    print(f"ok    §{sec} {ex.name}")
                continue
            failed += 1
            print(f"FAIL  §{sec} {ex.name}  ({ex.loc})")
            for loc, msg in r.failures:
                print(f"      {loc}: {msg}")
    print(f"{passed} passed, {failed} failed")
    if passed + failed == 0 and not broken:
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
    state = rb.state(args.state, _where(argv, args.state) if args.state else None)
    rolls: dict[str, list[int]] = {}
    for value in args.roll:          # each --roll is checked where it was written
        for die, faces in rb.rolls(_rolls([value], argv), _where(argv, value)).items():
            rolls.setdefault(die, []).extend(faces)
    options = rb.options([], None)
    for value in args.option:
        options = rb.options([value], _where(argv, value), options)
    args.chosen = _choices(args.choice, argv)
    return rb, state, rolls, options


def cmd_ask(args, argv) -> int:
    from .runtime import show
    rb, state, rolls, options = _question_inputs(args, argv)
    ans = rb.ask(args.question, state, rolls, options, seed=args.seed, trace=args.json,
                 choices=args.chosen)
    if args.json:
        from .explain import answer_json
        print(json.dumps(answer_json(ans), ensure_ascii=False, indent=2))
        return 0
    print(show(ans.value, args.lang))
    for _, text in ans.log:
        print(f"  {text}")
    return 0


def cmd_explain(args, argv) -> int:
    from .explain import answer_json, ruling
    rb, state, rolls, options = _question_inputs(args, argv)
    ans = rb.ask(args.question, state, rolls, options, seed=args.seed, trace=True,
                 choices=args.chosen)
    if args.json:
        out = answer_json(ans)
        out["ruling"] = ruling(ans, args.lang)
        print(json.dumps(out, ensure_ascii=False, indent=2))
        return 0
    print(ruling(ans, args.lang))
    return 0


def cmd_run(args, argv) -> int:
    from .explain import answer_json, event_log
    rb, state, rolls, options = _question_inputs(args, argv)
    ans = rb.ask(args.question, state, rolls, options, seed=args.seed, trace=True,
                 choices=args.chosen)
    if str(ans.type) != "Effects":
        raise _point(argv, f"'{args.question}' is a {ans.type}, not a procedure: use ask or explain")
    if args.json:
        out = answer_json(ans)
        out["log"] = [text for _, text in ans.log]
        print(json.dumps(out, ensure_ascii=False, indent=2))
        return 0
    print(event_log(ans, args.lang))
    return 0


def cmd_odds(args, argv) -> int:
    rb, state, rolls, options = _question_inputs(args, argv)
    t, dist = rb.odds(args.question, state, rolls, options, args.chosen)
    rows = sorted(dist.items(), key=lambda kv: (kv[0][0], -kv[1], kv[0][1]))
    if args.json:
        print(json.dumps({"question": args.question, "type": str(t), "outcomes": [
            {"choices": made, "outcome": k, "fraction": f"{p.numerator}/{p.denominator}",
             "percent": round(float(p) * 100, 4)} for (made, k), p in rows]},
            ensure_ascii=False, indent=2))
        return 0
    width = max(len(k) for (_, k), _ in rows)
    print(f"odds of {args.question}:")
    group = None
    for (made, k), p in rows:
        if made != group and made:
            print(f"  if {made}:")
        group = made
        pad = "    " if made else "  "
        frac = f"{p.numerator}/{p.denominator}"
        print(f"{pad}{k:<{width}}  {frac:>9}  {float(p) * 100:7.3f}%")
    return 0


def cmd_render(args, argv) -> int:
    from .render import render_site
    rb = _open(args.rulebook, argv, args.variant)
    variant = rb.model if rb.model.base is not None else None
    if variant is not None:
        from .diff import semantic_diff            # the redline shows the odds that change
    from .coverage import uncovered_of
    written = render_site(rb.model, args.out, args.lang, variant,
                          semantic_diff(rb) if variant is not None else None, uncovered_of(rb))
    print(f"wrote {len(written)} files to {args.out}")
    return 0


def cmd_fmt(args, argv) -> int:
    import os
    from .fmt import format_paths
    for p in args.paths:
        if not os.path.exists(p):
            from .errors import fail
            fail(_where(argv, p), "E010", f"no such file or folder: '{p}'")
    changed, status = format_paths(args.paths, args.check)
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
    for v in args.variant:
        if not is_variant(v):
            from .errors import fail
            fail(_where(argv, v), "E800", f"'{v}' is not a variant file",
                 'a variant file starts with: variant "Title" of "path"')
        own = os.path.realpath(resolve_main(base_path(parse_variant(v), v)))
        if own != os.path.realpath(resolve_main(args.base, _where(argv, args.base))):
            from .errors import fail
            fail(_where(argv, v), "E907", f"'{v}' patches another rulebook than '{args.base}'")
    rb = _open(args.variant[0], argv, args.variant[1:])
    result = semantic_diff(rb)
    if args.json:
        print(json.dumps(result, ensure_ascii=False, indent=2))
    else:
        print(render_text(result))
    return 0


def cmd_coverage(args, argv) -> int:
    from .coverage import coverage_command
    if args.fail_under is not None and not 0 <= args.fail_under <= 100:
        raise _point(argv, "--fail-under takes a percentage from 0 to 100, "
                     f"not {args.fail_under:g}")
    return coverage_command([_open(p, argv) for p in args.paths], args.json, args.fail_under,
                            args.verbose)


COMMANDS = {"check": cmd_check, "test": cmd_test, "ask": cmd_ask, "explain": cmd_explain,
            "odds": cmd_odds, "diff": cmd_diff, "run": cmd_run, "render": cmd_render,
            "fmt": cmd_fmt, "coverage": cmd_coverage}


def cmd_lsp(args, argv) -> int:
    from .lsp import serve           # imported here: only the server pays for pygls
    serve()
    return 0


COMMANDS["lsp"] = cmd_lsp


if __name__ == "__main__":
    sys.exit(main())
