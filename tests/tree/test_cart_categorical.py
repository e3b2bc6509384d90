"""Subset splits on categorical features in the CART builder and the shared Tree.

References: a plain-Python enumeration of every subset of levels at every
node (``_categorical_brute``), for classification (two classes: the ordered
scan of Breiman et al.'s theorem; three classes: the exhaustive search and,
beyond 12 levels, the class-share heuristic) and for the squared error
(Fisher's ordering by mean); the tree's own routing (counts returned by the
builder equal those of ``Tree.node_counts`` / ``node_moments``).
"""

import os
import pickle
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, os.path.dirname(__file__))
import _categorical_brute as brute

from prunus.tree import Tree, grow_cart
from prunus.tree._categorical_split import MAX_EXHAUSTIVE_LEVELS
from prunus.tree._tree import MAX_CATEGORIES

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def problems(draw, regression=False, max_levels=6, n_classes=None):
    """A table of 1-2 categorical features (level codes, some NaN) and 0-1 numeric one."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n = draw(st.integers(4, 40))
    n_cat = draw(st.integers(1, 2))
    n_num = draw(st.integers(0, 1))
    levels = [draw(st.integers(2, max_levels)) for _ in range(n_cat)]
    cols = [rng.integers(0, L, n).astype(float) for L in levels]
    cols += [rng.integers(0, 4, n).astype(float) for _ in range(n_num)]
    X = np.column_stack(cols)
    if draw(st.booleans()):
        X[rng.random(X.shape) < 0.15] = np.nan
    k = n_classes or draw(st.integers(2, 3))
    y = rng.normal(size=n).round(2) if regression else rng.integers(0, k, n)
    weighted = draw(st.sampled_from(["unit", "integer", "float"]))
    if weighted == "unit":
        w = np.ones(n)
    elif weighted == "integer":
        w = rng.integers(0, 3, n).astype(float)
    else:
        w = rng.uniform(0.1, 2.0, n)
    if not w.any():
        w[0] = 1.0
    stops = dict(
        max_depth=draw(st.sampled_from([None, 1, 2, 3])),
        min_samples_leaf=draw(st.sampled_from([1, 2, 3])),
        min_samples_split=draw(st.sampled_from([2, 4])),
    )
    mask = np.arange(X.shape[1]) < n_cat
    return X, y, w, mask, k, stops


def _check(problem, criterion):
    X, y, w, mask, k, stops = problem
    n_classes = None if criterion == "squared_error" else k
    tree, counts = grow_cart(
        X,
        y,
        criterion=criterion,
        sample_weight=w,
        categorical_features=mask,
        return_counts=True,
        n_classes=n_classes,
        **stops,
    )
    # The builder's routing of its rows is the tree's routing.
    if criterion == "squared_error":
        np.testing.assert_allclose(counts, tree.node_moments(X, y, w), rtol=1e-9, atol=1e-9)
    else:
        np.testing.assert_allclose(counts, tree.node_counts(X, y, w, n_classes=k), rtol=1e-12, atol=1e-12)
    brute.check_tree(tree, X, y, w, criterion=criterion, n_classes=k, **stops)
    return tree


@SETTINGS
@given(problems(n_classes=2), st.sampled_from(["gini", "entropy", "misclassification"]))
def test_two_classes_every_split_is_the_best_subset(problem, criterion):
    """Two classes: the ordered scan (m - 1 prefixes of the levels sorted by
    their share of class 1) finds the best of all 2^(m-1) - 1 partitions at
    every node (Breiman et al. 1984, theorem 4.5), weights, NaN and every
    stopping rule included."""
    _check(problem, criterion)


@SETTINGS
@given(problems(n_classes=3), st.sampled_from(["gini", "entropy"]))
def test_three_classes_every_split_is_the_best_subset(problem, criterion):
    """More classes: the exhaustive search over partitions (up to 12 levels)."""
    _check(problem, criterion)


@SETTINGS
@given(problems(regression=True))
def test_squared_error_every_split_is_the_best_subset(problem):
    """Least squares: the ordered scan by level means (Fisher 1958) is exact."""
    _check(problem, "squared_error")


def test_ordering_theorem_on_many_levels():
    """Two classes and 11 levels: the prefix scan (10 candidates per missing
    side) scores exactly the best of the 1023 partitions the enumeration tries."""
    rng = np.random.default_rng(3)
    for _trial in range(20):
        n = 200
        X = rng.integers(0, 11, (n, 1)).astype(float)
        X[rng.random(n) < 0.1, 0] = np.nan
        p = rng.random(11)
        codes = np.nan_to_num(X[:, 0], nan=0).astype(int)
        y = (rng.random(n) < p[codes]).astype(int)
        w = rng.uniform(0.5, 2.0, n)
        for criterion in ("gini", "entropy"):
            tree = grow_cart(X, y, criterion=criterion, sample_weight=w, categorical_features=[0], max_depth=1)
            brute.check_tree(tree, X, y, w, criterion=criterion, n_classes=2, max_depth=1)


def test_heuristic_beyond_the_exhaustive_limit():
    """Three classes and more present levels than the exhaustive search takes:
    a valid split, no better than the best partition, and the exact one when
    one class against the others is best."""
    rng = np.random.default_rng(0)
    L = MAX_EXHAUSTIVE_LEVELS + 2
    X = np.arange(L, dtype=float).repeat(6)[:, None]
    y = np.where(X[:, 0] % 3 == 0, 2, rng.integers(0, 2, X.shape[0]))
    tree = grow_cart(X, y, categorical_features=[0], max_depth=1)
    assert tree.is_categorical[0]
    left = set(tree.left_categories(0).tolist())
    class2 = {c for c in range(L) if c % 3 == 0}
    assert left == class2 or left == set(range(L)) - class2


def test_exhaustive_limit_is_where_the_search_changes():
    """Up to the limit, three classes get the best partition even where no
    ordering by one class's share gives it."""
    # Levels 0, 1 are class 0 / 1 mixes and 2, 3 their mirror: the best
    # partition {0, 3} | {1, 2} is not a prefix of any one-class ordering.
    X = np.array([0] * 4 + [1] * 4 + [2] * 4 + [3] * 4, dtype=float)[:, None]
    y = np.array([0, 0, 0, 2] + [1, 1, 1, 2] + [1, 1, 1, 0] + [0, 0, 0, 1])
    w = np.ones(16)
    tree = grow_cart(X, y, categorical_features=[0], max_depth=1)
    brute.check_tree(tree, X, y, w, criterion="gini", n_classes=3, max_depth=1)


# ----------------------------------------------------------------- routing
def _small_tree():
    X = np.array([[0.0], [1.0], [2.0], [3.0], [0.0], [1.0], [2.0], [3.0], [np.nan]])
    y = np.array([0, 1, 0, 1, 0, 1, 0, 1, 1])
    return X, y, grow_cart(X, y, categorical_features=[0], max_depth=1)


def test_unknown_codes_follow_missing_values():
    X, y, tree = _small_tree()
    assert tree.is_categorical[0] and np.isnan(tree.threshold[0])
    np.testing.assert_array_equal(tree.left_categories(0), [0, 2])
    missing_leaf = tree.apply(np.array([[np.nan]]))[0]
    for unknown in (4.0, 7.0, -1.0, 1.5, 1e300):
        assert tree.apply(np.array([[unknown]]))[0] == missing_leaf


def test_levels_absent_from_a_node_go_with_its_missing_values():
    """Level 4 is known to the feature (5 levels) but absent at the node: it
    goes where the node sends missing values."""
    X = np.array([[0.0], [1.0], [0.0], [1.0], [4.0]])
    y = np.array([0, 1, 0, 1, 1])
    tree = grow_cart(X[:4], y[:4], categorical_features=np.array([True]), max_depth=1)
    assert tree.n_categories[0] == 2
    tree5 = grow_cart(X, y, categorical_features=[0], max_depth=2)
    assert tree5.n_categories[0] == 5
    t = Tree(
        tree.children_left,
        tree.children_right,
        tree.feature,
        tree.threshold,
        1,
        tree.missing_go_to_left,
        n_categories=[5],
        category_bits=tree.category_bits,
    )
    assert t.apply(np.array([[4.0]]))[0] == t.apply(np.array([[np.nan]]))[0]


def test_pickle_and_old_pickles():
    X, y, tree = _small_tree()
    again = pickle.loads(pickle.dumps(tree))
    assert again == tree
    np.testing.assert_array_equal(again.apply(X), tree.apply(X))
    # A state without the categorical fields (a tree saved before them) loads as all numeric.
    numeric = grow_cart(np.arange(6.0)[:, None], [0, 0, 0, 1, 1, 1])
    state = dict(numeric.__dict__)
    for name in ("n_categories", "is_categorical", "category_bits"):
        state.pop(name)
    old = Tree.__new__(Tree)
    old.__setstate__(state)
    assert old == numeric and not old.is_categorical.any()


def test_subtree_and_equality_keep_category_sets():
    X, y, tree = _small_tree()
    same, index = tree.subtree(np.ones(tree.n_nodes, dtype=bool), return_index=True)
    assert same == tree
    other = Tree(
        tree.children_left,
        tree.children_right,
        tree.feature,
        tree.threshold,
        1,
        tree.missing_go_to_left,
        n_categories=tree.n_categories,
        category_bits=tree.category_bits ^ np.uint64(2),
    )
    assert other != tree


def test_export_names_levels():
    X, y, tree = _small_tree()
    text = tree.export_text(feature_names=["colour"], categories=[np.array(["red", "blue", "green", "grey"])])
    assert "colour in {red, green}" in text
    assert "colour in {blue, grey}" in text
    assert "or missing" in text
    assert "x[0] in {0, 2}" in tree.export_text()
    assert "colour in {red, green}" in tree.to_dot(
        feature_names=["colour"], categories=[["red", "blue", "green", "grey"]]
    )


def test_tree_checks_its_category_arrays():
    X, y, tree = _small_tree()
    args = (tree.children_left, tree.children_right, tree.feature, tree.threshold, 1, tree.missing_go_to_left)
    with pytest.raises(ValueError, match="category_bits"):
        Tree(*args, n_categories=[4])
    with pytest.raises(ValueError, match="n_categories"):
        Tree(*args, n_categories=[MAX_CATEGORIES + 1], category_bits=np.zeros((tree.n_nodes, 20), np.uint64))
    with pytest.raises(ValueError, match="category_bits"):
        Tree(*args, n_categories=[100], category_bits=tree.category_bits)


def test_numeric_features_are_untouched_by_a_categorical_one():
    """Adding a categorical column that never wins leaves the numeric splits as they were."""
    rng = np.random.default_rng(1)
    Xn = rng.normal(size=(120, 3))
    y = (Xn[:, 0] > 0).astype(int) + (Xn[:, 1] > 0.5)
    plain = grow_cart(Xn, y)
    X = np.column_stack([Xn, np.zeros(120)])  # constant categorical column: never split
    mixed = grow_cart(X, y, categorical_features=[3])
    np.testing.assert_array_equal(plain.feature, mixed.feature)
    np.testing.assert_array_equal(plain.threshold, mixed.threshold)


def test_grow_cart_refuses_values_that_are_not_codes():
    X = np.array([[0.0], [1.5], [2.0]])
    with pytest.raises(ValueError, match="categorical_features"):
        grow_cart(X, [0, 1, 0], categorical_features=[0])
    with pytest.raises(ValueError, match="categorical_features"):
        grow_cart(-X, [0, 1, 0], categorical_features=[0])


def test_random_splitter_draws_valid_subsets():
    from prunus.tree.cart import CARTGrower, GrowthParams

    rng = np.random.default_rng(0)
    X = rng.integers(0, 6, (200, 2)).astype(float)
    X[::9, 0] = np.nan
    y = rng.integers(0, 2, 200)
    grower = CARTGrower(X, y, n_categories=[6, 6])
    params = GrowthParams("gini", None, 2, 1, 0.0, None, None, "random")
    tree, counts = grower.grow(params, np.ones(200), seed=3)
    assert tree.is_categorical.any()
    np.testing.assert_allclose(counts, tree.node_counts(X, y), rtol=1e-12)
