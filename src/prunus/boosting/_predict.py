"""Ensemble prediction: every tree's leaf label for every row in one kernel."""

from collections import namedtuple

import numpy as np

from .._compiled import njit

Ensemble = namedtuple("Ensemble", ["offsets", "left", "right", "feature", "threshold", "labels"])
Ensemble.__doc__ = """The trees of a boosted ensemble, concatenated into flat arrays (``stack_trees``).

offsets : int64 array (n_trees + 1,), tree ``t`` owns nodes ``offsets[t]:offsets[t + 1]``.
left, right, feature, threshold : arrays of every tree's nodes (child ids local to their tree).
labels : int64 array, the class code of every node.
"""

CSRRows = namedtuple("CSRRows", ["indptr", "indices", "data", "n_rows"])
CSRRows.__doc__ = """The arrays of a CSR matrix with sorted column indices, and its number of rows."""


def stack_trees(trees, leaf_labels):
    """Concatenate the trees' flat arrays into an ``Ensemble`` for the kernels."""
    sizes = np.array([t.n_nodes for t in trees], dtype=np.int64)
    offsets = np.zeros(len(trees) + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    left = np.concatenate([t.children_left for t in trees])
    right = np.concatenate([t.children_right for t in trees])
    feature = np.concatenate([t.feature for t in trees])
    threshold = np.concatenate([t.threshold for t in trees])
    labels = np.concatenate(leaf_labels).astype(np.int64)
    return Ensemble(offsets, left, right, feature, threshold, labels)


@njit(cache=True)
def ensemble_labels(X, ens):
    """Class code predicted by tree ``t`` of the ``Ensemble`` ``ens`` for row ``i``, shape (n_trees, n_rows)."""
    offsets, left, right, feature, threshold, labels = ens
    T = offsets.shape[0] - 1
    n = X.shape[0]
    out = np.empty((T, n), dtype=np.int64)
    for t in range(T):
        base = offsets[t]
        for i in range(n):
            node = 0
            while left[base + node] != -1:
                if X[i, feature[base + node]] <= threshold[base + node]:
                    node = left[base + node]
                else:
                    node = right[base + node]
            out[t, i] = labels[base + node]
    return out


@njit(cache=True)
def vote(pred, weights, n_classes):
    """SAMME votes: ``sum_t alpha_t 1{h_t(x) = k}`` for every row and class."""
    T, n = pred.shape
    out = np.zeros((n, n_classes))
    for t in range(T):
        a = weights[t]
        for i in range(n):
            out[i, pred[t, i]] += a
    return out


@njit(cache=True)
def _csr_value(indptr, indices, data, i, k):
    """``X[i, k]`` of a CSR matrix with sorted column indices (0.0 when not stored)."""
    lo = indptr[i]
    hi = indptr[i + 1]
    while lo < hi:
        mid = (lo + hi) // 2
        if indices[mid] < k:
            lo = mid + 1
        else:
            hi = mid
    if lo < indptr[i + 1] and indices[lo] == k:
        return data[lo]
    return 0.0


@njit(cache=True)
def ensemble_labels_csr(X, ens):
    """``ensemble_labels`` for the ``CSRRows`` ``X``, read without densifying."""
    indptr, indices, data, n = X
    offsets, left, right, feature, threshold, labels = ens
    T = offsets.shape[0] - 1
    out = np.empty((T, n), dtype=np.int64)
    for t in range(T):
        base = offsets[t]
        for i in range(n):
            node = 0
            while left[base + node] != -1:
                if _csr_value(indptr, indices, data, i, feature[base + node]) <= threshold[base + node]:
                    node = left[base + node]
                else:
                    node = right[base + node]
            out[t, i] = labels[base + node]
    return out
