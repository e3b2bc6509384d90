"""Tests of the float64 CART builder ``grow_cart``.

Three independent references:

* a plain-Python brute force (``_cart_brute``) that enumerates every
  (feature, threshold, missing side) candidate of every node and compares
  scores in exact arithmetic, so ties are genuine ties and the tie rule
  (lowest feature, then lowest threshold, then missing values right before
  left) is checked on data full of them;
* scikit-learn's ``DecisionTreeClassifier`` on float32-representable data
  without tied gains (where both builders are defined and must agree node for
  node); the brute force itself is first checked against it, so it can be
  trusted where scikit-learn cannot be used (ties, misclassification,
  zero weights, values beyond float32);
* exact identities: invariance under multiplication of X by powers of two,
  thresholds strictly between consecutive values at the extremes of float64,
  zero-weight rows equal to deleted rows.
"""

import math
import os
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from sklearn.tree import DecisionTreeClassifier

sys.path.insert(0, os.path.dirname(__file__))
import _cart_brute as brute

from prunus.tree import Tree, grow_cart

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
ALL_CRITERIA = ["gini", "entropy", "misclassification"]


# ---------------------------------------------------------------- helpers
def tree_arrays(tree):
    return brute.arrays_of(tree)


def assert_same_tree(got, want, counts=None, msg=""):
    """Node-for-node equality of prunus ``Tree`` arrays with the brute force's."""
    for name in ("children_left", "children_right", "feature"):
        np.testing.assert_array_equal(getattr(got, name), want[name], err_msg=f"{msg} {name}")
    # == compares values (-0.0 == 0.0, inf == inf).
    np.testing.assert_array_equal(got.threshold, want["threshold"], err_msg=f"{msg} threshold")
    np.testing.assert_array_equal(
        got.missing_go_to_left, want["missing_go_to_left"], err_msg=f"{msg} missing_go_to_left"
    )
    if counts is not None:
        np.testing.assert_allclose(counts, want["counts"], rtol=1e-12, atol=0, err_msg=f"{msg} counts")


def sklearn_arrays(clf):
    sk = clf.tree_
    arrays = brute.arrays_of(sk)
    arrays["counts"] = sk.value[:, 0, :] * sk.weighted_n_node_samples[:, None]
    return arrays


def canonical(arrays):
    """The tree renumbered in preorder (left first), without splits of pure nodes.

    Preorder makes a best-first tree (``max_leaf_nodes``) comparable whatever
    order its nodes were created in. scikit-learn (1.9) sometimes splits a
    pure node: its float impurity of a pure weighted node can exceed its
    EPSILON (count / total != 1 after rounding), and with missing values its
    children impurity can be wrong. Such splits change no prediction.
    """
    left, right, counts = arrays["children_left"], arrays["children_right"], arrays["counts"]
    order, is_split = [], []

    def walk(node):
        order.append(node)
        split = left[node] >= 0 and np.count_nonzero(counts[node] > 0) > 1
        is_split.append(split)
        if split:
            walk(left[node])
            walk(right[node])

    walk(0)
    new_id = {old: new for new, old in enumerate(order)}
    is_split = np.array(is_split)
    out = {name: np.asarray(a)[order].copy() for name, a in arrays.items()}
    out["children_left"] = np.array([new_id[left[o]] if s else -1 for o, s in zip(order, is_split)], dtype=np.int64)
    out["children_right"] = np.array([new_id[right[o]] if s else -1 for o, s in zip(order, is_split)], dtype=np.int64)
    out["feature"][~is_split] = -2
    out["threshold"][~is_split] = -2.0
    out["missing_go_to_left"][~is_split] = False
    return out


def assert_arrays_equal(got, want, msg="", threshold_rtol=0.0):
    for name in ("children_left", "children_right", "feature"):
        np.testing.assert_array_equal(got[name], want[name], err_msg=f"{msg} {name}")
    split = np.asarray(want["children_left"]) >= 0
    if threshold_rtol:
        np.testing.assert_allclose(got["threshold"][split], want["threshold"][split], rtol=threshold_rtol, err_msg=msg)
    else:
        np.testing.assert_array_equal(got["threshold"][split], want["threshold"][split], err_msg=f"{msg} threshold")
    np.testing.assert_array_equal(
        got["missing_go_to_left"][split], want["missing_go_to_left"][split], err_msg=f"{msg} missing_go_to_left"
    )
    np.testing.assert_allclose(got["counts"], want["counts"], rtol=1e-10, atol=1e-12, err_msg=f"{msg} counts")


# ------------------------------------------------------------- data makers
SMALL_VALUES = [-1.0, -0.5, 0.0, 0.25, 0.5, 1.0, 2.0]
WEIGHTS = [0.0, 0.25, 0.5, 1.0, 1.0, 1.0, 2.0, 3.0]


@st.composite
def tied_data(draw, max_n=30, max_d=3, weighted=True, nan=True):
    """Small data from a small set of values (many ties), integer / dyadic weights with zeros, NaNs."""
    k = draw(st.integers(2, 3))
    n = draw(st.integers(k, max_n))
    d = draw(st.integers(1, max_d))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n_values = draw(st.integers(2, len(SMALL_VALUES)))
    values = np.array(SMALL_VALUES[:n_values])
    X = rng.choice(values, size=(n, d))
    if nan and draw(st.booleans()):
        X[rng.random((n, d)) < draw(st.sampled_from([0.1, 0.3]))] = np.nan
    y = rng.integers(0, k, n)
    y[:k] = np.arange(k)  # every class present
    if weighted and draw(st.booleans()):
        w = rng.choice(WEIGHTS, size=n)
        w[:k] = 1.0  # positive total weight of every class
    else:
        w = None
    return X, y, w, k


@st.composite
def stopping(draw):
    return dict(
        max_depth=draw(st.sampled_from([None, None, 1, 2, 3])),
        min_samples_leaf=draw(st.sampled_from([1, 1, 2, 3])),
        min_samples_split=draw(st.sampled_from([2, 2, 3, 5])),
    )


def separated_data(seed, nan_rate=0.0):
    """Float32-exact data with distinct values per feature and continuous weights.

    Continuous weights make equal gains of different partitions improbable;
    the brute force in strict mode rejects the remaining ties.
    """
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 80))
    d = int(rng.integers(1, 4))
    k = int(rng.integers(2, 4))
    X = np.stack([rng.choice(8 * n, size=n, replace=False) * 0.25 - n for _ in range(d)], axis=1)
    if nan_rate:
        X[rng.random((n, d)) < nan_rate] = np.nan
    signal = np.nan_to_num(X[:, 0], nan=0.0) / n + rng.normal(0, 1.0, n)
    y = np.digitize(signal, np.quantile(signal, np.linspace(0, 1, k + 1)[1:-1]))
    w = rng.uniform(0.5, 2.0, n)
    params = dict(
        max_depth=[None, 2, 4][int(rng.integers(0, 3))],
        min_samples_leaf=[1, 2, 3, 5][int(rng.integers(0, 4))],
        min_samples_split=[2, 4, 10][int(rng.integers(0, 3))],
        min_impurity_decrease=[0.0, 0.0, 0.003, 0.02][int(rng.integers(0, 4))],
    )
    return X, y, w, params


def sklearn_cases(criterion, nan_rate, n_seeds=40):
    """(X, y, w, params, brute tree) for the seeds whose brute tree has no tie."""
    out = []
    for seed in range(n_seeds):
        X, y, w, params = separated_data(seed, nan_rate)
        try:
            want = brute.grow_brute(X, y, w, criterion, strict=True, **params)
        except brute.Ambiguous:
            continue
        out.append((seed, X, y, w, params, want))
    assert len(out) >= n_seeds // 4, f"only {len(out)} of {n_seeds} seeds are free of ties"
    return out


# ======================================== the brute force against scikit-learn
@pytest.mark.parametrize("nan_rate", [0.0, 0.15])
@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_brute_force_equals_sklearn_without_ties(criterion, nan_rate):
    for seed, X, y, w, params, want in sklearn_cases(criterion, nan_rate):
        clf = DecisionTreeClassifier(criterion=criterion, random_state=seed, **params)
        clf.fit(X, y, sample_weight=w)
        assert_arrays_equal(canonical(sklearn_arrays(clf)), want, msg=f"seed {seed} {params}")


def test_brute_force_routes_training_rows_to_their_counts():
    X, y, w, params = separated_data(3, nan_rate=0.2)
    want = brute.grow_brute(X, y, w, "gini", **params)
    leaves = brute.apply_brute(want, X)
    counts = np.zeros_like(want["counts"])
    np.add.at(counts, (leaves, y), w)
    is_leaf = want["children_left"] == -1
    np.testing.assert_allclose(counts[is_leaf], want["counts"][is_leaf], rtol=1e-12)


def test_brute_force_thresholds_and_ties_by_hand():
    # Feature 0 and 1 split the 4 rows identically: the lowest feature wins.
    X = np.array([[0.0, 5.0], [1.0, 6.0], [2.0, 7.0], [3.0, 8.0]])
    y = np.array([0, 0, 1, 1])
    split = brute.best_split(X, y, np.ones(4), np.arange(4), "gini")
    assert (split.feature, split.threshold) == (0, 1.5)
    with pytest.raises(brute.Ambiguous):
        brute.best_split(X, y, np.ones(4), np.arange(4), "gini", strict=True)
    # Subnormal neighbours: the midpoint rounds onto b and is replaced by a.
    assert brute.thresholds([0.0, 5e-324]) == [0.0]
    assert brute.thresholds([5e-324, 1e-323]) == [5e-324]
    assert brute.thresholds([1e308, 1.7e308]) == [1.35e308]
    # A missing value is a side: NaN rows go with class 1 here.
    X = np.array([[0.0], [1.0], [np.nan], [2.0], [np.nan]])
    y = np.array([0, 1, 1, 0, 1])
    split = brute.best_split(X, y, np.ones(5), np.arange(5), "gini")
    assert split.feature == 0 and split.missing_left is False and split.node_has_nan
    assert split.threshold == math.inf  # every present value left, missing right


# ============================================== grow_cart against the references
def grow(X, y, w, criterion="gini", **kwargs):
    """grow_cart with per-node counts: (Tree, counts)."""
    return grow_cart(X, y, criterion=criterion, sample_weight=w, return_counts=True, **kwargs)


def node_rows(tree, X, w):
    """Positive-weight training rows reaching each node (routed by hand)."""
    w = np.ones(X.shape[0]) if w is None else np.asarray(w)
    return brute.rows_per_node(tree_arrays(tree), X, np.flatnonzero(w > 0))


@pytest.mark.parametrize("criterion", ALL_CRITERIA)
@SETTINGS
@given(data=tied_data(), stop=stopping(), mid=st.sampled_from([0.0, 0.0, 0.01, 0.05]))
def test_equals_brute_force_node_for_node(criterion, data, stop, mid):
    X, y, w, k = data
    try:
        want = brute.grow_brute(X, y, w, criterion, min_impurity_decrease=mid, n_classes=k, **stop)
    except brute.Ambiguous:
        assume(False)
    tree, counts = grow(X, y, w, criterion, min_impurity_decrease=mid, n_classes=k, **stop)
    assert isinstance(tree, Tree)
    assert_same_tree(tree, want, counts, msg=f"{criterion} {stop} mid={mid}")


@pytest.mark.parametrize("criterion", ALL_CRITERIA)
@SETTINGS
@given(data=tied_data(), stop=stopping())
def test_every_split_is_best_and_every_leaf_is_blocked(criterion, data, stop):
    """Local check of each node on the rows that reach it in grow_cart's own tree."""
    X, y, w, k = data
    tree, _ = grow(X, y, w, criterion, n_classes=k, **stop)
    w_full = np.ones(X.shape[0]) if w is None else np.asarray(w, dtype=np.float64)
    s = brute.Settings(criterion, stop["max_depth"], stop["min_samples_split"], stop["min_samples_leaf"], 0.0, k)
    w_root = w_full.sum()
    for node, rows in enumerate(node_rows(tree, X, w)):
        try:
            out = brute.leaf_reason(X, y, w_full, rows, tree.depth[node], w_root, s)
        except brute.Ambiguous:
            continue
        if tree.children_left[node] == -1:
            assert isinstance(out, str), f"leaf {node} could be split by {out.key} (no stopping rule holds)"
            continue
        assert not isinstance(out, str), f"node {node} is split but is a leaf by rule {out!r}"
        f, t = tree.feature[node], tree.threshold[node]
        chosen = [
            c
            for c in brute.candidates(X, y, w_full, rows, criterion, stop["min_samples_leaf"], k)
            if c.feature == f
            and c.threshold == t
            and (not c.node_has_nan or c.missing_left == tree.missing_go_to_left[node])
        ]
        assert len(chosen) == 1, f"node {node}: ({f}, {t}) is not a valid candidate"
        assert chosen[0].score >= out.score - 1e-9 * max(1.0, w_full[rows].sum()), f"node {node}: not a best split"
        assert (f, t) == (out.feature, out.threshold), f"node {node}: tie rule (lowest feature, then threshold)"
        if out.node_has_nan:
            assert tree.missing_go_to_left[node] == out.missing_left, f"node {node}: missing side"
        else:
            assert tree.missing_go_to_left[node] == (out.left.size > out.right.size), f"node {node}: larger child"


@pytest.mark.parametrize("criterion", ALL_CRITERIA)
def test_zero_gain_split_is_made(criterion):
    # Both children have the parent's class ratio 1:2: a zero decrease, which
    # rounds to about -3e-16 for entropy. scikit-learn splits such a node when
    # min_impurity_decrease is 0, and so must we (the node is impure).
    X = np.array([-0.5] * 3 + [-1.0] * 6 + [-0.5] * 6)[:, None]
    y = np.array([0, 1, 1, 1, 1, 0, 1, 1, 0, 0, 1, 1, 0, 1, 1])
    tree, counts = grow(X, y, None, criterion)
    assert tree.n_nodes == 3 and tree.threshold[0] == -0.75
    np.testing.assert_array_equal(counts, [[5, 10], [2, 4], [3, 6]])
    assert tree.n_nodes == brute.grow_brute(X, y, criterion=criterion)["feature"].size
    if criterion != "misclassification":
        assert DecisionTreeClassifier(criterion=criterion).fit(X, y).tree_.node_count == 3


@SETTINGS
@given(data=tied_data())
def test_log_loss_is_entropy(data):
    X, y, w, k = data
    a, ca = grow(X, y, w, "entropy", n_classes=k)
    b, cb = grow(X, y, w, "log_loss", n_classes=k)
    assert a == b
    np.testing.assert_array_equal(ca, cb)


@pytest.mark.parametrize("nan_rate", [0.0, 0.15])
@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_equals_sklearn_without_ties(criterion, nan_rate):
    for seed, X, y, w, params, want in sklearn_cases(criterion, nan_rate):
        clf = DecisionTreeClassifier(criterion=criterion, random_state=seed, **params).fit(X, y, sample_weight=w)
        tree = grow_cart(X, y, criterion=criterion, sample_weight=w, random_state=seed, **params)
        got = tree_arrays(tree)
        got["counts"] = tree.node_counts(X, y, w)
        msg = f"seed {seed} {params}"
        assert_arrays_equal(got, canonical(sklearn_arrays(clf)), msg=msg)
        assert_arrays_equal(got, want, msg=msg)
        # NaN at prediction also where the training data had none (larger child).
        X_test = np.where(np.random.default_rng(seed).random(X.shape) < 0.2, np.nan, X[::-1])
        leaves = tree.apply(X_test)
        np.testing.assert_array_equal(leaves, brute.apply_brute(got, X_test), err_msg=msg)
        proba = got["counts"][leaves] / got["counts"][leaves].sum(axis=1, keepdims=True)
        np.testing.assert_allclose(proba, clf.predict_proba(X_test), rtol=1e-9, atol=1e-12, err_msg=msg)


@pytest.mark.parametrize("max_leaf_nodes", [2, 3, 5, 8])
def test_max_leaf_nodes_equals_sklearn_without_ties(max_leaf_nodes):
    for seed, X, y, w, params, _ in sklearn_cases("gini", 0.1):
        clf = DecisionTreeClassifier(random_state=seed, max_leaf_nodes=max_leaf_nodes, **params)
        clf.fit(X, y, sample_weight=w)
        tree = grow_cart(X, y, sample_weight=w, max_leaf_nodes=max_leaf_nodes, **params)
        got = tree_arrays(tree)
        got["counts"] = tree.node_counts(X, y, w)
        assert tree.n_leaves <= max_leaf_nodes
        assert_arrays_equal(canonical(got), canonical(sklearn_arrays(clf)), msg=f"seed {seed} {params}")


# ================================================================ exact identities
SCALES = [-1000, -500, 0, 500, 1000]


def prediction_points(X, seed):
    """Rows to route at prediction: training values, midpoints, NaN where never seen."""
    rng = np.random.default_rng(seed)
    n, d = X.shape
    grid = np.array(SMALL_VALUES + [-0.75, 0.125, 1.5, 3.0, -2.0])
    T = rng.choice(grid, size=(3 * n, d))
    T[rng.random(T.shape) < 0.2] = np.nan
    return T


@settings(max_examples=60, deadline=None)
@given(data=tied_data(), stop=stopping(), criterion=st.sampled_from(ALL_CRITERIA))
def test_invariant_under_powers_of_two(data, stop, criterion):
    X, y, w, k = data
    base, base_counts = grow(X, y, w, criterion, n_classes=k, **stop)
    T = prediction_points(X, 0)
    split = base.children_left >= 0
    for e in SCALES:
        c = 2.0**e
        tree, counts = grow(X * c, y, w, criterion, n_classes=k, **stop)
        for name in ("children_left", "children_right", "feature", "missing_go_to_left"):
            np.testing.assert_array_equal(getattr(tree, name), getattr(base, name), err_msg=f"2**{e} {name}")
        np.testing.assert_array_equal(tree.threshold[split], base.threshold[split] * c, err_msg=f"2**{e} threshold")
        np.testing.assert_array_equal(counts, base_counts)
        np.testing.assert_array_equal(tree.apply(T * c), base.apply(T), err_msg=f"2**{e} apply")


@settings(max_examples=40, deadline=None)
@given(data=tied_data(), criterion=st.sampled_from(ALL_CRITERIA), shift=st.sampled_from([-3.0, 0.5, 1024.0]))
def test_invariant_under_exact_shifts(data, criterion, shift):
    # Dyadic values: x + shift and the thresholds (a + s) / 2 + (b + s) / 2 are exact.
    X, y, w, k = data
    base = grow_cart(X, y, criterion=criterion, sample_weight=w, n_classes=k)
    tree = grow_cart(X + shift, y, criterion=criterion, sample_weight=w, n_classes=k)
    split = base.children_left >= 0
    np.testing.assert_array_equal(tree.children_left, base.children_left)
    np.testing.assert_array_equal(tree.feature, base.feature)
    np.testing.assert_array_equal(tree.missing_go_to_left, base.missing_go_to_left)
    np.testing.assert_array_equal(tree.threshold[split], base.threshold[split] + shift)


EXTREMES = np.array(
    [
        -np.finfo(np.float64).max,
        -1e308,
        -1.0,
        -1e-300,
        -5e-324,
        0.0,
        5e-324,
        1e-323,
        1.5e-323,
        np.finfo(np.float64).tiny,
        1.0,
        np.nextafter(1.0, 2.0),
        1e308,
        np.nextafter(np.finfo(np.float64).max, 0.0),
        np.finfo(np.float64).max,
    ]
)


@pytest.mark.parametrize("sign", [1.0, -1.0])
@pytest.mark.parametrize("with_nan", [False, True])
def test_thresholds_strictly_between_extreme_neighbours(sign, with_nan):
    values = np.sort(sign * EXTREMES)
    # Alternate classes: a pure tree must separate every pair of neighbours.
    # -0.0 duplicates 0.0 (same value, same class).
    zero = int(np.flatnonzero(values == 0.0)[0])
    col = np.concatenate([values, [-0.0]])
    y = np.concatenate([np.arange(values.size) % 2, [zero % 2]])
    if with_nan:
        col = np.concatenate([col, [np.nan, np.nan]])
        y = np.concatenate([y, [0, 1]])
    rng = np.random.default_rng(0)
    perm = rng.permutation(col.size)
    X = np.stack([col[perm], rng.permutation(col.size) * 0.0], axis=1)  # feature 1 is constant
    y = y[perm]
    tree, counts = grow(X, y, None)
    want = brute.grow_brute(X, y)
    assert_same_tree(tree, want, counts)
    assert np.all(tree.feature[tree.children_left >= 0] == 0)
    rows = node_rows(tree, X, None)
    for node in np.flatnonzero(tree.children_left >= 0):
        t = tree.threshold[node]
        present = np.unique(X[rows[node], 0][~np.isnan(X[rows[node], 0])])
        if t == math.inf:
            continue
        assert np.isfinite(t)
        i = np.searchsorted(present, t, side="right")
        assert 1 <= i < present.size, f"threshold {t!r} outside the node's values"
        a, b = present[i - 1], present[i]
        assert a <= t < b, (a, t, b)
    # Each distinct present value ends in its own leaf.
    leaves = tree.apply(X)
    present = ~np.isnan(X[:, 0])
    assert np.unique(leaves[present]).size == values.size


# ================================================================ weights, input checks
@SETTINGS
@given(
    data=tied_data(weighted=False),
    stop=stopping(),
    criterion=st.sampled_from(ALL_CRITERIA),
    n_zero=st.integers(1, 10),
    seed=st.integers(0, 2**32 - 1),
)
def test_zero_weight_rows_equal_deleted_rows(data, stop, criterion, n_zero, seed):
    X, y, _, k = data
    rng = np.random.default_rng(seed)
    w = rng.choice([0.5, 1.0, 2.0], size=X.shape[0])
    extra = rng.choice(np.array(SMALL_VALUES + [np.nan, 1e300, -7.5]), size=(n_zero, X.shape[1]))
    X_all = np.concatenate([X, extra])
    y_all = np.concatenate([y, rng.integers(0, k, n_zero)])
    w_all = np.concatenate([w, np.zeros(n_zero)])
    order = rng.permutation(X_all.shape[0])
    a, ca = grow(X_all[order], y_all[order], w_all[order], criterion, n_classes=k, **stop)
    b, cb = grow(X, y, w, criterion, n_classes=k, **stop)
    assert a == b
    np.testing.assert_array_equal(a.missing_go_to_left, b.missing_go_to_left)
    np.testing.assert_allclose(ca, cb, rtol=1e-12)


@pytest.mark.parametrize("bad", [-1.0, np.nan, np.inf, -np.inf])
def test_bad_sample_weight_raises(bad):
    X = np.arange(8.0).reshape(4, 2)
    y = np.array([0, 1, 0, 1])
    w = np.ones(4)
    w[2] = bad
    with pytest.raises(ValueError, match="sample_weight"):
        grow_cart(X, y, sample_weight=w)


@pytest.mark.parametrize("bad", [np.inf, -np.inf])
def test_infinite_X_raises(bad):
    X = np.arange(8.0).reshape(4, 2)
    X[1, 1] = bad
    with pytest.raises(ValueError, match="X"):
        grow_cart(X, np.array([0, 1, 0, 1]))


def test_nan_X_is_accepted():
    X = np.array([[0.0], [np.nan], [1.0], [np.nan]])
    tree = grow_cart(X, np.array([0, 1, 0, 1]))
    assert tree.n_leaves == 2
    assert tree.threshold[0] == math.inf and not tree.missing_go_to_left[0]


@SETTINGS
@given(data=tied_data(), stop=stopping(), criterion=st.sampled_from(ALL_CRITERIA))
def test_counts_equal_node_counts(data, stop, criterion):
    X, y, w, k = data
    tree, counts = grow(X, y, w, criterion, n_classes=k, **stop)
    assert counts.shape == (tree.n_nodes, k)
    np.testing.assert_allclose(counts, tree.node_counts(X, y, w, n_classes=k), rtol=1e-12, atol=0)
    plain = grow_cart(X, y, criterion=criterion, sample_weight=w, n_classes=k, **stop)
    assert isinstance(plain, Tree) and plain == tree


# ================================================================ max_features, max_leaf_nodes
@settings(max_examples=60, deadline=None)
@given(data=tied_data(), criterion=st.sampled_from(ALL_CRITERIA))
def test_all_features_ignore_random_state(data, criterion):
    X, y, w, k = data
    d = X.shape[1]
    base = grow_cart(X, y, criterion=criterion, sample_weight=w, n_classes=k, random_state=0)
    for rs in (None, 1, 12345, np.random.RandomState(7)):
        for mf in (None, d, 1.0):
            tree = grow_cart(X, y, criterion=criterion, sample_weight=w, n_classes=k, random_state=rs, max_features=mf)
            assert tree == base, f"random_state={rs!r} max_features={mf!r}"


@settings(max_examples=60, deadline=None)
@given(
    data=tied_data(max_d=3),
    criterion=st.sampled_from(ALL_CRITERIA),
    seed=st.integers(0, 2**31 - 1),
    max_features=st.sampled_from([1, 2, "sqrt", "log2", 0.5]),
    stop=stopping(),
)
def test_max_features_same_seed_same_tree_and_best_within_feature(data, criterion, seed, max_features, stop):
    X, y, w, k = data
    X = np.concatenate([X, X[:, ::-1] * 0.5], axis=1)  # d in 2..6, with ties across features
    kw = dict(criterion=criterion, sample_weight=w, n_classes=k, max_features=max_features, **stop)
    tree = grow_cart(X, y, random_state=seed, **kw)
    assert grow_cart(X, y, random_state=seed, **kw) == tree
    assert grow_cart(X, y, random_state=np.random.RandomState(seed), **kw) == grow_cart(
        X, y, random_state=np.random.RandomState(seed), **kw
    )
    w_full = np.ones(X.shape[0]) if w is None else np.asarray(w, dtype=np.float64)
    s = brute.Settings(criterion, stop["max_depth"], stop["min_samples_split"], stop["min_samples_leaf"], 0.0, k)
    for node, rows in enumerate(node_rows(tree, X, w)):
        try:
            out = brute.leaf_reason(X, y, w_full, rows, tree.depth[node], w_full.sum(), s)
            if tree.children_left[node] == -1:
                # A feature without a valid split does not count: the search
                # goes on, so a leaf means no feature has one (or another rule).
                assert isinstance(out, str), f"leaf {node} could be split"
                continue
            assert not isinstance(out, str), f"node {node} split but blocked by {out}"
            f = tree.feature[node]
            own = brute.best_split(X, y, w_full, rows, criterion, stop["min_samples_leaf"], k, features=[f])
        except brute.Ambiguous:
            continue
        assert (own.feature, own.threshold) == (f, tree.threshold[node]), f"node {node}: not the best of its feature"
        if own.node_has_nan:
            assert own.missing_left == tree.missing_go_to_left[node]


@settings(max_examples=60, deadline=None)
@given(data=tied_data(), criterion=st.sampled_from(ALL_CRITERIA), max_leaf_nodes=st.integers(2, 12))
def test_max_leaf_nodes_bounds_leaves_and_keeps_best_splits(data, criterion, max_leaf_nodes):
    X, y, w, k = data
    full = grow_cart(X, y, criterion=criterion, sample_weight=w, n_classes=k)
    tree = grow_cart(X, y, criterion=criterion, sample_weight=w, n_classes=k, max_leaf_nodes=max_leaf_nodes)
    # Best-first growth adds one leaf per split until the cap or until no leaf can be split.
    assert tree.n_leaves == min(max_leaf_nodes, full.n_leaves)
    # Its splits are splits of the full tree: the partition of the training rows refines along the full tree.
    w_full = np.ones(X.shape[0]) if w is None else np.asarray(w)
    rows_tree = {tuple(r) for r in node_rows(tree, X, w)}
    rows_full = {tuple(r) for r in node_rows(full, X, w)}
    assert rows_tree <= rows_full
    if max_leaf_nodes >= full.n_leaves:
        assert canonical_tree(tree) == canonical_tree(full)
    assert np.all(w_full >= 0)


def canonical_tree(tree):
    arrays = tree_arrays(tree)
    arrays["counts"] = np.ones((tree.n_nodes, 2))  # keep every split
    return {name: tuple(np.asarray(v).tolist()) for name, v in canonical(arrays).items()}


@pytest.mark.parametrize("seed", range(10))
def test_max_features_goes_on_past_features_without_a_split(seed):
    # Features 0, 1 and 3 vary, but only on one row (a value, or the only
    # present value among NaN): with min_samples_leaf=2 none has a valid
    # split. Whichever feature is drawn first, the search goes on until
    # feature 2, so the tree is the one grown with every feature.
    rng = np.random.default_rng(seed)
    n = 20
    informative = rng.permutation(n) * 0.5
    one_off = np.zeros(n)
    one_off[int(rng.integers(n))] = 1.0
    lone = np.full(n, np.nan)
    lone[int(rng.integers(n))] = 3.0
    X = np.stack([one_off, lone, informative, one_off[::-1]], axis=1)
    y = (informative > np.median(informative)).astype(np.int64)
    tree = grow_cart(X, y, max_features=1, random_state=seed, min_samples_leaf=2)
    assert tree.n_leaves == 2 and tree.feature[0] == 2
    assert tree == grow_cart(X, y, min_samples_leaf=2)
