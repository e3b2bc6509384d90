"""The squared-error pruning path against exhaustive enumeration of pruned subtrees.

The reference computes every node's within sum of squares from its rows in
exact rational arithmetic (``fractions.Fraction``), enumerates all pruned
subtrees and runs the textbook weakest-link loop. On dyadic y with
power-of-two node weights every float sum of the library is exact, so the
path must equal the reference digit for digit (alphas are one correctly
rounded division); on other data to a stated tolerance.
"""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.tree import DecisionTreeRegressor

from prunus.pruning import squared_error_path
from prunus.tree import Tree, grow_cart
from prunus.tree._kernels import leaf_moments_to_node_moments, scatter_moments

from ._brute import all_pruned_subtrees, breiman_weakest_link_alphas, random_tree, smallest_minimiser


def _leaf_set(path, k):
    sub, index = path.subtree(k, return_index=True)
    return frozenset(index[sub.is_leaf].tolist())


def rows_at_leaves(tree, rng, dyadic):
    """(row leaf ids, y, w). Dyadic: a leaf at depth d weighs 2^(D - d) in all,
    so every node's weight is a power of two, and y is a multiple of 1/4."""
    leaves, ys, ws = [], [], []
    D = tree.max_depth
    for leaf in np.flatnonzero(tree.is_leaf):
        m = int(rng.choice([1, 2, 4]))
        if dyadic:
            w = np.full(m, 2.0 ** (D - tree.depth[leaf]) / m)
            y = rng.integers(-16, 17, m) / 4.0
        else:
            w = rng.uniform(0.1, 3.0, m)
            y = rng.normal(0, 3.0, m) + rng.normal(0, 5.0)
        leaves += [leaf] * m
        ys += list(y)
        ws += list(w)
    return np.array(leaves, dtype=np.int64), np.array(ys), np.array(ws)


def exact_risks(tree, leaves, y, w):
    """Exact within sum of squares of every node (Fractions)."""
    W = [Fraction(0)] * tree.n_nodes
    S = [Fraction(0)] * tree.n_nodes
    Q = [Fraction(0)] * tree.n_nodes
    for leaf, v, wt in zip(leaves, y, w):
        node = int(leaf)
        fv, fw = Fraction(float(v)), Fraction(float(wt))
        while node != -1:
            W[node] += fw
            S[node] += fw * fv
            Q[node] += fw * fv * fv
            node = int(tree.parent[node])
    return [Q[t] - S[t] * S[t] / W[t] if W[t] > 0 else Fraction(0) for t in range(tree.n_nodes)], W[0]


def check_against_brute_force(tree, leaves, y, w, exact):
    moments = leaf_moments_to_node_moments(scatter_moments(leaves, y, w, tree.n_nodes), tree.parent)
    path = squared_error_path(tree, moments)
    risk, weight = exact_risks(tree, leaves, y, w)
    if exact:
        np.testing.assert_array_equal(moments[:, 2], [float(r) for r in risk])
    subtrees = all_pruned_subtrees(tree)
    want = breiman_weakest_link_alphas(tree, None, risk=risk)
    assert path.alphas[0] == 0.0 and path.n_leaves[-1] == 1
    assert np.all(np.diff(path.alphas) > 0)
    if not exact:
        # Two exact alphas closer than rounding can tell apart may merge or split.
        gaps = [float((b - a) / weight) for a, b in zip(want, want[1:])]
        if min(gaps, default=1.0) < 1e-9 * max(1.0, float(want[-1] / weight)):
            return path
    assert len(path) == len(want)
    for k in range(len(path)):
        if exact:
            assert path.alphas[k] == float(want[k] / weight)
        else:
            assert path.alphas[k] == pytest.approx(float(want[k] / weight), rel=1e-9, abs=1e-12)
    probes = [(want[k], k) for k in range(len(want))]
    probes += [((want[k] + want[k + 1]) / 2, k) for k in range(len(want) - 1)]
    probes += [(want[-1] + 1, len(want) - 1)]
    for alpha, k in probes:
        if not exact and k < len(want) and alpha == want[k]:
            continue  # at an exact breakpoint only exact arithmetic decides
        got = smallest_minimiser(tree, None, alpha, subtrees, risk=risk)
        assert got == _leaf_set(path, k)
        assert path.n_leaves[k] == len(got)
    for k in range(len(path)):
        leaves_k = _leaf_set(path, k)
        r = sum(risk[t] for t in leaves_k) / weight
        if exact:
            assert path.risks[k] == float(r)
        else:
            assert path.risks[k] == pytest.approx(float(r), rel=1e-9, abs=1e-12)
    return path


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n_leaves=st.integers(1, 10))
def test_path_equals_enumeration_exactly_on_dyadic_data(seed, n_leaves):
    rng = np.random.default_rng(seed)
    tree = random_tree(rng, n_leaves - 1, n_features=2)
    leaves, y, w = rows_at_leaves(tree, rng, dyadic=True)
    check_against_brute_force(tree, leaves, y, w, exact=True)


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n_leaves=st.integers(1, 10))
def test_path_equals_enumeration_to_tolerance(seed, n_leaves):
    rng = np.random.default_rng(seed)
    tree = random_tree(rng, n_leaves - 1, n_features=2)
    leaves, y, w = rows_at_leaves(tree, rng, dyadic=False)
    check_against_brute_force(tree, leaves, y, w, exact=False)


def test_tied_weakest_links_are_pruned_together():
    # Two mirrored branches with the same gain: both collapse in one step.
    tree = Tree([1, 3, 5, -1, -1, -1, -1], [2, 4, 6, -1, -1, -1, -1], [0, 1, 1, 0, 0, 0, 0], [0.5] * 7, 2)
    leaves = np.array([3, 3, 4, 4, 5, 5, 6, 6])
    y = np.array([0.0, 1.0, 2.0, 3.0, 10.0, 11.0, 12.0, 13.0])
    path = check_against_brute_force(tree, leaves, y, np.ones(8), exact=True)
    assert path.n_leaves.tolist() == [4, 2, 1]


def test_root_only_and_pure_leaves():
    tree = Tree([1, -1, -1], [2, -1, -1], [0, -2, -2], [0.0, -2, -2], 1)
    leaves = np.array([1, 1, 2, 2])
    path = check_against_brute_force(tree, leaves, np.array([1.0, 1.0, 3.0, 3.0]), np.ones(4), exact=True)
    assert path.alphas.tolist() == [0.0, 1.0]  # SS(root) = 4, over weight 4
    assert path.risks.tolist() == [0.0, 1.0]
    # A split that does not reduce the squared error is not in T_1.
    path = squared_error_path(tree, [[4.0, 2.0, 4.0], [2.0, 2.0, 2.0], [2.0, 2.0, 2.0]])
    assert path.n_leaves.tolist() == [1]


def test_units_match_sklearn_ccp_alpha():
    rng = np.random.default_rng(0)
    X = rng.random((60, 2))
    y = X[:, 0] * 3 + rng.normal(0, 0.3, 60)
    reg = DecisionTreeRegressor(random_state=0).fit(X, y)
    tree = Tree.from_sklearn(reg)
    path = squared_error_path(tree, tree.node_moments(X, y))
    sk = reg.cost_complexity_pruning_path(X, y)
    np.testing.assert_allclose(path.alphas, sk.ccp_alphas, rtol=1e-7, atol=1e-12)
    np.testing.assert_allclose(path.risks, sk.impurities, rtol=1e-7, atol=1e-12)


def test_held_out_squared_error_equals_row_by_row_prediction():
    rng = np.random.default_rng(1)
    X = rng.random((400, 3))
    X[rng.random(X.shape) < 0.05] = np.nan
    y = np.nan_to_num(X[:, 0]) * 5 + rng.normal(0, 1, 400)
    w = rng.integers(1, 3, 400).astype(float)
    tree = grow_cart(X[:200], y[:200], criterion="squared_error")
    path = squared_error_path(tree, tree.node_moments(X[:200], y[:200]))
    sse = path.squared_error(X[200:], y[200:], w[200:])
    for k in range(len(path)):
        sub, index = path.subtree(k, return_index=True)
        pred = path.value[index[sub.apply(X[200:])]]
        assert sse[k] == pytest.approx(np.sum(w[200:] * (y[200:] - pred) ** 2), rel=1e-9)


def test_empty_nodes_take_their_parents_value():
    tree = Tree([1, -1, -1], [2, -1, -1], [0, -2, -2], [0.5, -2, -2], 1)
    path = squared_error_path(tree, [[2.0, 3.0, 2.0], [2.0, 3.0, 2.0], [0.0, 0.0, 0.0]])
    assert path.value.tolist() == [3.0, 3.0, 3.0]


@pytest.mark.parametrize(
    "bad",
    [np.ones((3, 2)), np.ones((5, 3)), -np.ones((3, 3)), np.zeros((3, 3)), np.full((3, 3), np.nan)],
)
def test_bad_moments(bad):
    tree = Tree([1, -1, -1], [2, -1, -1], [0, -2, -2], [0.5, -2, -2], 1)
    with pytest.raises(ValueError, match="moments"):
        squared_error_path(tree, bad)
