"""Quantize features once per fit into at most ``max_bins`` ordered bins.

The split search of Adaptive-Pruning Boost only ever compares examples by the
order of their feature values, so each feature is replaced by small integer
bin codes. A feature with at most ``max_bins`` distinct values gets one bin per
value, which makes the search exact over *every* threshold; otherwise the bins
are (unweighted) quantiles of the distinct values, as in histogram boosting.
Thresholds are kept in raw units so fitted trees route raw inputs.

``fit_transform`` does both steps for a dense matrix. A column of integers
spanning at most ``LOOKUP_SPAN`` values (pixel levels, counts, codes) is
counted in one pass and binned through a lookup table indexed by the value,
which gives the bins ``np.unique`` and ``np.searchsorted`` would give at a
fraction of their cost; other columns take the general path.
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np
from scipy import sparse

from .._compiled import njit

SparseBins = namedtuple("SparseBins", ["indptr", "feat", "bins", "zbin"])
SparseBins.__doc__ = """Bin codes of a sparse matrix, row by row, without the codes equal to the bin of 0.0.

indptr : int64 array (n_samples + 1,), row ``i``'s entries are ``indptr[i]:indptr[i + 1]``.
feat : int32 array (nnz,), feature of each entry, increasing within a row.
bins : uint8 or uint16 array (nnz,), bin code of each entry.
zbin : int64 array (n_features,), the bin of 0.0 per feature: every entry not
    listed (implicit zeros, stored zeros, stored values binned with 0.0) has it.
"""


class Binning:
    """Per-feature bin edges in raw units (made by :func:`fit_binning`).

    Parameters
    ----------
    thresholds : list of ndarray
        ``thresholds[k][t]`` is the raw threshold separating bin ``t`` from
        bin ``t + 1`` of feature ``k``: a training value lies in a bin ``<= t``
        iff it is ``<= thresholds[k][t]``.

    Attributes
    ----------
    n_bins : ndarray of int64, shape (n_features,)
        Number of bins actually used by each feature (1 for a constant feature).
    """

    def __init__(self, thresholds: list[np.ndarray]) -> None:
        self.thresholds = thresholds
        self.n_bins = np.array([len(t) + 1 for t in thresholds], dtype=np.int64)

    def transform(self, X: Any) -> np.ndarray:
        """Bin codes, feature-major: an array of shape ``(n_features, n_samples)``.

        Feature-major storage keeps one feature's codes contiguous, which is
        what the per-feature ``assess`` kernels read.

        Parameters
        ----------
        X : ndarray or scipy sparse matrix of shape (n_samples, n_features)
            Raw features (sparse input is never densified).

        Returns
        -------
        codes : ndarray of uint8 or uint16, shape (n_features, n_samples)
            The bin of every value.
        """
        dtype = self.dtype
        if sparse.issparse(X):
            # Column by column from CSC: implicit zeros get the bin of 0.0, the
            # stored entries their own bins; X itself is never densified.
            X = _as_csc(X)
            out = np.empty((X.shape[1], X.shape[0]), dtype=dtype)
            for k, thr in enumerate(self.thresholds):
                lo, hi = X.indptr[k], X.indptr[k + 1]
                out[k] = np.searchsorted(thr, 0.0, side="left")
                out[k, X.indices[lo:hi]] = np.searchsorted(thr, X.data[lo:hi], side="left")
            return out
        # One transposed copy: a column of a row-major X is strided, and reading it
        # column by column missed the cache on every value.
        XT = _columns(X)
        out = np.empty(XT.shape, dtype=dtype)
        for k, thr in enumerate(self.thresholds):
            # side="left": a value equal to a threshold belongs to the lower bin,
            # matching the routing rule "left iff x <= threshold".
            out[k] = np.searchsorted(thr, XT[k], side="left")
        return out

    @property
    def dtype(self) -> np.dtype:
        """Dtype of the bin codes: uint8 up to 256 bins, else uint16."""
        return np.dtype(np.uint8 if self.n_bins.max() <= 256 else np.uint16)

    def transform_sparse(self, X: Any) -> SparseBins:
        """Bin codes of a sparse matrix as ``SparseBins``, in O(nnz + n_samples + n_features) memory.

        Entries whose bin is the bin of 0.0 are left out: they are
        indistinguishable from implicit zeros. The dense
        ``(n_features, n_samples)`` array of ``transform`` is never built.

        Parameters
        ----------
        X : scipy sparse matrix of shape (n_samples, n_features)
            Raw features.

        Returns
        -------
        bins : SparseBins
            ``indptr``, ``feat``, ``bins`` (row by row) and ``zbin``.
        """
        X = _as_csc(X)
        n, k = X.shape
        zbin = np.array([np.searchsorted(thr, 0.0, side="left") for thr in self.thresholds], dtype=np.int64)
        codes = np.empty(X.data.shape[0], dtype=self.dtype)
        for f, thr in enumerate(self.thresholds):
            lo, hi = X.indptr[f], X.indptr[f + 1]
            codes[lo:hi] = np.searchsorted(thr, X.data[lo:hi], side="left")
        indptr, feat, bins = _csc_to_rows(X.indptr, X.indices, codes, zbin, n)
        return SparseBins(indptr, feat, bins, zbin)


@njit(cache=True)
def _csc_to_rows(colptr, rows, codes, zbin, n):
    """Row-major (CSR) copy of the column-major codes, dropping codes equal to ``zbin`` of their column.

    A counting sort by row over the columns in increasing order, so the
    features of every row come out increasing.
    """
    k = colptr.shape[0] - 1
    indptr = np.zeros(n + 1, dtype=np.int64)
    for f in range(k):
        for e in range(colptr[f], colptr[f + 1]):
            if codes[e] != zbin[f]:
                indptr[rows[e] + 1] += 1
    for i in range(n):
        indptr[i + 1] += indptr[i]
    nnz = indptr[n]
    feat = np.empty(nnz, dtype=np.int32)
    bins = np.empty(nnz, dtype=codes.dtype)
    fill = indptr[:n].copy()
    for f in range(k):
        for e in range(colptr[f], colptr[f + 1]):
            if codes[e] != zbin[f]:
                r = rows[e]
                feat[fill[r]] = f
                bins[fill[r]] = codes[e]
                fill[r] += 1
    return indptr, feat, bins


# Integer columns whose values span at most this many integers are counted and binned by table lookup.
LOOKUP_SPAN = 1 << 16


@njit(cache=True)
def _integer_columns(X, span):
    """Per column of ``X`` (n, k): its minimum, and whether it holds only integers spanning at most ``span`` values.

    One pass over the rows in storage order (a row-major ``X`` is read
    sequentially; columns are never gathered). The loop body has no branch,
    so that it runs on vectors of columns: the extrema are selects, and a
    value ``v`` is an integer exactly when ``|v|`` survives rounding to an
    integer, ``(|v| + 2^52) - 2^52 == |v|`` for ``|v| <= 2^52`` (adding
    ``2^52`` leaves no fraction bits); a column whose summed deviations is
    not 0 (or is NaN, from a NaN or an infinity) is not integer. ``floor``
    would be a library call per value on the generic x86-64 target the
    shipped kernels are compiled for: 7x slower at 60,000 x 784.
    """
    n, k = X.shape
    lo = np.full(k, np.inf)
    hi = np.full(k, -np.inf)
    deviation = np.zeros(k)
    shift = 2.0**52
    for i in range(n):
        row = X[i]
        for j in range(k):
            v = row[j]
            lo[j] = v if v < lo[j] else lo[j]
            hi[j] = v if v > hi[j] else hi[j]
            a = abs(v)
            deviation[j] += abs((a + shift) - shift - a)
    whole = np.empty(k, dtype=np.bool_)
    for j in range(k):
        # beyond 2^52 the integers are not all representable, and ``value - lo`` might round
        whole[j] = (
            deviation[j] == 0.0 and lo[j] <= hi[j] and hi[j] - lo[j] < span and -shift <= lo[j] and hi[j] <= shift
        )
    return lo, hi, whole


@njit(cache=True)
def _shifted_values(X, cols, lo, V, vrow):
    """``V[vrow[c], i] = X[i, j] - lo[j]`` for the columns ``j = cols[c]``: the values as small offsets, feature-major.

    Rows are taken in blocks so that the feature-major writes of a block stay
    in cache while the row-major reads stream.
    """
    n = X.shape[0]
    block = 256
    for i0 in range(0, n, block):
        i1 = min(i0 + block, n)
        for c in range(cols.shape[0]):
            j = cols[c]
            low = lo[j]
            r = vrow[c]
            for i in range(i0, i1):
                V[r, i] = np.int64(X[i, j] - low)


@njit(cache=True)
def _count_offsets(V, vrow, offset):
    """Occurrences of every offset of row ``vrow[c]`` of ``V``: ``counts[offset[c] + v]``.

    Each row is counted into four interleaved tables (summed at the end), so
    that a run of equal values does not wait on its own increments.
    """
    n = V.shape[1]
    C = vrow.shape[0]
    counts = np.zeros(offset[C], dtype=np.int64)
    widest = 0
    for c in range(C):
        widest = max(widest, offset[c + 1] - offset[c])
    part = np.zeros((4, widest), dtype=np.int64)
    m = n - n % 4
    for c in range(C):
        span = offset[c + 1] - offset[c]
        row = V[vrow[c]]
        for i in range(0, m, 4):
            part[0, row[i]] += 1
            part[1, row[i + 1]] += 1
            part[2, row[i + 2]] += 1
            part[3, row[i + 3]] += 1
        for i in range(m, n):
            part[0, row[i]] += 1
        for v in range(span):
            counts[offset[c] + v] = part[0, v] + part[1, v] + part[2, v] + part[3, v]
            part[0, v] = 0
            part[1, v] = 0
            part[2, v] = 0
            part[3, v] = 0
    return counts


@njit(cache=True)
def _lookup_codes(V, vrow, cols, offset, table, out):
    """``out[j, i] = table[offset[c] + V[vrow[c], i]]`` for the columns ``j = cols[c]`` (``V`` may be ``out``)."""
    for c in range(cols.shape[0]):
        t = table[offset[c] : offset[c + 1]]
        row = V[vrow[c]]
        o = out[cols[c]]
        for i in range(row.shape[0]):
            o[i] = t[row[i]]


def fit_transform(X, max_bins=256):
    """``fit_binning(X, max_bins)`` and its ``transform(X)`` of a dense ``X``, in one go.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Finite values.
    max_bins : int
        Upper bound on the number of bins per feature (2..65535).

    Returns
    -------
    binning : Binning
        The same bin edges as ``fit_binning(X, max_bins)``.
    codes : ndarray of shape (n_features, n_samples)
        The same codes as ``binning.transform(X)``.

    Notes
    -----
    Integer columns spanning at most ``LOOKUP_SPAN`` values are read once,
    as offsets from their minimum stored feature-major, and counted per
    feature (the distinct values are the nonzero counts, in increasing
    order, as ``np.unique`` returns them); the offsets are binned by a table
    holding ``searchsorted(thresholds, value, side="left")`` for every
    integer of the span. The edges are computed from the same values and
    counts by the same code as ``fit_binning``, so both are identical.
    """
    X = np.asarray(X, dtype=np.float64)
    if not X.flags.c_contiguous and not X.flags.f_contiguous:
        X = np.ascontiguousarray(X)
    n, n_features = X.shape
    lo, hi, whole = _integer_columns(X, LOOKUP_SPAN)
    cols = np.flatnonzero(whole).astype(np.int64)
    span = (hi[cols] - lo[cols]).astype(np.int64) + 1
    offset = np.zeros(cols.shape[0] + 1, dtype=np.int64)
    np.cumsum(span, out=offset[1:])
    # The offsets value - lo, feature-major, are counted (a short table per row, in cache) and then turned
    # into codes; they are written into the codes' own array when they fit its dtype (converted in place).
    vdtype = np.dtype(np.uint8 if cols.shape[0] == 0 or span.max() <= 256 else np.uint16)
    out = np.empty((n_features, n), dtype=np.uint16 if max_bins > 256 else np.uint8)
    if vdtype.itemsize <= out.dtype.itemsize:
        V, vrow = out, cols
    else:
        V, vrow = np.empty((cols.shape[0], n), dtype=vdtype), np.arange(cols.shape[0], dtype=np.int64)
    if cols.shape[0]:
        _shifted_values(X, cols, lo, V, vrow)
        counts = _count_offsets(V, vrow, offset)
    else:
        counts = np.zeros(0, dtype=np.int64)
    thresholds: list[np.ndarray] = [np.empty(0)] * n_features
    table = np.empty(offset[-1], dtype=np.int64)
    for c, j in enumerate(cols):
        cnt = counts[offset[c] : offset[c + 1]]
        present = np.flatnonzero(cnt)
        values = lo[j] + present.astype(np.float64)
        thresholds[j] = _edges(values, cnt[present], max_bins)
        grid = lo[j] + np.arange(span[c], dtype=np.float64)
        table[offset[c] : offset[c + 1]] = np.searchsorted(thresholds[j], grid, side="left")
    rest = np.flatnonzero(~whole)
    XT = _columns(X[:, rest])
    for r, j in enumerate(rest):
        values, counts_j = np.unique(XT[r], return_counts=True)
        thresholds[j] = _edges(values, counts_j, max_bins)
    binning = Binning(thresholds)
    # max_bins > 256 but at most 256 bins in fact: the codes are uint8, as ``transform`` gives them
    codes = out if out.dtype == binning.dtype else np.empty((n_features, n), dtype=binning.dtype)
    if cols.shape[0]:
        _lookup_codes(V, vrow, cols, offset, table.astype(binning.dtype), codes)
    for r, j in enumerate(rest):
        codes[j] = np.searchsorted(thresholds[j], XT[r], side="left")
    return binning, codes


def _edges(values, counts, max_bins):
    """Raw thresholds of one feature from its distinct values (increasing) and their counts."""
    if values.shape[0] <= max_bins:
        cut = np.arange(values.shape[0] - 1)
    else:
        # Cut after the distinct value where the cumulative count crosses
        # each of the max_bins - 1 quantile levels; duplicates collapse.
        cum = np.cumsum(counts)
        levels = cum[-1] * np.arange(1, max_bins) / max_bins
        cut = np.unique(np.searchsorted(cum, levels, side="left"))
        cut = cut[cut < values.shape[0] - 1]
    return _midpoints(values[cut], values[cut + 1])


def _midpoints(lower, upper):
    mid = lower + (upper - lower) / 2.0
    # Adjacent floats: the midpoint may round up to ``upper``, which would send
    # ``upper`` left; fall back to ``lower`` (scikit-learn does the same).
    return np.where(mid >= upper, lower, mid)


def fit_binning(X: Any, max_bins: int = 256) -> Binning:
    """Compute the bin edges of every column of ``X``.

    Parameters
    ----------
    X : ndarray or scipy sparse matrix of shape (n_samples, n_features)
        Sparse input is read column by column (CSC); implicit zeros count
        as the value 0.0, so the bins equal those of the dense matrix.
    max_bins : int
        Upper bound on the number of bins per feature (2..65535).

    Returns
    -------
    Binning
    """
    if sparse.issparse(X):
        X = _as_csc(X)
        column = _sparse_column_counts
    else:
        X = _columns(X)
        column = _dense_column_counts
    thresholds = []
    n_features = X.shape[1] if sparse.issparse(X) else X.shape[0]
    for k in range(n_features):
        values, counts = column(X, k)
        thresholds.append(_edges(values, counts, max_bins))
    return Binning(thresholds)


def _columns(X):
    """The columns of a dense ``X`` as the contiguous rows of a float64 array (``X.T``, copied when needed)."""
    return np.ascontiguousarray(np.asarray(X, dtype=np.float64).T)


def _dense_column_counts(XT, k):
    """Distinct values and counts of column ``k``, given the columns as rows (``_columns``)."""
    return np.unique(XT[k], return_counts=True)


def _sparse_column_counts(X, k):
    """Distinct values and counts of column ``k`` of a CSC matrix, implicit zeros included."""
    data = X.data[X.indptr[k] : X.indptr[k + 1]]
    values, counts = np.unique(data, return_counts=True)
    implicit = X.shape[0] - data.shape[0]
    if implicit > 0:
        at = np.searchsorted(values, 0.0)
        if at < values.shape[0] and values[at] == 0.0:
            counts[at] += implicit
        else:
            values = np.insert(values, at, 0.0)
            counts = np.insert(counts, at, implicit)
    return values, counts


def _as_csc(X):
    """CSC float64 with sorted, summed entries (a copy when the input is not canonical)."""
    X = sparse.csc_matrix(X, dtype=np.float64)
    if not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()
    return X
