"""Surrogate splits against a plain-Python reference of rpart's definition.

The reference (``_surrogate_reference``) recomputes, for random labellings
of a node's rows and for every node of grown trees, the surrogates (feature,
threshold or level sets, direction, agreement, adjusted agreement, order)
and routes rows by primary split, surrogates and last resort. Weights are
integers (zeros included) so that every agreement is an exact sum and ties
are exact ties; float weights are compared to a relative 1e-12.
"""

import os
import pickle
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, os.path.dirname(__file__))
import _surrogate_reference as ref

from prunus.tree import Tree
from prunus.tree._surrogate import empty_store, node_surrogates
from prunus.tree.cart import CARTGrower, GrowthParams

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def tables(draw, max_rows=40):
    """1-4 features (numeric with ties, or categorical with 2-5 levels), some NaN, weights."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n = draw(st.integers(4, max_rows))
    d = draw(st.integers(2, 4))
    n_cat = np.array([draw(st.sampled_from([0, 0, 2, 3, 5])) for _ in range(d)], dtype=np.int64)
    cols = []
    for L in n_cat:
        if L:
            cols.append(rng.integers(0, L, n).astype(float))
        else:
            cols.append(rng.integers(0, draw(st.sampled_from([3, 6, 20])), n).astype(float) / 2.0)
    X = np.column_stack(cols)
    # A copy of feature 0 with noise makes good surrogates likely.
    if d > 2 and n_cat[0] == 0 and n_cat[1] == 0 and draw(st.booleans()):
        X[:, 1] = X[:, 0] + rng.integers(-1, 2, n) * (rng.random(n) < 0.3)
    X[rng.random(X.shape) < draw(st.sampled_from([0.0, 0.1, 0.3]))] = np.nan
    weighting = draw(st.sampled_from(["unit", "integer", "float"]))
    if weighting == "unit":
        w = np.ones(n)
    elif weighting == "integer":
        w = rng.integers(0, 4, n).astype(float)
    else:
        w = rng.uniform(0.1, 2.0, n)
    if not w.any():
        w[0] = 1.0
    return X, n_cat, w, rng, weighting == "float"


def _check_same(got, want, exact, where):
    assert got.feature.tolist() == [e["feature"] for e in want], where
    for q, e in enumerate(want):
        if e["threshold"] is None:
            assert np.isnan(got.threshold[q]), where
            assert ref._levels(got.category_bits[q]) == e["left"], where
            assert ref._levels(got.known_bits[q]) == e["known"], where
        else:
            assert got.threshold[q] == e["threshold"], where
            assert bool(got.left_below[q]) == e["left_below"], where
        if exact:
            assert got.agreement[q] == e["agreement"], where
            assert got.adj[q] == e["adj"], where
        else:
            np.testing.assert_allclose(got.agreement[q], e["agreement"], rtol=1e-12, err_msg=where)
            np.testing.assert_allclose(got.adj[q], e["adj"], rtol=1e-12, atol=1e-15, err_msg=where)


@SETTINGS
@given(tables(), st.integers(0, 4))
def test_node_kernel_matches_reference(table, max_surrogates):
    """One node, a random primary labelling (left / right / missing) of its rows."""
    X, n_cat, w, rng, float_weights = table
    n, d = X.shape
    rows = np.flatnonzero(w > 0).astype(np.int32)
    side = rng.choice(np.array([1, -1, 0], dtype=np.int8), size=n, p=[0.4, 0.4, 0.2])
    primary = int(rng.integers(0, d))
    n_words = 1 if n_cat.any() else 0
    store = empty_store(n, 1, max_surrogates, n_words)
    node_surrogates(np.ascontiguousarray(X.T), n_cat, w, rows, side, primary, store, 0)
    want = ref.surrogates(X, n_cat, w, rows.tolist(), side, primary, max_surrogates)
    k = int(store.n_found[0])
    from prunus.tree._surrogate import SurrogateSplits

    got = SurrogateSplits(
        np.array([0, k]),
        store.feature[0, :k],
        np.where(n_cat[store.feature[0, :k]] > 0, np.nan, store.threshold[0, :k]),
        store.left_below[0, :k],
        store.bits[0, :k].view(np.uint64),
        store.known[0, :k].view(np.uint64),
        store.agreement[0, :k],
        store.adj[0, :k],
    )
    _check_same(got, want, not float_weights, "node kernel")


def _grow(X, y, w, n_cat, max_surrogates=5, **stops):
    grower = CARTGrower(X, y, n_categories=n_cat)
    params = GrowthParams(
        "gini",
        stops.get("max_depth"),
        stops.get("min_samples_split", 2),
        stops.get("min_samples_leaf", 1),
        0.0,
        None,
        None,
        "best",
        max_surrogates,
    )
    return grower.grow(params, w)


@SETTINGS
@given(
    tables(),
    st.integers(1, 5),
    st.sampled_from([None, 2, 3]),
    st.sampled_from([1, 2]),
)
def test_every_node_of_a_grown_tree_matches_reference(table, max_surrogates, max_depth, min_samples_leaf):
    X, n_cat, w, rng, float_weights = table
    if not np.isnan(X[w > 0]).any():
        X[np.argmax(w), 0] = np.nan  # surrogates are found only when a row of the growth misses a value
    y = rng.integers(0, 2, X.shape[0])
    tree, counts = _grow(X, y, w, n_cat, max_surrogates, max_depth=max_depth, min_samples_leaf=min_samples_leaf)
    rows = np.flatnonzero(w > 0).tolist()
    members = ref.node_rows(tree, X, rows)
    for node in np.flatnonzero(~tree.is_leaf):
        f = tree.feature[node]
        side = np.zeros(X.shape[0], dtype=np.int8)
        for r in members[node]:
            side[r] = ref.primary_side(tree, node, X[r, f])
        want = ref.surrogates(X, n_cat, w, members[node], side, f, max_surrogates)
        _check_same(tree.node_surrogates(node), want, not float_weights, f"node {node}")
        # The last resort: the primary's majority side by weight.
        wl = sum(w[r] for r in members[node] if side[r] == 1)
        wr = sum(w[r] for r in members[node] if side[r] == -1)
        if wl > 0 and wr > 0 and wl != wr:
            assert bool(tree.missing_go_to_left[node]) == (wl > wr), f"node {node}"
    # The builder routed its rows as apply does.
    np.testing.assert_allclose(tree.node_counts(X, y, w, n_classes=counts.shape[1]), counts, rtol=1e-12)
    # Routing of new rows (missing values, unseen levels) by the reference router.
    Z = X[rng.integers(0, X.shape[0], 30)].copy()
    Z[rng.random(Z.shape) < 0.4] = np.nan
    Z[rng.random(Z.shape) < 0.1] = 9.0
    assert tree.apply(Z).tolist() == [ref.route(tree, z) for z in Z]
    assert tree.apply(X).tolist() == [ref.route(tree, x) for x in X]


def _table(seed=0, n=300, missing=0.2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    X[:, 1] = X[:, 0] + 0.3 * rng.normal(size=n)
    X[:, 3] = rng.integers(0, 4, n) + (X[:, 0] > 0.5)
    y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int)
    X[rng.random(X.shape) < missing] = np.nan
    return X, y, np.array([0, 0, 0, 5])


def test_surrogates_found_on_correlated_feature():
    X, y, n_cat = _table()
    tree, _ = _grow(X, y, np.ones(len(y)), n_cat, max_depth=3)
    root = tree.node_surrogates(0)
    assert tree.feature[0] in (0, 1)
    assert root.feature[0] == 1 - tree.feature[0]
    assert root.adj[0] > 0.3
    assert np.all(np.diff(root.agreement) <= 0)


def test_complete_data_grows_no_surrogates_and_same_tree():
    X, y, n_cat = _table(missing=0.0)
    with_, _ = _grow(X, y, np.ones(len(y)), n_cat, 5)
    without, _ = _grow(X, y, np.ones(len(y)), n_cat, 0)
    assert not with_.has_surrogates
    assert with_ == without


def test_max_surrogates_zero_is_learned_side():
    X, y, n_cat = _table()
    tree, _ = _grow(X, y, np.ones(len(y)), n_cat, 0)
    assert not tree.has_surrogates
    assert tree.surrogates is None


def test_pickle_prune_and_equality_keep_surrogates():
    X, y, n_cat = _table()
    tree, _ = _grow(X, y, np.ones(len(y)), n_cat, 3)
    assert tree.has_surrogates
    again = pickle.loads(pickle.dumps(tree))
    assert again == tree
    assert again.apply(X).tolist() == tree.apply(X).tolist()
    # Pruned: the kept splits keep their surrogates, new leaves have none.
    internal = np.flatnonzero(~tree.is_leaf)
    pruned, index = tree.prune([internal[1]], return_index=True)
    for new, old in enumerate(index):
        got = pruned.node_surrogates(new)
        if pruned.is_leaf[new]:
            assert got.feature.shape[0] == 0
        else:
            want = tree.node_surrogates(old)
            assert got.feature.tolist() == want.feature.tolist()
            assert np.array_equal(got.threshold, want.threshold, equal_nan=True)
    assert pruned.apply(X).tolist() == [ref.route(pruned, x) for x in X]
    # Differently routed trees are not equal.
    other = pickle.loads(pickle.dumps(tree))
    other.surrogates.adj[0] += 1.0
    assert other != tree


def test_tree_pickled_before_surrogates_loads_without_them():
    X, y, n_cat = _table()
    tree, _ = _grow(X, y, np.ones(len(y)), n_cat, 0)
    state = tree.__getstate__()
    state.pop("surrogates")
    state["_format_version"] = 1
    old = Tree.__new__(Tree)
    old.__setstate__(state)
    assert old.surrogates is None and old == tree
    assert old.apply(X).tolist() == tree.apply(X).tolist()


def test_tree_checks_surrogate_tables():
    X, y, n_cat = _table()
    tree, _ = _grow(X, y, np.ones(len(y)), n_cat, 2)
    s = tree.surrogates
    args = (tree.children_left, tree.children_right, tree.feature, tree.threshold, tree.n_features)
    kw = dict(
        missing_go_to_left=tree.missing_go_to_left, n_categories=tree.n_categories, category_bits=tree.category_bits
    )
    assert Tree(*args, **kw, surrogates=s) == tree
    with pytest.raises(ValueError, match="offsets"):
        Tree(*args, **kw, surrogates=s._replace(offsets=s.offsets[:-1]))
    bad = s.feature.copy()
    bad[0] = tree.feature[0]
    with pytest.raises(ValueError, match="other than the node's split feature"):
        Tree(*args, **kw, surrogates=s._replace(feature=bad))
    with pytest.raises(TypeError, match="SurrogateSplits"):
        Tree(*args, **kw, surrogates=(1, 2))


@pytest.mark.parametrize("below_left", [True, False])
def test_equal_agreements_keep_the_first_cut(below_left):
    """Two cuts agree equally (a row of unknown primary side lies between them): the first is kept,
    in either direction, and "below goes right" is preferred at the same cut only if strictly better."""
    x = np.array([0.0, 1.0, 2.0, 2.5, 3.0, 4.0, 5.0])
    low = 1 if below_left else -1
    side = np.array([low, low, low, 0, -low, -low, -low], dtype=np.int8)
    X = np.column_stack([np.zeros(7), x])
    store = empty_store(7, 1, 1, 0)
    node_surrogates(
        np.ascontiguousarray(X.T),
        np.zeros(2, dtype=np.int64),
        np.ones(7),
        np.arange(7, dtype=np.int32),
        side,
        0,
        store,
        0,
    )
    assert store.feature[0, 0] == 1
    assert store.threshold[0, 0] == 2.25
    assert bool(store.left_below[0, 0]) == below_left
    assert store.agreement[0, 0] == 1.0 and store.adj[0, 0] == 1.0


@SETTINGS
@given(
    st.integers(0, 2**32 - 1),
    st.integers(1, 130),
    st.integers(1, 60),
    st.sampled_from(["unit", "integer", "float"]),
)
def test_categorical_candidate_matches_reference(seed, n_levels, n_rows, weighting):
    """One categorical candidate on a node of a few rows or of many (below
    and above half the levels: the search reads only the levels met, or
    every level), levels in up to three bitset words, a scratch table left
    dirty by an earlier call."""
    from prunus.tree._surrogate import categorical_candidate

    rng = np.random.default_rng(seed)
    n = 200
    x = rng.integers(0, n_levels, n).astype(float)
    x[rng.random(n) < 0.15] = np.nan
    w = {"unit": np.ones(n), "integer": rng.integers(0, 4, n).astype(float), "float": rng.uniform(0.0, 2.0, n)}[
        weighting
    ]
    side = rng.choice(np.array([1, -1, 0], dtype=np.int8), size=n, p=[0.45, 0.45, 0.1])
    n_words = -(-n_levels // 64)
    sets = np.zeros((2, n_words), dtype=np.int64)
    table = rng.uniform(-5.0, 5.0, 4 * 64 * n_words)  # scratch as another call may leave it
    for rows in (np.sort(rng.choice(n, n_rows, replace=False)), np.arange(n)):
        rows = rows.astype(np.int32)
        found, agree = categorical_candidate(x, w, rows, side, n_levels, sets, table)
        want = ref.categorical(x, w, rows.tolist(), side, n_levels)
        assert found == (want is not None)
        if want is None:
            continue
        if weighting == "float":
            np.testing.assert_allclose(agree, want[0], rtol=1e-12)
        else:
            assert agree == want[0]
        assert ref._levels(sets[0].view(np.uint64)) == want[1]
        assert ref._levels(sets[1].view(np.uint64)) == want[2]
