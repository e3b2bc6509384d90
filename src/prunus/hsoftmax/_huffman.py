"""M-ary Huffman label tree: the frequency-based tree of word2vec and fastText.

Huffman's construction (Huffman, "A method for the construction of
minimum-redundancy codes", 1952) merges the M least frequent subtrees until one
is left; the resulting prefix code minimizes the expected path length
``sum_i p_i len_i`` over all M-ary prefix codes. Unlike :class:`LabelTree`, the
paths have different lengths (frequent labels near the root).

The tree is described by its codes (a label's child index at every step of its
path, eq. 3 of Jernite, Choromanska, Sontag & LeCun), and presents the same
path arrays as :class:`LabelTree` so that :class:`TreeSoftmax` scores it with the
same batched gather: paths shorter than ``depth`` continue through one extra
"pad" node whose only child is unmasked, so those steps add log 1 = 0.
"""

from __future__ import annotations

import heapq
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._label_tree import check_sizes


def huffman_codes(frequencies: ArrayLike, arity: int) -> np.ndarray:
    """M-ary Huffman code of every label.

    The K frequencies are padded with zero-frequency dummies to a count with
    (count - 1) divisible by (M - 1), so every merge takes M subtrees and the
    code is optimal. Ties are broken by creation order (deterministic).

    Parameters
    ----------
    frequencies : array-like of float, shape (n_labels,)
        Non-negative frequency (or count) of every label, at least 2 labels.
    arity : int
        M, the number of children of an internal node (at least 2).

    Returns
    -------
    codes : ndarray of int64, shape (n_labels, max_length)
        The child index (0..M-1) at every step of each label's path, -1
        after the end of its code.

    See Also
    --------
    HuffmanTree.build : The label tree of these codes.
    """
    freq = np.asarray(frequencies, dtype=np.float64)
    if freq.ndim != 1 or freq.shape[0] < 2 or not np.all(np.isfinite(freq)) or np.any(freq < 0):
        raise ValueError("frequencies must be a 1-D array of at least 2 finite non-negative numbers.")
    (m,) = check_sizes("huffman_codes", arity=arity)
    k = freq.shape[0]
    n_pad = 0 if k <= m else (-(k - 1)) % (m - 1)
    # heap items: (weight, creation order, node); node = label id (>= 0), dummy (-1) or list of children
    heap = [(float(f), i, i) for i, f in enumerate(freq)] + [(0.0, k + j, -1) for j in range(n_pad)]
    heapq.heapify(heap)
    order = len(heap)
    while len(heap) > 1:
        take = min(m, len(heap))
        parts = [heapq.heappop(heap) for _ in range(take)]
        heapq.heappush(heap, (sum(p[0] for p in parts), order, [p[2] for p in parts]))
        order += 1
    codes = {}
    stack: list[tuple[Any, tuple[int, ...]]] = [(heap[0][2], ())]
    while stack:
        node, prefix = stack.pop()
        if isinstance(node, list):
            stack.extend((child, prefix + (j,)) for j, child in enumerate(node))
        elif node >= 0:
            codes[node] = prefix
    length = max(len(c) for c in codes.values())
    out = np.full((k, length), -1, dtype=np.int64)
    for label, code in codes.items():
        out[label, : len(code)] = code
    return out


class HuffmanTree:
    """A label tree with paths of different lengths, given by a prefix code.

    Parameters
    ----------
    codes : int array (n_labels, depth)
        Child index (0..M-1) at every step of each label's path, then -1; no
        code may be a prefix of another.
    arity : int
        M, the number of children of an internal node.

    Attributes
    ----------
    n_labels, arity, depth : int
        ``depth`` is the longest path.
    n_internal : int
        Internal nodes (breadth first, root 0) plus the pad node (the last id).
    path_nodes, path_children : int64 arrays (n_labels, depth)
        As in :class:`LabelTree`; steps past the end of a code go through the
        pad node's child 0.
    child_mask : bool array (n_internal, arity)
    child_node, child_label : int64 arrays (n_internal, arity)
        Internal node id / label id below each child (-1 where none).
    """

    def __init__(self, codes: ArrayLike, arity: int) -> None:
        (self.arity,) = check_sizes("HuffmanTree", arity=arity)
        codes = np.asarray(codes)
        if codes.ndim != 2 or codes.shape[0] < 2 or codes.shape[1] < 1 or not np.issubdtype(codes.dtype, np.integer):
            raise ValueError("codes must be a 2-D integer array (n_labels >= 2, depth >= 1).")
        codes = codes.astype(np.int64)
        self.codes = codes
        self.n_labels, self.depth = codes.shape
        m, depth = self.arity, self.depth
        lengths = (codes >= 0).sum(axis=1)
        if np.any(lengths < 1) or np.any(codes >= m) or np.any(codes < -1):
            raise ValueError(f"codes must hold child indices in [0, {m}) followed by -1, at least one per label.")
        if np.any(np.diff((codes >= 0).astype(np.int8), axis=1) > 0):
            raise ValueError("codes must not have -1 before a child index.")
        tuples = [tuple(row[:n]) for row, n in zip(codes.tolist(), lengths)]
        prefixes = {c[:d] for c in tuples for d in range(len(c))}
        if len(set(tuples)) != len(tuples) or any(c in prefixes for c in tuples):
            raise ValueError("codes must be a prefix code: distinct, none a prefix of another.")
        ids = {p: i for i, p in enumerate(sorted(prefixes, key=lambda p: (len(p), p)))}
        pad = len(ids)
        self.n_internal = pad + 1
        self.lengths = lengths
        self.path_nodes = np.full((self.n_labels, depth), pad, dtype=np.int64)
        self.path_children = np.zeros((self.n_labels, depth), dtype=np.int64)
        self.child_mask = np.zeros((self.n_internal, m), dtype=bool)
        self.child_mask[pad, 0] = True
        self.child_node = np.full((self.n_internal, m), -1, dtype=np.int64)
        self.child_label = np.full((self.n_internal, m), -1, dtype=np.int64)
        for label, code in enumerate(tuples):
            for d, j in enumerate(code):
                node = ids[code[:d]]
                self.path_nodes[label, d] = node
                self.path_children[label, d] = j
                self.child_mask[node, j] = True
                if d + 1 < len(code):
                    self.child_node[node, j] = ids[code[: d + 1]]
            self.child_label[ids[code[:-1]], code[-1]] = label

    @classmethod
    def build(cls, frequencies: ArrayLike, arity: int) -> HuffmanTree:
        """The M-ary Huffman tree of label ``frequencies`` (see :func:`huffman_codes`).

        Parameters
        ----------
        frequencies : array-like of float, shape (n_labels,)
            Non-negative frequency (or count) of every label.
        arity : int
            M, the number of children of an internal node.

        Returns
        -------
        tree : HuffmanTree
            The tree minimizing the expected path length.
        """
        return cls(huffman_codes(frequencies, arity), arity)

    def expected_length(self, frequencies: ArrayLike) -> float:
        """sum_i p_i len_i with p the normalized ``frequencies``.

        Parameters
        ----------
        frequencies : array-like of float, shape (n_labels,)
            Frequency (or count) of every label.

        Returns
        -------
        length : float
            The mean number of node softmaxes per example.
        """
        p = np.asarray(frequencies, dtype=np.float64)
        return float(p @ self.lengths / p.sum())

    def copy(self) -> HuffmanTree:
        """An independent copy.

        Returns
        -------
        tree : HuffmanTree
            The same codes, sharing no array.
        """
        return HuffmanTree(self.codes.copy(), self.arity)

    def __eq__(self, other):
        return isinstance(other, HuffmanTree) and self.arity == other.arity and np.array_equal(self.codes, other.codes)

    def __repr__(self):
        return f"HuffmanTree(n_labels={self.n_labels}, arity={self.arity}, depth={self.depth})"
