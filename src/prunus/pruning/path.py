"""Breiman's minimal cost-complexity pruning sequence on misclassification cost.

Implements the pruning algorithm of Table 1 in S. Gey, *Risk bounds for CART
classifiers under a margin condition*, for any :class:`~prunus.tree.Tree` and any
per-node class counts (so T_max can be grown on one sample and pruned with
another: method M1 of section 3.1).
"""

from __future__ import annotations

import numpy as np

from ..tree import Tree
from ..tree._kernels import fill_from_parent
from ..utils._param_validation import check_index
from ._path_kernels import collapse_temperatures, effective_temperatures


def node_labels(tree: Tree, counts: np.ndarray) -> np.ndarray:
    """Majority class of every node (lowest class index on ties).

    A node that received no weight takes its parent's label, so an empty
    leaf predicts like the smallest non-empty region containing it.
    """
    label = np.argmax(counts, axis=1).astype(np.int64)[:, None]
    return fill_from_parent(label, counts.sum(axis=1) <= 0, tree.parent)[:, 0]


def _check_counts(tree, counts):
    counts = np.asarray(counts, dtype=np.float64)
    if counts.ndim != 2 or counts.shape[0] != tree.n_nodes:
        raise ValueError(f"counts must have shape (n_nodes={tree.n_nodes}, n_classes), got {counts.shape}.")
    if not np.isfinite(counts).all() or np.any(counts < 0):
        raise ValueError("counts must be finite and non-negative.")
    if counts[0].sum() <= 0:
        raise ValueError("counts must hold a positive total weight at the root.")
    return np.ascontiguousarray(counts)


class CostComplexityPath:
    """The nested sequence T_1 > T_2 > ... > T_K = {root} and its temperatures.

    Not built directly: see :func:`cost_complexity_path`.

    Attributes
    ----------
    tree : Tree
        T_max.
    counts : ndarray, shape (n_nodes, n_classes)
        Class weights of the pruning sample per node.
    alphas : ndarray, shape (K,)
        0 = alpha_1 < ... < alpha_K, in scikit-learn's ``ccp_alpha`` units:
        T_k minimises R(T) + alpha |T| for alpha in [alpha_k, alpha_{k+1}),
        with R(T) the misclassified weight over the total weight. (Gey's
        temperature in eq. 9 is ``n * alpha``.)
    n_leaves : ndarray of int, shape (K,)
        |T_k|.
    risks : ndarray, shape (K,)
        R(T_k) on the pruning sample.
    collapse_alpha : ndarray, shape (n_nodes,)
        The compact description of every T_k: internal node t is a leaf or
        removed in T_k iff ``collapse_alpha[t] <= alphas[k]`` (``inf`` at the
        leaves of T_max).
    label : ndarray of int, shape (n_nodes,)
        Majority class of every node on the pruning sample.
    """

    def __init__(self, tree, counts, alphas, n_leaves, risks, collapse_alpha, label):
        self.tree = tree
        self.counts = counts
        self.alphas = alphas
        self.n_leaves = n_leaves
        self.risks = risks
        self.collapse_alpha = collapse_alpha
        self.label = label

    def __len__(self):
        return int(self.alphas.shape[0])

    def __repr__(self):
        return f"CostComplexityPath(K={len(self)}, n_leaves={self.n_leaves[0]}..{self.n_leaves[-1]})"

    # ------------------------------------------------------------ lookups
    def index(self, alpha) -> int:
        """k such that T_alpha = T_k (Theorem 2.4.1): the last alpha_k <= alpha."""
        alpha = float(alpha)
        if not np.isfinite(alpha) or alpha < 0:
            raise ValueError(f"alpha must be finite and >= 0, got {alpha}.")
        return int(np.searchsorted(self.alphas, alpha, side="right") - 1)

    def collapsed(self, k) -> np.ndarray:
        """Boolean mask of the internal nodes of T_max collapsed in T_k."""
        return self.collapse_alpha <= self.alphas[self._check_k(k)]

    def subtree(self, k, return_index=False):
        """T_k as a :class:`Tree` (and the T_max id of each of its nodes)."""
        return self.tree.prune(self.collapsed(k), return_index=return_index)

    def _check_k(self, k):
        return check_index(k, "k", len(self))

    # ----------------------------------------------------- leaf intervals
    def leaf_intervals(self):
        """(enter, exit): node t is a leaf of T_alpha iff enter[t] <= alpha < exit[t]."""
        is_leaf = self.tree.is_leaf
        enter = np.where(is_leaf, 0.0, self.collapse_alpha)
        parent_alpha = np.full(self.tree.n_nodes, np.inf)
        parent_alpha[1:] = self.collapse_alpha[self.tree.parent[1:]]
        return enter, parent_alpha

    def sum_over_leaves(self, values, alphas=None):
        """For each temperature, the sum of ``values[t]`` over the leaves of T_alpha.

        Parameters
        ----------
        values : ndarray, shape (n_nodes,) or (n_nodes, m)
        alphas : array-like, optional
            Temperatures (any order); defaults to the path's ``alphas``.

        Returns
        -------
        ndarray, shape (len(alphas),) or (len(alphas), m)

        Each node contributes to the contiguous range of sorted temperatures
        during which it is a leaf, so the cost is O((n_nodes + m) log m), not
        one tree traversal per temperature.
        """
        alphas = self.alphas if alphas is None else np.asarray(alphas, dtype=np.float64)
        order = np.argsort(alphas, kind="stable")
        sorted_alphas = alphas[order]
        enter, exit_ = self.leaf_intervals()
        start = np.searchsorted(sorted_alphas, enter, side="left")
        stop = np.searchsorted(sorted_alphas, exit_, side="left")
        values = np.asarray(values, dtype=np.float64)
        diff = np.zeros((sorted_alphas.shape[0] + 1,) + values.shape[1:])
        np.add.at(diff, start, values)
        np.add.at(diff, stop, -values)
        out = np.empty_like(diff[:-1])
        out[order] = np.cumsum(diff[:-1], axis=0)
        return out

    def misclassified(self, counts, alphas=None):
        """Misclassified weight of another sample (per-node ``counts``) by each T_alpha.

        Leaves are labelled by the pruning sample (``self.label``): this is
        P_{n_t}(f_{T_k}) of eq. (10) times the sample's weight.
        """
        counts = np.asarray(counts, dtype=np.float64)
        if counts.shape[0] != self.tree.n_nodes:
            raise ValueError(f"counts must have {self.tree.n_nodes} rows, one per node.")
        if counts.shape[1] < self.counts.shape[1]:
            counts = np.pad(counts, ((0, 0), (0, self.counts.shape[1] - counts.shape[1])))
        rows = np.arange(self.tree.n_nodes)
        wrong = counts.sum(axis=1) - counts[rows, self.label]
        return self.sum_over_leaves(wrong, alphas)


def cost_complexity_path(tree: Tree, counts) -> CostComplexityPath:
    """Breiman's pruning sequence on misclassification cost (Table 1).

    Parameters
    ----------
    tree : Tree
        T_max.
    counts : array-like, shape (n_nodes, n_classes)
        Weighted class counts of the pruning sample per node, e.g.
        ``tree.node_counts(X, y, sample_weight, n_classes=n_classes)``.

    Returns
    -------
    CostComplexityPath

    Notes
    -----
    R(t) = (weight of t - weight of its majority class) / total weight.
    T_1 is the smallest subtree minimising R at alpha = 0, and at each step
    all weakest links tied at the minimum are pruned together, so the alphas
    strictly increase and each T_k is the unique smallest minimiser of
    R(T) + alpha |T| on [alpha_k, alpha_{k+1}) (Theorem 2.4.1). The sequence
    is computed in O(n_nodes log n_nodes) (see ``_path_kernels``), whereas
    the weakest-link loop (and scikit-learn's impurity-based path) is
    quadratic in the worst case.
    """
    if not isinstance(tree, Tree):
        raise TypeError(f"tree must be a prunus Tree, got {type(tree).__name__}.")
    counts = _check_counts(tree, counts)
    label = node_labels(tree, counts)
    total = counts.sum(axis=1)
    node_risk = total - counts[np.arange(tree.n_nodes), label]
    weight = total[0]
    beta = collapse_temperatures(tree.children_left, tree.children_right, node_risk, weight)
    collapse = effective_temperatures(beta, tree.parent)
    collapse[tree.is_leaf] = np.inf
    alphas = np.unique(np.concatenate([[0.0], collapse[~tree.is_leaf]]))
    path = CostComplexityPath(tree, counts, alphas, None, None, collapse, label)
    path.n_leaves = np.rint(path.sum_over_leaves(np.ones(tree.n_nodes))).astype(np.int64)
    path.risks = path.sum_over_leaves(node_risk) / weight
    return path
