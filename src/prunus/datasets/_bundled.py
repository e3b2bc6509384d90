"""Datasets bundled with scikit-learn (no fetch needed)."""

import numpy as np
from sklearn import datasets as skd
from sklearn.utils import Bunch

from ._registry import DatasetSpec

_SKLEARN_LOADERS = {
    "digits": skd.load_digits,
    "wine": skd.load_wine,
    "breast_cancer": skd.load_breast_cancer,
    "iris": skd.load_iris,
}


def load_sklearn_bundled(spec: DatasetSpec) -> Bunch:
    raw = _SKLEARN_LOADERS[spec.options["sklearn_name"]]()
    return Bunch(
        X=np.ascontiguousarray(raw.data, dtype=np.float64),
        y=np.asarray(raw.target, dtype=np.int64),
        feature_names=[str(f) for f in raw.feature_names],
        target_names=np.asarray([str(t) for t in raw.target_names]),
        train_index=None,
        test_index=None,
        description=spec.description,
        source=spec.source,
    )


def bundled_dataset(name, description):
    return DatasetSpec(
        name=name,
        loader=load_sklearn_bundled,
        kind="bundled",
        description=description,
        source=f"scikit-learn sklearn.datasets.load_{name}",
        options=dict(sklearn_name=name),
    )
