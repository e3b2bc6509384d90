"""Test helpers over trees: random trees, random node counts, every subtree (importable, unlike conftest files)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._tree import Tree


def random_tree(rng: Any, n_splits: int, n_features: int = 2) -> Tree:
    """A random :class:`~prunus.tree.Tree`: split a random leaf ``n_splits`` times (children get new, larger ids).

    ``rng`` is a ``numpy.random.Generator`` or a seed.
    """
    rng = np.random.default_rng(rng)
    left, right = [-1], [-1]
    for _ in range(n_splits):
        leaves = [i for i in range(len(left)) if left[i] == -1]
        node = leaves[rng.integers(len(leaves))]
        left[node], right[node] = len(left), len(left) + 1
        left += [-1, -1]
        right += [-1, -1]
    n = len(left)
    return Tree(left, right, rng.integers(0, n_features, size=n), rng.uniform(-1, 1, size=n), n_features)


def counts_from_leaves(tree: Tree, leaf_counts: np.ndarray) -> np.ndarray:
    """Node counts whose internal rows are the sums of their leaves' rows (leaves in id order)."""
    counts = np.zeros((tree.n_nodes, leaf_counts.shape[1]), dtype=np.float64)
    counts[tree.is_leaf] = leaf_counts
    for node in range(tree.n_nodes - 1, 0, -1):
        counts[tree.parent[node]] += counts[node]
    return counts


def random_counts(rng: Any, tree: Tree, n_classes: int, empty_prob: float = 0.25, scale: int = 10) -> np.ndarray:
    """Random integer class counts at the leaves (a leaf is empty with ``empty_prob``), summed up the tree."""
    rng = np.random.default_rng(rng)
    leaf_counts = np.zeros((int(tree.is_leaf.sum()), n_classes))
    for i in range(leaf_counts.shape[0]):
        if rng.random() >= empty_prob:
            leaf_counts[i] = rng.integers(0, scale, size=n_classes)
    return counts_from_leaves(tree, leaf_counts)


def enumerate_subtrees(tree: Tree, node: int = 0) -> list[tuple[int, ...]]:
    """Every pruned subtree of the branch at ``node`` (``node`` kept), as a tuple of its leaves."""
    if tree.children_left[node] == -1:
        return [(node,)]
    return [(node,)] + [
        a + b
        for a in enumerate_subtrees(tree, tree.children_left[node])
        for b in enumerate_subtrees(tree, tree.children_right[node])
    ]


def _brute_impurity(row, criterion):
    total = sum(row)
    if total <= 0:
        return 0.0
    p = [c / total for c in row]
    if criterion == "gini":
        return 1.0 - sum(q * q for q in p)
    if criterion == "misclassification":
        return 1.0 - max(p)
    return -sum(q * math.log(q) for q in p if q > 0)


def brute_importances(tree, counts, criterion, split_weight=None, normalize=True):
    """sum over internal nodes t of W_t i(t) - W_L i(L) - W_R i(R), one node at a time."""
    out = [0.0] * tree.n_features
    for t in range(tree.n_nodes):
        left, right = int(tree.children_left[t]), int(tree.children_right[t])
        if left < 0:
            continue
        dec = 0.0
        for node, sign in ((t, 1.0), (left, -1.0), (right, -1.0)):
            row = [float(v) for v in counts[node]]
            dec += sign * sum(row) * _brute_impurity(row, criterion)
        if split_weight is not None:
            dec *= float(split_weight[t])
        out[int(tree.feature[t])] += dec
    if normalize:
        total = sum(out)
        out = [v / total if total > 0 else 0.0 for v in out]
    return np.array(out)
