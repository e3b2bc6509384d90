import numpy as np
import pytest

torch = pytest.importorskip("torch")

from prunus.hsoftmax import TreeSoftmaxClassifier  # noqa: E402
from prunus.utils._testing import sklearn_check_params  # noqa: E402


@pytest.mark.parametrize(
    "estimator, check",
    sklearn_check_params(
        [TreeSoftmaxClassifier(hidden_layer_sizes=(16,), epochs=25, lr=0.03, random_state=0, n_threads=1)],
    ),
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def _blobs(n_classes=30, n=1500, seed=0):
    rng = np.random.RandomState(seed)
    centers = rng.randn(n_classes, 6) * 4
    y = rng.randint(0, n_classes, n)
    return centers[y] + rng.randn(n, 6), y


@pytest.mark.parametrize("output", ["learned", "random", "flat"])
def test_many_class_problem(output):
    X, y = _blobs()
    clf = TreeSoftmaxClassifier(
        hidden_layer_sizes=(32,), output=output, depth=2, epochs=15, lr=0.02, random_state=0, n_threads=1
    ).fit(X[:1000], y[:1000])
    proba = clf.predict_proba(X[1000:])
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-5)
    np.testing.assert_array_equal(clf.predict(X[1000:]), clf.classes_[proba.argmax(axis=1)])
    assert clf.score(X[1000:], y[1000:]) > 0.8
    if output != "flat":
        greedy = clf.set_params(predict_method="greedy").predict(X[1000:])
        assert np.mean(greedy == y[1000:]) > 0.75


def test_string_labels_and_errors():
    X, y = _blobs(5, 200)
    names = np.array(list("abcde"))[y]
    clf = TreeSoftmaxClassifier(hidden_layer_sizes=(8,), epochs=2, random_state=0, n_threads=1).fit(X, names)
    assert set(clf.predict(X)) <= set("abcde")
    with pytest.raises(ValueError, match="output"):
        TreeSoftmaxClassifier(output="x").fit(X, y)
    with pytest.raises(ValueError, match="class"):
        TreeSoftmaxClassifier().fit(X, np.zeros(200, dtype=int))


@pytest.mark.parametrize(
    "params, match",
    [
        (dict(tree_epochs=-1), "tree_epochs"),
        (dict(reassign_per_epoch=-1), "reassign_per_epoch"),
        (dict(n_threads=0), "n_threads"),
        (dict(criterion="x"), "criterion"),
    ],
)
def test_bad_parameters_name_the_argument(params, match):
    X, y = _blobs(5, 50)
    with pytest.raises((ValueError, TypeError), match=match):
        TreeSoftmaxClassifier(epochs=1, **params).fit(X, y)


def test_negative_sample_weight_is_rejected():
    X, y = _blobs(5, 50)
    w = np.ones(50)
    w[3] = -1.0
    with pytest.raises(ValueError, match="sample_weight"):
        TreeSoftmaxClassifier(epochs=1).fit(X, y, sample_weight=w)
