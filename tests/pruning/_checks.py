"""What scikit-learn's estimator checks may not expect of the CART estimators."""

_RANDOM_SPLIT = (
    "the hold-out test sample (and M1's halves) are drawn at random among rows, so a weight of 2 "
    "cannot equal a repeated row"
)


def expected_failures(est):
    """Checks failing by design for ``est`` (its selection draws rows at random)."""
    if est.selection == "holdout" or est.method == "M1":
        return {"check_sample_weight_equivalence_on_dense_data": _RANDOM_SPLIT}
    return {}
