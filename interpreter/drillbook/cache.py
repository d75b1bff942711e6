"""Load stage, cached: a checked model kept on disk, keyed by everything it was made from.

An entry is found by what was asked (the rulebook's path, its variants, the working
folder that shortens the paths in messages, drillbook's version and code, Python's
version) and holds the content hash of every file the load read.  It is used only when
each of those files still has that hash; otherwise, or when it cannot be read or
unpickled, it is ignored and rebuilt.  Entries are written atomically (a temporary file
renamed into place).  Only a model that checked without errors is kept, with its
warnings, so a cached open prints what a fresh one prints and never hides an error.

The folder is ``$DRILLBOOK_CACHE_DIR`` or the user's cache folder (platformdirs);
``--no-cache`` (``enabled = False``) bypasses it.
"""
from __future__ import annotations

import gc
import hashlib
import os
import pickle
import sys
from contextlib import contextmanager

from . import loader
from .errors import remember_source

enabled = True                  # the CLI's --no-cache turns it off
freeze = False                  # a process that opens one rulebook: never scan it again
FORMAT = 1                      # bump when what an entry holds changes


def folder() -> str:
    where = os.environ.get("DRILLBOOK_CACHE_DIR")
    if where:
        return where
    try:
        from platformdirs import user_cache_dir
    except ImportError:               # an environment without it: the usual place
        return os.path.join(os.path.expanduser("~"), ".cache", "drillbook")
    return user_cache_dir("drillbook", appauthor=False)


def _code_fingerprint() -> str:
    """drillbook's version and its own files (size and time), so that a changed
    interpreter (an editable install, a new release) never reads an old entry."""
    from . import __version__ as own
    here = os.path.dirname(os.path.abspath(__file__))
    h = hashlib.sha256(f"{FORMAT}|{own}|{sys.version}|{sys.implementation.cache_tag}".encode())
    for base, dirs, files in os.walk(here):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith((".py", ".lark")):
                st = os.stat(os.path.join(base, name))
                h.update(f"{base}/{name}:{st.st_size}:{st.st_mtime_ns}".encode())
    return h.hexdigest()


_FINGERPRINT: list = []


def _key(path: str, variants) -> str:
    if not _FINGERPRINT:
        _FINGERPRINT.append(_code_fingerprint())
    what = "\0".join([_FINGERPRINT[0], os.getcwd(), os.path.realpath(path)]
                     + [os.path.realpath(v) for v in variants])
    return hashlib.sha256(what.encode()).hexdigest()


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@contextmanager
def quiet_gc():
    """No garbage collection while a load builds its many small objects (none of them is
    garbage yet).  In a process that answers one command (``freeze``), what the load built
    is then moved out of the collector's sight for good (``gc.freeze``), so that the first
    collections after it do not scan the whole model; elsewhere collections resume."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if freeze:
            gc.freeze()
        if was:
            gc.enable()


def _read(entry: str):
    """The cached model, or None when the entry is missing, corrupt or stale."""
    try:
        with open(entry, "rb") as fh:
            files, blob = pickle.load(fh)
        texts = []
        for real, shown, digest in files:
            with open(real, encoding="utf-8") as fh:
                text = fh.read()
            if _digest(text) != digest:
                return None           # a file changed since: rebuild
            texts.append((shown, text))
        model = pickle.loads(blob)
    except Exception:                 # unreadable, truncated, from another version...
        return None
    for shown, text in texts:         # messages quote source lines, as after a parse
        remember_source(shown, text)
    return model


def _write(entry: str, files, model) -> None:
    try:
        blob = pickle.dumps(model, protocol=pickle.HIGHEST_PROTOCOL)
        data = pickle.dumps((files, blob), protocol=pickle.HIGHEST_PROTOCOL)
        import tempfile
        os.makedirs(os.path.dirname(entry), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(entry), prefix=".tmp-")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, entry)
        except BaseException:
            os.unlink(tmp)
            raise
    except (OSError, pickle.PicklingError, RecursionError, TypeError, AttributeError):
        pass                          # a cache that cannot be written is only slower


def checked_model(path: str, variants, build):
    """``build()`` (load and check), or the model an earlier identical build left."""
    if not enabled or loader._SOURCES.get() is not None or "\0" in "".join([path, *variants]):
        # off, an editor's texts, or a path no file can have (loading says so, located)
        with quiet_gc():
            return build()
    entry = os.path.join(folder(), "models", _key(path, variants) + ".pickle")
    with quiet_gc():
        model = _read(entry)
        if model is not None:
            return model
        reads: list = []
        loader.READS = reads
        try:
            model = build()
        finally:
            loader.READS = None
    files = [(os.path.realpath(p), loader.display_path(p), _digest(t)) for p, t in reads]
    if files:                         # what was read is what the entry is checked against
        _write(entry, files, model)
    return model
