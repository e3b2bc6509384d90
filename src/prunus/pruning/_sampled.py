"""Method M1 with T_max grown on a sample of ``grow_size`` rows and pruned with the rest.

Gey, *Risk bounds for CART classifiers under a margin condition*, section
3.1: T_max is grown on L1 in memory; the pruning path (Table 1), the hold-out
selection (eq. 10) and the leaf labels come from the per-node class counts
of L2 (and of the test rows), which a :class:`~prunus.tree.sample.LabelledSample`
sums over its row blocks. With rpart-style cross-validation (section 2.3)
every row block belongs to one of ``cv`` folds: for fold k, T_max^(k) is
grown on the rows of L1 outside fold k, pruned with the counts of L2 outside
fold k, and evaluated on every row of fold k at the temperatures of the full
path (geometric means of consecutive alphas). One pass over the blocks gives
every count: a block routes its rows through the full tree and the fold trees.

The same code runs on numpy arrays (one block) and, through the Dask
estimators of :mod:`prunus.distributed`, on a cluster.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.utils import check_random_state

from ..tree import grow_cart
from ..tree.sample import CountPlan, LabelledSample, SampledSplit, check_block, encode, split_block_counts
from ..utils._validation import check_classes
from . import selection as sel
from ._base import surrogates_asked
from .path import cost_complexity_path

#: Selections of a sampled fit ("cv" and "cv-1se" need several blocks: their folds are row blocks).
SAMPLED_SELECTIONS = ("holdout", "alpha", "slope", "penalty", "cv", "cv-1se")


def check_grow_size(grow_size: int, n_samples: int) -> int:
    """``grow_size`` (an int >= 2 by its constraint) against the number of rows."""
    if grow_size >= n_samples:
        raise ValueError(f"grow_size={grow_size} leaves no row to count: it must be below n_samples = {n_samples}.")
    return int(grow_size)


def take_grow_sample(est: Any, sample: LabelledSample, split: SampledSplit) -> tuple:
    """Rows of the growing sample in memory (labels as codes), with ``est.classes_`` set from the whole sample."""
    X1, y1, w1, labels = sample.take(split.grow_indices)
    est.classes_ = check_classes(labels)
    return X1, encode(y1, labels), w1


@dataclass(frozen=True)
class CVPlan:
    """The full tree, the fold trees, the split, the labels and each block's fold."""

    tree: Any
    fold_trees: tuple
    split: SampledSplit
    classes: np.ndarray
    block_fold: np.ndarray


def cv_block_counts(plan: CVPlan, X: Any, y: Any, w: Any, start: int, index: int) -> tuple:
    """Counts of one block: L2 rows in the full tree, then per fold either
    L2 rows in the fold tree (training part) or all rows (held-out fold).

    Returns ``(full_counts, n_prune, prune_0, test_0, prune_1, test_1, ...)``.
    """
    X, y, w = check_block(X, y, w)
    _, prune = plan.split.block_masks(int(start), int(start) + X.shape[0])
    codes = encode(y, plan.classes)
    k_classes = plan.classes.shape[0]

    def counts(tree, mask):
        if mask is None:
            return tree.node_counts(X, codes, w, n_classes=k_classes)
        return tree.node_counts(X[mask], codes[mask], None if w is None else w[mask], n_classes=k_classes)

    out = [counts(plan.tree, prune), int(prune.sum())]
    fold = plan.block_fold[index]
    for k, tree in enumerate(plan.fold_trees):
        empty = np.zeros((tree.n_nodes, k_classes))
        out.extend([empty, counts(tree, None)] if k == fold else [counts(tree, prune), empty])
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
    total = sample.map_reduce(cv_block_counts, CVPlan(tree, tuple(fold_trees), split, est.classes_, folds))
    full_counts = total[0]
    if not full_counts[0].sum() > 0:
        raise ValueError("the pruning sample (every row outside the growing sample) has no weight.")
    path = cost_complexity_path(tree, full_counts)
    betas = sel.cv_temperatures(path.alphas)
    wrong, weight = [], []
    for k, fold_tree in enumerate(fold_trees):
        prune_k, test_k = total[2 + 2 * k], total[3 + 2 * k]
        if not prune_k[0].sum() > 0:
            raise ValueError(f"fold {k} leaves no pruning weight outside it; use more row blocks.")
        wrong.append(cost_complexity_path(fold_tree, prune_k).misclassified(test_k, betas))
        weight.append(float(test_k[0].sum()))
    mean, std, se = sel.cv_summary(np.array(wrong), np.array(weight), sample.n_samples)
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
    """Fit a :class:`~prunus.pruning.CARTClassifier` by M1 with ``grow_size`` rows in L1.

    Parameters
    ----------
    est : CARTClassifier
        With ``method="M1"``, ``grow_size`` set and a selection in
        :data:`SAMPLED_SELECTIONS`; its parameters already checked.
    sample : LabelledSample
        The learning sample (labels as given).

    Returns
    -------
    est : CARTClassifier
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
        raise ValueError(
            "with grow_size, selection='cv' needs a dask collection (prunus.distributed.DaskCARTClassifier): "
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
            min_samples_leaf=est.min_samples_leaf,
            categorical_features=getattr(est, "is_categorical_", None),
            max_surrogates=surrogates_asked(est),
        )

    est.cv_results_ = None
    est.test_risk_ = None
    if by_blocks:
        path, k = _fit_cv(est, sample, (X1, y1, w1, grow_tree), split, rng)
    else:
        tree = grow_tree(X1, y1, w1)
        prune_counts, test_counts, n_prune, _ = sample.map_reduce(
            split_block_counts, CountPlan(tree, split, est.classes_)
        )
        if not prune_counts[0].sum() > 0:
            raise ValueError(
                "the pruning sample (every row outside the growing sample and the test rows) has no weight."
            )
        if est.selection == "holdout" and not test_counts[0].sum() > 0:
            raise ValueError(f"the hold-out test sample is empty or has no weight (test_size={est.test_size}).")
        path = cost_complexity_path(tree, prune_counts)
        k = est._select_from_counts(path, n_prune, test_counts if est.selection == "holdout" else None)
    est._store_selection(path, k)
    est.split_ = split
    est.pruning_indices_ = None
    return est
