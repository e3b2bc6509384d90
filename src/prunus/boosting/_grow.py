"""Depth-d exact greedy trees grown node by node with one split search.

A node's examples are kept in decreasing boosting weight: the root receives
the global order and a stable partition preserves it in both children, so no
node ever sorts (Algorithm 2, "train decision tree one node at a time").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from ..tree import Tree
from ._split import node_stats, search_split, weight_order_bound


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


@njit(cache=True)
def _partition(Xb, feat, t, idx):
    """Stable split of ``idx`` into (bin <= t, bin > t): both keep the weight order."""
    n = idx.shape[0]
    left = np.empty(n, dtype=np.int64)
    right = np.empty(n, dtype=np.int64)
    nl = 0
    nr = 0
    for i in range(n):
        j = idx[i]
        if Xb[feat, j] <= t:
            left[nl] = j
            nl += 1
        else:
            right[nr] = j
            nr += 1
    return left[:nl], right[:nr]


class SplitWorkspace:
    """Work arrays reused by every node of every round of one fit."""

    def __init__(self, n_features, max_bins, n_classes):
        self.B = int(max_bins)
        self.hist = np.zeros((n_features, self.B, n_classes))
        self.seen_tot = np.zeros((n_features, n_classes))
        self.mk = np.zeros(n_features, dtype=np.int64)
        self.lb = np.zeros(n_features)
        self.ub = np.zeros(n_features)
        self.tb = np.zeros(n_features, dtype=np.int64)


@dataclass
class GrownTree:
    tree: Tree
    leaf_labels: np.ndarray      # class code per node (leaves and internal nodes)
    bin_threshold: np.ndarray    # threshold in bin units per node (-1 at leaves)
    assessments: int
    exhaustive_assessments: int
    weight_order_bound: int      # -1 unless tracked
    node_assessments: list       # per split node: (node id, n_node, {feature: m_k})


def grow_tree(Xb, y, w, idx, feats, nbins, thresholds, n_classes, max_depth, criterion, strategy,
              quick_init, quick_batches, work, track_bounds=False, batch_floor=0.0, adaptive_init=0.5, min_batch=1):
    """Grow one exact greedy tree on the examples ``idx`` (decreasing weight order).

    A node becomes a leaf at ``max_depth``, when it holds fewer than two
    examples or one class only, or when its best stump sends every example
    to one side (no threshold separates its examples). Leaves take the
    weighted-majority label (lowest class code on ties).
    """
    n_total_features = Xb.shape[0]
    left_l, right_l, feat_l, thr_l, tbin_l, label_l = [], [], [], [], [], []
    assessments = 0
    exhaustive = 0
    lbwo = 0
    node_info = []
    S = feats.shape[0]
    queue = [(idx, 0)]
    head = 0
    while head < len(queue):
        nidx, depth = queue[head]
        node = head
        head += 1
        yn = y[nidx]
        wn = w[nidx]
        _, node_tot = node_stats(yn, wn, n_classes)
        label = int(np.argmax(node_tot))
        left_l.append(-1)
        right_l.append(-1)
        feat_l.append(-2)
        thr_l.append(-2.0)
        tbin_l.append(-1)
        label_l.append(label)
        if depth >= max_depth or nidx.shape[0] < 2 or S == 0 or np.count_nonzero(node_tot) < 2:
            continue
        slot, t, value = search_split(Xb, nidx, yn, wn, feats, nbins, n_classes, criterion, strategy,
                                      quick_init, quick_batches, work.hist, work.seen_tot, work.mk,
                                      work.lb, work.ub, work.tb, batch_floor, adaptive_init, min_batch)
        mk = work.mk[:S]
        assessments += int(mk.sum())
        exhaustive += nidx.shape[0] * S
        node_info.append((node, nidx.shape[0], mk.copy()))
        if track_bounds:
            lbwo += int(weight_order_bound(Xb, nidx, yn, wn, feats, nbins, n_classes, criterion, slot,
                                           value, work.B))
        if slot < 0:
            continue
        f = int(feats[slot])
        li, ri = _partition(Xb, f, t, nidx)
        if li.shape[0] == 0 or ri.shape[0] == 0:
            continue
        left_l[node] = len(queue)
        queue.append((li, depth + 1))
        right_l[node] = len(queue)
        queue.append((ri, depth + 1))
        feat_l[node] = f
        thr_l[node] = float(thresholds[f][t])
        tbin_l[node] = int(t)
    tree = Tree(np.array(left_l), np.array(right_l), np.array(feat_l), np.array(thr_l), n_total_features)
    return GrownTree(tree, np.array(label_l, dtype=np.int64), np.array(tbin_l, dtype=np.int64),
                     assessments, exhaustive, lbwo if track_bounds else -1, node_info)
