"""scikit-learn's estimator checks over every public estimator of prunus.

Each estimator of ``prunus.__all__`` and of ``prunus.distributed.__all__`` (on
in-memory data) in one small configuration (the test file of each area checks
its other configurations) goes through every check of
``parametrize_with_checks`` (:func:`prunus.utils._testing.sklearn_check_params`,
the checks that fail by design named in
:func:`prunus.utils._testing.expected_failed_checks`), then through the public
checks that scikit-learn's generator leaves out but that apply to a classifier
or regressor of tables: the column names of a DataFrame, inputs that are not
arrays, predictions on easy blobs.

``TreeLanguageModel`` is no scikit-learn estimator: it fits a stream of token
ids (``fit(train_ids)``), not a table ``X`` with targets ``y``, and is scored
by perplexity.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from sklearn.base import BaseEstimator, is_classifier
from sklearn.datasets import make_blobs
from sklearn.utils import get_tags
from sklearn.utils.estimator_checks import (
    check_classifiers_predictions,
    check_dataframe_column_names_consistency,
    check_estimators_data_not_an_array,
)

import prunus
from prunus import (
    CARTClassifier,
    CARTRegressor,
    ExactBoostClassifier,
    HSVoteClassifier,
    PACBayesForestClassifier,
    PACBayesTreeClassifier,
    PenalizedTreeClassifier,
)
from prunus.utils._testing import sklearn_check_params

try:  # the optional torch extra
    from prunus import TreeSoftmaxClassifier
except ImportError:  # pragma: no cover - without torch
    TreeSoftmaxClassifier = None
try:  # the optional dask extra
    import prunus.distributed as distributed
except ImportError:  # pragma: no cover - without dask
    distributed = None

#: Public models that learn from a stream of token ids, not from a table: by design no scikit-learn estimators.
NOT_ESTIMATORS = {"TreeLanguageModel"}

ESTIMATORS = [
    CARTClassifier(random_state=0),
    CARTRegressor(random_state=0),
    PACBayesTreeClassifier(random_state=0),
    PACBayesForestClassifier(n_estimators=5, random_state=0),
    PenalizedTreeClassifier(random_state=0),
    HSVoteClassifier(random_state=0),
    ExactBoostClassifier(n_estimators=8, max_depth=2),
]
if TreeSoftmaxClassifier is not None:
    ESTIMATORS.append(TreeSoftmaxClassifier(hidden_layer_sizes=(16,), epochs=25, lr=0.03, random_state=0, n_threads=1))
if distributed is not None:
    ESTIMATORS += [
        distributed.DaskCARTClassifier(random_state=0),
        distributed.DaskCARTRegressor(random_state=0),
        distributed.DaskPACBayesTreeClassifier(random_state=0),
    ]


def _name(est):
    return type(est).__name__


@pytest.mark.parametrize("estimator, check", sklearn_check_params(ESTIMATORS))
def test_sklearn_checks(estimator, check):
    check(estimator)


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=_name)
def test_dataframe_column_names(estimator):
    """``feature_names_in_`` set from a DataFrame; other names, or none, at predict warn or raise."""
    pytest.importorskip("pandas")
    check_dataframe_column_names_consistency(_name(estimator), estimator)


@pytest.mark.parametrize("obj_type", ["NotAnArray", "PandasDataframe"])
@pytest.mark.parametrize("estimator", ESTIMATORS, ids=_name)
def test_data_not_an_array(estimator, obj_type):
    """An array-like that is no ndarray (an ``__array__`` wrapper, a DataFrame) fits as the ndarray does."""
    if obj_type == "PandasDataframe":
        pytest.importorskip("pandas")
    X, y = make_blobs(n_samples=30, centers=[[0, 0, 0], [1, 1, 1]], random_state=0, cluster_std=0.1)
    y = y if is_classifier(estimator) else y.astype(np.float64)
    check_estimators_data_not_an_array(_name(estimator), estimator, X, y, obj_type)


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("estimator", [e for e in ESTIMATORS if is_classifier(e)], ids=_name)
def test_classifier_predictions_on_blobs(estimator, n_classes):
    """Well separated blobs: training accuracy above 0.83, ``classes_`` as given, predictions of its labels."""
    if n_classes > 2 and not get_tags(estimator).classifier_tags.multi_class:
        pytest.skip(f"{_name(estimator)} is a binary classifier")
    X, y = make_blobs(n_samples=150, centers=n_classes, random_state=0, cluster_std=1.0)
    check_classifiers_predictions(X, y, _name(estimator), estimator)


def test_every_public_estimator_is_checked():
    """Every scikit-learn estimator of ``prunus.__all__`` (and of ``prunus.distributed.__all__``) is in
    ``ESTIMATORS``; the others are not estimators."""
    public = {name: getattr(prunus, name) for name in prunus.__all__ if name not in NOT_ESTIMATORS | {"__version__"}}
    if TreeSoftmaxClassifier is None:
        public.pop("TreeSoftmaxClassifier")
    if distributed is not None:
        public.update({name: getattr(distributed, name) for name in distributed.__all__})
    estimators = {name for name, obj in public.items() if inspect.isclass(obj) and issubclass(obj, BaseEstimator)}
    assert estimators == {_name(est) for est in ESTIMATORS}
    for name in NOT_ESTIMATORS:
        pytest.importorskip("torch")
        assert not issubclass(getattr(prunus, name), BaseEstimator)
