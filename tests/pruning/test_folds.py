"""The folds of an integer ``cv`` are scikit-learn's shuffled KFold /
StratifiedKFold folds, drawn without the splitters' input checks."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.model_selection import KFold, StratifiedKFold

from prunus import CARTClassifier
from prunus.pruning._folds import AssignedFolds, fold_of_rows, folds_of


def _shuffled_folds(n, k, seed, y=None):
    """The estimators' folds of an integer ``cv`` (see ``BaseCART._folds``)."""
    return folds_of(fold_of_rows(n, k, seed, y), k)


def _assert_same_pairs(ours, theirs):
    ours, theirs = list(ours), list(theirs)
    assert len(ours) == len(theirs)
    for (train, test), (ref_train, ref_test) in zip(ours, theirs):
        np.testing.assert_array_equal(train, ref_train)
        np.testing.assert_array_equal(test, ref_test)
        assert train.dtype == ref_train.dtype and test.dtype == ref_test.dtype


@settings(max_examples=150, deadline=None)
@given(n=st.integers(2, 300), k=st.integers(2, 20), seed=st.integers(0, 2**31 - 2))
def test_kfold_pairs(n, k, seed):
    k = min(k, n)
    X = np.zeros((n, 1))
    _assert_same_pairs(_shuffled_folds(n, k, seed), KFold(k, shuffle=True, random_state=seed).split(X))


@settings(max_examples=150, deadline=None)
@given(
    data=st.data(),
    n_classes=st.integers(2, 6),
    k=st.integers(2, 12),
    seed=st.integers(0, 2**31 - 2),
)
def test_stratified_pairs(data, n_classes, k, seed):
    # Every class with at least k rows (the estimators stratify only then),
    # classes in any order of first occurrence.
    counts = data.draw(st.lists(st.integers(k, k + 25), min_size=n_classes, max_size=n_classes))
    y = np.repeat(np.arange(n_classes), counts)
    y = y[np.random.default_rng(data.draw(st.integers(0, 1000))).permutation(y.shape[0])]
    X = np.zeros((y.shape[0], 1))
    expected = StratifiedKFold(k, shuffle=True, random_state=seed).split(X, y)
    _assert_same_pairs(_shuffled_folds(y.shape[0], k, seed, y), expected)


@settings(max_examples=100, deadline=None)
@given(n=st.integers(2, 200), k=st.integers(2, 15), seed=st.integers(0, 2**31 - 2), stratify=st.booleans())
def test_concatenated_folds_are_the_pairs(n, k, seed, stratify):
    k = min(k, n)
    y = np.arange(n) % 2 if stratify and n >= 2 * k else None
    folds = _shuffled_folds(n, k, seed, y)
    train, train_offsets, test, test_offsets = folds.concatenated()
    pairs = list(folds)
    assert len(folds) == len(pairs) == k
    for part in (train, train_offsets, test, test_offsets):
        assert part.dtype == np.int64
    np.testing.assert_array_equal(train_offsets, np.cumsum([0] + [a.shape[0] for a, _ in pairs]))
    np.testing.assert_array_equal(test_offsets, np.cumsum([0] + [b.shape[0] for _, b in pairs]))
    np.testing.assert_array_equal(train, np.concatenate([a for a, _ in pairs]))
    np.testing.assert_array_equal(test, np.concatenate([b for _, b in pairs]))
    # Iterated again: the same pairs (the routing rules of a fit share them).
    _assert_same_pairs(folds, pairs)
    assert folds.concatenated() is folds.concatenated()


def test_the_rules_of_a_fit_share_their_concatenated_folds(monkeypatch):
    made = []
    concatenated = AssignedFolds.concatenated

    def spy(self):
        made.append(self._concatenated is None)
        return concatenated(self)

    monkeypatch.setattr(AssignedFolds, "concatenated", spy)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(90, 3))
    X[rng.random(X.shape) < 0.2] = np.nan
    y = (np.nan_to_num(X[:, 0]) > 0).astype(int)
    CARTClassifier(selection="cv", cv=5, random_state=0, n_jobs=1).fit(X, y)
    # Both routing rules ran their folds in one batch each, from one concatenation.
    assert made == [True, False]
