"""Datasets: one registry of bundled, synthetic and fetched (offline) sources.

>>> from prunus import datasets
>>> data = datasets.load("digits")
>>> data.X.shape
(1797, 64)
"""

from pathlib import Path

from sklearn.utils import Bunch

from . import synthetic
from ._bundled import bundled_dataset
from ._debian import DatasetNotFetchedError, rda_dataset
from ._registry import DatasetSpec, cache_status, data_home, get_spec, is_available, list_datasets, load, register
from ._svmlight import load_svmlight
from ._text import Vocabulary, austen_dataset, ptb_dataset
from .synthetic import excess_risk, make_gey_gaussian, make_gey_hypercube, make_holder_multiclass


def fetch(name: str, force: bool = False) -> Path | None:
    """Fetch a dataset into the cache (no-op for bundled / synthetic ones).

    Parameters
    ----------
    name : str
        A registered name (see :func:`list_datasets`).
    force : bool, default=False
        Download again even when the cached files are present.

    Returns
    -------
    path : Path or None
        Where the dataset was stored; None for a bundled or synthetic one.
    """
    spec = get_spec(name)
    if spec.fetch is None:
        return None
    return spec.fetch(spec, force=force)


def _synthetic(name, make, description):
    def loader(spec, **kwargs):
        return make(**kwargs)

    return DatasetSpec(name=name, loader=loader, kind="synthetic", description=description, source=f"synthetic: {name}")


for _name, _desc in [
    ("digits", "Handwritten digits 8x8 (1797 x 64, 10 classes)."),
    ("wine", "Wine recognition (178 x 13, 3 classes)."),
    ("breast_cancer", "Breast cancer Wisconsin diagnostic (569 x 30, 2 classes)."),
    ("iris", "Iris (150 x 4, 3 classes)."),
]:
    register(bundled_dataset(_name, _desc))

register(
    _synthetic(
        "gey_hypercube",
        make_gey_hypercube,
        "Gey example 1: uniform on [0,1]^d, same-side-of-1/2 rule, flip probability q.",
    )
)
register(
    _synthetic(
        "gey_gaussian",
        make_gey_gaussian,
        "Gey example 2: standard Gaussian in R^2, positive-quadrant rule, flip probability q.",
    )
)
register(
    _synthetic(
        "holder_multiclass", make_holder_multiclass, "Smooth multiclass problem with a Hölder regression function."
    )
)

register(
    rda_dataset(
        "letter",
        "r-cran-mlbench",
        "/usr/lib/R/site-library/mlbench/data/LetterRecognition.rda",
        "967a1a3e10b548d7269cbe50182bcecd6365cc58ea07638bbc34c51f17f34f1d",
        "LetterRecognition",
        "lettr",
        "UCI Letter Recognition (20000 x 16, 26 classes).",
    )
)
register(
    rda_dataset(
        "satimage",
        "r-cran-mlbench",
        "/usr/lib/R/site-library/mlbench/data/Satellite.rda",
        "29f8cf9bb1bc51b769d694c9caf740fd1c36ed6a7c87603edf5985962e330f64",
        "Satellite",
        "classes",
        "Statlog Landsat satimage (6435 x 36, 6 classes); first 4435 rows train, last 2000 test.",
        n_train=4435,
    )
)
register(
    rda_dataset(
        "spam",
        "r-cran-kernlab",
        "/usr/lib/R/site-library/kernlab/data/spam.rda",
        "09281b38bc7b064f63616d9056091f924f59e38aa9fd07dd3bc1af0cba9613d3",
        "spam",
        "type",
        "UCI Spambase (4601 x 57, 2 classes).",
    )
)

register(ptb_dataset())
register(austen_dataset())

__all__ = [
    "Bunch",
    "DatasetNotFetchedError",
    "DatasetSpec",
    "cache_status",
    "data_home",
    "excess_risk",
    "fetch",
    "get_spec",
    "is_available",
    "list_datasets",
    "load",
    "load_svmlight",
    "make_gey_gaussian",
    "make_gey_hypercube",
    "make_holder_multiclass",
    "register",
    "synthetic",
    "Vocabulary",
]
