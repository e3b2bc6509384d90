"""A table given as a category column and as strings: one model when the
category's categories are in sorted order (the order in which a column of
strings is coded), unused categories included; a split depends on the level
codes only through the order in which tied candidates are met."""

import numpy as np
import pytest

from prunus import CARTClassifier, PACBayesForestClassifier

pd = pytest.importorskip("pandas")


def _table(n=400, seed=1):
    """Three classes; a 12-level factor whose names do not sort as their
    numbers (l0, l1, l10, l11, l2, ...) and a 5-level one; one numeric column."""
    rng = np.random.default_rng(seed)
    a, b, num = rng.integers(0, 12, n), rng.integers(0, 5, n), rng.normal(size=n)
    y = ((a % 3) + (b >= 3) + (num > 0.5)) % 3
    flip = rng.random(n) < 0.1
    y[flip] = rng.integers(0, 3, flip.sum())
    names = np.array([f"l{k}" for k in range(12)], dtype=object)
    table = pd.DataFrame({"a": names[a], "b": np.array(list("vwxyz"), dtype=object)[b], "num": num})
    return table, y


@pytest.mark.parametrize(
    "make",
    [
        lambda: PACBayesForestClassifier(n_estimators=8, random_state=0),
        lambda: CARTClassifier(selection="alpha", alpha=0.0, random_state=0),
    ],
    ids=["forest", "cart"],
)
def test_sorted_categories_and_strings_give_one_model(make):
    strings, y = _table()
    categories = strings.assign(
        a=pd.Categorical(strings["a"], categories=sorted(set(strings["a"])) + ["unused"]),
        b=pd.Categorical(strings["b"]),
    )
    on_strings, on_categories = make().fit(strings, y), make().fit(categories, y)
    assert [list(c) for c in on_strings.categories_[:2]] == [sorted(set(strings[c])) for c in "ab"]
    np.testing.assert_array_equal(on_categories.predict_proba(strings), on_strings.predict_proba(strings))
    trees = on_strings.estimators_ if hasattr(on_strings, "estimators_") else [on_strings.tree_]
    twins = on_categories.estimators_ if hasattr(on_categories, "estimators_") else [on_categories.tree_]
    for tree, twin in zip(trees, twins):
        # The same splits: the used levels have the same codes; the unused
        # level (code 12, last) goes where missing values go.
        np.testing.assert_array_equal(tree.children_left, twin.children_left)
        np.testing.assert_array_equal(tree.feature, twin.feature)
        for node in np.flatnonzero(tree.is_categorical):
            left = twin.left_categories(node)
            np.testing.assert_array_equal(tree.left_categories(node), left[left < 12])
