"""T_max grown by scikit-learn's CART builder, converted to a prunus :class:`Tree`."""

import numpy as np
from sklearn.tree import DecisionTreeClassifier

from ._tree import Tree


def grow_cart(
    X,
    y,
    criterion="gini",
    max_depth=None,
    min_samples_leaf=1,
    sample_weight=None,
    random_state=None,
):
    """Grow the maximal CART tree T_max (section 2.3 of Gey's paper).

    The tree is grown by impurity reduction until its leaves are pure (or the
    ``max_depth`` / ``min_samples_leaf`` limits bind); pruning is left to
    :mod:`prunus.pruning`, which works on misclassification cost.

    Parameters
    ----------
    X : array-like, shape (n_samples, n_features)
    y : array-like, shape (n_samples,)
    criterion : {"gini", "entropy", "log_loss"}
    max_depth : int or None
    min_samples_leaf : int or float
    sample_weight : array-like, shape (n_samples,), optional
    random_state : int, RandomState or None
        Breaks ties between equally good splits (scikit-learn permutes features).

    Returns
    -------
    Tree
    """
    # scikit-learn's builder routes NaN itself, but a prunus Tree cannot: refuse it here.
    if not np.isfinite(np.asarray(X, dtype=np.float64)).all():
        raise ValueError("X contains NaN or infinity; grow_cart needs finite inputs.")
    builder = DecisionTreeClassifier(
        criterion=criterion,
        max_depth=max_depth,
        min_samples_leaf=min_samples_leaf,
        random_state=random_state,
    )
    builder.fit(X, y, sample_weight=sample_weight)
    return Tree.from_sklearn(builder)
