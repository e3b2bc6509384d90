"""The shared input checks: declared constraints, label types, index arguments."""

import numpy as np
import pytest

from prunus import CARTClassifier, cost_complexity_path
from prunus.tree._testing import random_counts, random_tree
from prunus.utils._param_validation import (
    CV_SPLITS,
    Integral,
    Interval,
    InvalidParameterError,
    check_index,
    check_label_types,
    make_constraint,
    validate_fit,
)


class _Toy:
    """Not a scikit-learn estimator: parameters are read from the constructor's signature."""

    _parameter_constraints = {"n": [Interval(Integral, 1, None, closed="left")], "cv": CV_SPLITS}

    def __init__(self, n=1, cv=2):
        self.n = n
        self.cv = cv


def test_validate_fit_names_the_parameter_and_the_estimator():
    validate_fit(_Toy())
    for bad in (0, 1.5, True, "3", None):
        with pytest.raises(InvalidParameterError, match=r"^The 'n' parameter of _Toy must be an int") as info:
            validate_fit(_Toy(n=bad))
        assert isinstance(info.value, ValueError) and isinstance(info.value, TypeError)


def test_booleans_are_not_numbers():
    assert not Interval(Integral, 0, None, closed="left").is_satisfied_by(True)
    assert not Interval(Integral, 0, None, closed="left").is_satisfied_by(np.bool_(True))
    assert Interval(Integral, 0, None, closed="left").is_satisfied_by(np.int64(3))


def test_cv_constraint():
    from sklearn.model_selection import KFold

    splits = [(np.arange(2), np.arange(2, 4)), (np.arange(2, 4), np.arange(2))]
    for good in (2, 10, KFold(3), splits, iter(splits)):
        validate_fit(_Toy(cv=good))
    for bad in (1, 2.5, "kfold", None, object()):
        with pytest.raises(InvalidParameterError, match="'cv' parameter"):
            validate_fit(_Toy(cv=bad))


@pytest.mark.parametrize(
    "y, types",
    [
        ([1, "a", 2], "int, str"),
        (np.array(["a", 1, 2.5], dtype=object), "float, int, str"),
        (["x", None], "NoneType, str"),
        ((np.int64(1), "b"), "int64, str"),
    ],
)
def test_mixed_label_types_name_y_and_the_types(y, types):
    with pytest.raises(ValueError, match=rf"^y mixes label types \({types}\)"):
        check_label_types(y)


@pytest.mark.parametrize(
    "y",
    [
        [1, 2.5, np.int64(3)],
        ["a", "b"],
        np.array([1, "a"]),
        np.arange(3),
        np.array(["a", "b"], dtype=object),
        [True, False],
    ],
)
def test_one_kind_of_label_passes(y):
    check_label_types(y)


def test_mixed_labels_are_refused_before_fit_converts_them():
    X = np.random.default_rng(0).uniform(size=(6, 2))
    # A list [1, "a"] would otherwise become the strings ["1", "a"] and fit silently.
    with pytest.raises(ValueError, match=r"^y mixes label types \(int, str\)"):
        CARTClassifier().fit(X, [1, 2, 1, 2, "a", "a"])


def test_check_index():
    assert check_index(2, "k", 5) == 2
    assert check_index(np.int32(-1), "k", 5) == 4
    for bad in (1.5, 2.0, True, "1", None, np.float64(1.0)):
        with pytest.raises(TypeError, match="^k must be an integer"):
            check_index(bad, "k", 5)
    for bad in (5, -6):
        with pytest.raises(IndexError, match="k="):
            check_index(bad, "k", 5)


def test_path_subtree_rejects_non_integers():
    rng = np.random.default_rng(0)
    tree = random_tree(rng, 6)
    path = cost_complexity_path(tree, random_counts(rng, tree, 3, empty_prob=0.0))
    assert path.subtree(len(path) - 1).n_nodes == 1
    assert path.subtree(np.int64(0)) == path.subtree(0)
    for bad in (1.5, 0.0, True, "0"):
        with pytest.raises(TypeError, match="^k must be an integer"):
            path.subtree(bad)
        with pytest.raises(TypeError, match="^k must be an integer"):
            path.collapsed(bad)
    with pytest.raises(IndexError):
        path.subtree(len(path))


def test_tree_language_model_parameters():
    pytest.importorskip("torch")
    from prunus.hsoftmax import TreeLanguageModel

    ids = np.arange(40) % 7
    for name, constraints in TreeLanguageModel._parameter_constraints.items():
        for constraint in constraints:
            try:
                bad = make_constraint(constraint).invalid_value()
            except NotImplementedError:
                continue
            lm = TreeLanguageModel(7)
            setattr(lm, name, bad)
            if any(make_constraint(c).is_satisfied_by(bad) for c in constraints):
                continue
            with pytest.raises(InvalidParameterError, match=f"'{name}' parameter of TreeLanguageModel"):
                lm.fit(ids, epochs=1)
