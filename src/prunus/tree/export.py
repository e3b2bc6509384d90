"""Text, Graphviz DOT and matplotlib renderings of a :class:`Tree`."""

import numpy as np

from ..utils._optional import pyplot


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
        if tree.missing_go_to_left[node]:
            return text_left + " or missing", text_right
        return text_left, text_right + " or missing"
    thr = float(tree.threshold[node])
    if thr == np.inf:
        return f"{name} is present", f"{name} is missing"
    thr = round(thr, decimals)
    if tree.missing_go_to_left[node]:
        return f"{name} <= {thr} or missing", f"{name} >  {thr}"
    return f"{name} <= {thr}", f"{name} >  {thr}"


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


def export_text(tree, feature_names=None, node_labels=None, decimals=3, categories=None):
    """Indented text rendering, one line per split side and per leaf.

    ``node_labels`` (one entry per node, e.g. the majority class) is printed
    at the leaves. ``categories`` (one entry per feature: the names of its
    levels in code order, or None) names the levels of categorical splits,
    shown as ``colour in {red, blue}``; a fitted
    :class:`~prunus.CARTClassifier` has them in ``categories_``.
    """
    _check_labels(tree, node_labels, feature_names, categories)
    lines = []
    # Items are either a node to expand or a ready line; a stack keeps the
    # left branch printed before the right one without recursion.
    stack = [("node", 0, "")]
    while stack:
        kind, item, prefix = stack.pop()
        if kind == "line":
            lines.append(item)
            continue
        node = item
        if tree.children_left[node] == -1:
            label = "" if node_labels is None else f" class: {node_labels[node]}"
            lines.append(f"{prefix}|--- leaf {node}{label}")
            continue
        name = _feature_name(tree, feature_names, tree.feature[node])
        left, right = _conditions(tree, node, name, decimals, categories)
        stack.append(("node", tree.children_right[node], prefix + "|   "))
        stack.append(("line", f"{prefix}|--- {right}", prefix))
        stack.append(("node", tree.children_left[node], prefix + "|   "))
        lines.append(f"{prefix}|--- {left}")
    return "\n".join(lines) + "\n"


def to_dot(tree, feature_names=None, node_labels=None, decimals=3, categories=None):
    """Graphviz DOT source of the tree (``categories``: see :func:`export_text`)."""
    _check_labels(tree, node_labels, feature_names, categories)
    out = ["digraph Tree {", 'node [shape=box, fontname="helvetica"];']
    for node in range(tree.n_nodes):
        if tree.children_left[node] == -1:
            text = f"leaf {node}"
            if node_labels is not None:
                text += f"\\nclass = {_dot_escape(node_labels[node])}"
        else:
            name = _feature_name(tree, feature_names, tree.feature[node])
            text = _dot_escape(_conditions(tree, node, name, decimals, categories)[0])
        out.append(f'{node} [label="{text}"];')
        if node > 0:
            out.append(f"{tree.parent[node]} -> {node};")
    out.append("}")
    return "\n".join(out) + "\n"


def plot_tree(tree, feature_names=None, node_labels=None, ax=None, decimals=2, categories=None):
    """Draw the tree: leaves spread evenly on x, depth on y (``categories``:
    see :func:`export_text`).

    Returns the matplotlib Axes.
    """
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
