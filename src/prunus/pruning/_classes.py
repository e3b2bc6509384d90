"""CARTClassifier: grow T_max, prune it (Table 1), select one subtree."""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.model_selection import KFold, StratifiedKFold
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from ..tree._encoding import close_table, coded_table, n_categories_of, open_table
from ..tree._importance import classification_importances
from ..tree._kernels import fill_from_parent
from ..tree._tree import check_X_missing
from ..tree.cart import CARTGrower, GrowthParams, check_growth_params
from ..tree.sample import InMemorySample
from ..utils._class_weight import CLASS_WEIGHT, class_weight_factors
from ..utils._param_validation import CV_SPLITS, Integral, Interval, Real, RealNotInt, StrOptions
from ..utils._progress import progress_bar
from ..utils._validation import open_classifier_fit, refuse_dask
from . import selection as sel
from ._cp_table import cp_table
from ._reselect import reselect
from ._sampled import fit_cart_sampled
from .path import check_loss_matrix

_METHODS = ("M1", "M2")
_SELECTIONS = ("holdout", "cv", "cv-1se", "slope", "penalty", "alpha")


class CARTClassifier(ClassifierMixin, BaseEstimator):
    """CART with Breiman's misclassification pruning and a choice of final selection.

    Implements the procedure analysed in Gey, *Risk bounds for CART
    classifiers under a margin condition*: T_max is grown by impurity
    reduction, pruned into the nested sequence T_1 > ... > T_K by the
    cost-complexity algorithm on misclassification cost (Table 1), and one
    T_k is selected.

    Parameters
    ----------
    criterion : {"gini", "entropy", "log_loss", "misclassification"}, default="gini"
        Impurity used to grow T_max (by :func:`~prunus.tree.grow_cart`:
        missing values in X, NaN, are routed to the better side per split).
    max_depth : int or None, default=None
        Depth limit of T_max (None: no limit).
    min_samples_leaf : int or float, default=1
        Growing limits of T_max (by default its leaves are pure).
    method : {"M2", "M1"}, default="M2"
        Section 3.1. "M2": grow and prune on the learning sample L. "M1":
        split L in two halves, grow T_max on L1 and take every pruning
        statistic (risks, leaf labels) from L2.
    selection : {"holdout", "cv", "cv-1se", "slope", "penalty", "alpha"}, default="holdout"
        "holdout": eq. (10), the T_k with the least error on a test sample of
        ``test_size`` (kept out of L). "cv": rpart-style cross-validation, each
        fold's path evaluated at the geometric means of consecutive alphas of
        the full path. "cv-1se": the smallest tree within one standard error of
        the CV minimum. "slope": slope heuristic, penalty 2 c_min |T|/n with
        c_min the slope of R(T_k) against |T_k|/n over the largest trees (no
        held-out data). "penalty": the sub-additive penalty
        ``penalty_c * (|T|/n)^(kappa/(2 kappa - 1))`` (section 4 remarks;
        ``penalty_c=None`` calibrates it by the slope heuristic on that shape).
        "alpha": T_alpha for the given ``alpha``.
    test_size : float in (0, 1), default=0.1
        Fraction of the sample held out as test sample for "holdout".
    cv : int >= 2, CV splitter or iterable of (train, test) splits, default=10
        Folds for "cv" and "cv-1se" (an int gives shuffled, stratified folds
        when every class has at least ``cv`` members).
    alpha : float >= 0 or None, default=None
        Temperature for "alpha", in scikit-learn's ``ccp_alpha`` units.
    kappa : float >= 1, default=1.0
        Margin exponent of the "penalty" (and "slope") selection; kappa = 1 is
        the linear penalty valid under MA(1).
    penalty_c : float >= 0 or None, default=None
        Constant of the "penalty" selection.
    n_jobs : int or None, default=None
        Folds run in parallel with joblib (threads: the builder releases the
        GIL, and every fold reuses the order of X sorted once per fit).
    verbose : int, default=0
        With ``verbose > 0`` a progress bar counts the growths (the folds and
        the final tree) of a cross-validated fit.
    random_state : int, RandomState or None, default=None
        Seeds the hold-out split, M1's halves, the CV folds and the builder's
        tie-breaking: a fixed value gives the same fit every time.
    grow_size : int or None, default=None
        For ``method="M1"``: grow T_max on a random sample L1 of
        ``grow_size`` rows, held in memory, and take the pruning statistics
        from L2 = every other row (``None``: L1 and L2 are halves). With it
        the hold-out test rows are drawn row by row with probability
        ``test_size``, and "cv" / "cv-1se" need the row blocks of a dask
        collection as folds (:class:`prunus.distributed.DaskCARTClassifier`,
        which fits on data no single process holds).
    class_weight : dict, "balanced" or None, default=None
        Weight of each class, multiplying ``sample_weight`` (scikit-learn's
        meaning): ``{label: weight}``, or "balanced", ``n_samples / (n_classes
        * count of the class)`` on the whole training sample. The product is
        the weight of every row everywhere: growth, the pruning risks (R(T)
        becomes the weighted misclassification), leaf labels, the hold-out
        and CV risks and every selection rule. rpart's priors ``p`` are
        ``class_weight={k: p_k / share of class k}`` (equal priors:
        "balanced"): the same growth and risks (checked on kyphosis).
    loss_matrix : array-like of shape (n_classes, n_classes) or None, default=None
        rpart's ``parms = list(loss = ...)``: ``loss_matrix[i, j]`` is the cost
        of predicting class ``classes_[j]`` for a row of class
        ``classes_[i]`` (zero diagonal). T_max is grown with each row's
        weight multiplied by its class's row sum (rpart's altered priors);
        leaves predict the class of least expected loss; R(T), the path,
        the hold-out and CV risks (and the CV standard error, rpart's) and
        every selection rule use the expected loss. None: 0-1 loss.
    categorical_features : "from_dtype", None, array-like of int or str, or bool mask, default="from_dtype"
        Features split by subsets of their levels (``colour in {red,
        blue}``) rather than by thresholds. ``"from_dtype"``: the pandas
        ``category`` and string / object columns of a DataFrame (and the
        string columns of a numpy array of objects); None: none. Indices,
        column names or a boolean mask select columns; a selected numeric
        column must hold level codes 0, 1, ... (NaN missing). The levels seen
        at fit are kept in ``categories_``; at predict a level not seen at fit
        goes where each split sends missing values. See the user guide,
        section "Categorical predictors".

    Attributes
    ----------
    tree_ : Tree
        T_max.
    path_ : CostComplexityPath
        The pruning sequence of T_max.
    selected_index_ : int
        k-hat.
    alpha_ : float
        alpha_{k-hat}.
    pruned_tree_ : Tree
        T_{k-hat}.
    pruned_counts_ : ndarray, shape (n_nodes of ``pruned_tree_``, n_classes)
        Class weights of the pruning sample in the nodes of ``pruned_tree_``.
    classes_ : ndarray
    n_features_in_ : int
    cv_results_ : dict or None
        For CV selections: ``alpha`` (evaluation temperatures), ``n_leaves``,
        ``mean_risk``, ``std_risk`` (across folds), ``se_risk`` (rpart's SE).
    test_risk_ : ndarray or None
        For "holdout": test error of every T_k.
    pruning_indices_ : ndarray of int
        Rows of X whose counts gave the pruning risks and leaf labels (the
        learning sample for M2, its half L2 for M1); None with ``grow_size``.
    split_ : SampledSplit
        With ``grow_size`` only: the rows of L1 and the rule drawing the test rows.
    cv_block_folds_ : ndarray of int
        With ``grow_size`` and CV on a dask collection (the Dask estimator):
        the fold of every row block.
    penalty_c_ : float
        For "slope" and "penalty": the penalty constant used.
    selection_ : str
        How ``pruned_tree_`` was chosen: the ``selection`` of the fit, or the
        rule, "alpha" or "cp" given to :meth:`select`.
    feature_importances_ : ndarray, shape (n_features,)
        Mean decrease in impurity (scikit-learn's definition) of the splits of
        the selected tree ``pruned_tree_``, in the impurity ``criterion`` grew
        the tree with, weighted by the pruning sample's class weights
        ``pruned_counts_`` (for M1 the half L2 that labels the leaves),
        normalised to sum to one.
    variable_importance_ : ndarray, shape (n_features,)
        rpart's ``variable.importance`` of ``pruned_tree_`` without surrogate
        splits (prunus has none): for each feature the sum over its splits of
        ``W_t i(t) - W_L i(L) - W_R i(R)``, rpart's ``improve``, with the
        weights and impurity of ``feature_importances_`` (entropy in nats, as
        rpart's "information"); not normalised. rpart also computes it on the
        pruned tree (``prune.rpart`` recomputes it).
    cv_table_ : CPTable
        rpart's ``printcp`` table of the path, the root first: ``cp``,
        ``nsplit``, ``rel_error`` and, for "cv" / "cv-1se", ``xerror`` and
        ``xstd`` (see :class:`~prunus.pruning.CPTable`; ``print`` it).
    is_categorical_ : ndarray of bool, shape (n_features,)
        The categorical features.
    categories_ : list of (ndarray or None)
        For each categorical feature its levels, in code order (the level
        codes of the tree's splits); None for a numeric feature.

    See Also
    --------
    prunus.distributed.DaskCARTClassifier : The same fit on dask arrays and DataFrames.
    prunus.pruning.cost_complexity_path : The pruning path of any tree and sample.
    """

    #: The estimator of :mod:`prunus.distributed` that takes dask collections.
    _dask_counterpart: str | None = "DaskCARTClassifier"

    _parameter_constraints = {
        "criterion": [StrOptions({"gini", "entropy", "log_loss", "misclassification"})],
        "max_depth": [Interval(Integral, 1, None, closed="left"), None],
        "min_samples_leaf": [
            Interval(Integral, 1, None, closed="left"),
            Interval(RealNotInt, 0.0, 1.0, closed="neither"),
        ],
        "method": [StrOptions(set(_METHODS))],
        "selection": [StrOptions(set(_SELECTIONS))],
        "test_size": [Interval(RealNotInt, 0.0, 1.0, closed="neither")],
        "cv": CV_SPLITS,
        "alpha": [Interval(Real, 0.0, None, closed="left"), None],
        "kappa": [Interval(Real, 1.0, None, closed="left")],
        "penalty_c": [Interval(Real, 0.0, None, closed="left"), None],
        "n_jobs": [Integral, None],
        "verbose": ["verbose"],
        "random_state": ["random_state"],
        "grow_size": [Interval(Integral, 2, None, closed="left"), None],
        "class_weight": CLASS_WEIGHT,
        "loss_matrix": ["array-like", None],
        "categorical_features": [StrOptions({"from_dtype"}), "array-like", None],
    }

    def __init__(
        self,
        criterion="gini",
        max_depth=None,
        min_samples_leaf=1,
        method="M2",
        selection="holdout",
        test_size=0.1,
        cv=10,
        alpha=None,
        kappa=1.0,
        penalty_c=None,
        n_jobs=None,
        verbose=0,
        random_state=None,
        grow_size=None,
        class_weight=None,
        loss_matrix=None,
        categorical_features="from_dtype",
    ):
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.method = method
        self.selection = selection
        self.test_size = test_size
        self.cv = cv
        self.alpha = alpha
        self.kappa = kappa
        self.penalty_c = penalty_c
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.random_state = random_state
        self.grow_size = grow_size
        self.class_weight = class_weight
        self.loss_matrix = loss_matrix
        self.categorical_features = categorical_features

    # ------------------------------------------------------------ checks
    def _check_params(self, n_samples):
        """Checks that involve the data or several parameters at once.

        Each parameter alone is checked by ``_parameter_constraints`` (through
        ``validate_fit``) before this runs.
        """
        n_learn = n_samples
        if self.selection == "holdout":
            n_test = int(np.ceil(self.test_size * n_samples))
            n_learn = n_samples - n_test
            if n_test < 1 or n_learn < 1:
                raise ValueError(
                    f"selection='holdout' with test_size={self.test_size} leaves {n_learn} learning and "
                    f"{n_test} test samples out of n_samples = {n_samples}; both need at least one sample."
                )
        if self.method == "M1" and n_learn < 2:
            raise ValueError(
                f"method='M1' splits the learning sample in two halves and needs at least 2 learning "
                f"samples; got {n_learn} (n_samples = {n_samples})."
            )
        if self.selection in ("cv", "cv-1se") and isinstance(self.cv, numbers.Integral) and self.cv > n_samples:
            raise ValueError(f"cv={self.cv} folds need at least {self.cv} samples, got n_samples = {n_samples}.")
        if self.selection == "alpha" and self.alpha is None:
            raise ValueError("selection='alpha' needs alpha, a finite float >= 0; got None.")

    # --------------------------------------------------------------- fit
    def fit(self, X, y, sample_weight=None):
        """Grow, prune and select.

        Parameters
        ----------
        X : array-like, shape (n_samples, n_features)
            Training rows; NaN is a missing value.
        y : array-like, shape (n_samples,)
            Class labels of the rows.
        sample_weight : array-like, shape (n_samples,), optional
            Non-negative weights, used for growing, pruning risks and every
            selection criterion (multiplied by ``class_weight``).

        Returns
        -------
        self

        See Also
        --------
        predict : The majority class of the pruning sample in each row's leaf.
        cost_complexity_path : The pruning path of any tree.
        """
        X = open_table(self, X)
        X, y_enc, weight = open_classifier_fit(self, X, y, sample_weight, ensure_all_finite="allow-nan")
        # getattr: the Dask subclass has no class_weight parameter.
        class_weight = getattr(self, "class_weight", None)
        weight = weight * class_weight_factors(class_weight, self.classes_, y_enc)
        loss = getattr(self, "loss_matrix", None)
        if loss is not None:
            loss = check_loss_matrix(loss, self.classes_.shape[0])
            if self.grow_size is not None:
                raise ValueError("loss_matrix is not supported with grow_size: fit in memory without grow_size.")
        close_table(self, X.shape[1])
        if self.grow_size is not None:
            given = None if sample_weight is None and class_weight is None else weight
            return self._fit_sampled(InMemorySample(X, self.classes_[y_enc], given))
        n = X.shape[0]
        self._check_params(n)
        params = check_growth_params(
            GrowthParams(self.criterion, self.max_depth, 2, self.min_samples_leaf, 0.0, None, None)
        )
        n_classes = self.classes_.shape[0]
        rng = check_random_state(self.random_state)
        # Drawn first, so every tree of this fit (and of a refit with the same
        # random_state on other rows) is grown with the same feature draws.
        grow_seed = rng.randint(2**31 - 1)
        # Sorted once; the final tree and every fold grow from this order.
        grower = CARTGrower(X, y_enc, n_classes, n_categories=n_categories_of(self))

        self.cv_results_ = None
        self.test_risk_ = None
        learn = np.arange(n)
        if self.selection == "holdout":
            perm = rng.permutation(n)
            n_test = int(np.ceil(self.test_size * n))
            test, learn = np.sort(perm[:n_test]), np.sort(perm[n_test:])
        cv = self.selection in ("cv", "cv-1se")
        n_growths = (self._n_folds(X, y_enc) + 1) if cv else 1
        with progress_bar(self.verbose, n_growths, desc="CART growths", unit="tree") as bar:
            path, prune_rows = sel.build_path(grower, learn, weight, self.method, params, grow_seed, rng, loss)
            bar.update()
            if cv:
                k = self._select_cv(grower, weight, params, grow_seed, path, rng, bar.update, loss)
        self.pruning_indices_ = prune_rows
        n_prune = prune_rows.shape[0]

        if not cv:
            test_counts = None
            if self.selection == "holdout":
                test_counts = path.tree._node_counts_rows(grower.X, grower.y, weight, test, n_classes)
            k = self._select_from_counts(path, n_prune, test_counts)
        return self._store_selection(path, k)

    def _fit_sampled(self, sample):
        """M1 with T_max grown on ``grow_size`` rows of ``sample``, pruned with the rest
        (:func:`~prunus.pruning._sampled.fit_cart_sampled`)."""
        return fit_cart_sampled(self, sample)

    def _select_from_counts(self, path, n_prune, test_counts=None):
        """k-hat of every selection but CV: from the path, the pruning sample's
        size ``n_prune`` and, for "holdout", the test sample's node counts."""
        if self.selection == "holdout":
            k, self.test_risk_ = sel.select_holdout(path, test_counts)
        elif self.selection == "alpha":
            k = path.index(self.alpha)
        else:
            kappa = 1.0 if self.selection == "slope" else self.kappa
            c = self.penalty_c if self.selection == "penalty" else None
            if c is None:
                c = 2.0 * sel.minimal_penalty_constant(path, n_prune, kappa)
            self.penalty_c_ = c
            k = sel.select_penalty(path, n_prune, c, kappa)
        return k

    def _store_selection(self, path, k):
        self.selection_ = self.selection
        self.path_ = path
        self.tree_ = path.tree
        self.selected_index_ = int(k)
        self.alpha_ = float(path.alphas[k])
        self.pruned_tree_, index = path.subtree(k, return_index=True)
        self.pruned_counts_ = path.counts[index]
        self._leaf_label = path.label[index]
        self._leaf_proba = _node_proba(self.pruned_tree_, self.pruned_counts_)
        return self

    def _select_cv(self, grower, weight, params, grow_seed, path, rng, progress, loss=None):
        folds = self._folds(grower.X, grower.y, grower.n_classes, rng)
        betas = sel.cv_temperatures(path.alphas)
        if loss is not None:
            # A fold's root collapses below its R(root), at most the largest loss.
            betas[-1] = sel.ROOT_TEMPERATURE * max(1.0, float(loss.max()))
        squares: list = []
        wrong, held_out = sel.cv_risks(
            grower, weight, folds, self.method, params, grow_seed, betas, rng, self.n_jobs, progress, loss, squares
        )
        mean, std, se = sel.cv_summary(wrong, held_out, grower.X.shape[0], squares[0] if squares else None)
        self.cv_results_ = dict(alpha=betas, n_leaves=path.n_leaves.copy(), mean_risk=mean, std_risk=std, se_risk=se)
        return sel.select_cv(mean, se, one_se=self.selection == "cv-1se")

    def _n_folds(self, X, y):
        if isinstance(self.cv, numbers.Integral):
            return int(self.cv)
        if hasattr(self.cv, "get_n_splits"):
            return int(self.cv.get_n_splits(X, y))
        return len(self.cv) if hasattr(self.cv, "__len__") else None

    def _folds(self, X, y, n_classes, rng):
        """(train, test) index pairs from ``cv``: a fold count (stratified
        when every class has a member per fold), a splitter or the splits."""
        if isinstance(self.cv, numbers.Integral):
            min_class = np.bincount(y, minlength=n_classes).min()
            splitter_cls = StratifiedKFold if min_class >= self.cv else KFold
            splitter = splitter_cls(n_splits=self.cv, shuffle=True, random_state=rng.randint(2**31 - 1))
            return list(splitter.split(X, y))
        splits = list(self.cv.split(X, y)) if hasattr(self.cv, "split") else list(self.cv)
        n = X.shape[0]
        for pair in splits:
            if len(pair) != 2:
                raise ValueError("cv must yield (train, test) index pairs.")
            train, test = (np.asarray(idx) for idx in pair)
            if (
                train.size == 0
                or test.size == 0
                or train.min() < 0
                or test.min() < 0
                or max(train.max(), test.max()) >= n
            ):
                raise ValueError(f"cv yielded a fold with empty or out-of-range indices (n_samples = {n}).")
        if len(splits) < 2:
            raise ValueError(f"cv must give at least 2 folds, got {len(splits)}.")
        return [(np.asarray(a), np.asarray(b)) for a, b in splits]

    # ------------------------------------------------- after the fit
    def select(self, alpha=None, *, cp=None, rule=None):
        """Another subtree of the fitted path, without refitting (rpart's ``prune(fit, cp)``).

        Exactly one of the arguments chooses the subtree. Returns a **copy** of
        this estimator that predicts with it; ``self`` is left unchanged, so a
        fitted model is never silently altered. The copy keeps the parameters
        of the fit (they say how its tree was grown), its path and CV results,
        and holds a consistent ``selected_index_``, ``alpha_``,
        ``pruned_tree_``, ``pruned_counts_``, ``selection_`` and importances.
        With the path of a fit that grew on all rows (every selection but
        "holdout"), ``select(alpha=a)`` predicts exactly as a fresh fit with
        ``selection="alpha", alpha=a`` and the same ``random_state``.

        Parameters
        ----------
        alpha : float >= 0, optional
            T_alpha, in ``ccp_alpha`` units (as ``selection="alpha"``).
        cp : float >= 0, optional (keyword only)
            rpart's scaled complexity: the subtree of the last row of
            :attr:`cv_table_` whose ``cp`` is at most this (a ``cp`` read
            from the table selects its row).
        rule : {"cv", "cv-1se", "holdout"}, optional (keyword only)
            Apply that selection rule to the risks the fit computed: "cv" and
            "cv-1se" need a cross-validated fit, "holdout" a hold-out one
            (e.g. from the min-xerror tree to the 1-SE tree).

        Returns
        -------
        CARTClassifier
            A fitted copy.
        """
        check_is_fitted(self, "path_")
        return reselect(self, alpha=alpha, cp=cp, rule=rule)

    @property
    def feature_importances_(self):
        check_is_fitted(self, "pruned_tree_")
        return classification_importances(self.pruned_tree_, self.pruned_counts_, self.criterion)

    @property
    def variable_importance_(self):
        check_is_fitted(self, "pruned_tree_")
        return classification_importances(self.pruned_tree_, self.pruned_counts_, self.criterion, normalize=False)

    @property
    def cv_table_(self):
        check_is_fitted(self, "path_")
        return cp_table(self.path_, self.cv_results_)

    # ----------------------------------------------------------- predict
    def _check_X(self, X):
        check_is_fitted(self, "pruned_tree_")
        refuse_dask(self, X, method="predict")
        coded = coded_table(self, X)
        if coded is not None:
            return check_X_missing(coded)
        return validate_data(self, X, reset=False, dtype=np.float64, ensure_all_finite="allow-nan")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags

    def summary(self, decimals=3):
        """The selected tree printed as rpart's ``print(fit)``: per node the split, n, class and shares.

        Counts are those of the pruning sample (``pruned_counts_``), the
        predicted class is the estimator's own label of the node, and the
        names come from the fit (``feature_names_in_`` when X had column
        names, ``classes_``). See :func:`prunus.tree.export_summary`.

        Returns
        -------
        str
        """
        check_is_fitted(self, "pruned_tree_")
        return self.pruned_tree_.export_summary(**self._summary_args(), decimals=decimals)

    def plot(self, ax=None, decimals=2):
        """Draw the selected tree; every node shows its split, class, share and n (matplotlib).

        See :func:`prunus.tree.plot_tree` and :func:`prunus.tree.node_summaries`.
        Returns the matplotlib Axes.
        """
        from ..tree import node_summaries

        check_is_fitted(self, "pruned_tree_")
        args = self._summary_args()
        labels = node_summaries(
            self.pruned_tree_, **{k: v for k, v in args.items() if k not in ("feature_names", "categories")}
        )
        return self.pruned_tree_.plot(
            feature_names=args["feature_names"],
            node_labels=labels,
            ax=ax,
            decimals=decimals,
            categories=args["categories"],
        )

    def _summary_args(self):
        names = getattr(self, "feature_names_in_", None)
        return dict(
            node_counts=self.pruned_counts_,
            feature_names=None if names is None else list(names),
            class_names=[str(c) for c in self.classes_],
            node_labels=[str(c) for c in self.classes_[self._leaf_label]],
            categories=getattr(self, "categories_", None),
        )

    def apply(self, X):
        """Leaf of the selected tree reached by each row.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows (NaN is a missing value).

        Returns
        -------
        leaves : ndarray of int64 of shape (n_samples,)
            Node id of the leaf each row reaches.

        See Also
        --------
        decision_path : The nodes each row visits.
        """
        X = self._check_X(X)
        return self.pruned_tree_.apply(X)

    def decision_path(self, X):
        """Sparse indicator of the nodes of the selected tree each row visits.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows (NaN is a missing value).

        Returns
        -------
        indicator : scipy.sparse.csr_matrix of shape (n_samples, n_nodes)
            Non-zero where a row visits a node.

        See Also
        --------
        apply : The leaf each row reaches.
        """
        X = self._check_X(X)
        return self.pruned_tree_.decision_path(X)

    def predict_proba(self, X):
        """Class frequencies of the pruning sample in the leaf of each row.

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
        leaves = self.apply(X)
        return self._leaf_proba[leaves]

    def predict(self, X):
        """Majority class of the pruning sample in the leaf (Gey's f-hat_T).

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
        leaves = self.apply(X)
        return self.classes_[self._leaf_label[leaves]]


def _node_proba(tree, counts):
    """Per-node class frequencies; empty nodes take their parent's."""
    total = counts.sum(axis=1, keepdims=True)
    proba = np.divide(counts, total, out=np.zeros_like(counts), where=total > 0)
    return fill_from_parent(proba, total[:, 0] <= 0, tree.parent)
