"""The shared tree of prunus and its builders."""

from ._tree import Tree
from .cart import grow_cart
from .export import export_text, plot_tree, to_dot

__all__ = ["Tree", "grow_cart", "export_text", "plot_tree", "to_dot"]
