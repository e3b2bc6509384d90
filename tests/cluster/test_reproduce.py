"""The reproductions' grids on the cluster give the reports of a local run (timings aside)."""

import re

import joblib
import pytest
from distributed import get_task_stream

from prunus import datasets
from prunus.cli import main
from prunus.experiments import boosting, cart, pacbayes, pacbayes_forest
from prunus.experiments.cart import Settings, synthetic_rates

TINY = Settings(
    sizes=(150, 200),
    qs=(0.2,),
    repeats=1,
    n_mc=1000,
    cv=3,
    real_datasets=(),
    sklearn_alphas=5,
    reg_sizes=(150, 200),
    reg_repeats=1,
    reg_n_test=1000,
    reg_datasets=("diabetes",),
)

#: Table columns that hold timings (and the CPU-time improvement next to them): the only cells that may differ.
TIMED = re.compile(r"CPU|time|fit s|ms/batch|speed-up")


def untimed(text):
    """The report with its timing cells and total-time lines blanked out."""
    out, masked = [], set()
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if "Total time" in line or "CPU time" in line:  # the latter: a claim about measured CPU time
            continue
        if line.startswith("|"):
            cells = line.split("|")
            if i + 1 < len(lines) and lines[i + 1].startswith("|---"):  # a header row
                masked = {j for j, c in enumerate(cells) if TIMED.search(c)}
                masked |= {j + 1 for j in masked if j + 1 < len(cells) and "impr" in cells[j + 1]}
            else:
                cells = ["*" if j in masked else c for j, c in enumerate(cells)]
            line = "|".join(cells)
        out.append(line)
    return "\n".join(out)


def test_untimed_masks_only_timings():
    table = "| d | CPU AP (s) | impr. % | # assess. | impr. % |\n|---|---|---|---|---|\n| a | 1.5 | 3.0 | 10 | 2.0 |"
    assert untimed(table).splitlines()[-1] == "| a |*|*| 10 | 2.0 |"


def test_cart_grid_on_the_cluster_equals_local(client):
    local = synthetic_rates(TINY, progress=False)
    with get_task_stream(client) as stream, joblib.parallel_backend("dask"):
        remote = synthetic_rates(TINY, progress=False)
    assert len(stream.data) >= 4  # one task per (example, q, n, repetition)
    assert len(local) == 2 * 2 * 2 * 5  # examples x sizes x methods x rules
    assert remote == local


@pytest.fixture
def tiny_papers(monkeypatch):
    """`--quick` made tiny for every paper run here (settings live in this process only)."""
    monkeypatch.setattr(cart, "QUICK", Settings(**{**TINY.__dict__, "real_datasets": ("iris",)}))
    monkeypatch.setitem(pacbayes.MODES, "quick", pacbayes.MODES["tiny"])
    monkeypatch.setattr(boosting, "QUICK", boosting.TINY)
    # Two bundled sets (one binary, one multiclass for Figure 2); wildwood's import compiles for minutes.
    available = datasets.is_available
    monkeypatch.setattr(datasets, "is_available", lambda name: name in ("breast_cancer", "digits") and available(name))
    monkeypatch.setattr(pacbayes_forest, "wildwood_status", lambda: "left out of this test")


#: paper -> the task functions of its grids
GRIDS = {
    "cart": ("_synthetic_job", "_real_data_job", "_regression_job", "_regression_compare_job"),
    "pacbayes": ("_run_job", "_forest_job"),
    "boosting": ("_cpu_job", "_depth_job", "_curves_job", "gap_fractions"),
}


@pytest.mark.parametrize("paper", list(GRIDS))
def test_reproduce_on_the_cluster_writes_the_local_report(client, tiny_papers, tmp_path, paper):
    argv = ["reproduce", paper, "--no-progress", "--out"]
    assert main(argv + [str(tmp_path / "local")]) == 0
    with get_task_stream(client) as stream:
        assert main(argv + [str(tmp_path / "cluster"), "--scheduler", client.scheduler.address]) == 0
    ran = {str(task["key"]) for task in stream.data}
    for func in GRIDS[paper]:  # every grid ran as tasks on the workers (joblib names them batch_of_<func>_...)
        assert any(f"batch_of_{func}_" in key for key in ran), (func, sorted(ran)[:5])
    local, remote = ((tmp_path / where / "report.md").read_text() for where in ("local", "cluster"))
    assert "|---" in local
    assert untimed(remote) == untimed(local)


def test_language_model_grid_on_the_cluster_equals_local(client):
    pytest.importorskip("torch")
    import numpy as np
    from sklearn.utils import Bunch

    from prunus.datasets import Vocabulary
    from prunus.experiments.lm import OUTPUTS, run_corpus

    rng = np.random.RandomState(0)
    text = "\n".join(" ".join(rng.choice([f"w{i}" for i in range(40)], size=8)) for _ in range(150))
    vocab = Vocabulary.build(text)
    ids = vocab.encode(text)
    data = Bunch(ids_train=ids[:900], ids_valid=ids[900:1100], ids_test=ids[1100:], vocabulary=vocab)
    settings = dict(n_train=None, n_eval=None, epochs=1, tree_epochs=1, dim=8, batch_size=64)
    local = run_corpus(data, 2, settings, progress=False)
    with get_task_stream(client) as stream, joblib.parallel_backend("dask"):
        remote = run_corpus(data, 2, settings, progress=False)
    assert any(str(task["key"]).startswith("batch_of__fit_output_") for task in stream.data)
    assert list(remote) == list(OUTPUTS)
    for output in OUTPUTS:  # one torch thread per model, the same seeds: the same training
        assert remote[output]["perplexity"] == local[output]["perplexity"]
        assert remote[output]["valid_perplexity"] == local[output]["valid_perplexity"]


def _fit_cv(X, y):
    from prunus import CARTClassifier

    return CARTClassifier(selection="cv", cv=4, random_state=0).fit(X, y).selected_index_


def test_nested_loops_of_a_task_stay_in_its_worker(client):
    from prunus.experiments._tasks import run_tasks

    from .conftest import labelled

    X, y = labelled(n=600)
    with get_task_stream(client) as stream, joblib.parallel_backend("dask"):
        remote = run_tasks(_fit_cv, [(X, y), (X[:400], y[:400])], "cv fits", progress=False)
    assert remote == [_fit_cv(X, y), _fit_cv(X[:400], y[:400])]
    ran = [str(task["key"]) for task in stream.data]
    assert ran and all("_fit_cv_" in key for key in ran), ran  # no task per CV fold
