"""Test helpers over trees: random trees, random node counts, every subtree (importable, unlike conftest files)."""

import numpy as np

from ._tree import Tree


def random_tree(rng, n_splits, n_features=2):
    """A random :class:`~prunus.tree.Tree`: split a random leaf ``n_splits`` times (children get new, larger ids).

    ``rng`` is a ``numpy.random.Generator`` or a seed.
    """
    rng = np.random.default_rng(rng)
    left, right = [-1], [-1]
    for _ in range(n_splits):
        leaves = [i for i in range(len(left)) if left[i] == -1]
        node = leaves[rng.integers(len(leaves))]
        left[node], right[node] = len(left), len(left) + 1
        left += [-1, -1]
        right += [-1, -1]
    n = len(left)
    return Tree(left, right, rng.integers(0, n_features, size=n), rng.uniform(-1, 1, size=n), n_features)


def counts_from_leaves(tree, leaf_counts):
    """Node counts whose internal rows are the sums of their leaves' rows (leaves in id order)."""
    counts = np.zeros((tree.n_nodes, leaf_counts.shape[1]), dtype=np.float64)
    counts[tree.is_leaf] = leaf_counts
    for node in range(tree.n_nodes - 1, 0, -1):
        counts[tree.parent[node]] += counts[node]
    return counts


def random_counts(rng, tree, n_classes, empty_prob=0.25, scale=10):
    """Random integer class counts at the leaves (a leaf is empty with ``empty_prob``), summed up the tree."""
    rng = np.random.default_rng(rng)
    leaf_counts = np.zeros((int(tree.is_leaf.sum()), n_classes))
    for i in range(leaf_counts.shape[0]):
        if rng.random() >= empty_prob:
            leaf_counts[i] = rng.integers(0, scale, size=n_classes)
    return counts_from_leaves(tree, leaf_counts)


def enumerate_subtrees(tree, node=0):
    """Every pruned subtree of the branch at ``node`` (``node`` kept), as a tuple of its leaves."""
    if tree.children_left[node] == -1:
        return [(node,)]
    return [(node,)] + [
        a + b
        for a in enumerate_subtrees(tree, tree.children_left[node])
        for b in enumerate_subtrees(tree, tree.children_right[node])
    ]
