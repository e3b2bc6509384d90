"""Dask estimators: the core estimators fitted by M1 at scale, with lazy predictions.

:class:`DaskCARTClassifier`, :class:`DaskCARTRegressor` and
:class:`DaskPACBayesTreeClassifier` subclass
:class:`~prunus.pruning.CARTClassifier`, :class:`~prunus.pruning.CARTRegressor`
and :class:`~prunus.voting.PACBayesTreeClassifier`. Given dask collections,
``fit`` grows the tree on ``grow_size`` rows drawn into memory and takes
every other statistic from the per-node counts (for the regressor: weight,
mean and sum of squares) of the remaining rows, summed block by block on the
workers: the core estimator's own sampled fit, run on a :class:`DaskSample`. ``predict``, ``predict_proba`` and ``apply`` of a dask
``X`` are lazy dask arrays (``map_blocks`` of the in-memory method), and
``score`` is computed on the cluster. ``to_local()`` gives the plain core
estimator. In-memory input is passed to the core estimator unchanged.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ..pruning import CARTClassifier, CARTRegressor
from ..tree import Tree
from ..tree._encoding import close_table
from ..utils._param_validation import validate_fit
from ..utils._validation import reset_fitted
from ..voting import PACBayesTreeClassifier
from ._blocks import as_matrix, as_vector
from ._detect import any_dask, require_dask
from ._sample import DaskSample

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["DaskCARTClassifier", "DaskCARTRegressor", "DaskPACBayesTreeClassifier", "predict"]


def _block_method(X, model, name):
    return getattr(model, name)(X)


def _block_values(X, tree, values):
    return values[tree.apply(X)]


def predict(model: Any, X: Any, values: np.ndarray | None = None, *, method: str = "predict") -> Any:
    """Predictions of a fitted estimator, or node values of a :class:`~prunus.tree.Tree`, over a dask ``X``.

    Parameters
    ----------
    model : fitted estimator or Tree
        An estimator with ``n_features_in_`` and the method ``method``, or a
        tree whose leaves index ``values``.
    X : dask array or dask DataFrame of numeric columns, shape (n_samples, n_features)
        The rows to predict, block by block.
    values : ndarray, shape (n_nodes,) or (n_nodes, k), optional
        For a Tree: the value of every node (a leaf's value is predicted).
    method : {"predict", "predict_proba", "apply"}, default="predict"
        For an estimator: the method run on every block.

    Returns
    -------
    predictions : dask array
        Lazy; shape (n_samples,) or (n_samples, k).

    See Also
    --------
    apply : Leaf ids of a Tree over a dask ``X``.
    node_counts : Per-node class counts of a dask sample.
    """
    dask = require_dask()
    if isinstance(model, Tree):
        if values is None:
            raise ValueError("predict with a Tree needs values: one value (row) per node of the tree.")
        values = np.asarray(values)
        if values.shape[0] != model.n_nodes:
            raise ValueError(f"values has {values.shape[0]} rows, the tree has {model.n_nodes} nodes.")
        X = as_matrix(X, model.n_features)
        if values.ndim == 1:
            meta = np.empty((0,), dtype=values.dtype)
            return X.map_blocks(_block_values, dask.delayed(model), values, drop_axis=1, dtype=values.dtype, meta=meta)
        meta = np.empty((0, 0), dtype=values.dtype)
        chunks = (X.chunks[0], (values.shape[1],))
        return X.map_blocks(_block_values, dask.delayed(model), values, chunks=chunks, dtype=values.dtype, meta=meta)
    if method not in ("predict", "predict_proba", "apply"):
        raise ValueError(f"method must be 'predict', 'predict_proba' or 'apply', got {method!r}.")
    check_is_fitted(model)
    X = as_matrix(X, model.n_features_in_)
    model_d = dask.delayed(model)
    if method == "predict_proba":
        k = len(model.classes_)
        meta = np.empty((0, 0), dtype=np.float64)
        return X.map_blocks(_block_method, model_d, method, chunks=(X.chunks[0], (k,)), dtype=np.float64, meta=meta)
    dtype: np.dtype
    if method == "apply":
        dtype = np.dtype(np.int64)
    else:  # a classifier's labels, or a regressor's real values
        classes = getattr(model, "classes_", None)
        dtype = np.dtype(np.float64) if classes is None else classes.dtype
    meta = np.empty((0,), dtype=dtype)
    return X.map_blocks(_block_method, model_d, method, drop_axis=1, dtype=dtype, meta=meta)


def _score(est, X, y, sample_weight=None):
    """Mean accuracy (weighted by ``sample_weight``) of ``est`` on dask data, computed."""
    dask = require_dask()
    pred = predict(est, X)
    y, pred = as_vector(y, pred, "y")
    right = (pred == y).astype(np.float64)
    if sample_weight is None:
        num, den = right.sum(), dask.array.ones_like(right).sum()
    else:
        w, pred = as_vector(sample_weight, pred, "sample_weight")
        num, den = (right * w).sum(), w.sum()
    num, den = dask.compute(num, den)
    if not den > 0:
        raise ValueError("score needs a sample with positive total weight.")
    return float(num / den)


def _r2_score(est: Any, X: Any, y: Any, sample_weight: Any = None) -> float:
    """Coefficient of determination R^2 (weighted by ``sample_weight``) of ``est`` on dask data, computed.

    The total sum of squares is taken around the weighted mean (a second
    pass over ``y`` in the same computation), not from raw sums of squares.
    """
    dask = require_dask()
    pred = predict(est, X)
    y, pred = as_vector(y, pred, "y")
    y = y.astype(np.float64)
    if sample_weight is None:
        w = dask.array.ones_like(y)
    else:
        w, pred = as_vector(sample_weight, pred, "sample_weight")
    total = w.sum()
    mean = (w * y).sum() / total
    residual = (w * (y - pred) ** 2).sum()
    spread = (w * (y - mean) ** 2).sum()
    total, residual, spread = dask.compute(total, residual, spread)
    if not total > 0:
        raise ValueError("score needs a sample with positive total weight.")
    if spread == 0:  # as scikit-learn's r2_score: a constant y is fitted perfectly or not at all
        return 1.0 if residual == 0 else 0.0
    return float(1.0 - residual / spread)


class _DaskMixin:
    """Dask input for ``fit`` of a core estimator, and ``to_local``.

    Before the core class in the bases; the core class's methods
    (``_local_class``) run on in-memory input and on every row block.
    """

    _dask_counterpart: str | None = None
    #: The core class whose methods run on in-memory input (and on every row block).
    _local_class: type[Any]
    grow_size: Any

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> Self:
        """Fit on dask collections (M1 at scale) or, unchanged, on in-memory arrays.

        Parameters
        ----------
        X : dask array, dask DataFrame or array-like, shape (n_samples, n_features)
            Numeric features; NaN is a missing value where the core estimator allows it.
        y : dask array, dask Series or array-like, shape (n_samples,)
            Class labels, or for a regressor the real target.
        sample_weight : dask array, dask Series or array-like, shape (n_samples,), optional
            Non-negative row weights.

        Returns
        -------
        self : object
            Fitted; the same fitted attributes as the core estimator.

        See Also
        --------
        to_local : The fitted core estimator.
        """
        if not any_dask(X, y, sample_weight):
            return self._local_class.fit(self, X, y, sample_weight=sample_weight)
        reset_fitted(self)
        validate_fit(self)
        if getattr(self, "class_weight", None) is not None:
            raise ValueError(
                "class_weight is not supported on dask input yet: multiply sample_weight by the weight of "
                "each row's class instead."
            )
        if getattr(self, "loss_matrix", None) is not None:
            raise ValueError("loss_matrix is not supported on dask input: fit in memory.")
        if self.grow_size is None:
            raise ValueError(
                "grow_size is required to fit on a dask collection: the number of rows, drawn at random, "
                "on which the tree is grown in memory."
            )
        sample = DaskSample(self, X, y, sample_weight)
        if hasattr(self, "categorical_features"):
            # A dask collection holds numeric columns only: no categorical feature.
            self._encoding = None
            close_table(self, sample.n_features)
        return self._local_class._fit_sampled(self, sample)

    def to_local(self) -> Any:
        """The fitted core estimator: same parameters, same fitted attributes.

        Returns
        -------
        estimator : CARTClassifier, CARTRegressor or PACBayesTreeClassifier
            A plain in-memory estimator (pickled without any Dask class).
        """
        check_is_fitted(self)
        params = self._local_class.get_params(self, deep=False)
        local = self._local_class(**params)
        for name, value in vars(self).items():
            if name not in params:
                setattr(local, name, value)
        return local


class _DaskClassifierMixin(_DaskMixin):
    """Dask input for ``predict`` / ``predict_proba`` / ``score`` of a core classifier."""

    def predict(self, X: Any) -> Any:
        """Class of every row; a lazy dask array for a dask ``X``.

        Parameters
        ----------
        X : dask array, dask DataFrame or array-like, shape (n_samples, n_features)
            The rows to classify.

        Returns
        -------
        y : dask array or ndarray, shape (n_samples,)
            Predicted labels.

        See Also
        --------
        predict_proba : Class probabilities of every row.
        """
        return predict(self, X) if any_dask(X) else self._local_class.predict(self, X)

    def predict_proba(self, X: Any) -> Any:
        """Class probabilities of every row; a lazy dask array for a dask ``X``.

        Parameters
        ----------
        X : dask array, dask DataFrame or array-like, shape (n_samples, n_features)
            The rows to classify.

        Returns
        -------
        proba : dask array or ndarray, shape (n_samples, n_classes)
            Probabilities, columns in the order of ``classes_``.

        See Also
        --------
        predict : The most probable class of every row.
        """
        return predict(self, X, method="predict_proba") if any_dask(X) else self._local_class.predict_proba(self, X)

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """Mean accuracy of ``predict(X)`` against ``y`` (weighted by ``sample_weight``).

        Parameters
        ----------
        X : dask array, dask DataFrame or array-like, shape (n_samples, n_features)
            Test rows.
        y : dask array, dask Series or array-like, shape (n_samples,)
            True labels.
        sample_weight : dask array or array-like, shape (n_samples,), optional
            Row weights.

        Returns
        -------
        score : float
            On dask input, computed block by block on the cluster.

        See Also
        --------
        predict : The predicted labels.
        """
        if any_dask(X, y, sample_weight):
            return _score(self, X, y, sample_weight)
        return self._local_class.score(self, X, y, sample_weight=sample_weight)


class _DaskApplyMixin:
    """Lazy ``apply`` of a dask ``X`` for the Dask CART estimators."""

    _local_class: type[Any]

    def apply(self, X: Any) -> Any:
        """Leaf of the selected tree reached by each row; lazy for a dask ``X``.

        Parameters
        ----------
        X : dask array, dask DataFrame or array-like, shape (n_samples, n_features)
            The rows.

        Returns
        -------
        leaves : dask array or ndarray of int, shape (n_samples,)
            Node ids of ``pruned_tree_``.

        See Also
        --------
        decision_path : The nodes each row visits.
        """
        return predict(self, X, method="apply") if any_dask(X) else self._local_class.apply(self, X)


class DaskCARTClassifier(_DaskApplyMixin, _DaskClassifierMixin, CARTClassifier):
    """:class:`~prunus.pruning.CARTClassifier` for dask arrays and DataFrames.

    Gey's method M1 at scale: T_max is grown on ``grow_size`` rows drawn at
    random into memory (L1); the pruning path, the selection and the leaf
    labels come from the per-node class counts of every other row (L2, and
    the hold-out test rows), counted block by block on the workers. With
    ``selection="cv"`` or ``"cv-1se"`` the folds are whole row blocks. The
    same ``random_state`` gives the same fit as
    ``CARTClassifier(method="M1", grow_size=...)`` on the same rows in memory.

    Parameters are those of :class:`~prunus.pruning.CARTClassifier`; dask
    input needs ``method="M1"`` and ``grow_size``.

    Parameters
    ----------
    criterion : {"gini", "entropy", "log_loss", "misclassification"}, default="gini"
        Impurity used to grow T_max.
    max_depth : int or None, default=None
        Depth limit of T_max.
    min_samples_split : int or float, default=2
        Fewest rows a node of T_max needs to be split.
    min_samples_leaf : int or float, default=1
        Leaf size limit of T_max.
    method : {"M2", "M1"}, default="M2"
        Dask input needs "M1" (T_max grown on L1, pruned with L2).
    selection : {"holdout", "cv", "cv-1se", "slope", "penalty", "alpha"}, default="holdout"
        Final selection (see the core estimator).
    test_size : float in (0, 1), default=0.1
        Probability that a row outside L1 is a hold-out test row.
    cv : int >= 2, default=10
        Folds of row blocks for "cv" and "cv-1se".
    alpha : float >= 0 or None, default=None
        Temperature for "alpha".
    kappa : float >= 1, default=1.0
        Margin exponent of "penalty" and "slope".
    penalty_c : float >= 0 or None, default=None
        Constant of "penalty".
    n_jobs : int or None, default=None
        Threads for in-memory folds.
    verbose : int, default=0
        Progress bars of in-memory fits.
    random_state : int, RandomState or None, default=None
        Draws L1, the test rows and the block folds.
    grow_size : int or None, default=None
        Rows of L1, held in memory.
    categorical_features : "from_dtype", None, array-like of int or str, or bool mask, default="from_dtype"
        Categorical columns of in-memory input (see the core estimator); a
        dask collection must hold numeric columns.
    class_weight : dict, "balanced" or None, default=None
        As the core estimator's, on in-memory input only (dask input refuses
        it: give the product in ``sample_weight``).
    loss_matrix : array-like of shape (n_classes, n_classes) or None, default=None
        As the core estimator's, on in-memory input only.
    missing : {"auto", "surrogate", "learned"}, default="auto"
        How a split sends a missing value, as the core estimator's. On dask
        input "auto" is "surrogate": T_max (grown in memory on L1) gets
        surrogate splits when L1 has missing values, and every block is
        routed by them.
    max_surrogates : int >= 0, default=5
        Surrogate splits kept per split (rpart's ``maxsurrogate``).

    Attributes
    ----------
    split_ : SampledSplit
        L1 and the rule drawing the test rows.
    cv_block_folds_ : ndarray of int
        With CV: the fold of every row block.

    See Also
    --------
    prunus.pruning.CARTClassifier : The in-memory estimator (:meth:`to_local`).
    """

    _local_class = CARTClassifier


class DaskCARTRegressor(_DaskApplyMixin, _DaskMixin, CARTRegressor):
    """:class:`~prunus.pruning.CARTRegressor` for dask arrays and DataFrames.

    Method M1 of Gey & Nedelec, *Model selection for CART regression trees*,
    at scale: T_max is grown by least squares on ``grow_size`` rows drawn at
    random into memory (L1); the pruning path on squared error, the
    selection and the leaf means come from the per-node weight, mean and
    within sum of squares of every other row (L2, and the hold-out test
    rows), computed block by block on the workers and merged by the pairwise
    update of Chan, Golub & LeVeque (no raw sums of squares, so a target far
    from 0 keeps its digits). With ``selection="cv"`` or ``"cv-1se"`` the
    folds are whole row blocks, and a second pass over the blocks gives
    every held-out row's squared error (rpart's standard error). The same
    ``random_state`` gives the same fit as
    ``CARTRegressor(method="M1", grow_size=...)`` on the same rows in memory,
    up to the rounding of the order in which blocks are merged.

    Parameters are those of :class:`~prunus.pruning.CARTRegressor`; dask
    input needs ``method="M1"`` and ``grow_size``.

    Parameters
    ----------
    criterion : {"squared_error"}, default="squared_error"
        Growth criterion of T_max.
    selection : {"holdout", "cv", "cv-1se", "slope", "penalty", "alpha"}, default="holdout"
        Final selection (see the core estimator).
    method : {"M2", "M1"}, default="M2"
        Dask input needs "M1" (T_max grown on L1, pruned with L2).
    cv : int >= 2, default=10
        Folds of row blocks for "cv" and "cv-1se".
    test_size : float in (0, 1), default=0.1
        Probability that a row outside L1 is a hold-out test row.
    alpha : float >= 0 or None, default=None
        Temperature for "alpha", in ``ccp_alpha`` units.
    penalty_c : float >= 0 or None, default=None
        Constant of "penalty", in units of y squared.
    max_depth : int or None, default=None
        Depth limit of T_max.
    min_samples_split : int or float, default=2
        Fewest rows a node of T_max needs to be split.
    min_samples_leaf : int or float, default=1
        Leaf size limit of T_max.
    n_jobs : int or None, default=None
        Threads for in-memory folds.
    verbose : int, default=0
        Progress bars of in-memory fits.
    random_state : int, RandomState or None, default=None
        Draws L1, the test rows and the block folds.
    categorical_features : "from_dtype", None, array-like of int or str, or bool mask, default="from_dtype"
        Categorical columns of in-memory input (see the core estimator); a
        dask collection must hold numeric columns.
    missing : {"auto", "surrogate", "learned"}, default="auto"
        How a split sends a missing value, as the core estimator's. On dask
        input "auto" is "surrogate": T_max (grown in memory on L1) gets
        surrogate splits when L1 has missing values, and every block is
        routed by them.
    max_surrogates : int >= 0, default=5
        Surrogate splits kept per split (rpart's ``maxsurrogate``).
    grow_size : int or None, default=None
        Rows of L1, held in memory; required for dask input.

    Attributes
    ----------
    split_ : SampledSplit
        L1 and the rule drawing the test rows.
    cv_block_folds_ : ndarray of int
        With CV: the fold of every row block.

    See Also
    --------
    prunus.pruning.CARTRegressor : The in-memory estimator (:meth:`to_local`).
    DaskCARTClassifier : The same scale-out for classes.
    """

    _local_class = CARTRegressor

    def predict(self, X: Any) -> Any:
        """Mean of y of the pruning sample in the leaf of each row; lazy for a dask ``X``.

        Parameters
        ----------
        X : dask array, dask DataFrame or array-like, shape (n_samples, n_features)
            The rows.

        Returns
        -------
        y : dask array or ndarray of float64, shape (n_samples,)
            Predicted values.

        See Also
        --------
        score : R^2 of the predictions.
        """
        return predict(self, X) if any_dask(X) else self._local_class.predict(self, X)

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """Coefficient of determination R^2 of ``predict(X)`` against ``y`` (weighted by ``sample_weight``).

        Parameters
        ----------
        X : dask array, dask DataFrame or array-like, shape (n_samples, n_features)
            Test rows.
        y : dask array, dask Series or array-like, shape (n_samples,)
            True values.
        sample_weight : dask array or array-like, shape (n_samples,), optional
            Row weights.

        Returns
        -------
        score : float
            As scikit-learn's ``r2_score``; on dask input computed block by
            block on the cluster.

        See Also
        --------
        predict : The predicted values.
        """
        if any_dask(X, y, sample_weight):
            return _r2_score(self, X, y, sample_weight)
        return self._local_class.score(self, X, y, sample_weight=sample_weight)


class DaskPACBayesTreeClassifier(_DaskClassifierMixin, PACBayesTreeClassifier):
    """:class:`~prunus.voting.PACBayesTreeClassifier` for dask arrays and DataFrames.

    T0 and the lambdas chosen by cross-validation come from a sample S0 of
    ``grow_size`` rows drawn into memory; the node weights (Algorithms 1-2 of
    Nguyen & Kpotufe, *PAC-Bayes Tree*) come from the per-node class counts
    of every other row, counted block by block on the workers.

    Parameters
    ----------
    partition : {"dyadic", "kd", "cart"} or Tree, default="dyadic"
        How T0 is grown, or a fixed tree.
    max_depth : int or None, default=None
        Depth of T0.
    min_samples_leaf : int, default=1
        For "kd" and "cart".
    lambda1 : float >= 0 or None, default=None
        ``None``: chosen by CV on S0.
    lambda2 : float >= 0 or None, default=None
        ``None``: chosen by CV on S0.
    prior : {"practical", "theory"}, default="practical"
        The posterior's prior.
    delta : float in (0, 1), default=0.05
        Confidence level of the theory version.
    empty_cells : {"parent", "class0"}, default="parent"
        Cells without data.
    cv : int or CV splitter, default=2
        Folds of S0.
    n_jobs : int or None, default=None
        Threads for the folds.
    random_state : int, RandomState or None, default=None
        Draws S0, the folds and CART tie-breaking.
    grow_size : int or None, default=None
        Rows of S0, held in memory; required for dask input.
    class_weight : dict, "balanced" or None, default=None
        As the core estimator's, on in-memory input only (dask input refuses
        it: give the product in ``sample_weight``).
    categorical_features : "from_dtype", None, array-like of int or str, or bool mask, default="from_dtype"
        Categorical columns of in-memory input for ``partition="cart"`` (see
        the core estimator); a dask collection must hold numeric columns.

    Attributes
    ----------
    split_ : SampledSplit
        The rows of S0.

    See Also
    --------
    prunus.voting.PACBayesTreeClassifier : The in-memory estimator (:meth:`to_local`).
    """

    _local_class = PACBayesTreeClassifier
