"""Dask estimators and block-wise counts, predictions and leaf ids, above the core.

Pruning with a second sample (method M1 of Gey, *Risk bounds for CART
classifiers under a margin condition*, section 3.1) and the PAC-Bayes vote
(Nguyen & Kpotufe, *PAC-Bayes Tree*) need only per-node class counts of the
sample, and counts add up over row blocks. This package runs that map-reduce
on Dask: every block is counted by :meth:`prunus.tree.Tree.node_counts` on a
worker, the block counts are summed by a tree reduction, and predictions are
``map_blocks``.

:class:`DaskCARTClassifier`, :class:`DaskCARTRegressor` and
:class:`DaskPACBayesTreeClassifier` subclass the core estimators: given dask
arrays or DataFrames they grow their tree on ``grow_size`` rows drawn into
memory and take every other statistic from the counts (for the regressor:
per-node weight, mean and sum of squares) of the remaining rows (the core's sampled fit, through the interface
of :mod:`prunus.tree.sample`, implemented here by :class:`DaskSample`); CV
folds are whole row blocks. ``to_local()`` gives the fitted core estimator.
The core never imports this package.

Dask is an optional extra (``pip install "prunus[dask]"``). Nothing here
imports it before a dask collection is passed in, so importing this package
never needs it.
"""

from ._client import connect
from ._counts import apply, node_counts, node_moments
from ._detect import is_dask_collection
from ._estimators import DaskCARTClassifier, DaskCARTRegressor, DaskPACBayesTreeClassifier, predict
from ._sample import DaskSample

__all__ = [
    "DaskCARTClassifier",
    "DaskCARTRegressor",
    "DaskPACBayesTreeClassifier",
    "DaskSample",
    "apply",
    "connect",
    "is_dask_collection",
    "node_counts",
    "node_moments",
    "predict",
]
