"""Fits that grow on an in-memory sample and count the rest, anywhere.

:func:`fit_cart` is method M1 of Gey, *Risk bounds for CART classifiers
under a margin condition* (section 3.1) with L1 a sample of ``grow_size``
rows: T_max is grown on L1 in memory, and the pruning path (Table 1), the
hold-out selection (eq. 10) and the leaf labels come from the per-node counts
of L2 (and of the test rows), computed block by block. :func:`fit_subtree` is
the same for the estimators of Nguyen & Kpotufe, *PAC-Bayes Tree*: T0 and the
lambdas chosen by cross-validation come from the sample S0, and the node
weights (Algorithms 1-2) from the counts of every other row.

With in-memory input the same code runs on one block, so an in-memory fit
and a dask fit with the same ``random_state`` are the same fit.
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets

from ..pruning.path import cost_complexity_path
from ..tree import grow_cart
from ..utils._param_validation import validate_fit
from ._cv import fit_cv
from ._sample import Sample, encode
from ._split import SampledSplit

#: Selections of a sampled fit ("cv" and "cv-1se" need dask input: folds are row blocks).
CART_SELECTIONS = ("holdout", "alpha", "slope", "penalty", "cv", "cv-1se")


def _check_grow_size(grow_size, n_samples):
    if grow_size is None:
        raise ValueError(
            "grow_size is required to fit on a dask collection: the number of rows, drawn at random, "
            "on which the tree is grown in memory."
        )
    if isinstance(grow_size, bool) or not isinstance(grow_size, numbers.Integral) or grow_size < 2:
        raise ValueError(f"grow_size must be an integer >= 2, got {grow_size!r}.")
    if grow_size >= n_samples:
        raise ValueError(f"grow_size={grow_size} leaves no row to count: it must be below n_samples = {n_samples}.")
    return int(grow_size)


def _grow_sample(est, sample, split):
    """Rows of the growing sample in memory, with the classes of the whole sample set on ``est``."""
    X1, y1, w1, classes = sample.take(split.grow_indices)
    check_classification_targets(classes)
    if classes.shape[0] < 2:
        raise ValueError("y contains only one class; a classifier needs at least 2 classes.")
    est.classes_ = classes
    return X1, encode(y1, classes), w1


def fit_cart(est, X, y, sample_weight=None):
    """Fit a :class:`~prunus.pruning.CARTClassifier` by M1 with ``grow_size`` rows in L1.

    Parameters
    ----------
    est : CARTClassifier
        With ``method="M1"``, ``grow_size`` set and a selection in
        :data:`CART_SELECTIONS`.
    X : array-like, dask array or dask DataFrame, shape (n_samples, n_features)
    y : array-like, dask array or dask Series, shape (n_samples,)
    sample_weight : same kinds as ``y``, optional

    Returns
    -------
    est
        Fitted; an ordinary in-memory estimator. ``split_`` records L1 and the
        test rows (:class:`SampledSplit`); ``pruning_indices_`` is None.
    """
    validate_fit(est)
    if est.method != "M1":
        raise ValueError(
            f"grow_size and dask input need method='M1' (T_max grown on a sample, pruned with the rest); "
            f"got method={est.method!r}."
        )
    if est.selection not in CART_SELECTIONS:
        raise ValueError(
            f"with grow_size or dask input, selection must be one of {CART_SELECTIONS}, got {est.selection!r}."
        )
    sample = Sample(est, X, y, sample_weight)
    n = sample.n_samples
    grow_size = _check_grow_size(est.grow_size, n)
    by_blocks = est.selection in ("cv", "cv-1se")
    if by_blocks and not sample.is_dask:
        raise ValueError("with grow_size, selection='cv' needs a dask collection: its folds are whole row blocks.")
    if by_blocks and (isinstance(est.cv, bool) or not isinstance(est.cv, numbers.Integral) or est.cv < 2):
        raise ValueError(f"on a dask collection cv must be an integer >= 2 (folds of row blocks), got {est.cv!r}.")
    est._check_params(n)
    rng = check_random_state(est.random_state)
    grow_seed = rng.randint(2**31 - 1)  # first draw, as in the in-memory fit
    test_size = est.test_size if est.selection == "holdout" else 0.0
    split = SampledSplit.draw(n, grow_size, test_size, rng)
    X1, y1, w1 = _grow_sample(est, sample, split)

    def grow_tree(X, y, w):
        return grow_cart(
            X,
            y,
            sample_weight=w,
            random_state=grow_seed,
            criterion=est.criterion,
            max_depth=est.max_depth,
            min_samples_leaf=est.min_samples_leaf,
        )

    est.cv_results_ = None
    est.test_risk_ = None
    if by_blocks:
        path, k, _ = fit_cv(est, sample, (X1, y1, w1, grow_tree), split, rng)
    else:
        tree = grow_tree(X1, y1, w1)
        prune_counts, test_counts, n_prune, _ = sample.split_counts(tree, est.classes_, split)
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


def fit_subtree(est, X, y, sample_weight=None):
    """Fit a PAC-Bayes / penalized / HS-vote tree: T0 and CV on S0, weights from the rest.

    ``S0`` is ``grow_size`` rows drawn by ``random_state``; the lambdas left
    None are chosen by the estimator's cross-validation on S0, and the node
    counts behind the final weights are those of every other row.
    """
    from ..voting._classes import _Fold
    from ..voting._pacbayes import NodeStats

    validate_fit(est)
    sample = Sample(est, X, y, sample_weight)
    n = sample.n_samples
    grow_size = _check_grow_size(est.grow_size, n)
    rng = check_random_state(est.random_state)
    seed = int(rng.randint(np.iinfo(np.int32).max))  # first draw, as in the in-memory fit
    split = SampledSplit.draw(n, grow_size, 0.0, rng)
    X0, y0, w0 = _grow_sample(est, sample, split)
    w0 = np.ones(X0.shape[0]) if w0 is None else np.asarray(w0, dtype=np.float64)
    est.n_classes_ = est.classes_.shape[0]
    est._check_params()
    fixed = est._fixed_lambdas()
    free = [name for name in est._lambda_names if fixed[name] is None]
    if free:
        chosen, est.cv_results_ = est._search(X0, y0, w0, fixed, free, rng)
    else:
        chosen, est.cv_results_ = dict(fixed), None
    tree = est._build_tree(X0, y0, w0, seed)
    counts = sample.split_counts(tree, est.classes_, split)[0]
    if not counts[0].sum() > 0:
        raise ValueError("the rows outside the growing sample have no weight.")
    stats = NodeStats(tree, counts, est.empty_cells)
    est.tree_ = tree
    est.node_counts_ = counts
    est.node_label_ = stats.label
    est._fit_final(_Fold(tree, stats, None, None, None), chosen)
    est.split_ = split
    return est
