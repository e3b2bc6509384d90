"""prunus's CP table, select(cp=...) and variable importance against rpart's, recorded on kyphosis.

The fixture ``rpart_kyphosis_cptable.json`` holds rpart's output, the R code
that produced it and the data; ``benchmarks/rpart_cptable_fixture.py``
regenerates it (R is not a test dependency). rpart was run with
``minsplit = 2, minbucket = 1, cp = 0`` (prunus's T_max), Gini growth, no
surrogates and the fixed folds ``(i - 1) %% 10 + 1``, which prunus gets as
``(train, test)`` pairs.
"""

import json
from pathlib import Path

import numpy as np
import pytest

from prunus.pruning import CARTClassifier

FIXTURE = json.loads((Path(__file__).parent / "rpart_kyphosis_cptable.json").read_text())


@pytest.fixture(scope="module")
def fitted():
    X = np.array(FIXTURE["X"])
    y = np.array(FIXTURE["y"])
    folds = np.array(FIXTURE["folds"])
    cv = [(np.flatnonzero(folds != j), np.flatnonzero(folds == j)) for j in np.unique(folds)]
    return CARTClassifier(selection="cv", cv=cv, random_state=0).fit(X, y)


def test_cp_table_equals_rpart_printcp(fitted):
    table = fitted.cv_table_
    want = FIXTURE["cptable"]
    assert table.nsplit.tolist() == want["nsplit"]
    for name in ("cp", "rel_error", "xerror", "xstd"):
        np.testing.assert_allclose(table[name], want[name], rtol=1e-12, atol=1e-15, err_msg=name)
    assert (table.root_error, table.root_weight) == (17.0, 81.0)


def test_printed_table_equals_rpart_printcp(fitted):
    printed = FIXTURE["printcp"]
    start = next(i for i, line in enumerate(printed) if line.startswith("Root node error"))
    ours = str(fitted.cv_table_).splitlines()
    assert [line.rstrip() for line in printed[start : start + len(ours)]] == ours


def test_variable_importance_equals_rpart_primary_splits(fitted):
    # rpart's fit is pruned at its cp = 0: select(cp=0) is the same subtree.
    tree = fitted.select(cp=0.0)
    assert tree.pruned_tree_.n_leaves - 1 == FIXTURE["cptable"]["nsplit"][-1]
    want = [FIXTURE["variable_importance"].get(name, 0.0) for name in FIXTURE["features"]]
    np.testing.assert_allclose(tree.variable_importance_, want, rtol=1e-12)


@pytest.mark.parametrize("row", range(len(FIXTURE["cptable"]["cp"])))
def test_select_cp_is_rpart_prune(fitted, row):
    # prune(fit, cp = CP of a row) keeps that row's tree.
    got = fitted.select(cp=FIXTURE["cptable"]["cp"][row])
    assert got.pruned_tree_.n_leaves - 1 == FIXTURE["cptable"]["nsplit"][row]
