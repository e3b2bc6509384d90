"""Fits of ``CARTClassifier(selection="cv", cv=10)`` on tables of factors and
numeric columns pinned by a digest, so that a faster categorical search or
growth cannot change a tree or the selected subtree unnoticed.

The tables are those of ``benchmarks/bench_categorical.py`` (five factors of
2-50 levels for two classes, 2-12 levels for three, three numeric columns,
an interaction label with 10% noise). Every value digested is exact on any
x86-64 machine: children, features, missing sides, category bitsets, the
selected index, thresholds (midpoints of two data values) and node class
weights (sums of integer weights); the selected alpha, a ratio of such sums,
is compared to a tolerance.
"""

import numpy as np
import pandas as pd
import pytest
from _digest import digest_arrays, tree_arrays

from prunus import CARTClassifier

#: (rows, classes, seed) -> (digest, selected alpha).
PINNED = {
    (300, 2, 0): ("79003c7581008bff", 0.0044444444444444444),  # 103 nodes, 43 kept
    (300, 3, 1): ("f52b455453873942", 0.008333333333333333),  # 73 nodes, 15 kept
    (2000, 2, 2): ("bbf59e5acb2557b9", 0.001),  # 259 nodes, 37 kept
    (2000, 3, 3): ("36d3266afd7bf003", 0.0005),  # 393 nodes, 23 kept
    (6000, 2, 4): ("17e9486955d89141", 0.0004166666666666667),  # 783 nodes, 29 kept
    (6000, 3, 5): ("6063624a2d3cf439", 0.00019444444444444443),  # 1405 nodes, 23 kept
    (20000, 2, 6): ("8d6d13fc9db24f67", 0.0001),  # 2987 nodes, 23 kept
    (20000, 3, 7): ("a74779a0b97fdf2a", 5e-05),  # 4293 nodes, 23 kept
}


def factor_table(n, n_classes, seed):
    """The benchmark's synthetic factor table (a copy: tests do not import benchmarks)."""
    levels = (2, 5, 10, 20, 50) if n_classes == 2 else (2, 4, 6, 10, 12)
    rng = np.random.default_rng(seed)
    codes = [rng.integers(0, L, n) for L in levels]
    num = rng.normal(size=(n, 3))
    group_a = rng.permutation(levels[3]) < levels[3] // 2
    group_b = rng.permutation(levels[4]) % 3
    signal = group_a[codes[3]].astype(int) + (group_b[codes[4]] == 1) * (num[:, 0] > 0.3)
    y = (signal + (codes[1] >= 3)) % n_classes
    flip = rng.random(n) < 0.1
    y[flip] = rng.integers(0, n_classes, flip.sum())
    frame = {
        f"f{j}": pd.Categorical.from_codes(c, [f"l{k}" for k in range(L)])
        for j, (L, c) in enumerate(zip(levels, codes))
    }
    for j in range(3):
        frame[f"x{j}"] = num[:, j]
    return pd.DataFrame(frame), y


def _fit(n, n_classes, seed):
    X, y = factor_table(n, n_classes, seed)
    return CARTClassifier(selection="cv", cv=10, random_state=seed).fit(X, y)


def _digest(est):
    return digest_arrays(
        *tree_arrays(est.tree_), *tree_arrays(est.pruned_tree_), est.path_.counts, np.int64(est.selected_index_)
    )


@pytest.mark.parametrize("config", list(PINNED))
def test_factor_fits_are_pinned(config):
    est = _fit(*config)
    digest, alpha = PINNED[config]
    assert _digest(est) == digest
    assert est.alpha_ == pytest.approx(alpha, rel=1e-9, abs=1e-12)


def test_one_thread_fits_the_same():
    X, y = factor_table(2000, 3, 3)
    est = CARTClassifier(selection="cv", cv=10, random_state=3, n_jobs=1).fit(X, y)
    assert _digest(est) == PINNED[(2000, 3, 3)][0]
