"""Files (load stage): read a rulebook or state file the user named — a regular file only.

A device (``/dev/zero``), a pipe nobody writes to, a folder or a file larger than
``limits.MAX_FILE_BYTES`` is refused with a located error (E526) instead of being read for
ever; text that is not UTF-8 is E011; a file that cannot be read is E010.
"""
from __future__ import annotations

import os
import stat

from .errors import Loc, fail
from .limits import MAX_FILE_BYTES


def read_text(path: str, loc: Loc, what: str = "") -> str:
    """The UTF-8 text of the regular file at ``path``, line endings as written."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as e:
        fail(loc, "E010", f"cannot read {what}'{path}': {e.strerror}")
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = "a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file"
            fail(loc, "E526", f"'{path}' is {kind}; drillbook reads regular files only")
        if info.st_size > MAX_FILE_BYTES:
            fail(loc, "E526", f"'{path}' has {info.st_size:,} bytes; the limit is "
                 f"{MAX_FILE_BYTES:,}")
        chunks, size = [], 0
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            size += len(chunk)
            if size > MAX_FILE_BYTES:
                fail(loc, "E526", f"'{path}' has more than {MAX_FILE_BYTES:,} bytes; "
                     "that is the limit")
            chunks.append(chunk)
    except OSError as e:
        fail(loc, "E010", f"cannot read {what}'{path}': {e.strerror}")
    finally:
        os.close(fd)
    data = b"".join(chunks)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        fail(loc, "E011", f"'{path}' is not UTF-8 text (byte {e.start + 1} is not)")
    return text
