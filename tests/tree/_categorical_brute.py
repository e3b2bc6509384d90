"""Plain-Python reference for subset splits on categorical features, for tests only.

At a node, every subset S of the levels present there is tried as the left
side (S and its complement both, so each partition twice), with the node's
missing rows right and then left; numeric features are enumerated by
``_cart_brute``. No ordering, no running sums: each candidate's side
statistics are summed from its rows. Scores (maximised) are the builder's
proxies in float64:

* classification: ``_cart_brute.float_score`` (Gini, entropy, misclassification);
* squared error: ``S_L^2 / W_L + S_R^2 / W_R``, ``S`` the weighted sums of
  ``y - mean(node)``.

:func:`check_tree` walks a grown tree and checks at every node, on the rows
that reach it, that its split scores the best of all candidates (to a
relative tolerance: the builder's sums are accumulated in another order) and
that every leaf is a leaf for a reason (pure, a stopping rule, or no valid
candidate).
"""

from __future__ import annotations

import itertools

import numpy as np
from _cart_brute import _class_counts, float_score, node_term
from _cart_brute import candidates as numeric_candidates


def _score(y, w, left, right, criterion, n_classes, mean):
    if criterion == "squared_error":
        wl, wr = w[left].sum(), w[right].sum()
        sl = (w[left] * (y[left] - mean)).sum()
        sr = (w[right] * (y[right] - mean)).sum()
        return sl * sl / wl + sr * sr / wr
    return float_score(_class_counts(y, w, left, n_classes), _class_counts(y, w, right, n_classes), criterion)


def categorical_candidates(X, y, w, rows, feature, criterion, min_samples_leaf, n_classes, mean=0.0):
    """(score, left level set, missing_left, left rows, right rows) of every valid subset split."""
    col = X[rows, feature]
    nan = np.isnan(col)
    present, missing = rows[~nan], rows[nan]
    levels = sorted({int(v) for v in col[~nan]})
    out = []
    for r in range(len(levels) + 1):
        for subset in itertools.combinations(levels, r):
            goes = np.isin(X[present, feature], subset)
            for miss_left in (False, True) if missing.size else (False,):
                left = np.concatenate([present[goes], missing]) if miss_left else present[goes]
                right = present[~goes] if miss_left else np.concatenate([present[~goes], missing])
                if left.size < min_samples_leaf or right.size < min_samples_leaf or not left.size or not right.size:
                    continue
                score = _score(y, w, left, right, criterion, n_classes, mean)
                out.append((score, frozenset(subset), miss_left, np.sort(left), np.sort(right)))
    return out


def best_score(X, y, w, rows, n_categories, criterion, min_samples_leaf, n_classes):
    """The largest score of any valid split of the node (None if there is none)."""
    rows = np.asarray(rows, dtype=np.int64)
    rows = rows[w[rows] > 0]
    mean = float((w[rows] * y[rows]).sum() / w[rows].sum()) if criterion == "squared_error" else 0.0
    scores = []
    for f in range(X.shape[1]):
        if n_categories[f] > 0:
            cands = categorical_candidates(X, y, w, rows, f, criterion, min_samples_leaf, n_classes, mean)
            scores += [c[0] for c in cands]
        elif criterion == "squared_error":
            for c in numeric_candidates(X, y.astype(np.int64) * 0, w, rows, "gini", min_samples_leaf, 1, [f]):
                scores.append(_score(y, w, c.left, c.right, criterion, n_classes, mean))
        else:
            scores += [c.score for c in numeric_candidates(X, y, w, rows, criterion, min_samples_leaf, n_classes, [f])]
    return max(scores) if scores else None


def node_rows(tree, X, w):
    """Rows of positive weight reaching each node (from the tree's own routing)."""
    path = tree.decision_path(X).tocsc()
    live = w > 0
    return [np.flatnonzero(path[:, t].toarray().ravel().astype(bool) & live) for t in range(tree.n_nodes)]


def check_tree(tree, X, y, w, *, criterion, n_classes=None, max_depth=None, min_samples_leaf=1, min_samples_split=2):
    """Assert that every split of ``tree`` is optimal on its rows and every leaf is justified."""
    n_categories = tree.n_categories
    rows_of = node_rows(tree, X, w)
    for t in range(tree.n_nodes):
        rows = rows_of[t]
        if criterion == "squared_error":
            mean = (w[rows] * y[rows]).sum() / w[rows].sum()
            pure = np.all(y[rows] == y[rows][0])
            scale = max((w[rows] * (y[rows] - mean) ** 2).sum(), 1e-300)
        else:
            counts = _class_counts(y, w, rows, n_classes)
            pure = np.count_nonzero(counts > 0) <= 1
            scale = max(w[rows].sum(), 1.0)
        stopped = (
            pure
            or (max_depth is not None and tree.depth[t] >= max_depth)
            or rows.size < min_samples_split
            or rows.size < 2 * min_samples_leaf
        )
        best = None if stopped else best_score(X, y, w, rows, n_categories, criterion, min_samples_leaf, n_classes)
        if tree.children_left[t] == -1:
            assert best is None, f"leaf {t} could be split (best score {best})"
            continue
        assert not stopped, f"node {t} is split although a stopping rule holds"
        left, right = rows_of[tree.children_left[t]], rows_of[tree.children_right[t]]
        assert left.size >= min_samples_leaf and right.size >= min_samples_leaf
        mean = (w[rows] * y[rows]).sum() / w[rows].sum() if criterion == "squared_error" else 0.0
        got = _score(y, w, left, right, criterion, n_classes, mean)
        assert got >= best - 1e-9 * scale, f"node {t}: split scores {got}, the best is {best}"


def parent_term(y, w, rows, criterion, n_classes):
    return node_term(_class_counts(y, w, rows, n_classes), criterion)
