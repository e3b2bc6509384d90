"""Depth-d exact greedy trees grown node by node with one split search.

A node's examples are kept in decreasing boosting weight: the root receives
the global order and a stable partition preserves it in both children, so no
node ever sorts (Algorithm 2, "train decision tree one node at a time").
"""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

import numpy as np

from .._compiled import njit
from ..tree import Tree
from ._binning import SparseBins
from ._sparse import apply_sparse_binned, candidate_slots, goes_left, node_of
from ._split import exact_value, search_split
from ._weight_order import weight_order_bound


@njit(cache=True)
def apply_binned(Xb, children_left, children_right, feature, bin_threshold):
    """Leaf reached by every column of the bin codes ``Xb`` (left iff bin <= t)."""
    n = Xb.shape[1]
    out = np.empty(n, dtype=np.int64)
    for i in range(n):
        node = 0
        while children_left[node] != -1:
            if Xb[feature[node], i] <= bin_threshold[node]:
                node = children_left[node]
            else:
                node = children_right[node]
        out[i] = node
    return out


def apply_codes(codes, children_left, children_right, feature, bin_threshold):
    """``apply_binned`` of dense bin codes or of ``SparseBins`` (read row by row, never densified)."""
    if isinstance(codes, SparseBins):
        return apply_sparse_binned(codes, children_left, children_right, feature, bin_threshold)
    return apply_binned(codes, children_left, children_right, feature, bin_threshold)


@dataclass
class GrownTree:
    tree: Tree
    leaf_labels: np.ndarray  # class code per node (leaves and internal nodes)
    bin_threshold: np.ndarray  # threshold in bin units per node (-1 at leaves)
    assessments: int
    exhaustive_assessments: int
    weight_order_bound: int  # -1 unless tracked


Round = namedtuple("Round", ["y", "w", "idx", "feats", "nbins", "max_depth", "track_bounds"])
Round.__doc__ = """What one boosting round grows its tree from (``grow_kernel``).

y, w : arrays indexed by example id, class codes and boosting weights.
idx : int64 array, the examples to train on, in decreasing weight (ties by id).
feats, nbins : int64 arrays (S,), candidate features (increasing ids) and their bins.
max_depth : int
track_bounds : bool, whether to compute LB_wo of every node.
"""


@njit(cache=True)
def grow_kernel(codes, rnd, settings, ws):
    """Breadth-first growth of one tree from the ``Round`` ``rnd``; node ids are assigned in creation order.

    Every node owns a slice of one buffer of example ids, kept in decreasing
    weight order by a stable partition. ``codes`` are the dense bin codes or
    ``SparseBins``; each compiles its own kernel (a node's ``Xb`` is then
    the dense array or its ``SparseCodes``). Returns the node arrays and the counters (assessments,
    exhaustive assessments, LB_wo).
    """
    y, w, idx, feats, nbins = rnd.y, rnd.w, rnd.idx, rnd.feats, rnd.nbins
    max_depth, track_bounds = rnd.max_depth, rnd.track_bounds
    # a full tree of depth max_depth, but never more than 2n - 1 nodes (every leaf holds an example)
    max_nodes = 2 * idx.shape[0] - 1
    if max_depth < 40 and 2 ** (max_depth + 1) - 1 < max_nodes:
        max_nodes = 2 ** (max_depth + 1) - 1
    left = np.full(max_nodes, -1, dtype=np.int64)
    right = np.full(max_nodes, -1, dtype=np.int64)
    feature = np.full(max_nodes, -2, dtype=np.int64)
    tbin = np.full(max_nodes, -1, dtype=np.int64)
    label = np.zeros(max_nodes, dtype=np.int64)
    start = np.zeros(max_nodes, dtype=np.int64)
    stop = np.zeros(max_nodes, dtype=np.int64)
    depth = np.zeros(max_nodes, dtype=np.int64)
    buf = idx.copy()
    scratch = np.empty(idx.shape[0], dtype=np.int64)
    S = feats.shape[0]
    n_classes = settings.n_classes
    slot = candidate_slots(codes, feats)
    left_side = np.empty(idx.shape[0], dtype=np.bool_)
    stop[0] = idx.shape[0]
    n_nodes = 1
    assessments = 0
    exhaustive = 0
    lbwo = 0
    node = 0
    while node < n_nodes:
        a = start[node]
        b = stop[node]
        n = b - a
        # A fresh contiguous copy: the search kernels are then compiled for
        # C-contiguous ids, and the partition below may overwrite the buffer.
        nidx = buf[a:b].copy()
        yn = np.empty(n, dtype=np.int64)
        wn = np.empty(n)
        node_tot = np.zeros(n_classes)
        for i in range(n):
            c = y[nidx[i]]
            yn[i] = c
            wn[i] = w[nidx[i]]
            node_tot[c] += wn[i]
        label[node] = np.argmax(node_tot)
        present = 0
        for c in range(n_classes):
            if node_tot[c] > 0.0:
                present += 1
        if depth[node] >= max_depth or n < 2 or S == 0 or present < 2:
            node += 1
            continue
        rec = node_of(codes, slot, feats, nbins, nidx, yn, wn, settings)
        best, t, value = search_split(rec, settings, ws)
        for s in range(S):
            assessments += ws.mk[s]
        exhaustive += n * S
        if track_bounds:
            lbwo += weight_order_bound(rec, best, exact_value(rec, ws, best, value), ws)
        if best < 0:
            node += 1
            continue
        f = feats[best]
        goes_left(codes, rec, best, t, left_side)
        nl = 0
        nr = 0
        for i in range(n):
            j = nidx[i]
            if left_side[i]:
                buf[a + nl] = j
                nl += 1
            else:
                scratch[nr] = j
                nr += 1
        for i in range(nr):
            buf[a + nl + i] = scratch[i]
        if nl == 0 or nr == 0:
            node += 1
            continue
        left[node] = n_nodes
        start[n_nodes] = a
        stop[n_nodes] = a + nl
        depth[n_nodes] = depth[node] + 1
        right[node] = n_nodes + 1
        start[n_nodes + 1] = a + nl
        stop[n_nodes + 1] = b
        depth[n_nodes + 1] = depth[node] + 1
        n_nodes += 2
        feature[node] = f
        tbin[node] = t
        node += 1
    return (
        left[:n_nodes],
        right[:n_nodes],
        feature[:n_nodes],
        tbin[:n_nodes],
        label[:n_nodes],
        assessments,
        exhaustive,
        lbwo,
    )


def grow_tree(codes, y, w, idx, feats, nbins, thresholds, max_depth, settings, ws, track_bounds=False):
    """Grow one exact greedy tree on the examples ``idx`` (decreasing weight order).

    ``codes`` are the bin codes: the dense array of ``Binning.transform`` or
    the ``SparseBins`` of ``Binning.transform_sparse``.

    A node becomes a leaf at ``max_depth``, when it holds fewer than two
    examples or one class only, or when its best stump sends every example
    to one side (no threshold separates its examples). Leaves take the
    weighted-majority label (lowest class code on ties). ``settings`` (a
    ``Settings``) chooses the split search; ``ws`` is a ``Workspace``.
    """
    rnd = Round(
        y,
        w,
        idx,
        np.ascontiguousarray(feats, dtype=np.int64),
        np.ascontiguousarray(nbins, dtype=np.int64),
        int(max_depth),
        bool(track_bounds),
    )
    ws.every_t[0] = bool(track_bounds)
    left, right, feature, tbin, label, assessments, exhaustive, lbwo = grow_kernel(codes, rnd, settings, ws)
    threshold = np.full(left.shape[0], -2.0)
    for node in np.flatnonzero(left >= 0):
        threshold[node] = thresholds[feature[node]][tbin[node]]
    tree = Tree(left, right, feature, threshold, len(thresholds))
    return GrownTree(tree, label, tbin, int(assessments), int(exhaustive), int(lbwo) if track_bounds else -1)
