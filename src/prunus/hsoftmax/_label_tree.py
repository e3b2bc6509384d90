"""The label tree: a complete M-ary tree of depth D whose leaf slots hold labels.

Internal nodes are numbered breadth first (node 0 is the root, every child id
is larger than its parent's, as in :class:`prunus.tree.Tree`); the node at depth
``d`` and position ``p`` (0 <= p < M**d) has id ``(M**d - 1) / (M - 1) + p`` and
children at positions ``p * M + j``. A label sits in one of the ``M**D`` leaf
slots, so the path of a label (eq. 3 of the paper) is determined by its slot:
at depth ``d`` it goes through node ``offset[d] + slot // M**(D - d)`` and takes
child ``(slot // M**(D - d - 1)) % M``. A node at depth ``d`` has room for
``M**(D - d)`` labels (the capacity constraint of Algorithm 2).

The tree is plain numpy (no torch), so it can be built, inspected and
re-assigned without the torch extra's runtime.
"""

from __future__ import annotations

from numbers import Integral
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike
from sklearn.utils import check_random_state

from ..utils._param_validation import Interval, validate_params

if TYPE_CHECKING:
    import torch

#: Accepted sizes of a label tree.
SIZE_CONSTRAINTS = {
    "n_labels": [Interval(Integral, 2, None, closed="left")],
    "depth": [Interval(Integral, 1, None, closed="left")],
    "arity": [Interval(Integral, 2, None, closed="left")],
}


def check_sizes(caller: str, **sizes: Any) -> tuple[int, ...]:
    """The given label-tree sizes as ints, checked against :data:`SIZE_CONSTRAINTS` (errors name them)."""
    validate_params(SIZE_CONSTRAINTS, sizes, caller)
    return tuple(int(v) for v in sizes.values())


def default_arity(n_labels: int, depth: int) -> int:
    """Smallest M with M**depth >= n_labels (25 for 10k labels at depth 3).

    Parameters
    ----------
    n_labels : int
        K, the number of labels (at least 2).
    depth : int
        D, the number of internal levels (at least 1).

    Returns
    -------
    arity : int
        The smallest arity whose tree of depth D has a slot for every label.
    """
    n_labels, depth = check_sizes("default_arity", n_labels=n_labels, depth=depth)
    m = max(2, int(np.ceil(n_labels ** (1.0 / depth))) - 1)
    while m**depth < n_labels:
        m += 1
    return m


class LabelTree:
    """Assignment of ``n_labels`` labels to the leaves of a complete M-ary tree.

    Parameters
    ----------
    n_labels : int
        K, the number of labels.
    arity : int or None
        M; ``None`` picks the smallest M with ``M**depth >= n_labels``.
    depth : int
        D, the number of internal levels (a label's path has D steps).
    leaf_of_label : array of shape (n_labels,), optional
        Slot (0 <= slot < M**D) of every label, all distinct. Defaults to
        label i in slot ``i * M**D // K`` (labels spread evenly over the slots).

    Attributes
    ----------
    path_nodes : int64 array (n_labels, depth)
        ``c^l_{d,1}`` of eq. 3: internal node id at every depth of a label's path.
    path_children : int64 array (n_labels, depth)
        ``c^l_{d,2}``: which child (0..M-1) the path takes there.
    child_mask : bool array (n_internal, arity)
        True where the child has at least one label below it; empty children get
        probability zero in :class:`TreeSoftmax` so that the K label
        probabilities sum to one.
    """

    def __init__(
        self, n_labels: int, arity: int | None = None, depth: int = 3, leaf_of_label: ArrayLike | None = None
    ) -> None:
        self.n_labels, self.depth = check_sizes("LabelTree", n_labels=n_labels, depth=depth)
        self.arity = (
            default_arity(self.n_labels, self.depth) if arity is None else check_sizes("LabelTree", arity=arity)[0]
        )
        if self.arity**self.depth < self.n_labels:
            raise ValueError(
                f"arity**depth = {self.arity**self.depth} leaves cannot hold "
                f"n_labels = {self.n_labels} labels; increase arity or depth."
            )
        m, d = self.arity, self.depth
        self.offsets = np.array([(m**k - 1) // (m - 1) for k in range(d + 1)], dtype=np.int64)
        self.n_internal = int(self.offsets[d])
        self.n_slots = m**d
        if leaf_of_label is None:
            leaf_of_label = (np.arange(self.n_labels, dtype=np.int64) * self.n_slots) // self.n_labels
        self.set_leaves(leaf_of_label)

    # ------------------------------------------------------------------ builders
    @classmethod
    def random(
        cls,
        n_labels: int,
        arity: int | None = None,
        depth: int = 3,
        random_state: int | np.random.RandomState | None = None,
    ) -> LabelTree:
        """Labels in uniformly random, distinct slots (the paper's random tree).

        Labels are first spread evenly over the slots and then permuted, so every
        node at depth d holds about K / M**d labels (no child is left empty
        while another one is full).

        Parameters
        ----------
        n_labels : int
            K, the number of labels.
        arity : int or None, default=None
            M; None picks the smallest M with ``M**depth >= n_labels``.
        depth : int, default=3
            D, the number of internal levels.
        random_state : int, RandomState instance or None, default=None
            Seed of the permutation.

        Returns
        -------
        tree : LabelTree
            The tree with its labels in random slots.
        """
        tree = cls(n_labels, arity, depth)
        rng = check_random_state(random_state)
        tree.set_leaves(tree.leaf_of_label[rng.permutation(tree.n_labels)])
        return tree

    @classmethod
    def frequency_balanced(cls, frequencies: ArrayLike, arity: int | None = None, depth: int = 3) -> LabelTree:
        """Top-down assignment that balances label frequency mass across children.

        At every node the labels (most frequent first) go to the child with the
        least mass so far that still has room, so each node's children receive
        similar probability p_j (the balance half of J_n's optimum, Lemma 3).

        Parameters
        ----------
        frequencies : array-like of float, shape (n_labels,)
            Non-negative frequency (or count) of every label.
        arity : int or None, default=None
            M; None picks the smallest M with ``M**depth >= n_labels``.
        depth : int, default=3
            D, the number of internal levels.

        Returns
        -------
        tree : LabelTree
            The frequency-balanced tree.
        """
        freq = np.asarray(frequencies, dtype=np.float64)
        if freq.ndim != 1 or not np.all(np.isfinite(freq)) or np.any(freq < 0):
            raise ValueError("frequencies must be a 1-D array of finite non-negative numbers.")
        tree = cls(freq.shape[0], arity, depth)
        m = tree.arity
        order = np.argsort(-freq, kind="stable")
        groups = [order]
        for level in range(tree.depth):
            cap = m ** (tree.depth - level - 1)
            new_groups: list = []
            for labels in groups:
                mass = np.zeros(m)
                fill = np.zeros(m, dtype=np.int64)
                members: list[list] = [[] for _ in range(m)]
                for i in labels:
                    room = fill < cap
                    j = int(np.flatnonzero(room)[np.argmin(mass[room])])
                    members[j].append(i)
                    mass[j] += freq[i]
                    fill[j] += 1
                new_groups.extend(np.asarray(g, dtype=np.int64) for g in members)
            groups = new_groups
        leaf = np.empty(tree.n_labels, dtype=np.int64)
        for slot, labels in enumerate(groups):
            if labels.size:
                leaf[labels[0]] = slot
        tree.set_leaves(leaf)
        return tree

    # ------------------------------------------------------------------ structure
    def set_leaves(self, leaf_of_label: ArrayLike) -> LabelTree:
        """Place the labels (validated: distinct slots in range).

        Parameters
        ----------
        leaf_of_label : array-like of int, shape (n_labels,)
            Slot (0 <= slot < M**D) of every label, all distinct.

        Returns
        -------
        self : LabelTree
            The tree, its paths and child mask recomputed.
        """
        leaf = np.asarray(leaf_of_label)
        if leaf.shape != (self.n_labels,) or not np.issubdtype(leaf.dtype, np.integer):
            raise ValueError(f"leaf_of_label must be an integer array of shape ({self.n_labels},).")
        leaf = leaf.astype(np.int64)
        if leaf.min() < 0 or leaf.max() >= self.n_slots:
            raise ValueError(f"leaf_of_label must lie in [0, {self.n_slots}).")
        if np.bincount(leaf, minlength=self.n_slots).max() > 1:
            raise ValueError("leaf_of_label must put every label in its own slot.")
        self.leaf_of_label = leaf
        self.label_of_leaf = np.full(self.n_slots, -1, dtype=np.int64)
        self.label_of_leaf[leaf] = np.arange(self.n_labels)
        m, d = self.arity, self.depth
        powers = m ** (d - np.arange(d, dtype=np.int64))  # M**(D-k), k = 0..D-1
        self.path_nodes = self.offsets[:d][None, :] + leaf[:, None] // powers[None, :]
        self.path_children = (leaf[:, None] // (powers[None, :] // m)) % m
        mask = np.zeros((self.n_internal, m), dtype=bool)
        mask[self.path_nodes, self.path_children] = True
        self.child_mask = mask
        return self

    def paths(self, labels: ArrayLike | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """Paths (eq. 3) as torch tensors.

        Parameters
        ----------
        labels : array-like of int, optional
            The labels whose paths are wanted; every label when None.

        Returns
        -------
        nodes, children : torch.Tensor of int64, shape (n, depth)
            Internal node id and child index at every depth of each path.
        """
        import torch

        idx = slice(None) if labels is None else np.asarray(labels, dtype=np.int64)
        return torch.as_tensor(self.path_nodes[idx]), torch.as_tensor(self.path_children[idx])

    def capacity(self, depth: int) -> int:
        """Number of labels a node at ``depth`` can hold: M**(D - depth).

        Parameters
        ----------
        depth : int
            Depth of the node (0 at the root).

        Returns
        -------
        capacity : int
            The number of leaf slots below such a node.
        """
        return self.arity ** (self.depth - depth)

    def node_depth(self, node: int) -> int:
        """Depth of an internal node.

        Parameters
        ----------
        node : int
            Internal node id.

        Returns
        -------
        depth : int
            0 at the root.
        """
        return int(np.searchsorted(self.offsets, node, side="right") - 1)

    def labels_under(self, node: int) -> np.ndarray:
        """Labels whose path goes through internal ``node`` (sorted by slot).

        Parameters
        ----------
        node : int
            Internal node id.

        Returns
        -------
        labels : ndarray of int64
            The labels below ``node``.
        """
        d = self.node_depth(node)
        hits = np.flatnonzero(self.path_nodes[:, d] == node)
        return hits[np.argsort(self.leaf_of_label[hits])]

    def leaves(self) -> dict[int, np.ndarray]:
        """Lists of labels under each node at depth D-1 (the 'leaves' of Table 2).

        Returns
        -------
        groups : dict of int to ndarray
            For every node at depth D-1 that holds a label: its labels.
        """
        d = self.depth - 1
        groups = {}
        for node in range(int(self.offsets[d]), int(self.offsets[d + 1])):
            labels = self.labels_under(node)
            if labels.size:
                groups[node] = labels
        return groups

    def copy(self) -> LabelTree:
        """An independent copy.

        Returns
        -------
        tree : LabelTree
            The same labels in the same slots, sharing no array.
        """
        return LabelTree(self.n_labels, self.arity, self.depth, self.leaf_of_label.copy())

    def __eq__(self, other):
        return (
            isinstance(other, LabelTree)
            and self.arity == other.arity
            and self.depth == other.depth
            and np.array_equal(self.leaf_of_label, other.leaf_of_label)
        )

    def __repr__(self):
        return f"LabelTree(n_labels={self.n_labels}, arity={self.arity}, depth={self.depth})"
