"""Handing freed memory back to the operating system between large steps of a fit."""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
from collections.abc import Callable

_trim: Callable[[int], int] | None = None
_looked_up = False


def release_free_memory() -> None:
    """Return the C heap's free pages to the operating system (glibc's
    ``malloc_trim``; a no-op elsewhere).

    The arrays of one growth or one cross-validation fold (tens of MB below
    glibc's largest mmap threshold) come from the C heap, and with threads
    from one heap per thread; freed, they stay resident until the heap's top
    is free. Trimming after each fold keeps a fit's resident memory near what
    it uses (a few milliseconds per call; results are unaffected).
    """
    global _trim, _looked_up
    if not _looked_up:
        _looked_up = True
        if sys.platform.startswith("linux"):
            try:
                libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
                trim = libc.malloc_trim
                trim.argtypes = [ctypes.c_size_t]
                trim.restype = ctypes.c_int
                _trim = trim
            except (OSError, AttributeError):  # not glibc (e.g. musl): nothing to trim
                _trim = None
    if _trim is not None:
        _trim(0)
