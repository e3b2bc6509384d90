"""Long fits show a progress bar when ``verbose`` and print nothing by default."""

import numpy as np
import pytest

from prunus import ExactBoostClassifier, PACBayesForestClassifier

rng = np.random.default_rng(0)
X = rng.normal(size=(120, 4))
y = (X[:, 0] + 0.5 * rng.normal(size=120) > 0).astype(int)

CASES = [
    (lambda **kw: ExactBoostClassifier(n_estimators=7, max_depth=1, **kw), "boosting rounds", "7/7"),
    (lambda **kw: PACBayesForestClassifier(n_estimators=6, random_state=0, **kw), "PAC-Bayes forest", "6/6"),
]


@pytest.mark.parametrize("make, desc, done", CASES, ids=[c[1] for c in CASES])
def test_verbose_shows_a_bar_and_default_is_silent(make, desc, done, capsys):
    make(verbose=1).fit(X, y)
    err = capsys.readouterr().err
    assert desc in err and done in err
    make().fit(X, y)
    assert capsys.readouterr().err == ""
