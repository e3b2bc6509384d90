"""Choosing another subtree of a fitted CART path without refitting (rpart's ``prune(fit, cp)``)."""

from __future__ import annotations

import copy
import math
import numbers

from . import selection as sel
from ._cp_table import cp_table

#: Rules :func:`reselect` can apply after the fit, and what each needs.
RULES = {"cv": "cv_results_", "cv-1se": "cv_results_", "holdout": "test_risk_"}


def path_index(est, alpha=None, cp=None, rule=None) -> int:
    """Index in ``est.path_`` of the subtree chosen by exactly one of ``alpha``, ``cp`` or ``rule``."""
    given = [name for name, value in (("alpha", alpha), ("cp", cp), ("rule", rule)) if value is not None]
    if len(given) != 1:
        raise ValueError(f"give exactly one of alpha, cp or rule; got {given or 'none'}.")
    path = est.path_
    if alpha is not None:
        _check_number(alpha, "alpha")
        return path.index(alpha)
    if cp is not None:
        _check_number(cp, "cp")
        return cp_table(path).select_index(cp)
    if rule not in RULES:
        raise ValueError(f"rule must be one of {sorted(RULES)}, got {rule!r}.")
    if getattr(est, RULES[rule], None) is None:
        raise ValueError(
            f"rule={rule!r} needs {RULES[rule]}, which this fit did not compute (fitted with "
            f"selection={est.selection!r}); refit with selection={rule!r}, or choose by alpha or cp."
        )
    if rule == "holdout":
        return sel._last_argmin(est.test_risk_)
    res = est.cv_results_
    return sel.select_cv(res["mean_risk"], res["se_risk"], one_se=rule == "cv-1se")


def reselect(est, alpha=None, cp=None, rule=None):
    """A copy of the fitted ``est`` that predicts with another subtree of its path.

    ``est`` itself is left unchanged. The copy keeps the parameters of the fit
    (they say how the tree was grown and on which rows), its ``path_``,
    ``cv_results_`` and ``test_risk_``, and gets a consistent new
    ``selected_index_``, ``alpha_``, ``pruned_tree_``, ``pruned_counts_`` and
    ``selection_``.
    """
    k = path_index(est, alpha=alpha, cp=cp, rule=rule)
    new = copy.deepcopy(est)
    new._store_selection(new.path_, k)
    new.selection_ = rule if rule is not None else ("alpha" if alpha is not None else "cp")
    return new


def _check_number(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}.")
