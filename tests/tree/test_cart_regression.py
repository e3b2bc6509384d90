"""Tests of the least-squares CART builder (``grow_cart(criterion="squared_error")``).

References:

* a plain-Python brute force (``_cart_brute_regression``) enumerating every
  (feature, threshold, missing side) candidate of every node, scored in exact
  rational arithmetic, so ties are genuine ties and the tie rule (lowest
  feature, then lowest threshold, then missing values right) is checked on
  data full of them;
* scikit-learn's ``DecisionTreeRegressor`` on float32-representable data
  without tied or nearly tied gains, node for node;
* exact identities: y multiplied by a power of two multiplies every node
  mean by it exactly; y shifted by 1e9 leaves the tree unchanged where no
  two gains are close.
"""

import os
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from sklearn.tree import DecisionTreeRegressor

sys.path.insert(0, os.path.dirname(__file__))
import _cart_brute as cbrute
import _cart_brute_regression as brute

from prunus.tree import Tree, grow_cart
from prunus.tree.cart import CARTGrower, GrowthParams

SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SMALL_X = [-1.0, -0.5, 0.0, 0.25, 0.5, 1.0, 2.0]
SMALL_Y = [-2.0, -0.75, 0.0, 0.5, 1.0, 1.25, 3.0, 8.0]
WEIGHTS = [0.0, 0.25, 0.5, 1.0, 1.0, 1.0, 2.0, 3.0]


def grow(X, y, w=None, **kw):
    return grow_cart(X, y, criterion="squared_error", sample_weight=w, return_counts=True, **kw)


def assert_same_tree(got, want, counts=None, msg="", rtol=1e-12):
    for name in ("children_left", "children_right", "feature", "missing_go_to_left"):
        np.testing.assert_array_equal(np.asarray(getattr(got, name)), want[name], err_msg=f"{msg} {name}")
    np.testing.assert_array_equal(got.threshold, want["threshold"], err_msg=f"{msg} threshold")
    if counts is not None:
        scale = max(1.0, float(np.abs(want["counts"][:, 1]).max()))
        np.testing.assert_allclose(counts[:, 0], want["counts"][:, 0], rtol=rtol, err_msg=f"{msg} weight")
        np.testing.assert_allclose(counts[:, 1], want["counts"][:, 1], rtol=rtol, atol=rtol * scale, err_msg=msg)
        ss_scale = max(1.0, float(want["counts"][0, 2]))
        np.testing.assert_allclose(counts[:, 2], want["counts"][:, 2], rtol=1e-9, atol=1e-9 * ss_scale, err_msg=msg)


@st.composite
def tied_data(draw, max_n=30, max_d=3):
    """Small data from small sets of dyadic values (many ties), dyadic / integer weights with zeros, NaNs."""
    n = draw(st.integers(2, max_n))
    d = draw(st.integers(1, max_d))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    X = rng.choice(np.array(SMALL_X[: draw(st.integers(2, len(SMALL_X)))]), size=(n, d))
    if draw(st.booleans()):
        X[rng.random((n, d)) < draw(st.sampled_from([0.1, 0.3]))] = np.nan
    y = rng.choice(np.array(SMALL_Y[: draw(st.integers(2, len(SMALL_Y)))]), size=n)
    w = None
    if draw(st.booleans()):
        w = rng.choice(WEIGHTS, size=n)
        w[0] = 1.0
    return X, y, w


@st.composite
def stopping(draw):
    return dict(
        max_depth=draw(st.sampled_from([None, None, 1, 2, 3])),
        min_samples_leaf=draw(st.sampled_from([1, 1, 2, 3])),
        min_samples_split=draw(st.sampled_from([2, 2, 3, 5])),
    )


# ======================================================== brute force
@SETTINGS
@given(data=tied_data(), stop=stopping(), mid=st.sampled_from([0.0, 0.0, 0.01, 0.1]))
def test_equals_brute_force_node_for_node(data, stop, mid):
    X, y, w = data
    try:
        want = brute.grow_brute(X, y, w, min_impurity_decrease=mid, **stop)
    except cbrute.Ambiguous:
        assume(False)
    tree, counts = grow(X, y, w, min_impurity_decrease=mid, **stop)
    assert isinstance(tree, Tree)
    assert_same_tree(tree, want, counts, msg=f"{stop} mid={mid}")


@SETTINGS
@given(data=tied_data(), stop=stopping())
def test_every_split_is_best_and_every_leaf_is_blocked(data, stop):
    """Local check of each node on the rows that reach it in the builder's own tree."""
    X, y, w = data
    tree, _ = grow(X, y, w, **stop)
    w_full = np.ones(X.shape[0]) if w is None else np.asarray(w, dtype=np.float64)
    arrays = cbrute.arrays_of(tree)
    for node, rows in enumerate(cbrute.rows_per_node(arrays, X, np.flatnonzero(w_full > 0))):
        try:
            best = brute.best_split(X, y, w_full, rows, stop["min_samples_leaf"])
        except cbrute.Ambiguous:
            continue
        pure = len({float(v) for v in y[rows]}) <= 1
        blocked = (
            pure
            or (stop["max_depth"] is not None and tree.depth[node] >= stop["max_depth"])
            or rows.size < max(stop["min_samples_split"], 2 * stop["min_samples_leaf"])
            or best is None
        )
        if tree.children_left[node] == -1:
            assert blocked, f"leaf {node} could be split by {best.key}"
            continue
        assert not blocked, f"node {node} is split but a stopping rule holds"
        key = (tree.feature[node], tree.threshold[node])
        assert key == (best.feature, best.threshold), f"node {node}: not the best split under the tie rule"
        if best.node_has_nan:
            assert tree.missing_go_to_left[node] == best.missing_left, f"node {node}: missing side"
        else:
            assert tree.missing_go_to_left[node] == (best.left.size > best.right.size), f"node {node}: larger child"


def test_brute_force_tie_rule_by_hand():
    # Features 0 and 1 make the same partition: the lowest feature wins; then
    # the lowest threshold between equal gains (y symmetric about the middle).
    X = np.array([[0.0, 5.0], [1.0, 6.0], [2.0, 7.0], [3.0, 8.0]])
    y = np.array([0.0, 1.0, 1.0, 0.0])
    tree = grow_cart(X, y, criterion="squared_error", max_depth=1)
    assert tree.feature[0] == 0 and tree.threshold[0] == 0.5
    want = brute.grow_brute(X, y, max_depth=1)
    assert want["feature"][0] == 0 and want["threshold"][0] == 0.5


def test_every_max_leaf_tree_is_best_first():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = X[:, 0] + 0.1 * rng.normal(size=200)
    full, counts = grow(X, y, max_depth=3)
    for k in (2, 4, 8):
        tree = grow_cart(X, y, criterion="squared_error", max_leaf_nodes=k)
        assert tree.n_leaves == min(k, full.n_leaves)


# ====================================================== scikit-learn
def separated_data(seed, nan_rate=0.0):
    """Float32-exact X with distinct values, continuous y and weights: no tied gains."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 80))
    d = int(rng.integers(1, 4))
    X = np.stack([rng.choice(8 * n, size=n, replace=False) * 0.25 - n for _ in range(d)], axis=1)
    if nan_rate:
        X[rng.random((n, d)) < nan_rate] = np.nan
    y = np.nan_to_num(X[:, 0], nan=0.0) / n + rng.normal(0, 1.0, n)
    w = rng.uniform(0.5, 2.0, n)
    params = dict(
        max_depth=[None, 2, 4][int(rng.integers(0, 3))],
        min_samples_leaf=[1, 2, 3, 5][int(rng.integers(0, 4))],
        min_samples_split=[2, 4, 10][int(rng.integers(0, 3))],
        min_impurity_decrease=[0.0, 0.0, 0.003, 0.02][int(rng.integers(0, 4))],
    )
    return X, y, w, params


def sklearn_cases(nan_rate, n_seeds=30):
    out = []
    for seed in range(n_seeds):
        X, y, w, params = separated_data(seed, nan_rate)
        try:
            want = brute.grow_brute(X, y, w, strict=True, margin=1e-9, **params)
        except cbrute.Ambiguous:
            continue
        out.append((seed, X, y, w, params, want))
    assert len(out) >= n_seeds // 3, f"only {len(out)} of {n_seeds} seeds are free of ties"
    return out


def sklearn_arrays(reg):
    arrays = cbrute.arrays_of(reg.tree_)
    arrays["weight"] = reg.tree_.weighted_n_node_samples
    arrays["mean"] = reg.tree_.value[:, 0, 0]
    return arrays


@pytest.mark.parametrize("nan_rate", [0.0, 0.15])
def test_equals_sklearn_and_brute_force_without_ties(nan_rate):
    for seed, X, y, w, params, want in sklearn_cases(nan_rate):
        msg = f"seed {seed} {params}"
        reg = DecisionTreeRegressor(random_state=seed, **params).fit(X, y, sample_weight=w)
        sk = sklearn_arrays(reg)
        tree, counts = grow(X, y, w, **params)
        for name in ("children_left", "children_right", "feature", "missing_go_to_left"):
            np.testing.assert_array_equal(getattr(tree, name), sk[name], err_msg=f"{msg} {name}")
            np.testing.assert_array_equal(want[name], sk[name], err_msg=f"brute {msg} {name}")
        np.testing.assert_array_equal(tree.threshold, sk["threshold"], err_msg=msg)
        np.testing.assert_allclose(counts[:, 0], sk["weight"], rtol=1e-12, err_msg=msg)
        np.testing.assert_allclose(counts[:, 1], sk["mean"], rtol=1e-9, atol=1e-12, err_msg=msg)
        T = np.where(np.random.default_rng(seed).random(X.shape) < 0.2, np.nan, X[::-1])
        np.testing.assert_array_equal(tree.apply(T), reg.apply(T), err_msg=msg)


@pytest.mark.parametrize("max_leaf_nodes", [2, 3, 5, 8])
def test_max_leaf_nodes_equals_sklearn_without_ties(max_leaf_nodes):
    for seed, X, y, w, params, _ in sklearn_cases(0.1):
        reg = DecisionTreeRegressor(random_state=seed, max_leaf_nodes=max_leaf_nodes, **params)
        reg.fit(X, y, sample_weight=w)
        tree = grow_cart(X, y, criterion="squared_error", sample_weight=w, max_leaf_nodes=max_leaf_nodes, **params)
        assert tree.n_leaves <= max_leaf_nodes
        T = np.where(np.random.default_rng(seed).random(X.shape) < 0.2, np.nan, X[::-1])
        # Best-first trees number their nodes in creation order: compare the partitions.
        np.testing.assert_array_equal(
            _partition_ids(tree.apply(T)), _partition_ids(reg.apply(T)), err_msg=f"seed {seed} {params}"
        )
        assert tree.n_leaves == reg.get_n_leaves()


def _partition_ids(leaves):
    _, first = np.unique(leaves, return_index=True)
    rank = {leaf: i for i, leaf in enumerate(leaves[np.sort(first)])}
    return np.array([rank[v] for v in leaves])


# ================================================================ numerics
def integer_cases(n_cases=20, margin=1e-6):
    """Integer y without nearly tied gains (checked exactly by the brute force)."""
    out = []
    for seed in range(n_cases):
        rng = np.random.default_rng(100 + seed)
        n = int(rng.integers(15, 50))
        X = rng.integers(0, 12, size=(n, 2)).astype(float)
        if seed % 2:
            X[rng.random(X.shape) < 0.1] = np.nan
        y = rng.integers(-1000, 1000, n).astype(float)
        w = rng.integers(1, 4, n).astype(float) if seed % 3 == 0 else None
        try:
            brute.grow_brute(X, y, w, margin=margin)
        except cbrute.Ambiguous:
            continue
        out.append((X, y, w))
    assert len(out) >= 5
    return out


def test_shift_by_1e9_leaves_the_tree_unchanged():
    for X, y, w in integer_cases():
        base, base_counts = grow(X, y, w)
        tree, counts = grow(X, y + 1e9, w)
        assert tree == base
        np.testing.assert_allclose(counts[:, 1] - 1e9, base_counts[:, 1], atol=1e-5)
        # The within sums of squares keep their digits (raw sums would lose ~1e18 / 2^53 each).
        np.testing.assert_allclose(counts[:, 2], base_counts[:, 2], rtol=1e-9, atol=1e-6)
        moments = tree.node_moments(X, y + 1e9, w)
        np.testing.assert_allclose(moments[:, 2], base_counts[:, 2], rtol=1e-9, atol=1e-6)


@pytest.mark.parametrize("k", [-40, -7, 1, 13, 60])
def test_scaling_y_by_a_power_of_two_scales_every_mean_exactly(k):
    c = 2.0**k
    for X, y, w in integer_cases(8):
        y = y + 0.37  # not integers: a mean rounds, and must round the same way
        base, base_counts = grow(X, y, w)
        tree, counts = grow(X, y * c, w)
        assert tree == base
        np.testing.assert_array_equal(counts[:, 1], base_counts[:, 1] * c)
        np.testing.assert_array_equal(counts[:, 2], base_counts[:, 2] * c * c)
        np.testing.assert_array_equal(counts[:, 0], base_counts[:, 0])


@SETTINGS
@given(data=tied_data(), stop=stopping())
def test_counts_equal_node_moments(data, stop):
    X, y, w = data
    tree, counts = grow(X, y, w, **stop)
    moments = tree.node_moments(X, y, w)
    np.testing.assert_allclose(counts, moments, rtol=1e-12, atol=1e-12)


def test_node_moments_by_hand():
    tree = Tree([1, -1, -1], [2, -1, -1], [0, -2, -2], [0.5, -2, -2], 1)
    X = np.array([[0.0], [0.0], [1.0], [1.0], [np.nan]])
    y = np.array([1.0, 3.0, 10.0, 10.0, 4.0])
    w = np.array([1.0, 1.0, 2.0, 0.0, 1.0])
    m = tree.node_moments(X, y, w)
    # Node 1 (x <= 0.5): y = 1, 3 -> mean 2, SS 2. Node 2: 10 (w 2), 10 (w 0), 4 (NaN goes right): mean 8, SS 24.
    np.testing.assert_allclose(m, [[5.0, 5.6, 2.0 + 24.0 + 2 * 3 / 5 * 36.0], [2.0, 2.0, 2.0], [3.0, 8.0, 24.0]])


def test_pure_nodes_are_leaves_and_constant_nodes_exact():
    X = np.arange(8.0)[:, None]
    y = np.array([0.1] * 4 + [0.7] * 4)
    tree, counts = grow(X, y)
    assert tree.n_leaves == 2
    np.testing.assert_array_equal(counts[1:, 1], [0.1, 0.7])
    np.testing.assert_array_equal(counts[1:, 2], [0.0, 0.0])


def test_zero_weight_rows_equal_deleted_rows():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 3))
    y = rng.normal(size=60)
    w = rng.integers(0, 3, 60).astype(float)
    keep = w > 0
    a = grow_cart(X, y, criterion="squared_error", sample_weight=w)
    b = grow_cart(X[keep], y[keep], criterion="squared_error", sample_weight=w[keep])
    assert a == b


@pytest.mark.parametrize("splitter", ["best", "random"])
def test_max_features_and_random_splitter_are_seeded_and_valid(splitter):
    rng = np.random.default_rng(5)
    X = rng.normal(size=(150, 6))
    X[rng.random(X.shape) < 0.1] = np.nan
    y = np.nan_to_num(X[:, 0]) + rng.normal(size=150)
    grower = CARTGrower(X, y, regression=True)
    params = GrowthParams("squared_error", None, 2, 2, 0.0, 2, None, splitter)
    w = np.ones(150)
    a, ca = grower.grow(params, w, 7)
    b, _ = grower.grow(params, w, 7)
    assert a == b
    np.testing.assert_allclose(ca, a.node_moments(X, y), rtol=1e-12, atol=1e-12)
    assert (ca[~a.is_leaf, 0] >= 4).all()
    assert (ca[a.is_leaf, 0] >= 2).all()


@pytest.mark.parametrize(
    "bad, match",
    [
        (np.array([1.0, np.nan, 2.0, 3.0]), "y contains NaN"),
        (np.array([1.0, np.inf, 2.0, 3.0]), "y contains NaN"),
        (np.array(["a", "b", "c", "d"]), "y must hold numbers"),
        (np.ones((4, 2)), "y must be a 1-D"),
        (np.ones((4, 1)), "y must be a 1-D"),
        (np.ones(3), "y must be a 1-D"),
    ],
)
def test_bad_y_raises_naming_y(bad, match):
    X = np.arange(4.0)[:, None]
    with pytest.raises(ValueError, match=match):
        grow_cart(X, bad, criterion="squared_error")
    tree = grow_cart(X, np.arange(4.0), criterion="squared_error")
    with pytest.raises(ValueError, match=match):
        tree.node_moments(X, bad)


def test_criterion_must_match_the_grower():
    X = np.arange(4.0)[:, None]
    with pytest.raises(ValueError, match="criterion"):
        CARTGrower(X, np.arange(4.0), regression=True).grow(
            GrowthParams("gini", None, 2, 1, 0.0, None, None), np.ones(4)
        )
    with pytest.raises(ValueError, match="criterion"):
        CARTGrower(X, np.arange(4)).grow(GrowthParams("squared_error", None, 2, 1, 0.0, None, None), np.ones(4))
