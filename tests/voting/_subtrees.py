"""Brute-force helpers for subtree votes (random trees and subtree enumeration are shared)."""

from prunus.tree._testing import enumerate_subtrees, random_counts, random_tree

__all__ = ["enumerate_subtrees", "leaf_on_path", "random_counts", "random_tree"]


def leaf_on_path(tree, leaves, x_leaf):
    """The leaf of a subtree that contains T0's leaf ``x_leaf``."""
    node = x_leaf
    members = set(leaves)
    while node not in members:
        node = tree.parent[node]
    return node
