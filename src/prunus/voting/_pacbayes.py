"""PAC-Bayes weights over all subtrees of a tree (Nguyen & Kpotufe, sections 4-5).

The posterior over the subtrees T of T0 is multiplicative over the leaves,
``Q(h_T) ∝ exp(sum over A in pi(T) of phi(A))``, so the aggregated weight
``w(A) = sum of Q(h_T) over the subtrees having A as a leaf`` is obtained by
two passes over T0 (Algorithms 1 and 2, run here in log space):

* bottom-up:  ``log beta(A) = phi(A)`` at a leaf of T0, else
  ``logaddexp(phi(A), log beta(A_L) + log beta(A_R))``;
* top-down:   ``log alpha(root) = 0``, ``log alpha(A_L) = log alpha(A) + log beta(A_R)``
  (and symmetrically), ``log w(A) = phi(A) + log alpha(A)``.

``log beta(root)`` is the log partition function: the weights on any
root-to-leaf path sum to it, because each subtree has exactly one leaf on
the path. The paper's single-child nodes get a dummy sibling with
``phi = 0``; in a :class:`~prunus.tree.Tree` every internal node has two
children, and a cell without data (an empty dyadic cell) has ``phi = 0``, so
it *is* that dummy sibling.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from .._compiled import njit

if TYPE_CHECKING:
    from ..tree import Tree

PRIORS = ("practical", "theory")
EMPTY_CELLS = ("class0", "parent")


@njit(cache=True, nogil=True)
def _logaddexp(a, b):
    if a >= b:
        return a + math.log1p(math.exp(b - a))
    return b + math.log1p(math.exp(a - b))


@njit(cache=True, nogil=True)
def log_weights_kernel(log_phi, children_left, children_right):
    """Algorithms 1 and 2 in log space, O(|T0|).

    Returns ``log_beta``, ``log_alpha`` and ``log_w = log_phi + log_alpha``.
    """
    n = log_phi.shape[0]
    log_beta = np.empty(n)
    for node in range(n - 1, -1, -1):  # children have larger ids: bottom-up
        left = children_left[node]
        if left == -1:
            log_beta[node] = log_phi[node]
        else:
            log_beta[node] = _logaddexp(log_phi[node], log_beta[left] + log_beta[children_right[node]])
    # Nodes below a leaf of the (possibly reduced) tree are never reached
    # top-down: they keep log alpha = -inf, i.e. weight 0.
    log_alpha = np.full(n, -np.inf)
    log_alpha[0] = 0.0
    for node in range(n):  # top-down
        left = children_left[node]
        if left != -1:
            right = children_right[node]
            log_alpha[left] = log_alpha[node] + log_beta[right]
            log_alpha[right] = log_alpha[node] + log_beta[left]
    log_w = log_phi + log_alpha
    return log_beta, log_alpha, log_w


@njit(cache=True, nogil=True)
def practical_log_phi(err, n_node, has_data, lambda1, lambda2):
    """phi(A) of the practical PAC-Bayes tree (section 5).

    ``-lambda1 * err(A) - lambda2 * sqrt(n(A)) - 1{A has data}``: the factor
    of leaf A in ``exp(-n(lambda1 R(h_T, S) + lambda2 Delta_n(h_T, S))) P(h_T)``
    with ``n Delta_n = sum sqrt(n p(A, S)) = sum sqrt(n(A))`` and the prior
    ``P(h_T) ∝ exp(-|pi(T, S)|)`` over leaves with data.
    """
    n = err.shape[0]
    out = np.empty(n)
    for a in range(n):
        if has_data[a]:
            out[a] = -lambda1 * err[a] - lambda2 * math.sqrt(n_node[a]) - 1.0
        else:
            out[a] = 0.0
    return out


@njit(cache=True, nogil=True)
def theory_log_phi(err, n_node, has_data, lam, log_t0_over_delta, d0):
    """phi(A) of section 4 (prior of Theorem 1).

    ``-lam * err(A) - n lam sqrt(p(A, S) 2 log(|T0|/delta) / n) - 3 D0``
    ``= -lam * err(A) - lam * sqrt(2 n(A) log(|T0|/delta)) - 3 D0``. A cell
    without data is the paper's dummy node (``phi = 0``).
    """
    n = err.shape[0]
    out = np.empty(n)
    for a in range(n):
        if has_data[a]:
            out[a] = -lam * err[a] - lam * math.sqrt(2.0 * n_node[a] * log_t0_over_delta) - 3.0 * d0
        else:
            out[a] = 0.0
    return out


@njit(cache=True, nogil=True)
def path_votes_kernel(leaves, parent, node_label, node_weight, n_classes):
    """Vote mass per class along each row's root-to-leaf path, O(depth) per row.

    ``node_weight`` is ``exp(log_w - log Z)``: the path total is 1.
    """
    n = leaves.shape[0]
    votes = np.zeros((n, n_classes))
    for i in range(n):
        node = leaves[i]
        while node != -1:
            votes[i, node_label[node]] += node_weight[node]
            node = parent[node]
    return votes


@njit(cache=True, nogil=True)
def path_vote_errors(leaves, y, sw, parent, node_label, node_weight, n_classes):
    """Weighted number of rows whose majority vote (lowest class on ties) is wrong."""
    votes = np.zeros(n_classes)
    total = 0.0
    for i in range(leaves.shape[0]):
        votes[:] = 0.0
        node = leaves[i]
        while node != -1:
            votes[node_label[node]] += node_weight[node]
            node = parent[node]
        best = 0
        for k in range(1, n_classes):
            if votes[k] > votes[best]:
                best = k
        if best != y[i]:
            total += sw[i]
    return total


class NodeStats:
    """Per-node statistics of a sample routed down a tree, computed once.

    Parameters
    ----------
    tree : Tree
        The tree T0 (any :class:`~prunus.tree.Tree`).
    counts : ndarray, shape (n_nodes, n_classes)
        Class counts per node, from :meth:`Tree.node_counts`.

    empty_cells : {"class0", "parent"}
        ``"class0"`` (the default of this low-level record, kept for the
        functional API): every cell of ``tree`` is a cell of T0 and an empty
        one is labelled class 0, as in the proof of Corollary 1 of the paper.
        ``"parent"`` (the estimators' default): T0 is ``tree`` intersected
        with the support of the sample (Remark 1): see the module docstring.

    Attributes
    ----------
    n_node : total weight per node; ``has_data`` : ``n_node > 0``;
    label : majority class per node (lowest code on ties); a node without
    data gets class 0 (``"class0"``) or its nearest ancestor's label
    (``"parent"``);
    err : weight of the rows of the node not of its label;
    children_left, children_right : the structure the DPs run on: the tree's
    own (``"class0"``), or the tree reduced to its cells with data, their
    empty children kept as leaves (the dummies) and everything below an empty
    cell cut off (``"parent"``).
    """

    def __init__(self, tree: Tree, counts: ArrayLike, empty_cells: str = "class0") -> None:
        counts = np.asarray(counts, dtype=np.float64)
        if counts.ndim != 2 or counts.shape[0] != tree.n_nodes:
            raise ValueError(f"counts must have shape ({tree.n_nodes}, n_classes), got {counts.shape}.")
        if not np.isfinite(counts).all() or np.any(counts < 0):
            raise ValueError("counts must be finite and non-negative.")
        self.tree = tree
        self.counts = counts
        self.n_classes = counts.shape[1]
        self.n_node = counts.sum(axis=1)
        self.has_data = self.n_node > 0
        self.label = np.argmax(counts, axis=1).astype(np.int64)
        self.err = self.n_node - counts.max(axis=1)
        self.empty_cells = empty_cells
        self.children_left = tree.children_left
        self.children_right = tree.children_right
        if empty_cells == "parent":
            self.label = _inherit_label(self.label, self.has_data, tree.parent)
            self.children_left, self.children_right = reduced_children(tree, self.has_data)
        elif empty_cells != "class0":
            raise ValueError(f"empty_cells must be one of {EMPTY_CELLS}, got {empty_cells!r}.")


def reduced_children(tree, has_data):
    """Children arrays of ``tree`` intersected with the support of the data (Remark 1).

    A node keeps its children iff it has data and at least one child has
    data; every other node is a leaf of the reduced structure (an empty child
    of a kept node is the paper's dummy, a node below an empty one is cut off).
    """
    left, right = tree.children_left, tree.children_right
    internal = left != -1
    has_child_data = np.zeros(tree.n_nodes, dtype=bool)
    has_child_data[internal] = has_data[left[internal]] | has_data[right[internal]]
    keep = internal & has_data & has_child_data
    return np.where(keep, left, -1), np.where(keep, right, -1)


@njit(cache=True)
def _inherit_label(label, has_data, parent):
    """Give every node without data the label of its nearest ancestor with data."""
    out = label.copy()
    for node in range(1, label.shape[0]):
        if not has_data[node]:
            out[node] = out[parent[node]]
    return out


def _check_lambda(value, name):
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}.") from None
    if not np.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be finite and >= 0, got {value}.")
    return value


def pac_bayes_log_phi(
    stats: NodeStats, lambda1: float, lambda2: float | None = None, prior: str = "practical", delta: float = 0.05
) -> np.ndarray:
    """phi(A) for every node (log of the posterior's per-leaf factor).

    Parameters
    ----------
    stats : NodeStats
        The sample's statistics on the tree.
    lambda1, lambda2 : float >= 0
        Practical version: weights of the empirical risk and of
        ``Delta_n``. Theory version: ``lambda1`` is the lambda of Equation 2
        (it multiplies both terms) and ``lambda2`` must be None.
    prior : {"practical", "theory"}, default="practical"
        The prior and bound of the posterior (the paper's practical
        version, or the one of its theorem).
    delta : float in (0, 1), default=0.05
        Confidence of the theory version.

    Returns
    -------
    log_phi : ndarray of float64, shape (n_nodes,)
        ``log phi(A)`` of every node.

    See Also
    --------
    pac_bayes_weights : The posterior node weights these factors give.
    """
    lambda1 = _check_lambda(lambda1, "lambda1")
    if prior == "practical":
        lambda2 = _check_lambda(0.0 if lambda2 is None else lambda2, "lambda2")
        return practical_log_phi(stats.err, stats.n_node, stats.has_data, lambda1, lambda2)
    if prior == "theory":
        if lambda2 is not None:
            raise ValueError("lambda2 is not used by prior='theory' (lambda1 multiplies both terms); leave it None.")
        delta = float(delta)
        if not 0.0 < delta < 1.0:
            raise ValueError(f"delta must be in (0, 1), got {delta}.")
        tree = stats.tree
        return theory_log_phi(
            stats.err, stats.n_node, stats.has_data, lambda1, math.log(tree.n_nodes / delta), float(tree.max_depth)
        )
    raise ValueError(f"prior must be one of {PRIORS}, got {prior!r}.")


def pac_bayes_weights(
    tree: Tree,
    counts: ArrayLike | NodeStats,
    lambda1: float,
    lambda2: float | None = None,
    prior: str = "practical",
    delta: float = 0.05,
) -> dict[str, Any]:
    """PAC-Bayes node weights of any tree (dyadic, KD, CART, scikit-learn's).

    Parameters
    ----------
    tree : Tree
        The tree T0 whose prunings are weighted.
    counts : ndarray, shape (n_nodes, n_classes), or NodeStats
        Class counts per node (:meth:`Tree.node_counts`); pass
        ``NodeStats(tree, counts, "parent")`` for T0 reduced to the support
        of the sample (empty cells belong to their nearest ancestor with data).
    lambda1, lambda2, prior, delta
        See :func:`pac_bayes_log_phi`.

    Returns
    -------
    weights : dict
        ``log_phi``, ``log_beta``, ``log_alpha``, ``log_weight``
        (``log w(A)``), ``log_partition`` (``log beta(root)``), ``node_weight``
        (``w(A) / Z``, the posterior probability that A is a leaf) and
        ``node_label``.

    See Also
    --------
    vote_proba : The vote of the weighted nodes.
    """
    stats = counts if isinstance(counts, NodeStats) else NodeStats(tree, counts)
    log_phi = pac_bayes_log_phi(stats, lambda1, lambda2, prior, delta)
    log_beta, log_alpha, log_w = log_weights_kernel(log_phi, stats.children_left, stats.children_right)
    return {
        "log_phi": log_phi,
        "log_beta": log_beta,
        "log_alpha": log_alpha,
        "log_weight": log_w,
        "log_partition": float(log_beta[0]),
        "node_weight": np.exp(log_w - log_beta[0]),
        "node_label": stats.label,
    }


def vote_proba(
    tree: Tree,
    node_label: np.ndarray,
    node_weight: np.ndarray,
    n_classes: int,
    X: ArrayLike | None = None,
    leaves: np.ndarray | None = None,
) -> np.ndarray:
    """``h_Q`` vote shares: mass per class on each row's path over the path total.

    Parameters
    ----------
    tree : Tree
        The tree whose nodes vote.
    node_label : ndarray of int, shape (n_nodes,)
        Class code each node votes for.
    node_weight : ndarray of float, shape (n_nodes,)
        Weight of each node's vote (e.g. ``node_weight`` of
        :func:`pac_bayes_weights`).
    n_classes : int
        Number of classes.
    X : array-like of shape (n_samples, n_features), optional
        The rows; needed unless ``leaves`` is given.
    leaves : ndarray of int, shape (n_samples,), optional
        The leaf of every row (``tree.apply(X)``), when already known.

    Returns
    -------
    proba : ndarray of shape (n_samples, n_classes)
        Vote shares of every row; rows sum to one.

    See Also
    --------
    pac_bayes_weights : PAC-Bayes node weights.
    hs_vote_weights : HS-vote node weights.
    """
    if leaves is None:
        if X is None:
            raise ValueError("vote_proba needs X or leaves.")
        leaves = tree.apply(X)
    votes = path_votes_kernel(leaves, tree.parent, node_label, node_weight, n_classes)
    total = votes.sum(axis=1, keepdims=True)
    return votes / total
