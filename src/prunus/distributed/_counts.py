"""Per-node class counts (or moments of a real target) and leaf ids of a dask sample, block by block.

``Tree.node_counts`` is additive over rows: the counts of a sample are the sum
of the counts of its row blocks. Each block is counted on a worker by the
public :meth:`~prunus.tree.Tree.node_counts` (one numba pass), and the block
results are summed by a tree reduction (``split_every`` at a time), so no
process ever holds more than a few blocks or more than ``split_every``
count tables.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from ..tree import Tree
from ..tree.sample import NodeMoments, add_tables
from ._blocks import aligned, as_matrix, row_blocks
from ._detect import require_dask

#: Count tables added per reduction task.
SPLIT_EVERY = 8


def tree_reduce(parts: Iterable[Any], combine: Callable[..., Any], split_every: int = SPLIT_EVERY) -> Any:
    """One delayed result combining the delayed ``parts`` in a tree of ``split_every``-way tasks."""
    dask = require_dask()
    combine = dask.delayed(combine, pure=True)
    parts = list(parts)
    if not parts:
        raise ValueError("X has no row blocks.")
    while len(parts) > 1:
        parts = [combine(*parts[i : i + split_every]) for i in range(0, len(parts), split_every)]
    return parts[0]


def _block_counts(tree, X, y, w, n_classes):
    return tree.node_counts(X, y, w, n_classes=n_classes)


def node_counts(
    tree: Tree,
    X: Any,
    y: Any,
    sample_weight: Any = None,
    *,
    n_classes: int | None = None,
    split_every: int = SPLIT_EVERY,
) -> np.ndarray:
    """Weighted class counts of a dask sample routed down ``tree``.

    The same result as :meth:`Tree.node_counts` on the whole sample in
    memory: exactly so for integer weights (sums of integers below 2^53 are
    exact in float64 in any order), and up to the rounding of a different
    summation order for other weights.

    Parameters
    ----------
    tree : Tree
    X : dask array or dask DataFrame of numeric columns, shape (n_samples, n_features)
    y : dask array / Series or array-like of int, shape (n_samples,)
        Class codes in ``0 .. n_classes - 1``.
    sample_weight : dask array / Series or array-like, shape (n_samples,), optional
    n_classes : int, optional
        Defaults to ``y.max() + 1`` (found in the same pass).
    split_every : int
        Count tables summed per reduction task.

    Returns
    -------
    counts : ndarray, shape (n_nodes, n_classes)
    """
    dask = require_dask()
    if isinstance(split_every, bool) or not isinstance(split_every, (int, np.integer)) or split_every < 2:
        raise ValueError(f"split_every must be an integer >= 2, got {split_every!r}.")
    X, y, w = aligned(X, y, sample_weight, n_features=tree.n_features)
    block = dask.delayed(_block_counts, pure=True)
    tree_d = dask.delayed(tree)
    parts = [block(tree_d, xb, yb, wb, n_classes) for xb, yb, wb in row_blocks(X, y, w)]
    (counts,) = dask.compute(tree_reduce(parts, add_tables, split_every))
    return counts


def _block_moments(tree, X, y, w):
    return NodeMoments(tree.node_moments(X, y, w))


def _add_moments(*parts):
    return sum(parts[1:], parts[0])


def node_moments(
    tree: Tree, X: Any, y: Any, sample_weight: Any = None, *, split_every: int = SPLIT_EVERY
) -> np.ndarray:
    """Weight, mean and within sum of squares of a real target per node, over a dask sample.

    Every block's :meth:`Tree.node_moments` is computed on a worker and the
    blocks are merged node by node by the pairwise update of Chan, Golub &
    LeVeque (:class:`~prunus.tree.sample.NodeMoments`) in a tree reduction:
    the result of :meth:`Tree.node_moments` on the whole sample, up to the
    rounding of another merge order (the weights exactly for integer weights).

    Parameters
    ----------
    tree : Tree
        The tree the rows are routed down.
    X : dask array or dask DataFrame of numeric columns, shape (n_samples, n_features)
        The rows.
    y : dask array / Series or array-like of float, shape (n_samples,)
        Finite real target.
    sample_weight : dask array / Series or array-like, shape (n_samples,), optional
        Non-negative row weights.
    split_every : int
        Tables merged per reduction task.

    Returns
    -------
    moments : ndarray, shape (n_nodes, 3)
        Per node: total weight, weighted mean of y, weighted sum of squared deviations from it.

    See Also
    --------
    node_counts : Per-node class counts of a dask sample.
    """
    dask = require_dask()
    if isinstance(split_every, bool) or not isinstance(split_every, (int, np.integer)) or split_every < 2:
        raise ValueError(f"split_every must be an integer >= 2, got {split_every!r}.")
    if y is None:
        raise ValueError("y is required.")
    X, y, w = aligned(X, y, sample_weight, n_features=tree.n_features)
    block = dask.delayed(_block_moments, pure=True)
    tree_d = dask.delayed(tree)
    parts = [block(tree_d, xb, yb, wb) for xb, yb, wb in row_blocks(X, y, w)]
    (moments,) = dask.compute(tree_reduce(parts, _add_moments, split_every))
    return moments.table


def _block_apply(X, tree):
    return tree.apply(X)


def apply(tree: Tree, X: Any) -> Any:
    """Leaf id of every row of a dask ``X``: a lazy int64 dask array (``map_blocks``)."""
    dask = require_dask()
    X = as_matrix(X, tree.n_features)
    return X.map_blocks(
        _block_apply, dask.delayed(tree), drop_axis=1, dtype=np.int64, meta=np.empty((0,), dtype=np.int64)
    )
