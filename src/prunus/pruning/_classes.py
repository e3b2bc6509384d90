"""CARTClassifier: grow T_max, prune it (Table 1), select one subtree."""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike
from sklearn.utils import assert_all_finite
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_is_fitted

from ..tree._encoding import close_table, n_categories_of, open_table
from ..tree._importance import classification_importances
from ..tree._kernels import fill_from_parent
from ..tree.cart import CARTGrower
from ..tree.sample import InMemorySample
from ..utils._class_weight import CLASS_WEIGHT, class_weight_factors
from ..utils._classifier import Classifier
from ..utils._param_validation import Interval, Real, StrOptions
from ..utils._validation import open_classifier_fit
from ._base import SHARED_CONSTRAINTS, BaseCART
from .path import check_loss_matrix

if TYPE_CHECKING:
    from sklearn.model_selection import BaseCrossValidator
    from typing_extensions import Self

#: A numeric target with more distinct values than this, making up more than
#: a fifth of the rows, is more likely a regression target than classes.
_MANY_CLASSES = 50


def check_not_regression_target(y):
    """Refuse a continuous target and warn on a numeric one with very many
    distinct values, both naming :class:`~prunus.CARTRegressor`; returns
    ``type_of_target(y)``."""
    y = np.asarray(y)
    if y.dtype.kind == "f":
        # type_of_target casts the labels to integers before it checks them:
        # a NaN would warn in that cast and then be reported without naming y.
        assert_all_finite(y, input_name="y")
    target_type = _labels_type(y)
    if target_type is None:
        target_type = type_of_target(y, input_name="y")
    if target_type in ("continuous", "continuous-multioutput"):
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
    return target_type


def _labels_type(y: np.ndarray) -> str | None:
    """``type_of_target(y)`` of a non-empty 1-D array of integers, booleans
    or strings ("binary" or "multiclass", as scikit-learn tells them apart:
    by more than two distinct values), without its checks, which cost more
    than a small table's tree; None for any other ``y`` (scikit-learn's
    function then answers)."""
    if y.ndim != 1 or y.shape[0] == 0:
        return None
    kind = y.dtype.kind
    if kind in "iubU":
        n_distinct = np.unique(y).shape[0]
    elif kind == "O":
        values = y.tolist()
        if not all(type(v) is str for v in values):
            return None
        n_distinct = len(set(values))
    else:
        return None
    return "multiclass" if n_distinct > 2 else "binary"


class CARTClassifier(Classifier, BaseCART):
    """CART with Breiman's misclassification pruning and a choice of final selection.

    Implements the procedure analysed in Gey, *Risk bounds for CART
    classifiers under a margin condition*: T_max is grown by impurity
    reduction, pruned into the nested sequence T_1 > ... > T_K by the
    cost-complexity algorithm on misclassification cost (Table 1), and one
    T_k is selected.

    Parameters
    ----------
    criterion : {"gini", "entropy", "log_loss", "misclassification"}, default="gini"
        Impurity used to grow T_max (by :func:`~prunus.tree.grow_cart`;
        missing values in X, NaN, are routed as ``missing`` says).
    max_depth : int or None, default=None
        Depth limit of T_max (None: no limit).
    min_samples_split : int or float, default=2
        Fewest rows a node of T_max needs to be split (rpart's ``minsplit``;
        a float is that share of the rows grown on, as in scikit-learn).
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
        Folds run in parallel with joblib threads (the builder releases the
        GIL, and every fold reuses the order of X sorted once per fit).
        ``None``: one thread per core when X has at least 20,000 cells (rows
        times features), where a fold's growth outweighs starting threads;
        below, the folds of a classification grown by M2 (with integer
        weights and no ``max_leaf_nodes``) run in one compiled call per
        core, each over a run of consecutive folds, where their work
        outweighs a thread's cost (else in one call), and other folds
        sequentially; ``1``: always sequentially. Results are the same.
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
        ``category`` and string / object columns of a DataFrame; None:
        none. Indices,
        column names or a boolean mask select columns; a selected numeric
        column must hold level codes 0, 1, ... (NaN missing). The levels seen
        at fit are kept in ``categories_``; at predict a level not seen at fit
        goes where each split sends missing values. See the user guide,
        section "Categorical predictors".
    missing : {"auto", "surrogate", "learned"}, default="auto"
        How a split sends a row whose value of the split feature is missing
        (NaN). "surrogate": by rpart's surrogate splits (Breiman et al.,
        *Classification and Regression Trees*, section 5.3): the row follows
        the first of the split's surrogates (the splits on other features
        that best agree with it on the training rows) whose feature it has,
        else the split's majority side; the training rows missing a split's
        feature are sent this way during growth too, as rpart does, and a
        candidate split on a feature with missing values is scored on the
        rows where the feature is present, as rpart scores it. Surrogates
        are found only when the training data has missing values, so
        complete data fits as fast as without; its missing values at
        predict go to the majority side (:func:`prunus.tree.add_surrogates`
        adds surrogates to such a tree). "learned": each split learns a side
        for the missing values of its feature, the side of the better
        criterion (scikit-learn's rule). "auto": when a training row of
        positive weight has a missing value and the selection estimates
        the risk of the selected subtree ("cv", "cv-1se", "holdout"), the
        fit is made with both rules, on the same folds (or hold-out rows),
        and keeps the one whose selected subtree has the lower CV (or
        hold-out) risk, the surrogates on a tie; ``missing_`` says which.
        Such a fit costs the two fits. Otherwise (complete data, the other
        selections, ``grow_size``) "auto" is "surrogate", so fits on
        complete data are unchanged. Why "auto" is the default: neither
        rule is better everywhere. On classification CV fits (rpart's four
        example tables, ``breast_cancer``, ``spam`` and two synthetic
        factor tables; 30% of the cells missing completely at random or
        not at random, 50 draws; ``benchmarks/bench_missing.py``) the
        surrogates win where missingness is incidental and the learned
        side where missingness carries the target (``spam`` not at random:
        0.153 against 0.168); the mean test error of "auto" is 0.331
        completely at random (surrogates 0.328, learned side 0.340, rpart
        0.333) and 0.328 not at random (0.337, 0.335, rpart 0.344).
    max_surrogates : int >= 0, default=5
        Surrogate splits kept per split (rpart's ``maxsurrogate``); 0 keeps
        the majority side alone. Ignored by fits with the learned side.

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
    missing_ : {"surrogate", "learned"}
        The routing rule of the fitted trees (``missing``, or the rule
        "auto" kept).
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
        rpart's ``variable.importance`` of ``pruned_tree_``: for each feature
        the sum over its splits of ``W_t i(t) - W_L i(L) - W_R i(R)``,
        rpart's ``improve``, plus over the surrogate splits on it of their
        adjusted agreement times their split's ``improve``, with the weights
        and impurity of ``feature_importances_`` (entropy in nats, as rpart's
        "information"); not normalised. rpart also computes it on the pruned
        tree (``prune.rpart`` recomputes it). Surrogates are found when the
        training data has missing values (see ``missing``).
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
        **SHARED_CONSTRAINTS,
        "kappa": [Interval(Real, 1.0, None, closed="left")],
        "class_weight": CLASS_WEIGHT,
        "loss_matrix": ["array-like", None],
        "categorical_features": [StrOptions({"from_dtype"}), "array-like", None],
    }
    _auto_threads = True

    def __init__(
        self,
        criterion: str = "gini",
        max_depth: int | None = None,
        min_samples_split: int | float = 2,
        min_samples_leaf: int | float = 1,
        method: str = "M2",
        selection: str = "holdout",
        test_size: float = 0.1,
        cv: int | BaseCrossValidator | Iterable[Any] = 10,
        alpha: float | None = None,
        kappa: float = 1.0,
        penalty_c: float | None = None,
        n_jobs: int | None = None,
        verbose: int = 0,
        random_state: int | np.random.RandomState | None = None,
        grow_size: int | None = None,
        class_weight: dict[Any, float] | str | None = None,
        loss_matrix: ArrayLike | None = None,
        categorical_features: str | ArrayLike | None = "from_dtype",
        missing: str = "auto",
        max_surrogates: int = 5,
    ) -> None:
        super().__init__(
            criterion=criterion,
            selection=selection,
            method=method,
            cv=cv,
            test_size=test_size,
            alpha=alpha,
            penalty_c=penalty_c,
            max_depth=max_depth,
            min_samples_split=min_samples_split,
            min_samples_leaf=min_samples_leaf,
            n_jobs=n_jobs,
            verbose=verbose,
            random_state=random_state,
            grow_size=grow_size,
        )
        self.kappa = kappa
        self.class_weight = class_weight
        self.loss_matrix = loss_matrix
        self.categorical_features = categorical_features
        self.missing = missing
        self.max_surrogates = max_surrogates

    # --------------------------------------------------------------- fit
    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
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
        X, y_enc, weight = open_classifier_fit(
            self,
            X,
            y,
            sample_weight,
            prepare_X=lambda X: open_table(self, X),
            check_y=check_not_regression_target,
            ensure_all_finite="allow-nan",
        )
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
        # Sorted once; the final tree and every fold grow from this order.
        grower = CARTGrower(X, y_enc, self.classes_.shape[0], n_categories=n_categories_of(self))
        return self._fit_grower(grower, weight, loss)

    def _store_leaf_predictions(self, path, index):
        self._leaf_label = path.label[index]
        self._leaf_proba = _node_proba(self.pruned_tree_, self.pruned_counts_)

    def _stratify(self, y, n_classes):
        return np.bincount(y, minlength=n_classes).min() >= self.cv

    # ------------------------------------------------- after the fit
    @property
    def feature_importances_(self) -> np.ndarray:
        """Impurity-based importance of every feature in the selected tree, normalized to sum to one.

        The decrease of the growth criterion's impurity brought by the splits
        on each feature, counted on the pruning sample (``pruned_counts_``).
        """
        check_is_fitted(self, "pruned_tree_")
        return classification_importances(self.pruned_tree_, self.pruned_counts_, self.criterion)

    @property
    def variable_importance_(self) -> np.ndarray:
        """rpart's ``variable.importance``: the raw (unnormalized) impurity decreases of the splits on each feature.

        Surrogate splits are credited too (as rpart does), in units of weight
        times impurity. Without surrogates, ``feature_importances_`` is this
        divided by its sum; ``feature_importances_`` never counts surrogates.
        """
        check_is_fitted(self, "pruned_tree_")
        return classification_importances(
            self.pruned_tree_, self.pruned_counts_, self.criterion, normalize=False, surrogates=True
        )

    # ----------------------------------------------------------- predict
    def summary(self, decimals: int = 3) -> str:
        """The selected tree printed as rpart's ``print(fit)``: per node the split, n, class and shares.

        Counts are those of the pruning sample (``pruned_counts_``), the
        predicted class is the estimator's own label of the node, and the
        names come from the fit (``feature_names_in_`` when X had column
        names, ``classes_``). See :func:`prunus.tree.export_summary`.

        Parameters
        ----------
        decimals : int, default=3
            Decimals of thresholds and class shares.

        Returns
        -------
        text : str
            One line per node: ``node) split n loss yval (yprob)``, ``*`` at a leaf.
        """
        check_is_fitted(self, "pruned_tree_")
        return self.pruned_tree_.export_summary(**self._summary_args(), **self._names(), decimals=decimals)

    def _node_summaries(self, decimals: int) -> list[str]:
        from ..tree import node_summaries

        return node_summaries(self.pruned_tree_, **self._summary_args())

    def _leaf_texts(self, decimals: int) -> tuple[list[str], str]:
        return [str(c) for c in self.classes_[self._leaf_label]], "class"

    def _summary_args(self):
        """The nodes' class weights, class names and leaf classes of
        ``pruned_tree_``, as :func:`~prunus.tree.export_summary` and
        :func:`~prunus.tree.node_summaries` take them."""
        return dict(
            node_counts=self.pruned_counts_,
            class_names=[str(c) for c in self.classes_],
            node_labels=self._leaf_texts(0)[0],
        )

    def predict_proba(self, X: ArrayLike) -> np.ndarray:
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

    def predict(self, X: ArrayLike) -> np.ndarray:
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
