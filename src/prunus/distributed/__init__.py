"""Counts, predictions and M1-style fits over data that no single process holds.

Pruning with a second sample (method M1 of Gey, *Risk bounds for CART
classifiers under a margin condition*, section 3.1) and the PAC-Bayes vote
(Nguyen & Kpotufe, *PAC-Bayes Tree*) need only per-node class counts of the
sample, and counts add up over row blocks. This package runs that map-reduce
on Dask: every block is counted by the numba kernel
behind :meth:`prunus.tree.Tree.node_counts` on a worker, the block counts are
summed by a tree reduction, and predictions are ``map_blocks``.

The estimators take dask input directly: ``CARTClassifier(method="M1",
grow_size=...)`` and ``PACBayesTreeClassifier(grow_size=...)`` grow their tree
on ``grow_size`` rows drawn into memory and take every other statistic from
the counts of the remaining rows (:class:`SampledSplit`); CV folds are whole
row blocks. The fitted estimators are ordinary in-memory ones.

Dask is an optional extra (``pip install "prunus[dask]"``). Nothing here
imports it before a dask collection is passed in, so ``import prunus`` never
needs it.
"""

from ._client import connect
from ._counts import apply, node_counts
from ._detect import is_dask_collection
from ._split import SampledSplit

__all__ = ["SampledSplit", "apply", "connect", "is_dask_collection", "node_counts"]
