"""
rpart's CP table, its plot and variable importance
==================================================

A cross-validated :class:`~prunus.pruning.CARTClassifier` keeps the CV risk of
every subtree of Breiman's pruning sequence. ``cv_table_`` shows it as rpart's
``printcp`` does (``CP`` = alpha / R(root), ``nsplit``, ``rel error``,
``xerror``, ``xstd``), :func:`~prunus.pruning.plot_cv` draws it as rpart's
``plotcp`` (the dotted line is the minimum ``xerror`` plus one ``xstd``: the
1-SE rule keeps the smallest tree below it), and ``select`` switches to another
subtree without refitting, as rpart's ``prune(fit, cp = ...)``. The right panel
compares the mean decrease in impurity of the min-xerror and 1-SE trees.
"""

import matplotlib.pyplot as plt
import numpy as np

from prunus import CARTClassifier
from prunus.datasets import load
from prunus.pruning import plot_cv

data = load("breast_cancer")
clf = CARTClassifier(selection="cv", cv=10, random_state=0).fit(data.X, data.y)
print(clf.cv_table_)

one_se = clf.select(rule="cv-1se")  # a fitted copy; clf is unchanged
print(
    f"min xerror: {clf.pruned_tree_.n_leaves} leaves (cp >= {clf.alpha_ / clf.path_.risks[-1]:.4f}); "
    f"1-SE: {one_se.pruned_tree_.n_leaves} leaves"
)

fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
plot_cv(clf, ax=left)
left.set_title("breast_cancer: 10-fold CV of the pruning sequence", pad=30)

names = np.array(data.feature_names) if "feature_names" in data else np.arange(data.X.shape[1]).astype(str)
top = np.argsort(clf.feature_importances_)[::-1][:8]
pos = np.arange(len(top))
right.barh(pos - 0.2, clf.feature_importances_[top], height=0.4, label="min xerror tree")
right.barh(pos + 0.2, one_se.feature_importances_[top], height=0.4, label="1-SE tree")
right.set_yticks(pos)
right.set_yticklabels(names[top])
right.invert_yaxis()
right.set_xlabel("mean decrease in Gini impurity (normalised)")
right.legend()
fig.tight_layout()
