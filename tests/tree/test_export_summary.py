"""rpart-style printout of a fitted tree: per node the split, n, loss, prediction and class shares."""

import numpy as np
import pytest

from prunus import CARTClassifier
from prunus.tree import Tree, export_summary, node_summaries


def tiny_tree():
    """x[0] <= 0.5 ? leaf 1 : (x[1] <= 1.25 ? leaf 3 : leaf 4)."""
    return Tree([1, -1, 3, -1, -1], [2, -1, 4, -1, -1], [0, -2, 1, -2, -2], [0.5, -2.0, 1.25, -2.0, -2.0], n_features=2)


COUNTS = np.array([[6, 4], [5, 0], [1, 4], [1, 1], [0, 3]], dtype=float)

TINY_SUMMARY = """\
n = 10

node), split, n, loss, yval, (yprob)
      * denotes terminal node

0) root 10 4 no (0.60 0.40)
  1) a <= 0.5 5 0 no (1.00 0.00) *
  2) a >  0.5 5 1 yes (0.20 0.80)
    3) b <= 1.25 2 1 no (0.50 0.50) *
    4) b >  1.25 3 0 yes (0.00 1.00) *
"""


def test_export_summary_exact():
    tree = tiny_tree()
    text = export_summary(tree, COUNTS, feature_names=["a", "b"], class_names=["no", "yes"], decimals=2)
    assert text == TINY_SUMMARY
    assert tree.export_summary(COUNTS, feature_names=["a", "b"], class_names=["no", "yes"], decimals=2) == text
    # without names: x[j] and the class codes; weights that are not whole numbers print as such
    plain = export_summary(tree, COUNTS * 0.5)
    assert "  1) x[0] <= 0.5 2.5 0 0 (1.000 0.000) *" in plain and plain.startswith("n = 5\n")


def test_export_summary_regression_and_labels():
    tree = tiny_tree()
    moments = np.array([[10, 2.5, 40.0], [5, 1.0, 2.0], [5, 4.0, 8.0], [2, 3.0, 1.0], [3, 4.6667, 2.0]])
    text = export_summary(tree, node_moments=moments)
    assert "node), split, n, deviance, yval" in text
    assert "0) root 10 40 2.5" in text and "    4) x[1] >  1.25 3 2 4.667 *" in text
    labels = node_summaries(tree, node_moments=moments)
    assert labels[0] == "mean 2.5\nn = 10"
    # labels given by the estimator (e.g. from another sample) replace the majority; loss follows them
    text = export_summary(tree, COUNTS, class_names=["no", "yes"], node_labels=["no", "no", "no", "yes", "yes"])
    assert "  2) x[0] >  0.5 5 4 no (0.200 0.800)" in text
    assert "    3) x[1] <= 1.25 2 1 yes (0.500 0.500) *" in text


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(), "exactly one"),
        (dict(node_counts=COUNTS, node_moments=COUNTS), "exactly one"),
        (dict(node_counts=COUNTS[:3]), "one row per node"),
        (dict(node_counts=COUNTS, class_names=["a"]), "class_names"),
        (dict(node_counts=COUNTS, feature_names=["a"]), "feature_names"),
        (dict(node_counts=COUNTS, node_labels=["a"]), "node_labels"),
        (dict(node_moments=COUNTS), "node_moments"),
    ],
)
def test_export_summary_checks_its_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        export_summary(tiny_tree(), **kwargs)


def _parse(text):
    """{node: (depth, n, loss, label, shares, leaf)} from a printout."""
    out = {}
    for line in text.splitlines()[5:]:
        depth = (len(line) - len(line.lstrip())) // 2
        node = int(line.split(")")[0])
        shares = [float(v) for v in line[line.rindex("(") + 1 : line.rindex(")")].split()]
        words = line[: line.rindex("(")].split()
        out[node] = (depth, float(words[-3]), float(words[-2]), words[-1], shares, line.endswith("*"))
    return out


def test_cart_classifier_summary_matches_the_fit():
    pd = pytest.importorskip("pandas")
    from sklearn.datasets import load_iris

    data = load_iris()
    X = pd.DataFrame(data.data, columns=data.feature_names)
    y = data.target_names[data.target]
    clf = CARTClassifier(random_state=0).fit(X, y)
    text = clf.summary()
    tree, counts = clf.pruned_tree_, clf.pruned_counts_
    nodes = _parse(text)
    assert sorted(nodes) == list(range(tree.n_nodes))
    for node, (depth, n, loss, label, shares, leaf) in nodes.items():
        assert depth == tree.depth[node] and leaf == bool(tree.is_leaf[node])
        assert n == counts[node].sum() and shares == pytest.approx(counts[node] / counts[node].sum(), abs=5e-4)
        assert label in data.target_names and loss == n - counts[node][list(clf.classes_).index(label)]
        if not leaf:  # children add up to their parent
            kids = tree.children_left[node], tree.children_right[node]
            assert n == sum(nodes[k][1] for k in kids)
    # the class printed at a leaf is what predict says for the rows that reach it
    leaves = clf.apply(X)
    for leaf in np.unique(leaves):
        assert set(clf.predict(X[leaves == leaf])) == {nodes[leaf][3]}
    # names from the fit: columns of X and classes_
    assert "petal length (cm) <= 2.45" in text and "setosa" in text
    labels = node_summaries(tree, counts, class_names=list(clf.classes_))
    assert labels[0].endswith(f"n = {int(counts[0].sum())}")


def test_cart_classifier_plot_labels_every_node():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from sklearn.datasets import load_iris

    data = load_iris()
    clf = CARTClassifier(random_state=0).fit(data.data, data.target_names[data.target])
    texts = [t.get_text() for t in clf.plot().texts]
    assert len(texts) == clf.pruned_tree_.n_nodes
    assert texts[0].startswith("x[2]\n<= 2.45\n") and texts[0].endswith(f"n = {int(clf.pruned_counts_[0].sum())}")
    assert any(t.startswith("setosa 100%\nn = ") for t in texts)
    plt.close("all")


@pytest.mark.parametrize("decimals", [-1, 1.5, "2", None])
def test_every_rendering_names_a_bad_decimals(decimals):
    """A count of decimals that is not an int >= 0 is refused naming it (not in a format specification)."""
    from prunus.tree import export_text, plot_tree, to_dot

    tree = tiny_tree()
    calls = {
        "export_text": lambda: export_text(tree, decimals=decimals),
        "export_summary": lambda: export_summary(tree, COUNTS, decimals=decimals),
        "node_summaries": lambda: node_summaries(tree, COUNTS, decimals=decimals),
        "to_dot": lambda: to_dot(tree, decimals=decimals),
        "plot_tree": lambda: plot_tree(tree, decimals=decimals),
    }
    for name, call in calls.items():
        with pytest.raises((ValueError, TypeError), match=f"^The 'decimals' parameter of {name} must be an int"):
            call()
    est = CARTClassifier(random_state=0).fit(np.arange(20.0)[:, None], np.arange(20) % 2)
    with pytest.raises(ValueError, match="'decimals' parameter of export_summary"):
        est.summary(decimals=decimals)
    for ok in (0, np.int64(2)):
        assert export_summary(tree, COUNTS, decimals=ok).startswith("n = 10")


def test_cart_regressor_plot_labels_every_node():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from sklearn.datasets import load_diabetes

    from prunus import CARTRegressor

    data = load_diabetes(as_frame=True)
    reg = CARTRegressor(selection="alpha", alpha=200.0).fit(data.data, data.target)
    texts = [t.get_text() for t in reg.plot().texts]
    assert len(texts) == reg.pruned_tree_.n_nodes > 1
    root = f"mean {reg.pruned_counts_[0, 1]:.4g}\nn = {int(reg.pruned_counts_[0, 0])}"
    assert texts[0].startswith(str(data.data.columns[reg.pruned_tree_.feature[0]]) + "\n<= ")
    assert texts[0].endswith(root) and all("\nmean " in t or t.startswith("mean ") for t in texts)
    plt.close("all")


def _regressor_and_classifier():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 3))
    y = 3.0 * (X[:, 0] > 0) + X[:, 1] + 0.1 * rng.normal(size=300)
    from prunus import CARTRegressor

    reg = CARTRegressor(selection="alpha", alpha=0.05, random_state=0).fit(X, y)
    clf = CARTClassifier(selection="alpha", alpha=0.01, random_state=0).fit(X, y > 1.5)
    return X, reg, clf


def _leaf_lines(text, word):
    import re

    return {int(m[1]): m[2] for m in re.finditer(rf"leaf (\d+) {word}: (\S+)", text)}


def test_regressor_leaves_read_as_values():
    """A regression tree's leaves read "value: <mean>" (scikit-learn's word for
    a regressor), never "class", in every text rendering that names them."""
    X, reg, clf = _regressor_and_classifier()
    text = reg.export_text()
    assert "class" not in text
    values = _leaf_lines(text, "value")
    assert len(values) == reg.pruned_tree_.n_leaves > 2
    leaves = reg.apply(X)
    for leaf, prediction in zip(leaves, reg.predict(X)):
        assert float(values[leaf]) == round(float(prediction), 3)
    assert float(_leaf_lines(reg.export_text(decimals=1), "value")[leaves[0]]) == round(float(reg.predict(X[:1])[0]), 1)
    # The tree's own renderings, given the regressor's node texts and what they are.
    labels = reg.node_labels()
    tree_text = reg.pruned_tree_.export_text(node_labels=labels, label_name="value")
    assert "class" not in tree_text and f"value: {labels[int(leaves[0])]}" in tree_text
    dot = reg.pruned_tree_.to_dot(node_labels=labels, label_name="value")
    assert "class" not in dot and f"\\nvalue = {labels[int(leaves[0])]}" in dot
    # A classifier's leaves keep reading as classes.
    classes = _leaf_lines(clf.export_text(), "class")
    for leaf, prediction in zip(clf.apply(X), clf.predict(X)):
        assert classes[leaf] == str(prediction)
    assert clf.export_text() == clf.pruned_tree_.export_text(node_labels=clf._leaf_texts(3)[0])


@pytest.mark.parametrize("render", ["export_text", "to_dot"])
def test_a_bad_label_name_is_named(render):
    tree = tiny_tree()
    with pytest.raises(ValueError, match=f"'label_name' parameter of {render} must be an instance of str"):
        getattr(tree, render)(node_labels=["a"] * tree.n_nodes, label_name=3)


def test_estimator_export_text_names_a_bad_decimals():
    _, reg, clf = _regressor_and_classifier()
    for est in (reg, clf):
        with pytest.raises(ValueError, match="decimals"):
            est.export_text(decimals=-1)
