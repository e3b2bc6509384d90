"""
CART regression: the pruning path under cross-validation
========================================================

:class:`~prunus.CARTRegressor` grows a least-squares tree, prunes it into
Breiman's nested sequence on squared error and selects one subtree by
rpart-style 10-fold cross-validation. The figure shows the held-out mean
squared error of every subtree of the sequence (with rpart's standard error)
and the training risk R(T_k), on ``make_friedman1``.
"""

import matplotlib.pyplot as plt
from sklearn.datasets import make_friedman1

from prunus import CARTRegressor

X, y = make_friedman1(3000, noise=1.0, random_state=0)
reg = CARTRegressor(selection="cv", cv=10, random_state=0).fit(X[:2000], y[:2000])
res = reg.cv_results_
test_mse = ((reg.predict(X[2000:]) - y[2000:]) ** 2).mean()

fig, ax = plt.subplots(figsize=(6, 4))
ax.errorbar(res["n_leaves"], res["mean_risk"], yerr=res["se_risk"], fmt="o-", ms=3, capsize=2, label="10-fold CV MSE")
ax.plot(reg.path_.n_leaves, reg.path_.risks, "-", color="gray", label="training risk R(T_k)")
ax.plot(reg.pruned_tree_.n_leaves, res["mean_risk"][reg.selected_index_], "r*", ms=14, label="selected")
ax.set_xscale("log")
ax.set_xlabel("leaves of the subtree $T_k$")
ax.set_ylabel("mean squared error")
ax.set_title(f"friedman1: {reg.pruned_tree_.n_leaves} leaves, test MSE {test_mse:.2f}")
ax.legend()
fig.tight_layout()
plt.show()
