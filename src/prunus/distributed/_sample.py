"""A labelled sample held either in memory or as dask blocks, seen through
the two operations a sampled fit needs: take a few rows, and count the rest."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.utils.validation import _check_sample_weight, validate_data

from ._blocks import aligned, known_rows, row_blocks, row_offsets
from ._counts import add_records, tree_reduce
from ._detect import any_dask, require_dask
from ._split import SampledSplit


def encode(y, classes):
    """Codes of the labels ``y`` in the sorted ``classes`` (ValueError for an unknown one)."""
    codes = np.searchsorted(classes, y)
    codes = np.minimum(codes, classes.shape[0] - 1)
    if codes.size and not np.all(classes[codes] == y):
        raise ValueError("y holds a label missing from the classes found in y (mixed label types?).")
    return codes.astype(np.int64)


@dataclass(frozen=True)
class CountPlan:
    """What every block needs to count itself: the tree, the split and the sorted labels."""

    tree: object
    split: SampledSplit
    classes: np.ndarray


def split_block_counts(plan, X, y, w, start, index=0):
    """Counts of the pruning rows (L2) and of the test rows of one block (rows ``start ..``).

    Returns ``(prune_counts, test_counts, n_prune, n_test)``, the last two
    numbers of rows.
    """
    X, y, w = check_block(X, y, w)
    test, prune = plan.split.block_masks(int(start), int(start) + X.shape[0])
    codes = encode(y, plan.classes)
    out = []
    for mask in (prune, test):
        wm = None if w is None else w[mask]
        out.append(plan.tree.node_counts(X[mask], codes[mask], wm, n_classes=plan.classes.shape[0]))
    out.extend(int(mask.sum()) for mask in (prune, test))
    return tuple(out)


def check_block(X, y, w):
    """A block's arrays, checked to have the same number of rows."""
    X = np.asarray(X)
    y = np.asarray(y)
    if y.shape != (X.shape[0],):
        raise ValueError(f"y has a block of {y.shape[0]} rows paired with a block of {X.shape[0]} rows of X.")
    if w is not None:
        w = np.asarray(w, dtype=np.float64)
        if w.shape != (X.shape[0],):
            raise ValueError(
                f"sample_weight has a block of {w.shape[0]} rows paired with a block of {X.shape[0]} rows of X."
            )
    return X, y, w


class Sample:
    """``X``, ``y`` and ``sample_weight`` of a fit, in memory or in dask blocks.

    Sets ``n_features_in_`` on ``estimator`` (and ``feature_names_in_`` for
    in-memory pandas input, through scikit-learn's validation).
    """

    def __init__(self, estimator, X, y, sample_weight):
        self.is_dask = any_dask(X, y, sample_weight)
        if self.is_dask:
            if y is None:
                raise ValueError("y is required.")
            X, y, w = aligned(X, y, sample_weight)
            X = known_rows(X)
            y = _follow(y, X, "y")
            w = None if w is None else _follow(w, X, "sample_weight")
            if hasattr(estimator, "feature_names_in_"):
                del estimator.feature_names_in_
            estimator.n_features_in_ = int(X.shape[1])
        else:
            X, y = validate_data(estimator, X, y, dtype=np.float64)
            w = None if sample_weight is None else _check_sample_weight(sample_weight, X, ensure_non_negative=True)
        self.X, self.y, self.w = X, y, w
        self.n_samples = int(X.shape[0])

    def take(self, rows):
        """``(X, y, w, classes)`` in memory: the given rows, and every label of ``y`` sorted."""
        if not self.is_dask:
            w = None if self.w is None else self.w[rows]
            return self.X[rows], self.y[rows], w, np.unique(self.y)
        # One task per block reads its rows once and returns both its share of
        # the sample and its labels: blocks are never held for a second consumer.
        dask = require_dask()
        rows = np.asarray(rows, dtype=np.int64)
        starts = self.block_starts()
        stops = np.append(starts[1:], self.n_samples)
        lo, hi = np.searchsorted(rows, starts), np.searchsorted(rows, stops)
        block = dask.delayed(_take_block, pure=True)
        parts = [
            block(xb, yb, wb, rows[a:b] - start)
            for (xb, yb, wb), start, a, b in zip(row_blocks(self.X, self.y, self.w), starts, lo, hi)
        ]
        (X, y, w, classes) = dask.compute(tree_reduce(parts, _join_taken))[0]
        return np.ascontiguousarray(X), y, w, classes

    def split_counts(self, tree, classes, split):
        """:func:`split_block_counts` summed over all blocks."""
        return self.map_reduce(split_block_counts, CountPlan(tree, split, classes))

    @property
    def n_blocks(self):
        return self.X.numblocks[0] if self.is_dask else 1

    def block_starts(self):
        """First global row of every block."""
        return row_offsets(self.X) if self.is_dask else np.zeros(1, dtype=np.int64)

    def map_reduce(self, fn, plan):
        """Sum over the blocks of ``fn(plan, X_b, y_b, w_b, start_b, b)`` (tuples of tables / numbers)."""
        if not self.is_dask:
            return fn(plan, self.X, self.y, self.w, 0, 0)
        dask = require_dask()
        block = dask.delayed(fn, pure=True)
        plan_d = dask.delayed(plan)  # one copy per worker, not one per task
        parts = [
            block(plan_d, xb, yb, wb, int(start), b)
            for b, ((xb, yb, wb), start) in enumerate(zip(row_blocks(self.X, self.y, self.w), self.block_starts()))
        ]
        (total,) = dask.compute(tree_reduce(parts, add_records))
        return total


def _take_block(X, y, w, local):
    X, y, w = check_block(X, y, w)
    return X[local], y[local], None if w is None else w[local], np.unique(y)


def _join_taken(*parts):
    """The blocks' rows in block order, and the union of their labels."""
    X = np.concatenate([p[0] for p in parts])
    y = np.concatenate([p[1] for p in parts])
    w = None if parts[0][2] is None else np.concatenate([p[2] for p in parts])
    return X, y, w, np.unique(np.concatenate([p[3] for p in parts]))


def _follow(v, X, name):
    """``v`` with the (now known) row chunks of ``X``."""
    if v.chunks[0] == X.chunks[0]:
        return v
    v = known_rows(v)
    if v.shape[0] != X.shape[0]:
        raise ValueError(f"{name} has {v.shape[0]} rows but X has {X.shape[0]}.")
    return v.rechunk((X.chunks[0],))
