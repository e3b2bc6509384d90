"""Grow on a sample, take per-node statistics of the rest: the interface of a sampled fit.

Method M1 of Gey, *Risk bounds for CART classifiers under a margin
condition* (section 3.1) grows T_max on one part L1 of the learning sample
and takes every pruning statistic from the other part L2; the PAC-Bayes tree
of Nguyen & Kpotufe, *PAC-Bayes Tree*, likewise needs T0 and then only
per-node statistics of the sample. When the sample is large, L1 is
``grow_size`` rows held in memory, and the statistics of every other row are
sums over row blocks. A sampled fit sees its data through two operations:

* :meth:`LabelledSample.take` -- the rows to grow on, in memory;
* :meth:`LabelledSample.map_reduce` -- per-node statistics of the rest: a
  function of one row block returning a tuple of tables (class counts, or
  weight / sum / sum of squares for regression) and numbers, summed over
  every block.

:class:`InMemorySample` implements it on numpy arrays (one block); the Dask
estimators of :mod:`prunus.distributed` implement it on dask arrays and
DataFrames, block by block on the workers. Every block function here is plain
numpy, so a cluster runs the same code as one process, and a sampled fit
with a given ``random_state`` is the same fit in memory and on a cluster.

:class:`SampledSplit` says which rows are L1, which are test rows and which
are L2, without an index per row, so every block can find its own share.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

__all__ = [
    "CountPlan",
    "InMemorySample",
    "LabelledSample",
    "NodeMoments",
    "SampledSplit",
    "add_records",
    "add_tables",
    "block_statistics",
    "check_block",
    "encode",
    "split_block_counts",
]

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


def _uniform(seed: int, rows: np.ndarray) -> np.ndarray:
    """splitmix64 of ``seed`` and each global row number, as floats in [0, 1)."""
    with np.errstate(over="ignore"):
        z = np.uint64(seed) * _GOLDEN + (np.asarray(rows, dtype=np.uint64) + np.uint64(1)) * _GOLDEN
        z = (z ^ (z >> np.uint64(30))) * _MIX1
        z = (z ^ (z >> np.uint64(27))) * _MIX2
        z = z ^ (z >> np.uint64(31))
    return (z >> np.uint64(11)).astype(np.float64) * 2.0**-53


@dataclass(frozen=True)
class SampledSplit:
    """Rows of a sample of ``n_samples`` rows split into L1, L2 and a test sample.

    L1 is ``grow_size`` distinct rows drawn by a seeded generator (a sorted
    index array, cut into one slice per block); a row outside L1 belongs to
    the test sample when a hash of its global row number and ``seed``, read
    as a uniform number in [0, 1), is below ``test_size`` (so the test rows
    do not depend on how the rows are cut into blocks), and to L2 otherwise.

    Parameters
    ----------
    n_samples : int
        Rows of the whole sample.
    grow_indices : ndarray of int, shape (grow_size,)
        Sorted rows of L1.
    test_size : float
        Probability that a row outside L1 is a test row (0: no test sample).
    seed : int
        Seed of the test rows' hash.
    """

    n_samples: int
    grow_indices: np.ndarray
    test_size: float
    seed: int

    @classmethod
    def draw(cls, n_samples: int, grow_size: int, test_size: float, rng: np.random.RandomState) -> SampledSplit:
        """Draw L1 (``grow_size`` rows) and the test hash seed from ``rng`` (a RandomState).

        Parameters
        ----------
        n_samples : int
            Rows of the whole sample.
        grow_size : int
            Rows of L1, below ``n_samples``.
        test_size : float
            Probability that a row outside L1 is a test row.
        rng : numpy.random.RandomState
            Source of the one seed drawn.

        Returns
        -------
        split : SampledSplit
            The split.
        """
        seed = int(rng.randint(2**31 - 1))
        gen = np.random.default_rng(seed)
        # Generator.choice without replacement costs O(grow_size), not O(n_samples).
        grow = np.sort(gen.choice(n_samples, size=grow_size, replace=False, shuffle=False)).astype(np.int64)
        return cls(int(n_samples), grow, float(test_size), seed)

    def block_masks(self, start: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
        """``(test, prune)`` boolean masks of rows ``start .. stop - 1``.

        Parameters
        ----------
        start, stop : int
            The global rows of one block, ``stop`` excluded.

        Returns
        -------
        test, prune : ndarray of bool, shape (stop - start,)
            Which rows of the block are test rows and which belong to L2.
        """
        rows = np.arange(start, stop, dtype=np.int64)
        grow = np.zeros(stop - start, dtype=bool)
        lo, hi = np.searchsorted(self.grow_indices, [start, stop])
        grow[self.grow_indices[lo:hi] - start] = True
        if self.test_size > 0:
            test = ~grow & (_uniform(self.seed, rows) < self.test_size)
        else:
            test = np.zeros(stop - start, dtype=bool)
        return test, ~grow & ~test

    def masks(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(grow, test, prune)`` masks over all rows (for samples that fit in memory).

        Returns
        -------
        grow, test, prune : ndarray of bool, shape (n_samples,)
            The rows of L1, of the test sample and of L2.
        """
        test, prune = self.block_masks(0, self.n_samples)
        return ~(test | prune), test, prune


class LabelledSample(Protocol):
    """What a sampled fit needs of its data ``(X, y, sample_weight)``.

    An interface (a :class:`typing.Protocol`): :class:`InMemorySample` and
    :class:`prunus.distributed.DaskSample` implement it.

    Parameters
    ----------
    *args, **kwargs
        None: a protocol is not instantiated.

    Attributes
    ----------
    n_samples : int
        Rows of the sample.
    n_blocks : int
        Row blocks (1 in memory).
    """

    n_samples: int
    n_blocks: int

    def block_starts(self) -> np.ndarray:
        """First global row of every block.

        Returns
        -------
        starts : ndarray of int64, shape (n_blocks,)
            Increasing, starting at 0.
        """
        ...

    def take(
        self, rows: np.ndarray, labels: bool = True
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None]:
        """Rows of the sample in memory, and the labels of the whole sample.

        Parameters
        ----------
        rows : ndarray of int64
            Sorted global row numbers.
        labels : bool, default=True
            Whether to collect the sorted distinct labels of the whole ``y``
            (a real target has no classes to find: False).

        Returns
        -------
        X, y, w, labels : tuple
            The rows' features, labels and weights (``w`` None when no
            weights were given), and the sorted distinct labels of the whole
            ``y`` (None with ``labels=False``).
        """
        ...

    def map_reduce(self, fn: Callable[..., tuple], plan: Any) -> tuple:
        """Element-wise sum over the blocks of ``fn(plan, X_b, y_b, w_b, start_b, b)``.

        Parameters
        ----------
        fn : callable
            ``fn(plan, X_b, y_b, w_b, start_b, b)`` returns a tuple of
            per-node tables and numbers (see :func:`add_records`); it must be
            picklable to run on other processes.
        plan : object
            What ``fn`` needs besides the block (e.g. a tree and a split).

        Returns
        -------
        record : tuple
            The element-wise sum of the blocks' tuples.
        """
        ...


class InMemorySample:
    """A :class:`LabelledSample` held in numpy arrays: one block.

    Parameters
    ----------
    X : ndarray, shape (n_samples, n_features)
        Checked float64 features.
    y : ndarray, shape (n_samples,)
        Labels (or targets).
    sample_weight : ndarray, shape (n_samples,), or None
        Checked non-negative weights.
    """

    n_blocks = 1

    def __init__(self, X: np.ndarray, y: np.ndarray, sample_weight: np.ndarray | None = None) -> None:
        self.X, self.y, self.w = X, y, sample_weight
        self.n_samples = int(X.shape[0])

    def block_starts(self) -> np.ndarray:
        """``[0]``: the one block starts at the first row.

        Returns
        -------
        starts : ndarray of int64, shape (1,)
            ``[0]``.
        """
        return np.zeros(1, dtype=np.int64)

    def take(
        self, rows: np.ndarray, labels: bool = True
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None]:
        """The given rows, and the sorted labels of the whole sample.

        Parameters
        ----------
        rows : ndarray of int64
            Sorted row numbers.
        labels : bool, default=True
            Whether to collect the sorted distinct labels of ``y``.

        Returns
        -------
        X, y, w, labels : tuple
            The rows' features, labels and weights (None when no weights
            were given), and the sorted distinct labels of ``y`` (None with
            ``labels=False``).
        """
        w = None if self.w is None else self.w[rows]
        return self.X[rows], self.y[rows], w, np.unique(self.y) if labels else None

    def map_reduce(self, fn: Callable[..., tuple], plan: Any) -> tuple:
        """``fn`` on the one block.

        Parameters
        ----------
        fn : callable
            ``fn(plan, X, y, w, 0, 0)``, returning a tuple.
        plan : object
            Passed to ``fn``.

        Returns
        -------
        record : tuple
            What ``fn`` returns.
        """
        return fn(plan, self.X, self.y, self.w, 0, 0)


def add_tables(*tables: np.ndarray) -> np.ndarray:
    """Sum of per-node tables of shape ``(n_nodes, k_i)``, padded to the widest
    (a block without the largest class code gives a narrower count table)."""
    width = max(t.shape[1] for t in tables)
    out = np.zeros((tables[0].shape[0], width), dtype=np.float64)
    for t in tables:
        out[:, : t.shape[1]] += t
    return out


@dataclass(frozen=True)
class NodeMoments:
    """Per-node (weight, mean, within sum of squares) of a real target, which add up over row blocks.

    The table of :meth:`Tree.node_moments <prunus.tree.Tree.node_moments>`
    for one block of rows. Two blocks' moments are merged node by node by the
    pairwise update of Chan, Golub & LeVeque (the one that merges children
    into their parent in the tree): the weights add, the mean moves by
    ``delta W_b / W`` and the sum of squares gains ``delta^2 W_a W_b / W``,
    with ``delta`` the difference of the two means. Raw sums of ``y`` and
    ``y^2`` would add exactly too, but lose every digit when the mean is large
    against the spread. Merging equal means changes nothing (a pure node stays
    exactly pure); the order of the merges changes only the last bits.

    Attributes
    ----------
    table : ndarray, shape (n_nodes, 3)
        Weight, weighted mean (0 without weight) and weighted sum of squared
        deviations from that mean, per node.
    """

    table: np.ndarray

    def __add__(self, other: NodeMoments) -> NodeMoments:
        a, b = self.table, other.table
        w = a[:, 0] + b[:, 0]
        share = np.divide(b[:, 0], w, out=np.zeros_like(w), where=w > 0)
        delta = b[:, 1] - a[:, 1]
        out = np.empty_like(a)
        out[:, 0] = w
        # Where one side has no weight its mean is 0 by convention: take the other side's as is.
        out[:, 1] = np.where(b[:, 0] > 0, np.where(a[:, 0] > 0, a[:, 1] + delta * share, b[:, 1]), a[:, 1])
        out[:, 2] = a[:, 2] + b[:, 2] + delta * delta * a[:, 0] * share
        return NodeMoments(out)

    def __radd__(self, other: Any) -> NodeMoments:
        # ``sum()`` starts from 0.
        if isinstance(other, int) and other == 0:
            return self
        return NotImplemented


def add_records(*records: tuple) -> tuple:
    """Element-wise sum of equal-length tuples of per-node tables / numbers.

    Count tables are padded to the widest and added; :class:`NodeMoments`
    merge by their own rule; arrays and numbers add.
    """
    return tuple(add_tables(*parts) if np.ndim(parts[0]) == 2 else sum(parts) for parts in zip(*records))


def encode(y: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """Codes of the labels ``y`` in the sorted ``classes`` (ValueError for an unknown one)."""
    codes = np.searchsorted(classes, y)
    codes = np.minimum(codes, classes.shape[0] - 1)
    if codes.size and not np.all(classes[codes] == y):
        raise ValueError("y holds a label missing from the classes found in y (mixed label types?).")
    return codes.astype(np.int64)


def check_block(X: Any, y: Any, w: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
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


@dataclass(frozen=True)
class CountPlan:
    """What every block needs to count itself: the tree, the split and the sorted labels.

    ``classes`` None: ``y`` is a real target, and a block gives its
    :class:`NodeMoments` instead of class counts.
    """

    tree: Any
    split: SampledSplit
    classes: np.ndarray | None


def block_statistics(tree: Any, X: np.ndarray, y: np.ndarray, w: np.ndarray | None, classes: np.ndarray | None) -> Any:
    """Per-node statistics of the rows of one block: class counts of ``y`` coded in
    the sorted ``classes``, or for a real target (``classes`` None) its :class:`NodeMoments`."""
    if classes is None:
        return NodeMoments(tree.node_moments(X, y, w))
    return tree.node_counts(X, encode(y, classes), w, n_classes=classes.shape[0])


def split_block_counts(
    plan: CountPlan, X: Any, y: Any, w: Any, start: int, index: int = 0
) -> tuple[Any, Any, int, int]:
    """Statistics of the pruning rows (L2) and of the test rows of one block (rows ``start ..``).

    Returns ``(prune, test, n_prune, n_test)``: class counts (or
    :class:`NodeMoments` of a real target) and the two numbers of rows.
    """
    X, y, w = check_block(X, y, w)
    test, prune = plan.split.block_masks(int(start), int(start) + X.shape[0])
    prune_stats, test_stats = (
        block_statistics(plan.tree, X[mask], y[mask], None if w is None else w[mask], plan.classes)
        for mask in (prune, test)
    )
    return prune_stats, test_stats, int(prune.sum()), int(test.sum())
