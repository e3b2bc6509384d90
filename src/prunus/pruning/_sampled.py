"""Method M1 with T_max grown on a sample of ``grow_size`` rows and pruned with the rest.

Gey, *Risk bounds for CART classifiers under a margin condition*, section
3.1: T_max is grown on L1 in memory; the pruning path (Table 1), the hold-out
selection (eq. 10) and the leaf labels come from the per-node class counts
of L2 (and of the test rows), which a :class:`~prunus.tree.sample.LabelledSample`
sums over its row blocks. A regression tree is pruned the same way on squared
error (Gey & Nedelec, *Model selection for CART regression trees*), from the
per-node weight, mean and within sum of squares of L2
(:class:`~prunus.tree.sample.NodeMoments`), and its leaves predict L2's means.

With rpart-style cross-validation (section 2.3) every row block belongs to
one of ``cv`` folds: for fold k, T_max^(k) is grown on the rows of L1 outside
fold k, pruned with the statistics of L2 outside fold k, and evaluated on
every row of fold k at the temperatures of the full path (geometric means of
consecutive alphas). For classification one pass over the blocks gives every
count: a block routes its rows through the full tree and the fold trees. A
regression needs a second pass: rpart's standard error of the CV risk is
taken from every held-out row's squared error, which the moments of a node
do not give, so once the fold paths are known each block evaluates its
held-out rows row by row (as the in-memory CV does).

The same code runs on numpy arrays (one block) and, through the Dask
estimators of :mod:`prunus.distributed`, on a cluster.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.base import is_regressor
from sklearn.utils import check_random_state

from ..tree import grow_cart
from ..tree.cart import check_target
from ..tree.sample import (
    CountPlan,
    LabelledSample,
    NodeMoments,
    SampledSplit,
    block_statistics,
    check_block,
    encode,
    split_block_counts,
)
from ..utils._validation import check_classes
from . import selection as sel
from .path import cost_complexity_path, squared_error_path

#: Selections of a sampled fit ("cv" and "cv-1se" need several blocks: their folds are row blocks).
SAMPLED_SELECTIONS = ("holdout", "alpha", "slope", "penalty", "cv", "cv-1se")


def check_grow_size(grow_size: int, n_samples: int) -> int:
    """``grow_size`` (an int >= 2 by its constraint) against the number of rows."""
    if grow_size >= n_samples:
        raise ValueError(f"grow_size={grow_size} leaves no row to count: it must be below n_samples = {n_samples}.")
    return int(grow_size)


def take_grow_sample(est: Any, sample: LabelledSample, split: SampledSplit) -> tuple:
    """Rows of the growing sample in memory: labels as codes, with ``est.classes_``
    set from the whole sample; a regressor's real target checked (errors name y)."""
    if is_regressor(est):
        X1, y1, w1, _ = sample.take(split.grow_indices, labels=False)
        return X1, check_target(y1, X1.shape[0]), w1
    X1, y1, w1, labels = sample.take(split.grow_indices)
    assert labels is not None  # asked for
    est.classes_ = check_classes(labels)
    return X1, encode(y1, labels), w1


def _classes(est: Any) -> np.ndarray | None:
    """The sorted labels a block codes ``y`` in; None for a regressor (moments of a real target)."""
    return None if is_regressor(est) else est.classes_


def _path(tree: Any, stats: Any) -> Any:
    """The pruning path of ``tree`` from the per-node statistics of its pruning sample."""
    if isinstance(stats, NodeMoments):
        return squared_error_path(tree, stats.table)
    return cost_complexity_path(tree, stats)


def _table(stats: Any) -> np.ndarray:
    """The per-node table of class counts or moments."""
    return stats.table if isinstance(stats, NodeMoments) else stats


def _weight(stats: Any) -> float:
    """Total weight of the sample whose per-node statistics are ``stats`` (its root's)."""
    table = _table(stats)
    return float(table[0, 0]) if isinstance(stats, NodeMoments) else float(table[0].sum())


@dataclass(frozen=True)
class CVPlan:
    """The full tree, the fold trees, the split, the labels (None: a real target) and each block's fold."""

    tree: Any
    fold_trees: tuple
    split: SampledSplit
    classes: np.ndarray | None
    block_fold: np.ndarray


def cv_block_counts(plan: CVPlan, X: Any, y: Any, w: Any, start: int, index: int) -> tuple:
    """Statistics of one block: L2 rows in the full tree, then per fold either
    L2 rows in the fold tree (training part) or all rows (held-out fold).

    Returns ``(full, n_prune, prune_0, test_0, prune_1, test_1, ...)``: class
    counts, or :class:`~prunus.tree.sample.NodeMoments` of a real target.
    """
    X, y, w = check_block(X, y, w)
    _, prune = plan.split.block_masks(int(start), int(start) + X.shape[0])

    def stats(tree, mask):
        if mask is None:
            return block_statistics(tree, X, y, w, plan.classes)
        return block_statistics(tree, X[mask], y[mask], None if w is None else w[mask], plan.classes)

    no_rows = np.zeros(0, dtype=bool)
    out = [stats(plan.tree, prune), int(prune.sum())]
    fold = plan.block_fold[index]
    for k, tree in enumerate(plan.fold_trees):
        # A block adds nothing to the other side: the statistics of no row, of the right shape.
        nothing = stats(tree, no_rows)
        if k == fold:
            # A regression's held-out rows are evaluated row by row in a second pass.
            out.extend([nothing, nothing if plan.classes is None else stats(tree, None)])
        else:
            out.extend([stats(tree, prune), nothing])
    return tuple(out)


@dataclass(frozen=True)
class HeldOutPlan:
    """The fold paths, the temperatures and each block's fold: the second CV pass of a regression."""

    fold_paths: tuple
    betas: np.ndarray
    block_fold: np.ndarray


def cv_block_errors(plan: HeldOutPlan, X: Any, y: Any, w: Any, start: int, index: int) -> tuple:
    """Squared errors of one block's rows, held out of its fold, at every temperature.

    Returns ``(sse_0, fourth_0, weight_0, sse_1, ...)``: per fold the weighted
    sum of the rows' squared errors, of their squares, and the rows' weight
    (zeros for the folds the block is not in).
    """
    X, y, w = check_block(X, y, w)
    X = np.ascontiguousarray(X, dtype=np.float64)
    y = check_target(y, X.shape[0])
    w = np.ones(X.shape[0]) if w is None else w
    fold = plan.block_fold[index]
    zeros = np.zeros(plan.betas.shape[0])
    out: list = []
    for k, path in enumerate(plan.fold_paths):
        if k == fold:
            out.extend(path._held_out_rows(X, y, w, np.arange(X.shape[0]), plan.betas))
        else:
            out.extend([zeros, zeros, 0.0])
    return tuple(out)


def block_folds(n_blocks: int, n_folds: int, rng: np.random.RandomState) -> np.ndarray:
    """Fold of every block: a random permutation of blocks dealt round-robin."""
    if n_blocks < n_folds:
        raise ValueError(
            f"cross-validation by blocks needs at least cv={n_folds} row blocks, got {n_blocks}; "
            "rechunk the rows into more blocks or lower cv."
        )
    return (rng.permutation(n_blocks) % n_folds).astype(np.int64)


def _fit_cv(est, sample, grow, split, rng):
    """k-hat by CV over blocks; sets ``cv_results_`` and ``cv_block_folds_``."""
    X1, y1, w1, grow_tree = grow
    folds = block_folds(sample.n_blocks, est.cv, rng)
    starts = sample.block_starts()
    l1_fold = folds[np.searchsorted(starts, split.grow_indices, side="right") - 1]
    tree = grow_tree(X1, y1, w1)
    fold_trees = []
    for k in range(est.cv):
        keep = l1_fold != k
        fold_trees.append(grow_tree(X1[keep], y1[keep], None if w1 is None else w1[keep]))
    total = sample.map_reduce(cv_block_counts, CVPlan(tree, tuple(fold_trees), split, _classes(est), folds))
    if not _weight(total[0]) > 0:
        raise ValueError("the pruning sample (every row outside the growing sample) has no weight.")
    path = _path(tree, total[0])
    fold_paths = []
    for k, fold_tree in enumerate(fold_trees):
        if not _weight(total[2 + 2 * k]) > 0:
            raise ValueError(f"fold {k} leaves no pruning weight outside it; use more row blocks.")
        fold_paths.append(_path(fold_tree, total[2 + 2 * k]))
    if is_regressor(est):
        # A temperature above every alpha of every fold prunes each fold tree to its root.
        top = max(float(p.alphas[-1]) for p in [path, *fold_paths])
        betas = sel.cv_temperatures(path.alphas, max(2.0 * top, sel.ROOT_TEMPERATURE))
        errors = sample.map_reduce(cv_block_errors, HeldOutPlan(tuple(fold_paths), betas, folds))
        wrong = np.array(errors[0::3])
        squares = np.array(errors[1::3])
        weight = np.array(errors[2::3], dtype=np.float64)
    else:
        betas = sel.cv_temperatures(path.alphas)
        wrong = np.array([p.misclassified(total[3 + 2 * k], betas) for k, p in enumerate(fold_paths)])
        weight = np.array([_weight(total[3 + 2 * k]) for k in range(est.cv)])
        squares = None
    mean, std, se = sel.cv_summary(wrong, weight, sample.n_samples, squares)
    est.cv_results_ = {
        "alpha": betas,
        "n_leaves": path.n_leaves.copy(),
        "mean_risk": mean,
        "std_risk": std,
        "se_risk": se,
    }
    est.cv_block_folds_ = folds
    return path, sel.select_cv(mean, se, one_se=est.selection == "cv-1se")


def fit_cart_sampled(est: Any, sample: LabelledSample) -> Any:
    """Fit a :class:`~prunus.pruning.CARTClassifier` or :class:`~prunus.pruning.CARTRegressor`
    by M1 with ``grow_size`` rows in L1.

    Parameters
    ----------
    est : CARTClassifier or CARTRegressor
        With ``method="M1"``, ``grow_size`` set and a selection in
        :data:`SAMPLED_SELECTIONS`; its parameters already checked.
    sample : LabelledSample
        The learning sample (labels, or a real target, as given).

    Returns
    -------
    est : CARTClassifier or CARTRegressor
        Fitted; ``split_`` records L1 and the test rows
        (:class:`~prunus.tree.sample.SampledSplit`); ``pruning_indices_`` is None.
    """
    if est.method != "M1":
        raise ValueError(
            f"grow_size needs method='M1' (T_max grown on a sample, pruned with the rest); got method={est.method!r}."
        )
    n = sample.n_samples
    grow_size = check_grow_size(est.grow_size, n)
    by_blocks = est.selection in ("cv", "cv-1se")
    if by_blocks and sample.n_blocks == 1:
        # The core estimators name their Dask counterpart; a Dask estimator given numpy input, itself.
        dask_name = getattr(est, "_dask_counterpart", None) or type(est).__name__
        raise ValueError(
            f"with grow_size, selection='cv' needs a dask collection (prunus.distributed.{dask_name}): "
            "its folds are whole row blocks."
        )
    if by_blocks and not isinstance(est.cv, numbers.Integral):
        raise ValueError(f"with grow_size, cv must be an integer >= 2 (folds of row blocks), got {est.cv!r}.")
    est._check_params(n)
    rng = check_random_state(est.random_state)
    grow_seed = rng.randint(2**31 - 1)  # first draw, as in the in-memory fit
    test_size = est.test_size if est.selection == "holdout" else 0.0
    split = SampledSplit.draw(n, grow_size, test_size, rng)
    X1, y1, w1 = take_grow_sample(est, sample, split)

    def grow_tree(X, y, w):
        return grow_cart(
            X,
            y,
            sample_weight=w,
            random_state=grow_seed,
            criterion=est.criterion,
            max_depth=est.max_depth,
            min_samples_split=est.min_samples_split,
            min_samples_leaf=est.min_samples_leaf,
            categorical_features=getattr(est, "is_categorical_", None),
            max_surrogates=sel.surrogates_asked(est),
        )

    est.cv_results_ = None
    est.test_risk_ = None
    if by_blocks:
        path, k = _fit_cv(est, sample, (X1, y1, w1, grow_tree), split, rng)
    else:
        tree = grow_tree(X1, y1, w1)
        prune_stats, test_stats, n_prune, _ = sample.map_reduce(
            split_block_counts, CountPlan(tree, split, _classes(est))
        )
        if not _weight(prune_stats) > 0:
            raise ValueError(
                "the pruning sample (every row outside the growing sample and the test rows) has no weight."
            )
        if est.selection == "holdout" and not _weight(test_stats) > 0:
            raise ValueError(f"the hold-out test sample is empty or has no weight (test_size={est.test_size}).")
        path = _path(tree, prune_stats)
        k = est._select_from_counts(path, n_prune, _table(test_stats) if est.selection == "holdout" else None)
    est.missing_ = "learned" if est.missing == "learned" else "surrogate"  # "auto" keeps the surrogates here
    est._store_selection(path, k)
    est.split_ = split
    est.pruning_indices_ = None
    return est
