"""A tree made from a grower's node arrays (or from the nodes a mask keeps of
a tree) without the constructor's checks is the constructor's tree, array
for array: the same canonical placeholders, NaN thresholds, cleared bits and
surrogate tables."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from prunus.tree import Tree
from prunus.tree.cart import CARTGrower, GrowthParams

ATTRIBUTES = (
    "children_left",
    "children_right",
    "feature",
    "threshold",
    "missing_go_to_left",
    "n_categories",
    "is_categorical",
    "category_bits",
    "parent",
    "depth",
)


def _identical(a, b):
    assert a.n_features == b.n_features
    for name in ATTRIBUTES:
        u, v = getattr(a, name), getattr(b, name)
        assert u.dtype == v.dtype and u.shape == v.shape, name
        np.testing.assert_array_equal(u, v, err_msg=name)
    assert (a.surrogates is None) == (b.surrogates is None)
    if a.surrogates is not None:
        for name, u, v in zip(a.surrogates._fields, a.surrogates, b.surrogates):
            assert u.dtype == v.dtype and u.shape == v.shape, name
            np.testing.assert_array_equal(u, v, err_msg=name)


def _checked(left, right, feature, threshold, n_features, missing, n_cat, bits, surrogates):
    return Tree(
        left,
        right,
        feature,
        threshold,
        n_features,
        missing_go_to_left=missing,
        n_categories=n_cat,
        category_bits=bits,
        surrogates=surrogates,
    )


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    n=st.integers(2, 80),
    levels=st.lists(st.sampled_from([0, 0, 2, 3, 5, 70]), min_size=1, max_size=4),
    nan_rate=st.sampled_from([0.0, 0.15, 0.4]),
    classes=st.sampled_from([0, 2, 3]),
    max_surrogates=st.sampled_from([0, 2, 5]),
    max_depth=st.sampled_from([None, 1, 3]),
)
def test_trusted_tree_of_grown_nodes_is_the_checked_tree(seed, n, levels, nan_rate, classes, max_surrogates, max_depth):
    rng = np.random.default_rng(seed)
    n_cat = np.array(levels, dtype=np.int64)
    X = np.column_stack([rng.integers(0, L, n) if L else rng.normal(size=n).round(1) for L in levels]).astype(float)
    X[rng.random(X.shape) < nan_rate] = np.nan
    regression = classes == 0
    y = rng.normal(size=n) if regression else rng.integers(0, classes, n)
    grower = CARTGrower(X, y, n_classes=None if regression else classes, n_categories=n_cat, regression=regression)
    criterion = "squared_error" if regression else "gini"
    params = GrowthParams(criterion, max_depth, 2, 1, 0.0, None, None, max_surrogates=max_surrogates)
    w = rng.integers(0, 3, n).astype(float)
    w[0] = 1.0
    grown = grower.grow_arrays(params, w, seed)
    left, right, feature, threshold, missing, _, bits, surrogates = grown
    want = _checked(left, right, feature, threshold, X.shape[1], missing, n_cat, bits.view(np.uint64), surrogates)
    copies = [
        None if a is None else (type(a)(*(x.copy() for x in a)) if isinstance(a, tuple) else a.copy()) for a in grown
    ]
    left, right, feature, threshold, missing, _, bits, surrogates = copies
    got = Tree._of_valid_nodes(left, right, feature, threshold, X.shape[1], missing, n_cat, bits, surrogates)
    _identical(got, want)
    # A pruned subtree (the nodes kept at some temperature) likewise.
    keep = np.ones(want.n_nodes, dtype=bool)
    internal = np.flatnonzero(want.children_left != -1)
    if internal.shape[0]:
        cut = internal[rng.integers(0, internal.shape[0])]
        below = np.zeros(want.n_nodes, dtype=bool)
        stack = [want.children_left[cut], want.children_right[cut]]
        while stack:
            t = stack.pop()
            below[t] = True
            if want.children_left[t] != -1:
                stack += [want.children_left[t], want.children_right[t]]
        keep &= ~below
    sub = want.subtree(keep)
    index = np.flatnonzero(keep)
    kept_surrogates = None
    if want.surrogates is not None:
        from prunus.tree._tree import _kept_surrogates

        kept_surrogates = _kept_surrogates(want.surrogates, index, sub.children_left == -1)
    reference = _checked(
        sub.children_left,
        sub.children_right,
        want.feature[index],
        want.threshold[index],
        want.n_features,
        want.missing_go_to_left[index],
        want.n_categories,
        want.category_bits[index],
        kept_surrogates,
    )
    _identical(sub, reference)


def test_trusted_tree_clears_what_the_constructor_clears():
    # Leaves with stray features / thresholds / sides, bits on a numeric split
    # and beyond a feature's levels: all cleared as the constructor clears them.
    left = np.array([1, -1, -1])
    right = np.array([2, -1, -1])
    feature = np.array([0, 1, 0])
    threshold = np.array([0.0, 3.5, 7.0])
    missing = np.array([True, True, True])
    n_cat = np.array([3, 0])
    bits = np.array([[0b1111_0101], [0b11], [0b1]], dtype=np.int64)
    want = _checked(left, right, feature, threshold, 2, missing, n_cat, bits, None)
    got = Tree._of_valid_nodes(
        left.copy(), right.copy(), feature.copy(), threshold.copy(), 2, missing.copy(), n_cat, bits.copy()
    )
    _identical(got, want)
    assert got.category_bits[0, 0] == 0b101 and np.isnan(got.threshold[0]) and not got.missing_go_to_left[1:].any()


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_nodes=st.integers(1, 40), max_count=st.integers(0, 5))
def test_kept_surrogates_takes_each_kept_internal_nodes_rows_in_order(seed, n_nodes, max_count):
    # Against a plain loop over the kept nodes: the rows of each kept node that
    # stays internal, in node order; none at the nodes that became leaves.
    from prunus.tree._tree import SurrogateSplits, _kept_surrogates

    rng = np.random.default_rng(seed)
    counts = rng.integers(0, max_count + 1, n_nodes)
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    m = int(offsets[-1])
    table = SurrogateSplits(
        offsets,
        rng.integers(0, 6, m),
        rng.random(m),
        rng.random(m) < 0.5,
        rng.integers(0, 2**20, (m, 2)).astype(np.uint64),
        rng.integers(0, 2**20, (m, 2)).astype(np.uint64),
        rng.random(m),
        rng.random(m),
    )
    index = np.sort(rng.choice(n_nodes, rng.integers(1, n_nodes + 1), replace=False)).astype(np.int64)
    new_leaf = rng.random(index.shape[0]) < 0.3
    rows, want_offsets = [], [0]
    for node, leaf in zip(index, new_leaf):
        kept = [] if leaf else list(range(offsets[node], offsets[node + 1]))
        rows += kept
        want_offsets.append(want_offsets[-1] + len(kept))
    take = np.array(rows, dtype=np.int64)
    got = _kept_surrogates(table, index, new_leaf)
    assert got.offsets.dtype == np.int64 and np.array_equal(got.offsets, want_offsets)
    for name, have, full in zip(table._fields[1:], got[1:], table[1:]):
        assert have.dtype == full.dtype and np.array_equal(have, full[take]), name
