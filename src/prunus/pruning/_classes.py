"""CARTClassifier: grow T_max, prune it (Table 1), select one subtree."""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import ClassifierMixin
from sklearn.utils.multiclass import type_of_target

from ..tree._kernels import fill_from_parent
from ..tree.cart import CARTGrower
from ..tree.sample import InMemorySample
from ..utils._param_validation import Integral, Interval, Real, StrOptions, validate_fit
from ..utils._validation import open_classifier_fit, refuse_dask
from ._base import SHARED_CONSTRAINTS, BaseCART
from ._sampled import fit_cart_sampled

#: A numeric target with more distinct values than this, making up more than
#: a fifth of the rows, is more likely a regression target than classes.
_MANY_CLASSES = 50


def check_not_regression_target(y):
    """Refuse a continuous target and warn on a numeric one with very many
    distinct values, both naming :class:`~prunus.CARTRegressor`."""
    y = np.asarray(y)
    if type_of_target(y) in ("continuous", "continuous-multioutput"):
        raise ValueError(
            "Unknown label type: continuous. y holds real numbers, which CARTClassifier cannot take as classes; "
            "for a regression use CARTRegressor."
        )
    if y.ndim == 1 and y.dtype.kind in "iuf":
        n_distinct = np.unique(y).shape[0]
        if n_distinct > _MANY_CLASSES and n_distinct > y.shape[0] / 5:
            warnings.warn(
                f"y has {n_distinct} distinct numeric values among {y.shape[0]} rows, each a class of "
                "CARTClassifier; if y is a quantity to predict, CARTRegressor may be meant.",
                UserWarning,
                stacklevel=3,
            )


class CARTClassifier(ClassifierMixin, BaseCART):
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
    grow_size : int or None, default=None
        For ``method="M1"``: grow T_max on a random sample L1 of
        ``grow_size`` rows, held in memory, and take the pruning statistics
        from L2 = every other row (``None``: L1 and L2 are halves). With it
        the hold-out test rows are drawn row by row with probability
        ``test_size``, and "cv" / "cv-1se" need the row blocks of a dask
        collection as folds (:class:`prunus.distributed.DaskCARTClassifier`,
        which fits on data no single process holds).

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
    """

    #: The estimator of :mod:`prunus.distributed` that takes dask collections.
    _dask_counterpart = "DaskCARTClassifier"

    _parameter_constraints = {
        "criterion": [StrOptions({"gini", "entropy", "log_loss", "misclassification"})],
        **SHARED_CONSTRAINTS,
        "kappa": [Interval(Real, 1.0, None, closed="left")],
        "grow_size": [Interval(Integral, 2, None, closed="left"), None],
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
    ):
        super().__init__(
            criterion=criterion,
            selection=selection,
            method=method,
            cv=cv,
            test_size=test_size,
            alpha=alpha,
            penalty_c=penalty_c,
            max_depth=max_depth,
            min_samples_leaf=min_samples_leaf,
            n_jobs=n_jobs,
            verbose=verbose,
            random_state=random_state,
        )
        self.kappa = kappa
        self.grow_size = grow_size

    # --------------------------------------------------------------- fit
    def fit(self, X, y, sample_weight=None):
        """Grow, prune and select.

        Parameters
        ----------
        X : array-like, shape (n_samples, n_features)
        y : array-like, shape (n_samples,)
        sample_weight : array-like, shape (n_samples,), optional
            Non-negative weights, used for growing, pruning risks and every
            selection criterion.

        Returns
        -------
        self
        """
        validate_fit(self, y)
        refuse_dask(self, X, y, sample_weight)
        check_not_regression_target(y)
        X, y_enc, weight = open_classifier_fit(self, X, y, sample_weight, ensure_all_finite="allow-nan")
        if self.grow_size is not None:
            given = None if sample_weight is None else weight
            return self._fit_sampled(InMemorySample(X, self.classes_[y_enc], given))
        # Sorted once; the final tree and every fold grow from this order.
        grower = CARTGrower(X, y_enc, self.classes_.shape[0])
        return self._fit_grower(grower, weight)

    def _fit_sampled(self, sample):
        """M1 with T_max grown on ``grow_size`` rows of ``sample``, pruned with the rest
        (:func:`~prunus.pruning._sampled.fit_cart_sampled`)."""
        return fit_cart_sampled(self, sample)

    def _store_leaf_predictions(self, path, index):
        self._leaf_label = path.label[index]
        self._leaf_proba = _node_proba(self.pruned_tree_, self.pruned_counts_)

    def _stratify(self, y, n_classes):
        return np.bincount(y, minlength=n_classes).min() >= self.cv

    def predict_proba(self, X):
        """Class frequencies of the pruning sample in the leaf of each row."""
        leaves = self.apply(X)
        return self._leaf_proba[leaves]

    def predict(self, X):
        """Majority class of the pruning sample in the leaf (Gey's f-hat_T)."""
        leaves = self.apply(X)
        return self.classes_[self._leaf_label[leaves]]


def _node_proba(tree, counts):
    """Per-node class frequencies; empty nodes take their parent's."""
    total = counts.sum(axis=1, keepdims=True)
    proba = np.divide(counts, total, out=np.zeros_like(counts), where=total > 0)
    return fill_from_parent(proba, total[:, 0] <= 0, tree.parent)
