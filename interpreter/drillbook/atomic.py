"""Files (render stage): put a freshly written folder in the place of an old one, in one step.

``swap_in(new, target)``: if ``target`` does not exist, ``new`` is renamed to it; if it does,
the two folders are exchanged by one ``renameat2(RENAME_EXCHANGE)`` call, so that at every
instant ``target`` is either the whole old site or the whole new one, even if drillbook is
killed; the old one (now at ``new``) is then removed.  Where the system has no such call,
two renames are used, and the old folder is put back if the second fails.
"""
from __future__ import annotations

import errno
import os
import shutil
import tempfile

_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(a: str, b: str) -> bool:
    """Exchange two paths atomically; False where the system cannot."""
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        call = libc.renameat2
    except (OSError, AttributeError):
        return False
    call.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                     ctypes.c_uint]
    if call(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
        return False
    raise OSError(err, os.strerror(err), b)


def swap_in(new: str, target: str) -> None:
    if not os.path.isdir(target):
        os.rename(new, target)
        return
    if _exchange(new, target):
        shutil.rmtree(new, ignore_errors=True)
        return
    parent = os.path.dirname(target)
    old = tempfile.mkdtemp(prefix="." + os.path.basename(target) + ".old-", dir=parent)
    os.rmdir(old)
    os.rename(target, old)
    try:
        os.rename(new, target)
    except BaseException:
        os.rename(old, target)
        raise
    shutil.rmtree(old, ignore_errors=True)
