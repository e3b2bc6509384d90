"""Trees on features with few distinct values (binary, small integer codes,
categorical levels, mixed with numeric and missing values), pinned by a
digest of their arrays.

The digests were taken from the presorted split search, before such features
were split from per-node class-weight tables; the tables must give the same
trees: the same candidates in the same order (thresholds at the midpoints of
consecutive distinct values present at the node, missing values right then
left, then present left and missing right; subsets of levels in the
documented order), scored from the same class weights. Every value digested
is exact on any x86-64 machine with integer weights: children, features,
missing sides and level bitsets are discrete, thresholds are midpoints of two
data values, class weights are sums of integer weights, and the
cross-validation summary is rounded to 10 significant digits. Regenerate
only for a deliberate change of the trees, and say why. (Growths with
surrogate splits search presorted and are pinned elsewhere.)
"""

import numpy as np
import pytest
from _digest import digest_arrays, tree_arrays

from prunus import CARTClassifier
from prunus.tree.cart import CARTGrower, GrowthParams


def _labels(rng, scores, n_classes, noise=0.1):
    y = np.digitize(scores, np.quantile(scores, np.linspace(0, 1, n_classes + 1)[1:-1]))
    flip = rng.random(y.shape[0]) < noise
    y[flip] = rng.integers(0, n_classes, flip.sum())
    return y


def _data(name, n=700):
    """(X, y, n_categories) of a synthetic table, the same on any machine."""
    rng = np.random.default_rng(DATASETS.index(name))
    n_categories = None
    if name == "binary":
        X = rng.integers(0, 2, (n, 16)).astype(float)
        y = _labels(rng, X[:, 0] + 2 * X[:, 1] * X[:, 2] - X[:, 5] + 0.3 * X[:, 7], 3)
    elif name == "levels":
        sizes = np.arange(2, 17, 2)  # 2, 4, ..., 16 levels
        X = np.column_stack([rng.integers(0, s, n) * 0.5 - 1.0 for s in sizes])
        y = _labels(rng, np.sin(X[:, 3]) + (X[:, 6] > 2.0) + 0.5 * X[:, 0], 2)
    elif name == "mixed":
        few = rng.integers(0, 5, (n, 4)).astype(float)
        numeric = rng.normal(size=(n, 3))
        forty = rng.integers(0, 40, (n, 1)).astype(float)
        X = np.column_stack([few, numeric, forty])
        y = _labels(rng, few[:, 0] - numeric[:, 1] + (forty[:, 0] % 7 > 3), 4)
        X[rng.random(X.shape) < 0.1] = np.nan
    elif name == "categorical":
        cats = np.column_stack([rng.integers(0, L, n) for L in (3, 7, 12)]).astype(float)
        few = rng.integers(0, 4, (n, 2)).astype(float)
        numeric = rng.normal(size=(n, 1))
        X = np.column_stack([cats, few, numeric])
        y = _labels(rng, np.isin(cats[:, 2], [1, 4, 5, 9]) + (cats[:, 1] % 3) - few[:, 0] + numeric[:, 0], 3)
        X[rng.random(X.shape) < 0.08] = np.nan
        n_categories = np.array([3, 7, 12, 0, 0, 0])
    elif name == "categorical2":
        cats = np.column_stack([rng.integers(0, L, n) for L in (20, 50)]).astype(float)
        few = rng.integers(0, 3, (n, 1)).astype(float)
        X = np.column_stack([cats, few])
        y = _labels(rng, np.isin(cats[:, 0], [2, 3, 11, 17]) + (cats[:, 1] % 5 == 1) + 0.5 * few[:, 0], 2)
        X[rng.random(X.shape) < 0.05] = np.nan
        n_categories = np.array([20, 50, 0])
    else:
        raise ValueError(name)
    return X, y, n_categories


DATASETS = ("binary", "levels", "mixed", "categorical", "categorical2")


def _tree_digest(tree, counts):
    return digest_arrays(*tree_arrays(tree), counts)


def grow_digest(name, criterion, min_samples_leaf, max_leaf_nodes, weights, max_features, splitter):
    X, y, n_categories = _data(name)
    params = GrowthParams(criterion, None, 2, min_samples_leaf, 0.0, max_features, max_leaf_nodes, splitter)
    if weights == "unit":
        weight = np.ones(y.shape[0])
    else:
        weight = np.random.default_rng(1).integers(0, 3, y.shape[0]).astype(float)
    tree, counts = CARTGrower(X, y, n_categories=n_categories).grow(params, weight, 5)
    return _tree_digest(tree, counts)


def cv_digest(name, criterion, min_samples_leaf):
    X, y, n_categories = _data(name)
    categorical = None if n_categories is None else np.flatnonzero(n_categories)
    est = CARTClassifier(
        selection="cv",
        cv=5,
        criterion=criterion,
        min_samples_leaf=min_samples_leaf,
        random_state=0,
        categorical_features=categorical,
        missing="learned",  # the digests were taken when the learned side was the only rule
    ).fit(X, y)
    cv = est.cv_results_
    summary = np.array([np.float64(f"{v:.10g}") for key in sorted(cv) for v in np.ravel(cv[key])])
    tree = est.pruned_tree_
    return digest_arrays(
        summary,
        np.array([est.selected_index_]),
        *tree_arrays(tree),
        est.pruned_counts_,
    )


GROW_CONFIGS = (
    [
        (name, criterion, leaf, None, weights, None, "best")
        for name in DATASETS
        for criterion in ("gini", "entropy", "misclassification")
        for leaf in (1, 5)
        for weights in ("unit", "integer")
    ]
    + [(name, "gini", 1, 12, "integer", None, "best") for name in DATASETS]
    + [(name, "gini", 1, None, "unit", 3, "best") for name in DATASETS]
    + [(name, "gini", 1, None, "unit", None, "random") for name in DATASETS]
)
CV_CONFIGS = [(name, criterion, leaf) for name in DATASETS for criterion in ("gini", "entropy") for leaf in (1, 3)]

# (dataset, criterion, min_samples_leaf, max_leaf_nodes, weights, max_features, splitter)
PINNED_GROW = {
    ("binary", "gini", 1, None, "unit", None, "best"): "7a04acdb8a456b25",
    ("binary", "gini", 1, None, "integer", None, "best"): "ec33ef38576a01a5",
    ("binary", "gini", 5, None, "unit", None, "best"): "a695da11905be11a",
    ("binary", "gini", 5, None, "integer", None, "best"): "41d276ae923c208e",
    ("binary", "entropy", 1, None, "unit", None, "best"): "24cb4fa9dc71c77a",
    ("binary", "entropy", 1, None, "integer", None, "best"): "38c4cf54f48a5d66",
    ("binary", "entropy", 5, None, "unit", None, "best"): "cf6ecb66863e0455",
    ("binary", "entropy", 5, None, "integer", None, "best"): "615efdfc8169be57",
    ("binary", "misclassification", 1, None, "unit", None, "best"): "04cfa6a9cc035d3a",
    ("binary", "misclassification", 1, None, "integer", None, "best"): "67c9461738c3facd",
    ("binary", "misclassification", 5, None, "unit", None, "best"): "d86ded7cf6b13021",
    ("binary", "misclassification", 5, None, "integer", None, "best"): "81911fb31184abad",
    ("levels", "gini", 1, None, "unit", None, "best"): "8a6740a50f62c1ab",
    ("levels", "gini", 1, None, "integer", None, "best"): "640a7b3f2358798c",
    ("levels", "gini", 5, None, "unit", None, "best"): "e7fa0ea77392599e",
    ("levels", "gini", 5, None, "integer", None, "best"): "06d64cf34c8db8c1",
    ("levels", "entropy", 1, None, "unit", None, "best"): "2b21410c28a946c6",
    ("levels", "entropy", 1, None, "integer", None, "best"): "b9302188a3b4ceac",
    ("levels", "entropy", 5, None, "unit", None, "best"): "7d1584983df26450",
    ("levels", "entropy", 5, None, "integer", None, "best"): "803121499cd565d9",
    ("levels", "misclassification", 1, None, "unit", None, "best"): "d43ae9113e884847",
    ("levels", "misclassification", 1, None, "integer", None, "best"): "cd37d37cc7df800f",
    ("levels", "misclassification", 5, None, "unit", None, "best"): "d8a82004067c64d1",
    ("levels", "misclassification", 5, None, "integer", None, "best"): "16dc7a7761a268c3",
    ("mixed", "gini", 1, None, "unit", None, "best"): "93ed8c068823575e",
    ("mixed", "gini", 1, None, "integer", None, "best"): "5ecd1b2032f23f52",
    ("mixed", "gini", 5, None, "unit", None, "best"): "8670fa2500624a27",
    ("mixed", "gini", 5, None, "integer", None, "best"): "4909790b913cfe6d",
    ("mixed", "entropy", 1, None, "unit", None, "best"): "22973b2bc7fdf0fa",
    ("mixed", "entropy", 1, None, "integer", None, "best"): "3ac385fc0d634515",
    ("mixed", "entropy", 5, None, "unit", None, "best"): "f779d88467ee5aaa",
    ("mixed", "entropy", 5, None, "integer", None, "best"): "5a4269a02532d701",
    ("mixed", "misclassification", 1, None, "unit", None, "best"): "9a072d6277cb7eb1",
    ("mixed", "misclassification", 1, None, "integer", None, "best"): "27995d928b73873a",
    ("mixed", "misclassification", 5, None, "unit", None, "best"): "a1353e2070c6ce5a",
    ("mixed", "misclassification", 5, None, "integer", None, "best"): "cc0d75ffc4dff5b4",
    ("categorical", "gini", 1, None, "unit", None, "best"): "c915649c7ab282c5",
    ("categorical", "gini", 1, None, "integer", None, "best"): "3c308e4bea55c2d2",
    ("categorical", "gini", 5, None, "unit", None, "best"): "2276f6d706bbc69e",
    ("categorical", "gini", 5, None, "integer", None, "best"): "3ea23eef695568f4",
    ("categorical", "entropy", 1, None, "unit", None, "best"): "4c760fd8e9371b06",
    ("categorical", "entropy", 1, None, "integer", None, "best"): "a792e2f1c6e6827b",
    ("categorical", "entropy", 5, None, "unit", None, "best"): "4a0bf43914d22acf",
    ("categorical", "entropy", 5, None, "integer", None, "best"): "cc1ef4dd7b889893",
    ("categorical", "misclassification", 1, None, "unit", None, "best"): "9ae82afe8b20db62",
    ("categorical", "misclassification", 1, None, "integer", None, "best"): "b776a22935b3fd84",
    ("categorical", "misclassification", 5, None, "unit", None, "best"): "829c251696c05920",
    ("categorical", "misclassification", 5, None, "integer", None, "best"): "37ea6d0b2dfa89aa",
    ("categorical2", "gini", 1, None, "unit", None, "best"): "953aa8e900e52988",
    ("categorical2", "gini", 1, None, "integer", None, "best"): "10a61971c2874c75",
    ("categorical2", "gini", 5, None, "unit", None, "best"): "b9b3e41cf2918c33",
    ("categorical2", "gini", 5, None, "integer", None, "best"): "cd812c0f50ee6d34",
    ("categorical2", "entropy", 1, None, "unit", None, "best"): "02c799a6b614fe94",
    ("categorical2", "entropy", 1, None, "integer", None, "best"): "8bc416979de021d0",
    ("categorical2", "entropy", 5, None, "unit", None, "best"): "63c4ad2dbc5e3cb3",
    ("categorical2", "entropy", 5, None, "integer", None, "best"): "90d041368fd73425",
    ("categorical2", "misclassification", 1, None, "unit", None, "best"): "c06713e5819fba25",
    ("categorical2", "misclassification", 1, None, "integer", None, "best"): "85c828fe6963071e",
    ("categorical2", "misclassification", 5, None, "unit", None, "best"): "1238f9d97322eb4f",
    ("categorical2", "misclassification", 5, None, "integer", None, "best"): "a39c405ad5dbfe20",
    ("binary", "gini", 1, 12, "integer", None, "best"): "deab5feab63903ba",
    ("levels", "gini", 1, 12, "integer", None, "best"): "8389be70f48270c9",
    ("mixed", "gini", 1, 12, "integer", None, "best"): "2e9e84edf7e21bc6",
    ("categorical", "gini", 1, 12, "integer", None, "best"): "f83607dd8141de60",
    ("categorical2", "gini", 1, 12, "integer", None, "best"): "e0b6efd147a965d3",
    ("binary", "gini", 1, None, "unit", 3, "best"): "ef93768419fb86cd",
    ("levels", "gini", 1, None, "unit", 3, "best"): "0662e3d6731ff280",
    ("mixed", "gini", 1, None, "unit", 3, "best"): "3f17506a7245f4a3",
    ("categorical", "gini", 1, None, "unit", 3, "best"): "9bebf0a4f77e4d7b",
    ("categorical2", "gini", 1, None, "unit", 3, "best"): "953aa8e900e52988",
    ("binary", "gini", 1, None, "unit", None, "random"): "e12756c837f0a279",
    ("levels", "gini", 1, None, "unit", None, "random"): "5034921a1cbf3806",
    ("mixed", "gini", 1, None, "unit", None, "random"): "f8e2e1c3bbc7aec4",
    ("categorical", "gini", 1, None, "unit", None, "random"): "1585dba57d3d6747",
    ("categorical2", "gini", 1, None, "unit", None, "random"): "9416518fdc5aa66b",
}
# (dataset, criterion, min_samples_leaf)
PINNED_CV = {
    ("binary", "gini", 1): "c6b8624ab0820d41",
    ("binary", "gini", 3): "afe793d7f953c055",
    ("binary", "entropy", 1): "5001e02613eab321",
    ("binary", "entropy", 3): "80453fa048e3dae5",
    ("levels", "gini", 1): "83115a58bee61fb1",
    ("levels", "gini", 3): "5be53f7de399c5d3",
    ("levels", "entropy", 1): "6ce8fb70d609b066",
    ("levels", "entropy", 3): "770756937ba4dcea",
    ("mixed", "gini", 1): "03e0a6dee2c39fc6",
    ("mixed", "gini", 3): "fed2532c33974bca",
    ("mixed", "entropy", 1): "9e926a40ed994571",
    ("mixed", "entropy", 3): "b1f67119c7ac0912",
    ("categorical", "gini", 1): "f5016997a0c5ce5b",
    ("categorical", "gini", 3): "41dede93b20bdf24",
    ("categorical", "entropy", 1): "455710bce6c95674",
    ("categorical", "entropy", 3): "bd41c6a350029a54",
    ("categorical2", "gini", 1): "8e3235ae0304428c",
    ("categorical2", "gini", 3): "3ea49ccbea5f619f",
    ("categorical2", "entropy", 1): "85e194bed03e9698",
    ("categorical2", "entropy", 3): "bc60c3a28356a66b",
}


@pytest.mark.parametrize("config", GROW_CONFIGS)
def test_grown_trees_are_pinned(config):
    assert grow_digest(*config) == PINNED_GROW[config]


@pytest.mark.parametrize("config", CV_CONFIGS)
def test_cross_validated_trees_are_pinned(config):
    assert cv_digest(*config) == PINNED_CV[config]
