"""A labelled sample held as dask row blocks: the block-wise :class:`~prunus.tree.sample.LabelledSample`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..tree.sample import add_records, check_block
from ._blocks import aligned, known_rows, row_blocks, row_offsets
from ._counts import tree_reduce
from ._detect import require_dask


class DaskSample:
    """``X``, ``y`` and ``sample_weight`` of a fit as aligned dask row blocks.

    Implements :class:`~prunus.tree.sample.LabelledSample`: :meth:`take`
    reads a few rows into memory, :meth:`map_reduce` runs a block function on
    the workers and sums the results by a tree reduction. Sets
    ``n_features_in_`` on ``estimator``.
    """

    def __init__(self, estimator: Any, X: Any, y: Any, sample_weight: Any = None):
        if y is None:
            raise ValueError("y is required.")
        X, y, w = aligned(X, y, sample_weight)
        X = known_rows(X)
        self.X = X
        self.y = _follow(y, X, "y")
        self.w = None if w is None else _follow(w, X, "sample_weight")
        if hasattr(estimator, "feature_names_in_"):
            del estimator.feature_names_in_
        estimator.n_features_in_ = int(X.shape[1])
        self.n_features = int(X.shape[1])
        self.n_samples = int(X.shape[0])
        self.n_blocks = int(X.numblocks[0])

    def block_starts(self) -> np.ndarray:
        """First global row of every block."""
        return row_offsets(self.X)

    def take(
        self, rows: np.ndarray, labels: bool = True
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None]:
        """``(X, y, w, labels)`` in memory: the given rows, and every label of ``y``
        sorted (None with ``labels=False``: a real target has no classes to find).

        One task per block reads its rows once and returns both its share of
        the sample and its labels: blocks are never held for a second consumer.
        """
        dask = require_dask()
        rows = np.asarray(rows, dtype=np.int64)
        starts = self.block_starts()
        stops = np.append(starts[1:], self.n_samples)
        lo, hi = np.searchsorted(rows, starts), np.searchsorted(rows, stops)
        block = dask.delayed(_take_block, pure=True)
        parts = [
            block(xb, yb, wb, rows[a:b] - start, labels)
            for (xb, yb, wb), start, a, b in zip(row_blocks(self.X, self.y, self.w), starts, lo, hi)
        ]
        (X, y, w, classes) = dask.compute(tree_reduce(parts, _join_taken))[0]
        return np.ascontiguousarray(X), y, w, classes

    def map_reduce(self, fn: Callable[..., tuple], plan: Any) -> tuple:
        """Sum over the blocks of ``fn(plan, X_b, y_b, w_b, start_b, b)`` (tuples of tables / numbers)."""
        dask = require_dask()
        block = dask.delayed(fn, pure=True)
        plan_d = dask.delayed(plan)  # one copy per worker, not one per task
        parts = [
            block(plan_d, xb, yb, wb, int(start), b)
            for b, ((xb, yb, wb), start) in enumerate(zip(row_blocks(self.X, self.y, self.w), self.block_starts()))
        ]
        (total,) = dask.compute(tree_reduce(parts, add_records))
        return total


def _take_block(X, y, w, local, labels=True):
    X, y, w = check_block(X, y, w)
    return X[local], y[local], None if w is None else w[local], np.unique(y) if labels else None


def _join_taken(*parts):
    """The blocks' rows in block order, and the union of their labels (if taken)."""
    X = np.concatenate([p[0] for p in parts])
    y = np.concatenate([p[1] for p in parts])
    w = None if parts[0][2] is None else np.concatenate([p[2] for p in parts])
    labels = None if parts[0][3] is None else np.unique(np.concatenate([p[3] for p in parts]))
    return X, y, w, labels


def _follow(v, X, name):
    """``v`` with the (now known) row chunks of ``X``."""
    if v.chunks[0] == X.chunks[0]:
        return v
    v = known_rows(v)
    if v.shape[0] != X.shape[0]:
        raise ValueError(f"{name} has {v.shape[0]} rows but X has {X.shape[0]}.")
    return v.rechunk((X.chunks[0],))
