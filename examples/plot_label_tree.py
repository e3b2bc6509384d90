"""
The label tree learned for handwritten digits
=============================================

:class:`~prunus.hsoftmax.TreeSoftmaxClassifier` learns a small MLP
representation jointly with a tree-structured softmax whose label tree is
re-built during training by the greedy re-assignment of Y. Jernite,
A. Choromanska, D. Sontag and Y. LeCun, *Simultaneous learning of trees and
representations for extreme classification, with application to language
modeling* (Algorithm 2). Here ten digit classes sit in a tree of arity 4 and
depth 2; each row of the figure is one node at depth 1 with the mean image of
every class the learned tree placed under it. Needs the ``torch`` extra.
"""

import matplotlib.pyplot as plt

from prunus.datasets import load
from prunus.hsoftmax import TreeSoftmaxClassifier

d = load("digits")
X_train, y_train, X_test, y_test = d.X[:1400], d.y[:1400], d.X[1400:], d.y[1400:]
clf = TreeSoftmaxClassifier(
    hidden_layer_sizes=(32,), arity=4, depth=2, epochs=12, tree_epochs=6, random_state=0, n_threads=1
).fit(X_train, y_train)
groups = [labels for labels in clf.label_tree_.leaves().values()]

width = max(len(g) for g in groups)
fig, axes = plt.subplots(len(groups), width, figsize=(1.2 * width, 1.3 * len(groups)), squeeze=False)
for row, labels in enumerate(groups):
    for col in range(width):
        ax = axes[row, col]
        ax.set_axis_off()
        if col < len(labels):
            label = int(labels[col])
            ax.imshow(d.X[d.y == label].mean(axis=0).reshape(8, 8), cmap="gray_r")
            ax.set_title(str(d.target_names[label]), fontsize=9)
fig.suptitle(f"learned label tree: one row per node (test accuracy {clf.score(X_test, y_test):.2f})")
fig.tight_layout()
for node, labels in clf.label_tree_.leaves().items():
    print(f"node {node}: classes {[int(v) for v in labels]}")
