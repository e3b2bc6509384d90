"""Features with few distinct values are split from per-node tables of class
weights per value (``prunus.tree._level_split``): the trees must be those of
the presorted search, candidate for candidate, wherever the class weights are
exact (integer or dyadic sample weights)."""

import pickle

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import prunus.tree.cart as cart_module
from prunus.tree._level_split import CATEGORICAL_TABLE, PRESORTED, level_codes
from prunus.tree.cart import CARTGrower, GrowthParams

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _grow(X, y, n_categories, params, weight, max_levels):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(cart_module, "MAX_TABLE_LEVELS", max_levels)
        patch.setattr(cart_module, "SURROGATE_TABLES_FROM_ROWS", 0)
        return CARTGrower(X, y, n_categories=n_categories).grow(params, weight, 3)


def _assert_same(a, b):
    (tree_a, counts_a), (tree_b, counts_b) = a, b
    for name in ("children_left", "children_right", "feature", "threshold", "missing_go_to_left", "category_bits"):
        np.testing.assert_array_equal(getattr(tree_a, name), getattr(tree_b, name), err_msg=name)
    np.testing.assert_array_equal(counts_a, counts_b)


@st.composite
def tables(draw):
    """A small table of few-level numeric features (some with missing
    values), optionally a continuous and a categorical one, and labels."""
    n = draw(st.integers(2, 60))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    n_few = draw(st.integers(1, 4))
    columns = []
    for _ in range(n_few):
        n_values = draw(st.integers(1, 6))
        values = np.sort(rng.choice([-3.0, -0.5, 0.0, 0.25, 1.0, 2.0, 7.5, 1e300], n_values, replace=False))
        columns.append(values[rng.integers(0, n_values, n)])
    n_categories = [0] * n_few
    if draw(st.booleans()):
        columns.append(rng.normal(size=n))
        n_categories.append(0)
    if draw(st.booleans()):
        n_levels = draw(st.integers(1, 7))
        columns.append(rng.integers(0, n_levels, n).astype(float))
        n_categories.append(n_levels)
    X = np.column_stack(columns)
    missing = draw(st.sampled_from([0.0, 0.2, 0.5]))
    X[rng.random(X.shape) < missing] = np.nan
    n_classes = draw(st.integers(2, 4))
    y = rng.integers(0, n_classes, n)
    weights = draw(st.sampled_from(["unit", "integer", "dyadic"]))
    if weights == "unit":
        weight = np.ones(n)
    elif weights == "integer":
        weight = rng.integers(0, 4, n).astype(float)
    else:
        weight = rng.choice([0.0, 0.5, 1.0, 2.25], n)
    if not weight.any():
        weight[0] = 1.0
    params = GrowthParams(
        draw(st.sampled_from(["gini", "entropy", "misclassification"])),
        draw(st.sampled_from([None, 1, 3])),
        draw(st.sampled_from([2, 5])),
        draw(st.sampled_from([1, 2, 4])),
        0.0,
        None,
        draw(st.sampled_from([None, 4])),
    )
    return X, y, np.array(n_categories), params, weight


@SETTINGS
@given(tables())
def test_tables_grow_the_presorted_tree(problem):
    X, y, n_categories, params, weight = problem
    presorted = _grow(X, y, n_categories, params, weight, -1)
    for max_levels in (3, 32):  # some few-level features presorted, or none
        _assert_same(_grow(X, y, n_categories, params, weight, max_levels), presorted)


@pytest.mark.parametrize("n_classes", [2, 3, 5])
def test_larger_trees_with_subtracted_tables(n_classes):
    """Deep trees whose children's tables are their parent's less their
    sibling's (integer weights), on binary, small-integer and categorical
    features with missing values."""
    rng = np.random.default_rng(n_classes)
    n = 3000
    X = np.column_stack(
        [rng.integers(0, 2, (n, 8)), rng.integers(0, 9, (n, 6)), rng.integers(0, 12, (n, 1)), rng.normal(size=(n, 1))]
    ).astype(float)
    X[rng.random(X.shape) < 0.05] = np.nan
    y = (np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 9]) + rng.integers(0, 3, n)).astype(int) % n_classes
    n_categories = np.array([0] * 14 + [12, 0])
    weight = rng.integers(0, 3, n).astype(float)
    for criterion in ("gini", "entropy"):
        params = GrowthParams(criterion, None, 2, 1, 0.0, None, None)
        presorted = _grow(X, y, n_categories, params, weight, -1)
        tables = _grow(X, y, n_categories, params, weight, 32)
        assert presorted[0].children_left.shape[0] > 200
        _assert_same(tables, presorted)


def test_level_codes_rank_the_distinct_values():
    rng = np.random.default_rng(0)
    n = 200
    X = np.column_stack(
        [
            rng.integers(0, 4, n) * 1.5,  # 4 values
            rng.normal(size=n),  # n values: presorted
            rng.integers(0, 3, n),  # categorical, 3 levels
            rng.integers(0, 6, n) - 2.0,  # 6 values, with missing ones below
        ]
    ).astype(float)
    X[rng.random(n) < 0.2, 3] = np.nan
    grower = CARTGrower(X, rng.integers(0, 2, n), n_categories=[0, 0, 3, 0])
    slot, codes, values, n_levels = level_codes(grower._columns, grower.order, grower.n_categories, 5)
    np.testing.assert_array_equal(slot, [0, PRESORTED, 1, PRESORTED])  # feature 3 has 6 > 5 values
    slot, codes, values, n_levels = level_codes(grower._columns, grower.order, grower.n_categories, 6)
    np.testing.assert_array_equal(slot, [0, PRESORTED, 1, 2])
    np.testing.assert_array_equal(n_levels, [4, 3, 6])
    for f, s in ((0, 0), (3, 2)):
        distinct = np.unique(X[~np.isnan(X[:, f]), f])
        np.testing.assert_array_equal(values[s, : n_levels[s]], distinct)
        present = ~np.isnan(X[:, f])
        np.testing.assert_array_equal(codes[present, s], np.searchsorted(distinct, X[present, f]))
        assert np.all(codes[~present, s] == n_levels[s])
    np.testing.assert_array_equal(codes[:, 1], X[:, 2])
    many = CARTGrower(np.arange(10.0)[:, None] % 3, np.arange(10) % 2, n_categories=[300])
    assert level_codes(many._columns, many.order, many.n_categories, 32)[0][0] == CATEGORICAL_TABLE


def test_drawn_features_keep_the_presorted_search():
    """Trees drawing features per node (forests) keep the presorted search,
    whose lists of features their draws depend on."""
    rng = np.random.default_rng(1)
    X = rng.integers(0, 3, (300, 6)).astype(float)
    y = rng.integers(0, 2, 300)
    grower = CARTGrower(X, y)
    params = GrowthParams("gini", None, 2, 1, 0.0, 2, None)
    settings_ = cart_module._settings(params, 300, 6, 2, 0)
    assert grower._level_tables(settings_) is None
    settings_ = cart_module._settings(params._replace(max_features=None), 300, 6, 2, 0)
    assert grower._level_tables(settings_) is not None


def test_surrogate_growths_search_only_categorical_features_from_tables():
    """A growth that finds surrogate splits (missing values, ``max_surrogates``)
    reads every numeric feature's sorted segment: it searches numeric
    features presorted, whatever their numbers of values, and categorical
    ones from tables (on integer weights), with the presorted search's trees
    and surrogates."""
    rng = np.random.default_rng(4)
    X = rng.integers(0, 4, (400, 5)).astype(float)
    y = (X[:, 0] + X[:, 1] > 3).astype(int)
    X[rng.random(X.shape) < 0.15] = np.nan
    n_categories = np.array([0, 4, 0, 4, 0])
    params = GrowthParams("gini", None, 2, 1, 0.0, None, None, "best", 3)
    weight = np.ones(400)
    grower = CARTGrower(X, y, n_categories=n_categories)
    settings_ = cart_module._settings(params, 400, 5, 2, 0)
    slot = grower._level_tables(settings_, categorical_only=True)[0]
    np.testing.assert_array_equal(slot, [PRESORTED, 0, PRESORTED, 1, PRESORTED])
    # Fewer rows: presorted.
    n = cart_module.SURROGATE_TABLES_FROM_ROWS - 1
    assert CARTGrower(X[:n], y[:n], n_categories=n_categories)._level_tables(settings_, True) is None
    grown = [_grow(X, y, n_categories, params, weight, levels) for levels in (-1, 64)]
    _assert_same(*grown)
    assert grown[0][0].surrogates is not None
    assert pickle.dumps(grown[0][0].surrogates) == pickle.dumps(grown[1][0].surrogates)


@SETTINGS
@given(tables(), st.sampled_from([1, 5]))
def test_surrogate_growths_with_tables_grow_the_presorted_tree(problem, max_surrogates):
    """Categorical features searched from tables in a growth with surrogate
    splits (each candidate scored on the rows where its feature is present):
    the presorted search's tree, surrogates and routing of missing values."""
    X, y, n_categories, params, weight = problem
    params = params._replace(max_surrogates=max_surrogates)
    presorted = _grow(X, y, n_categories, params, weight, -1)
    tables = _grow(X, y, n_categories, params, weight, 32)
    _assert_same(tables, presorted)
    assert pickle.dumps(tables[0].surrogates) == pickle.dumps(presorted[0].surrogates)
