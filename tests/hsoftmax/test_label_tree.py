import numpy as np
import pytest

pytest.importorskip("torch")

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st

from prunus.hsoftmax import LabelTree, default_arity  # noqa: E402


def test_default_arity():
    assert default_arity(10000, 3) == 22
    assert default_arity(9, 2) == 3
    assert default_arity(10, 2) == 4
    assert LabelTree(10000, arity=25, depth=3).n_internal == 1 + 25 + 625


@settings(max_examples=30, deadline=None)
@given(k=st.integers(2, 60), depth=st.integers(1, 3), extra=st.integers(0, 2), seed=st.integers(0, 10**6))
def test_paths_follow_slots(k, depth, extra, seed):
    m = default_arity(k, depth) + extra
    tree = LabelTree.random(k, m, depth, random_state=seed)
    assert np.unique(tree.leaf_of_label).size == k
    for label in range(k):
        slot = tree.leaf_of_label[label]
        pos = 0
        for d in range(depth):
            # brute force: walk down from the root by the base-M digits of the slot
            assert tree.path_nodes[label, d] == tree.offsets[d] + pos
            digit = (slot // m ** (depth - d - 1)) % m
            assert tree.path_children[label, d] == digit
            pos = pos * m + digit
        assert tree.label_of_leaf[slot] == label
    # capacity: a node at depth d holds at most M**(D-d) labels
    for d in range(depth):
        counts = np.bincount(tree.path_nodes[:, d])
        assert counts.max() <= tree.capacity(d)
    # child_mask marks exactly the children with labels below
    mask = np.zeros_like(tree.child_mask)
    for label in range(k):
        for d in range(depth):
            mask[tree.path_nodes[label, d], tree.path_children[label, d]] = True
    np.testing.assert_array_equal(mask, tree.child_mask)


def test_random_tree_spreads_labels():
    tree = LabelTree.random(10000, 25, 3, random_state=0)
    per_root_child = np.bincount(tree.path_children[:, 0], minlength=25)
    assert per_root_child.min() >= 399 and per_root_child.max() <= 401


def test_frequency_balanced():
    rng = np.random.RandomState(0)
    freq = rng.zipf(1.5, size=200).astype(float)
    tree = LabelTree.frequency_balanced(freq, arity=6, depth=3)
    assert np.unique(tree.leaf_of_label).size == 200
    mass = np.bincount(tree.path_children[:, 0], weights=freq, minlength=6)
    # greedy least-loaded: the spread is at most the largest single frequency
    assert mass.max() - mass.min() <= freq.max() + 1e-9


def test_bad_input():
    with pytest.raises(ValueError, match="n_labels"):
        LabelTree(1, 2, 2)
    with pytest.raises(ValueError, match="arity"):
        LabelTree(10, 2, 3)
    with pytest.raises(ValueError, match="leaf_of_label"):
        LabelTree(3, 2, 2, leaf_of_label=[0, 0, 1])
    with pytest.raises(ValueError, match="leaf_of_label"):
        LabelTree(3, 2, 2, leaf_of_label=[0, 1, 4])
    with pytest.raises(ValueError, match="frequencies"):
        LabelTree.frequency_balanced([1.0, -1.0, 2.0], 2, 2)


def test_labels_under_and_leaves():
    tree = LabelTree(8, 2, 3)
    np.testing.assert_array_equal(tree.labels_under(0), np.arange(8))
    np.testing.assert_array_equal(tree.labels_under(2), np.arange(4, 8))
    assert sorted(len(v) for v in tree.leaves().values()) == [2, 2, 2, 2]
    assert tree.copy() == tree
    nodes, children = tree.paths([5])
    assert nodes.tolist() == [[0, 2, 5]] and children.tolist() == [[1, 0, 1]]
