"""HS-vote: Helmbold & Schapire (1997), "Predicting nearly as well as the best
pruning of a decision tree" (reference [5] of Nguyen & Kpotufe), batch form.

Every node A carries a regression estimate ``eta(A)`` in [0, 1] of
``P(Y = 1 | A)`` (the fraction of class 1 in A; 0 for an empty cell, so an
empty cell votes for class 0 as in the PAC-Bayes tree). A pruning T has
prior weight ``2^-bits(T)``, ``bits(T)`` being the length of its code: one bit
for every node of T that is not a leaf of T0 (split or stop), and after the
whole sample its weight is multiplied by ``beta^L(T)`` with ``L(T)`` the
absolute loss ``sum_i |eta(leaf_T(x_i)) - y_i|``. Writing ``lam = -log beta``,
``bits(T) = (|pi(T)| - 1) + #{A in pi(T) not a leaf of T0}``, so the weight is
multiplicative over the leaves with

    phi(A) = -lam * 2 n0(A) n1(A) / n(A) - log 2 * (1 + 1{A is internal in T0})

(``sum over rows of A of |eta(A) - y_i| = 2 n0 n1 / n``), and the node weights
come from the same two-pass DP as the PAC-Bayes tree. The prediction is the
weighted average ``p(x) = sum_T w(T) eta(leaf_T(x)) / sum_T w(T)``, computed on
the path of x, and the label is 1 iff ``p(x) > 1/2``. Binary only: the
estimates must be regression values in [0, 1].
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from .._compiled import njit
from ._pacbayes import NodeStats, _check_lambda, log_weights_kernel

if TYPE_CHECKING:
    from ..tree import Tree


@njit(cache=True, nogil=True)
def hs_log_phi(n0, n1, is_internal, lam):
    n = n0.shape[0]
    out = np.empty(n)
    log2 = math.log(2.0)
    for a in range(n):
        tot = n0[a] + n1[a]
        loss = 2.0 * n0[a] * n1[a] / tot if tot > 0 else 0.0
        out[a] = -lam * loss - log2 * (2.0 if is_internal[a] else 1.0)
    return out


@njit(cache=True, nogil=True)
def path_mean_kernel(leaves, parent, node_value, node_weight):
    """``sum over the path of w(A) * value(A)`` per row (weights sum to 1 on a path)."""
    out = np.zeros(leaves.shape[0])
    for i in range(leaves.shape[0]):
        node = leaves[i]
        acc = 0.0
        while node != -1:
            acc += node_weight[node] * node_value[node]
            node = parent[node]
        out[i] = acc
    return out


@njit(cache=True, nogil=True)
def hs_errors(leaves, y, sw, parent, node_value, node_weight):
    p = path_mean_kernel(leaves, parent, node_value, node_weight)
    total = 0.0
    for i in range(leaves.shape[0]):
        pred = 1 if p[i] > 0.5 else 0
        if pred != y[i]:
            total += sw[i]
    return total


def hs_eta(counts, parent=None):
    """Regression estimate per node: fraction of class 1.

    An empty cell gets 0 (votes for class 0), or, when ``parent`` is given,
    its nearest ancestor's estimate (the ``empty_cells="parent"`` option).
    """
    counts = np.asarray(counts, dtype=np.float64)
    tot = counts.sum(axis=1)
    eta = np.divide(counts[:, 1], tot, out=np.zeros_like(tot), where=tot > 0)
    if parent is not None:
        eta = _inherit_value(eta, tot > 0, parent)
    return eta


@njit(cache=True)
def _inherit_value(value, has_data, parent):
    out = value.copy()
    for node in range(1, value.shape[0]):
        if not has_data[node]:
            out[node] = out[parent[node]]
    return out


def hs_vote_weights(tree: Tree, counts: ArrayLike, lam: float, empty_cells: str = "class0") -> dict[str, Any]:
    """HS-vote node weights of any tree, binary counts of shape (n_nodes, 2).

    ``empty_cells="parent"`` runs HS-vote on the tree reduced to its cells
    with data (see :class:`~prunus.voting.NodeStats`): a pruning's code
    length counts the nodes internal to the reduced tree, an empty child of a
    kept cell is a dummy leaf (no loss, one bit, so the count of internal
    nodes stays ``|leaves| - 1``) carrying its parent's estimate.

    Parameters
    ----------
    tree : Tree
        The tree T0 whose prunings are weighted.
    counts : array-like of float, shape (n_nodes, 2)
        Class counts per node (:meth:`Tree.node_counts`), binary labels.
    lam : float >= 0
        The temperature lambda of the HS-vote posterior.
    empty_cells : {"class0", "parent"}, default="class0"
        How cells without data are treated (see
        :class:`~prunus.voting.NodeStats`).

    Returns
    -------
    weights : dict
        ``log_phi``, ``log_weight``, ``log_partition``, ``node_weight``
        (``w(A) / Z``) and ``node_value`` (``eta(A)``).

    See Also
    --------
    pac_bayes_weights : The PAC-Bayes node weights.
    """
    counts = np.asarray(counts, dtype=np.float64)
    if counts.ndim != 2 or counts.shape != (tree.n_nodes, 2):
        raise ValueError(f"HS-vote is binary only: counts must have shape ({tree.n_nodes}, 2), got {counts.shape}.")
    lam = _check_lambda(lam, "lam")
    stats = NodeStats(tree, counts, empty_cells)
    left, right = stats.children_left, stats.children_right
    log_phi = hs_log_phi(counts[:, 0].copy(), counts[:, 1].copy(), left != -1, lam)
    log_beta, _, log_w = log_weights_kernel(log_phi, left, right)
    return {
        "log_phi": log_phi,
        "log_weight": log_w,
        "log_partition": float(log_beta[0]),
        "node_weight": np.exp(log_w - log_beta[0]),
        "node_value": hs_eta(counts, tree.parent if empty_cells == "parent" else None),
    }
