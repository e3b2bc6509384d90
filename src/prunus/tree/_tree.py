"""The shared tree structure of prunus.

A :class:`Tree` is only a partition of the input space: flat arrays describing
binary axis-aligned splits. It carries no labels or statistics; pruning,
voting and boosting attach those per node (see :meth:`Tree.node_counts`), so
the same tree can be pruned with one sample and evaluated with another
(method M1 of Gey's paper) or voted over with PAC-Bayes weights.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, overload

import numpy as np
from numpy.typing import ArrayLike
from scipy import sparse

from ..utils._validation import is_dask_collection
from ._kernels import (
    CHILD_ORDER,
    FEATURE_RANGE,
    LEAVES_DIFFER,
    STRUCTURE_OK,
    THRESHOLD_VALUE,
    TWO_PARENTS,
    UNREACHABLE,
    apply_categorical_kernel,
    apply_kernel,
    apply_kernel_parallel,
    apply_rows_kernel,
    decision_path_indices,
    depth_and_parent,
    leaf_counts_to_node_counts,
    leaf_moments_to_node_moments,
    removed_below,
    scatter_counts,
    scatter_moments,
    structure_error,
)
from ._persistence import tree_state, upgraded_state
from ._surrogate import SurrogateSplits, apply_surrogate_kernel, routing_record

TREE_LEAF = -1
#: Most levels a categorical feature of a tree may have (its subsets are
#: bitsets of ``ceil(L / 64)`` words per node).
MAX_CATEGORIES = 1024


def _refuse_dask(method, *arrays):
    if any(is_dask_collection(a) for a in arrays):
        raise TypeError(
            f"Tree.{method} takes in-memory arrays, got a dask collection; "
            f"use prunus.distributed.{method}(tree, ...), which works block by block."
        )


_PARALLEL_APPLY_MIN_ROWS = 200_000


class Tree:
    """Binary tree with axis-aligned splits, stored as flat arrays.

    Row ``x`` goes to ``children_left[node]`` when
    ``x[feature[node]] <= threshold[node]`` and to ``children_right[node]``
    otherwise (scikit-learn's convention). A missing value (NaN) goes left when
    ``missing_go_to_left[node]`` holds and right otherwise. Node 0 is the root
    and every child has a larger id than its parent, so reversed id order is a
    bottom-up traversal; every dynamic program in prunus relies on this.

    Parameters
    ----------
    children_left, children_right : array-like of int, shape (n_nodes,)
        Child ids, ``-1`` at leaves (both or neither).
    feature : array-like of int, shape (n_nodes,)
        Split feature (ignored at leaves, stored as ``-2`` there).
    threshold : array-like of float, shape (n_nodes,)
        Split threshold in raw feature units (``-2.0`` at leaves). ``+inf``
        sends every present value left (a split on missingness alone).
    n_features : int
        Number of input features the tree expects.
    missing_go_to_left : array-like of bool, shape (n_nodes,), optional
        Side taken by a missing value at each split (default: right, as
        ``x <= threshold`` is false for NaN). Ignored at leaves.
    n_categories : array-like of int, shape (n_features,), optional
        Number of levels ``L`` of each categorical feature, 0 for a numeric
        one (default: every feature numeric). A categorical feature's values
        are level codes ``0 .. L - 1`` (as floats; NaN is missing), at most
        :data:`MAX_CATEGORIES` levels.
    category_bits : array-like of uint64, shape (n_nodes, n_words), optional
        At a split on a categorical feature, the subset of levels sent left
        as a bitset: level ``c`` goes left iff bit ``c % 64`` of word
        ``c // 64`` is set. Needed when a split uses a categorical feature;
        ``n_words >= ceil(L / 64)`` for the largest ``L`` split on.
    surrogates : SurrogateSplits, optional
        Surrogate splits per node (see :ref:`the user guide <cart-missing>`),
        flat tables of ``SurrogateSplits(offsets, feature, threshold,
        left_below, category_bits, known_bits, agreement, adj)``: node ``t``'s,
        best first, are entries ``offsets[t]:offsets[t + 1]``; a numeric one
        sends ``x <= threshold`` left iff ``left_below``, a categorical one
        (threshold NaN) sends the levels of ``category_bits`` left and the
        other levels of ``known_bits`` right. Default: none.

    Attributes
    ----------
    parent, depth : ndarray of int, shape (n_nodes,)
        Parent id (``-1`` at the root) and depth (0 at the root).
    is_categorical : ndarray of bool, shape (n_nodes,)
        Splits on a categorical feature (a subset of levels left); their
        ``threshold`` is NaN.
    n_nodes, n_leaves, max_depth : int

    Notes
    -----
    At a categorical split, a value that is not one of the feature's level
    codes (an unseen level, coded NaN or out of range) goes where missing
    values go. With surrogates, a row missing a split's feature follows the
    first of the node's surrogates that gives it a side (its feature present,
    at a categorical one a level with a side), and ``missing_go_to_left``
    only when none does.
    """

    def __init__(
        self,
        children_left: ArrayLike,
        children_right: ArrayLike,
        feature: ArrayLike,
        threshold: ArrayLike,
        n_features: int,
        missing_go_to_left: ArrayLike | None = None,
        *,
        n_categories: ArrayLike | None = None,
        category_bits: ArrayLike | None = None,
        surrogates: SurrogateSplits | None = None,
    ) -> None:
        # Copies, so that later edits of the caller's arrays cannot break the
        # validated structure (parent / depth are derived once, here).
        left = np.array(children_left, dtype=np.int64, order="C", copy=True)
        right = np.array(children_right, dtype=np.int64, order="C", copy=True)
        feature = np.array(feature, dtype=np.int64, order="C", copy=True)
        threshold = np.array(threshold, dtype=np.float64, order="C", copy=True)
        if missing_go_to_left is None:
            missing = np.zeros(left.shape, dtype=np.bool_)
        else:
            missing = np.array(missing_go_to_left, order="C", copy=True)
            if missing.shape != left.shape:
                raise ValueError(
                    f"missing_go_to_left must have shape {left.shape} like children_left, got {missing.shape}."
                )
            missing = missing.astype(np.bool_)
        n_features = int(n_features)
        n_cat = _check_n_categories(n_categories, n_features)
        is_leaf = left == TREE_LEAF
        # Categorical splits have no threshold (NaN): checked as if it were 0.
        is_categorical = np.zeros(left.shape, dtype=np.bool_)
        checked_threshold = threshold
        if n_cat.any() and feature.shape == left.shape and threshold.shape == left.shape:
            is_categorical = ~is_leaf & (n_cat[np.clip(feature, 0, n_features - 1)] > 0)
            checked_threshold = np.where(is_categorical, 0.0, threshold)
        _check_structure(left, right, feature, checked_threshold, n_features)
        feature = np.where(is_leaf, -2, feature)
        bits = _check_category_bits(category_bits, n_cat, feature, is_categorical)
        surrogates = _check_surrogates(surrogates, feature, is_leaf, n_cat)
        self._set_nodes(left, right, feature, threshold, missing, n_features, n_cat, is_categorical, bits, surrogates)

    def _set_nodes(self, left, right, feature, threshold, missing, n_features, n_cat, is_categorical, bits, surrogates):
        """Store checked node arrays in their canonical form: placeholders at
        the leaves (feature -2, threshold -2.0, no missing side), NaN
        thresholds at categorical splits, the bits of other splits and of
        levels beyond a feature's count cleared (also in the surrogates)."""
        is_leaf = left == TREE_LEAF
        self.children_left = left
        self.children_right = right
        self.feature = np.where(is_leaf, -2, feature)
        self.threshold = np.where(is_leaf, -2.0, np.where(is_categorical, np.nan, threshold))
        self.missing_go_to_left = missing & ~is_leaf
        self.n_features = n_features
        self.n_categories = n_cat
        self.is_categorical = is_categorical
        self.category_bits = _canonical_category_bits(bits, n_cat, self.feature, is_categorical)
        if surrogates is not None:
            surrogates = _canonical_surrogates(surrogates, n_cat)
        self.surrogates = surrogates
        self.parent, self.depth = depth_and_parent(left, right)

    @classmethod
    def _of_valid_nodes(
        cls, left, right, feature, threshold, n_features, missing, n_categories, category_bits, surrogates=None
    ) -> Tree:
        """The tree of node arrays that are known to be valid (a grower's
        output, the nodes a checked mask keeps of a tree), without the
        constructor's checks, which cost more than a small table's tree
        takes to grow; made canonical as the constructor makes them, so the
        tree is the constructor's, array for array.

        ``left``, ``right`` (int64) and the other arrays are taken over, not
        copied: the caller gives them up. ``category_bits`` is an integer
        array of shape (n_nodes, n_words), ``surrogates`` a
        :class:`SurrogateSplits` or None.
        """
        tree = cls.__new__(cls)
        left = np.ascontiguousarray(left, dtype=np.int64)
        right = np.ascontiguousarray(right, dtype=np.int64)
        feature = np.asarray(feature, dtype=np.int64)
        threshold = np.asarray(threshold, dtype=np.float64)
        missing = np.asarray(missing, dtype=np.bool_)
        n_cat = np.array(n_categories, dtype=np.int64)
        is_leaf = left == TREE_LEAF
        if n_cat.any():
            # np.minimum(np.maximum()) rather than np.clip: the same indices, a fraction of the cost.
            is_categorical = ~is_leaf & (n_cat[np.minimum(np.maximum(feature, 0), n_features - 1)] > 0)
        else:
            is_categorical = np.zeros(left.shape, dtype=np.bool_)
        bits = np.array(np.asarray(category_bits).astype(np.uint64, copy=False), dtype=np.uint64, order="C")
        if surrogates is not None:
            surrogates = SurrogateSplits(
                surrogates.offsets,
                surrogates.feature,
                np.array(surrogates.threshold, dtype=np.float64),
                surrogates.left_below,
                np.array(surrogates.category_bits, dtype=np.uint64),
                np.array(surrogates.known_bits, dtype=np.uint64),
                surrogates.agreement,
                surrogates.adj,
            )
        tree._set_nodes(
            left, right, feature, threshold, missing, int(n_features), n_cat, is_categorical, bits, surrogates
        )
        return tree

    def __getstate__(self):
        # Pickles carry a format version (see ``_persistence``).
        return tree_state(self)

    def __setstate__(self, state):
        self.__dict__.update(upgraded_state(state))

    # ------------------------------------------------------------------ shape
    @property
    def n_nodes(self) -> int:
        """Number of nodes (internal nodes and leaves)."""
        return int(self.children_left.shape[0])

    @property
    def is_leaf(self) -> np.ndarray:
        """Boolean mask of the leaves."""
        return self.children_left == TREE_LEAF

    @property
    def n_leaves(self) -> int:
        """Number of leaves."""
        return int(np.count_nonzero(self.is_leaf))

    @property
    def max_depth(self) -> int:
        """Depth of the deepest leaf (0 for a single leaf)."""
        return int(self.depth.max())

    def leaves_below(self) -> np.ndarray:
        """Number of leaves of the branch rooted at each node.

        Returns
        -------
        n_leaves : ndarray of int64, shape (n_nodes,)
            1 at a leaf; at the root, :attr:`n_leaves`.
        """
        n_leaves = self.is_leaf.astype(np.float64)[:, None]
        return leaf_counts_to_node_counts(n_leaves, self.parent)[:, 0].astype(np.int64)

    # -------------------------------------------------------------- routing
    def _check_X(self, X) -> np.ndarray:
        X = np.asarray(X, dtype=np.float64)
        if X.ndim == 2 and X.shape[1] != self.n_features:
            raise ValueError(f"X has {X.shape[1]} features, but the tree was built with {self.n_features} features.")
        return check_X_missing(X)

    def _routing(self):
        return self.children_left, self.children_right, self.feature, self.threshold, self.missing_go_to_left

    @property
    def has_categorical_splits(self) -> bool:
        """Whether some split sends a subset of levels of a categorical feature left."""
        return bool(self.is_categorical.any())

    @property
    def has_surrogates(self) -> bool:
        """Whether some split has surrogate splits."""
        return self.surrogates is not None and self.surrogates.feature.shape[0] > 0

    def node_surrogates(self, node: int) -> SurrogateSplits:
        """The surrogate splits of ``node``, best first (empty tables if none).

        Parameters
        ----------
        node : int
            A node id.

        Returns
        -------
        surrogates : SurrogateSplits
            The node's entries only (``offsets`` is ``[0, n]``).
        """
        node = int(node)
        if not 0 <= node < self.n_nodes:
            raise ValueError(f"node must lie in 0 .. {self.n_nodes - 1}, got {node}.")
        if self.surrogates is None:
            from ._surrogate import empty_surrogates

            return empty_surrogates(0)
        s = self.surrogates
        lo, hi = int(s.offsets[node]), int(s.offsets[node + 1])
        return SurrogateSplits(np.array([0, hi - lo]), *(a[lo:hi] for a in s[1:]))

    def _surrogates_record(self):
        return routing_record(self.surrogates)

    def _categories_record(self):
        # The kernels read the bitsets as int64 words (the same bits).
        return self.is_categorical, self.category_bits.view(np.int64), self.n_categories

    def apply(self, X: ArrayLike) -> np.ndarray:
        """Leaf id reached by each row of ``X``.

        NaN is a missing value and follows ``missing_go_to_left``; so does,
        at a categorical split, a value that is not a level code of the
        feature. For a dask ``X`` use :func:`prunus.distributed.apply`.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows; NaN is a missing value.

        Returns
        -------
        leaves : ndarray of int64, shape (n_samples,)
            The node id of the leaf of every row.
        """
        _refuse_dask("apply", X)
        X = self._check_X(X)
        if self.has_categorical_splits or self.has_surrogates:
            return self._apply_rows(X, np.arange(X.shape[0], dtype=np.int64))
        kernel = apply_kernel_parallel if X.shape[0] >= _PARALLEL_APPLY_MIN_ROWS else apply_kernel
        return kernel(X, *self._routing())

    def _apply_rows(self, X, rows) -> np.ndarray:
        """Leaves of ``X[rows]`` for a checked float64 C-contiguous ``X`` (no copy of the rows)."""
        if self.has_surrogates:
            rows = np.asarray(rows, dtype=np.int64)
            is_categorical, bits, n_categories = self._categories_record()
            return apply_surrogate_kernel(
                X,
                rows,
                self.children_left,
                self.feature,
                self.threshold,
                self.missing_go_to_left,
                (self.children_right, is_categorical, bits, n_categories),
                self._surrogates_record(),
            )
        if self.has_categorical_splits:
            rows = np.asarray(rows, dtype=np.int64)
            return apply_categorical_kernel(X, rows, *self._routing(), self._categories_record())
        return apply_rows_kernel(X, rows, *self._routing())

    def left_categories(self, node: int) -> np.ndarray:
        """Level codes sent left by the categorical split at ``node``.

        Parameters
        ----------
        node : int
            A node that splits on a categorical feature.

        Returns
        -------
        codes : ndarray of int, ascending
            The levels whose rows go to the left child.
        """
        if not self.is_categorical[node]:
            raise ValueError(f"node {node} is not a categorical split.")
        n_levels = int(self.n_categories[self.feature[node]])
        codes = np.arange(n_levels)
        words = self.category_bits[node, codes >> 6]
        return codes[((words >> (codes & 63).astype(np.uint64)) & np.uint64(1)) == 1]

    def decision_path(self, X: ArrayLike) -> sparse.csr_matrix:
        """Indicator of the nodes each row visits.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows; NaN is a missing value.

        Returns
        -------
        indicator : scipy.sparse.csr_matrix of int64, shape (n_samples, n_nodes)
            1 where the row's path goes through the node.
        """
        leaves = self.apply(X)
        lengths = self.depth[leaves] + 1
        indptr = np.zeros(leaves.shape[0] + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        # One numba pass walking up from each leaf (the former numpy loop over
        # depth levels was ~6x slower than scikit-learn on deep trees).
        indices = decision_path_indices(leaves, self.parent, indptr)
        # int64 like scikit-learn: an int8 indicator silently overflows in
        # products such as ``P.T @ P`` (rows shared by two nodes).
        data = np.ones(indices.shape[0], dtype=np.int64)
        return sparse.csr_matrix((data, indices, indptr), shape=(leaves.shape[0], self.n_nodes))

    def node_counts(
        self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None, *, n_classes: int | None = None
    ) -> np.ndarray:
        """Weighted class counts of a sample routed down the tree.

        Parameters
        ----------
        X : array-like, shape (n_samples, n_features)
            The rows; NaN is a missing value.
        y : array-like of int, shape (n_samples,)
            Class codes in ``0 .. n_classes - 1``.
        sample_weight : array-like, shape (n_samples,), optional
            Row weights (default: ones).
        n_classes : int, optional (keyword only)
            Defaults to ``y.max() + 1``.

        Returns
        -------
        counts : ndarray, shape (n_nodes, n_classes)
            ``counts[t, k]`` is the total weight of rows of class ``k`` whose
            path goes through node ``t`` (so the root holds the whole sample).
            For dask inputs use :func:`prunus.distributed.node_counts` (the
            sum of the counts of the row blocks).
        """
        _refuse_dask("node_counts", X, y, sample_weight)
        leaves = self.apply(X)
        y = np.asarray(y)
        if y.shape != (leaves.shape[0],):
            raise ValueError(f"y must have shape ({leaves.shape[0]},), got {y.shape}.")
        if y.size and not np.issubdtype(y.dtype, np.integer):
            raise ValueError("y must hold integer class codes 0 .. n_classes - 1.")
        y = y.astype(np.int64)
        if y.size and y.min() < 0:
            raise ValueError("y must hold non-negative class codes.")
        if n_classes is None:
            n_classes = int(y.max()) + 1 if y.size else 1
        elif not isinstance(n_classes, (int, np.integer)) or isinstance(n_classes, bool) or n_classes < 1:
            raise TypeError(f"n_classes must be a positive integer, got {n_classes!r}.")
        elif y.size and y.max() >= n_classes:
            raise ValueError(f"y holds class code {y.max()} but n_classes={n_classes}.")
        weight = _check_weight(sample_weight, leaves.shape[0])
        counts = scatter_counts(leaves, y, weight, self.n_nodes, int(n_classes))
        return leaf_counts_to_node_counts(counts, self.parent)

    def _node_counts_rows(self, X, y, weight, rows, n_classes) -> np.ndarray:
        """:meth:`node_counts` of the rows ``rows`` of checked arrays (float64
        C-contiguous ``X``, int64 codes ``y``, float64 ``weight``), without
        copying them: cross-validation counts its held-out rows this way."""
        leaves = self._apply_rows(X, rows)
        counts = scatter_counts(leaves, y[rows], weight[rows], self.n_nodes, int(n_classes))
        return leaf_counts_to_node_counts(counts, self.parent)

    def node_moments(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> np.ndarray:
        """Weight, mean and within sum of squares of a real target per node.

        The statistics of a regression sample routed down the tree, from
        which a pruning path on squared error is computed
        (:func:`prunus.pruning.squared_error_path`) and a tree's leaves get
        their values.

        Parameters
        ----------
        X : array-like, shape (n_samples, n_features)
            The rows; NaN is a missing value.
        y : array-like of float, shape (n_samples,)
            Finite real target.
        sample_weight : array-like, shape (n_samples,), optional
            Row weights (default: ones).

        Returns
        -------
        moments : ndarray, shape (n_nodes, 3)
            For every node t (the root holds the whole sample): the total
            weight ``W_t`` of the rows whose path goes through t, their
            weighted mean of y (0 when ``W_t = 0``) and their weighted sum
            of squared deviations from that mean (``W_t`` times the weighted
            variance: the squared error of t as a leaf predicting its mean).
            The weighted sum is ``W_t`` times the mean. The sum of squares is
            computed from deviations, not as ``sum w y^2 - (sum w y)^2 / W``,
            which loses every digit when the mean is large against the spread.
        """
        _refuse_dask("node_moments", X, y, sample_weight)
        leaves = self.apply(X)
        y = check_target(y, leaves.shape[0])
        weight = _check_weight(sample_weight, leaves.shape[0])
        return leaf_moments_to_node_moments(scatter_moments(leaves, y, weight, self.n_nodes), self.parent)

    def _node_moments_rows(self, X, y, weight, rows) -> np.ndarray:
        """:meth:`node_moments` of the rows ``rows`` of checked arrays, without copying them."""
        leaves = self._apply_rows(X, rows)
        return leaf_moments_to_node_moments(scatter_moments(leaves, y[rows], weight[rows], self.n_nodes), self.parent)

    # -------------------------------------------------------------- pruning
    @overload
    def prune(self, nodes: ArrayLike, return_index: Literal[False] = ...) -> Tree: ...

    @overload
    def prune(self, nodes: ArrayLike, return_index: Literal[True]) -> tuple[Tree, np.ndarray]: ...

    @overload
    def prune(self, nodes: ArrayLike, return_index: bool = ...) -> Tree | tuple[Tree, np.ndarray]: ...

    def prune(self, nodes: ArrayLike, return_index: bool = False) -> Tree | tuple[Tree, np.ndarray]:
        """The subtree obtained by turning ``nodes`` into leaves.

        Parameters
        ----------
        nodes : array-like of int or bool mask of shape (n_nodes,)
            Nodes that become leaves; their descendants are removed.
        return_index : bool
            Also return, for each node of the pruned tree, its id in ``self``.

        Returns
        -------
        tree : Tree
            The pruned tree.
        index : ndarray of int
            Only with ``return_index``: the id in ``self`` of each node.
        """
        collapse = np.zeros(self.n_nodes, dtype=bool)
        nodes = np.asarray(nodes)
        if nodes.dtype == bool:
            if nodes.shape != (self.n_nodes,):
                raise ValueError(f"A boolean 'nodes' mask must have shape ({self.n_nodes},).")
            collapse |= nodes
        else:
            if nodes.size and not np.issubdtype(nodes.dtype, np.integer):
                raise TypeError(f"'nodes' must hold integer node ids or be a boolean mask, got dtype {nodes.dtype}.")
            if nodes.size and (nodes.min() < 0 or nodes.max() >= self.n_nodes):
                raise ValueError("'nodes' holds ids outside 0 .. n_nodes - 1.")
            collapse[nodes.astype(np.int64)] = True
        return self._kept_subtree(self.keep_mask(collapse), return_index)

    def keep_mask(self, collapse: ArrayLike) -> np.ndarray:
        """Nodes that remain when every node of the mask ``collapse`` becomes a leaf.

        Parameters
        ----------
        collapse : ndarray of bool, shape (n_nodes,)
            The nodes that become leaves.

        Returns
        -------
        keep : ndarray of bool, shape (n_nodes,)
            False below every collapsed node.
        """
        collapse = np.asarray(collapse)
        if collapse.dtype != bool or collapse.shape != (self.n_nodes,):
            raise ValueError(
                f"'collapse' must be a boolean mask of shape ({self.n_nodes},); "
                "use prune() to collapse a list of node ids."
            )
        return ~removed_below(collapse, self.parent)

    @overload
    def subtree(self, keep: ArrayLike, return_index: Literal[False] = ...) -> Tree: ...

    @overload
    def subtree(self, keep: ArrayLike, return_index: Literal[True]) -> tuple[Tree, np.ndarray]: ...

    @overload
    def subtree(self, keep: ArrayLike, return_index: bool = ...) -> Tree | tuple[Tree, np.ndarray]: ...

    def subtree(self, keep: ArrayLike, return_index: bool = False) -> Tree | tuple[Tree, np.ndarray]:
        """The rooted subtree made of the nodes in the boolean mask ``keep``.

        Parameters
        ----------
        keep : array-like of bool, shape (n_nodes,)
            Keeps the root, is closed under taking parents and keeps both
            children of a node or neither (e.g. :meth:`keep_mask`).
        return_index : bool, default=False
            Also return, for each node of the subtree, its id in ``self``.

        Returns
        -------
        tree : Tree
            The subtree.
        index : ndarray of int64
            Only with ``return_index``: the id in ``self`` of each node.
        """
        keep = np.asarray(keep, dtype=bool)
        if keep.shape != (self.n_nodes,) or not keep[0]:
            raise ValueError("'keep' must be a boolean mask over the nodes that keeps the root.")
        kept_parent = self.parent[1:][keep[1:]]
        if not keep[kept_parent].all():
            raise ValueError("'keep' must be closed under taking parents.")
        internal = keep & ~self.is_leaf
        left, right = self.children_left, self.children_right
        if np.any(keep[left[internal]] != keep[right[internal]]):
            raise ValueError("'keep' must keep both children of a node or neither.")
        return self._kept_subtree(keep, return_index)

    def _kept_subtree(self, keep: np.ndarray, return_index: bool = False) -> Tree | tuple[Tree, np.ndarray]:
        """:meth:`subtree` of a mask known to be valid (made by :meth:`keep_mask`),
        without checking it again."""
        left, right = self.children_left, self.children_right
        index = np.flatnonzero(keep)
        new_id = np.full(self.n_nodes, -1, dtype=np.int64)
        new_id[index] = np.arange(index.shape[0])
        new_left = np.where(left[index] >= 0, new_id[np.maximum(left[index], 0)], TREE_LEAF)
        new_right = np.where(right[index] >= 0, new_id[np.maximum(right[index], 0)], TREE_LEAF)
        # The nodes of a valid tree that a checked mask keeps: valid (no checks again).
        tree = Tree._of_valid_nodes(
            new_left,
            new_right,
            self.feature[index],
            self.threshold[index],
            self.n_features,
            self.missing_go_to_left[index],
            self.n_categories,
            self.category_bits[index],
            _kept_surrogates(self.surrogates, index, new_left == TREE_LEAF),
        )
        return (tree, index) if return_index else tree

    # ------------------------------------------------------------ equality
    def __eq__(self, other):
        if not isinstance(other, Tree):
            return NotImplemented
        return (
            self.n_features == other.n_features
            and np.array_equal(self.children_left, other.children_left)
            and np.array_equal(self.children_right, other.children_right)
            and np.array_equal(self.feature, other.feature)
            and np.array_equal(self.threshold, other.threshold, equal_nan=True)
            and np.array_equal(self.missing_go_to_left, other.missing_go_to_left)
            and np.array_equal(self.n_categories, other.n_categories)
            and _same_bits(self.category_bits, other.category_bits)
            and _same_surrogates(self.surrogates, other.surrogates)
        )

    __hash__ = None

    def __repr__(self):
        return f"Tree(n_nodes={self.n_nodes}, n_leaves={self.n_leaves}, max_depth={self.max_depth}, n_features={self.n_features})"

    # -------------------------------------------------------------- export
    def export_text(
        self,
        feature_names: Sequence[str] | None = None,
        node_labels: Sequence[Any] | None = None,
        decimals: int = 3,
        categories: Sequence[Any] | None = None,
        label_name: str = "class",
    ) -> str:
        """Indented text rendering (see :func:`prunus.tree.export_text`).

        Parameters
        ----------
        feature_names : sequence of str, optional
            Names of the features (``x[j]`` when omitted).
        node_labels : sequence, optional
            One entry per node, e.g. the majority class, shown at the leaves.
        decimals : int, default=3
            Decimals of the thresholds.
        categories : sequence, optional
            Names of the levels of each categorical feature (see
            :func:`prunus.tree.export_text`).
        label_name : str, default="class"
            What ``node_labels`` are, written before each leaf's entry
            (``"value"`` for a regression tree's means).

        Returns
        -------
        text : str
            One line per split side and per leaf.
        """
        from .export import export_text

        return export_text(
            self,
            feature_names=feature_names,
            node_labels=node_labels,
            decimals=decimals,
            categories=categories,
            label_name=label_name,
        )

    def export_summary(
        self,
        node_counts: ArrayLike | None = None,
        node_moments: ArrayLike | None = None,
        feature_names: Sequence[str] | None = None,
        class_names: Sequence[Any] | None = None,
        node_labels: Sequence[Any] | None = None,
        decimals: int = 3,
        categories: Sequence[Any] | None = None,
    ) -> str:
        """rpart-style printout: per node the split, n, prediction (see :func:`prunus.tree.export_summary`).

        Parameters
        ----------
        node_counts : ndarray of shape (n_nodes, n_classes), optional
            Class weights of a sample in every node: a classification tree.
        node_moments : ndarray of shape (n_nodes, 3), optional
            Weight, mean and sum of squares of a real target in every node: a
            regression tree.
        feature_names : sequence of str, optional
            Names of the features (``x[j]`` when omitted).
        class_names : sequence, optional
            Names of the classes, in the columns' order.
        node_labels : sequence, optional
            The predicted class of every node, when it is not the majority of
            ``node_counts``.
        decimals : int, default=3
            Decimals of thresholds and class shares.
        categories : sequence, optional
            Names of the levels of each categorical feature.

        Returns
        -------
        text : str
            One line per node.
        """
        from .export import export_summary

        return export_summary(
            self,
            node_counts=node_counts,
            node_moments=node_moments,
            feature_names=feature_names,
            class_names=class_names,
            node_labels=node_labels,
            decimals=decimals,
            categories=categories,
        )

    def to_dot(
        self,
        feature_names: Sequence[str] | None = None,
        node_labels: Sequence[Any] | None = None,
        decimals: int = 3,
        categories: Sequence[Any] | None = None,
        label_name: str = "class",
    ) -> str:
        """Graphviz DOT source (see :func:`prunus.tree.to_dot`).

        Parameters
        ----------
        feature_names : sequence of str, optional
            Names of the features (``x[j]`` when omitted).
        node_labels : sequence, optional
            One entry per node, e.g. the majority class, shown at the leaves.
        decimals : int, default=3
            Decimals of the thresholds.
        categories : sequence, optional
            Names of the levels of each categorical feature (see
            :func:`prunus.tree.export_text`).
        label_name : str, default="class"
            What ``node_labels`` are, written before each leaf's entry
            (``"value"`` for a regression tree's means).

        Returns
        -------
        dot : str
            A ``digraph``.
        """
        from .export import to_dot

        return to_dot(
            self,
            feature_names=feature_names,
            node_labels=node_labels,
            decimals=decimals,
            categories=categories,
            label_name=label_name,
        )

    def plot(
        self,
        feature_names: Sequence[str] | None = None,
        node_labels: Sequence[Any] | None = None,
        ax: Any = None,
        decimals: int = 2,
        categories: Sequence[Any] | None = None,
    ) -> Any:
        """Draw the tree with matplotlib (see :func:`prunus.tree.plot_tree`).

        Parameters
        ----------
        feature_names : sequence of str, optional
            Names of the features (``x[j]`` when omitted).
        node_labels : sequence, optional
            One entry per node, e.g. the majority class, shown at the leaves.
        ax : matplotlib Axes, optional
            Where to draw; a new figure when omitted.
        decimals : int, default=2
            Decimals of the thresholds.
        categories : sequence, optional
            Names of the levels of each categorical feature (see
            :func:`prunus.tree.export_text`).

        Returns
        -------
        ax : matplotlib Axes
            The Axes drawn on.
        """
        from .export import plot_tree

        return plot_tree(
            self, feature_names=feature_names, node_labels=node_labels, ax=ax, decimals=decimals, categories=categories
        )

    # ------------------------------------------------------------ adapters
    @classmethod
    def from_sklearn(cls, estimator: Any) -> "Tree":
        """Convert a fitted scikit-learn tree estimator (or its ``tree_``).

        Parameters
        ----------
        estimator : DecisionTreeClassifier, DecisionTreeRegressor or its ``tree_``
            A fitted scikit-learn decision tree.

        Returns
        -------
        tree : Tree
            The same partition (splits and sides of missing values).
        """
        sk = getattr(estimator, "tree_", estimator)
        for name in ("children_left", "children_right", "feature", "threshold", "n_features"):
            if not hasattr(sk, name):
                raise TypeError("estimator must be a fitted scikit-learn decision tree or its 'tree_' attribute.")
        # scikit-learn >= 1.3 learns a side for missing values; older trees send them right.
        missing = getattr(sk, "missing_go_to_left", None)
        return cls(sk.children_left, sk.children_right, sk.feature, sk.threshold, sk.n_features, missing)


def check_X_missing(X) -> np.ndarray:
    """float64 C-contiguous 2-D array with missing values as NaN; inf is an error."""
    if sparse.issparse(X):
        raise TypeError(
            f"X is a scipy sparse matrix ({X.format}); the CART builder and Tree routing take dense arrays "
            "(NaN is a missing value, not an implicit zero): pass X.toarray()."
        )
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"X must be a 2-D array, got an array with {X.ndim} dimension(s).")
    if np.isinf(X).any():
        raise ValueError("X contains infinity; missing values are NaN, and inf is not a value.")
    return np.ascontiguousarray(X)


def check_target(y: ArrayLike, n_rows: int) -> np.ndarray:
    """A regression target: float64, 1-D, ``n_rows`` finite values (errors name y).

    Parameters
    ----------
    y : array-like of shape (n_rows,)
        The real target.
    n_rows : int
        Rows of X.

    Returns
    -------
    y : ndarray of float64, shape (n_rows,)
        The checked target, C-contiguous.
    """
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        raise ValueError(
            f"y must be a 1-D array of {n_rows} numbers, got a column vector of shape {y.shape}; use y.ravel()."
        )
    if y.ndim != 1 or y.shape[0] != n_rows:
        raise ValueError(f"y must be a 1-D array of {n_rows} numbers, got shape {y.shape}.")
    if y.dtype.kind not in "biuf":
        raise ValueError(f"y must hold numbers for a regression, got dtype {y.dtype}.")
    y = np.ascontiguousarray(y, dtype=np.float64)
    if not np.isfinite(y).all():
        raise ValueError("y contains NaN or infinity; a regression target must be finite.")
    return y


def _check_structure(left, right, feature, threshold, n_features):
    if left.ndim != 1:
        raise ValueError(f"children_left must be a 1-D array, got shape {left.shape}.")
    n = left.shape[0]
    if n == 0:
        raise ValueError("children_left is empty: a tree needs at least one node.")
    for name, arr in (("children_right", right), ("feature", feature), ("threshold", threshold)):
        if arr.shape != (n,):
            raise ValueError(f"{name} must have shape ({n},) like children_left, got {arr.shape}.")
    if n_features < 1:
        raise ValueError(f"n_features must be >= 1, got {n_features}.")
    code = structure_error(left, right, feature, threshold, n_features)
    if code != STRUCTURE_OK:
        raise ValueError(_STRUCTURE_MESSAGES[code])


_STRUCTURE_MESSAGES = {
    LEAVES_DIFFER: "children_left and children_right must be -1 at the same nodes.",
    CHILD_ORDER: "children_left / children_right: every child id must be larger than its parent's and below n_nodes.",
    TWO_PARENTS: "children_left / children_right: a node cannot be the child of two nodes.",
    UNREACHABLE: "children_left / children_right: every node but the root must be reachable from the root.",
    FEATURE_RANGE: "feature holds ids outside 0 .. n_features - 1 at internal nodes.",
    THRESHOLD_VALUE: "threshold must be a number or +inf at internal nodes (not NaN or -inf).",
}


def _check_n_categories(n_categories, n_features):
    if n_categories is None:
        return np.zeros(max(n_features, 0), dtype=np.int64)
    n_cat = np.asarray(n_categories)
    if n_cat.shape != (n_features,) or (n_cat.size and n_cat.dtype.kind not in "iub"):
        raise ValueError(f"n_categories must hold one integer per feature ({n_features}), got {n_cat!r}.")
    n_cat = n_cat.astype(np.int64)
    if n_cat.size and (n_cat.min() < 0 or n_cat.max() > MAX_CATEGORIES):
        raise ValueError(
            f"n_categories must lie in 0 .. {MAX_CATEGORIES} (0 for a numeric feature), got {n_cat.tolist()}."
        )
    return n_cat


def _check_category_bits(category_bits, n_cat, feature, is_categorical):
    """Bitsets as uint64 (n_nodes, n_words), bits of levels >= L and rows of
    numeric splits cleared (so that equal trees have equal arrays)."""
    n_nodes = is_categorical.shape[0]
    if category_bits is None:
        if is_categorical.any():
            raise ValueError("category_bits is needed: the tree splits on a categorical feature.")
        return np.zeros((n_nodes, 0), dtype=np.uint64)
    bits = np.asarray(category_bits)
    if bits.ndim != 2 or bits.shape[0] != n_nodes or (bits.size and bits.dtype.kind not in "iu"):
        raise ValueError(f"category_bits must be an integer array of shape ({n_nodes}, n_words), got {bits.shape}.")
    bits = np.array(bits.astype(np.uint64, copy=False).view(np.uint64), dtype=np.uint64, order="C", copy=True)
    need = int(n_cat[feature[is_categorical]].max()) if is_categorical.any() else 0
    if bits.shape[1] * 64 < need:
        raise ValueError(f"category_bits has {bits.shape[1]} words per node; {need} levels need {-(-need // 64)}.")
    return bits


#: _LOW_BITS[k]: a word of the k low bits set, k = 0 .. 64.
_LOW_BITS = np.array([(1 << k) - 1 for k in range(65)], dtype=np.uint64)


def _canonical_category_bits(bits, n_cat, feature, is_categorical):
    """``bits`` (uint64, (n_nodes, n_words), the caller's to change) with
    the rows of numeric splits and the bits of levels >= L cleared."""
    bits[~is_categorical] = 0
    if bits.shape[1] and is_categorical.any():
        # Word w of a node keeps its levels 64 w .. L - 1: its low min(max(L - 64 w, 0), 64) bits.
        n_levels = np.where(is_categorical, n_cat[np.maximum(feature, 0)], 0)
        kept = np.minimum(np.maximum(n_levels[:, None] - 64 * np.arange(bits.shape[1]), 0), 64)
        mask = _LOW_BITS[kept]
        bits &= mask
    return bits


def _check_surrogates(surrogates, feature, is_leaf, n_cat):
    """Surrogate tables as :class:`SurrogateSplits` of checked arrays (None: none)."""
    if surrogates is None:
        return None
    if not isinstance(surrogates, tuple) or len(surrogates) != len(SurrogateSplits._fields):
        raise TypeError(f"surrogates must be a SurrogateSplits of {len(SurrogateSplits._fields)} arrays.")
    s = SurrogateSplits(*surrogates)
    n_nodes = is_leaf.shape[0]
    offsets = np.array(s.offsets, dtype=np.int64, copy=True)
    if offsets.shape != (n_nodes + 1,) or offsets[0] != 0 or np.any(np.diff(offsets) < 0):
        raise ValueError(f"surrogates.offsets must be {n_nodes + 1} non-decreasing offsets from 0.")
    counts = np.diff(offsets)
    if np.any(counts[is_leaf] > 0):
        raise ValueError("surrogates: a leaf cannot have surrogate splits.")
    n = int(offsets[-1])
    feat = np.array(s.feature, dtype=np.int64, copy=True)
    threshold = np.array(s.threshold, dtype=np.float64, copy=True)
    left_below = np.array(s.left_below, dtype=np.bool_, copy=True)
    agreement = np.array(s.agreement, dtype=np.float64, copy=True)
    adj = np.array(s.adj, dtype=np.float64, copy=True)
    for name, arr in (("feature", feat), ("threshold", threshold), ("left_below", left_below)):
        if arr.shape != (n,):
            raise ValueError(f"surrogates.{name} must have shape ({n},), got {arr.shape}.")
    for name, arr in (("agreement", agreement), ("adj", adj)):
        if arr.shape != (n,):
            raise ValueError(f"surrogates.{name} must have shape ({n},), got {arr.shape}.")
    owner = np.repeat(np.arange(n_nodes), counts)
    if n and (feat.min() < 0 or feat.max() >= n_cat.shape[0] or np.any(feat == feature[owner])):
        raise ValueError("surrogates.feature must hold feature ids other than the node's split feature.")
    categorical = n_cat[feat] > 0 if n else np.zeros(0, dtype=np.bool_)
    if np.any(~categorical & ~np.isfinite(threshold)):
        raise ValueError("surrogates.threshold must be finite at numeric surrogates.")
    words = []
    for name in ("category_bits", "known_bits"):
        bits = np.asarray(getattr(s, name))
        if bits.ndim != 2 or bits.shape[0] != n or (bits.size and bits.dtype.kind not in "iu"):
            raise ValueError(f"surrogates.{name} must be an integer array of shape ({n}, n_words).")
        bits = np.array(bits.astype(np.uint64, copy=False), dtype=np.uint64, order="C", copy=True)
        need = int(n_cat[feat[categorical]].max()) if categorical.any() else 0
        if bits.shape[1] * 64 < need:
            raise ValueError(f"surrogates.{name} has {bits.shape[1]} words; {need} levels need {-(-need // 64)}.")
        words.append(bits)
    return SurrogateSplits(offsets, feat, threshold, left_below, words[0], words[1], agreement, adj)


def _canonical_surrogates(s, n_cat):
    """Checked surrogate tables ``s`` (threshold float64, bits uint64: the
    caller's to change) with NaN thresholds and cleared bits where the
    surrogate is not categorical."""
    categorical = n_cat[s.feature] > 0 if s.feature.shape[0] else np.zeros(0, dtype=np.bool_)
    s.threshold[categorical] = np.nan
    s.category_bits[~categorical] = 0
    s.known_bits[~categorical] = 0
    return s


def _kept_surrogates(surrogates, index, is_leaf):
    """The surrogates of the nodes ``index`` of a tree, none at the new leaves."""
    if surrogates is None:
        return None
    counts = np.diff(surrogates.offsets)[index]
    counts[is_leaf] = 0
    offsets = np.zeros(index.shape[0] + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    # Each kept node's run of rows, in node order: its old start plus 0 .. count - 1
    # (the new offsets count the rows before it), without a Python loop over the nodes.
    shift = np.asarray(surrogates.offsets[index], dtype=np.int64) - offsets[:-1]
    take = np.repeat(shift, counts) + np.arange(offsets[-1], dtype=np.int64)
    return SurrogateSplits(offsets, *(a[take] for a in surrogates[1:]))


def _same_surrogates(a, b):
    def count(s):
        return 0 if s is None else s.feature.shape[0]

    if count(a) == 0 or count(b) == 0:
        return count(a) == count(b)
    return (
        np.array_equal(a.offsets, b.offsets)
        and np.array_equal(a.feature, b.feature)
        and np.array_equal(a.threshold, b.threshold, equal_nan=True)
        and np.array_equal(a.left_below, b.left_below)
        and _same_bits(a.category_bits, b.category_bits)
        and _same_bits(a.known_bits, b.known_bits)
        and np.array_equal(a.agreement, b.agreement)
        and np.array_equal(a.adj, b.adj)
    )


def _same_bits(a, b):
    """Equal bitsets up to trailing zero words."""
    width = max(a.shape[1], b.shape[1])

    def padded(x):
        return np.pad(x, ((0, 0), (0, width - x.shape[1])))

    return a.shape[0] == b.shape[0] and np.array_equal(padded(a), padded(b))


def _check_weight(sample_weight, n):
    if sample_weight is None:
        return np.ones(n, dtype=np.float64)
    w = np.asarray(sample_weight, dtype=np.float64)
    if w.shape != (n,):
        raise ValueError(f"sample_weight must have shape ({n},), got {w.shape}.")
    if not np.isfinite(w).all() or np.any(w < 0):
        raise ValueError("sample_weight must be finite and non-negative.")
    return np.ascontiguousarray(w)
