"""Digests of pinned trees: a short hash of their arrays' bytes, so a pin names any change of structure."""

import hashlib

import numpy as np


def digest_arrays(*arrays):
    """First 16 hex digits of the SHA-256 of the arrays' bytes, in order (C order, their own dtypes)."""
    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:16]


def tree_arrays(tree):
    """The arrays that decide a tree's routing: children, features, thresholds, missing sides, category sets.

    A tree without categorical splits has empty category sets (no bytes), so its digest is that of the
    numeric arrays alone.
    """
    return (
        tree.children_left,
        tree.children_right,
        tree.feature,
        tree.threshold,
        tree.missing_go_to_left,
        tree.category_bits,
    )
