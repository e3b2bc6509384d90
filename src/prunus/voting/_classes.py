"""scikit-learn estimators: PAC-Bayes tree, penalized pruning, HS-vote.

All three share the protocol of section 5 of Nguyen & Kpotufe: a partition
tree T0 (dyadic, KD or CART) is grown on the training rows, per-node class
counts are taken once, and every lambda left as ``None`` is chosen by
``cv``-fold cross-validation (2-fold by default) on a 10-value log grid
``2^-8 .. 2^6``, then on a 10-value linear grid between half and twice the
best log-grid value. T0 and the counts are built once per fold: a grid point
costs one O(|T0|) dynamic program plus one pass over the held-out rows' paths,
never a refit.

Two lambdas (the practical PAC-Bayes tree's ``lambda1`` and ``lambda2``) are
searched on the product of the two grids (100 points per stage). They
interact (both pull the posterior towards small subtrees, one through the
training errors, the other through the cells' masses), so a coordinate-wise
search could stop at a point that is best along each axis but not jointly;
the full product costs 100 DPs per fold, less than one refit of T0.
Ties in mean CV error go to the first point evaluated (in grid order: the
smallest lambdas of the log grid).

When the best point of the log grid lies on an edge of an axis (a lambda at
2^-8 or 2^6), the optimum may lie beyond the paper's grid: that axis is
extended by one log step (a factor 2^(14/9)) in that direction, the new
product points are evaluated (stage ``"extend"`` in ``cv_results_``), and so
on until the best point is interior, for at most 8 steps per direction
(2^-20.4 .. 2^18.4). The linear grid is then centred on the best point
found.
"""

from __future__ import annotations

import itertools
import numbers
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np
from joblib import Parallel, delayed
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator
from sklearn.model_selection import KFold, StratifiedKFold, check_cv
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from ..pruning._sampled import check_grow_size, take_grow_sample
from ..pruning.penalized import PENALTIES, effective_labels, penalty_per_node, prune_kernel, pruned_errors
from ..tree import Tree, grow_cart, grow_dyadic, grow_kd
from ..tree._encoding import close_table, open_table, predict_table
from ..tree.sample import CountPlan, InMemorySample, LabelledSample, SampledSplit, split_block_counts
from ..utils._class_weight import CLASS_WEIGHT, class_weight_factors
from ..utils._classifier import Classifier
from ..utils._param_validation import Integral, Interval, Real, StrOptions
from ..utils._validation import check_cv_pairs, open_classifier_fit, refuse_dask
from ._hsvote import hs_errors, hs_eta, hs_log_phi, path_mean_kernel
from ._pacbayes import (
    EMPTY_CELLS,
    PRIORS,
    NodeStats,
    _inherit_label,
    log_weights_kernel,
    path_vote_errors,
    path_votes_kernel,
    practical_log_phi,
    theory_log_phi,
)

PARTITIONS = ("dyadic", "kd", "cart")

if TYPE_CHECKING:
    from sklearn.model_selection import BaseCrossValidator
    from typing_extensions import Self


def _nearest_with_data(has_data, parent):
    """Per node: itself if it has data, else its nearest ancestor with data."""
    return _inherit_label(np.arange(has_data.shape[0], dtype=np.int64), has_data, parent)


LOG_GRID = np.logspace(-8, 6, 10, base=2.0)
#: ratio of consecutive log-grid values (2^(14/9))
LOG_STEP = float(LOG_GRID[1] / LOG_GRID[0])
#: at most this many log steps are added beyond each edge of the log grid
MAX_EXTEND = 8


def linear_grid(best, n=10):
    """10 linearly spaced values between half and twice ``best`` (section 5)."""
    return np.linspace(0.5 * best, 2.0 * best, n)


class _Fold:
    """T0, its per-node statistics and the held-out rows' leaves for one fold."""

    def __init__(self, tree, stats, leaves, y, sw):
        self.tree = tree
        self.stats = stats
        self.leaves = leaves
        self.y = y
        self.sw = sw
        self.total = max(float(sw.sum()), np.finfo(float).tiny) if sw is not None else 0.0


def _fixed(value):
    """A lambda given by the user (already checked by the constraints) as a float, or None."""
    return None if value is None else float(value)


class _SubtreeClassifier(Classifier, BaseEstimator):
    """Shared fit / CV / validation; subclasses define the per-point model."""

    _lambda_names: tuple[str, ...] = ()
    _parameter_constraints = {
        "partition": [StrOptions(set(PARTITIONS)), Tree],
        "max_depth": [Interval(Integral, 0, None, closed="left"), None],
        "min_samples_leaf": [Interval(Integral, 1, None, closed="left")],
        "empty_cells": [StrOptions(set(EMPTY_CELLS))],
        "cv": ["cv_object"],
        "n_jobs": [Integral, None],
        "random_state": ["random_state"],
        "categorical_features": [StrOptions({"from_dtype"}), "array-like", None],
    }

    # ------------------------------------------------------------ the tree
    def _missing_values(self):
        """``ensure_all_finite`` for X: CART trees (grown here or given) route
        NaN by their stored sides; dyadic and KD cells need every coordinate."""
        cart = isinstance(self.partition, Tree) or self.partition == "cart"
        return "allow-nan" if cart else True

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = self._missing_values() == "allow-nan"
        return tags

    def _check_params(self):
        """Checks across parameters or against the data; each parameter alone is
        checked by ``_parameter_constraints`` (:func:`validate_fit`)."""

    def _build_tree(self, X, y, sw, seed):
        part = self.partition
        if isinstance(part, Tree):
            if part.n_features != X.shape[1]:
                raise ValueError(
                    f"partition is a Tree over {part.n_features} features but X has {X.shape[1]} features."
                )
            return part
        if part == "dyadic":
            return grow_dyadic(X, max_depth=self.max_depth)
        if part == "kd":
            return grow_kd(X, max_depth=self.max_depth, min_samples_leaf=self.min_samples_leaf)
        # X holds level codes in the categorical columns (see ``_open_table``).
        mask = getattr(self, "is_categorical_", None)
        categorical = mask if mask is not None and mask.any() else None
        return grow_cart(
            X,
            y,
            max_depth=self.max_depth,
            min_samples_leaf=self.min_samples_leaf,
            sample_weight=sw,
            random_state=seed,
            categorical_features=categorical,
        )

    def _open_table(self, X):
        """``X`` with its categorical columns coded as levels (``prepare_X`` of the fit).

        Only a CART partition splits a feature by subsets of its levels;
        dyadic and KD cells, and a fixed tree, read the columns as numbers.
        """
        coded = open_table(self, X)
        if self._encoding is not None and not (isinstance(self.partition, str) and self.partition == "cart"):
            names = self._encoding.feature_names
            columns = np.flatnonzero(self._encoding.categorical)
            shown = [str(names[j]) for j in columns] if names is not None else columns.tolist()
            partition = self.partition if isinstance(self.partition, str) else "a fixed Tree"
            raise ValueError(
                f"categorical_features selects the columns {shown}, but partition={partition!r} splits numeric "
                "coordinates only; use partition='cart' (splits by subsets of levels), or code the columns as "
                "numbers and pass categorical_features=None."
            )
        return coded

    def _prepare(self, X, y, sw, train, test, seed):
        tree = self._build_tree(X[train], y[train], sw[train], seed)
        counts = tree.node_counts(X[train], y[train], sw[train], n_classes=self.n_classes_)
        stats = NodeStats(tree, counts, self.empty_cells)
        leaves = tree.apply(X[test]) if test is not None else None
        y_test = y[test] if test is not None else None
        sw_test = sw[test] if test is not None else None
        return _Fold(tree, stats, leaves, y_test, sw_test)

    # -------------------------------------------------------------- fit
    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Grow T0, choose the lambdas left as None by CV, compute the final model.

        Parameters
        ----------
        X : array-like, shape (n_samples, n_features)
            Training rows; NaN is a missing value for CART partitions.
        y : array-like, shape (n_samples,)
            Class labels of the rows.
        sample_weight : array-like, shape (n_samples,), optional
            Non-negative row weights (class counts are weighted sums).

        Returns
        -------
        self : object
            The fitted estimator.

        See Also
        --------
        predict : The class of every row.
        """
        X, y_codes, sw = open_classifier_fit(
            self, X, y, sample_weight, prepare_X=self._open_table, ensure_all_finite=self._missing_values()
        )
        close_table(self, X.shape[1])
        # Only estimators with a class_weight parameter have one (None: factors of 1).
        class_weight = getattr(self, "class_weight", None)
        sw = sw * class_weight_factors(class_weight, self.classes_, y_codes)
        if getattr(self, "grow_size", None) is not None:
            given = None if sample_weight is None and class_weight is None else sw
            return self._fit_sampled(InMemorySample(X, self.classes_[y_codes], given))
        self.n_classes_ = self.classes_.shape[0]
        self._check_params()
        fixed = self._fixed_lambdas()
        free = [name for name in self._lambda_names if fixed[name] is None]
        rng = check_random_state(self.random_state)
        seed = int(rng.randint(np.iinfo(np.int32).max))
        if free:
            chosen, self.cv_results_ = self._search(X, y_codes, sw, fixed, free, rng)
        else:
            chosen, self.cv_results_ = dict(fixed), None
        full = self._prepare(X, y_codes, sw, np.arange(X.shape[0]), None, seed)
        self.tree_ = full.tree
        self.node_counts_ = full.stats.counts
        self.node_label_ = full.stats.label
        self._fit_final(full, chosen)
        return self

    def _fit_sampled(self, sample: LabelledSample):
        """The fit with ``grow_size`` set: T0 and the CV on a sample S0, the node counts from the rest.

        T0 and the lambdas chosen by cross-validation come from S0, the
        ``grow_size`` rows drawn by ``random_state`` and taken into memory;
        the node weights (Algorithms 1-2) need only the per-node class counts
        of every other row, which ``sample`` sums over its row blocks (one
        block in memory; a cluster's through
        :class:`prunus.distributed.DaskPACBayesTreeClassifier`).
        """
        if self.cv is not None and not isinstance(self.cv, numbers.Integral) and not hasattr(self.cv, "split"):
            # Index pairs point into rows the caller chose; the CV here runs on rows drawn at random.
            raise ValueError(
                "cv given as (train, test) index pairs cannot be used with grow_size: the cross-validation "
                "runs on the grow_size rows drawn at random; give a number of folds or a splitter."
            )
        n = sample.n_samples
        grow_size = check_grow_size(self.grow_size, n)
        rng = check_random_state(self.random_state)
        seed = int(rng.randint(np.iinfo(np.int32).max))  # first draw, as in the in-memory fit
        split = SampledSplit.draw(n, grow_size, 0.0, rng)
        X0, y0, w0 = take_grow_sample(self, sample, split)
        w0 = np.ones(X0.shape[0]) if w0 is None else np.asarray(w0, dtype=np.float64)
        self.n_classes_ = self.classes_.shape[0]
        self._check_params()
        fixed = self._fixed_lambdas()
        free = [name for name in self._lambda_names if fixed[name] is None]
        if free:
            chosen, self.cv_results_ = self._search(X0, y0, w0, fixed, free, rng)
        else:
            chosen, self.cv_results_ = dict(fixed), None
        tree = self._build_tree(X0, y0, w0, seed)
        counts = sample.map_reduce(split_block_counts, CountPlan(tree, split, self.classes_))[0]
        if not counts[0].sum() > 0:
            raise ValueError("the rows outside the growing sample have no weight.")
        stats = NodeStats(tree, counts, self.empty_cells)
        self.tree_ = tree
        self.node_counts_ = counts
        self.node_label_ = stats.label
        self._fit_final(_Fold(tree, stats, None, None, None), chosen)
        self.split_ = split
        return self

    def _folds(self, X, y):
        cv = self.cv
        if isinstance(cv, numbers.Integral) and not isinstance(cv, bool):
            if cv < 2:
                raise ValueError(f"cv must be >= 2, got {cv}.")
            if X.shape[0] < cv:
                raise ValueError(f"cv={cv} folds need at least {cv} samples, got {X.shape[0]}.")
            return cv, None
        try:
            splitter = check_cv(cv, y, classifier=True)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"cv must be an int >= 2 or a scikit-learn CV splitter: {exc}") from None
        return splitter, True

    def _search(self, X, y, sw, fixed, free, rng):
        cv, is_splitter = self._folds(X, y)
        if is_splitter:
            splits = check_cv_pairs(cv.split(X, y), X.shape[0])
        else:
            fold_seed = int(rng.randint(np.iinfo(np.int32).max))
            min_count = np.bincount(y).min()
            kind = StratifiedKFold if min_count >= cv else KFold
            splits = list(kind(n_splits=cv, shuffle=True, random_state=fold_seed).split(X, y))
        seeds = rng.randint(np.iinfo(np.int32).max, size=len(splits))
        folds = Parallel(n_jobs=self.n_jobs, prefer="threads")(
            delayed(self._prepare)(X, y, sw, tr, te, int(s)) for (tr, te), s in zip(splits, seeds)
        )
        stages, points, errors = [], [], []
        seen: set[tuple] = set()

        def run(pts, stage):
            if stage == "extend":  # only the new points of the grown product
                pts = [p for p in pts if tuple(p[name] for name in free) not in seen]
            seen.update(tuple(p[name] for name in free) for p in pts)
            per_fold = Parallel(n_jobs=self.n_jobs, prefer="threads")(
                delayed(self._fold_errors)(fold, pts) for fold in folds
            )
            stages.extend([stage] * len(pts))
            points.extend(pts)
            errors.append(np.column_stack(per_fold))  # (n_points, n_folds)

        def product(axes):
            out = []
            for values in itertools.product(*axes):
                lam = dict(fixed)
                lam.update(zip(free, (float(v) for v in values)))
                out.append(lam)
            return out

        axes = [list(LOG_GRID) for _ in free]
        run(product(axes), "log")
        steps = {(k, side): 0 for k in range(len(free)) for side in (0, 1)}
        while True:
            # An optimum on an edge of the grid may lie beyond it: extend the
            # axis one log step in that direction (bounded), then look again.
            mean = np.vstack(errors).mean(axis=1)
            best = points[int(np.argmin(mean))]
            grew = False
            for k, name in enumerate(free):
                for side, edge in ((0, axes[k][0]), (1, axes[k][-1])):
                    if best[name] == edge and steps[(k, side)] < MAX_EXTEND:
                        steps[(k, side)] += 1
                        if side == 0:
                            axes[k].insert(0, edge / LOG_STEP)
                        else:
                            axes[k].append(edge * LOG_STEP)
                        grew = True
            if not grew:
                break
            run(product(axes), "extend")
        run(product([linear_grid(best[name]) for name in free]), "linear")
        err = np.vstack(errors)
        mean = err.mean(axis=1)
        best_index = int(np.argmin(mean))  # first minimum: ties go to grid order
        results = {"stage": np.array(stages), "params": points}
        for name in self._lambda_names:
            results[f"param_{name}"] = np.array([p[name] for p in points], dtype=float)
        for k in range(err.shape[1]):
            results[f"split{k}_test_error"] = err[:, k]
        results["mean_test_error"] = mean
        results["std_test_error"] = err.std(axis=1)
        results["rank_test_error"] = np.argsort(np.argsort(mean, kind="stable"), kind="stable") + 1
        self.best_index_ = best_index
        return dict(points[best_index]), results

    def _fold_errors(self, fold, points):
        return np.array([self._point_error(fold, lam) / fold.total for lam in points])

    # ---------------------------------------------------------- predict
    def _leaves(self, X):
        check_is_fitted(self)
        refuse_dask(self, X, method="predict")
        return self.tree_.apply(predict_table(self, X, ensure_all_finite=self._missing_values()))

    def predict(self, X: ArrayLike) -> np.ndarray:
        """Class of each row: ``argmax`` of :meth:`predict_proba` (lowest class on ties).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows (NaN is a missing value for CART partitions).

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Predicted class label of every row.

        See Also
        --------
        predict_proba : Class probabilities of every row.
        """
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]


class PACBayesTreeClassifier(_SubtreeClassifier):
    """PAC-Bayes tree: weighted majority vote over all subtrees of T0.

    Nguyen & Kpotufe (NeurIPS 2018). The posterior over the subtrees T of T0
    is ``Q*(h_T) ∝ exp(-n(lambda1 R(h_T, S) + lambda2 Delta_n(h_T, S))) P(h_T)``
    with ``P(h_T) ∝ exp(-|pi(T, S)|)`` and ``Delta_n = sum over leaves with data
    of sqrt(p(A, S) / n)`` (section 5, "practical"), or the prior
    ``exp(-3 D0 |pi(T)|)`` and ``phi(A)`` of section 4 ("theory"). Node
    weights come from Algorithms 1-2 in log space; a row is classified by
    ``h_Q(x) = argmax_l sum over A in path(x) with l(A) = l of w(A)``.

    Parameters
    ----------
    partition : {"dyadic", "kd", "cart"} or Tree
        How T0 is grown (:func:`~prunus.tree.grow_dyadic`,
        :func:`~prunus.tree.grow_kd`, :func:`~prunus.tree.grow_cart`), or a
        fixed :class:`~prunus.tree.Tree` (e.g. ``Tree.from_sklearn(est)``)
        used for every fold.
    max_depth : int or None
        Depth of T0 (``D0`` of the dyadic tree; ``None``: the builder's default).
    min_samples_leaf : int
        For "kd" and "cart" only.
    lambda1, lambda2 : float >= 0 or None
        ``None``: chosen by CV (see the module docstring). With
        ``prior="theory"``, ``lambda1`` is Equation 2's lambda and
        ``lambda2`` must stay None.
    prior : {"practical", "theory"}
    delta : float in (0, 1)
        Confidence level of the theory version.
    empty_cells : {"parent", "class0"}
        Cells without training data. ``"parent"`` (default): T0 is the
        partition intersected with the support of the data (Remark 1 of the
        paper), so such a cell is not a cell of T0 and a row falling in it
        belongs to its nearest ancestor with data (the DP runs on the reduced
        tree; see :class:`~prunus.voting.NodeStats`). ``"class0"``: every cell
        of the partition is kept and an empty one is labelled class 0, the
        labelling used in the proof of Corollary 1 (a device of the proof: a
        row in an empty cell is then voted towards class 0). Only dyadic
        trees (and fixed trees with counts from another sample) have such
        cells.
    cv : int or CV splitter
        Folds of the cross-validation choosing the lambdas left None.
    n_jobs : int or None
        Folds are processed in parallel threads.
    random_state : int, RandomState or None
        Folds and CART tie-breaking.
    grow_size : int or None
        Grow T0 (and choose the lambdas by CV) on a random sample S0 of
        ``grow_size`` rows held in memory, and take the node counts behind the
        weights from every other row (``None``: T0 and counts from all rows).
        :class:`prunus.distributed.DaskPACBayesTreeClassifier` does the same
        on a dask array or DataFrame, counting the other rows block by block
        on the workers.
    class_weight : dict, "balanced" or None, default=None
        Weight of each class, multiplying ``sample_weight`` (scikit-learn's
        meaning; "balanced" is computed once on the whole training sample):
        the weighted class counts then give the CART partition, the node
        errors and ``n(A)`` of the posterior, the labels and the CV errors.
    categorical_features : "from_dtype", None, array-like of int or str, or bool mask, default="from_dtype"
        Categorical features, for ``partition="cart"``: T0 splits them by
        subsets of their levels (see :ref:`the user guide
        <cart-categorical>`), and new rows are coded with the levels seen at
        fit (an unseen level goes where the split sends missing values).
        ``"from_dtype"``: the pandas ``category`` and string / object columns
        of a DataFrame; None: none; indices, column names or a boolean mask
        select columns. Dyadic and KD partitions and a fixed Tree read numeric
        columns only, and refuse a categorical one.

    Attributes
    ----------
    tree_ : Tree
    node_label_ : ndarray of int, shape (n_nodes,)
        ``l(A)``: majority class index per node (for an empty cell: its
        nearest ancestor's, or class 0 with ``empty_cells="class0"``).
    node_counts_ : ndarray, shape (n_nodes, n_classes)
    log_phi_, log_weight_ : ndarray, shape (n_nodes,)
        ``phi(A)`` and ``log w(A)`` (up to one additive constant).
    log_partition_ : float
        ``log beta(root)``; ``exp(log_weight_ - log_partition_)`` is the
        posterior probability that A is a leaf.
    lambda1_, lambda2_ : float
        ``lambda2_`` equals ``lambda1_`` for the theory version.
    cv_results_ : dict or None
        One entry per evaluated point: ``stage`` (``"log"``, ``"extend"``
        for points beyond the log grid, ``"linear"``), ``params``,
        ``param_<name>``, ``split<k>_test_error``, ``mean_test_error``,
        ``std_test_error``, ``rank_test_error``; ``None`` when no lambda was
        left to choose.
    classes_ : ndarray
    is_categorical_ : ndarray of bool, shape (n_features,)
        The categorical features.
    categories_ : list
        Levels of each categorical feature in code order; None for a numeric one.

    See Also
    --------
    PenalizedTreeClassifier : One pruned subtree of the same T0.
    prunus.distributed.DaskPACBayesTreeClassifier : The same fit on dask arrays and DataFrames.
    """

    _lambda_names: tuple[str, ...] = ("lambda1", "lambda2")
    #: The estimator of :mod:`prunus.distributed` that takes dask collections.
    _dask_counterpart: str | None = "DaskPACBayesTreeClassifier"
    _parameter_constraints = {
        **_SubtreeClassifier._parameter_constraints,
        "lambda1": [Interval(Real, 0.0, np.inf, closed="left"), None],
        "lambda2": [Interval(Real, 0.0, np.inf, closed="left"), None],
        "prior": [StrOptions(set(PRIORS))],
        "delta": [Interval(Real, 0.0, 1.0, closed="neither")],
        "grow_size": [Interval(Integral, 2, None, closed="left"), None],
        "class_weight": CLASS_WEIGHT,
    }

    def __init__(
        self,
        partition: str | Tree = "dyadic",
        max_depth: int | None = None,
        min_samples_leaf: int = 1,
        lambda1: float | None = None,
        lambda2: float | None = None,
        prior: str = "practical",
        delta: float = 0.05,
        empty_cells: str = "parent",
        cv: int | BaseCrossValidator | Iterable[Any] | None = 2,
        n_jobs: int | None = None,
        random_state: int | np.random.RandomState | None = None,
        grow_size: int | None = None,
        class_weight: dict[Any, float] | str | None = None,
        categorical_features: str | ArrayLike | None = "from_dtype",
    ) -> None:
        self.categorical_features = categorical_features
        self.partition = partition
        self.empty_cells = empty_cells
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.lambda1 = lambda1
        self.lambda2 = lambda2
        self.class_weight = class_weight
        self.prior = prior
        self.delta = delta
        self.cv = cv
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.grow_size = grow_size

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # The theory prior exp(-3 D0 |pi(T)|) is deliberately conservative: on
        # small samples it keeps most of the mass on very small subtrees.
        tags.classifier_tags.poor_score = self.prior == "theory"
        return tags

    def _check_params(self):
        if self.prior == "theory" and self.lambda2 is not None:
            raise ValueError("lambda2 is not used by prior='theory' (lambda1 multiplies both terms); leave it None.")
        self._lambda_names = ("lambda1", "lambda2") if self.prior == "practical" else ("lambda1",)

    def _fixed_lambdas(self):
        return {name: _fixed(getattr(self, name)) for name in self._lambda_names}

    def _log_phi(self, stats, tree, lam):
        if self.prior == "practical":
            return practical_log_phi(stats.err, stats.n_node, stats.has_data, lam["lambda1"], lam["lambda2"])
        return theory_log_phi(
            stats.err,
            stats.n_node,
            stats.has_data,
            lam["lambda1"],
            np.log(tree.n_nodes / self.delta),
            float(tree.max_depth),
        )

    def _weights(self, fold, lam):
        tree = fold.tree
        log_phi = self._log_phi(fold.stats, tree, lam)
        log_beta, _, log_w = log_weights_kernel(log_phi, fold.stats.children_left, fold.stats.children_right)
        return log_phi, log_w, float(log_beta[0])

    def _point_error(self, fold, lam):
        _, log_w, log_z = self._weights(fold, lam)
        weight = np.exp(log_w - log_z)
        return path_vote_errors(
            fold.leaves, fold.y, fold.sw, fold.tree.parent, fold.stats.label, weight, self.n_classes_
        )

    def _fit_final(self, full, lam):
        self.lambda1_ = float(lam["lambda1"])
        self.lambda2_ = float(lam["lambda2"]) if self.prior == "practical" else self.lambda1_
        self.log_phi_, self.log_weight_, self.log_partition_ = self._weights(full, lam)
        self.node_weight_ = np.exp(self.log_weight_ - self.log_partition_)

    def predict_proba(self, X: ArrayLike) -> np.ndarray:
        """Vote mass per class on each row's path divided by the path total.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows (NaN is a missing value for CART partitions).

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Class probabilities of every row, columns in the order of ``classes_``.

        See Also
        --------
        predict : The most probable class of every row.
        """
        leaves = self._leaves(X)
        votes = path_votes_kernel(leaves, self.tree_.parent, self.node_label_, self.node_weight_, self.n_classes_)
        return votes / votes.sum(axis=1, keepdims=True)


class PenalizedTreeClassifier(_SubtreeClassifier):
    """One pruned subtree of T0: default penalized pruning or SN-pruning.

    Minimizes ``C1 = R(h_T, S) + lam |pi(T, S)| / n`` (``penalty="leaves"``,
    the paper's main baseline) or ``C2`` of section 5 (``penalty="sn"``) by
    the bottom-up DP of :mod:`prunus.pruning.penalized`.

    Parameters
    ----------
    partition, max_depth, min_samples_leaf, cv, n_jobs, random_state, categorical_features
        As in :class:`PACBayesTreeClassifier`.
    penalty : {"leaves", "sn"}
    lam : float >= 0 or None
        ``None``: chosen by CV.
    empty_cells : {"parent", "class0"}
        As in :class:`PACBayesTreeClassifier`: with ``"parent"`` (default) the
        pruning runs on T0 reduced to its cells with data and a row in an
        empty cell is classified by the class frequencies of its nearest
        ancestor with data; with ``"class0"`` (Corollary 1's labelling) an
        empty leaf of the pruned tree predicts class 0.

    Attributes
    ----------
    tree_ : Tree
        T0.
    subtree_ : Tree
        The pruned tree.
    collapse_ : ndarray of bool, shape (n_nodes,)
        Nodes of T0 that are leaves of the pruned tree or lie below one.
    node_label_ : ndarray of int
    node_counts_ : ndarray, shape (n_nodes, n_classes)
    lam_ : float
    cv_results_ : dict or None
    classes_ : ndarray

    See Also
    --------
    PACBayesTreeClassifier : The vote over all subtrees of the same T0.
    """

    _lambda_names = ("lam",)
    _parameter_constraints = {
        **_SubtreeClassifier._parameter_constraints,
        "penalty": [StrOptions(set(PENALTIES))],
        "lam": [Interval(Real, 0.0, np.inf, closed="left"), None],
    }

    def __init__(
        self,
        partition: str | Tree = "dyadic",
        max_depth: int | None = None,
        min_samples_leaf: int = 1,
        penalty: str = "leaves",
        lam: float | None = None,
        empty_cells: str = "parent",
        cv: int | BaseCrossValidator | Iterable[Any] | None = 2,
        n_jobs: int | None = None,
        random_state: int | np.random.RandomState | None = None,
        categorical_features: str | ArrayLike | None = "from_dtype",
    ) -> None:
        self.categorical_features = categorical_features
        self.partition = partition
        self.empty_cells = empty_cells
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.penalty = penalty
        self.lam = lam
        self.cv = cv
        self.n_jobs = n_jobs
        self.random_state = random_state

    def _fixed_lambdas(self):
        return {"lam": _fixed(self.lam)}

    def _collapse(self, fold, lam):
        stats = fold.stats
        pen = getattr(fold, "_pen", None)
        if pen is None:
            pen = penalty_per_node(fold.tree, stats.n_node, self.penalty)
            if self.empty_cells == "parent":
                pen = np.where(stats.has_data, pen, 0.0)  # an empty dummy is no leaf of T0
            fold._pen = pen
        _, collapse = prune_kernel(stats.err + lam["lam"] * pen, stats.children_left, stats.children_right)
        return collapse

    def _point_error(self, fold, lam):
        collapse = self._collapse(fold, lam)
        eff = effective_labels(collapse, fold.tree.parent, fold.stats.label)
        return pruned_errors(fold.leaves, fold.y, fold.sw, eff)

    def _fit_final(self, full, lam):
        self.lam_ = float(lam["lam"])
        tree = full.tree
        self.collapse_ = self._collapse(full, lam)
        self.subtree_ = tree.subtree(tree.keep_mask(self.collapse_))
        eff = effective_labels(self.collapse_, tree.parent, np.arange(tree.n_nodes, dtype=np.int64))
        if self.empty_cells == "parent":  # a row in an empty cell belongs to its nearest ancestor with data
            eff = _nearest_with_data(full.stats.has_data, tree.parent)[eff]
        self._eff_node = eff

    def predict_proba(self, X: ArrayLike) -> np.ndarray:
        """Class frequencies in the pruned tree's leaf.

        With ``empty_cells="parent"`` a row in an empty cell gets the
        frequencies of its nearest ancestor with data; with ``"class0"`` an
        empty leaf gives one-hot ``node_label_`` (class 0).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows (NaN is a missing value for CART partitions).

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Class probabilities of every row, columns in the order of ``classes_``.

        See Also
        --------
        predict : The most probable class of every row.
        """
        leaves = self._leaves(X)
        nodes = self._eff_node[leaves]
        counts = self.node_counts_[nodes]
        total = counts.sum(axis=1, keepdims=True)
        proba = np.divide(counts, total, out=np.zeros_like(counts), where=total > 0)
        empty = np.flatnonzero(total[:, 0] == 0)
        proba[empty, self.node_label_[nodes[empty]]] = 1.0
        return proba


class HSVoteClassifier(_SubtreeClassifier):
    """HS-vote (Helmbold & Schapire 1997), the paper's reference [5]; binary only.

    Weighted average over all prunings of T0 of the leaves' class-1
    frequencies, with prior ``2^-bits(T)`` and weights ``beta^loss``,
    ``lam = -log beta`` (see :mod:`prunus.voting._hsvote`).

    Parameters
    ----------
    partition, max_depth, min_samples_leaf, cv, n_jobs, random_state, categorical_features
        As in :class:`PACBayesTreeClassifier`.
    lam : float >= 0 or None
        ``None``: chosen by CV.
    empty_cells : {"parent", "class0"}
        ``"parent"`` (default): the vote runs on T0 reduced to its cells with
        data and an empty cell carries its nearest ancestor's estimate (see
        :func:`~prunus.voting.hs_vote_weights`); ``"class0"``: every cell is
        kept and an empty one has estimate 0 (votes class 0), as Corollary 1
        of the PAC-Bayes paper labels empty cells.

    Attributes
    ----------
    tree_, node_counts_, node_label_, lam_, cv_results_, classes_
    node_value_ : ndarray, shape (n_nodes,)
        ``eta(A)``, the class-1 frequency (0 for an empty cell).
    log_phi_, log_weight_, log_partition_

    See Also
    --------
    PACBayesTreeClassifier : The PAC-Bayes vote over all subtrees.
    """

    _lambda_names = ("lam",)
    _parameter_constraints = {
        **_SubtreeClassifier._parameter_constraints,
        "lam": [Interval(Real, 0.0, np.inf, closed="left"), None],
    }

    def __init__(
        self,
        partition: str | Tree = "dyadic",
        max_depth: int | None = None,
        min_samples_leaf: int = 1,
        lam: float | None = None,
        empty_cells: str = "parent",
        cv: int | BaseCrossValidator | Iterable[Any] | None = 2,
        n_jobs: int | None = None,
        random_state: int | np.random.RandomState | None = None,
        categorical_features: str | ArrayLike | None = "from_dtype",
    ) -> None:
        self.categorical_features = categorical_features
        self.partition = partition
        self.empty_cells = empty_cells
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.lam = lam
        self.cv = cv
        self.n_jobs = n_jobs
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def _check_params(self):
        if self.n_classes_ != 2:
            raise ValueError(
                "Only binary classification is supported: HSVoteClassifier (HS-vote) is binary only, "
                f"it needs regression estimates in [0, 1] per node; y has {self.n_classes_} classes."
            )

    def _fixed_lambdas(self):
        return {"lam": _fixed(self.lam)}

    def _weights(self, fold, lam):
        stats = fold.stats
        counts, left = stats.counts, stats.children_left
        log_phi = hs_log_phi(counts[:, 0].copy(), counts[:, 1].copy(), left != -1, lam["lam"])
        log_beta, _, log_w = log_weights_kernel(log_phi, left, stats.children_right)
        return log_phi, log_w, float(log_beta[0])

    def _point_error(self, fold, lam):
        _, log_w, log_z = self._weights(fold, lam)
        value = getattr(fold, "_eta", None)
        if value is None:
            value = fold._eta = self._eta(fold)
        return hs_errors(fold.leaves, fold.y, fold.sw, fold.tree.parent, value, np.exp(log_w - log_z))

    def _fit_final(self, full, lam):
        self.lam_ = float(lam["lam"])
        self.log_phi_, self.log_weight_, self.log_partition_ = self._weights(full, lam)
        self.node_weight_ = np.exp(self.log_weight_ - self.log_partition_)
        self.node_value_ = self._eta(full)

    def _eta(self, fold):
        return hs_eta(fold.stats.counts, fold.tree.parent if self.empty_cells == "parent" else None)

    def predict_proba(self, X: ArrayLike) -> np.ndarray:
        """``[1 - p(x), p(x)]`` with ``p(x)`` the weighted average class-1 estimate.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows (NaN is a missing value for CART partitions).

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Class probabilities of every row, columns in the order of ``classes_``.

        See Also
        --------
        predict : The most probable class of every row.
        """
        leaves = self._leaves(X)
        p = np.clip(path_mean_kernel(leaves, self.tree_.parent, self.node_value_, self.node_weight_), 0.0, 1.0)
        return np.column_stack([1.0 - p, p])

    def predict(self, X: ArrayLike) -> np.ndarray:
        """Class 1 iff ``p(x) > 1/2`` (class 0 on a tie).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows (NaN is a missing value for CART partitions).

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Predicted class label of every row.

        See Also
        --------
        predict_proba : Class probabilities of every row.
        """
        proba = self.predict_proba(X)
        return self.classes_[(proba[:, 1] > 0.5).astype(np.int64)]
