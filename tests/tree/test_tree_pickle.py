"""Versioned Tree pickles: older formats load as they were, newer ones fail by name."""

import pickle

import numpy as np
import pytest

from prunus.tree import Tree
from prunus.tree._persistence import TREE_FORMAT_VERSION


def _tree():
    # Root splits feature 1 at 0.5 (missing values left); its right child splits feature 0.
    return Tree([1, -1, 3, -1, -1], [2, -1, 4, -1, -1], [1, -2, 0, -2, -2], [0.5, -2, 0.0, -2, -2], 2, [1, 0, 0, 0, 0])


X = np.array([[0.0, 0.1], [np.nan, 0.9], [1.0, np.nan], [-1.0, 0.7], [2.0, 0.6]])


def _pickle_as_before(tree, monkeypatch, drop=()):
    """A pickle as prunus wrote it before versions: the bare ``__dict__`` (less ``drop``)."""
    with monkeypatch.context() as m:
        m.setattr(Tree, "__getstate__", lambda self: {k: v for k, v in self.__dict__.items() if k not in drop})
        return pickle.dumps(tree)


def test_round_trip_carries_the_version():
    tree = _tree()
    data = pickle.dumps(tree)
    assert b"_format_version" in data
    loaded = pickle.loads(data)
    assert loaded == tree and "_format_version" not in loaded.__dict__
    assert np.array_equal(loaded.apply(X), tree.apply(X))
    assert TREE_FORMAT_VERSION == 2


def test_unversioned_pickle_loads_as_it_was(monkeypatch):
    tree = _tree()
    data = _pickle_as_before(tree, monkeypatch)
    assert b"_format_version" not in data
    loaded = pickle.loads(data)
    assert loaded == tree and np.array_equal(loaded.apply(X), tree.apply(X))
    assert np.array_equal(loaded.parent, tree.parent) and np.array_equal(loaded.depth, tree.depth)


def test_pickle_from_before_missing_values_routes_nan_right(monkeypatch):
    tree = _tree()
    loaded = pickle.loads(_pickle_as_before(tree, monkeypatch, drop=("missing_go_to_left",)))
    assert not loaded.missing_go_to_left.any()
    # Row 2 misses feature 1: the root sent it left, the old format sends it right.
    assert tree.apply(X[2:3])[0] == 1 and loaded.apply(X[2:3])[0] == 4
    assert np.array_equal(loaded.apply(X[[0, 1, 3, 4]]), tree.apply(X[[0, 1, 3, 4]]))


def test_future_version_fails_naming_it(monkeypatch):
    tree = _tree()
    with monkeypatch.context() as m:
        m.setattr(Tree, "__getstate__", lambda self: {**self.__dict__, "_format_version": TREE_FORMAT_VERSION + 6})
        data = pickle.dumps(tree)
    with pytest.raises(ValueError, match=f"format version {TREE_FORMAT_VERSION + 6}"):
        pickle.loads(data)
    with monkeypatch.context() as m:
        m.setattr(Tree, "__getstate__", lambda self: {**self.__dict__, "_format_version": "two"})
        data = pickle.dumps(tree)
    with pytest.raises(ValueError, match="invalid format version"):
        pickle.loads(data)


def test_pickle_from_before_categorical_splits_is_all_numeric(monkeypatch):
    tree = _tree()
    data = _pickle_as_before(tree, monkeypatch, drop=("n_categories", "is_categorical", "category_bits"))
    loaded = pickle.loads(data)
    assert loaded == tree and not loaded.is_categorical.any() and not loaded.n_categories.any()
    assert np.array_equal(loaded.apply(X), tree.apply(X))
