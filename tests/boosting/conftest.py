import numpy as np
import pytest


def brute_force_stump(X, y, w, n_classes, criterion="error"):
    """Best (value, feature, raw threshold, left label, right label) by enumeration.

    Thresholds are all midpoints between consecutive distinct values; ties go
    to the lowest feature, then the lowest threshold.
    """
    cands = []
    for k in range(X.shape[1]):
        vals = np.unique(X[:, k])
        for t in range(len(vals) - 1):
            go_left = X[:, k] <= vals[t]
            value = 0.0
            labels = []
            for side in (go_left, ~go_left):
                cnt = np.bincount(y[side], weights=w[side], minlength=n_classes)
                labels.append(int(np.argmax(cnt)))
                if criterion == "error":
                    value += cnt.sum() - cnt.max()
                else:
                    z = cnt.sum()
                    nz = cnt[cnt > 0]
                    value += -np.sum(nz * np.log2(nz / z)) if z > 0 else 0.0
            cands.append((value, k, (vals[t] + vals[t + 1]) / 2, labels[0], labels[1]))
    # values within 1e-10 of the minimum (weights sum to 1) are ties
    vmin = min(c[0] for c in cands)
    return next(c for c in cands if c[0] <= vmin + 1e-10 * w.sum())


@pytest.fixture(scope="session")
def small_problems():
    from sklearn.datasets import load_breast_cancer, load_digits, load_wine

    rng = np.random.RandomState(0)
    out = {}
    Xw, yw = load_wine(return_X_y=True)
    out["wine"] = (Xw, yw)
    Xb, yb = load_breast_cancer(return_X_y=True)
    idx = rng.choice(len(yb), 300, replace=False)
    out["breast_cancer"] = (Xb[idx], yb[idx])
    Xd, yd = load_digits(return_X_y=True)
    idx = rng.choice(len(yd), 400, replace=False)
    out["digits"] = (Xd[idx], yd[idx])
    # Few distinct values and many exact ties between features and thresholds.
    Xt = rng.randint(0, 4, size=(200, 8)).astype(float)
    Xt[:, 5] = Xt[:, 2]  # duplicated feature: every split of 2 ties with 5
    yt = (Xt[:, 0] + Xt[:, 2] + rng.randint(0, 2, 200) > 3).astype(int)
    out["ties"] = (Xt, yt)
    return out
