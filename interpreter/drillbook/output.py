"""CLI, output: what a command prints goes out in UTF-8, bounded, and fails located.

``guard()`` wraps standard output for the length of one command:

- both streams are switched to UTF-8 whatever the locale says (``LC_ALL=C``,
  ``PYTHONIOENCODING=ascii``); a stream that cannot be switched gets escapes
  (``\\u0420``) for what its encoding cannot hold, never an encoding error;
- more than ``limits.MAX_OUTPUT_BYTES`` characters stop the command with E527;
- a write that fails (a full disk, ``/dev/full``) stops it with E804, and what is still
  buffered is dropped, so that Python does not complain again when it exits.
"""
from __future__ import annotations

import contextlib
import errno
import os
import shlex
import sys

from .errors import Diagnostic, DrillError, Loc, remember_source
from .limits import MAX_OUTPUT_BYTES

CMDLINE = "<command line>"


def _utf8(stream) -> None:
    try:
        stream.reconfigure(encoding="utf-8", errors="backslashreplace")
    except (AttributeError, ValueError, OSError):
        pass


class _Guarded:
    """Standard output, counted, with its errors turned into located ones."""

    def __init__(self, stream, argv):
        self._stream = stream
        self._argv = argv
        self._written = 0
        self._stopped = False

    def write(self, text: str) -> int:
        if self._stopped:
            return len(text)
        self._written += len(text)
        if self._written > MAX_OUTPUT_BYTES:
            self._stopped = True
            raise self._error("E527", f"the output is longer than {MAX_OUTPUT_BYTES:,} "
                              "characters; the limit is " f"{MAX_OUTPUT_BYTES:,}",
                              "ask about fewer things at once")
        try:
            return self._stream.write(text)
        except UnicodeEncodeError:
            enc = getattr(self._stream, "encoding", None) or "ascii"
            return self._stream.write(text.encode(enc, "backslashreplace").decode(enc))
        except OSError as e:
            self._broken(e)
            return len(text)

    def flush(self) -> None:
        if self._stopped:
            return
        try:
            self._stream.flush()
        except OSError as e:
            self._broken(e)

    def _broken(self, e: OSError):
        if e.errno == errno.EPIPE:
            raise BrokenPipeError(e.errno, e.strerror) from None
        self._stopped = True
        try:                        # what is still buffered goes nowhere, quietly
            os.dup2(os.open(os.devnull, os.O_WRONLY), self._stream.fileno())
        except (OSError, AttributeError, ValueError):
            pass
        raise self._error("E804", f"cannot write the output: {e.strerror or e}",
                          "free some space, or send the output elsewhere")

    def _error(self, code, message, hint) -> DrillError:
        line = "drillbook " + " ".join(shlex.quote(a) for a in self._argv)
        remember_source(CMDLINE, line)
        return DrillError([Diagnostic(Loc(CMDLINE, 1, 1), code, message, hint)])

    def __getattr__(self, name):
        return getattr(self._stream, name)


@contextlib.contextmanager
def guard(argv):
    """Standard output guarded for one command (see the module's docstring)."""
    real = sys.stdout
    _utf8(real)
    _utf8(sys.stderr)
    guarded = _Guarded(real, argv)
    sys.stdout = guarded
    try:
        yield guarded
    finally:
        if sys.stdout is guarded:
            sys.stdout = real


def finish(guarded: _Guarded, status: int) -> int:
    """Flush what the command printed; a failure is reported located (exit 1)."""
    try:
        guarded.flush()
    except DrillError as e:
        print(e.render(), file=sys.stderr)
        return 1
    except BrokenPipeError:
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), guarded.fileno())
        except (OSError, AttributeError, ValueError):
            pass
    return status
