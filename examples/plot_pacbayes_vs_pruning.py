"""
Voting over all subtrees against pruning to one, as n grows
===========================================================

The PAC-Bayes tree (T. Nguyen and S. Kpotufe, *PAC-Bayes tree: weighted
subtrees with guarantees*) weighs every subtree of a KD tree by its posterior
and votes; penalized pruning keeps the single subtree minimising the
penalized training error. Both choose their constants by the paper's 2-fold
cross-validation. The excess risk over the Bayes classifier is estimated on
fresh inputs of Gey's Gaussian example (positive-quadrant rule, labels flipped
with probability 0.2).
"""

import matplotlib.pyplot as plt
import numpy as np

from prunus import PACBayesTreeClassifier, PenalizedTreeClassifier
from prunus.datasets import excess_risk, make_gey_gaussian

sizes = [100, 200, 400, 800, 1600]
repeats = 3
methods = {
    "PAC-Bayes vote": lambda seed: PACBayesTreeClassifier("kd", random_state=seed),
    "penalized pruning": lambda seed: PenalizedTreeClassifier("kd", random_state=seed),
}
risk = {name: np.zeros((len(sizes), repeats)) for name in methods}
for i, n in enumerate(sizes):
    for r in range(repeats):
        problem = make_gey_gaussian(n_samples=n, q=0.2, random_state=r)
        for name, make in methods.items():
            est = make(r).fit(problem.X, problem.y)
            risk[name][i, r] = excess_risk(est.predict, problem, n_test=20_000)

fig, ax = plt.subplots(figsize=(6, 4))
for name, values in risk.items():
    ax.errorbar(sizes, values.mean(axis=1), yerr=values.std(axis=1) / np.sqrt(repeats), fmt="o-", capsize=2, label=name)
ax.set_xscale("log")
ax.set_yscale("log")
ax.set_xlabel("training sample size n")
ax.set_ylabel("excess risk (mean ± SE over 3 samples)")
ax.set_title("Gey's Gaussian example, KD partition")
ax.legend()
fig.tight_layout()
for name, values in risk.items():
    print(name, np.round(values.mean(axis=1), 4))
