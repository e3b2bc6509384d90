"""Boosting exact greedy-optimal trees with adaptive feature pruning.

Aziz, Anderton & Aslam, "Adaptively Pruning Features for Boosted Decision
Trees": Adaptive-Pruning Stump (Algorithm 1) and Boost (Algorithm 2), Quick
Boost (Appel et al. 2013) and exhaustive search with assessment counting,
weight-order (LB_wo) and exact (LB_exact, integer programming) lower bounds,
LazyBoost and weight trimming.
"""

from ._binning import Binning, fit_binning
from ._classifier import ExactBoostClassifier, samme_alpha
from ._lower_bounds import exact_lower_bound, stump_lower_bounds
from ._order import merge_weight_order

__all__ = [
    "Binning",
    "ExactBoostClassifier",
    "exact_lower_bound",
    "fit_binning",
    "merge_weight_order",
    "samme_alpha",
    "stump_lower_bounds",
]
