"""The random-threshold splitter (extremely randomized trees) against a plain-Python reference.

With every feature searched (``max_features=None``) the only draws are one
uniform number per searched feature, in increasing feature order, node by
node in depth-first order; numba's generator and numpy's legacy
``RandomState`` give the same numbers for one seed, so the reference below
regrows the same tree from scratch: draw, threshold, counts, criterion and
tie rule, without the presorted segments, the partition or the workspace.
"""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from prunus.tree.cart import CARTGrower, GrowthParams, check_growth_params

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _impurity(counts, criterion):
    w = counts.sum()
    if w == 0:
        return 0.0
    p = counts / w
    if criterion == "gini":
        return w * (1.0 - np.sum(p**2))
    return -w * sum(q * math.log(q) for q in p if q > 0)


def reference_tree(X, y, n_classes, criterion, min_samples_leaf, max_depth, seed):
    """Nodes in preorder (left first): (feature, threshold, counts), feature -1 at leaves."""
    rng = np.random.RandomState(seed)
    nodes = []

    def grow(rows, depth):
        counts = np.bincount(y[rows], minlength=n_classes).astype(float)
        node = len(nodes)
        nodes.append([-1, None, counts, -1, -1])
        n = rows.shape[0]
        if (
            np.count_nonzero(counts) <= 1
            or (max_depth is not None and depth >= max_depth)
            or n < 2
            or n < 2 * min_samples_leaf
        ):
            return node
        best = None  # (children impurity, feature, threshold, missing_left)
        tol = 1e-9 * n
        for f in range(X.shape[1]):
            v = X[rows, f]
            present = ~np.isnan(v)
            if not present.any() or (present.all() and v.min() == v.max()):
                continue  # constant or all missing: no draw
            lo, hi = v[present].min(), v[present].max()
            r = rng.random_sample()
            t = lo * (1.0 - r) + hi * r
            if t >= hi or t < lo:
                t = lo
            for missing_left in (False, True) if not present.all() else (False,):
                go_left = (v <= t) | (~present & missing_left)
                n_left = int(go_left.sum())
                if n_left < min_samples_leaf or n - n_left < min_samples_leaf:
                    continue
                left = np.bincount(y[rows][go_left], minlength=n_classes).astype(float)
                score = _impurity(left, criterion) + _impurity(counts - left, criterion)
                if best is None or score < best[0] - tol:
                    best = (score, f, t, missing_left)
        if best is None:
            return node
        _, f, t, missing_left = best
        v = X[rows, f]
        go_left = (v <= t) | (np.isnan(v) & missing_left)
        nodes[node][0], nodes[node][1] = f, t
        nodes[node][3] = grow(rows[go_left], depth + 1)
        nodes[node][4] = grow(rows[~go_left], depth + 1)
        return node

    grow(np.arange(X.shape[0]), 0)
    return nodes


@st.composite
def problems(draw):
    n = draw(st.integers(2, 40))
    d = draw(st.integers(1, 4))
    n_classes = draw(st.integers(2, 3))
    levels = draw(st.sampled_from([3, 10, 1000]))  # few levels: ties and constant features
    seed = draw(st.integers(0, 2**31 - 2))
    rng = np.random.default_rng(seed)
    X = rng.integers(0, levels, size=(n, d)).astype(float) * draw(st.sampled_from([1.0, 0.1, 1e300]))
    if draw(st.booleans()):
        X[rng.random((n, d)) < 0.2] = np.nan
    y = rng.integers(0, n_classes, n)
    y[: min(n, n_classes)] = np.arange(min(n, n_classes))
    params = {
        "criterion": draw(st.sampled_from(["gini", "entropy"])),
        "min_samples_leaf": draw(st.integers(1, 3)),
        "max_depth": draw(st.sampled_from([None, 1, 3])),
    }
    return X, y, n_classes, params, seed


@SETTINGS
@given(problems())
def test_random_splitter_equals_reference(problem):
    X, y, n_classes, p, seed = problem
    params = GrowthParams(p["criterion"], p["max_depth"], 2, p["min_samples_leaf"], 0.0, None, None, "random")
    tree, counts = CARTGrower(X, y, n_classes).grow(params, np.ones(X.shape[0]), seed)
    want = reference_tree(X, y, n_classes, p["criterion"], p["min_samples_leaf"], p["max_depth"], seed)
    assert tree.n_nodes == len(want)
    for node, (f, t, c, left, right) in enumerate(want):
        np.testing.assert_array_equal(counts[node], c)
        assert tree.children_left[node] == left and tree.children_right[node] == right
        if f >= 0:
            assert tree.feature[node] == f
            assert tree.threshold[node] == t


def test_random_thresholds_lie_inside_each_node_and_full_trees_are_pure():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 5))
    y = (X[:, 0] + rng.normal(scale=0.5, size=300) > 0).astype(int)
    params = GrowthParams("gini", None, 2, 1, 0.0, 2, None, "random")
    tree, counts = CARTGrower(X, y, 2).grow(params, np.ones(300), 11)
    leaves = tree.apply(X)
    assert np.all(np.count_nonzero(counts[leaves], axis=1) == 1)  # distinct rows: grown to purity
    visits = tree.decision_path(X).tocsc()
    for node in np.flatnonzero(tree.children_left >= 0):
        v = X[visits[:, node].indices, tree.feature[node]]
        assert v.min() <= tree.threshold[node] < v.max()


def test_bad_splitter_is_named():
    with pytest.raises(ValueError, match="splitter"):
        check_growth_params(GrowthParams("gini", None, 2, 1, 0.0, None, None, "worst"))


@SETTINGS
@given(problems(), st.sampled_from(["best", "random"]))
def test_sorting_segments_at_nodes_grows_the_presorted_tree(problem, splitter):
    """Nodes that sort their segments when searched (as small nodes of wide data
    do) find the splits of nodes whose segments were partitioned."""
    from prunus.tree._grower import grow_depth_first
    from prunus.tree._splitter import GrowthData, Workspace
    from prunus.tree._surrogate import empty_store
    from prunus.tree.cart import _settings, _workspace_arrays

    X, y, n_classes, p, seed = problem
    grower = CARTGrower(X, y, n_classes)
    params = GrowthParams(p["criterion"], p["max_depth"], 2, p["min_samples_leaf"], 0.0, None, None, splitter)
    weight = np.random.default_rng(seed).integers(0, 3, X.shape[0]).astype(float)
    if not weight.any():
        weight[0] = 1.0
    data = GrowthData(grower._columns, grower._codes, weight, False)
    grown = []
    for sort_cost in (np.inf, 0.0):  # never, or below the root always, sorted when searched
        settings = _settings(params, X.shape[0], X.shape[1], n_classes, seed)._replace(sort_cost=sort_cost)
        work = Workspace(*_workspace_arrays(grower.order, weight, n_classes, 0, np.zeros(0, dtype=bool)))
        grown.append(grow_depth_first(data, work, settings, empty_store()))
    for a, b in zip(*grown):
        np.testing.assert_array_equal(a, b)
