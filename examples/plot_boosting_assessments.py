"""
Assessments per boosting round of the three exact split searches
================================================================

Every round of :class:`~prunus.boosting.ExactBoostClassifier` grows the exact
greedy-optimal depth-2 tree for the current weights; exhaustive search,
Quick Boost and Adaptive-Pruning (M. Aziz, J. Anderton and J. Aslam,
*Adaptively pruning features for boosted decision trees*, Algorithm 1) grow
the same trees and differ only in how many (example, feature) assessments
they spend. The weight-order lower bound LB_wo (section 4) bounds what any
search that assesses examples in decreasing weight order must spend.
"""

import matplotlib.pyplot as plt
import numpy as np

from prunus import ExactBoostClassifier
from prunus.datasets import load

d = load("digits")
rounds = 30
runs = {}
for search in ("exhaustive", "quick", "adaptive"):
    runs[search] = ExactBoostClassifier(
        n_estimators=rounds, max_depth=2, split_search=search, track_bounds=search == "adaptive", random_state=0
    ).fit(d.X, d.y)
assert all(runs[s].estimators_ == runs["exhaustive"].estimators_ for s in runs)  # the same trees

fig, ax = plt.subplots(figsize=(6, 4))
t = np.arange(1, len(runs["exhaustive"].assessments_) + 1)
for search, est in runs.items():
    ax.plot(t, est.assessments_, "o-", ms=3, label=search)
ax.plot(t, runs["adaptive"].weight_order_bound_, "k--", label="lower bound $LB_{wo}$")
ax.set_yscale("log")
ax.set_xlabel("boosting round")
ax.set_ylabel("(example, feature) assessments")
ax.set_title("digits, depth-2 trees: the same trees at different costs")
ax.legend()
fig.tight_layout()
for search, est in runs.items():
    share = est.assessments_.sum() / runs["exhaustive"].assessments_.sum()
    print(f"{search:>10}: {est.assessments_.sum():>10,} assessments ({share:.1%} of exhaustive)")
