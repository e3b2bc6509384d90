"""What every prunus classifier shares beyond scikit-learn's ``ClassifierMixin``."""

from __future__ import annotations

from numpy.typing import ArrayLike
from sklearn.base import ClassifierMixin

from ._validation import check_score_inputs


class Classifier(ClassifierMixin):
    """scikit-learn's ``ClassifierMixin`` with ``score`` documented on prunus's pages."""

    def score(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> float:
        """Mean accuracy of :meth:`predict` on ``(X, y)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows, as :meth:`predict` takes them.
        y : array-like of shape (n_samples,)
            True class labels.
        sample_weight : array-like of shape (n_samples,), optional
            Row weights of the mean.

        Returns
        -------
        score : float
            The (weighted) fraction of rows whose predicted class is ``y``.

        See Also
        --------
        predict : The class of every row.
        """
        check_score_inputs(X, y, sample_weight)
        return super().score(X, y, sample_weight)
