"""Everything that routes rows through a tree honours its categorical splits:
apply / decision_path against a plain-Python router, the pruning path's
subtrees, the PAC-Bayes vote over a CART tree, the PAC-Bayes forest and the
Dask counts."""

import math

import numpy as np
import pytest

from prunus.pruning import cost_complexity_path
from prunus.tree import grow_cart
from prunus.voting import pac_bayes_weights, vote_proba


def route_brute(tree, x):
    """Nodes on the path of one row, by the documented rule, one node at a time."""
    node, path = 0, [0]
    while tree.children_left[node] != -1:
        f = tree.feature[node]
        v = x[f]
        if tree.is_categorical[node]:
            known = not math.isnan(v) and v >= 0 and v < tree.n_categories[f] and v == int(v)
            go = int(v) in set(tree.left_categories(node).tolist()) if known else tree.missing_go_to_left[node]
        elif math.isnan(v):
            go = tree.missing_go_to_left[node]
        else:
            go = v <= tree.threshold[node]
        node = tree.children_left[node] if go else tree.children_right[node]
        path.append(node)
    return path


def _data(seed=0, n=400):
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.integers(0, 7, n), rng.integers(0, 70, n), rng.normal(size=n)]).astype(float)
    X[rng.random(X.shape) < 0.1] = np.nan
    y = ((np.nan_to_num(X[:, 0]) % 3 == 0) ^ (np.nan_to_num(X[:, 1]) % 2 == 0) ^ (X[:, 2] > 0.5)).astype(int)
    y[rng.random(n) < 0.1] ^= 1
    return X, y


def _probe(X, seed=1):
    """Rows with unseen codes (too large, negative, fractional) mixed in."""
    rng = np.random.default_rng(seed)
    P = X.copy()
    for f, bad in ((0, [7.0, -1.0, 2.5]), (1, [70.0, 200.0, 0.5])):
        rows = rng.random(P.shape[0]) < 0.2
        P[rows, f] = rng.choice(bad, rows.sum())
    return P


def test_apply_and_decision_path_against_a_plain_router():
    X, y = _data()
    tree = grow_cart(X, y, categorical_features=[0, 1])
    assert tree.is_categorical.sum() > 2 and tree.category_bits.shape[1] == 2  # 70 levels: two words
    P = _probe(X)
    paths = [route_brute(tree, x) for x in P]
    np.testing.assert_array_equal(tree.apply(P), [p[-1] for p in paths])
    dp = tree.decision_path(P).toarray()
    for i, p in enumerate(paths):
        np.testing.assert_array_equal(np.flatnonzero(dp[i]), sorted(p))


def test_pruning_path_subtrees_keep_the_splits():
    X, y = _data()
    tree, counts = grow_cart(X, y, categorical_features=[0, 1], return_counts=True)
    path = cost_complexity_path(tree, counts)
    P = _probe(X)
    for k in range(0, len(path.alphas), max(1, len(path.alphas) // 5)):
        sub, index = path.subtree(k, return_index=True)
        np.testing.assert_allclose(sub.node_counts(X, y, n_classes=2), counts[index])
        np.testing.assert_array_equal(sub.apply(P), [route_brute(sub, x)[-1] for x in P])


def test_pac_bayes_vote_over_a_categorical_cart_tree():
    X, y = _data()
    tree, counts = grow_cart(X, y, categorical_features=[0, 1], return_counts=True)
    weights = pac_bayes_weights(tree, counts, lambda1=1.0, lambda2=1.0)
    P = _probe(X)
    leaves = np.array([route_brute(tree, x)[-1] for x in P])
    got = vote_proba(tree, weights["node_label"], weights["node_weight"], 2, X=P)
    want = vote_proba(tree, weights["node_label"], weights["node_weight"], 2, leaves=leaves)
    np.testing.assert_array_equal(got, want)


def test_pac_bayes_forest_on_a_table():
    pd = pytest.importorskip("pandas")
    from prunus import PACBayesForestClassifier

    X, y = _data()
    df = pd.DataFrame(
        {
            "a": pd.Categorical.from_codes(np.nan_to_num(X[:, 0], nan=-1).astype(int), list("abcdefg")),
            "b": pd.Categorical.from_codes(np.nan_to_num(X[:, 1], nan=-1).astype(int), [f"l{i}" for i in range(70)]),
            "c": X[:, 2],
        }
    )
    kw = dict(n_estimators=5, max_features=None, max_samples=0.7, random_state=0)
    on_table = PACBayesForestClassifier(**kw).fit(df, y)
    on_codes = PACBayesForestClassifier(categorical_features=[0, 1], **kw).fit(X, y)
    np.testing.assert_array_equal(on_table.is_categorical_, [True, True, False])
    assert any(t.tree.has_categorical_splits for t in on_table._forest)
    np.testing.assert_allclose(on_table.predict_proba(df), on_codes.predict_proba(X), rtol=1e-12)


def test_dask_counts_of_a_categorical_tree():
    da = pytest.importorskip("dask.array")
    from prunus.distributed import apply, node_counts

    X, y = _data()
    tree = grow_cart(X, y, categorical_features=[0, 1])
    P = _probe(X)
    dX, dy = da.from_array(P, chunks=(97, 3)), da.from_array(y, chunks=97)
    np.testing.assert_allclose(node_counts(tree, dX, dy, n_classes=2), tree.node_counts(P, y, n_classes=2))
    np.testing.assert_array_equal(apply(tree, dX).compute(), tree.apply(P))


def _table(X, pd):
    """``X``'s first two columns as pandas categories (NaN: missing), the third numeric."""
    return pd.DataFrame(
        {
            "a": pd.Categorical.from_codes(np.nan_to_num(X[:, 0], nan=-1).astype(int), list("abcdefg")),
            "b": pd.Categorical.from_codes(np.nan_to_num(X[:, 1], nan=-1).astype(int), [f"l{i}" for i in range(70)]),
            "c": X[:, 2],
        }
    )


@pytest.mark.parametrize("name", ["PACBayesTreeClassifier", "PenalizedTreeClassifier", "HSVoteClassifier"])
def test_subtree_classifiers_on_a_table(name):
    """T0 of ``partition="cart"`` splits the category columns by subsets of
    levels: it is the tree grown on the codes with those columns categorical,
    the fit on the table equals the fit on the codes, and a row with an
    unseen level is predicted as a row missing that value."""
    pd = pytest.importorskip("pandas")
    import prunus.voting as voting

    X, y = _data()
    df = _table(X, pd)
    kw = dict(partition="cart", max_depth=4, cv=3, random_state=0)
    on_table = getattr(voting, name)(**kw).fit(df, y)
    on_codes = getattr(voting, name)(categorical_features=[0, 1], **kw).fit(X, y)
    np.testing.assert_array_equal(on_table.is_categorical_, [True, True, False])
    assert list(on_table.categories_[0]) == list("abcdefg") and on_table.categories_[2] is None
    assert on_table.tree_ == grow_cart(X, y, max_depth=4, categorical_features=[0, 1])
    assert on_table.tree_.has_categorical_splits
    assert on_table.tree_ == on_codes.tree_
    np.testing.assert_allclose(on_table.predict_proba(df), on_codes.predict_proba(X), rtol=1e-12)
    unseen = df.copy()
    unseen["a"] = unseen["a"].cat.rename_categories({"a": "new"})
    missing = X.copy()
    missing[X[:, 0] == 0, 0] = np.nan
    np.testing.assert_array_equal(on_table.predict(unseen), on_codes.predict(missing))


def test_subtree_classifier_refuses_categories_it_cannot_split():
    pd = pytest.importorskip("pandas")
    from prunus import PACBayesTreeClassifier

    X, y = _data()
    df = _table(np.nan_to_num(X), pd)
    for partition in ("dyadic", "kd"):
        with pytest.raises(ValueError, match=r"categorical_features selects the columns \['a', 'b'\].*partition"):
            PACBayesTreeClassifier(partition=partition).fit(df, y)
    # Numbers read as numbers: the same table is accepted with no categorical column.
    numeric = df.assign(a=df["a"].cat.codes, b=df["b"].cat.codes)
    assert not PACBayesTreeClassifier(partition="kd", max_depth=3).fit(numeric, y).is_categorical_.any()
