"""``class_weight`` as scikit-learn means it: a weight per class multiplying the sample weights."""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.utils.class_weight import compute_class_weight

from ._param_validation import StrOptions

#: The constraint of every estimator's ``class_weight`` parameter.
CLASS_WEIGHT = [dict, StrOptions({"balanced"}), None]


def class_weight_factors(class_weight, classes, y_codes) -> np.ndarray:
    """Factor of every row: the weight of its class (1 everywhere for None).

    Parameters
    ----------
    class_weight : dict, "balanced" or None
        ``{label: weight}`` (labels absent from the dict weigh 1), or
        "balanced": ``n_samples / (n_classes * count of the class)``, counted
        on the rows without their sample weights, as scikit-learn does.
    classes : ndarray
        The sorted labels (``classes_``).
    y_codes : ndarray of int
        Class code of every row (an index into ``classes``).

    Returns
    -------
    ndarray of float64, shape (n_samples,)
    """
    if class_weight is None:
        return np.ones(y_codes.shape[0], dtype=np.float64)
    if isinstance(class_weight, dict):
        unknown = [label for label in class_weight if not np.any(classes == label)]
        if unknown:
            raise ValueError(f"class_weight names labels that are not in y: {unknown!r} (classes: {list(classes)}).")
        for label, value in class_weight.items():
            if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 <= float(value) < np.inf:
                raise ValueError(f"class_weight[{label!r}] must be a finite number >= 0, got {value!r}.")
    per_class = compute_class_weight(class_weight, classes=classes, y=classes[y_codes])
    return np.asarray(per_class, dtype=np.float64)[y_codes]
