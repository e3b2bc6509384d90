"""Penalized pruning of a fixed tree by a bottom-up dynamic program.

The two baselines of section 5 of Nguyen & Kpotufe pick ONE subtree T of T0
minimizing an empirical risk plus a penalty that is additive over the leaves:

* default pruning: ``C1(h_T) = R(h_T, S) + lam * |pi(T, S)| / n`` where
  ``pi(T, S)`` are the leaves of T holding data;
* SN-pruning (Scott's dyadic decision trees):
  ``C2(h_T) = R(h_T, S) + lam * sum over A in pi(T) of sqrt(max(p(A, S), ||A||/n) * ||A||/n)``
  with ``||A||`` the depth of A in T0.

Multiplied by ``n`` both are sums over the leaves of
``err(A) + lam * pen(A)``, with ``pen(A) = 1{n(A) > 0}`` (default) or
``sqrt(max(n(A), ||A||) * ||A||)`` (SN), so the optimal subtree of each
branch is found bottom-up in O(|T0|): keep A as a leaf when its cost is at
most the best cost of its two branches (ties prune: the smaller tree wins).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from .._compiled import njit

if TYPE_CHECKING:
    from ..tree import Tree

PENALTIES = ("leaves", "sn")


@njit(cache=True, nogil=True)
def prune_kernel(leaf_cost, children_left, children_right):
    """Bottom-up DP: best subtree cost per branch and where to collapse.

    Returns ``best`` (optimal cost of the branch rooted at each node) and
    ``collapse`` (True where the optimal branch is the node alone).
    """
    n = leaf_cost.shape[0]
    best = np.empty(n)
    collapse = np.ones(n, dtype=np.bool_)
    for node in range(n - 1, -1, -1):
        left = children_left[node]
        if left == -1:
            best[node] = leaf_cost[node]
        else:
            split = best[left] + best[children_right[node]]
            if split < leaf_cost[node]:
                best[node] = split
                collapse[node] = False
            else:
                best[node] = leaf_cost[node]
    return best, collapse


@njit(cache=True, nogil=True)
def effective_labels(collapse, parent, node_label):
    """Label each node of T0 with the label of the leaf of the pruned tree above it.

    A row reaching leaf t of T0 is then classified by ``out[t]`` without
    building the pruned tree.
    """
    n = collapse.shape[0]
    out = node_label.copy()
    frozen = collapse.copy()
    for node in range(1, n):
        p = parent[node]
        if frozen[p]:
            frozen[node] = True
            out[node] = out[p]
    return out


@njit(cache=True, nogil=True)
def pruned_errors(leaves, y, sw, eff_label):
    total = 0.0
    for i in range(leaves.shape[0]):
        if eff_label[leaves[i]] != y[i]:
            total += sw[i]
    return total


def penalty_per_node(tree: Tree, n_node: ArrayLike, penalty: str = "leaves") -> np.ndarray:
    """``pen(A)`` in count units (the criterion multiplied by n).

    Parameters
    ----------
    tree : Tree
        The tree (its depths enter the SN penalty).
    n_node : array-like of float, shape (n_nodes,)
        Weight of the sample at every node.
    penalty : {"leaves", "sn"}, default="leaves"
        ``C1`` (one per non-empty leaf) or ``C2`` (SN-pruning) of section 5.

    Returns
    -------
    pen : ndarray of float64, shape (n_nodes,)
        The penalty of every node as a leaf.
    """
    n_node = np.asarray(n_node, dtype=np.float64)
    if penalty == "leaves":
        return (n_node > 0).astype(np.float64)
    if penalty == "sn":
        depth = tree.depth.astype(np.float64)
        return np.sqrt(np.maximum(n_node, depth) * depth)
    raise ValueError(f"penalty must be one of {PENALTIES}, got {penalty!r}.")


def penalized_prune(tree: Tree, counts: ArrayLike, lam: float, penalty: str = "leaves") -> dict[str, Any]:
    """The subtree of ``tree`` minimizing the penalized empirical risk.

    Parameters
    ----------
    tree : Tree
        T0, the tree whose subtrees are compared.
    counts : ndarray, shape (n_nodes, n_classes)
        Class counts per node (:meth:`Tree.node_counts`).
    lam : float >= 0
        Weight of the penalty.
    penalty : {"leaves", "sn"}
        ``C1`` (default pruning) or ``C2`` (SN-pruning) of section 5.

    Returns
    -------
    result : dict
        ``collapse`` (bool mask: nodes that are leaves of the optimal
        subtree, or below one), ``leaves`` (bool mask of the leaves of the
        optimal subtree), ``cost`` (``n`` times the criterion at the
        optimum), ``node_label`` (majority label, class 0 when empty) and
        ``subtree`` (the pruned :class:`Tree`) with ``index`` (its nodes' ids
        in ``tree``).
    """
    counts = np.asarray(counts, dtype=np.float64)
    if counts.ndim != 2 or counts.shape[0] != tree.n_nodes:
        raise ValueError(f"counts must have shape ({tree.n_nodes}, n_classes), got {counts.shape}.")
    lam = float(lam)
    if not np.isfinite(lam) or lam < 0:
        raise ValueError(f"lam must be finite and >= 0, got {lam}.")
    n_node = counts.sum(axis=1)
    err = n_node - counts.max(axis=1)
    leaf_cost = err + lam * penalty_per_node(tree, n_node, penalty)
    best, collapse = prune_kernel(leaf_cost, tree.children_left, tree.children_right)
    keep = tree.keep_mask(collapse)
    leaves = keep & (collapse | tree.is_leaf)
    subtree, index = tree.subtree(keep, return_index=True)
    return {
        "collapse": collapse,
        "leaves": leaves,
        "cost": float(best[0]),
        "node_label": np.argmax(counts, axis=1).astype(np.int64),
        "subtree": subtree,
        "index": index,
    }
