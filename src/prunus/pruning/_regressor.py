"""CARTRegressor: grow a least-squares T_max, prune it on squared error, select one subtree."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import RegressorMixin
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from ..tree._encoding import close_table, n_categories_of, open_table
from ..tree._importance import regression_importances
from ..tree.cart import CARTGrower
from ..tree.export import check_decimals
from ..tree.sample import InMemorySample
from ..utils._param_validation import StrOptions, validate_fit
from ..utils._validation import check_score_inputs, refuse_dask, reset_fitted
from ._base import SHARED_CONSTRAINTS, BaseCART

if TYPE_CHECKING:
    from typing_extensions import Self


def _check_regression_y(y):
    """Refuse a target of strings before scikit-learn's conversion, naming y."""
    arr = np.asarray(y)
    if arr.dtype.kind in "OUS":
        try:
            arr.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(
                "y must hold numbers for CARTRegressor; got non-numeric values (for classes, use CARTClassifier)."
            ) from None
    if arr.ndim == 2 and arr.shape[1] > 1:
        raise ValueError(f"y must be 1-D (one target), got shape {arr.shape}: CARTRegressor predicts one output.")


class CARTRegressor(RegressorMixin, BaseCART):
    """CART regression: least-squares growth, Breiman's pruning on squared
    error and a choice of final selection.

    T_max is grown by the least-squares criterion (Breiman et al.,
    *Classification and Regression Trees*, chapter 8), pruned into the nested
    sequence T_1 > ... > T_K by the cost-complexity algorithm on the
    within-leaf squared error, and one T_k is selected: by a test sample,
    cross-validation as in R's rpart (method "anova"), or the penalty
    ``c |T| / n`` whose shape Gey & Nedelec, *Model selection for CART
    regression trees* (2005), show valid, with ``c`` calibrated by the slope
    heuristic. Each leaf predicts the mean of y of the pruning sample in it.

    Parameters
    ----------
    criterion : {"squared_error"}, default="squared_error"
        Growth criterion of T_max (by :func:`~prunus.tree.grow_cart`: missing
        values in X, NaN, are routed to the better side per split).
    max_depth : int or None, default=None
        Depth limit of T_max (None: grown until its leaves are pure or single rows).
    min_samples_split : int or float, default=2
        Fewest rows a node of T_max needs to be split (rpart's ``minsplit``;
        a float is that share of the rows grown on, as in scikit-learn).
    min_samples_leaf : int or float, default=1
        Growing limits of T_max (by default its leaves hold one value of y).
    method : {"M2", "M1"}, default="M2"
        "M2": grow and prune on the learning sample L. "M1": split L in two
        halves, grow T_max on L1 and take every pruning statistic (risks,
        leaf means) from L2 (Gey & Nedelec's two methods).
    selection : {"holdout", "cv", "cv-1se", "slope", "penalty", "alpha"}, default="holdout"
        "holdout": the T_k with the least squared error on a test sample of
        ``test_size`` (kept out of L). "cv": rpart-style cross-validation,
        each fold's path evaluated at the geometric means of consecutive
        alphas of the full path. "cv-1se": the smallest tree within one
        standard error (rpart's, from the rows' held-out squared errors) of the
        CV minimum. "slope": penalty ``2 c_min |T| / n`` with c_min the slope
        of R(T_k) against |T_k|/n over the largest trees (no held-out data).
        "penalty": ``penalty_c |T| / n`` (``penalty_c=None`` calibrates it
        as "slope" does). "alpha": T_alpha for the given ``alpha``.
    test_size : float in (0, 1), default=0.1
        Fraction of the sample held out as test sample for "holdout".
    cv : int >= 2, CV splitter or iterable of (train, test) splits, default=10
        Folds for "cv" and "cv-1se" (an int gives shuffled K folds).
    alpha : float >= 0 or None, default=None
        Temperature for "alpha", in scikit-learn's ``ccp_alpha`` units
        (squared error per leaf over the total weight).
    penalty_c : float >= 0 or None, default=None
        Constant of the "penalty" selection, in units of y squared.
    n_jobs : int or None, default=None
        Folds run in parallel with joblib threads (the builder releases the
        GIL, and every fold reuses the order of X sorted once per fit).
        ``None``: one thread per core when X has at least 10,000 cells (rows
        times features), where a fold's growth outweighs starting threads,
        else sequentially (those threads are started for the fit itself
        unless a joblib backend or ``n_jobs`` is configured with
        ``joblib.parallel_config``); ``1``: always sequentially. Results are
        the same.
    verbose : int, default=0
        With ``verbose > 0`` a progress bar counts the growths.
    random_state : int, RandomState or None, default=None
        Seeds the hold-out split and the CV folds.
    categorical_features : "from_dtype", None, array-like of int or str, or bool mask, default="from_dtype"
        Features split by subsets of their levels, as in
        :class:`~prunus.CARTClassifier` (pandas ``category`` and string
        columns of a DataFrame by default); the best subset of a node is
        exact (levels ordered by their mean, Fisher 1958). Unseen levels at
        predict follow missing values.
    missing : {"auto", "surrogate", "learned"}, default="auto"
        How a split sends a row whose value of the split feature is missing
        (NaN); the rules are those of :class:`~prunus.CARTClassifier`, whose
        ``missing`` describes them and gives the measurements behind the
        default. "surrogate": rpart's surrogate splits (Breiman et al.,
        *Classification and Regression Trees*, section 5.3), found only when
        the training data has missing values. "learned": each split learns
        the side of the lower squared error for the missing values of its
        feature. "auto": when a training row of positive weight has a
        missing value and the selection estimates the risk of the selected
        subtree ("cv", "cv-1se", "holdout"), both rules are fitted on the
        same folds (or hold-out rows) and the one of lower estimated squared
        error is kept, the surrogates on a tie (``missing_`` says which);
        otherwise "auto" is "surrogate".
    max_surrogates : int >= 0, default=5
        Surrogate splits kept per split (rpart's ``maxsurrogate``); 0 keeps
        the majority side alone. Ignored by fits with the learned side.
    grow_size : int >= 2 or None, default=None
        With ``method="M1"``: grow T_max on ``grow_size`` rows drawn at
        random (L1, held in memory) instead of half the sample, and take
        every pruning statistic and leaf mean from the per-node weight, mean
        and sum of squares of the other rows (L2; for "holdout" a share
        ``test_size`` of them is the test sample). In memory this is the fit
        :class:`~prunus.distributed.DaskCARTRegressor` runs block by block on
        a cluster; "cv" and "cv-1se" need that estimator (their folds are
        row blocks).

    Attributes
    ----------
    tree_ : Tree
        T_max.
    path_ : SquaredErrorPath
        Breiman's sequence T_1 > ... > T_K of T_max on squared error.
    selected_index_ : int
        The index k-hat of the selected subtree in ``path_``.
    alpha_ : float
        Its temperature alpha_{k-hat}.
    pruned_tree_ : Tree
        The selected subtree T_{k-hat}, whose leaves predict.
    pruned_counts_ : ndarray, shape (n_nodes of ``pruned_tree_``, 3)
        Weight, mean and within sum of squares of the pruning sample in the
        nodes of ``pruned_tree_``.
    n_features_in_ : int
    cv_results_ : dict or None
        For CV selections: ``alpha`` (evaluation temperatures), ``n_leaves``,
        ``mean_risk`` (pooled held-out mean squared error), ``std_risk``
        (across folds), ``se_risk`` (rpart's SE).
    test_risk_ : ndarray or None
        For "holdout": test mean squared error of every T_k.
    missing_ : {"surrogate", "learned"}
        The routing rule of the fitted trees (``missing``, or the rule
        "auto" kept).
    pruning_indices_ : ndarray of int or None
        Rows of X whose statistics gave the pruning risks and leaf means;
        None with ``grow_size``.
    split_ : SampledSplit
        With ``grow_size`` only: the rows of L1 and the rule drawing the test rows.
    cv_block_folds_ : ndarray of int
        With ``grow_size`` and CV on a dask collection (the Dask estimator):
        the fold of every row block.
    penalty_c_ : float
        For "slope" and "penalty": the penalty constant used.
    is_categorical_ : ndarray of bool, shape (n_features,)
        The categorical features.
    categories_ : list of (ndarray or None)
        Levels of each categorical feature in code order; None for a numeric one.
    variable_importance_ : ndarray, shape (n_features,)
        rpart's ``variable.importance`` of ``pruned_tree_`` (method "anova"):
        for each feature the decrease of the sum of squares of the pruning
        sample over its splits, plus over the surrogate splits on it their
        adjusted agreement times their split's decrease; not normalised.
    feature_importances_ : ndarray, shape (n_features,)
        The decreases of the primary splits alone, normalised to sum to one
        (scikit-learn's definition).
    cv_table_ : CPTable
        rpart's ``printcp`` table of the path (method "anova"; "Root node
        error" is the sum of squares of the root), the root first: ``cp``,
        ``nsplit``, ``rel_error`` and, for "cv" / "cv-1se", ``xerror`` and
        ``xstd``. :meth:`select` switches to another row's subtree without refitting.

    See Also
    --------
    CARTClassifier : the same procedure for classes.
    prunus.distributed.DaskCARTRegressor : The same fit on dask arrays and DataFrames.
    sklearn.tree.DecisionTreeRegressor : its ``ccp_alpha`` prunes the same sequence.
    """

    _parameter_constraints = {
        "criterion": [StrOptions({"squared_error"})],
        "categorical_features": [StrOptions({"from_dtype"}), "array-like", None],
        **SHARED_CONSTRAINTS,
    }
    _auto_threads = True
    # Threads of the fit's own (a fraction of a millisecond to start) paid
    # from 1,000 rows x 10 features of make_friedman1 on 2 cores, not at 300.
    _THREADS_FROM_CELLS = 10_000
    #: The estimator of :mod:`prunus.distributed` that takes dask collections.
    _dask_counterpart: str | None = "DaskCARTRegressor"

    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Grow, prune and select.

        Parameters
        ----------
        X : array-like, shape (n_samples, n_features)
            NaN marks a missing value.
        y : array-like, shape (n_samples,)
            Finite real target.
        sample_weight : array-like, shape (n_samples,), optional
            Non-negative weights, used for growing, pruning risks, leaf means
            and every selection criterion.

        Returns
        -------
        self : CARTRegressor
            The fitted estimator.

        See Also
        --------
        predict : The mean of the pruning sample in each row's leaf.
        prunus.pruning.squared_error_path : The pruning path of any tree on squared error.
        """
        reset_fitted(self)
        validate_fit(self)  # the hyper-parameters; y is checked as numbers, not labels
        refuse_dask(self, X, y, sample_weight)
        _check_regression_y(y)
        X = open_table(self, X)
        X, y = cast(
            "tuple[np.ndarray, np.ndarray]",
            validate_data(self, X, y, dtype=np.float64, ensure_all_finite="allow-nan", y_numeric=True),
        )
        close_table(self, X.shape[1])
        weight = _check_sample_weight(sample_weight, X, ensure_non_negative=True)
        if self.grow_size is not None:
            return self._fit_sampled(InMemorySample(X, y, None if sample_weight is None else weight))
        # Sorted once; the final tree and every fold grow from this order.
        grower = CARTGrower(X, y, regression=True, n_categories=n_categories_of(self))
        return self._fit_grower(grower, weight)

    def _store_leaf_predictions(self, path, index):
        self._leaf_value = path.value[index]

    @property
    def feature_importances_(self) -> np.ndarray:
        """Squared-error decrease of the splits on each feature in the selected tree, normalized to sum to one.

        scikit-learn's definition, with the rows of the pruning sample
        (``pruned_counts_``); surrogate splits are not counted (see
        ``variable_importance_``). All zeros for a single leaf.
        """
        check_is_fitted(self, "pruned_tree_")
        return regression_importances(self.pruned_tree_, self.pruned_counts_)

    @property
    def variable_importance_(self) -> np.ndarray:
        """rpart's ``variable.importance``: the raw squared-error decreases of the splits on each feature.

        Surrogate splits are credited too (as rpart does), in units of weight
        times squared y; not normalized.
        """
        check_is_fitted(self, "pruned_tree_")
        return regression_importances(self.pruned_tree_, self.pruned_counts_, normalize=False, surrogates=True)

    def predict(self, X: ArrayLike) -> np.ndarray:
        """Mean of y of the pruning sample in the leaf of each row.

        Parameters
        ----------
        X : array-like, shape (n_samples, n_features)
            NaN marks a missing value.

        Returns
        -------
        y : ndarray, shape (n_samples,)
            Predicted values.

        See Also
        --------
        apply : The leaf each row reaches.
        """
        leaves = self.apply(X)
        return self._leaf_value[leaves]

    def summary(self, decimals: int = 3) -> str:
        """The selected tree printed as rpart's ``print(fit)`` of method "anova".

        Per node the split, n, deviance (the sum of squares) and mean of y of
        the pruning sample (``pruned_counts_``), ``*`` at a leaf, then the
        surrogate splits; names from ``feature_names_in_`` and
        ``categories_``. See :func:`prunus.tree.export_summary`.

        Parameters
        ----------
        decimals : int, default=3
            Decimals of thresholds and means.

        Returns
        -------
        text : str
            One line per node: ``node) split n deviance yval``.
        """
        check_is_fitted(self, "pruned_tree_")
        return self.pruned_tree_.export_summary(node_moments=self.pruned_counts_, **self._names(), decimals=decimals)

    def _node_summaries(self, decimals: int) -> list[str]:
        from ..tree import node_summaries

        return node_summaries(self.pruned_tree_, node_moments=self.pruned_counts_, decimals=decimals)

    def _leaf_texts(self, decimals: int) -> tuple[list[str], str]:
        return [str(round(float(v), decimals)) for v in self._leaf_value], "value"

    def node_labels(self, decimals: int = 3) -> list[str]:
        """Texts "mean = ..., weight = ..." of the nodes of ``pruned_tree_``, for
        :meth:`Tree.export_text` and :meth:`Tree.to_dot` (with
        ``label_name="value"``) and :meth:`Tree.plot`; :meth:`export_text`
        writes the selected tree with its leaves' means.

        Parameters
        ----------
        decimals : int, default=3
            Significant digits of the means.

        Returns
        -------
        labels : list of str
            One per node of ``pruned_tree_``.
        """
        check_decimals(decimals, "node_labels")
        counts = self.pruned_counts_
        return [f"mean = {v:.{decimals}g}, weight = {w:g}" for v, w in zip(self._leaf_value, counts[:, 0])]

    def score(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> float:
        """R^2, the coefficient of determination of :meth:`predict` on ``(X, y)``.

        ``1 - sum w (y - y_pred)^2 / sum w (y - mean_w(y))^2``: 1 for perfect
        predictions, 0 for a constant prediction of the (weighted) mean of
        ``y``, negative for worse ones (scikit-learn's ``r2_score``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows (NaN is a missing value).
        y : array-like of shape (n_samples,)
            True values.
        sample_weight : array-like of shape (n_samples,), optional
            Row weights.

        Returns
        -------
        score : float
            R^2 of ``predict(X)`` against ``y``.

        See Also
        --------
        predict : The value of every row.
        """
        check_score_inputs(X, y, sample_weight, numeric=True)
        return super().score(X, y, sample_weight)
