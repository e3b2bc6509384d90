"""Sparse bin codes in the split search: a node costs O(its stored entries), not O(n x features).

On a sparse matrix every feature ``f`` has a *zero bin* ``z_f`` (the bin of
0.0) that holds most examples. A node keeps, per candidate feature, only the
list of its examples outside ``z_f`` (position in the node's decreasing-weight
order and bin), built by one counting sort over the node's rows
(``make_sparse_node``), and the prefix class weights ``Cp`` of the node's
order. ``assess_sparse`` then adds a batch of examples to a feature's
weighted class histogram (``f_k.assess`` of Aziz, Anderton & Aslam,
"Adaptively Pruning Features for Boosted Decision Trees", section 3) by
walking only the batch's listed entries: the weight of the zero bin is the
batch's class weight minus the listed weight. The assessment count of a
feature stays the number of the node's examples assessed, implicit zeros
included, so every split search runs unchanged and spends the same
assessments as on the dense matrix.
"""

import numpy as np
from numba.core import types
from numba.extending import overload

from .._compiled import njit
from ._binning import SparseBins
from ._records import SparseCodes, make_node


@njit(cache=True)
def slot_map(feats, n_features):
    """``slot[f]``: the candidate slot of feature ``f`` (-1 when ``f`` is not a candidate).

    With ``n_features = 0`` (dense input) the map is empty.
    """
    out = np.full(n_features, -1, dtype=np.int64)
    if n_features == 0:
        return out
    for s in range(feats.shape[0]):
        out[feats[s]] = s
    return out


@njit(cache=True)
def prefix_class_weights(yn, wn, n_classes):
    """``Cp[m, c]``: weight of class ``c`` among the first ``m`` examples, summed in order.

    The sums are the dense search's running ``seen_tot`` bit for bit.
    """
    n = yn.shape[0]
    Cp = np.zeros((n + 1, n_classes))
    for i in range(n):
        for c in range(n_classes):
            Cp[i + 1, c] = Cp[i, c]
        Cp[i + 1, yn[i]] += wn[i]
    return Cp


@njit(cache=True)
def node_entries(indptr, feat, bins, slot, idx, S):
    """Per candidate slot, the node's listed entries ``(position, bin)`` in increasing position.

    A counting sort over the node's rows ``idx`` (in the node's order):
    ``O(entries of the node's rows + S)``. Returns ``(off, pos, bin)``, slot
    ``s`` owning ``off[s]:off[s + 1]``.
    """
    off = np.zeros(S + 1, dtype=np.int64)
    for p in range(idx.shape[0]):
        r = idx[p]
        for e in range(indptr[r], indptr[r + 1]):
            s = slot[feat[e]]
            if s >= 0:
                off[s + 1] += 1
    for s in range(S):
        off[s + 1] += off[s]
    nnz = off[S]
    pos = np.empty(nnz, dtype=np.int32)
    out = np.empty(nnz, dtype=bins.dtype)
    fill = off[:S].copy()
    for p in range(idx.shape[0]):
        r = idx[p]
        for e in range(indptr[r], indptr[r + 1]):
            s = slot[feat[e]]
            if s >= 0:
                pos[fill[s]] = p
                out[fill[s]] = bins[e]
                fill[s] += 1
    return off, pos, out


@njit(cache=True)
def make_sparse_node(sb, slot, feats, nbins, idx, yn, wn, settings):
    """The ``Node`` of examples ``idx`` on sparse bin codes ``sb`` (its codes in ``Node.sp``).

    ``slot`` is ``slot_map(feats, n_features)``; the other arguments are those of ``make_node``.
    """
    S = feats.shape[0]
    off, pos, bins = node_entries(sb.indptr, sb.feat, sb.bins, slot, idx, S)
    zb = np.empty(S, dtype=np.int64)
    for s in range(S):
        zb[s] = sb.zbin[feats[s]]
    codes = SparseCodes(
        zb,
        off,
        pos,
        bins,
        prefix_class_weights(yn, wn, settings.n_classes),
        off[:S].copy(),
        np.zeros((S, settings.n_classes)),
    )
    return make_node(np.empty((0, 0), dtype=sb.bins.dtype), feats, nbins, idx, yn, wn, settings, codes)


@njit(cache=True)
def assess_sparse(sc, node, ws, s, start, stop):
    """Add examples ``start..stop-1`` (``start`` = examples already assessed) to feature slot ``s``.

    ``sc`` is ``node.sp``, the ``SparseCodes`` of the ``Node`` ``node`` (an
    argument of its own, so that its ``None`` on dense codes is a constant
    that compiles the body away); ``ws`` is the ``Workspace`` whose histogram
    row ``s`` receives the batch. Walks the slot's entries from
    ``sc.cur[s]`` while their position is below ``stop``: O(entries in the
    batch + classes). ``sc.nzs`` sums the listed weight per class in order;
    the zero bin ``z`` holds the rest, ``Cp[stop] - nzs``, and ``seen_tot`` is
    ``Cp[stop]`` (the dense running sum, bit for bit). ``occ`` and ``brange``
    mark ``z`` when the batch has an unlisted example, as the dense scan marks
    the bins it sees. Nothing to do when ``sc`` is None (dense codes: this
    branch of ``_assess`` is never taken, and is compiled away).
    """
    if sc is None:
        return
    yn, wn = node.yn, node.wn
    hist, seen_tot, occ, brange = ws.hist, ws.seen_tot, ws.occ, ws.brange
    z = sc.zb[s]
    end = sc.off[s + 1]
    pos, bins, Cp, nzs = sc.pos, sc.bins, sc.Cp, sc.nzs
    lo = brange[s, 0]
    hi = brange[s, 1]
    k = sc.cur[s]
    first = k
    while k < end and pos[k] < stop:
        p = pos[k]
        b = bins[k]
        c = yn[p]
        w = wn[p]
        hist[s, b, c] += w
        nzs[s, c] += w
        occ[s, b] = 1
        if b < lo:
            lo = b
        if b > hi:
            hi = b
        k += 1
    sc.cur[s] = k
    if stop - start > k - first:
        occ[s, z] = 1
        if z < lo:
            lo = z
        if z > hi:
            hi = z
    brange[s, 0] = lo
    brange[s, 1] = hi
    for c in range(seen_tot.shape[1]):
        seen_tot[s, c] = Cp[stop, c]
        hist[s, z, c] = Cp[stop, c] - nzs[s, c]


@njit(cache=True)
def rewind_sparse(sc, s):
    """Feature slot ``s`` back to its first entry with no weight seen (a new search or LB_wo probe).

    Nothing to do when ``sc`` is None (dense codes).
    """
    if sc is None:
        return
    sc.cur[s] = sc.off[s]
    for c in range(sc.nzs.shape[1]):
        sc.nzs[s, c] = 0.0


@njit(cache=True)
def goes_left_sparse(node, s, t, out):
    """``out[p]``: whether the node's example at position ``p`` has bin ``<= t`` for slot ``s``."""
    sc = node.sp
    default = sc.zb[s] <= t
    for p in range(node.idx.shape[0]):
        out[p] = default
    for k in range(sc.off[s], sc.off[s + 1]):
        out[sc.pos[k]] = sc.bins[k] <= t


@njit(cache=True)
def _row_bin(sb, i, f):
    """Bin of feature ``f`` in row ``i`` (binary search of the row's increasing features)."""
    lo = sb.indptr[i]
    end = sb.indptr[i + 1]
    hi = end
    while lo < hi:
        mid = (lo + hi) // 2
        if sb.feat[mid] < f:
            lo = mid + 1
        else:
            hi = mid
    if lo < end and sb.feat[lo] == f:
        return np.int64(sb.bins[lo])
    return sb.zbin[f]


@njit(cache=True)
def apply_sparse_binned(sb, children_left, children_right, feature, bin_threshold):
    """Leaf reached by every row of the sparse bin codes ``sb`` (left iff bin <= t)."""
    n = sb.indptr.shape[0] - 1
    out = np.empty(n, dtype=np.int64)
    for i in range(n):
        node = 0
        while children_left[node] != -1:
            if _row_bin(sb, i, feature[node]) <= bin_threshold[node]:
                node = children_left[node]
            else:
                node = children_right[node]
        out[i] = node
    return out


def node_of(codes, slot, feats, nbins, idx, yn, wn, settings):
    """``make_node`` of dense codes or ``make_sparse_node`` of ``SparseBins`` (compiled per type)."""
    if isinstance(codes, SparseBins):
        return make_sparse_node(codes, slot, feats, nbins, idx, yn, wn, settings)
    return make_node(codes, feats, nbins, idx, yn, wn, settings, None)


def _dense_node(codes, slot, feats, nbins, idx, yn, wn, settings):
    return make_node(codes, feats, nbins, idx, yn, wn, settings, None)


def _sparse_node(codes, slot, feats, nbins, idx, yn, wn, settings):
    return make_sparse_node(codes, slot, feats, nbins, idx, yn, wn, settings)


@overload(node_of)
def _node_of_typed(codes, slot, feats, nbins, idx, yn, wn, settings):
    return _sparse_node if isinstance(codes, types.BaseNamedTuple) else _dense_node


def candidate_slots(codes, feats):
    """``slot_map`` of the candidate features on sparse codes; empty on dense codes (unused there)."""
    n_features = codes.zbin.shape[0] if isinstance(codes, SparseBins) else 0
    return slot_map(feats, n_features)


def _sparse_slots(codes, feats):
    return slot_map(feats, codes.zbin.shape[0])


def _dense_slots(codes, feats):
    return slot_map(feats, 0)


@overload(candidate_slots)
def _candidate_slots_typed(codes, feats):
    return _sparse_slots if isinstance(codes, types.BaseNamedTuple) else _dense_slots


def goes_left(codes, node, s, t, out):
    """``out[p]``: whether the node's example at position ``p`` has bin ``<= t`` in candidate slot ``s``."""
    if isinstance(codes, SparseBins):
        goes_left_sparse(node, s, t, out)
    else:
        _goes_left_dense(codes, node, s, t, out)


def _goes_left_dense(codes, node, s, t, out):
    f = node.feats[s]
    for p in range(node.idx.shape[0]):
        out[p] = codes[f, node.idx[p]] <= t


def _goes_left_sparse(codes, node, s, t, out):
    goes_left_sparse(node, s, t, out)


@overload(goes_left)
def _goes_left_typed(codes, node, s, t, out):
    return _goes_left_sparse if isinstance(codes, types.BaseNamedTuple) else _goes_left_dense
