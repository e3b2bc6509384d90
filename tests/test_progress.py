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


def test_tree_softmax_estimators_show_epochs_when_verbose(capsys):
    pytest.importorskip("torch")
    from prunus.hsoftmax import TreeLanguageModel, TreeSoftmaxClassifier

    clf = lambda **kw: TreeSoftmaxClassifier(hidden_layer_sizes=(4,), epochs=3, random_state=0, n_threads=1, **kw)  # noqa: E731
    clf(verbose=1).fit(X, rng.integers(0, 4, size=len(y)))
    assert "3/3" in capsys.readouterr().err
    clf().fit(X, rng.integers(0, 4, size=len(y)))
    ids = np.arange(400) % 10
    lm = lambda **kw: TreeLanguageModel(10, context_size=2, dim=4, depth=2, n_threads=1, random_state=0, **kw)  # noqa: E731
    lm().fit(ids, epochs=1)
    assert capsys.readouterr().err == ""
    lm(verbose=1).fit(ids, epochs=1)
    assert "epoch 1/1" in capsys.readouterr().err
