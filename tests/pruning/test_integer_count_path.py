"""The compiled pruning path of integer class counts is the numpy one, bit
for bit; other counts take the numpy path."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prunus.pruning import cost_complexity_path
from prunus.pruning import path as path_module
from prunus.pruning._path_kernels import integer_count_path
from prunus.tree._testing import counts_from_leaves, random_tree


def _numpy_path(tree, counts):
    """The path of ``path._cost_complexity_path``'s numpy branch."""
    label = path_module.node_labels(tree, counts)
    node_risk = path_module._node_loss(counts, label, None)
    weight = counts.sum(axis=1)[0]
    alphas, collapse = path_module._weakest_links(tree, node_risk, weight)
    path = path_module.CostComplexityPath(tree, counts, alphas, None, None, collapse, label)
    return path_module._fill_sizes(path, node_risk, weight)


def _assert_same_path(path, reference):
    for name in ("alphas", "collapse_alpha", "label", "n_leaves", "risks"):
        ours, theirs = getattr(path, name), getattr(reference, name)
        assert ours.dtype == theirs.dtype, name
        np.testing.assert_array_equal(ours, theirs, err_msg=name)
    assert path.loss is None


def _counts(rng, tree, n_leaves, n_classes, max_count, empty):
    leaf_counts = rng.integers(0, max_count + 1, size=(n_leaves, n_classes)).astype(float)
    if empty:
        # Leaves without weight (they predict their parent's class).
        leaf_counts[rng.random(n_leaves) < 0.4] = 0.0
    leaf_counts[0, 0] += 1  # a positive total weight
    return np.ascontiguousarray(counts_from_leaves(tree, leaf_counts))


@settings(max_examples=200, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    n_leaves=st.integers(1, 40),
    n_classes=st.integers(2, 12),
    max_count=st.sampled_from([1, 3, 50, 10**6]),
    empty=st.booleans(),
)
def test_integer_counts_give_the_numpy_path(seed, n_leaves, n_classes, max_count, empty):
    rng = np.random.default_rng(seed)
    tree = random_tree(rng, n_leaves - 1, n_features=3)
    counts = _counts(rng, tree, n_leaves, n_classes, max_count, empty)
    ok, *_ = integer_count_path(tree.children_left, tree.children_right, tree.parent, counts, True)
    assert ok
    _assert_same_path(cost_complexity_path(tree, counts), _numpy_path(tree, counts))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n_leaves=st.integers(1, 20))
def test_without_sizes(seed, n_leaves):
    rng = np.random.default_rng(seed)
    tree = random_tree(rng, n_leaves - 1, n_features=2)
    counts = _counts(rng, tree, n_leaves, 3, 9, True)
    path = path_module._cost_complexity_path(tree, counts, None, sizes=False)
    reference = _numpy_path(tree, counts)
    for name in ("alphas", "collapse_alpha", "label"):
        np.testing.assert_array_equal(getattr(path, name), getattr(reference, name))
    assert not hasattr(path, "n_leaves") and not hasattr(path, "risks")


@pytest.mark.parametrize("kind", ["fraction", "huge"])
def test_other_counts_take_the_numpy_path(kind):
    rng = np.random.default_rng(3)
    tree = random_tree(rng, 7, n_features=3)
    counts = _counts(rng, tree, 8, 3, 20, False)
    if kind == "fraction":
        counts = np.ascontiguousarray(counts / 3.0)
    else:
        counts = np.ascontiguousarray(counts * 2.0**50)
    ok, *_ = integer_count_path(tree.children_left, tree.children_right, tree.parent, counts, True)
    assert not ok
    _assert_same_path(cost_complexity_path(tree, counts), _numpy_path(tree, counts))
