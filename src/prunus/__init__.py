"""prunus: learning with decision trees with guarantees.

Estimators are imported lazily so that ``import prunus`` stays light and never
needs the optional torch extra.
"""

__version__ = "0.1.0"

_LAZY = {
    "Tree": "prunus.tree",
    "grow_cart": "prunus.tree",
    "CARTClassifier": "prunus.pruning",
    "CARTRegressor": "prunus.pruning",
    "cost_complexity_path": "prunus.pruning",
    "squared_error_path": "prunus.pruning",
    "grow_dyadic": "prunus.tree",
    "grow_kd": "prunus.tree",
    "PACBayesTreeClassifier": "prunus.voting",
    "PACBayesForestClassifier": "prunus.voting",
    "PenalizedTreeClassifier": "prunus.voting",
    "HSVoteClassifier": "prunus.voting",
    "ExactBoostClassifier": "prunus.boosting",
    "exact_lower_bound": "prunus.boosting",
    # Need the optional torch extra; imported only when asked for.
    "TreeLanguageModel": "prunus.hsoftmax",
    "TreeSoftmaxClassifier": "prunus.hsoftmax",
}


def __getattr__(name):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'prunus' has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + list(_LAZY))


__all__ = ["__version__", *_LAZY]
