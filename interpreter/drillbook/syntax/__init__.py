"""Parse stage: rulebook text → AST, with Lark's errors turned into drillbook's own.

``parse_file(path, text)`` returns an ``ast.SourceFile``; ``parse_expr(text, path)``
returns one expression (for ``drillbook ask``).  The Lark parser is built once per process.
"""
from __future__ import annotations

import os
from functools import lru_cache

from lark import Lark, Token, Tree
from lark.exceptions import (LarkError, UnexpectedCharacters, UnexpectedEOF,
                             UnexpectedInput, UnexpectedToken, VisitError)
from lark.indenter import Indenter
from lark.visitors import _vargs_inline, _vargs_meta, _vargs_meta_inline

from ..errors import DrillError, Loc, fail, remember_source
from ..lines import normalize, split_lines
from .build import Builder
from .friendly import explain_unexpected


class Layout(Indenter):
    """Indentation → _INDENT/_DEDENT tokens; newlines are free inside ( ) and [ ]."""
    NL_type = "_NL"
    OPEN_PAREN_types = ["LPAR", "LSQB"]
    CLOSE_PAREN_types = ["RPAR", "RSQB"]
    INDENT_type = "_INDENT"
    DEDENT_type = "_DEDENT"
    tab_len = 8

    def __init__(self):
        super().__init__()
        self.path = "<input>"

    def handle_NL(self, token):
        if self.paren_level > 0:
            return
        yield token
        indent_str = token.rsplit("\n", 1)[1]
        indent = indent_str.count(" ") + indent_str.count("\t") * self.tab_len
        if indent > self.indent_level[-1]:
            self.indent_level.append(indent)
            yield Token.new_borrow_pos(self.INDENT_type, indent_str, token)
            return
        while indent < self.indent_level[-1]:
            self.indent_level.pop()
            yield Token.new_borrow_pos(self.DEDENT_type, indent_str, token)
        if indent != self.indent_level[-1]:
            line = (token.end_line or token.line)
            fail(Loc(self.path, line, indent + 1), "E003",
                 f"this line is indented to column {indent + 1}, which matches no enclosing block",
                 f"indent it to column {self.indent_level[-1] + 1} like the lines of its block")

    def _process(self, stream):
        token = None
        started = False
        opened = []
        for token in stream:
            if token.type == self.NL_type:
                if started:         # newlines and comments before the first line are nothing
                    yield from self.handle_NL(token)
            else:
                started = True
                yield token
            if token.type in self.OPEN_PAREN_types:
                self.paren_level += 1
                opened.append(token)
            elif token.type in self.CLOSE_PAREN_types:
                if self.paren_level == 0:
                    fail(Loc(self.path, token.line, token.column), "E004",
                         f"'{token}' closes nothing", "remove it or add the opening bracket")
                self.paren_level -= 1
                opened.pop()
        if opened:
            tok = opened[-1]
            fail(Loc(self.path, tok.line, tok.column), "E004", f"this '{tok}' is never closed",
                 "close it before the end of the rule")
        while len(self.indent_level) > 1:
            self.indent_level.pop()
            if token is not None:
                yield Token.new_borrow_pos(self.DEDENT_type, "", token)
            else:
                yield Token(self.DEDENT_type, "", 0, 1, 1, 1, 1, 0)


def _grammar_text() -> str:
    here = os.path.dirname(os.path.abspath(__file__))   # the package's own folder, as installed
    with open(os.path.join(here, "drillbook.lark"), encoding="utf-8") as fh:
        return fh.read()


_META_INLINE, _INLINE, _META, _PLAIN = range(4)     # how a builder method takes its node


def _calls(cls) -> dict:
    """Each grammar rule's builder method and how it is called (``f(builder, meta,
    *children)``, ``f(builder, *children)``, ``f(builder, meta, children)`` or ``f(builder,
    children)``), read once from the ``v_args`` each method is declared with."""
    shapes = {_vargs_meta_inline: _META_INLINE, _vargs_inline: _INLINE, _vargs_meta: _META}
    calls = {}
    for klass in reversed(cls.__mro__):
        for name, attr in vars(klass).items():
            if name.startswith("_"):
                continue
            wrapper = getattr(attr, "visit_wrapper", None)
            if wrapper is not None:
                calls[name] = (shapes[wrapper], attr.base_func)
            elif callable(attr):
                calls[name] = (_PLAIN, attr)
    return calls


_CALLS = _calls(Builder)
_building: list = [None]          # the Builder of the parse under way


class _Node(Tree):
    """A grammar rule matched during the parse.  Lark sets its position after building it
    (``propagate_positions``), so its parent, when it is built in turn, makes the AST node of
    each child with its final position: the AST grows during the parse, with no second pass
    over a parse tree."""
    __slots__ = ()

    def __init__(self, data, children, meta=None):
        self.data = data
        self._meta = meta
        builder = _building[0]
        if builder is None:            # a bare parse tree (matching the mistakes' examples)
            self.children = children
            return
        node, calls = _Node, _CALLS
        kids = []
        for c in children:
            if c.__class__ is node:    # the child as its AST node
                got = calls.get(c.data)
                if got is None:
                    c = builder.__default__(c.data, c.children, c.meta)
                else:
                    shape, f = got
                    if shape == _META_INLINE:
                        c = f(builder, c._meta or c.meta, *c.children)
                    elif shape == _INLINE:
                        c = f(builder, *c.children)
                    elif shape == _META:
                        c = f(builder, c._meta or c.meta, c.children)
                    else:
                        c = f(builder, c.children)
            kids.append(c)
        self.children = kids

    def built(self):
        """This node's AST node (the root's: every other is built by its parent)."""
        return _Node(self.data, [self]).children[0]


@lru_cache(maxsize=None)
def _parser(starts=("start", "expr_start")) -> tuple[Lark, Layout]:
    layout = Layout()
    parser = Lark(_grammar_text(), parser="lalr", postlex=layout, start=list(starts),
                  propagate_positions=True, maybe_placeholders=True, cache=True,
                  tree_class=_Node)
    return parser, layout


def _expr_parser() -> tuple[Lark, Layout]:
    """The same grammar from its expression rule only: a question needs no more, and its
    smaller table loads several times faster than the whole language's."""
    return _parser(("expr_start",))


def grammar_keywords() -> set[str]:
    """The reserved words of the language, read from the grammar (for highlighters)."""
    parser, _ = _parser()
    words = set()
    for term in parser.terminals:
        pat = term.pattern
        if pat.type == "str" and pat.value.isalpha():
            words.add(pat.value)
    return words


def _run(text: str, path: str, start: str):
    text = normalize(text)
    remember_source(path, text)
    parser, layout = _parser() if start == "start" else _expr_parser()
    layout.path = path
    if not text.endswith("\n"):
        text += "\n"
    _building[0] = Builder(path)
    try:
        tree = parser.parse(text, start=start)
        return tree.built() if tree.__class__ is _Node else tree
    except VisitError as e:        # fail() raised inside the builder
        if isinstance(e.orig_exc, DrillError):
            raise e.orig_exc from None
        raise
    except UnexpectedInput as e:
        _building[0] = None
        if parser is not _parser()[0]:      # explained in the whole language's parser
            full, full_layout = _parser()   # states, where the typical mistakes are matched
            full_layout.path = path
            try:
                full.parse(text, start=start)
            except UnexpectedInput as again:
                e = again
        loc, message, hint = explain_unexpected(e, text, path)
        fail(loc, "E001", message, hint)
    except LarkError as e:         # anything else Lark can say about the input
        fail(Loc(path), "E001", f"cannot parse this file: {e}")


def parse_file(path: str, text: str):
    """Parse one .drill file into an ``ast.SourceFile``."""
    if "\t" in text:
        for n, line in enumerate(split_lines(text), 1):
            stripped = line.lstrip(" ")
            if stripped.startswith("\t"):
                remember_source(path, text)
                fail(Loc(path, n, len(line) - len(stripped) + 1), "E002",
                     "tabs are not allowed in indentation", "indent with spaces")
    return _run(text, path, "start")


def parse_expr(text: str, path: str = "<expression>"):
    """Parse a single expression (the question of ``drillbook ask``)."""
    if "\n" in normalize(text.strip()):
        remember_source(path, text.strip())
        fail(Loc(path), "E001", "an expression must be on one line")
    return _run(text.strip(), path, "expr_start")


__all__ = ["parse_file", "parse_expr", "grammar_keywords", "DrillError",
           "UnexpectedCharacters", "UnexpectedEOF", "UnexpectedToken"]
