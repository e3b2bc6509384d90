"""Choosing ONE subtree of a fixed tree: Breiman's cost-complexity path (on
misclassification cost or squared error) and
the selection rules of Gey's paper (hold-out M1/M2, CV, 1-SE, slope heuristic,
sub-additive penalties)."""

from ._classes import CARTClassifier
from ._regressor import CARTRegressor
from .path import (
    CostComplexityPath,
    SquaredErrorPath,
    cost_complexity_path,
    node_labels,
    node_values,
    squared_error_path,
)

__all__ = [
    "CARTClassifier",
    "CARTRegressor",
    "CostComplexityPath",
    "SquaredErrorPath",
    "cost_complexity_path",
    "node_labels",
    "node_values",
    "squared_error_path",
]
