"""PAC-Bayes forest: a random forest whose trees vote over all their subtrees.

Every tree of the forest is a CART tree grown on a random sample of the
rows with ``max_features`` candidate features per split, as in a random
forest (Breiman 2001). By default the sample is a subsample of 80% of the
rows drawn without replacement rather than a bootstrap sample: each tree
then sees more distinct rows (80% against 63%) and still leaves a fifth of
them out of bag for choosing the lambdas. Instead of predicting with its leaves, each tree predicts by
the PAC-Bayes vote over all of its subtrees (Nguyen & Kpotufe, NeurIPS 2018,
section 5, practical version): the posterior
``Q*(h_T) ∝ exp(-lambda1 * err(T) - lambda2 * sum over leaves of sqrt(n(A))) exp(-|pi(T)|)``
over the subtrees T of the tree, with counts from the tree's in-bag rows,
whose node weights come from the two-pass dynamic program (Algorithms 1-2)
in O(|T|). The forest averages the trees' class probabilities (vote shares).

The lambdas are chosen once for the whole forest by out-of-bag error on a
small grid, with the one-standard-error rule towards the least smoothing
(the plain forest of full trees): every tree's structure, in-bag counts and out-of-bag rows' leaves
are computed once, and a grid point costs one DP per tree plus one pass over
the out-of-bag rows' paths; nothing is refitted and no CV is run.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from ..tree._encoding import close_table, n_categories_of, open_table, predict_table
from ..tree._importance import classification_importances, normalized, split_probability
from ..tree.cart import SPLITTERS, CARTGrower, GrowthParams
from ..tree.dyadic import _preorder
from ..utils._class_weight import CLASS_WEIGHT, class_weight_factors
from ..utils._classifier import Classifier
from ..utils._param_validation import Integral, Interval, Real, RealNotInt, StrOptions
from ..utils._progress import progress_bar
from ..utils._validation import open_classifier_fit, refuse_dask
from ._forest_kernels import _add_votes, _leaf_shares, add_path_votes
from ._pacbayes import (
    EMPTY_CELLS,
    NodeStats,
    log_weights_kernel,
    practical_log_phi,
)

#: out-of-bag grid of lambda1 (weight of the training errors)
FOREST_LAMBDA1 = 2.0 ** np.arange(-2.0, 11.0, 2.0)
#: out-of-bag grid of lambda2 (weight of sum sqrt(n(A)) over the leaves)
FOREST_LAMBDA2 = np.array([0.0, 2.0**-6])
#: share of the rows in each tree's subsample when ``max_samples=None`` and ``bootstrap=False``
SUBSAMPLE = 0.8

_MAX_INT = np.iinfo(np.int32).max
#: bytes of out-of-bag vote sums held at once (grid points are evaluated in chunks below it)
_OOB_BUFFER_BYTES = 2**27
LAMBDAS = ("lambda1", "lambda2")

if TYPE_CHECKING:
    from typing_extensions import Self


def sample_counts(seed, n_samples, bootstrap, max_samples):
    """How many times each row is drawn into the sample of the tree with this seed.

    ``bootstrap``: ``max_samples * n_samples`` draws with replacement (``n_samples`` draws when
    ``max_samples`` is None); otherwise a subsample of ``max_samples * n_samples`` rows
    (``SUBSAMPLE`` when None) without replacement, which leaves at least one row out when
    ``max_samples < 1``.
    """
    rng = np.random.RandomState(seed)
    if bootstrap:
        size = n_samples if max_samples is None else max(1, round(max_samples * n_samples))
        return np.bincount(rng.randint(0, n_samples, size), minlength=n_samples).astype(np.float64)
    share = SUBSAMPLE if max_samples is None else float(max_samples)
    size = n_samples if share == 1.0 else min(n_samples - 1, max(1, round(share * n_samples)))
    counts = np.zeros(n_samples)
    counts[rng.permutation(n_samples)[:size]] = 1.0
    return counts


def one_se(error, weight):
    """Standard error ``sqrt(e (1 - e) / n)`` of an out-of-bag error rate ``e``.

    ``n`` is the effective number of out-of-bag rows, ``(sum w)^2 / sum w^2``
    (the row count under unit weights).
    """
    n_eff = weight.sum() ** 2 / max(float(np.sum(weight**2)), 1e-300)
    return float(np.sqrt(error * (1.0 - error) / max(n_eff, 1.0)))


def least_smoothing(points, errors, se):
    """Index of the one-standard-error choice: among the grid points whose
    out-of-bag error is within ``se`` of the smallest, the largest ``lambda1``
    (then the smallest ``lambda2``), i.e. the posterior closest to the plain
    forest of full trees (Breiman, Friedman, Olshen & Stone 1984, the 1-SE rule)."""
    within = np.flatnonzero(errors <= errors.min() + se + 1e-12)
    return int(max(within, key=lambda i: (points[i]["lambda1"], -points[i]["lambda2"], -i)))


class _ForestTree:
    """A grown tree with its in-bag statistics and the out-of-bag rows' leaves."""

    def __init__(self, tree, stats, oob_rows, oob_leaves):
        self.tree = tree
        self.stats = stats
        self.oob_rows = oob_rows
        self.oob_leaves = oob_leaves

    def weights(self, lambda1, lambda2):
        s = self.stats
        log_phi = practical_log_phi(s.err, s.n_node, s.has_data, lambda1, lambda2)
        log_beta, _, log_w = log_weights_kernel(log_phi, s.children_left, s.children_right)
        return np.exp(log_w - log_beta[0])

    def add_votes(self, total, rows, leaves, weight):
        order = getattr(self, "_order", None)
        if order is None:
            order = self._order = _preorder(self.tree.children_left, self.tree.children_right)
        shares = _leaf_shares(
            order, self.tree.parent, self.tree.children_left, self.stats.label, weight, self.stats.n_classes
        )
        _add_votes(total, rows, leaves, *shares)


class PACBayesForestClassifier(Classifier, BaseEstimator):
    """Random forest of CART trees, each predicting by its PAC-Bayes vote over all subtrees.

    Beyond Nguyen & Kpotufe (NeurIPS 2018): their practical PAC-Bayes tree
    (section 5) applied to every tree of a random forest; see the module
    docstring.

    Parameters
    ----------
    n_estimators : int
        Number of trees.
    max_features : {"sqrt", "log2"}, int, float or None
        Candidate features per split, as in scikit-learn's random forest.
    splitter : {"best", "random"}
        ``"best"``: CART's search of every threshold of each candidate
        feature. ``"random"``: one threshold drawn uniformly between the
        node's smallest and largest value of each candidate feature, the
        best of those kept (extremely randomized trees, Geurts, Ernst &
        Wehenkel 2006): faster, and more accurate on some data (letter,
        spam, digits), less on others (satimage).
    max_depth, min_samples_split, min_samples_leaf, max_leaf_nodes
        Limits of each tree, as in scikit-learn's ``DecisionTreeClassifier``
        (by default trees grow until their leaves are pure; the vote does the
        pruning).
    bootstrap : bool
        Draw each tree's rows with replacement (a bootstrap sample, as
        Breiman's random forest does) instead of a subsample without
        replacement.
    max_samples : float in (0, 1] or None
        Size of each tree's sample as a share of the rows. ``None``: 0.8
        for a subsample and 1 (``n_samples`` draws) for a bootstrap sample.
        A subsample of all rows (``max_samples=1.0`` without bootstrap)
        leaves no out-of-bag rows, so both lambdas must then be given.
        On letter, satimage, spam and digits, trees on 80% subsamples gave
        lower test errors than trees on bootstrap samples (which hold 63%
        of the rows, some of them twice) on all four.
    lambda1, lambda2 : float >= 0 or None
        ``None``: chosen by out-of-bag error on the product grid
        ``FOREST_LAMBDA1 x FOREST_LAMBDA2`` (``2^-2, 2^0, ..., 2^10`` and
        ``0, 2^-6``: 14 points) with the one-standard-error rule: among the
        points whose out-of-bag error is within one standard error
        ``sqrt(e (1 - e) / n)`` of the smallest ``e``, the largest
        ``lambda1``, then the smallest ``lambda2``. Trees grown to purity
        have no in-bag error at their leaves, so a large ``lambda1`` keeps
        the posterior on the full trees (``2^6`` and above: the plain
        random forest); a smaller one shrinks every tree's vote towards its
        ancestors, which averaging over randomised trees already does, so a
        departure from the plain forest must earn more than the noise of
        the out-of-bag estimate. A larger ``lambda2`` shrinks every tree
        towards its root, and ``2^-3`` and ``1`` were never chosen in
        trials on satimage, spam, digits and letter.
    empty_cells : {"parent", "class0"}
        As in :class:`PACBayesTreeClassifier` (a tree grown on its in-bag
        rows has a cell without in-bag weight only when sample weights are 0).
    n_jobs : int or None
        Threads growing the trees, evaluating the grid and predicting.
    random_state : int, RandomState or None
        Bootstrap samples and the features tried at each split.
    warm_start : bool
        Keep the trees of the previous fit and add trees up to
        ``n_estimators``; the lambdas are chosen again on all trees.
    verbose : int, default=0
        Show a progress bar over the trees grown by ``fit`` when > 0.
    class_weight : dict, "balanced" or None, default=None
        Weight of each class, multiplying ``sample_weight`` (scikit-learn's
        meaning; "balanced" is computed once on the whole training sample):
        it weighs the rows in every tree's growth and in-bag counts, and in
        the out-of-bag error that chooses the lambdas.
    categorical_features : "from_dtype", None, array-like of int or str, or bool mask, default="from_dtype"
        Features split by subsets of their levels, as in
        :class:`~prunus.CARTClassifier` (pandas ``category`` and string
        columns by default); unseen levels at predict follow missing values.
        The codes are a category column's categories in their order, or the
        sorted strings; trees grown to purity meet many tied splits, which
        go to the first in code order, so the same table as a category
        column whose categories are not sorted and as strings gives
        different trees (see :ref:`the user guide <cart-level-order>`).

    Attributes
    ----------
    is_categorical_ : ndarray of bool, shape (n_features,)
        The categorical features.
    categories_ : list of (ndarray or None)
        Levels of each categorical feature in code order; None for a numeric one.
    estimators_ : list of Tree
        The trees (CART on in-bag rows: those drawn into the tree's sample).
    node_counts_ : list of ndarray, shape (n_nodes, n_classes)
        In-bag class counts per node of each tree.
    node_weights_ : list of ndarray
        ``w(A) / Z`` per node of each tree: the posterior probability that A
        is a leaf, at the chosen lambdas.
    lambda1_, lambda2_ : float
    oob_results_ : dict or None
        ``params``, ``param_lambda1``, ``param_lambda2`` and ``oob_error`` per
        grid point, and ``oob_error_se``, the standard error of the
        smallest (``None`` when both lambdas are fixed).
    best_index_ : int
        The chosen grid point (when a lambda is searched).
    oob_score_ : float
        Accuracy of the out-of-bag predictions at the chosen lambdas (rows
        weighted by ``sample_weight``; only rows out of bag for some tree).
    oob_decision_function_ : ndarray, shape (n_samples, n_classes)
        Out-of-bag class probabilities (NaN for a row in every tree's sample).
    classes_, n_classes_, n_features_in_
    feature_importances_ : ndarray, shape (n_features,)
        Mean decrease in Gini impurity, in-bag, averaged over the trees as in
        scikit-learn's random forest (each tree's importances normalised,
        trees that are a single leaf left out, the mean normalised), with one
        difference that follows how the forest predicts: a tree votes over
        its subtrees, so each of its splits counts with the posterior
        probability that the subtree drawn splits there (``P(t is inside) -
        P(t is a leaf)`` under ``node_weights_``). At a large ``lambda1``
        (the plain forest, which the out-of-bag search chooses on most data)
        that probability is 1 and these are the grown trees' importances; a
        split the vote hardly uses adds little.

    See Also
    --------
    PACBayesTreeClassifier : One tree voting over its subtrees.
    """

    # Fitted state that a warm start reads (annotations only).
    classes_: np.ndarray
    _forest: list
    _n_fit_rows: int

    _parameter_constraints = {
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "max_features": [
            Interval(Integral, 1, None, closed="left"),
            Interval(RealNotInt, 0.0, 1.0, closed="right"),
            StrOptions({"sqrt", "log2"}),
            None,
        ],
        "max_depth": [Interval(Integral, 1, None, closed="left"), None],
        "min_samples_split": [
            Interval(Integral, 2, None, closed="left"),
            Interval(RealNotInt, 0.0, 1.0, closed="right"),
        ],
        "min_samples_leaf": [
            Interval(Integral, 1, None, closed="left"),
            Interval(RealNotInt, 0.0, 1.0, closed="neither"),
        ],
        "max_leaf_nodes": [Interval(Integral, 2, None, closed="left"), None],
        "splitter": [StrOptions(set(SPLITTERS))],
        "bootstrap": ["boolean"],
        "max_samples": [Interval(RealNotInt, 0.0, 1.0, closed="right"), None],
        "lambda1": [Interval(Real, 0.0, np.inf, closed="left"), None],
        "lambda2": [Interval(Real, 0.0, np.inf, closed="left"), None],
        "empty_cells": [StrOptions(set(EMPTY_CELLS))],
        "n_jobs": [Integral, None],
        "random_state": ["random_state"],
        "warm_start": ["boolean"],
        "verbose": ["verbose"],
        "class_weight": CLASS_WEIGHT,
        "categorical_features": [StrOptions({"from_dtype"}), "array-like", None],
    }

    def __init__(
        self,
        n_estimators: int = 100,
        max_features: int | float | str | None = "sqrt",
        splitter: str = "best",
        max_depth: int | None = None,
        min_samples_split: int | float = 2,
        min_samples_leaf: int | float = 1,
        max_leaf_nodes: int | None = None,
        bootstrap: bool = False,
        max_samples: int | float | None = None,
        lambda1: float | None = None,
        lambda2: float | None = None,
        empty_cells: str = "parent",
        n_jobs: int | None = None,
        random_state: int | np.random.RandomState | None = None,
        warm_start: bool = False,
        verbose: int = 0,
        class_weight: dict[Any, float] | str | None = None,
        categorical_features: str | ArrayLike | None = "from_dtype",
    ) -> None:
        self.n_estimators = n_estimators
        self.max_features = max_features
        self.splitter = splitter
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.max_leaf_nodes = max_leaf_nodes
        self.bootstrap = bootstrap
        self.max_samples = max_samples
        self.lambda1 = lambda1
        self.lambda2 = lambda2
        self.empty_cells = empty_cells
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.warm_start = warm_start
        self.verbose = verbose
        self.class_weight = class_weight
        self.categorical_features = categorical_features

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True  # the trees route missing values (NaN) by their stored sides
        return tags

    # ----------------------------------------------------------- checks
    def _check_params(self):
        """Checks across parameters (each one alone is checked by ``_parameter_constraints``)."""
        fixed = {name: None if getattr(self, name) is None else float(getattr(self, name)) for name in LAMBDAS}
        if not self._has_oob() and None in fixed.values():
            raise ValueError(
                "max_samples=1.0 without bootstrap grows every tree on all rows and leaves no out-of-bag rows "
                "to choose lambda1 / lambda2: set max_samples < 1, set bootstrap=True, or give both lambda1 "
                "and lambda2."
            )
        return fixed

    def _has_oob(self):
        return self.bootstrap or self.max_samples is None or self.max_samples < 1.0

    def _tree_params(self):
        return GrowthParams(
            criterion="gini",
            max_depth=self.max_depth,
            min_samples_split=self.min_samples_split,
            min_samples_leaf=self.min_samples_leaf,
            min_impurity_decrease=0.0,
            max_features=self.max_features,
            max_leaf_nodes=self.max_leaf_nodes,
            splitter=self.splitter,
        )

    # -------------------------------------------------------------- fit
    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Grow the trees, choose the lambdas by out-of-bag error, weigh every tree's subtrees.

        Parameters
        ----------
        X : array-like, shape (n_samples, n_features)
            Training rows; NaN is a missing value.
        y : array-like, shape (n_samples,)
            Class labels of the rows.
        sample_weight : array-like, shape (n_samples,), optional
            Non-negative row weights, multiplied by the number of times each
            row is drawn into a tree's sample.

        Returns
        -------
        self : object
            The fitted estimator.

        See Also
        --------
        predict : The class of every row.
        """
        warm = self.warm_start and hasattr(self, "_forest")
        # A warm start keeps the trees, which refer to the previous classes and rows.
        old_classes: np.ndarray = self.classes_ if warm else np.empty(0)
        old: list = self._forest if warm else []
        old_rows: int = self._n_fit_rows if warm else 0
        X, y_codes, sw = open_classifier_fit(
            self,
            X,
            y,
            sample_weight,
            prepare_X=lambda X: open_table(self, X),
            ensure_all_finite="allow-nan",
            reset=not warm,
        )
        close_table(self, X.shape[1])
        classes = self.classes_
        fixed = self._check_params()
        sw = sw * class_weight_factors(self.class_weight, classes, y_codes)
        if warm and (classes.shape[0] != old_classes.shape[0] or np.any(classes != old_classes)):
            self.classes_ = old_classes
            raise ValueError("warm_start: y has other classes than the previous fit.")
        if old and X.shape[0] != old_rows:
            raise ValueError(
                f"warm_start: X has {X.shape[0]} rows, the previous fit had {old_rows}; "
                "the out-of-bag rows of the kept trees refer to the same X."
            )
        if self.n_estimators < len(old):
            raise ValueError(
                f"n_estimators={self.n_estimators} must be >= the {len(old)} trees already grown when warm_start=True."
            )
        self.classes_, self.n_classes_ = classes, classes.shape[0]
        self._n_fit_rows = X.shape[0]
        rng = check_random_state(self.random_state)
        if old:
            rng.randint(_MAX_INT, size=len(old))  # the seeds already used
        seeds = rng.randint(_MAX_INT, size=self.n_estimators - len(old))
        params = self._tree_params()
        # Sorted once for every tree: a tree's sample is a weighting of the
        # rows, and the builder releases the GIL, so trees grow in threads.
        grower = CARTGrower(X, y_codes, self.n_classes_, n_categories=n_categories_of(self))
        trees = Parallel(n_jobs=self.n_jobs, prefer="threads", return_as="generator")(
            delayed(self._grow_one)(grower, sw, params, int(s)) for s in seeds
        )
        new = []
        with progress_bar(self.verbose, len(seeds), desc="PAC-Bayes forest", unit="tree") as bar:
            for tree in trees:
                new.append(tree)
                bar.update()
        self._forest = old + new
        self._seeds = list(getattr(self, "_seeds", [])[: len(old)]) + [int(s) for s in seeds]
        free = [name for name, v in fixed.items() if v is None]
        if free:
            chosen, self.oob_results_ = self._search(y_codes, sw, fixed, free)
        else:
            chosen, self.oob_results_ = fixed, None
        self.lambda1_, self.lambda2_ = float(chosen["lambda1"]), float(chosen["lambda2"])
        self.node_weights_ = [t.weights(self.lambda1_, self.lambda2_) for t in self._forest]
        self.estimators_ = [t.tree for t in self._forest]
        self.node_counts_ = [t.stats.counts for t in self._forest]
        if self._has_oob():
            proba, covered = self._oob_proba(self.lambda1_, self.lambda2_)
            self.oob_decision_function_ = np.where(covered[:, None], proba, np.nan)
            right = np.argmax(proba, axis=1) == y_codes
            self.oob_score_ = float(np.sum(sw[covered] * right[covered]) / max(sw[covered].sum(), 1e-300))
        return self

    def _grow_one(self, grower, sw, params, seed):
        X = grower.X
        drawn = sample_counts(seed, X.shape[0], self.bootstrap, self.max_samples)
        # In-bag class weights per node come with the tree.
        tree, counts = grower.grow(params, sw * drawn, seed)
        stats = NodeStats(tree, counts, self.empty_cells)
        oob = np.flatnonzero(drawn == 0)
        leaves = tree.apply(X[oob])
        by_leaf = np.argsort(leaves, kind="stable")  # each leaf's path is walked once
        return _ForestTree(tree, stats, oob[by_leaf], leaves[by_leaf])

    # ------------------------------------------------------ OOB search
    def _oob_votes(self, points):
        """Out-of-bag vote sums, shape (n_samples, len(points), n_classes), and
        how many trees each row is out of bag for: one walk of every tree's
        out-of-bag paths for all the grid points."""
        n = self._n_fit_rows
        total = np.zeros((n, len(points), self.n_classes_))
        n_trees = np.zeros(n)
        for t in self._forest:
            if t.oob_rows.shape[0]:
                weights = np.column_stack([t.weights(lam["lambda1"], lam["lambda2"]) for lam in points])
                add_path_votes(total, t.oob_rows, t.oob_leaves, t.tree.parent, t.stats.label, weights)
                n_trees[t.oob_rows] += 1
        return total, n_trees

    def _oob_errors(self, y, sw, points):
        """Out-of-bag error of each grid point, and which rows are out of bag for some tree."""
        total, n_trees = self._oob_votes(points)
        covered = n_trees > 0
        errors = []
        for g in range(len(points)):
            proba = total[covered, g] / n_trees[covered, None]
            wrong = np.argmax(proba, axis=1) != y[covered]
            errors.append(float(np.sum(sw[covered] * wrong) / max(sw[covered].sum(), 1e-300)))
        return errors, covered

    def _oob_proba(self, lambda1, lambda2):
        """Average out-of-bag vote shares per row, and which rows are out of bag for some tree."""
        total, n_trees = self._oob_votes([{"lambda1": lambda1, "lambda2": lambda2}])
        covered = n_trees > 0
        proba = total[:, 0]
        proba[covered] /= n_trees[covered, None]
        return proba, covered

    def _search(self, y, sw, fixed, free):
        grids = {"lambda1": FOREST_LAMBDA1, "lambda2": FOREST_LAMBDA2}
        points = []
        for values in itertools.product(*(grids[name] for name in free)):
            lam = dict(fixed)
            lam.update(zip(free, (float(v) for v in values)))
            points.append(lam)
        # Chunks of grid points: one per thread, each within the buffer budget.
        per_point = 8 * self._n_fit_rows * self.n_classes_
        size = max(1, min(-(-len(points) // effective_n_jobs(self.n_jobs)), _OOB_BUFFER_BYTES // per_point))
        chunks = [points[k : k + size] for k in range(0, len(points), size)]
        parts = Parallel(n_jobs=self.n_jobs, prefer="threads")(
            delayed(self._oob_errors)(y, sw, chunk) for chunk in chunks
        )
        errors = np.concatenate([part[0] for part in parts])
        covered = parts[0][1]
        se = one_se(errors.min(), sw[covered])
        best = least_smoothing(points, errors, se)
        results = {"params": points, "oob_error": errors, "oob_error_se": se}
        for name in ("lambda1", "lambda2"):
            results[f"param_{name}"] = np.array([p[name] for p in points], dtype=float)
        self.best_index_ = best
        return dict(points[best]), results

    @property
    def feature_importances_(self) -> np.ndarray:
        """Impurity-based importance of every feature, averaged over the trees.

        Each tree's split importances (Gini decrease) are weighted by the
        posterior probability that the split is kept, then normalized.
        """
        check_is_fitted(self, "node_weights_")
        per_tree = [
            classification_importances(
                t.tree, t.stats.counts, "gini", split_weight=split_probability(t.tree, w), normalize=True
            )
            for t, w in zip(self._forest, self.node_weights_)
            if t.tree.n_nodes > 1
        ]
        if not per_tree:
            return np.zeros(self.n_features_in_)
        return normalized(np.mean(per_tree, axis=0))

    # ---------------------------------------------------------- predict
    def predict_proba(self, X: ArrayLike) -> np.ndarray:
        """Mean over the trees of each tree's PAC-Bayes vote shares.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows (NaN is a missing value).

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Class probabilities of every row, columns in the order of ``classes_``.

        See Also
        --------
        predict : The most probable class of every row.
        """
        check_is_fitted(self)
        refuse_dask(self, X, method="predict")
        X = predict_table(self, X)

        rows = np.arange(X.shape[0])
        trees = list(zip(self._forest, self.node_weights_))
        n_chunks = max(1, min(len(trees), effective_n_jobs(self.n_jobs)))

        def chunk(part):  # one buffer per thread: no shared writes
            total = np.zeros((X.shape[0], self.n_classes_))
            for t, w in part:
                t.add_votes(total, rows, t.tree.apply(X), w)
            return total

        parts = Parallel(n_jobs=n_chunks, prefer="threads")(delayed(chunk)(trees[k::n_chunks]) for k in range(n_chunks))
        return np.sum(parts, axis=0) / len(trees)

    def predict(self, X: ArrayLike) -> np.ndarray:
        """Class of each row: ``argmax`` of :meth:`predict_proba` (lowest class on ties).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows (NaN is a missing value).

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
