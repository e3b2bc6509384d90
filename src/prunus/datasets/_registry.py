"""One registry of datasets: name -> loader, plus the local cache location."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sklearn.utils import Bunch


@dataclass(frozen=True)
class DatasetSpec:
    """How to obtain one dataset.

    Parameters
    ----------
    name : str
        Registry key, e.g. ``"letter"``.
    loader : callable
        ``loader(spec) -> Bunch``; one loader per kind of source.
    kind : {"bundled", "synthetic", "fetched"}
        Where the data come from: shipped with the package, generated, or
        downloaded once into :func:`data_home`.
    description : str
        One line on what the dataset is.
    source : str
        Human-readable provenance (package and file).
    fetch : callable or None, default=None
        ``fetch(spec, force=False) -> Path`` for fetched datasets.
    options : dict, default={}
        Source-specific settings read by ``loader`` / ``fetch``; fetched
        datasets give ``available(spec) -> bool`` (cheap: is it cached?) and
        may give ``status(spec) -> "ready" | "missing" | "corrupted"``
        (verifies the cached files).

    See Also
    --------
    register : Add a dataset to the registry.
    get_spec : The specification of a registered dataset.
    """

    name: str
    loader: Callable
    kind: str
    description: str
    source: str
    fetch: Callable | None = None
    options: dict = field(default_factory=dict)


_REGISTRY: dict[str, DatasetSpec] = {}


def register(spec: DatasetSpec) -> DatasetSpec:
    """Add a dataset to the registry (names are unique).

    Parameters
    ----------
    spec : DatasetSpec
        The dataset; its ``name`` must not be registered yet.

    Returns
    -------
    spec : DatasetSpec
        ``spec`` itself (so ``register`` can wrap a definition).
    """
    if spec.name in _REGISTRY:
        raise ValueError(f"A dataset named {spec.name!r} is already registered.")
    _REGISTRY[spec.name] = spec
    return spec


def get_spec(name: str) -> DatasetSpec:
    """The specification of a registered dataset.

    Parameters
    ----------
    name : str
        A registered name (see :func:`list_datasets`).

    Returns
    -------
    spec : DatasetSpec
        How the dataset is obtained.
    """
    try:
        return _REGISTRY[name]
    except KeyError:
        raise ValueError(f"Unknown dataset {name!r}; known datasets: {', '.join(sorted(_REGISTRY))}.") from None


def list_datasets(kind: str | None = None) -> list[str]:
    """Names of the registered datasets, optionally only one ``kind``.

    Parameters
    ----------
    kind : {"bundled", "synthetic", "fetched"}, optional
        Keep only the datasets of this kind; all of them when None.

    Returns
    -------
    names : list of str
        Sorted names.
    """
    return sorted(n for n, s in _REGISTRY.items() if kind is None or s.kind == kind)


def load(name: str, **kwargs: Any) -> Bunch:
    """Load a dataset by name.

    Parameters
    ----------
    name : str
        A registered name (see :func:`list_datasets`).
    **kwargs
        Passed to the dataset's loader. Synthetic generators accept
        ``n_samples``, ``random_state`` and their own parameters.

    Returns
    -------
    data : Bunch
        ``X`` (float64, 2-D), ``y`` (int class codes), ``feature_names``,
        ``target_names``, ``train_index`` / ``test_index`` (``None`` where the
        source defines no split), ``description`` and ``source``. Synthetic
        datasets also carry the Bayes classifier (see
        :mod:`prunus.datasets.synthetic`); text corpora carry token ids and
        text instead of ``X`` / ``y``.
    """
    spec = get_spec(name)
    return spec.loader(spec, **kwargs)


def data_home() -> Path:
    """Cache directory: ``$PRUNUS_DATA`` or ``~/.cache/prunus``.

    Returns
    -------
    path : Path
        The directory fetched datasets are kept in (not created here).
    """
    root = os.environ.get("PRUNUS_DATA")
    return Path(root).expanduser() if root else Path.home() / ".cache" / "prunus"


def cache_status(name: str) -> str:
    """``"ready"``, ``"missing"`` (fetch it first) or ``"corrupted"`` (a cached file fails its checksum).

    Bundled and synthetic datasets are always ready. For fetched ones this
    reads the cached files (a SHA-256 per file), unlike :func:`is_available`,
    which only looks for them.

    Parameters
    ----------
    name : str
        A registered name.

    Returns
    -------
    status : {"ready", "missing", "corrupted"}
        The state of the dataset's cached files.
    """
    spec = get_spec(name)
    if spec.kind != "fetched":
        return "ready"
    check = spec.options.get("status")
    if check is not None:
        return check(spec)
    return "ready" if spec.options["available"](spec) else "missing"


def is_available(name: str) -> bool:
    """True when ``load(name)`` needs no fetch.

    Parameters
    ----------
    name : str
        A registered name.

    Returns
    -------
    available : bool
        Whether the dataset is bundled, synthetic or already fetched.
    """
    spec = get_spec(name)
    if spec.kind != "fetched":
        return True
    return spec.options["available"](spec)
