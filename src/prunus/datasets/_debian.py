"""Datasets shipped in Debian packages: fetched with ``apt-get download`` and
``dpkg-deb -x`` (no R needed), verified by SHA-256, read from ``.rda`` files.

Adding another data file of such a package is one registry entry (see
:func:`rda_dataset`).
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import tempfile
import warnings
from pathlib import Path

import numpy as np
from sklearn.utils import Bunch

from ._registry import DatasetSpec, data_home


class DatasetNotFetchedError(FileNotFoundError):
    """Raised when a fetched dataset is loaded before ``prunus data fetch``."""


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def cached_path(spec: DatasetSpec) -> Path:
    """Where the verified data file of ``spec`` lives once fetched."""
    opts = spec.options
    return data_home() / "debian" / opts["package"] / Path(opts["member"]).name


def is_fetched(spec: DatasetSpec) -> bool:
    return cached_path(spec).is_file()


def _cached_files(spec: DatasetSpec) -> list:
    """(path, expected SHA-256) of every cached file of ``spec``, the main file first."""
    target = cached_path(spec)
    extra = spec.options.get("extra_members", {})
    return [(target, spec.options["sha256"])] + [(target.parent / Path(m).name, h) for m, h in extra.items()]


def debian_status(spec: DatasetSpec) -> str:
    """``"ready"``, ``"missing"`` (not fetched) or ``"corrupted"`` (a cached file fails its SHA-256)."""
    files = _cached_files(spec)
    if not files[0][0].is_file():
        return "missing"
    for path, sha256 in files:
        if not path.is_file() or _sha256(path) != sha256:
            return "corrupted"
    return "ready"


def _run(cmd, cwd):
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)


def fetch_debian_file(spec: DatasetSpec, force: bool = False) -> Path:
    """Download the Debian package of ``spec``, extract its data file(s), verify them.

    ``spec.options`` names the main file (``member``, ``sha256``) and, optionally,
    companion files (``extra_members``: {member: sha256}) cached in the same
    directory. Runs ``apt-get download PACKAGE`` (and ``apt-get update`` once if the
    package is unknown), then ``dpkg-deb -x``. The extracted file must match
    the SHA-256 recorded in the registry.

    Without ``force`` nothing is done when the cached files pass their
    checksums; a missing or corrupted file is fetched again. A cached ``.deb``
    that fails (truncated, or extracting to a wrong checksum) is downloaded
    again once.
    """
    target = cached_path(spec)
    if not force and debian_status(spec) == "ready":
        return target
    for tool in ("apt-get", "dpkg-deb"):
        if shutil.which(tool) is None:
            raise RuntimeError(f"Fetching {spec.name!r} needs {tool!r} (a Debian-based system).")
    package = spec.options["package"]
    had_deb = not force and bool(sorted(_deb_dir().glob(f"{package}_*.deb")))
    try:
        return _extract(spec, _download_deb(package, force))
    except RuntimeError:
        if not had_deb:
            raise
        return _extract(spec, _download_deb(package, True))


def _extract(spec: DatasetSpec, debs: list) -> Path:
    """Extract, verify and cache the data file(s) of ``spec`` from its package's ``.deb``."""
    target = cached_path(spec)
    opts = spec.options
    with tempfile.TemporaryDirectory(prefix="prunus-fetch-") as tmp:
        extracted = Path(tmp) / "root"
        result = _run(["dpkg-deb", "-x", str(debs[0]), str(extracted)], cwd=tmp)
        if result.returncode != 0:
            raise RuntimeError(f"dpkg-deb -x {debs[0].name} failed:\n{result.stderr.strip()}")
        # ``extra_members`` (optional, {member: sha256}) are files that only make
        # sense together with the main one (e.g. an R lazy-load .rdb + .rdx pair);
        # they are verified and cached beside it, the main member last so that
        # ``is_fetched`` only turns true once every file is in place.
        members = list(opts.get("extra_members", {}).items()) + [(opts["member"], opts["sha256"])]
        for member, sha256 in members:
            source = extracted / member.lstrip("/")
            if not source.is_file():
                raise RuntimeError(f"{debs[0].name} does not contain {member}.")
            digest = _sha256(source)
            if digest != sha256:
                raise RuntimeError(
                    f"SHA-256 mismatch for {member} of {debs[0].name}: expected "
                    f"{sha256}, got {digest}. The Debian package changed; update the registry."
                )
            member_target = target.parent / Path(member).name
            member_target.parent.mkdir(parents=True, exist_ok=True)
            partial = member_target.with_suffix(member_target.suffix + ".part")
            shutil.copyfile(source, partial)
            partial.replace(member_target)
    return target


def _deb_dir() -> Path:
    return data_home() / "debian" / "_debs"


def _download_deb(package: str, force: bool) -> list:
    """The package's .deb, kept in the cache so that several datasets of one
    package (letter and satimage in r-cran-mlbench) cost one download."""
    deb_dir = _deb_dir()
    deb_dir.mkdir(parents=True, exist_ok=True)
    debs = sorted(deb_dir.glob(f"{package}_*.deb"))
    if debs and not force:
        return debs
    for old in debs:
        old.unlink()
    result = _run(["apt-get", "download", package], cwd=deb_dir)
    if result.returncode != 0:
        _run(["apt-get", "update"], cwd=deb_dir)
        result = _run(["apt-get", "download", package], cwd=deb_dir)
    debs = sorted(deb_dir.glob(f"{package}_*.deb"))
    if result.returncode != 0 or not debs:
        raise RuntimeError(f"apt-get download {package} failed:\n{result.stderr.strip()}")
    return debs


def _require(spec: DatasetSpec) -> Path:
    path = cached_path(spec)
    if not path.is_file():
        raise DatasetNotFetchedError(
            f"Dataset {spec.name!r} is not in the cache ({path}). Fetch it with: prunus data fetch {spec.name}"
        )
    return path


def quiet_missing(obj):
    """``obj`` with R's missing numbers made numpy's quiet NaN.

    R's ``NA_real_`` is a signalling NaN (payload 1954); a sum over it, as in
    scikit-learn's finiteness check, raises numpy's "invalid value" warning.
    Every float column of a DataFrame (or a float array) gets the quiet NaN
    in its place; other values are untouched.
    """
    if hasattr(obj, "columns") and hasattr(obj, "dtypes"):
        for position, dtype in enumerate(obj.dtypes):
            if getattr(dtype, "kind", None) == "f":
                values = obj.iloc[:, position].to_numpy(copy=True)
                values[np.isnan(values)] = np.nan
                obj.isetitem(position, values)
    elif isinstance(obj, np.ndarray) and obj.dtype.kind == "f":
        obj[np.isnan(obj)] = np.nan
    return obj


def _read_rda_frame(path: Path, object_name: str):
    import rdata

    with warnings.catch_warnings():
        # R data files from CRAN often omit their string encoding; ASCII is right here.
        warnings.filterwarnings("ignore", message="Unknown encoding", category=UserWarning)
        objects = rdata.read_rda(str(path))
    if object_name not in objects:
        raise RuntimeError(f"{path.name} holds {sorted(objects)}, not {object_name!r}.")
    return quiet_missing(objects[object_name])


def load_rda_classification(spec: DatasetSpec) -> Bunch:
    """Loader for a data frame with numeric features and one factor target."""
    opts = spec.options
    path = _require(spec)
    if _sha256(path) != opts["sha256"]:
        raise RuntimeError(
            f"Cached file {path} is corrupted (SHA-256 mismatch); repair it with: prunus data fetch {spec.name}"
        )
    frame = _read_rda_frame(path, opts["object"])
    target = frame[opts["target"]]
    features = frame.drop(columns=[opts["target"]])
    categories = list(target.cat.categories)
    y = np.asarray(target.cat.codes, dtype=np.int64)
    X = np.ascontiguousarray(features.to_numpy(dtype=np.float64))
    n_train = opts.get("n_train")
    train_index = test_index = None
    if n_train is not None:
        train_index = np.arange(n_train)
        test_index = np.arange(n_train, X.shape[0])
    return Bunch(
        X=X,
        y=y,
        feature_names=[str(c) for c in features.columns],
        target_names=np.asarray([str(c) for c in categories]),
        train_index=train_index,
        test_index=test_index,
        description=spec.description,
        source=spec.source,
    )


def rda_dataset(name, package, member, sha256, object_name, target, description, n_train=None):
    """Registry entry for a classification data frame in a Debian package's ``.rda``."""
    return DatasetSpec(
        name=name,
        loader=load_rda_classification,
        kind="fetched",
        description=description,
        source=f"Debian package {package}, file {member}",
        fetch=fetch_debian_file,
        options=dict(
            package=package,
            member=member,
            sha256=sha256,
            object=object_name,
            target=target,
            n_train=n_train,
            available=is_fetched,
            status=debian_status,
        ),
    )
