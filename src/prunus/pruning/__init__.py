"""Choosing ONE subtree of a fixed tree: Breiman's cost-complexity path (on
misclassification cost or squared error) and
the selection rules of Gey's paper (hold-out M1/M2, CV, 1-SE, slope heuristic,
sub-additive penalties)."""

from ._classes import CARTClassifier
from ._cp_table import CPTable, cp_table, plot_cv
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
    "CPTable",
    "CostComplexityPath",
    "SquaredErrorPath",
    "cost_complexity_path",
    "cp_table",
    "node_labels",
    "node_values",
    "plot_cv",
    "squared_error_path",
]
