"""Small random trees and brute-force enumeration of all their subtrees."""

import numpy as np

from prunus.tree import Tree


def random_tree(rng, n_splits, n_features=2):
    """A random binary tree: split a random leaf ``n_splits`` times (new ids are larger)."""
    left, right = [-1], [-1]
    for _ in range(n_splits):
        leaves = [i for i in range(len(left)) if left[i] == -1]
        node = leaves[rng.integers(len(leaves))]
        left[node], right[node] = len(left), len(left) + 1
        left += [-1, -1]
        right += [-1, -1]
    n = len(left)
    feature = rng.integers(0, n_features, size=n)
    threshold = rng.uniform(-1, 1, size=n)
    return Tree(left, right, feature, threshold, n_features)


def random_counts(rng, tree, n_classes, empty_prob=0.25, scale=10):
    """Leaf class counts (some leaves empty) summed up the tree."""
    counts = np.zeros((tree.n_nodes, n_classes))
    for leaf in np.flatnonzero(tree.is_leaf):
        if rng.random() >= empty_prob:
            counts[leaf] = rng.integers(0, scale, size=n_classes)
    for node in range(tree.n_nodes - 1, 0, -1):
        counts[tree.parent[node]] += counts[node]
    return counts


def enumerate_subtrees(tree, node=0):
    """Every subtree of the branch at ``node`` (root kept), as tuples of its leaves."""
    if tree.children_left[node] == -1:
        return [(node,)]
    out = [(node,)]
    for a in enumerate_subtrees(tree, tree.children_left[node]):
        for b in enumerate_subtrees(tree, tree.children_right[node]):
            out.append(a + b)
    return out


def leaf_on_path(tree, leaves, x_leaf):
    """The leaf of a subtree that contains T0's leaf ``x_leaf``."""
    node = x_leaf
    members = set(leaves)
    while node not in members:
        node = tree.parent[node]
    return node
