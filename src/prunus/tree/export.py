"""Text, Graphviz DOT and matplotlib renderings of a :class:`Tree`."""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Integral
from typing import Any, Protocol

import numpy as np
from numpy.typing import ArrayLike

from ..utils._optional import pyplot
from ..utils._param_validation import Interval, validate_params


class TreeLike(Protocol):
    """What the renderings read of a tree: the arrays and sizes of :class:`~prunus.tree.Tree`.

    (A protocol rather than the class itself: this module sits above the tree
    structure, whose ``export_*`` methods call into it.)
    """

    children_left: np.ndarray
    children_right: np.ndarray
    feature: np.ndarray
    threshold: np.ndarray
    missing_go_to_left: np.ndarray
    n_categories: np.ndarray
    is_categorical: np.ndarray
    parent: np.ndarray
    depth: np.ndarray
    n_features: int

    @property
    def n_nodes(self) -> int: ...

    @property
    def n_leaves(self) -> int: ...

    @property
    def max_depth(self) -> int: ...

    def left_categories(self, node: int) -> np.ndarray: ...


def _feature_name(tree, feature_names, f):
    if feature_names is None:
        return f"x[{f}]"
    if len(feature_names) != tree.n_features:
        raise ValueError(f"feature_names has {len(feature_names)} entries but the tree has {tree.n_features} features.")
    return str(feature_names[f])


def _dot_escape(text):
    # Graphviz reads a quoted label: backslashes and double quotes must be escaped.
    return str(text).replace("\\", "\\\\").replace('"', '\\"')


def _level_set(tree, node, codes, categories):
    names = None if categories is None else categories[tree.feature[node]]
    return "{" + ", ".join(str(c) if names is None else str(names[c]) for c in codes) + "}"


def _conditions(tree, node, name, decimals, categories=None):
    """Texts of the left and right branches of a split. A missing value (NaN)
    goes right unless ``missing_go_to_left`` says left, which is then shown;
    a threshold of +inf splits present from missing values. A categorical
    split reads ``name in {a, b}`` (its levels, by name when ``categories``
    gives them, else by code)."""
    if tree.is_categorical[node]:
        n_levels = int(tree.n_categories[tree.feature[node]])
        left = tree.left_categories(node)
        right = np.setdiff1d(np.arange(n_levels), left)
        text_left = f"{name} in {_level_set(tree, node, left, categories)}"
        text_right = f"{name} in {_level_set(tree, node, right, categories)}"
        if _n_surrogates(tree, node):
            # Missing values follow the surrogates (listed by export_summary).
            return text_left, text_right
        if tree.missing_go_to_left[node]:
            return text_left + " or missing", text_right
        return text_left, text_right + " or missing"
    thr = float(tree.threshold[node])
    if thr == np.inf:
        return f"{name} is present", f"{name} is missing"
    thr = round(thr, decimals)
    if _n_surrogates(tree, node):
        return f"{name} <= {thr}", f"{name} >  {thr}"
    if tree.missing_go_to_left[node]:
        return f"{name} <= {thr} or missing", f"{name} >  {thr}"
    return f"{name} <= {thr}", f"{name} >  {thr}"


def _n_surrogates(tree, node):
    s = getattr(tree, "surrogates", None)
    return 0 if s is None else int(s.offsets[node + 1] - s.offsets[node])


def _surrogate_lines(tree, feature_names, decimals, categories):
    """rpart's ``summary`` "Surrogate splits:" blocks, one per split that has some."""
    lines = ["", "Surrogate splits (a row missing a split's feature follows the first one whose feature it has):"]
    s = tree.surrogates
    for node in np.flatnonzero(~tree.is_leaf):
        lo, hi = int(s.offsets[node]), int(s.offsets[node + 1])
        if lo == hi:
            continue
        name = _feature_name(tree, feature_names, tree.feature[node])
        left, _ = _conditions(tree, node, name, decimals, categories)
        last = "left" if tree.missing_go_to_left[node] else "right"
        lines.append(f"  node {node}) {left} to the left; none present: {last}")
        for q in range(lo, hi):
            g = int(s.feature[q])
            other = _feature_name(tree, feature_names, g)
            if tree.n_categories[g] > 0:
                codes = np.arange(int(tree.n_categories[g]))
                words = s.category_bits[q, codes >> 6] >> (codes & 63).astype(np.uint64)
                left_codes = codes[(words & np.uint64(1)) == 1]
                names = None if categories is None else categories[g]
                levels = "{" + ", ".join(str(c) if names is None else str(names[c]) for c in left_codes) + "}"
                text = f"{other} in {levels} to the left"
            else:
                side = "left" if s.left_below[q] else "right"
                text = f"{other} <= {round(float(s.threshold[q]), decimals)} to the {side}"
            lines.append(f"      {text}, agree={s.agreement[q]:.3f}, adj={s.adj[q]:.3f}")
    return lines


def check_decimals(decimals: Any, caller_name: str) -> None:
    """Refuse a ``decimals`` that is not an integer >= 0, naming it and ``caller_name``.

    Checked before any text is made: a negative or non-integer count of
    decimals would otherwise fail inside a format specification, unnamed.
    """
    validate_params({"decimals": [Interval(Integral, 0, None, closed="left")]}, {"decimals": decimals}, caller_name)


def check_label_name(label_name: Any, caller_name: str) -> None:
    """Refuse a ``label_name`` that is not a string, naming it and ``caller_name``."""
    validate_params({"label_name": [str]}, {"label_name": label_name}, caller_name)


def _check_labels(tree, node_labels, feature_names=None, categories=None):
    if node_labels is not None and len(node_labels) != tree.n_nodes:
        raise ValueError(f"node_labels must have one entry per node ({tree.n_nodes}).")
    if categories is not None:
        if len(categories) != tree.n_features:
            raise ValueError(f"categories has {len(categories)} entries but the tree has {tree.n_features} features.")
        for f in range(tree.n_features):
            n_levels = int(tree.n_categories[f])
            if n_levels and categories[f] is not None and len(categories[f]) < n_levels:
                raise ValueError(f"categories[{f}] names {len(categories[f])} levels; feature {f} has {n_levels}.")
    if feature_names is not None:
        # Checked up front, not only when an internal node is drawn, so that a
        # wrong list is reported for a single-leaf tree too.
        _feature_name(tree, feature_names, 0)


def export_text(
    tree: TreeLike,
    feature_names: Sequence[str] | None = None,
    node_labels: Sequence[Any] | None = None,
    decimals: int = 3,
    categories: Sequence[Any] | None = None,
    label_name: str = "class",
) -> str:
    """Indented text rendering, one line per split side and per leaf.

    Categorical splits are shown as ``colour in {red, blue}``; a leaf as
    ``leaf 3 class: yes`` (``leaf 3 value: 3.2`` with ``label_name="value"``,
    for the means of a regression tree).

    Parameters
    ----------
    tree : Tree
        The tree to render (any object shaped like :class:`~prunus.tree.Tree`).
    feature_names : sequence of str, optional
        Names of the features (``x[j]`` when omitted).
    node_labels : sequence, optional
        One entry per node, e.g. the majority class, shown at the leaves.
    decimals : int, default=3
        Decimals of the thresholds.
    categories : sequence, optional
        One entry per feature: the names of its levels in code order, or
        None (levels shown by code); a fitted
        :class:`~prunus.CARTClassifier` has them in ``categories_``.
    label_name : str, default="class"
        What ``node_labels`` are, written before each leaf's entry:
        ``"class"`` for class labels, ``"value"`` for a regression tree's
        means (as scikit-learn's ``export_text`` writes a regressor's leaves).

    Returns
    -------
    text : str
        One line per split side and per leaf (``|--- leaf 3 class: 1``).

    See Also
    --------
    export_summary : rpart-style printout with sizes and predictions.
    """
    check_decimals(decimals, "export_text")
    check_label_name(label_name, "export_text")
    _check_labels(tree, node_labels, feature_names, categories)
    lines = []
    # Items are either a node to expand or a ready line; a stack keeps the
    # left branch printed before the right one without recursion.
    stack: list[tuple[str, Any, str]] = [("node", 0, "")]
    while stack:
        kind, item, prefix = stack.pop()
        if kind == "line":
            lines.append(item)
            continue
        node = item
        if tree.children_left[node] == -1:
            label = "" if node_labels is None else f" {label_name}: {node_labels[node]}"
            lines.append(f"{prefix}|--- leaf {node}{label}")
            continue
        name = _feature_name(tree, feature_names, tree.feature[node])
        left, right = _conditions(tree, node, name, decimals, categories)
        stack.append(("node", tree.children_right[node], prefix + "|   "))
        stack.append(("line", f"{prefix}|--- {right}", prefix))
        stack.append(("node", tree.children_left[node], prefix + "|   "))
        lines.append(f"{prefix}|--- {left}")
    return "\n".join(lines) + "\n"


def _node_stats(tree, node_counts, node_moments, class_names, node_labels):
    """Per node: weight, loss (or deviance), predicted value text, class shares (or None)."""
    if (node_counts is None) == (node_moments is None):
        raise ValueError("give exactly one of node_counts (classification) and node_moments (regression).")
    values = np.asarray(node_counts if node_counts is not None else node_moments, dtype=np.float64)
    name = "node_counts" if node_counts is not None else "node_moments"
    if values.ndim != 2 or values.shape[0] != tree.n_nodes:
        raise ValueError(f"{name} must have one row per node ({tree.n_nodes}); got shape {values.shape}.")
    if node_labels is not None and len(node_labels) != tree.n_nodes:
        raise ValueError(f"node_labels must have one entry per node ({tree.n_nodes}).")
    if node_moments is not None:
        if values.shape[1] != 3:
            raise ValueError("node_moments must have the columns weight, mean, sum of squares (Tree.node_moments).")
        return values[:, 0], values[:, 2], [f"{m:.4g}" for m in values[:, 1]], None
    n_classes = values.shape[1]
    if class_names is None:
        class_names = [str(k) for k in range(n_classes)]
    if len(class_names) != n_classes:
        raise ValueError(f"class_names has {len(class_names)} entries but node_counts has {n_classes} columns.")
    weight = values.sum(axis=1)
    if node_labels is None:
        # the majority class (ties to the first); an empty node takes its parent's
        pred = np.zeros(tree.n_nodes, dtype=np.int64)
        for node in range(tree.n_nodes):
            pred[node] = values[node].argmax() if weight[node] > 0 else (pred[tree.parent[node]] if node else 0)
        labels = [str(class_names[k]) for k in pred]
    else:
        labels = [str(v) for v in node_labels]
    position = {str(c): k for k, c in enumerate(class_names)}
    share = np.divide(values, weight[:, None], out=np.zeros_like(values), where=weight[:, None] > 0)
    loss = np.array(
        [weight[t] - values[t, position[labels[t]]] if labels[t] in position else np.nan for t in range(tree.n_nodes)]
    )
    return weight, loss, labels, share


def _number(value, integral):
    return f"{value:.0f}" if integral else f"{value:.4g}"


def export_summary(
    tree: TreeLike,
    node_counts: ArrayLike | None = None,
    node_moments: ArrayLike | None = None,
    feature_names: Sequence[str] | None = None,
    class_names: Sequence[Any] | None = None,
    node_labels: Sequence[Any] | None = None,
    decimals: int = 3,
    categories: Sequence[Any] | None = None,
) -> str:
    """rpart-style printout of a fitted tree: one line per node with its split, size and prediction.

    In the spirit of R's ``print(rpart_fit)``::

        n = 150

        node), split, n, loss, yval, (yprob)
              * denotes terminal node

        0) root 150 100 setosa (0.333 0.333 0.333)
          1) petal length (cm) <= 2.45 50 0 setosa (1.000 0.000 0.000) *
          2) petal length (cm) >  2.45 100 50 versicolor (0.000 0.500 0.500)
        ...

    Parameters
    ----------
    tree : Tree
        The tree to render (any object shaped like :class:`~prunus.tree.Tree`).
    node_counts : ndarray of shape (n_nodes, n_classes), optional
        Class weights of a sample in every node (:meth:`Tree.node_counts`):
        a classification tree. ``n`` is the node's weight, ``loss`` the weight
        not of the predicted class, ``yval`` the predicted class and
        ``yprob`` the class shares.
    node_moments : ndarray of shape (n_nodes, 3), optional
        Weight, mean and sum of squares of a real target in every node
        (:meth:`Tree.node_moments`): a regression tree. ``deviance`` is the
        sum of squares, ``yval`` the mean.
    feature_names : sequence of str, optional
        Names of the features (``x[j]`` when omitted).
    class_names : sequence, optional
        Names of the classes, in the columns' order (``0, 1, ...`` when omitted).
    node_labels : sequence, optional
        The predicted class of every node, when it is not the majority of
        ``node_counts`` (e.g. labels taken from another sample).
    decimals : int, default=3
        Decimals of thresholds and class shares.
    categories : sequence, optional
        Names of the levels of each categorical feature (see :func:`export_text`).

    Returns
    -------
    text : str
        Node ids are those of the tree (what :meth:`Tree.apply` returns);
        each node's line shows the condition that leads to it from its parent.
        A tree with surrogate splits ends with them, as rpart's
        ``summary(fit)`` lists them: per split, each surrogate's rule (the
        side its rule sends a row to), agreement and adjusted agreement, and
        the side of a row that has none of their features.
    """
    check_decimals(decimals, "export_summary")
    _check_labels(tree, None, feature_names, categories)
    weight, loss, labels, share = _node_stats(tree, node_counts, node_moments, class_names, node_labels)
    integral = bool(np.all(weight == np.round(weight)))
    if share is None:
        header = "node), split, n, deviance, yval"
    else:
        header = "node), split, n, loss, yval, (yprob)"
    lines = [f"n = {_number(weight[0], integral)}", "", header, "      * denotes terminal node", ""]
    stack = [(0, 0, "root")]
    while stack:
        node, depth, split = stack.pop()
        leaf = tree.children_left[node] == -1
        line = f"{'  ' * depth}{node}) {split} {_number(weight[node], integral)} "
        if share is None:
            line += f"{loss[node]:.4g} {labels[node]}"
        else:
            loss_text = _number(loss[node], integral) if np.isfinite(loss[node]) else "?"
            probs = " ".join(f"{p:.{decimals}f}" for p in share[node])
            line += f"{loss_text} {labels[node]} ({probs})"
        lines.append(line + (" *" if leaf else ""))
        if not leaf:
            name = _feature_name(tree, feature_names, tree.feature[node])
            left, right = _conditions(tree, node, name, decimals, categories)
            stack.append((tree.children_right[node], depth + 1, right))
            stack.append((tree.children_left[node], depth + 1, left))
    if getattr(tree, "has_surrogates", False):
        lines += _surrogate_lines(tree, feature_names, decimals, categories)
    return "\n".join(lines) + "\n"


def node_summaries(
    tree: TreeLike,
    node_counts: ArrayLike | None = None,
    node_moments: ArrayLike | None = None,
    class_names: Sequence[Any] | None = None,
    node_labels: Sequence[Any] | None = None,
    decimals: int = 2,
) -> list[str]:
    """A short label per node for :func:`plot_tree`: the prediction, its share (or the mean) and n.

    E.g. ``"setosa 100%\\nn = 50"`` for a classification node,
    ``"mean 3.2\\nn = 50"`` for a regression node.

    Parameters
    ----------
    tree : Tree
        The tree to render (any object shaped like :class:`~prunus.tree.Tree`).
    node_counts : ndarray of shape (n_nodes, n_classes), optional
        Class weights of a sample in every node: a classification tree.
    node_moments : ndarray of shape (n_nodes, 3), optional
        Weight, mean and sum of squares of a real target in every node: a
        regression tree.
    class_names : sequence, optional
        Names of the classes, in the columns' order.
    node_labels : sequence, optional
        The predicted class of every node, when it is not the majority of
        ``node_counts``.
    decimals : int, default=2
        Decimals of the class share (as a percentage, two fewer).

    Returns
    -------
    labels : list of str
        One label per node, for the ``node_labels`` of :func:`plot_tree`.
    """
    check_decimals(decimals, "node_summaries")
    weight, _, labels, share = _node_stats(tree, node_counts, node_moments, class_names, node_labels)
    integral = bool(np.all(weight == np.round(weight)))
    if share is None:
        return [f"mean {labels[t]}\nn = {_number(weight[t], integral)}" for t in range(tree.n_nodes)]
    position = {str(c): k for k, c in enumerate(class_names if class_names is not None else range(share.shape[1]))}
    out = []
    for t in range(tree.n_nodes):
        k = position.get(labels[t])
        pct = f" {100 * share[t, k]:.{max(decimals - 2, 0)}f}%" if k is not None else ""
        out.append(f"{labels[t]}{pct}\nn = {_number(weight[t], integral)}")
    return out


def to_dot(
    tree: TreeLike,
    feature_names: Sequence[str] | None = None,
    node_labels: Sequence[Any] | None = None,
    decimals: int = 3,
    categories: Sequence[Any] | None = None,
    label_name: str = "class",
) -> str:
    """Graphviz DOT source of the tree.

    Parameters
    ----------
    tree : Tree
        The tree to render (any object shaped like :class:`~prunus.tree.Tree`).
    feature_names : sequence of str, optional
        Names of the features (``x[j]`` when omitted).
    node_labels : sequence, optional
        One entry per node, e.g. the majority class, shown at the leaves as ``class = ...``.
    decimals : int, default=3
        Decimals of the thresholds.
    categories : sequence, optional
        One entry per feature: the names of its levels in code order, or
        None (levels shown by code); a fitted
        :class:`~prunus.CARTClassifier` has them in ``categories_``.
    label_name : str, default="class"
        What ``node_labels`` are, written before each leaf's entry
        (``"value"`` for a regression tree's means).

    Returns
    -------
    dot : str
        A ``digraph``; a split node shows its left condition.
    """
    check_decimals(decimals, "to_dot")
    check_label_name(label_name, "to_dot")
    _check_labels(tree, node_labels, feature_names, categories)
    out = ["digraph Tree {", 'node [shape=box, fontname="helvetica"];']
    for node in range(tree.n_nodes):
        if tree.children_left[node] == -1:
            text = f"leaf {node}"
            if node_labels is not None:
                text += f"\\n{_dot_escape(label_name)} = {_dot_escape(node_labels[node])}"
        else:
            name = _feature_name(tree, feature_names, tree.feature[node])
            text = _dot_escape(_conditions(tree, node, name, decimals, categories)[0])
        out.append(f'{node} [label="{text}"];')
        if node > 0:
            out.append(f"{tree.parent[node]} -> {node};")
    out.append("}")
    return "\n".join(out) + "\n"


def plot_tree(
    tree: TreeLike,
    feature_names: Sequence[str] | None = None,
    node_labels: Sequence[Any] | None = None,
    ax: Any = None,
    decimals: int = 2,
    categories: Sequence[Any] | None = None,
) -> Any:
    """Draw the tree: leaves spread evenly on x, depth on y.

    A leaf shows its entry of ``node_labels``; a split shows its condition,
    then its entry of ``node_labels`` when not empty (:func:`node_summaries`
    gives rpart-style labels: prediction, share and n).

    Parameters
    ----------
    tree : Tree
        The tree to render (any object shaped like :class:`~prunus.tree.Tree`).
    feature_names : sequence of str, optional
        Names of the features (``x[j]`` when omitted).
    node_labels : sequence, optional
        One entry per node, shown at the leaves and under the splits.
    ax : matplotlib Axes, optional
        Where to draw; a new figure sized to the tree when omitted.
    decimals : int, default=2
        Decimals of the thresholds.
    categories : sequence, optional
        One entry per feature: the names of its levels in code order, or
        None (levels shown by code); a fitted
        :class:`~prunus.CARTClassifier` has them in ``categories_``.

    Returns
    -------
    ax : matplotlib Axes
        The Axes drawn on.
    """
    check_decimals(decimals, "plot_tree")
    # No matplotlib.use() here: a library must not switch the caller's backend
    # (headless machines fall back to Agg by themselves; CI sets MPLBACKEND=Agg).
    plt = pyplot("plot_tree")

    _check_labels(tree, node_labels, feature_names, categories)
    if ax is None:
        width = max(4.0, min(40.0, 1.2 * tree.n_leaves))
        _, ax = plt.subplots(figsize=(width, 1.2 * (tree.max_depth + 1) + 1))
    x = np.zeros(tree.n_nodes)
    next_leaf = 0.0
    # Leaves are placed left to right in depth-first order, parents centred.
    order = []
    stack = [0]
    while stack:
        node = stack.pop()
        order.append(node)
        if tree.children_left[node] != -1:
            stack.append(tree.children_right[node])
            stack.append(tree.children_left[node])
    for node in order:
        if tree.children_left[node] == -1:
            x[node] = next_leaf
            next_leaf += 1.0
    for node in range(tree.n_nodes - 1, -1, -1):
        if tree.children_left[node] != -1:
            x[node] = 0.5 * (x[tree.children_left[node]] + x[tree.children_right[node]])
    y = -tree.depth.astype(float)
    for node in range(1, tree.n_nodes):
        p = tree.parent[node]
        ax.plot([x[p], x[node]], [y[p], y[node]], color="0.6", lw=0.8, zorder=1)
    for node in range(tree.n_nodes):
        if tree.children_left[node] == -1:
            text = "" if node_labels is None else str(node_labels[node])
        else:
            name = _feature_name(tree, feature_names, tree.feature[node])
            text = _conditions(tree, node, name, decimals, categories)[0].replace(" <= ", "\n<= ", 1)
            if node_labels is not None and str(node_labels[node]):
                text += "\n" + str(node_labels[node])  # e.g. the prediction and n at this node
        ax.text(
            x[node],
            y[node],
            text,
            ha="center",
            va="center",
            fontsize=7,
            bbox=dict(boxstyle="round", fc="white", ec="0.4"),
            zorder=2,
        )
    ax.set_axis_off()
    ax.set_xlim(-1, max(next_leaf, 1.0))
    ax.set_ylim(-tree.max_depth - 0.5, 0.5)
    return ax
