"""Editor stage: ``drillbook lsp``, a language server over stdio for .drill files.

``project.py`` loads and checks the rulebook an open file belongs to from the editor's
texts (``parsecache.py`` re-parses only what changed); ``index.py`` finds every name's
declaration and uses; ``features.py`` and ``complete.py`` answer the editor's questions
as pure functions; ``server.py`` wires them to pygls.  pygls is imported only when the server starts, never by the rest of drillbook.
"""
from __future__ import annotations


def serve() -> None:
    """Run the language server on stdin/stdout until the client says exit."""
    from .server import serve as run
    run()
