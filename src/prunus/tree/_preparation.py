"""Kernels a grower runs once over X before its first growth.

On a table of a few thousand rows the grower's preparation is a visible
part of a cross-validated fit (every fold grows from it, after it): each of
these replaces numpy passes that cost tens of microseconds per column by one
compiled pass over the rows.
"""

import numpy as np

from .._compiled import njit


@njit(cache=True, nogil=True)
def first_bad_level_column(X, n_categories):
    """The first categorical column of ``X`` (``n_categories[f] > 0``) holding a
    value other than a level code ``0 .. n_categories[f] - 1`` or NaN, else -1.

    ``X`` is C-contiguous: the rows are read in storage order. A value is a
    code when it lies in ``[0, L)`` and survives the round trip through an
    integer (``floor`` is a library call on the generic x86-64 target the
    shipped kernels are built for)."""
    n, d = X.shape
    bad = d
    for i in range(n):
        for f in range(bad):
            levels = n_categories[f]
            if levels == 0:
                continue
            v = X[i, f]
            if v != v:
                continue
            if not (v >= 0.0 and v < levels and np.float64(np.int64(v)) == v):
                bad = f
                break
    return -1 if bad == d else bad


@njit(cache=True, nogil=True)
def rows_with_missing(X):
    """Ascending ids (int64) of the rows of the C-contiguous ``X`` that miss a value (NaN)."""
    n, d = X.shape
    rows = np.empty(n, dtype=np.int64)
    m = 0
    for i in range(n):
        missing = False
        for f in range(d):
            v = X[i, f]
            missing |= v != v
        rows[m] = i
        m += missing
    return rows[:m].copy()


@njit(cache=True, nogil=True)
def level_order(X, feature, n_levels, out):
    """The order of the rows of ``X`` by the level code of ``feature`` (checked
    codes ``0 .. n_levels - 1``, NaN missing), missing values last, ties in
    row order, written to ``out`` (int32): a counting sort, the order numpy's
    stable sort gives the codes' floats (-0.0 is level 0)."""
    n = X.shape[0]
    start = np.zeros(n_levels + 2, dtype=np.int64)
    for i in range(n):
        v = X[i, feature]
        code = n_levels if v != v else np.int64(v)
        start[code + 1] += 1
    for code in range(n_levels + 1):
        start[code + 1] += start[code]
    for i in range(n):
        v = X[i, feature]
        code = n_levels if v != v else np.int64(v)
        out[start[code]] = i
        start[code] += 1


#: The bit of a float64's sign, and the key of a missing value (above every value's).
_SIGN = np.uint64(1) << np.uint64(63)
_MISSING_KEY = ~np.uint64(0)


@njit(cache=True, nogil=True)
def value_order(X, feature, out):
    """The order of the rows of ``X`` by the values of ``feature``, missing
    values (NaN) last, ties in row order, written to ``out`` (int32): the
    order of numpy's stable argsort, by a least-significant-digit radix sort.

    Each value becomes an unsigned key in the order of the values: its
    IEEE-754 bits with the sign bit set for a non-negative value and every
    bit flipped for a negative one, -0.0 read as 0.0 (numpy's sort holds
    them equal) and every NaN the largest key. The keys are then sorted by
    their eight bytes, lowest first, each pass a stable counting sort, and
    a byte every key shares is skipped. Its cost is linear in the rows with
    no data-dependent branch: a stable comparison sort of 2,000 distinct
    values mispredicts its branches (about 100 us, against 50 us when one
    column is sorted again and again, as a micro-benchmark does).
    """
    n = X.shape[0]
    values = np.empty(n)
    for i in range(n):
        v = X[i, feature]
        values[i] = 0.0 if v == 0.0 else v
    bits = values.view(np.uint64)
    keys = np.empty(n, dtype=np.uint64)
    counts = np.zeros((8, 256), dtype=np.int64)
    byte = np.uint64(255)
    for i in range(n):
        b = bits[i]
        if values[i] != values[i]:
            k = _MISSING_KEY
        elif b & _SIGN:
            k = ~b
        else:
            k = b | _SIGN
        keys[i] = k
        for p in range(8):
            counts[p, np.intp((k >> np.uint64(8 * p)) & byte)] += 1
    rows = np.empty(n, dtype=np.int32)
    for i in range(n):
        rows[i] = i
    keys_to = np.empty(n, dtype=np.uint64)
    rows_to = np.empty(n, dtype=np.int32)
    for p in range(8):
        shift = np.uint64(8 * p)
        if n == 0 or counts[p, np.intp((keys[0] >> shift) & byte)] == n:
            continue  # every key has this byte: the pass would leave the order as it is
        start = 0
        for digit in range(256):
            c = counts[p, digit]
            counts[p, digit] = start
            start += c
        for i in range(n):
            k = keys[i]
            digit = np.intp((k >> shift) & byte)
            position = counts[p, digit]
            keys_to[position] = k
            rows_to[position] = rows[i]
            counts[p, digit] = position + 1
        keys, keys_to = keys_to, keys
        rows, rows_to = rows_to, rows
    out[:] = rows


@njit(cache=True, nogil=True)
def presorted_order(X, n_categories):
    """Every feature's order of the rows of the C-contiguous ``X`` (int32,
    shape (n_features, n_rows)), missing values last, ties in row order: the
    order of numpy's stable argsort of each column, by :func:`level_order`
    for a categorical feature (``n_categories[f] > 0``) and
    :func:`value_order` for the others."""
    n, d = X.shape
    order = np.empty((d, n), dtype=np.int32)
    for f in range(d):
        if n_categories[f] > 0:
            level_order(X, f, n_categories[f], order[f])
        else:
            value_order(X, f, order[f])
    return order
