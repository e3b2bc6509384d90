"""Cross-validation of the M1 procedure with whole row blocks as folds.

rpart-style CV for Gey's CART (section 2.3 of *Risk bounds for CART
classifiers under a margin condition*) on a sample held as row blocks: every
block belongs to one of ``cv`` folds (a random assignment of blocks). For
fold k, T_max^(k) is grown on the rows of the growing sample L1 outside
fold k, pruned with the counts of L2 outside fold k, and evaluated on every
row of fold k at the temperatures of the full path (geometric means of
consecutive alphas). One pass over the blocks gives every count: a block
routes its rows through the full tree and the ``cv`` fold trees.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..pruning import selection as sel
from ..pruning.path import cost_complexity_path
from ._sample import check_block, encode
from ._split import SampledSplit


@dataclass(frozen=True)
class CVPlan:
    """The full tree, the fold trees, the split, the labels and each block's fold."""

    tree: object
    fold_trees: tuple
    split: SampledSplit
    classes: np.ndarray
    block_fold: np.ndarray


def cv_block_counts(plan, X, y, w, start, index):
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


def block_folds(n_blocks, n_folds, rng):
    """Fold of every block: a random permutation of blocks dealt round-robin."""
    if n_blocks < n_folds:
        raise ValueError(
            f"cross-validation by blocks needs at least cv={n_folds} row blocks, got {n_blocks}; "
            "rechunk the rows into more blocks or lower cv."
        )
    return (rng.permutation(n_blocks) % n_folds).astype(np.int64)


def fit_cv(est, sample, grow, split, rng):
    """k-hat by CV over blocks; sets ``cv_results_`` and the fitted attributes.

    ``grow`` is ``(X1, y1, w1, grow_tree)``, where ``grow_tree(X, y, w)``
    grows T_max with the estimator's settings and seed.
    """
    X1, y1, w1, grow_tree = grow
    folds = block_folds(sample.n_blocks, est.cv, rng)
    starts = sample.block_starts()
    l1_fold = folds[np.searchsorted(starts, split.grow_indices, side="right") - 1]
    tree = grow_tree(X1, y1, w1)
    fold_trees = []
    for k in range(est.cv):
        keep = l1_fold != k
        fold_trees.append(grow_tree(X1[keep], y1[keep], None if w1 is None else w1[keep]))
    plan = CVPlan(tree, tuple(fold_trees), split, est.classes_, folds)
    total = sample.map_reduce(cv_block_counts, plan)
    full_counts, n_prune = total[0], total[1]
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
    wrong, weight = np.array(wrong), np.array(weight)
    mean, std, se = sel.cv_summary(wrong, weight, sample.n_samples)
    est.cv_results_ = {
        "alpha": betas,
        "n_leaves": path.n_leaves.copy(),
        "mean_risk": mean,
        "std_risk": std,
        "se_risk": se,
    }
    est.cv_block_folds_ = folds
    k_hat = sel.select_cv(mean, se, one_se=est.selection == "cv-1se")
    return path, k_hat, n_prune
