"""Cost of the after-fit views of a CART fit: ``select`` against a refit, importances, the CP table.

On scikit-learn's digits (1797 x 64, bundled): a 10-fold CV fit, the same fit
with ``selection="cv-1se"``, then ``select(rule="cv-1se")`` on the first fit
(which gives the second's tree without refitting), ``feature_importances_``
and ``str(cv_table_)``; and ``feature_importances_`` of a 100-tree PAC-Bayes
forest. Best of 3, after one warm-up fit.

Run: ``python benchmarks/bench_cart_tables.py``
"""

import time

from sklearn.datasets import load_digits

from prunus import CARTClassifier, PACBayesForestClassifier


def best(f, repeat=3):
    times, out = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - start)
    return min(times), out


def main():
    X, y = load_digits(return_X_y=True)
    CARTClassifier(selection="cv", cv=10, random_state=0).fit(X, y)  # kernels loaded
    t_fit, est = best(lambda: CARTClassifier(selection="cv", cv=10, random_state=0).fit(X, y))
    t_refit, fresh = best(lambda: CARTClassifier(selection="cv-1se", cv=10, random_state=0).fit(X, y))
    t_select, one_se = best(lambda: est.select(rule="cv-1se"))
    assert one_se.pruned_tree_ == fresh.pruned_tree_
    t_imp, _ = best(lambda: est.feature_importances_)
    t_table, _ = best(lambda: str(est.cv_table_))
    print(
        f"digits {X.shape[0]}x{X.shape[1]}: CV fit {t_fit:.3f} s, refit with cv-1se {t_refit:.3f} s, "
        f"select(rule='cv-1se') {t_select * 1e3:.2f} ms (same tree), feature_importances_ {t_imp * 1e3:.2f} ms, "
        f"str(cv_table_) {t_table * 1e3:.2f} ms; leaves {est.pruned_tree_.n_leaves} (min xerror) -> "
        f"{one_se.pruned_tree_.n_leaves} (1-SE)"
    )
    forest = PACBayesForestClassifier(n_estimators=100, random_state=0, n_jobs=1).fit(X, y)
    t_forest, _ = best(lambda: forest.feature_importances_)
    print(f"PAC-Bayes forest, 100 trees on digits: feature_importances_ {t_forest * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
