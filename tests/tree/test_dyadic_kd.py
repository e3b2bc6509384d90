"""Dyadic and KD builders against plain-numpy reference builders of the stated rules."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prunus.tree import Tree, grow_dyadic, grow_kd
from prunus.tree.dyadic import default_dyadic_depth


def _ref_dyadic(X, max_depth, max_nodes):
    """Level-by-level dyadic tree in plain Python (the module docstring's rule)."""
    lo, hi = X.min(0), X.max(0)
    coords = np.flatnonzero(hi > lo)
    m = len(coords)
    if m == 0:
        max_depth = 0
    left, right, feat, thr = [-1], [-1], [-2], [-2.0]
    # per node: rows, box in scaled units (per coordinate)
    rows = [np.arange(X.shape[0])]
    box = [(np.zeros(X.shape[1]), np.ones(X.shape[1]))]
    level = [0]
    for depth in range(max_depth):
        split = [a for a in level if len(rows[a]) >= 2 and len(np.unique(X[rows[a]][:, coords], axis=0)) > 1]
        if not split or len(left) + 2 * len(split) > max_nodes:
            break
        j = coords[depth % m]
        new_level = []
        for a in split:
            b_lo, b_hi = box[a]
            t = 0.5 * (b_lo[j] + b_hi[j])
            raw = lo[j] + t * (hi[j] - lo[j])
            feat[a], thr[a] = j, raw
            go_left = X[rows[a], j] <= raw
            for side, mask in ((0, go_left), (1, ~go_left)):
                child = len(left)
                left.append(-1), right.append(-1), feat.append(-2), thr.append(-2.0)
                rows.append(rows[a][mask])
                c_lo, c_hi = b_lo.copy(), b_hi.copy()
                if side == 0:
                    c_hi[j] = t
                    left[a] = child
                else:
                    c_lo[j] = t
                    right[a] = child
                box.append((c_lo, c_hi))
                new_level.append(child)
        level = new_level
    # number the nodes depth-first (preorder), as grow_dyadic does
    order = []

    def visit(a):
        order.append(a)
        if left[a] != -1:
            visit(left[a])
            visit(right[a])

    visit(0)
    new = {a: i for i, a in enumerate(order)}
    return Tree(
        [new[left[a]] if left[a] != -1 else -1 for a in order],
        [new[right[a]] if right[a] != -1 else -1 for a in order],
        [feat[a] for a in order],
        [thr[a] for a in order],
        X.shape[1],
    )


def _ref_widest(X, r, split):
    """The coordinate of largest standardized range / variance among the non-constant ones."""
    sd = X.std(axis=0)
    best, best_val = None, -1.0
    for j in range(X.shape[1]):
        v = X[r, j]
        if v.max() == v.min():
            continue
        z = v * (1.0 / sd[j])
        val = z.max() - z.min() if split == "range" else float(np.mean((z - z.mean()) ** 2))
        if val > best_val * (1 + 1e-9):  # ties up to rounding go to the lowest coordinate
            best, best_val = j, val
    return best


def _ref_kd(X, max_depth, min_samples_leaf, split="cycle"):
    """Breadth-first KD tree in plain Python (the module docstring's rule)."""
    D = X.shape[1]
    left, right, feat, thr, depth, rows = [-1], [-1], [-2], [-2.0], [0], [np.arange(X.shape[0])]
    node = 0
    while node < len(left):
        r = rows[node]
        k = len(r)
        if k >= 2 * min_samples_leaf and (max_depth is None or depth[node] < max_depth):
            if split == "cycle":
                order = [(depth[node] + tries) % D for tries in range(D)]
            else:
                widest = _ref_widest(X, r, split)
                order = [] if widest is None else [widest]
            for j in order:
                v = np.sort(X[r, j])
                if v[0] == v[-1]:
                    continue
                med = v[math.ceil(k / 2) - 1]
                if med == v[-1]:
                    med = v[v < med].max()
                nxt = v[v > med].min()
                n_left = int((v <= med).sum())
                if n_left < min_samples_leaf or k - n_left < min_samples_leaf:
                    break
                t = 0.5 * (med + nxt)
                if not t < nxt:
                    t = med
                feat[node], thr[node] = j, t
                mask = X[r, j] <= t
                for side, sub in ((0, r[mask]), (1, r[~mask])):
                    child = len(left)
                    left.append(-1), right.append(-1), feat.append(-2), thr.append(-2.0)
                    depth.append(depth[node] + 1)
                    rows.append(sub)
                    if side == 0:
                        left[node] = child
                    else:
                        right[node] = child
                break
        node += 1
    return Tree(left, right, feat, thr, X.shape[1])


def _sample(seed, n, d, discrete):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * rng.uniform(0.1, 10, size=d)
    if discrete:
        X = np.round(X)  # ties and duplicate rows
    if d > 1:
        X[:, rng.integers(d)] = 3.0 if rng.random() < 0.3 else X[:, 0]  # maybe a constant column
    return X


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**31),
    n=st.integers(1, 60),
    d=st.integers(1, 4),
    discrete=st.booleans(),
    depth=st.one_of(st.none(), st.integers(0, 12)),
    budget=st.one_of(st.none(), st.integers(1, 80)),
)
def test_dyadic_matches_reference(seed, n, d, discrete, depth, budget):
    X = _sample(seed, n, d, discrete)
    tree = grow_dyadic(X, max_depth=depth, max_nodes=budget)
    lo, hi = X.min(0), X.max(0)
    m = int((hi > lo).sum())
    ref = _ref_dyadic(
        X, default_dyadic_depth(n, m) if depth is None else depth, 8 * n + 1 if budget is None else budget
    )
    assert tree == ref


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**31),
    n=st.integers(1, 80),
    d=st.integers(1, 4),
    discrete=st.booleans(),
    depth=st.one_of(st.none(), st.integers(0, 8)),
    msl=st.integers(1, 4),
    split=st.sampled_from(["spread", "cycle", "range"]),
)
def test_kd_matches_reference(seed, n, d, discrete, depth, msl, split):
    X = _sample(seed, n, d, discrete)
    tree = grow_kd(X, max_depth=depth, min_samples_leaf=msl, split=split)
    assert tree == _ref_kd(X, depth, msl, split)
    counts = tree.node_counts(X, np.zeros(n, dtype=int), n_classes=1)[:, 0]
    assert counts.min() >= 1 and counts[tree.is_leaf].min() >= min(msl, n)
    assert tree.n_nodes <= 2 * n - 1


def test_dyadic_routing_equals_scaling_and_clipping():
    rng = np.random.default_rng(0)
    X = rng.uniform(-3, 5, size=(500, 3))
    tree = grow_dyadic(X, max_depth=9)
    lo, hi = X.min(0), X.max(0)
    Z = rng.uniform(-6, 8, size=(2000, 3))  # many rows outside the training box
    scaled = np.clip((Z - lo) / (hi - lo), 0, 1)
    # walk the scaled rows down the tree with scaled midpoints
    leaves = np.empty(len(Z), dtype=int)
    for i, z in enumerate(scaled):
        node, box_lo, box_hi = 0, np.zeros(3), np.ones(3)
        while tree.children_left[node] != -1:
            j = tree.feature[node]
            t = 0.5 * (box_lo[j] + box_hi[j])
            if z[j] <= t:
                box_hi[j] = t
                node = tree.children_left[node]
            else:
                box_lo[j] = t
                node = tree.children_right[node]
        leaves[i] = node
    np.testing.assert_array_equal(tree.apply(Z), leaves)


def test_dyadic_properties_and_defaults():
    rng = np.random.default_rng(1)
    X = rng.uniform(size=(1000, 2))
    tree = grow_dyadic(X)
    assert tree.n_nodes <= 8 * 1000 + 1  # |T0| = O(n)
    assert tree.max_depth <= default_dyadic_depth(1000, 2) == 20
    # coordinates cycle with the depth
    internal = ~tree.is_leaf
    np.testing.assert_array_equal(tree.feature[internal], tree.depth[internal] % 2)
    # a leaf is empty, holds identical rows, or sits on the last level
    counts = tree.node_counts(X, np.arange(1000) % 2, n_classes=2).sum(1)
    last = tree.max_depth
    for leaf in np.flatnonzero(tree.is_leaf):
        assert counts[leaf] <= 1 or tree.depth[leaf] >= last - 1
    # identical rows are never split
    Xd = np.repeat(X[:3], 10, axis=0)
    assert grow_dyadic(Xd).n_leaves <= 3 * 2 * 20


def test_kd_default_is_spread_of_standardized_data():
    """The default splits the coordinate of largest standardized variance: a depth-capped tree on many
    features uses them all, not only the first ones as cycling does."""
    rng = np.random.default_rng(4)
    X = rng.uniform(size=(2000, 40)) * rng.uniform(0.01, 100, size=40)  # scales must not matter
    spread = grow_kd(X, max_depth=6)
    assert spread == grow_kd(X, max_depth=6, split="spread")
    cyc = grow_kd(X, max_depth=6, split="cycle")
    internal = ~cyc.is_leaf
    assert set(cyc.feature[internal]) == set(range(6))
    assert len(set(spread.feature[~spread.is_leaf])) > 20
    # below the root (where every standardized variance is 1) a cell splits its coordinate of
    # largest variance relative to the whole sample's
    left = X[X[:, spread.feature[0]] <= spread.threshold[0]]
    assert spread.feature[1] == int(np.argmax(left.var(axis=0) / X.var(axis=0)))
    assert grow_kd(X, max_depth=1, split="range").feature[0] == int(np.argmax(np.ptp(X, axis=0) / X.std(axis=0)))
    # invariance: multiplying features by powers of two changes no partition
    scale = 2.0 ** rng.integers(-20, 20, size=40)
    assert grow_kd(X * scale, max_depth=6).children_left.tolist() == spread.children_left.tolist()
    np.testing.assert_array_equal(grow_kd(X * scale, max_depth=6).feature, spread.feature)
    with pytest.raises(ValueError, match="split"):
        grow_kd(X, split="random")


def test_kd_cycle_ignores_standardization():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(300, 3))
    a = grow_kd(X, split="cycle")
    b = grow_kd(X / X.std(axis=0), split="cycle")
    np.testing.assert_array_equal(a.children_left, b.children_left)
    np.testing.assert_array_equal(a.feature, b.feature)
    np.testing.assert_array_equal(a.apply(X), b.apply(X / X.std(axis=0)))


@pytest.mark.parametrize("builder", [grow_dyadic, grow_kd])
def test_builders_bad_input(builder):
    with pytest.raises(ValueError, match="2-D"):
        builder(np.ones(5))
    with pytest.raises(ValueError, match="NaN"):
        builder(np.array([[0.0], [np.nan]]))
    with pytest.raises(ValueError, match="at least one row"):
        builder(np.ones((0, 2)))
    with pytest.raises(ValueError, match="max_depth"):
        builder(np.ones((3, 2)), max_depth=-1)
    with pytest.raises(TypeError, match="max_depth"):
        builder(np.ones((3, 2)), max_depth=2.5)
