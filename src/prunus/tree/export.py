"""Text, Graphviz DOT and matplotlib renderings of a :class:`Tree`."""

from typing import Any

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


def _conditions(tree, node, name, decimals):
    """Texts of the left and right branches of a split. A missing value (NaN)
    goes right unless ``missing_go_to_left`` says left, which is then shown;
    a threshold of +inf splits present from missing values."""
    thr = float(tree.threshold[node])
    if thr == np.inf:
        return f"{name} is present", f"{name} is missing"
    thr = round(thr, decimals)
    if tree.missing_go_to_left[node]:
        return f"{name} <= {thr} or missing", f"{name} >  {thr}"
    return f"{name} <= {thr}", f"{name} >  {thr}"


def _check_labels(tree, node_labels, feature_names=None):
    if node_labels is not None and len(node_labels) != tree.n_nodes:
        raise ValueError(f"node_labels must have one entry per node ({tree.n_nodes}).")
    if feature_names is not None:
        # Checked up front, not only when an internal node is drawn, so that a
        # wrong list is reported for a single-leaf tree too.
        _feature_name(tree, feature_names, 0)


def export_text(tree, feature_names=None, node_labels=None, decimals=3):
    """Indented text rendering, one line per split side and per leaf.

    ``node_labels`` (one entry per node, e.g. the majority class) is printed
    at the leaves.
    """
    _check_labels(tree, node_labels, feature_names)
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
            label = "" if node_labels is None else f" class: {node_labels[node]}"
            lines.append(f"{prefix}|--- leaf {node}{label}")
            continue
        name = _feature_name(tree, feature_names, tree.feature[node])
        left, right = _conditions(tree, node, name, decimals)
        stack.append(("node", tree.children_right[node], prefix + "|   "))
        stack.append(("line", f"{prefix}|--- {right}", prefix))
        stack.append(("node", tree.children_left[node], prefix + "|   "))
        lines.append(f"{prefix}|--- {left}")
    return "\n".join(lines) + "\n"


def to_dot(tree, feature_names=None, node_labels=None, decimals=3):
    """Graphviz DOT source of the tree."""
    _check_labels(tree, node_labels, feature_names)
    out = ["digraph Tree {", 'node [shape=box, fontname="helvetica"];']
    for node in range(tree.n_nodes):
        if tree.children_left[node] == -1:
            text = f"leaf {node}"
            if node_labels is not None:
                text += f"\\nclass = {_dot_escape(node_labels[node])}"
        else:
            name = _dot_escape(_feature_name(tree, feature_names, tree.feature[node]))
            text = _conditions(tree, node, name, decimals)[0]
        out.append(f'{node} [label="{text}"];')
        if node > 0:
            out.append(f"{tree.parent[node]} -> {node};")
    out.append("}")
    return "\n".join(out) + "\n"


def plot_tree(tree, feature_names=None, node_labels=None, ax=None, decimals=2):
    """Draw the tree: leaves spread evenly on x, depth on y.

    Returns the matplotlib Axes.
    """
    # No matplotlib.use() here: a library must not switch the caller's backend
    # (headless machines fall back to Agg by themselves; CI sets MPLBACKEND=Agg).
    plt = pyplot("plot_tree")

    _check_labels(tree, node_labels, feature_names)
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
            text = _conditions(tree, node, name, decimals)[0].replace(" <= ", "\n<= ", 1)
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
