"""Handing freed memory back to the operating system between large steps of a fit."""

from __future__ import annotations

import ctypes
import ctypes.util
import math
import mmap
import sys
from collections.abc import Callable

import numpy as np

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


#: Bytes from which :func:`mapped_empty` maps its own pages (below, a map's
#: page rounding and system calls would cost more than the heap keeps).
MAPPED_FROM_BYTES = 1 << 20


def mapped_empty(shape: int | tuple[int, ...], dtype: type | np.dtype = np.float64) -> np.ndarray:
    """An uninitialised C-ordered array that, from :data:`MAPPED_FROM_BYTES`,
    lives on its own anonymous memory map (``np.empty`` below).

    The large work arrays of a growth (presorted segments, scan scratch, node
    arrays) are tens of MB. From the C heap they come, with threads, from
    one heap per thread, whose top glibc gives back only above a trim
    threshold it raises as large blocks are freed, so that a fit's resident
    memory kept up to one growth's arrays per thread after they were freed.
    A map of their own is unmapped as soon as the array and its views are
    gone, whatever the allocator; pages never written are never resident.
    """
    dtype = np.dtype(dtype)
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    # Python integers: exact at any size, and a fraction of numpy's prod's cost.
    n_bytes = math.prod(int(k) for k in shape) * dtype.itemsize
    if n_bytes < MAPPED_FROM_BYTES:
        return np.empty(shape, dtype=dtype)
    try:
        buffer = mmap.mmap(-1, n_bytes)
    except (OSError, ValueError):  # no anonymous maps here: the heap then
        return np.empty(shape, dtype=dtype)
    return np.frombuffer(buffer, dtype=dtype).reshape(shape)
