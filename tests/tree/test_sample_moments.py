"""Per-node moments of a real target merged over row blocks (the regression side of a sampled fit)."""

from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from prunus import CARTRegressor
from prunus.tree import grow_cart
from prunus.tree.sample import InMemorySample, NodeMoments, add_records


def _exact_moments(y, w):
    """(weight, mean, within sum of squares) in exact rationals."""
    W = sum(Fraction(v) for v in w)
    if W == 0:
        return W, Fraction(0), Fraction(0)
    mean = sum(Fraction(a) * Fraction(b) for a, b in zip(w, y)) / W
    return W, mean, sum(Fraction(b) * (Fraction(a) - mean) ** 2 for a, b in zip(y, w))


def _blocks(X, y, w, cuts):
    edges = [0, *cuts, len(y)]
    return [(X[a:b], y[a:b], w[a:b]) for a, b in zip(edges[:-1], edges[1:])]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(-40, 40), min_size=2, max_size=40),
    st.data(),
)
def test_block_moments_merge_to_the_whole_sample(values, data):
    """Merged block moments == the exact moments of all rows, per node (to 1e-12 relative)."""
    n = len(values)
    y = np.array(values, dtype=np.float64) / 4.0  # dyadic
    w = np.array(data.draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.0]), min_size=n, max_size=n)))
    X = np.arange(n, dtype=np.float64)[:, None] % 7
    cuts = sorted(set(data.draw(st.lists(st.integers(1, n - 1), max_size=4))))
    tree = grow_cart(X, y, criterion="squared_error", max_depth=3, random_state=0)
    merged = sum(NodeMoments(tree.node_moments(*b)) for b in _blocks(X, y, w, cuts)).table
    leaves = tree.apply(X)
    for node in range(tree.n_nodes):
        inside = [i for i in range(n) if node in _ancestors(tree, leaves[i])]
        W, mean, ss = _exact_moments(y[inside], w[inside])
        assert merged[node, 0] == float(W)  # sums of halves and integers: exact
        np.testing.assert_allclose(merged[node, 1], float(mean), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(merged[node, 2], float(ss), rtol=1e-12, atol=1e-10)


def _ancestors(tree, leaf):
    out = {int(leaf)}
    node = int(leaf)
    while tree.parent[node] >= 0:
        node = int(tree.parent[node])
        out.add(node)
    return out


def test_merging_keeps_a_pure_node_exact_and_a_far_mean_precise():
    X = np.arange(12, dtype=np.float64)[:, None]
    tree = grow_cart(X, np.arange(12.0), criterion="squared_error", max_depth=1, random_state=0)
    y = np.full(12, 0.1)  # not dyadic: every block's mean is 0.1 exactly
    merged = add_records(*[(NodeMoments(tree.node_moments(X[i : i + 3], y[i : i + 3])),) for i in range(0, 12, 3)])[0]
    assert (merged.table[:, 1] == 0.1).all() and (merged.table[:, 2] == 0.0).all()
    # y around 1e9 with unit spread: raw sums of y and y^2 would lose every digit here (sum y^2 ~ 1e19,
    # its rounding ~ 1e3 against sums of squares ~ 10); the block means carry a rounding of ~1e-7 each.
    rng = np.random.RandomState(0)
    base = rng.randint(-3, 4, size=12).astype(np.float64)
    far = sum(NodeMoments(tree.node_moments(X[i : i + 5], 1e9 + base[i : i + 5])) for i in range(0, 12, 5)).table
    near = tree.node_moments(X, base)
    np.testing.assert_allclose(far[:, 2], near[:, 2], rtol=1e-6)
    np.testing.assert_allclose(far[:, 1] - 1e9, near[:, 1], atol=1e-6)


def test_in_memory_sampled_regressor_equals_the_pieces():
    """CARTRegressor(method="M1", grow_size) on one block: grown on L1, pruned with the moments of L2."""
    from prunus.pruning import squared_error_path
    from prunus.pruning.selection import select_holdout

    rng = np.random.RandomState(1)
    X = rng.rand(900, 3)
    y = np.where(X[:, 0] > 0.5, 2.0, 0.0) + rng.randint(-2, 3, size=900) / 4.0
    est = CARTRegressor(method="M1", grow_size=300, test_size=0.25, random_state=5).fit(X, y)
    grow, test, prune = est.split_.masks()
    assert grow.sum() == 300 and est.pruning_indices_ is None
    seed = np.random.RandomState(5).randint(2**31 - 1)
    tree = grow_cart(X[grow], y[grow], criterion="squared_error", random_state=seed)
    path = squared_error_path(tree, tree.node_moments(X[prune], y[prune]))
    k, risk = select_holdout(path, tree.node_moments(X[test], y[test]))
    assert est.tree_ == tree and est.selected_index_ == k
    np.testing.assert_array_equal(est.test_risk_, risk)
    np.testing.assert_array_equal(est.path_.moments, path.moments)
    # The sample interface without labels: a real target has no classes to find.
    assert InMemorySample(X, y).take(np.arange(3), labels=False)[3] is None
