"""Breiman's minimal cost-complexity pruning sequence, on misclassification
cost or on squared error.

Implements the pruning algorithm of Table 1 in S. Gey, *Risk bounds for CART
classifiers under a margin condition*, for any :class:`~prunus.tree.Tree` and any
per-node class counts (so T_max can be grown on one sample and pruned with
another: method M1 of section 3.1); and the same algorithm on the
within-leaf squared error of a regression tree (Breiman et al., chapter 8;
Gey & Nedelec, *Model selection for CART regression trees*) from any per-node
(weight, mean, within sum of squares) of a sample.
"""

from __future__ import annotations

from typing import Literal, overload

import numpy as np
from numpy.typing import ArrayLike

from ..tree import Tree
from ..tree._kernels import fill_from_parent
from ..tree.cart import N_MOMENTS
from ..utils._param_validation import check_index
from ._path_kernels import (
    collapse_temperatures,
    effective_temperatures,
    integer_count_path,
    interval_sums,
    path_error_sums,
)


def node_labels(tree: Tree, counts: np.ndarray, loss: ArrayLike | None = None) -> np.ndarray:
    """Majority class of every node (lowest class index on ties).

    With a ``loss`` matrix (``loss[i, j]``: the cost of predicting class j
    for a row of class i), the class of least expected loss
    ``sum_i counts[t, i] loss[i, j]`` instead (lowest index on ties). A node
    that received no weight takes its parent's label, so an empty leaf
    predicts like the smallest non-empty region containing it.

    Parameters
    ----------
    tree : Tree
        The tree (its parents give an empty node its label).
    counts : ndarray, shape (n_nodes, n_classes)
        Class weights of a sample per node (:meth:`Tree.node_counts`).
    loss : array-like, shape (n_classes, n_classes), optional
        ``loss[i, j]``: the cost of predicting class j for a row of class i;
        None: 0-1 loss (the majority class).

    Returns
    -------
    labels : ndarray of int64, shape (n_nodes,)
        The class code each node predicts as a leaf.

    See Also
    --------
    node_values : The regression counterpart (node means).
    """
    counts = np.asarray(counts, dtype=np.float64)
    if loss is None:
        label = np.argmax(counts, axis=1).astype(np.int64)[:, None]
    else:
        label = np.argmin(counts @ check_loss_matrix(loss, counts.shape[1]), axis=1).astype(np.int64)[:, None]
    return fill_from_parent(label, counts.sum(axis=1) <= 0, tree.parent)[:, 0]


def check_loss_matrix(loss: ArrayLike, n_classes: int) -> np.ndarray:
    """A (n_classes, n_classes) float64 loss matrix: finite, non-negative, zero on the diagonal.

    Parameters
    ----------
    loss : array-like, shape (n_classes, n_classes)
        ``loss[i, j]``: the cost of predicting class j for a row of class i.
    n_classes : int
        Number of classes.

    Returns
    -------
    loss : ndarray of float64, shape (n_classes, n_classes)
        The checked matrix (errors name ``loss_matrix``).
    """
    arr = np.asarray(loss, dtype=np.float64)
    if arr.shape != (n_classes, n_classes):
        raise ValueError(
            f"loss_matrix must have shape ({n_classes}, {n_classes}), one row and column per class; got {arr.shape}."
        )
    if not np.isfinite(arr).all() or np.any(arr < 0):
        raise ValueError("loss_matrix must be finite and non-negative.")
    if np.any(np.diag(arr) != 0):
        raise ValueError("loss_matrix must be zero on the diagonal (a right prediction costs nothing).")
    return arr


def _node_loss(counts: np.ndarray, label: np.ndarray | None, loss: np.ndarray | None) -> np.ndarray:
    """Loss of every node as a leaf predicting ``label``: misclassified weight, or expected loss."""
    rows = np.arange(counts.shape[0])
    if loss is None:
        return counts.sum(axis=1) - counts[rows, label]
    return (counts @ loss)[rows, label]


def _check_counts(tree: Tree, counts: ArrayLike) -> np.ndarray:
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

    Parameters
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

    Attributes
    ----------
    loss : ndarray of shape (n_classes, n_classes) or None
        The loss matrix of the risks (None: 0-1 loss).
    """

    loss: np.ndarray | None = None
    # Filled in by the builder once the path exists (they are sums over its leaves).
    n_leaves: np.ndarray
    risks: np.ndarray

    def __init__(
        self,
        tree: Tree,
        counts: np.ndarray,
        alphas: np.ndarray,
        n_leaves: np.ndarray | None,
        risks: np.ndarray | None,
        collapse_alpha: np.ndarray,
        label: np.ndarray | None,
    ) -> None:
        self.tree = tree
        self.counts = counts
        self.alphas = alphas
        if n_leaves is not None:
            self.n_leaves = n_leaves
        if risks is not None:
            self.risks = risks
        self.collapse_alpha = collapse_alpha
        self.label = label

    def __len__(self):
        return int(self.alphas.shape[0])

    def __repr__(self):
        return f"CostComplexityPath(K={len(self)}, n_leaves={self.n_leaves[0]}..{self.n_leaves[-1]})"

    # ------------------------------------------------------------ lookups
    def index(self, alpha: float) -> int:
        """k such that T_alpha = T_k (Theorem 2.4.1): the last alpha_k <= alpha.

        Parameters
        ----------
        alpha : float
            A temperature, finite and >= 0.

        Returns
        -------
        k : int
            Index into the path.
        """
        alpha = float(alpha)
        if not np.isfinite(alpha) or alpha < 0:
            raise ValueError(f"alpha must be finite and >= 0, got {alpha}.")
        return int(np.searchsorted(self.alphas, alpha, side="right") - 1)

    def collapsed(self, k: int) -> np.ndarray:
        """Boolean mask of the internal nodes of T_max collapsed in T_k.

        Parameters
        ----------
        k : int
            Index into the path (negative counts from the end).

        Returns
        -------
        mask : ndarray of bool, shape (n_nodes,)
            True at the internal nodes that are leaves of T_k or below one.
        """
        return self.collapse_alpha <= self.alphas[self._check_k(k)]

    @overload
    def subtree(self, k: int, return_index: Literal[False] = ...) -> Tree: ...

    @overload
    def subtree(self, k: int, return_index: Literal[True]) -> tuple[Tree, np.ndarray]: ...

    @overload
    def subtree(self, k: int, return_index: bool = ...) -> Tree | tuple[Tree, np.ndarray]: ...

    def subtree(self, k: int, return_index: bool = False) -> Tree | tuple[Tree, np.ndarray]:
        """T_k as a :class:`Tree`.

        Parameters
        ----------
        k : int
            Index into the path (negative counts from the end).
        return_index : bool, default=False
            Also return the T_max id of each node of T_k.

        Returns
        -------
        tree : Tree
            The subtree T_k.
        index : ndarray of int64, shape (tree.n_nodes,)
            Only with ``return_index``.
        """
        return self.tree.prune(self.collapsed(k), return_index=return_index)

    def _check_k(self, k):
        return check_index(k, "k", len(self))

    # ----------------------------------------------------- leaf intervals
    def leaf_intervals(self) -> tuple[np.ndarray, np.ndarray]:
        """Temperatures at which every node is a leaf.

        Returns
        -------
        enter, exit : ndarray of float64, shape (n_nodes,)
            Node t is a leaf of T_alpha iff ``enter[t] <= alpha < exit[t]``.
        """
        is_leaf = self.tree.is_leaf
        enter = np.where(is_leaf, 0.0, self.collapse_alpha)
        parent_alpha = np.full(self.tree.n_nodes, np.inf)
        parent_alpha[1:] = self.collapse_alpha[self.tree.parent[1:]]
        return enter, parent_alpha

    def sum_over_leaves(self, values: ArrayLike, alphas: ArrayLike | None = None) -> np.ndarray:
        """For each temperature, the sum of ``values[t]`` over the leaves of T_alpha.

        Parameters
        ----------
        values : ndarray, shape (n_nodes,) or (n_nodes, m)
            A value (or m values) per node.
        alphas : array-like, optional
            Temperatures (any order); defaults to the path's ``alphas``.

        Returns
        -------
        sums : ndarray, shape (len(alphas),) or (len(alphas), m)
            The sums over the leaves of each T_alpha.

        Notes
        -----

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
        sums = interval_sums(
            np.ascontiguousarray(values.reshape(values.shape[0], -1)), start, stop, sorted_alphas.shape[0]
        )
        out = np.empty_like(sums)
        out[order] = sums
        return out.reshape((sorted_alphas.shape[0],) + values.shape[1:])

    def held_out_loss(self, counts: ArrayLike, alphas: ArrayLike | None = None) -> np.ndarray:
        """Loss of another sample given by its per-node statistics.

        Here the misclassified weight (:meth:`misclassified`).

        Parameters
        ----------
        counts : array-like, shape (n_nodes, n_classes)
            Class weights of the sample per node.
        alphas : array-like of float, optional
            Temperatures (any order); defaults to the path's ``alphas``.

        Returns
        -------
        loss : ndarray of float64, shape (len(alphas),)
            The loss of the sample by each T_alpha.
        """
        return self.misclassified(counts, alphas)

    @staticmethod
    def sample_weight_of(counts: ArrayLike) -> float:
        """Total weight of a sample from its per-node statistics.

        Parameters
        ----------
        counts : array-like, shape (n_nodes, n_classes)
            Class weights of the sample per node.

        Returns
        -------
        weight : float
            The weight at the root.
        """
        return float(np.asarray(counts, dtype=np.float64)[0].sum())

    def _held_out_rows(self, X, y, weight, rows, alphas):
        """Loss of the rows ``rows`` of checked arrays (``y`` class codes) at
        each temperature: (misclassified weight or loss, the weighted sum of the
        squared losses of the rows, their total weight)."""
        counts = self.tree._node_counts_rows(X, y, weight, rows, self.counts.shape[1])
        wrong = self.misclassified(counts, alphas)
        squares = self.misclassified(counts, alphas, squared=True) if getattr(self, "loss", None) is not None else wrong
        return wrong, squares, float(counts[0].sum())

    def misclassified(self, counts: ArrayLike, alphas: ArrayLike | None = None, squared: bool = False) -> np.ndarray:
        """Misclassified weight of another sample (per-node ``counts``) by each T_alpha.

        Leaves are labelled by the pruning sample (``self.label``): this is
        P_{n_t}(f_{T_k}) of eq. (10) times the sample's weight. With the
        path's ``loss`` matrix, the weighted loss instead; ``squared`` sums
        the squared loss of every row (for a standard error; the same as the
        loss itself without a matrix).

        Parameters
        ----------
        counts : array-like, shape (n_nodes, n_classes)
            Class weights of the sample per node.
        alphas : array-like of float, optional
            Temperatures (any order); defaults to the path's ``alphas``.
        squared : bool, default=False
            Sum the squared loss of every row instead.

        Returns
        -------
        wrong : ndarray of float64, shape (len(alphas),)
            The misclassified weight (or loss) by each T_alpha.
        """
        counts = np.asarray(counts, dtype=np.float64)
        if counts.shape[0] != self.tree.n_nodes:
            raise ValueError(f"counts must have {self.tree.n_nodes} rows, one per node.")
        if counts.shape[1] < self.counts.shape[1]:
            counts = np.pad(counts, ((0, 0), (0, self.counts.shape[1] - counts.shape[1])))
        loss = getattr(self, "loss", None)
        if loss is not None and squared:
            loss = loss**2
        return self.sum_over_leaves(_node_loss(counts, self.label, loss), alphas)


class SquaredErrorPath(CostComplexityPath):
    """The pruning sequence of a regression tree on squared error.

    Not built directly: see :func:`squared_error_path`. The attributes are
    those of :class:`CostComplexityPath` with R(T) the within-leaf weighted
    squared error over the total weight; ``counts`` holds the per-node
    (weight, mean, within sum of squares) of the pruning sample (also as
    ``moments``) and ``value`` replaces ``label``.

    Parameters
    ----------
    tree : Tree
        T_max.
    moments : ndarray, shape (n_nodes, 3)
        Per-node (weight, mean, within sum of squares) of the pruning sample.
    alphas, n_leaves, risks, collapse_alpha : ndarray
        As in :class:`CostComplexityPath`.
    value : ndarray, shape (n_nodes,)
        Weighted mean of y at every node on the pruning sample (a node
        without weight takes its parent's): the prediction of T_k's leaves.
    """

    def __init__(
        self,
        tree: Tree,
        moments: np.ndarray,
        alphas: np.ndarray,
        n_leaves: np.ndarray | None,
        risks: np.ndarray | None,
        collapse_alpha: np.ndarray,
        value: np.ndarray,
    ) -> None:
        super().__init__(tree, moments, alphas, n_leaves, risks, collapse_alpha, None)
        self.value = value

    @property
    def moments(self) -> np.ndarray:
        """Per-node (weight, mean, within sum of squares) of the pruning sample."""
        return self.counts

    def __repr__(self):
        return f"SquaredErrorPath(K={len(self)}, n_leaves={self.n_leaves[0]}..{self.n_leaves[-1]})"

    def held_out_loss(self, moments: ArrayLike, alphas: ArrayLike | None = None) -> np.ndarray:
        """Weighted squared error of another sample by each T_alpha.

        A node contributes ``SS + W (mean - value)^2`` of the sample while a
        leaf.

        Parameters
        ----------
        moments : array-like, shape (n_nodes, 3)
            The sample's per-node moments (:meth:`Tree.node_moments`).
        alphas : array-like of float, optional
            Temperatures (any order); defaults to the path's ``alphas``.

        Returns
        -------
        loss : ndarray of float64, shape (len(alphas),)
            The weighted squared error by each T_alpha.
        """
        moments = np.asarray(moments, dtype=np.float64)
        if moments.shape != (self.tree.n_nodes, N_MOMENTS):
            raise ValueError(f"moments must have shape ({self.tree.n_nodes}, 3), got {moments.shape}.")
        gap = moments[:, 1] - self.value
        return self.sum_over_leaves(moments[:, 2] + moments[:, 0] * gap * gap, alphas)

    @staticmethod
    def sample_weight_of(moments: ArrayLike) -> float:
        """Total weight of a sample from its per-node moments.

        Parameters
        ----------
        moments : array-like, shape (n_nodes, 3)
            The sample's per-node moments.

        Returns
        -------
        weight : float
            The weight at the root.
        """
        return float(np.asarray(moments, dtype=np.float64)[0, 0])

    def _held_out_rows(self, X, y, weight, rows, alphas):
        """(weighted squared error, weighted sum of the squared errors' squares,
        total weight) of the rows ``rows`` of checked arrays at each temperature."""
        leaves = self.tree._apply_rows(X, rows)
        sq, fourth = path_error_sums(leaves, y[rows], weight[rows], self.tree.parent, self.value)
        sums = self.sum_over_leaves(np.stack([sq, fourth], axis=1), alphas)
        return sums[:, 0].copy(), sums[:, 1].copy(), float(weight[rows].sum())

    def squared_error(
        self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None, alphas: ArrayLike | None = None
    ) -> np.ndarray:
        """Weighted squared error of a sample by each T_alpha (leaves predict
        the pruning sample's means, ``value``).

        Parameters
        ----------
        X : array-like, shape (n_samples, n_features)
            The rows.
        y : array-like, shape (n_samples,)
            Their real target.
        sample_weight : array-like, shape (n_samples,), optional
            Row weights (default: ones).
        alphas : array-like, optional
            Temperatures; defaults to the path's ``alphas``.

        Returns
        -------
        sse : ndarray, shape (len(alphas),)
            The weighted squared error by each T_alpha.
        """
        from ..tree._tree import _check_weight, check_target

        X = self.tree._check_X(X)
        y = check_target(y, X.shape[0])
        weight = _check_weight(sample_weight, X.shape[0])
        sse, _, _ = self._held_out_rows(X, y, weight, np.arange(X.shape[0]), alphas)
        return sse


def node_values(tree: Tree, moments: np.ndarray) -> np.ndarray:
    """Mean of every node; a node that received no weight takes its parent's.

    Parameters
    ----------
    tree : Tree
        The tree (its parents give an empty node its value).
    moments : ndarray, shape (n_nodes, 3)
        Per-node (weight, mean, within sum of squares) of a sample.

    Returns
    -------
    values : ndarray of float64, shape (n_nodes,)
        The value each node predicts as a leaf.

    See Also
    --------
    node_labels : The classification counterpart (majority classes).
    """
    value = np.asarray(moments, dtype=np.float64)[:, 1:2].copy()
    return fill_from_parent(value, moments[:, 0] <= 0, tree.parent)[:, 0]


def _check_moments(tree: Tree, moments: ArrayLike) -> np.ndarray:
    moments = np.asarray(moments, dtype=np.float64)
    if moments.ndim != 2 or moments.shape != (tree.n_nodes, N_MOMENTS):
        raise ValueError(
            f"moments must have shape (n_nodes={tree.n_nodes}, 3): weight, mean and within sum of squares "
            f"per node; got {moments.shape}."
        )
    if not np.isfinite(moments).all():
        raise ValueError("moments must be finite.")
    if np.any(moments[:, 0] < 0) or np.any(moments[:, 2] < 0):
        raise ValueError("moments must hold non-negative weights and sums of squares.")
    if moments[0, 0] <= 0:
        raise ValueError("moments must hold a positive total weight at the root.")
    return np.ascontiguousarray(moments)


def _weakest_links(tree, node_risk, weight):
    """(alphas, collapse_alpha) of the sequence for unnormalised node risks."""
    beta = collapse_temperatures(tree.children_left, tree.children_right, node_risk, weight)
    collapse = effective_temperatures(beta, tree.parent)
    collapse[tree.is_leaf] = np.inf
    alphas = np.unique(np.concatenate([[0.0], collapse[~tree.is_leaf]]))
    return alphas, collapse


def _fill_sizes(path, node_risk, weight):
    # Leaves and risks in one pass over the nodes: each column is summed
    # alone, in the same order as two passes would (see interval_sums).
    sums = path.sum_over_leaves(np.column_stack((np.ones(path.tree.n_nodes), node_risk)))
    path.n_leaves = np.rint(sums[:, 0]).astype(np.int64)
    path.risks = sums[:, 1] / weight
    return path


def squared_error_path(tree: Tree, moments: ArrayLike) -> SquaredErrorPath:
    """Breiman's pruning sequence on squared error (regression trees).

    The algorithm of :func:`cost_complexity_path` with the risk of a node as a
    leaf its within sum of squares: R(T) is the weighted squared error of the
    sample when every leaf predicts its mean, over the total weight, and T_k
    minimises R(T) + alpha |T| on [alpha_k, alpha_{k+1}) (Breiman et al.,
    *Classification and Regression Trees*, chapter 8; the penalty shape
    |T|/n of Gey & Nedelec, *Model selection for CART regression trees*).

    Parameters
    ----------
    tree : Tree
        T_max.
    moments : array-like, shape (n_nodes, 3)
        Weight, weighted mean and weighted sum of squared deviations from
        that mean of the pruning sample per node, e.g.
        ``tree.node_moments(X, y, sample_weight)``.

    Returns
    -------
    SquaredErrorPath

    Notes
    -----
    Weakest links tied in exact arithmetic are pruned in one step when their
    rounded temperatures are equal: always for identical branches, and
    exactly whenever the sums of squares and their differences are exact in
    float64 (e.g. dyadic y with power-of-two weights per node). Otherwise a
    tie may be broken into two steps a few ulps apart.
    """
    if not isinstance(tree, Tree):
        raise TypeError(f"tree must be a prunus Tree, got {type(tree).__name__}.")
    return _squared_error_path(tree, _check_moments(tree, moments))


def _squared_error_path(tree: Tree, moments: np.ndarray, sizes: bool = True) -> SquaredErrorPath:
    """:func:`squared_error_path` of checked ``moments``; without ``sizes``
    the path lacks ``n_leaves`` and ``risks`` (None), which a cross-validation
    fold, evaluated on its held-out rows only, never reads."""
    node_risk = moments[:, 2].copy()
    weight = moments[0, 0]
    alphas, collapse = _weakest_links(tree, node_risk, weight)
    path = SquaredErrorPath(tree, moments, alphas, None, None, collapse, node_values(tree, moments))
    return _fill_sizes(path, node_risk, weight) if sizes else path


def cost_complexity_path(tree: Tree, counts: ArrayLike, loss: ArrayLike | None = None) -> CostComplexityPath:
    """Breiman's pruning sequence on misclassification cost (Table 1).

    Parameters
    ----------
    tree : Tree
        T_max.
    counts : array-like, shape (n_nodes, n_classes)
        Weighted class counts of the pruning sample per node, e.g.
        ``tree.node_counts(X, y, sample_weight, n_classes=n_classes)``.
    loss : array-like, shape (n_classes, n_classes), optional
        ``loss[i, j]``: the cost of predicting class j for a row of class i
        (zero diagonal; rpart's ``parms = list(loss = ...)``). Leaves then
        predict the class of least expected loss and R(t) is that expected
        loss over the total weight (Breiman et al., section 4.3). Default:
        0-1 loss, the misclassification cost.

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
    if loss is not None:
        loss = check_loss_matrix(loss, counts.shape[1])
    return _cost_complexity_path(tree, counts, loss)


def _cost_complexity_path(
    tree: Tree, counts: np.ndarray, loss: np.ndarray | None = None, sizes: bool = True
) -> CostComplexityPath:
    """:func:`cost_complexity_path` of checked ``counts`` and ``loss``
    (without ``sizes``, as :func:`_squared_error_path`)."""
    if loss is None:
        # Integer counts (integer weights): the same path in one compiled pass.
        ok, label, alphas, collapse, n_leaves, risks = integer_count_path(
            tree.children_left, tree.children_right, tree.parent, counts, sizes
        )
        if ok:
            path = CostComplexityPath(
                tree, counts, alphas, n_leaves if sizes else None, risks if sizes else None, collapse, label
            )
            path.loss = loss
            return path
    label = node_labels(tree, counts, loss)
    node_risk = _node_loss(counts, label, loss)
    weight = counts.sum(axis=1)[0]
    alphas, collapse = _weakest_links(tree, node_risk, weight)
    path = CostComplexityPath(tree, counts, alphas, None, None, collapse, label)
    path.loss = loss
    return _fill_sizes(path, node_risk, weight) if sizes else path
