"""Versioned pickles of :class:`~prunus.tree.Tree`.

A pickled tree carries ``_format_version``; loading upgrades an older state
step by step (a change of the stored arrays bumps :data:`TREE_FORMAT_VERSION`
and adds its step to ``_UPGRADES``) and refuses a newer one with a message
naming both versions, rather than routing rows by arrays it does not know.
"""

from __future__ import annotations

import numpy as np

#: Format of the state a Tree pickles today.
#: 0: before versions (arrays of the split; ``missing_go_to_left`` since missing values were
#:    supported; ``n_categories``, ``is_categorical``, ``category_bits`` since categorical splits).
#: 1: those arrays, all present, and a ``_format_version``.
#: 2: and ``surrogates`` (None, or the flat tables of the surrogate splits).
TREE_FORMAT_VERSION = 2
_KEY = "_format_version"


def _from_0(state):
    # Trees pickled before missing values were supported route NaN right;
    # before categorical splits, every feature was numeric.
    n_nodes = state["children_left"].shape[0]
    state.setdefault("missing_go_to_left", np.zeros(n_nodes, dtype=np.bool_))
    state.setdefault("n_categories", np.zeros(state["n_features"], dtype=np.int64))
    state.setdefault("is_categorical", np.zeros(n_nodes, dtype=np.bool_))
    state.setdefault("category_bits", np.zeros((n_nodes, 0), dtype=np.uint64))
    return state


def _from_1(state):
    # Trees saved before surrogate splits route a missing value by missing_go_to_left alone.
    state.setdefault("surrogates", None)
    return state


#: version -> function turning a state of that version into one of the next.
_UPGRADES = {0: _from_0, 1: _from_1}


def tree_state(tree) -> dict:
    """The pickled state of ``tree``: its arrays and the format version."""
    state = tree.__dict__.copy()
    state[_KEY] = TREE_FORMAT_VERSION
    return state


def upgraded_state(state) -> dict:
    """A pickled state brought to :data:`TREE_FORMAT_VERSION` (without the version key)."""
    state = dict(state)
    version = state.pop(_KEY, 0)
    if not isinstance(version, (int, np.integer)) or isinstance(version, bool) or version < 0:
        raise ValueError(f"This Tree pickle has an invalid format version {version!r}.")
    if version > TREE_FORMAT_VERSION:
        raise ValueError(
            f"This Tree was saved in format version {version}, newer than version {TREE_FORMAT_VERSION} that this "
            "prunus reads; load it with the prunus release that saved it (or a later one)."
        )
    for step in range(int(version), TREE_FORMAT_VERSION):
        state = _UPGRADES[step](state)
    return state
