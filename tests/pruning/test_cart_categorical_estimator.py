"""Categorical predictors through CARTClassifier: pandas tables end to end,
levels remembered at fit, unseen levels at predict, pickles, bad input."""

import pickle

import numpy as np
import pytest

from prunus import CARTClassifier

pd = pytest.importorskip("pandas")


def _table(n=300, seed=0):
    rng = np.random.default_rng(seed)
    colour = rng.choice(["red", "blue", "green", "yellow", "white"], n)
    size = pd.Categorical(rng.choice(["S", "M", "L"], n), categories=["S", "M", "L"])
    num = rng.normal(size=n)
    df = pd.DataFrame({"colour": colour, "size": size, "num": num})
    df.loc[::17, "colour"] = None
    y = np.where(np.isin(colour, ["red", "green"]) ^ (num > 1.0), "a", "b")
    return df, y


def test_dataframe_category_and_object_columns_end_to_end():
    df, y = _table()
    est = CARTClassifier(selection="alpha", alpha=0.0, random_state=0).fit(df, y)
    np.testing.assert_array_equal(est.is_categorical_, [True, True, False])
    assert list(est.categories_[0]) == ["blue", "green", "red", "white", "yellow"]
    assert list(est.categories_[1]) == ["S", "M", "L"]
    assert est.categories_[2] is None
    np.testing.assert_array_equal(est.feature_names_in_, ["colour", "size", "num"])
    assert est.pruned_tree_.has_categorical_splits
    # The same model from the codes, given as numpy with a mask.
    codes = np.column_stack(
        [
            pd.Series(pd.Categorical(df["colour"], categories=est.categories_[0])).cat.codes.replace(-1, np.nan),
            df["size"].cat.codes.astype(float),
            df["num"],
        ]
    ).astype(float)
    twin = CARTClassifier(selection="alpha", alpha=0.0, random_state=0, categorical_features=[0, 1]).fit(codes, y)
    assert twin.pruned_tree_ == est.pruned_tree_
    np.testing.assert_array_equal(twin.predict(codes), est.predict(df))
    assert est.score(df, y) > 0.95


def test_category_codes_follow_the_levels_not_the_column_order():
    """A category column at predict whose categories are listed in another
    order (or hold more levels) is mapped by level, not by pandas code."""
    df, y = _table()
    est = CARTClassifier(selection="alpha", alpha=0.0).fit(df, y)
    shuffled = df.copy()
    shuffled["size"] = pd.Categorical(df["size"].astype(str), categories=["XL", "L", "M", "S"])
    np.testing.assert_array_equal(est.predict(shuffled), est.predict(df))


def test_unseen_levels_go_where_missing_values_go():
    df, y = _table()
    est = CARTClassifier(selection="alpha", alpha=0.0).fit(df, y)
    unseen, missing = df.copy(), df.copy()
    unseen["colour"] = "purple"
    missing["colour"] = None
    np.testing.assert_array_equal(est.apply(unseen), est.apply(missing))
    size_unseen = df.copy()
    size_unseen["size"] = pd.Categorical(["XL"] * len(df), categories=["XL"])
    size_missing = df.copy()
    size_missing["size"] = pd.Categorical([None] * len(df), categories=["S", "M", "L"])
    np.testing.assert_array_equal(est.apply(size_unseen), est.apply(size_missing))


def test_pickle_round_trip():
    df, y = _table()
    est = CARTClassifier(selection="cv", cv=3, random_state=0).fit(df, y)
    again = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(again.predict(df), est.predict(df))
    assert again.pruned_tree_ == est.pruned_tree_


def test_export_with_level_names():
    df, y = _table()
    est = CARTClassifier(selection="alpha", alpha=0.0).fit(df, y)
    text = est.pruned_tree_.export_text(feature_names=list(est.feature_names_in_), categories=est.categories_)
    assert "colour in {green, red}" in text


def test_numeric_input_is_unchanged():
    """numpy floats: nothing categorical by default, the same tree as with None."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = (X[:, 0] > 0).astype(int)
    a = CARTClassifier(random_state=0).fit(X, y)
    b = CARTClassifier(random_state=0, categorical_features=None).fit(X, y)
    assert a.tree_ == b.tree_ and not a.is_categorical_.any()


def test_numpy_object_array_with_strings():
    df, y = _table()
    X = df.astype(object).to_numpy()
    with pytest.raises(ValueError):  # numpy input: categorical columns are selected, not guessed
        CARTClassifier().fit(X, y)
    est = CARTClassifier(selection="alpha", alpha=0.0, categorical_features=[0, 1]).fit(X, y)
    np.testing.assert_array_equal(est.is_categorical_, [True, True, False])
    assert list(est.categories_[0]) == ["blue", "green", "red", "white", "yellow"]
    assert est.score(X, y) > 0.95


@pytest.mark.parametrize(
    "spec, message",
    [
        (np.array([True, False]), "one entry per feature"),
        (["colour", "shape"], "column 'shape'"),
        ([5], "indices outside"),
        ("auto", "categorical_features must be"),
    ],
)
def test_bad_categorical_features(spec, message):
    df, y = _table()
    with pytest.raises(ValueError, match="categorical_features") as info:
        CARTClassifier(categorical_features=spec).fit(df, y)
    assert message in str(info.value)


def test_names_need_a_dataframe():
    X = np.zeros((4, 2))
    with pytest.raises(ValueError, match="categorical_features names columns"):
        CARTClassifier(categorical_features=["a"]).fit(X, [0, 1, 0, 1])


def test_more_levels_than_the_limit():
    from prunus.tree._tree import MAX_CATEGORIES

    n = MAX_CATEGORIES + 1
    df = pd.DataFrame({"id": [f"r{i}" for i in range(n)], "x": np.arange(n, dtype=float)})
    with pytest.raises(ValueError, match=f"categorical_features: column 'id' has {n} levels"):
        CARTClassifier().fit(df, np.arange(n) % 2)


def test_string_column_not_selected_is_named():
    df, y = _table()
    with pytest.raises(ValueError, match="column 'colour' of X is not numeric"):
        CARTClassifier(categorical_features=["size"]).fit(df, y)


@pytest.mark.parametrize("name", ["CARTClassifier", "CARTRegressor", "PACBayesForestClassifier"])
def test_text_column_left_out_of_categorical_features_is_named(name):
    """categorical_features=None (or a numpy table of strings, whose columns
    are not guessed) with a column of labels: the column and the parameter are
    named, not one of the column's values."""
    import prunus

    df, y = _table()
    est = getattr(prunus, name)()
    target = (y == "a").astype(float) if name == "CARTRegressor" else y
    with pytest.raises(ValueError, match="column 'colour' of X is not numeric; categorical_features does not select"):
        est.set_params(categorical_features=None).fit(df, target)
    with pytest.raises(ValueError, match="column 0 of X is not numeric; categorical_features does not select"):
        est.set_params(categorical_features="from_dtype").fit(df.astype(str).to_numpy(), target)


def test_pandas_missing_values_in_a_numpy_table():
    """A DataFrame's ``to_numpy()`` keeps pandas' NA as an object: it is a
    missing value at fit and at predict, never a level nor a reason to call a
    numeric column text."""
    df, y = _table()
    df = df.astype({"colour": "string"}).assign(count=pd.array(np.arange(len(df)) % 5, dtype="Int64"))
    df.loc[::9, "count"] = pd.NA
    assert df["colour"].isna().any()
    est = CARTClassifier(selection="alpha", alpha=0.0, random_state=0).fit(df, y)
    X = df.to_numpy()
    with pytest.warns(UserWarning, match="feature names"):
        np.testing.assert_array_equal(est.predict(X), est.predict(df))
    on_numpy = CARTClassifier(selection="alpha", alpha=0.0, random_state=0, categorical_features=[0, 1]).fit(X, y)
    assert list(on_numpy.categories_[0]) == list(est.categories_[0]) == ["blue", "green", "red", "white", "yellow"]
    # "size" is coded in its category order on the frame, sorted as strings: the same partitions.
    np.testing.assert_array_equal(on_numpy.predict(X), est.predict(df))


def test_regressor_on_a_table():
    from prunus import CARTRegressor

    rng = np.random.default_rng(2)
    n = 400
    shop = rng.choice([f"s{i}" for i in range(15)], n)
    effect = {f"s{i}": float(i % 4) for i in range(15)}
    x = rng.normal(size=n)
    y = np.array([effect[s] for s in shop]) + 0.5 * x + 0.1 * rng.normal(size=n)
    df = pd.DataFrame({"shop": pd.Categorical(shop), "x": x})
    est = CARTRegressor(selection="cv", cv=5, random_state=0).fit(df, y)
    np.testing.assert_array_equal(est.is_categorical_, [True, False])
    assert est.pruned_tree_.is_categorical[0]
    # The first split groups the shops by their effect (15 levels: ordered by mean, exact).
    left = {est.categories_[0][c] for c in est.pruned_tree_.left_categories(0)}
    groups = [{s for s in effect if effect[s] <= t} for t in (0, 1, 2)]
    assert any(left == g or left == set(effect) - g for g in groups)
    assert est.score(df, y) > 0.9
    unseen, missing = df.copy(), df.copy()
    unseen["shop"] = pd.Categorical(["s99"] * n)
    missing["shop"] = pd.Categorical([None] * n, categories=["s0"])
    np.testing.assert_array_equal(est.predict(unseen), est.predict(missing))


@pytest.mark.parametrize("names", [["a", "b", "c", "d"], [0, 1, 2, 3]])
def test_numeric_dataframe_fits_as_its_matrix(names):
    """A DataFrame of numeric columns (numpy and pandas' nullable dtypes, NA
    missing) fits exactly as its float64 matrix, with scikit-learn's column
    names (none unless every name is a string), checked at predict."""
    rng = np.random.default_rng(3)
    n = 120
    df = pd.DataFrame(
        {
            names[0]: rng.normal(size=n),
            names[1]: pd.array(rng.integers(0, 5, n), dtype="Int32"),
            names[2]: rng.integers(0, 3, n).astype(np.int64),
            names[3]: pd.array(rng.random(n), dtype="Float64"),
        }
    )
    df.iloc[::7, 1] = pd.NA
    df.iloc[::11, 3] = pd.NA
    y = np.where((df.iloc[:, 0] > 0) ^ (df.iloc[:, 2] == 1), "yes", "no")
    matrix = df.to_numpy(dtype=np.float64, na_value=np.nan)
    assert np.isnan(matrix[:, 1]).sum() == len(range(0, n, 7))
    est = CARTClassifier(selection="cv", cv=5, random_state=0).fit(df, y)
    twin = CARTClassifier(selection="cv", cv=5, random_state=0).fit(matrix, y)
    assert est.pruned_tree_ == twin.pruned_tree_
    for key in twin.cv_results_:
        np.testing.assert_array_equal(est.cv_results_[key], twin.cv_results_[key])
    assert est.n_features_in_ == 4
    np.testing.assert_array_equal(est.is_categorical_, [False] * 4)
    if isinstance(names[0], str):
        np.testing.assert_array_equal(est.feature_names_in_, names)
        with pytest.raises(ValueError, match="feature names"):
            est.predict(df[names[::-1]])
    else:
        assert not hasattr(est, "feature_names_in_")
    np.testing.assert_array_equal(est.predict(df), twin.predict(matrix))


def test_dataframe_of_mixed_name_types_is_refused():
    df = pd.DataFrame({"a": [0.0, 1.0, 2.0, 3.0], 1: [1.0, 0.0, 1.0, 0.0]})
    with pytest.raises(TypeError, match="Feature names"):
        CARTClassifier().fit(df, [0, 1, 0, 1])
