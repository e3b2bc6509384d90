"""Impurity-based variable importance of a :class:`~prunus.tree.Tree`.

The importance of a feature is the total decrease of node impurity brought by
the splits on it, each split weighted by the weight of the rows reaching its
node (Breiman, Friedman, Olshen & Stone, *Classification and Regression
Trees*, section 5.3.4; scikit-learn's ``feature_importances_``). Every
function here takes a tree and *per-node statistics* (impurity and weight), so
the same code serves any tree of the library and any criterion:
classification passes :func:`node_impurity` of its class weights per node; a
regression tree passes its per-node variance (the mean squared error of the
node mean) and weight.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._tree import Tree

#: Classification impurities of :func:`node_impurity`.
IMPURITIES = ("gini", "entropy", "log_loss", "misclassification")


def node_impurity(counts: ArrayLike, criterion: str = "gini") -> np.ndarray:
    """Impurity ``i(t)`` of every node from its class weights.

    Parameters
    ----------
    counts : array-like, shape (n_nodes, n_classes)
        Non-negative class weights per node (e.g. :meth:`Tree.node_counts`).
    criterion : {"gini", "entropy", "log_loss", "misclassification"}
        ``1 - sum_k p_k^2``, ``-sum_k p_k log p_k`` (natural log, rpart's
        "information" index; scikit-learn reports bits, i.e. this divided by
        ``log 2``, which changes no normalised importance) or ``1 - max_k p_k``.

    Returns
    -------
    impurity : ndarray, shape (n_nodes,)
        0 at nodes of zero weight.
    """
    if criterion not in IMPURITIES:
        raise ValueError(f"criterion must be one of {IMPURITIES}, got {criterion!r}.")
    counts = np.asarray(counts, dtype=np.float64)
    if counts.ndim != 2:
        raise ValueError(f"counts must be a 2-D array (n_nodes, n_classes), got shape {counts.shape}.")
    if not np.isfinite(counts).all() or np.any(counts < 0):
        raise ValueError("counts must be finite and non-negative.")
    total = counts.sum(axis=1, keepdims=True)
    p = np.divide(counts, total, out=np.zeros_like(counts), where=total > 0)
    if criterion == "gini":
        impurity = 1.0 - np.sum(p * p, axis=1)
    elif criterion == "misclassification":
        impurity = 1.0 - p.max(axis=1, initial=0.0)
    else:
        logp = np.log(p, out=np.zeros_like(p), where=p > 0)
        impurity = -np.sum(p * logp, axis=1)
    return np.where(total[:, 0] > 0, impurity, 0.0)


def impurity_decrease(tree: Tree, impurity: ArrayLike, weight: ArrayLike) -> np.ndarray:
    """Weighted impurity decrease of every split, ``W_t i(t) - W_L i(L) - W_R i(R)``.

    Parameters
    ----------
    tree : Tree
        The tree whose splits are scored.
    impurity : array-like, shape (n_nodes,)
        Impurity of every node (any criterion: :func:`node_impurity` for
        classification, the node variance for least squares).
    weight : array-like, shape (n_nodes,)
        Weight of the rows reaching every node.

    Returns
    -------
    decrease : ndarray, shape (n_nodes,)
        0 at the leaves. Not clipped: a split grown on one sample can increase
        the impurity of another (e.g. method M1's pruning half), and the sum
        over the splits says so.
    """
    impurity, weight = _check_node_arrays(tree, impurity, weight)
    left, right = tree.children_left, tree.children_right
    internal = ~tree.is_leaf
    wi = weight * impurity
    decrease = np.zeros(tree.n_nodes)
    decrease[internal] = wi[internal] - wi[left[internal]] - wi[right[internal]]
    return decrease


def feature_importances(
    tree: Tree,
    impurity: ArrayLike,
    weight: ArrayLike,
    *,
    split_weight: ArrayLike | None = None,
    normalize: bool = True,
    surrogates: bool = False,
) -> np.ndarray:
    """Total impurity decrease of the splits on each feature.

    With ``normalize`` this is scikit-learn's ``feature_importances_`` (the
    mean decrease in impurity, normalised to sum to one); without it, the sum
    of :func:`impurity_decrease` over the splits on each feature, in units of
    weight times impurity. For the Gini index and the entropy (natural log)
    that raw sum is rpart's ``variable.importance`` without its surrogate
    terms: rpart credits each primary split with its ``improve``, which is
    this decrease, and each surrogate split with ``adj`` times it.

    Parameters
    ----------
    tree : Tree
        The tree whose splits are credited to their features.
    impurity, weight : array-like, shape (n_nodes,)
        Per-node impurity and weight (see :func:`impurity_decrease`).
    split_weight : array-like, shape (n_nodes,), optional
        A factor per split, e.g. the posterior probability that the split
        belongs to the subtree a PAC-Bayes vote draws (default: 1).
    normalize : bool, default=True
        Divide by the total so that the importances sum to one (all zeros
        stay zeros: a tree that is a single leaf, or whose splits decrease
        nothing, has no important feature).
    surrogates : bool, default=False
        Also credit each surrogate split with its adjusted agreement ``adj``
        times its split's decrease (rpart's ``variable.importance``).

    Returns
    -------
    importances : ndarray, shape (tree.n_features,)
        The importance of every feature (0 for a feature no split uses).
    """
    decrease = impurity_decrease(tree, impurity, weight)
    if split_weight is not None:
        split_weight = np.asarray(split_weight, dtype=np.float64)
        if split_weight.shape != (tree.n_nodes,):
            raise ValueError(f"split_weight must have shape ({tree.n_nodes},), got {split_weight.shape}.")
        decrease = decrease * split_weight
    internal = ~tree.is_leaf
    importances = np.bincount(tree.feature[internal], weights=decrease[internal], minlength=tree.n_features)
    if surrogates and tree.has_surrogates:
        s = tree.surrogates
        owner = np.repeat(np.arange(tree.n_nodes), np.diff(s.offsets))
        importances = importances + np.bincount(s.feature, weights=s.adj * decrease[owner], minlength=tree.n_features)
    if normalize:
        importances = normalized(importances)
    return importances


def normalized(importances) -> np.ndarray:
    """``importances`` divided by their sum (zeros when the sum is not positive)."""
    importances = np.asarray(importances, dtype=np.float64)
    total = importances.sum()
    return importances / total if total > 0 else np.zeros_like(importances)


def classification_importances(
    tree: Tree, counts, criterion="gini", *, split_weight=None, normalize=True, surrogates=False
):
    """:func:`feature_importances` of a classification tree from its class weights per node."""
    counts = np.asarray(counts, dtype=np.float64)
    if counts.ndim != 2 or counts.shape[0] != tree.n_nodes:
        raise ValueError(f"counts must have shape (n_nodes={tree.n_nodes}, n_classes), got {counts.shape}.")
    return feature_importances(
        tree,
        node_impurity(counts, criterion),
        counts.sum(axis=1),
        split_weight=split_weight,
        normalize=normalize,
        surrogates=surrogates,
    )


def regression_importances(tree: Tree, moments, *, split_weight=None, normalize=True, surrogates=False):
    """:func:`feature_importances` of a least-squares tree from its node moments.

    Parameters
    ----------
    tree : Tree
    moments : array-like, shape (n_nodes, 3)
        Weight, mean and within sum of squares per node
        (:meth:`Tree.node_moments`); the impurity of a node is its weighted
        variance, the sum of squares over the weight (scikit-learn's
        ``squared_error``), so ``W_t i(t)`` is the node's sum of squares.
    split_weight, normalize, surrogates
        As in :func:`feature_importances`.

    Returns
    -------
    importances : ndarray, shape (tree.n_features,)
    """
    moments = np.asarray(moments, dtype=np.float64)
    if moments.ndim != 2 or moments.shape != (tree.n_nodes, 3):
        raise ValueError(f"moments must have shape (n_nodes={tree.n_nodes}, 3), got {moments.shape}.")
    weight, sum_squares = moments[:, 0], moments[:, 2]
    variance = np.divide(sum_squares, weight, out=np.zeros_like(weight), where=weight > 0)
    return feature_importances(
        tree, variance, weight, split_weight=split_weight, normalize=normalize, surrogates=surrogates
    )


def split_probability(tree: Tree, leaf_probability) -> np.ndarray:
    """Probability that each node is an internal node of a random subtree.

    Parameters
    ----------
    tree : Tree
    leaf_probability : array-like, shape (n_nodes,)
        Probability that each node is a leaf of the subtree drawn (e.g. the
        PAC-Bayes posterior's ``w(A) / Z``).

    Returns
    -------
    ndarray, shape (n_nodes,)
        ``P(t in T) - P(t is a leaf of T)``, where ``t`` is in the subtree
        ``T`` iff none of its strict ancestors is a leaf of ``T`` (the events
        "ancestor ``a`` is a leaf" are disjoint along a path). 0 at the leaves
        of ``tree``.
    """
    leaf = np.asarray(leaf_probability, dtype=np.float64)
    if leaf.shape != (tree.n_nodes,):
        raise ValueError(f"leaf_probability must have shape ({tree.n_nodes},), got {leaf.shape}.")
    # above[t] = sum of leaf probabilities over the strict ancestors of t,
    # one depth level at a time (a node's parent is one level up).
    above = np.zeros(tree.n_nodes)
    by_depth = np.argsort(tree.depth, kind="stable")
    starts = np.searchsorted(tree.depth[by_depth], np.arange(1, tree.max_depth + 2))
    for lo, hi in zip(starts[:-1], starts[1:]):
        nodes = by_depth[lo:hi]
        p = tree.parent[nodes]
        above[nodes] = above[p] + leaf[p]
    inside = np.clip(1.0 - above, 0.0, 1.0)
    return np.where(tree.is_leaf, 0.0, np.clip(inside - leaf, 0.0, 1.0))


def _check_node_arrays(tree: Tree, impurity: ArrayLike, weight: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    if not isinstance(tree, Tree):
        raise TypeError(f"tree must be a prunus Tree, got {type(tree).__name__}.")
    impurity = np.asarray(impurity, dtype=np.float64)
    weight = np.asarray(weight, dtype=np.float64)
    for name, arr in (("impurity", impurity), ("weight", weight)):
        if arr.shape != (tree.n_nodes,):
            raise ValueError(f"{name} must have shape ({tree.n_nodes},), one value per node, got {arr.shape}.")
        if not np.isfinite(arr).all():
            raise ValueError(f"{name} must be finite.")
    return impurity, weight
