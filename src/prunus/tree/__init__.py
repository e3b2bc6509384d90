"""The shared tree of prunus and its builders."""

from ._importance import feature_importances, impurity_decrease, node_impurity
from ._surrogate import SurrogateSplits, add_surrogates
from ._tree import Tree
from .cart import grow_cart
from .dyadic import grow_dyadic
from .export import export_summary, export_text, node_summaries, plot_tree, to_dot
from .kd import grow_kd

__all__ = [
    "Tree",
    "SurrogateSplits",
    "add_surrogates",
    "grow_cart",
    "grow_dyadic",
    "grow_kd",
    "export_summary",
    "export_text",
    "node_summaries",
    "plot_tree",
    "to_dot",
    "feature_importances",
    "impurity_decrease",
    "node_impurity",
]
