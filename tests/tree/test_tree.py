"""Tests of the shared Tree: routing, per-node counts, pruning, validation, export.

Everything is checked two ways: against scikit-learn where the quantity is the
same (apply, decision_path, ``tree_.value * weighted_n_node_samples``) and
against a pure-Python brute force that routes each row by hand on random trees
built directly from arrays.
"""

import pickle
import random
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import datasets as skd
from sklearn.tree import DecisionTreeClassifier

import prunus.tree._tree as tree_module
from prunus.tree import Tree, export_text, grow_cart, plot_tree, to_dot

# Thresholds and feature values on one coarse grid, so that rows often land
# exactly on a threshold (x == threshold must go left).
GRID = [-1.0, -0.5, 0.0, 0.5, 1.0, 1.5]
SETTINGS = settings(max_examples=60, deadline=None)


# --------------------------------------------------------------- helpers
@st.composite
def random_tree_arrays(draw, max_splits=12):
    """Arrays of a random valid tree, with node ids in a random topological order."""
    n_features = draw(st.integers(1, 4))
    n_splits = draw(st.integers(0, max_splits))
    left, right, feature, threshold = [-1], [-1], [-2], [-2.0]
    leaves = [0]
    for _ in range(n_splits):
        node = leaves.pop(draw(st.integers(0, len(leaves) - 1)))
        left[node], right[node] = len(left), len(left) + 1
        feature[node] = draw(st.integers(0, n_features - 1))
        threshold[node] = draw(st.sampled_from(GRID))
        left += [-1, -1]
        right += [-1, -1]
        feature += [-2, -2]
        threshold += [-2.0, -2.0]
        leaves += [len(left) - 2, len(left) - 1]
    # Relabel the nodes in a random order that still numbers parents first:
    # repeatedly pick any node whose parent already has an id.
    rng = random.Random(draw(st.integers(0, 2**31)))
    n = len(left)
    new_id = [-1] * n
    frontier, nxt = [0], 0
    while frontier:
        node = frontier.pop(rng.randrange(len(frontier)))
        new_id[node], nxt = nxt, nxt + 1
        if left[node] != -1:
            frontier += [left[node], right[node]]
    arrays = dict(children_left=[-1] * n, children_right=[-1] * n, feature=[-2] * n, threshold=[-2.0] * n)
    for old in range(n):
        new = new_id[old]
        if left[old] != -1:
            arrays["children_left"][new] = new_id[left[old]]
            arrays["children_right"][new] = new_id[right[old]]
            arrays["feature"][new] = feature[old]
            arrays["threshold"][new] = threshold[old]
    arrays["n_features"] = n_features
    return arrays


@st.composite
def tree_and_sample(draw, max_splits=12, max_rows=40):
    arrays = draw(random_tree_arrays(max_splits=max_splits))
    n_rows = draw(st.integers(0, max_rows))
    seed = draw(st.integers(0, 2**31))
    rng = np.random.RandomState(seed)
    # Mostly grid values (ties with thresholds), some continuous ones.
    X = rng.choice(GRID, size=(n_rows, arrays["n_features"]))
    noise = rng.random_sample(X.shape) < 0.3
    X[noise] = rng.uniform(-1.5, 2.0, size=noise.sum())
    n_classes = draw(st.integers(1, 4))
    y = rng.randint(0, n_classes, size=n_rows)
    w = rng.choice([0.0, 0.5, 1.0, 2.0, 3.25], size=n_rows)
    return arrays, X, y, w, n_classes, rng


def brute_path(arrays, x):
    """Node ids visited by row x, root first, routed by hand."""
    left, right = arrays["children_left"], arrays["children_right"]
    node, path = 0, [0]
    while left[node] != -1:
        go_left = x[arrays["feature"][node]] <= arrays["threshold"][node]
        node = left[node] if go_left else right[node]
        path.append(node)
    return path


def brute_parent(arrays):
    parent = [-1] * len(arrays["children_left"])
    for node, (l, r) in enumerate(zip(arrays["children_left"], arrays["children_right"])):
        if l != -1:
            parent[l] = parent[r] = node
    return parent


def tiny_tree():
    """x[0] <= 0.5 ? leaf 1 : (x[1] <= 1.25 ? leaf 3 : leaf 4)."""
    return Tree([1, -1, 3, -1, -1], [2, -1, 4, -1, -1], [0, -2, 1, -2, -2], [0.5, -2.0, 1.25, -2.0, -2.0], n_features=2)


def fitted_sklearn(name, sample_weight_kind, random_state=0, **params):
    X, y = getattr(skd, f"load_{name}")(return_X_y=True)
    rng = np.random.RandomState(random_state)
    if sample_weight_kind == "none":
        w = None
    elif sample_weight_kind == "int":
        w = rng.randint(1, 4, size=X.shape[0]).astype(float)
    else:
        w = rng.uniform(0.1, 3.0, size=X.shape[0])
    est = DecisionTreeClassifier(random_state=random_state, **params).fit(X, y, sample_weight=w)
    return est, X, y, w


SK_CASES = [
    ("iris", "none", {}),
    ("iris", "float", {"max_depth": 3}),
    ("wine", "int", {}),
    ("breast_cancer", "float", {"min_samples_leaf": 3}),
    ("digits", "none", {"max_depth": 8}),
    ("digits", "int", {"criterion": "entropy"}),
]


# ------------------------------------------------- scikit-learn agreement
@pytest.mark.parametrize("name,weights,params", SK_CASES)
def test_apply_decision_path_node_counts_match_sklearn(name, weights, params):
    est, X, y, w = fitted_sklearn(name, weights, **params)
    tree = Tree.from_sklearn(est)
    sk = est.tree_
    assert tree.n_nodes == sk.node_count
    assert tree.n_leaves == sk.n_leaves
    assert tree.max_depth == sk.max_depth
    np.testing.assert_array_equal(tree.apply(X), est.apply(X))
    path, sk_path = tree.decision_path(X), est.decision_path(X)
    assert path.dtype == sk_path.dtype == np.int64
    np.testing.assert_array_equal(path.toarray(), sk_path.toarray())
    # Node co-occurrence counts (no overflow of a narrow indicator dtype).
    np.testing.assert_array_equal((path.T @ path).toarray(), (sk_path.T @ sk_path).toarray())
    codes = np.searchsorted(est.classes_, y)
    counts = tree.node_counts(X, codes, n_classes=len(est.classes_), sample_weight=w)
    expected = sk.value[:, 0, :] * sk.weighted_n_node_samples[:, None]
    np.testing.assert_allclose(counts, expected, rtol=1e-10, atol=1e-9)
    # Fresh rows (cast through float32, which is what scikit-learn compares).
    rng = np.random.RandomState(1)
    Z = X[rng.randint(0, X.shape[0], 300)] + rng.normal(scale=X.std(axis=0) * 0.3 + 1e-3, size=(300, X.shape[1]))
    Z = Z.astype(np.float32).astype(np.float64)
    np.testing.assert_array_equal(tree.apply(Z), est.apply(Z))
    np.testing.assert_array_equal(tree.decision_path(Z).toarray(), est.decision_path(Z).toarray())


def test_from_sklearn_accepts_tree_attribute_and_rejects_other_objects():
    est, X, _, _ = fitted_sklearn("iris", "none")
    assert Tree.from_sklearn(est.tree_) == Tree.from_sklearn(est)
    with pytest.raises(TypeError, match="estimator"):
        Tree.from_sklearn(DecisionTreeClassifier())  # not fitted
    with pytest.raises(TypeError, match="estimator"):
        Tree.from_sklearn(object())


def test_parent_depth_leaves_below_match_sklearn():
    est, X, _, _ = fitted_sklearn("wine", "none")
    tree = Tree.from_sklearn(est)
    sk = est.tree_
    parent = np.full(sk.node_count, -1)
    for node in range(sk.node_count):
        if sk.children_left[node] != -1:
            parent[sk.children_left[node]] = parent[sk.children_right[node]] = node
    np.testing.assert_array_equal(tree.parent, parent)
    np.testing.assert_array_equal(tree.depth, sk.compute_node_depths() - 1)
    # Leaves below a node = number of distinct leaves its rows reach on a dense sample.
    paths = tree.decision_path(X).toarray().astype(bool)
    leaves = tree.is_leaf
    below = tree.leaves_below()
    assert below[0] == tree.n_leaves
    for node in range(tree.n_nodes):
        # every leaf of scikit-learn's tree holds >= 1 training row, so this counts all of them
        assert below[node] == np.count_nonzero(paths[:, node][:, None] & paths[:, leaves], axis=0).astype(bool).sum()


# ----------------------------------------------- brute force on random trees
@SETTINGS
@given(tree_and_sample())
def test_routing_and_counts_match_brute_force(case):
    arrays, X, y, w, n_classes, _ = case
    tree = Tree(**arrays)
    n = tree.n_nodes
    np.testing.assert_array_equal(tree.parent, brute_parent(arrays))
    paths = [brute_path(arrays, x) for x in X]
    leaves = np.array([p[-1] for p in paths], dtype=np.int64)
    got = tree.apply(X)
    assert got.dtype == np.int64 and got.shape == (X.shape[0],)
    np.testing.assert_array_equal(got, leaves)
    dense = np.zeros((X.shape[0], n), dtype=np.int64)
    counts = np.zeros((n, n_classes))
    unweighted = np.zeros((n, n_classes))
    for i, path in enumerate(paths):
        dense[i, path] = 1
        counts[path, y[i]] += w[i]
        unweighted[path, y[i]] += 1
    dp = tree.decision_path(X)
    assert dp.shape == (X.shape[0], n)
    np.testing.assert_array_equal(dp.toarray(), dense)
    for i, path in enumerate(paths):  # CSR rows list the path root first, like scikit-learn
        np.testing.assert_array_equal(dp.indices[dp.indptr[i] : dp.indptr[i + 1]], path)
    np.testing.assert_allclose(tree.node_counts(X, y, sample_weight=w, n_classes=n_classes), counts, atol=1e-12)
    np.testing.assert_allclose(tree.node_counts(X, y, n_classes=n_classes), unweighted, atol=1e-12)
    for node in range(n):
        assert tree.depth[node] == len(brute_path_to(arrays, node)) - 1


def brute_path_to(arrays, target):
    parent = brute_parent(arrays)
    path = [target]
    while parent[path[-1]] != -1:
        path.append(parent[path[-1]])
    return path


@SETTINGS
@given(tree_and_sample(max_splits=10, max_rows=30), st.data())
def test_prune_subtree_keep_mask_match_brute_force(case, data):
    arrays, X, y, w, n_classes, rng = case
    tree = Tree(**arrays)
    n = tree.n_nodes
    collapse = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
    # keep_mask: a node stays iff none of its strict ancestors is collapsed.
    expected_keep = np.array([not any(collapse[a] for a in brute_path_to(arrays, v)[1:]) for v in range(n)])
    keep = tree.keep_mask(collapse)
    np.testing.assert_array_equal(keep, expected_keep)

    for pruned, index in (
        tree.prune(collapse, return_index=True),
        tree.prune(np.flatnonzero(collapse), return_index=True),
        tree.prune(np.flatnonzero(collapse).tolist(), return_index=True),
        tree.subtree(keep, return_index=True),
    ):
        np.testing.assert_array_equal(index, np.flatnonzero(expected_keep))
        assert pruned.n_features == tree.n_features
        # Internal nodes of the pruned tree keep their split; kept nodes that were
        # collapsed (or were leaves) are leaves.
        new_leaf = collapse[index] | tree.is_leaf[index]
        np.testing.assert_array_equal(pruned.is_leaf, new_leaf)
        np.testing.assert_array_equal(pruned.feature[~new_leaf], tree.feature[index][~new_leaf])
        np.testing.assert_array_equal(pruned.threshold[~new_leaf], tree.threshold[index][~new_leaf])
        np.testing.assert_array_equal(pruned.feature[new_leaf], -2)
        # Every row lands on the deepest kept ancestor of its original leaf, i.e.
        # the first node on its path that is collapsed (or its leaf).
        expected = []
        for x in X:
            path = brute_path(arrays, x)
            stop = next(v for v in path if collapse[v] or v == path[-1])
            expected.append(stop)
        np.testing.assert_array_equal(index[pruned.apply(X)], np.array(expected, dtype=np.int64))
        # Counts of the pruned tree are the original counts of the kept nodes.
        np.testing.assert_allclose(
            pruned.node_counts(X, y, w, n_classes=n_classes),
            tree.node_counts(X, y, w, n_classes=n_classes)[index],
            atol=1e-12,
        )
        # Every node of a pruned tree has the parent id invariant.
        assert np.all(pruned.parent[1:] < np.arange(1, pruned.n_nodes))
    # prune without index returns the same tree; pruning nothing is the identity.
    assert tree.prune(collapse) == tree.subtree(keep)
    assert tree.prune([]) == tree
    assert tree.prune(np.zeros(n, dtype=bool)) == tree
    assert tree.prune([0]).n_nodes == 1


@SETTINGS
@given(random_tree_arrays())
def test_parallel_apply_kernel_agrees(arrays):
    tree = Tree(**arrays)
    X = np.random.RandomState(0).choice(GRID, size=(50, tree.n_features))
    serial = tree.apply(X)
    old = tree_module._PARALLEL_APPLY_MIN_ROWS
    tree_module._PARALLEL_APPLY_MIN_ROWS = 1
    try:
        parallel = tree.apply(X)
    finally:
        tree_module._PARALLEL_APPLY_MIN_ROWS = old
    np.testing.assert_array_equal(parallel, serial)


def test_parallel_apply_used_on_large_input_agrees_with_sklearn():
    X, y = skd.make_classification(n_samples=4000, n_features=6, random_state=0)
    est = DecisionTreeClassifier(random_state=0).fit(X, y)
    tree = Tree.from_sklearn(est)
    big = np.tile(X, (55, 1)).astype(np.float32).astype(np.float64)  # 220,000 rows > threshold
    assert big.shape[0] >= tree_module._PARALLEL_APPLY_MIN_ROWS
    np.testing.assert_array_equal(tree.apply(big), np.tile(est.apply(X.astype(np.float32)), 55))


def test_threshold_ties_go_left():
    tree = tiny_tree()
    X = np.array([[0.5, 9.0], [np.nextafter(0.5, 1.0), 1.25], [0.6, np.nextafter(1.25, 2.0)], [-3.0, -3.0]])
    np.testing.assert_array_equal(tree.apply(X), [1, 3, 4, 1])


def test_single_leaf_tree_and_empty_sample():
    tree = Tree([-1], [-1], [5], [3.0], n_features=3)
    assert (tree.n_nodes, tree.n_leaves, tree.max_depth) == (1, 1, 0)
    assert tree.feature[0] == -2 and tree.threshold[0] == -2.0
    X = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(tree.apply(X), [0, 0])
    np.testing.assert_array_equal(tree.node_counts(X, [0, 2], sample_weight=[1.0, 2.0]), [[1.0, 0.0, 2.0]])
    empty = np.empty((0, 3))
    assert tree.apply(empty).shape == (0,)
    assert tree.decision_path(empty).shape == (0, 1)
    np.testing.assert_array_equal(tree.node_counts(empty, np.empty(0, dtype=int), n_classes=2), [[0.0, 0.0]])


# ------------------------------------------------------------ validation
def _arrays(**changes):
    base = dict(
        children_left=[1, -1, 3, -1, -1],
        children_right=[2, -1, 4, -1, -1],
        feature=[0, -2, 1, -2, -2],
        threshold=[0.5, -2.0, 1.25, -2.0, -2.0],
        n_features=2,
    )
    base.update(changes)
    return base


@pytest.mark.parametrize(
    "changes,argument",
    [
        (dict(children_left=[], children_right=[], feature=[], threshold=[]), "children_left"),
        (dict(children_left=[[1, -1, 3, -1, -1]]), "children_left"),
        (dict(children_right=[2, -1, 4, -1]), "children_right"),
        (dict(feature=[0, -2, 1, -2]), "feature"),
        (dict(threshold=[0.5, -2.0, 1.25, -2.0]), "threshold"),
        (dict(n_features=0), "n_features"),
        (dict(children_right=[2, -1, -1, -1, -1]), "children_right"),
        (dict(children_left=[1, -1, 0, -1, -1]), "children_left"),  # child id below parent
        (dict(children_right=[2, -1, 7, -1, -1]), "children_right"),  # child id out of range
        (dict(children_left=[1, -1, 1, -1, -1], children_right=[2, -1, 4, -1, -1]), "children_left"),  # two parents
        (dict(children_left=[1, -1, -1, -1, -1], children_right=[2, -1, -1, -1, -1]), "children_left"),  # unreachable
        (dict(feature=[0, -2, 2, -2, -2]), "feature"),
        (dict(feature=[-1, -2, 1, -2, -2]), "feature"),
        (dict(threshold=[0.5, -2.0, np.nan, -2.0, -2.0]), "threshold"),
        (dict(threshold=[-np.inf, -2.0, 1.25, -2.0, -2.0]), "threshold"),
    ],
)
def test_constructor_validation_names_argument(changes, argument):
    with pytest.raises(ValueError, match=argument):
        Tree(**_arrays(**changes))


def _structure_rule_broken(left, right, feature, threshold, n_features):
    """Reference: the first broken structure rule, written with whole-array numpy operations."""
    leaf = left == -1
    if np.any(leaf != (right == -1)):
        return "-1 at the same nodes"
    ids = np.arange(left.shape[0])
    children = np.concatenate([left[~leaf], right[~leaf]])
    parents = np.concatenate([ids[~leaf], ids[~leaf]])
    if np.any(children <= parents) or np.any(children >= left.shape[0]):
        return "larger than its parent"
    if children.size and np.bincount(children, minlength=left.shape[0]).max() > 1:
        return "child of two nodes"
    if children.shape[0] != left.shape[0] - 1:
        return "reachable from the root"
    f = feature[~leaf]
    if f.size and (f.min() < 0 or f.max() >= n_features):
        return "outside 0 .. n_features - 1"
    t = threshold[~leaf]
    if np.isnan(t).any() or (t == -np.inf).any():
        return "not NaN or -inf"
    return None


def _draw_tree_arrays(data):
    """A valid tree (children numbered after their parents), then up to two drawn defects."""
    left, right = [-1], [-1]
    for _ in range(data.draw(st.integers(0, 4))):
        leaves = [i for i in range(len(left)) if left[i] == -1]
        node = data.draw(st.sampled_from(leaves))
        left[node], right[node] = len(left), len(left) + 1
        left += [-1, -1]
        right += [-1, -1]
    n = len(left)
    left, right = np.array(left), np.array(right)
    feature = np.array(data.draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)))
    threshold = np.array(data.draw(st.lists(st.sampled_from([0.5, -1.0, np.inf]), min_size=n, max_size=n)))
    for _ in range(data.draw(st.integers(0, 2))):
        node = data.draw(st.integers(0, n - 1))
        defect = data.draw(st.sampled_from(["one leaf side", "child", "twice", "leaf", "feature", "threshold"]))
        if defect == "one leaf side":
            right[node] = -1
        elif defect == "twice":  # one node listed as both children
            right[node] = left[node]
        elif defect == "child":
            (left if data.draw(st.booleans()) else right)[node] = data.draw(st.integers(-3, n + 1))
        elif defect == "leaf":
            left[node] = right[node] = -1
        elif defect == "feature":
            feature[node] = data.draw(st.sampled_from([-1, 3, 7]))
        else:
            threshold[node] = data.draw(st.sampled_from([np.nan, -np.inf]))
    return left, right, feature, threshold


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_structure_check_reports_the_first_broken_rule(data):
    left, right, feature, threshold = _draw_tree_arrays(data)
    expected = _structure_rule_broken(left, right, feature, threshold, 3)
    if expected is None:
        tree = Tree(left, right, feature, threshold, n_features=3)
        assert tree.n_nodes == left.shape[0]
    else:
        with pytest.raises(ValueError, match=re.escape(expected)):
            Tree(left, right, feature, threshold, n_features=3)


def test_constructor_ignores_leaf_fields_and_copies_inputs():
    left = np.array([1, -1, 3, -1, -1])
    right = np.array([2, -1, 4, -1, -1])
    tree = Tree(left, right, [0, 7, 1, 9, -5], [0.5, np.nan, 1.25, np.inf, 3.0], n_features=2)
    np.testing.assert_array_equal(tree.feature, [0, -2, 1, -2, -2])
    np.testing.assert_array_equal(tree.threshold, [0.5, -2.0, 1.25, -2.0, -2.0])
    assert tree == tiny_tree()
    left[2] = -1  # mutating the caller's arrays must not change the tree
    right[2] = -1
    assert tree == tiny_tree()
    for name in ("children_left", "children_right", "feature", "parent", "depth"):
        assert getattr(tree, name).dtype == np.int64
    assert tree.threshold.dtype == np.float64


@pytest.mark.parametrize(
    "X,argument",
    [
        (np.zeros(2), "X"),
        (np.zeros((3, 3)), "features"),
        (np.array([[np.inf, 0.0]]), "infinity"),
        (np.array([[0.0, -np.inf]]), "infinity"),
    ],
)
def test_routing_rejects_bad_X(X, argument):
    tree = tiny_tree()
    for call in (tree.apply, tree.decision_path, lambda Z: tree.node_counts(Z, np.zeros(len(Z), int))):
        with pytest.raises(ValueError, match=argument):
            call(X)


def test_node_counts_signature_weights_third_n_classes_keyword():
    X = np.array([[0.0, 0.0], [1.0, 1.0], [1.0, 2.0]])
    w = np.array([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(tiny_tree().node_counts(X, [0, 1, 1], w)[0], [1.0, 5.0])
    np.testing.assert_array_equal(tiny_tree().node_counts(X, [0, 1, 1], n_classes=np.int32(3))[0], [1.0, 2.0, 0.0])
    for bad in (2.5, 0, True, np.array([3])):
        with pytest.raises(TypeError, match="n_classes"):
            tiny_tree().node_counts(X, [0, 1, 1], n_classes=bad)


@pytest.mark.parametrize(
    "kwargs,argument",
    [
        (dict(y=[0, 1]), "y"),
        (dict(y=[0.0, 1.0, 1.0]), "y"),
        (dict(y=[0, -1, 1]), "y"),
        (dict(y=[0, 3, 1], n_classes=3), "n_classes"),
        (dict(y=[0, 1, 1], sample_weight=[1.0, -1.0, 1.0]), "sample_weight"),
        (dict(y=[0, 1, 1], sample_weight=[1.0, np.nan, 1.0]), "sample_weight"),
        (dict(y=[0, 1, 1], sample_weight=[1.0, 1.0]), "sample_weight"),
    ],
)
def test_node_counts_rejects_bad_input(kwargs, argument):
    X = np.array([[0.0, 0.0], [1.0, 1.0], [1.0, 2.0]])
    with pytest.raises(ValueError, match=argument):
        tiny_tree().node_counts(X, **kwargs)


def test_prune_and_subtree_validation():
    tree = tiny_tree()
    with pytest.raises(ValueError, match="nodes"):
        tree.prune([5])
    with pytest.raises(ValueError, match="nodes"):
        tree.prune([-1])
    with pytest.raises(ValueError, match="nodes"):
        tree.prune(np.zeros(3, dtype=bool))
    with pytest.raises(TypeError, match="nodes"):
        tree.prune([1.5])
    with pytest.raises(ValueError, match="keep"):
        tree.subtree([False, True, True, True, True])  # drops the root
    with pytest.raises(ValueError, match="keep"):
        tree.subtree([True, True, False, True, True])  # keeps children of a removed node
    with pytest.raises(ValueError, match="keep"):
        tree.subtree([True, True, True, True, False])  # keeps one child only
    with pytest.raises(ValueError, match="keep"):
        tree.subtree([True, True])
    with pytest.raises(ValueError, match="collapse"):
        tree.keep_mask([2])  # ids instead of a mask
    pruned, index = tree.prune([2], return_index=True)
    assert pruned == Tree([1, -1, -1], [2, -1, -1], [0, -2, -2], [0.5, -2.0, -2.0], 2)
    np.testing.assert_array_equal(index, [0, 1, 2])


# --------------------------------------------------------------- pickling
def test_pickle_round_trip_is_exact():
    est, X, y, _ = fitted_sklearn("digits", "none")
    tree = Tree.from_sklearn(est)
    clone = pickle.loads(pickle.dumps(tree, protocol=pickle.HIGHEST_PROTOCOL))
    assert clone == tree and clone is not tree
    for name in ("children_left", "children_right", "feature", "threshold", "parent", "depth"):
        a, b = getattr(tree, name), getattr(clone, name)
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
    assert clone.n_features == tree.n_features
    np.testing.assert_array_equal(clone.apply(X), tree.apply(X))
    np.testing.assert_array_equal(clone.node_counts(X, y), tree.node_counts(X, y))
    assert (clone.decision_path(X) != tree.decision_path(X)).nnz == 0


def test_equality():
    tree = tiny_tree()
    assert tree == tiny_tree()
    assert tree != Tree(**_arrays(threshold=[0.5, -2.0, 1.5, -2.0, -2.0]))
    assert tree != Tree(**_arrays(n_features=3))
    assert tree != Tree(**_arrays(feature=[1, -2, 1, -2, -2]))
    assert (tree == "tree") is False
    with pytest.raises(TypeError):
        hash(tree)
    assert repr(tree) == "Tree(n_nodes=5, n_leaves=3, max_depth=2, n_features=2)"


# ---------------------------------------------------------------- export
TINY_TEXT = """\
|--- x[0] <= 0.5
|   |--- leaf 1
|--- x[0] >  0.5
|   |--- x[1] <= 1.25
|   |   |--- leaf 3
|   |--- x[1] >  1.25
|   |   |--- leaf 4
"""

TINY_TEXT_NAMED = """\
|--- a <= 0.5
|   |--- leaf 1 class: A
|--- a >  0.5
|   |--- b <= 1.2
|   |   |--- leaf 3 class: B
|   |--- b >  1.2
|   |   |--- leaf 4 class: C
"""

TINY_DOT = """\
digraph Tree {
node [shape=box, fontname="helvetica"];
0 [label="x[0] <= 0.5"];
1 [label="leaf 1"];
0 -> 1;
2 [label="x[1] <= 1.25"];
0 -> 2;
3 [label="leaf 3"];
2 -> 3;
4 [label="leaf 4"];
2 -> 4;
}
"""


def test_export_text_exact():
    tree = tiny_tree()
    assert tree.export_text() == TINY_TEXT
    assert export_text(tree) == TINY_TEXT
    labels = ["r", "A", "i", "B", "C"]
    assert tree.export_text(feature_names=["a", "b"], node_labels=labels, decimals=1) == TINY_TEXT_NAMED
    assert Tree([-1], [-1], [-2], [-2.0], 1).export_text() == "|--- leaf 0\n"


def test_to_dot_exact():
    tree = tiny_tree()
    assert tree.to_dot() == TINY_DOT
    assert to_dot(tree) == TINY_DOT
    named = tree.to_dot(feature_names=["a", "b"], node_labels=["r", "A", "i", "B", "C"], decimals=1)
    assert '0 [label="a <= 0.5"];' in named
    assert '2 [label="b <= 1.2"];' in named
    assert '4 [label="leaf 4\\nclass = C"];' in named


def test_to_dot_escapes_quotes():
    dot = tiny_tree().to_dot(feature_names=['say "hi"', "b\\c"], node_labels=["", '"', "", "", ""])
    assert '0 [label="say \\"hi\\" <= 0.5"];' in dot
    assert '2 [label="b\\\\c <= 1.25"];' in dot
    assert '1 [label="leaf 1\\nclass = \\""];' in dot


@pytest.mark.parametrize("call", [export_text, to_dot, plot_tree])
def test_export_validates_names_and_labels(call):
    tree = tiny_tree()
    with pytest.raises(ValueError, match="feature_names"):
        call(tree, feature_names=["a"])
    with pytest.raises(ValueError, match="node_labels"):
        call(tree, node_labels=["x", "y"])
    with pytest.raises(ValueError, match="feature_names"):
        call(Tree([-1], [-1], [-2], [-2.0], 2), feature_names=["a", "b", "c"])


def test_plot_returns_axes():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.axes import Axes

    tree = tiny_tree()
    ax = tree.plot(feature_names=["a", "b"], node_labels=["", "A", "", "B", "C"])
    assert isinstance(ax, Axes)
    texts = [t.get_text() for t in ax.texts]
    assert len(texts) == tree.n_nodes
    assert "a\n<= 0.5" in texts and "C" in texts
    assert len(ax.lines) == tree.n_nodes - 1  # one edge per non-root node
    fig, given_ax = plt.subplots()
    assert plot_tree(tree, ax=given_ax) is given_ax
    plt.close("all")


# ------------------------------------------------------------- grow_cart
@pytest.mark.parametrize(
    "name,weights,params",
    [
        ("iris", "none", {}),
        ("wine", "float", {"criterion": "entropy"}),
        ("breast_cancer", "int", {"max_depth": 4}),
        ("digits", "none", {"min_samples_leaf": 5, "criterion": "log_loss"}),
    ],
)
def test_grow_cart_root_gain_and_counts_match_sklearn(name, weights, params):
    # Real data has tied candidates, which scikit-learn breaks by a random
    # feature order and prunus by the lowest feature: the trees may differ,
    # but the best impurity decrease at the root is unique.
    est, X, y, w = fitted_sklearn(name, weights, random_state=3, **params)
    codes = np.searchsorted(est.classes_, y)
    tree, counts = grow_cart(X, y, sample_weight=w, random_state=3, return_counts=True, **params)
    assert isinstance(tree, Tree)
    np.testing.assert_allclose(counts, tree.node_counts(X, codes, w), rtol=1e-12)
    sk = est.tree_

    def root_decrease(t, impurity, weight):
        left, right = t.children_left[0], t.children_right[0]
        return weight[0] * impurity[0] - weight[left] * impurity[left] - weight[right] * impurity[right]

    criterion = params.get("criterion", "gini")
    p = counts / counts.sum(axis=1, keepdims=True)
    if criterion == "gini":
        impurity = 1.0 - (p**2).sum(axis=1)
    else:
        impurity = -(np.where(p > 0, p * np.log2(np.where(p > 0, p, 1.0)), 0.0)).sum(axis=1)
    ours = root_decrease(tree, impurity, counts.sum(axis=1))
    theirs = root_decrease(sk, sk.impurity, sk.weighted_n_node_samples)
    assert ours == pytest.approx(theirs, rel=1e-6)
    if not params:
        # Default T_max has pure leaves (up to duplicated rows with different labels).
        leaf_counts = counts[tree.is_leaf]
        assert np.all((leaf_counts > 0).sum(axis=1) == 1)


def test_grow_cart_string_labels_and_bad_input():
    X, y = skd.load_iris(return_X_y=True)
    names = np.array(["setosa", "versicolor", "virginica"])[y]
    assert grow_cart(X, names, random_state=0) == grow_cart(X, y, random_state=0)
    with pytest.raises(ValueError):
        grow_cart(X, y, criterion="nope")
    with pytest.raises(ValueError):
        grow_cart(X[:, 0], y)


def test_plot_does_not_switch_the_callers_backend():
    import matplotlib
    import matplotlib.pyplot as plt

    before = matplotlib.get_backend()
    try:
        plt.switch_backend("svg")
        ax = tiny_tree().plot()
        assert matplotlib.get_backend().lower() == "svg"
        assert ax.figure is not None
    finally:
        plt.close("all")
        plt.switch_backend(before)


@pytest.mark.parametrize("bad", [np.inf, -np.inf])
def test_grow_cart_rejects_infinite_X(bad):
    X = np.arange(8.0).reshape(4, 2)
    X[1, 0] = bad
    with pytest.raises(ValueError, match="X contains infinity"):
        grow_cart(X, [0, 1, 0, 1])
