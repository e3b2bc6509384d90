"""
The CART pruning path and its cross-validation curve
====================================================

CART grows a maximal tree and prunes it into Breiman's nested sequence of
subtrees (S. Gey, *Risk bounds for CART classifiers under a margin
condition*, Table 1). ``selection="cv-1se"`` cross-validates every subtree of
the sequence, as rpart does, and keeps the smallest one whose risk is within
one standard error of the minimum: the figure is rpart's ``plotcp``.
"""

import matplotlib.pyplot as plt
import numpy as np

from prunus import CARTClassifier
from prunus.datasets import load

data = load("breast_cancer")
clf = CARTClassifier(selection="cv-1se", cv=10, random_state=0).fit(data.X, data.y)
res = clf.cv_results_

best = int(np.argmin(res["mean_risk"]))
threshold = res["mean_risk"][best] + res["se_risk"][best]

fig, ax = plt.subplots(figsize=(6, 4))
ax.errorbar(
    res["n_leaves"], res["mean_risk"], yerr=res["se_risk"], fmt="o-", ms=4, capsize=2, label="10-fold CV risk (± 1 SE)"
)
ax.axhline(threshold, color="gray", ls="--", label="minimum + 1 SE")
ax.plot(
    clf.pruned_tree_.n_leaves,
    res["mean_risk"][clf.selected_index_],
    "r*",
    ms=14,
    label=f"selected: {clf.pruned_tree_.n_leaves} leaves",
)
ax.set_xscale("log")
ax.set_xlabel("leaves of the subtree $T_k$")
ax.set_ylabel("misclassification risk")
ax.set_title("breast_cancer: the pruning sequence under cross-validation")
ax.legend()
fig.tight_layout()
print(
    f"T_max: {clf.tree_.n_leaves} leaves; selected T_{clf.selected_index_ + 1}: "
    f"{clf.pruned_tree_.n_leaves} leaves, alpha = {clf.alpha_:.4f}"
)
