"""Editor stage: the language server — pygls wiring of the features over stdio.

Keeps the editor's open texts (pygls' workspace), one ``Analysis`` per rulebook or variant,
and the last analysis that produced a model (so that a file with a syntax error still has
hover and completion from its last good state).  Diagnostics are recomputed on open and
save at once, and on change after ``DEBOUNCE`` seconds of quiet.  No error in a rulebook,
and no bug in a feature, stops the server: a feature that fails answers nothing and logs
why, and a failed analysis is published as an ``E999`` diagnostic.
"""
from __future__ import annotations

import asyncio
import os
import sys
import traceback

from lsprotocol import types as T
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer

from .. import __version__
from ..errors import Diagnostic, Loc
from . import complete, features as F, index
from .project import Analysis, ParseCache, analyse, find_main, first_word, real, text_of

DEBOUNCE = 0.05


class RequestFailed(JsonRpcException):
    CODE = -32803       # LSP's RequestFailed: the request was valid but could not be done


class DrillbookServer(LanguageServer):
    def __init__(self):
        super().__init__("drillbook", __version__,
                         text_document_sync_kind=T.TextDocumentSyncKind.Incremental)
        self.cache = ParseCache()
        self.analyses: dict[str, Analysis] = {}    # main -> latest
        self.good: dict[str, Analysis] = {}        # main -> latest with a model
        self.main_of: dict[str, str] = {}          # file -> main
        self.timers: dict[str, asyncio.TimerHandle] = {}

    # ------------------------------------------------------------ state
    def texts(self) -> dict:
        return {F.path_of(u): d.source for u, d in self.workspace.text_documents.items()}

    def roots(self) -> list[str]:
        roots = [F.path_of(f.uri) for f in (self.workspace.folders or {}).values()]
        if self.workspace.root_uri:
            roots.append(F.path_of(self.workspace.root_uri))
        return sorted(set(roots))

    def main_for(self, path: str) -> str:
        for main, a in list(self.analyses.items()) + list(self.good.items()):
            if main == path or (a.variant is None and path in a.files):
                return main
        return find_main(path, self.texts(), lambda main: self.good.get(
            main, self.analysis_of(main)).files)

    def text(self, path: str) -> str:
        return text_of(path, self.texts()) or ""

    def analysis(self, path: str, fresh=False) -> Analysis:
        main = self.main_of.get(path) or self.main_for(path)
        self.main_of[path] = main
        return self.analysis_of(main, fresh)

    def analysis_of(self, main: str, fresh=False) -> Analysis:
        if fresh or main not in self.analyses:
            a = analyse(main, self.texts(), self.cache)
            self.analyses[main] = a
            if a.model is not None or (a.base is not None and a.base.model is not None):
                self.good[main] = a
        return self.analyses[main]

    def usable(self, path: str) -> Analysis | None:
        a = self.analysis(path)
        return self.good.get(a.main, a)

    def index_of(self, a: Analysis) -> index.Index | None:
        """The analysis' index of names, built the first time a feature needs it."""
        if a.index is not None:
            return a.index
        if a.variant is not None and a.base is not None and a.base.model is not None:
            ix = index.add_variant(index.build(a.base.model), a.variant, a.model)
        elif a.model is not None:
            ix = index.build(a.model)
        else:
            return None
        a.index = ix
        return ix

    # ------------------------------------------------------------ diagnostics
    def refresh(self, path: str) -> None:
        try:
            a = self.analysis(path, fresh=True)
            for p, main in list(self.main_of.items()) if a.model is not None else []:
                if main == a.main and p not in a.files:     # no longer used by it
                    del self.main_of[p]
            self.publish(a)
            for other in list(self.texts()):
                if other != a.main and first_word(self.text(other)) == "variant":
                    v = self.analysis(other, fresh=True)
                    if v.base is not None and v.base.main == a.main:
                        self.publish(v)
        except Exception as e:     # a bug in drillbook: say so where the user looks
            self.crashed(path, e)

    def publish(self, a: Analysis) -> None:
        paths = [a.main] if a.variant is not None else a.files
        for p in paths:
            self.text_document_publish_diagnostics(T.PublishDiagnosticsParams(
                uri=F.uri(p), diagnostics=F.diagnostics(a, p)))

    def crashed(self, path: str, e: Exception) -> None:
        print("drillbook lsp: internal error\n" + traceback.format_exc(), file=sys.stderr)
        d = Diagnostic(Loc(path), "E999", f"internal error: {type(e).__name__}: {e}",
                       "this is a bug in drillbook, not in your rulebook; please report it")
        a = Analysis(path, [path], diagnostics={path: [d]})
        self.text_document_publish_diagnostics(T.PublishDiagnosticsParams(
            uri=F.uri(path), diagnostics=F.diagnostics(a, path)))

    def later(self, path: str) -> None:
        main = self.main_of.get(path, path)
        if main in self.timers:
            self.timers[main].cancel()
        loop = asyncio.get_running_loop()
        self.timers[main] = loop.call_later(DEBOUNCE, self.refresh, path)


server = DrillbookServer()


def _safe(fn):
    """A feature that fails logs why and answers nothing; the server goes on."""
    def run(ls, params):
        try:
            return fn(ls, params)
        except RequestFailed:
            raise
        except Exception:
            print(f"drillbook lsp: {fn.__name__} failed\n" + traceback.format_exc(),
                  file=sys.stderr)
            return None
    run.__name__ = fn.__name__
    return run


def _where(params):
    path = F.path_of(params.text_document.uri)
    return path, *F.from_lsp(path, params.position)


@server.feature(T.INITIALIZED)
def initialized(ls: DrillbookServer, params: T.InitializedParams):
    F.ENCODING["unit"] = str(ls.server_capabilities.position_encoding or "utf-16")


@server.feature(T.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: DrillbookServer, params: T.DidOpenTextDocumentParams):
    path = F.path_of(params.text_document.uri)
    ls.main_of.pop(path, None)
    ls.refresh(path)


@server.feature(T.TEXT_DOCUMENT_DID_CHANGE)
async def did_change(ls: DrillbookServer, params: T.DidChangeTextDocumentParams):
    ls.later(F.path_of(params.text_document.uri))


@server.feature(T.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: DrillbookServer, params: T.DidSaveTextDocumentParams):
    ls.refresh(F.path_of(params.text_document.uri))


@server.feature(T.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: DrillbookServer, params: T.DidCloseTextDocumentParams):
    ls.refresh(F.path_of(params.text_document.uri))


@server.feature(T.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def watched_files(ls: DrillbookServer, params: T.DidChangeWatchedFilesParams):
    """A .drill file changed on disk (a checkout, ``drillbook fmt``): check again every
    rulebook that uses it."""
    changed = {F.path_of(c.uri) for c in params.changes}
    for main, a in list(ls.analyses.items()):
        if changed & set(a.files):
            ls.refresh(main)


@server.feature(T.TEXT_DOCUMENT_HOVER)
@_safe
def hover(ls: DrillbookServer, params: T.HoverParams):
    path, line, col = _where(params)
    a = ls.usable(path)
    ix = ls.index_of(a)
    return F.hover(a, ix, path, line, col) if ix is not None else None


@server.feature(T.TEXT_DOCUMENT_DEFINITION)
@_safe
def definition(ls: DrillbookServer, params: T.DefinitionParams):
    path, line, col = _where(params)
    ix = ls.index_of(ls.usable(path))
    return F.definition(ix, path, line, col) if ix is not None else None


@server.feature(T.TEXT_DOCUMENT_REFERENCES)
@_safe
def references(ls: DrillbookServer, params: T.ReferenceParams):
    path, line, col = _where(params)
    ix = ls.index_of(ls.usable(path))
    return F.references(ix, path, line, col, params.context.include_declaration) if ix else None


@server.feature(T.TEXT_DOCUMENT_COMPLETION,
                T.CompletionOptions(trigger_characters=[".", "(", "[", ",", " "]))
@_safe
def completion(ls: DrillbookServer, params: T.CompletionParams):
    path = F.path_of(params.text_document.uri)
    text = ls.workspace.get_text_document(params.text_document.uri).source
    line = params.position.line + 1
    lines = text.splitlines()
    col = F.column(lines[line - 1] if line <= len(lines) else "", params.position.character)
    trigger = params.context.trigger_character if params.context else None
    return complete.completion(ls.index_of(ls.usable(path)), text, path, line, col,
                               only_sure=trigger == " ")


@server.feature(T.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
@_safe
def document_symbol(ls: DrillbookServer, params: T.DocumentSymbolParams):
    path = F.path_of(params.text_document.uri)
    a = ls.analysis(path)
    if path not in a.parsed:
        a = ls.usable(path)
    return F.document_symbols(a, path)


@server.feature(T.WORKSPACE_SYMBOL)
@_safe
def workspace_symbol(ls: DrillbookServer, params: T.WorkspaceSymbolParams):
    for root in ls.roots():
        for folder, dirs, files in os.walk(root):
            dirs[:] = [d for d in dirs if not d.startswith(".") and d != "node_modules"]
            if "rulebook.drill" in files:
                ls.analysis(real(os.path.join(folder, "rulebook.drill")))
    indexes = [ls.index_of(ls.good.get(m, a)) for m, a in ls.analyses.items()]
    return F.workspace_symbols([ix for ix in indexes if ix is not None], params.query)


@server.feature(T.TEXT_DOCUMENT_FORMATTING)
@_safe
def formatting(ls: DrillbookServer, params: T.DocumentFormattingParams):
    doc = ls.workspace.get_text_document(params.text_document.uri)
    return F.formatting(F.path_of(params.text_document.uri), doc.source)


@server.feature(T.TEXT_DOCUMENT_CODE_ACTION,
                T.CodeActionOptions(code_action_kinds=[T.CodeActionKind.QuickFix]))
@_safe
def code_action(ls: DrillbookServer, params: T.CodeActionParams):
    path = F.path_of(params.text_document.uri)
    return F.code_actions(ls.analysis(path), path, params.range)


def _rename_context(ls, params):
    path, line, col = _where(params)
    a = ls.usable(path)
    ix = ls.index_of(a)
    if ix is None:
        raise RequestFailed("the rulebook does not check yet, so its names are not known")
    base = a.base.main if a.base is not None else a.main
    roots = ls.roots() + [os.path.dirname(base)]
    others = F.workspace_variants(roots, base, ls.texts(), ls.cache,
                                  skip=a.main if a.variant is not None else None)
    return ix, path, line, col, others


@server.feature(T.TEXT_DOCUMENT_PREPARE_RENAME)
@_safe
def prepare_rename(ls: DrillbookServer, params: T.PrepareRenameParams):
    path, line, col = _where(params)
    ix = ls.index_of(ls.usable(path))
    occ = ix.at(path, line, col) if ix is not None else None
    if occ is None or occ.key[0] not in F.RENAMEABLE:
        raise RequestFailed("there is no rule, level or field to rename here")
    return T.PrepareRenamePlaceholder(F.span_range(occ.span), occ.key[-1])


@server.feature(T.TEXT_DOCUMENT_RENAME)
@_safe
def rename(ls: DrillbookServer, params: T.RenameParams):
    ix, path, line, col, others = _rename_context(ls, params)
    try:
        return F.rename(ix, path, line, col, params.new_name, others)
    except F.Refused as why:
        ls.window_show_message(T.ShowMessageParams(T.MessageType.Warning,
                                                   f"drillbook: cannot rename: {why}"))
        raise RequestFailed(f"cannot rename: {why}") from None


def serve() -> None:
    server.start_io()
