"""Tests of prunus.datasets: registry, bundled and fetched loaders, synthetic generators."""

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from sklearn import datasets as skd

from prunus import datasets
from prunus.datasets import _debian
from prunus.datasets.synthetic import excess_risk, make_gey_gaussian, make_gey_hypercube, make_holder_multiclass

CLASSIFICATION_KEYS = {"X", "y", "feature_names", "target_names", "train_index", "test_index", "description", "source"}


def binomial_tol(p, n, z=5.0):
    """z standard deviations of a mean of n Bernoulli(p) draws."""
    return z * np.sqrt(max(p * (1 - p), 1e-12) / n)


def check_bunch(b, n, d, n_classes, all_classes_seen=True):
    assert CLASSIFICATION_KEYS <= set(b)
    assert b.X.shape == (n, d) and b.X.dtype == np.float64 and b.X.flags["C_CONTIGUOUS"]
    assert b.y.shape == (n,) and b.y.dtype == np.int64
    assert np.isfinite(b.X).all()
    if all_classes_seen:
        np.testing.assert_array_equal(np.unique(b.y), np.arange(n_classes))
    else:
        assert set(np.unique(b.y)) <= set(range(n_classes))
    assert len(b.feature_names) == d and all(isinstance(f, str) for f in b.feature_names)
    assert len(b.target_names) == n_classes
    assert isinstance(b.description, str) and b.description
    assert isinstance(b.source, str) and b.source


# --------------------------------------------------------------- registry
def test_list_datasets_and_kinds():
    names = datasets.list_datasets()
    assert names == sorted(names)
    for name in [
        "digits",
        "wine",
        "breast_cancer",
        "iris",
        "gey_hypercube",
        "gey_gaussian",
        "holder_multiclass",
        "letter",
        "satimage",
        "spam",
    ]:
        assert name in names
    assert set(datasets.list_datasets("bundled")) == {"digits", "wine", "breast_cancer", "iris"}
    assert set(datasets.list_datasets("synthetic")) == {"gey_hypercube", "gey_gaussian", "holder_multiclass"}
    assert {"letter", "satimage", "spam"} <= set(datasets.list_datasets("fetched"))
    assert set(datasets.list_datasets("bundled")) | set(datasets.list_datasets("synthetic")) | set(
        datasets.list_datasets("fetched")
    ) == set(names)


def test_unknown_name_lists_known_names():
    for call in (datasets.load, datasets.fetch, datasets.is_available, datasets.get_spec):
        with pytest.raises(ValueError, match="Unknown dataset 'nope'") as info:
            call("nope")
        for name in datasets.list_datasets():
            assert name in str(info.value)


def test_register_rejects_duplicates():
    spec = datasets.get_spec("iris")
    with pytest.raises(ValueError, match="iris"):
        datasets.register(spec)


def test_data_home(monkeypatch, tmp_path):
    monkeypatch.setenv("PRUNUS_DATA", str(tmp_path))
    assert datasets.data_home() == tmp_path
    monkeypatch.delenv("PRUNUS_DATA")
    assert datasets.data_home() == Path.home() / ".cache" / "prunus"


# ---------------------------------------------------------------- bundled
@pytest.mark.parametrize(
    "name,shape,n_classes",
    [
        ("digits", (1797, 64), 10),
        ("wine", (178, 13), 3),
        ("breast_cancer", (569, 30), 2),
        ("iris", (150, 4), 3),
    ],
)
def test_bundled(name, shape, n_classes):
    b = datasets.load(name)
    check_bunch(b, *shape, n_classes)
    assert b.train_index is None and b.test_index is None
    raw = getattr(skd, f"load_{name}")()
    np.testing.assert_array_equal(b.X, raw.data)
    np.testing.assert_array_equal(b.y, raw.target)
    assert list(b.target_names) == [str(t) for t in raw.target_names]
    assert datasets.is_available(name)
    assert datasets.fetch(name) is None


# -------------------------------------------------------- fetched (cached)
# In CI `prunus data fetch --all` runs before the tests; here the cache is filled.
def test_letter():
    b = datasets.load("letter")
    check_bunch(b, 20000, 16, 26)
    assert list(b.target_names) == [chr(ord("A") + k) for k in range(26)]
    assert b.train_index is None and b.test_index is None
    # First row of UCI letter-recognition.data: T,2,8,3,5,1,8,13,0,6,6,10,8,0,8,0,8
    assert b.target_names[b.y[0]] == "T"
    np.testing.assert_array_equal(b.X[0], [2, 8, 3, 5, 1, 8, 13, 0, 6, 6, 10, 8, 0, 8, 0, 8])
    np.testing.assert_array_equal(np.bincount(b.y)[:5], [789, 766, 736, 805, 768])


def test_satimage_split():
    b = datasets.load("satimage")
    check_bunch(b, 6435, 36, 6)
    np.testing.assert_array_equal(b.train_index, np.arange(4435))
    np.testing.assert_array_equal(b.test_index, np.arange(4435, 6435))
    # The Statlog class counts of sat.trn and sat.tst.
    np.testing.assert_array_equal(np.bincount(b.y[b.train_index]), [1072, 479, 961, 415, 470, 1038])
    np.testing.assert_array_equal(np.bincount(b.y[b.test_index]), [461, 224, 397, 211, 237, 470])


def test_spam():
    b = datasets.load("spam")
    check_bunch(b, 4601, 57, 2)
    assert list(b.target_names) == ["nonspam", "spam"]
    np.testing.assert_array_equal(np.bincount(b.y), [2788, 1813])
    np.testing.assert_allclose(b.X[0, :5], [0.0, 0.64, 0.64, 0.0, 0.32])


@pytest.mark.parametrize("name", ["letter", "satimage", "spam"])
def test_fetch_is_a_noop_when_cached(name):
    assert datasets.is_available(name)
    path = datasets.fetch(name)  # no download: the verified file is already cached
    assert path == _debian.cached_path(datasets.get_spec(name)) and path.is_file()


@pytest.mark.parametrize("name", ["letter", "satimage", "spam"])
def test_missing_dataset_names_the_fetch_command(name, monkeypatch, tmp_path):
    monkeypatch.setenv("PRUNUS_DATA", str(tmp_path))
    assert not datasets.is_available(name)
    with pytest.raises(datasets.DatasetNotFetchedError, match=f"prunus data fetch {name}"):
        datasets.load(name)
    with pytest.raises(FileNotFoundError):  # the error is also a FileNotFoundError
        datasets.load(name)


def test_corrupted_cache_is_detected(monkeypatch, tmp_path):
    spec = datasets.get_spec("spam")
    good = _debian.cached_path(spec)
    monkeypatch.setenv("PRUNUS_DATA", str(tmp_path))
    bad = _debian.cached_path(spec)
    bad.parent.mkdir(parents=True)
    data = bytearray(good.read_bytes())
    data[-1] ^= 0xFF
    bad.write_bytes(bytes(data))
    with pytest.raises(RuntimeError, match="corrupted.*prunus data fetch spam$"):
        datasets.load("spam")
    assert datasets.cache_status("spam") == "corrupted"
    assert datasets.is_available("spam")  # the cheap check only looks for the file


def test_cache_status(monkeypatch, tmp_path):
    assert datasets.cache_status("iris") == "ready"
    assert datasets.cache_status("gey_gaussian") == "ready"
    assert datasets.cache_status("spam") == "ready"
    monkeypatch.setenv("PRUNUS_DATA", str(tmp_path))
    for name in ("letter", "satimage", "spam", "austen"):
        assert datasets.cache_status(name) == "missing"
    with pytest.raises(ValueError, match="Unknown dataset"):
        datasets.cache_status("nope")


def test_fetch_repairs_a_corrupted_file_without_force(monkeypatch, tmp_path):
    spec = datasets.get_spec("spam")
    payload = _debian.cached_path(spec).read_bytes()
    calls = _fake_apt(monkeypatch, tmp_path, spec, payload)
    monkeypatch.setenv("PRUNUS_DATA", str(tmp_path / "cache"))
    path = datasets.fetch("spam")
    path.write_bytes(payload[: len(payload) // 2])  # truncated
    assert datasets.cache_status("spam") == "corrupted"
    calls.clear()
    assert datasets.fetch("spam") == path
    assert ["dpkg-deb", "-x"] in calls and ["apt-get", "download"] not in calls  # the cached .deb sufficed
    assert path.read_bytes() == payload and datasets.cache_status("spam") == "ready"
    # A truncated cached .deb is downloaded again.
    path.write_bytes(b"")
    (deb,) = (tmp_path / "cache" / "debian" / "_debs").glob("*.deb")
    deb.write_bytes(deb.read_bytes()[:100])
    calls.clear()
    assert datasets.fetch("spam") == path
    assert ["apt-get", "download"] in calls and path.read_bytes() == payload


def _fake_apt(monkeypatch, tmp_path, spec, payload):
    """Make ``apt-get download`` hand out a locally built .deb holding ``payload``."""
    opts = spec.options
    root = tmp_path / "pkg"
    member = root / opts["member"].lstrip("/")
    member.parent.mkdir(parents=True)
    member.write_bytes(payload)
    (root / "DEBIAN").mkdir()
    (root / "DEBIAN" / "control").write_text(
        f"Package: {opts['package']}\nVersion: 1.0-1\nArchitecture: all\n"
        "Maintainer: test <test@invalid>\nDescription: test package\n"
    )
    deb = tmp_path / f"{opts['package']}_1.0-1_all.deb"
    subprocess.run(["dpkg-deb", "--build", "--root-owner-group", str(root), str(deb)], check=True, capture_output=True)
    calls = []
    real_run = _debian._run

    def run(cmd, cwd):
        calls.append(cmd[:2])
        if cmd[0] == "apt-get":
            assert cmd[1] == "download" and cmd[2] == opts["package"]
            shutil.copy(deb, cwd)
            return subprocess.CompletedProcess(cmd, 0, "", "")
        return real_run(cmd, cwd)

    monkeypatch.setattr(_debian, "_run", run)
    return calls


def test_fetch_extracts_and_verifies_offline(monkeypatch, tmp_path):
    spec = datasets.get_spec("spam")
    payload = _debian.cached_path(spec).read_bytes()
    calls = _fake_apt(monkeypatch, tmp_path, spec, payload)
    monkeypatch.setenv("PRUNUS_DATA", str(tmp_path / "cache"))
    assert not datasets.is_available("spam")
    path = datasets.fetch("spam")
    assert path.read_bytes() == payload and datasets.is_available("spam")
    assert ["apt-get", "download"] in calls and ["dpkg-deb", "-x"] in calls
    assert not list(path.parent.glob("*.part"))
    check_bunch(datasets.load("spam"), 4601, 57, 2)
    calls.clear()
    assert datasets.fetch("spam") == path and calls == []  # cached: nothing run
    assert datasets.fetch("spam", force=True) == path and calls  # forced: fetched again


def test_fetch_rejects_checksum_mismatch(monkeypatch, tmp_path):
    spec = datasets.get_spec("spam")
    _fake_apt(monkeypatch, tmp_path, spec, b"not the spam data")
    monkeypatch.setenv("PRUNUS_DATA", str(tmp_path / "cache"))
    with pytest.raises(RuntimeError, match="SHA-256 mismatch"):
        datasets.fetch("spam")
    assert not datasets.is_available("spam")
    assert not _debian.cached_path(spec).exists()


# -------------------------------------------------------------- synthetic
def hypercube_region(X):
    return np.array([all(v <= 0.5 for v in x) or all(v > 0.5 for v in x) for x in X])


def bayes_rule(region, q):
    """f* = 1{eta >= 1/2} (eq. 3) with eta = q on the region and 1 - q elsewhere."""
    eta = np.where(region, q, 1.0 - q)
    return (eta >= 0.5).astype(np.int64)


@pytest.mark.parametrize("d", [1, 2, 3])
@pytest.mark.parametrize("q", [0.0, 0.1, 0.35, 0.5, 0.8])
def test_gey_hypercube_bayes_rule(d, q):
    b = make_gey_hypercube(n_samples=2000, n_features=d, q=q, random_state=d)
    check_bunch(b, 2000, d, 2, all_classes_seen=False)
    assert ((b.X >= 0) & (b.X <= 1)).all()
    region = hypercube_region(b.X)
    np.testing.assert_array_equal(b.bayes_pred, bayes_rule(region, q))
    np.testing.assert_array_equal(b.bayes_predict(b.X), b.bayes_pred)
    # Rows exactly on 1/2 count as "low" (X^j <= 1/2 in the paper).
    edge = np.full((2, d), 0.5)
    edge[1, 0] = np.nextafter(0.5, 1.0)
    np.testing.assert_array_equal(b.bayes_predict(edge), bayes_rule(hypercube_region(edge), q))
    assert b.bayes_risk == min(q, 1 - q)
    assert b.margin == pytest.approx(abs(2 * q - 1))


@pytest.mark.parametrize("q", [0.0, 0.2, 0.5, 0.9])
def test_gey_gaussian_bayes_rule(q):
    b = make_gey_gaussian(n_samples=2000, q=q, random_state=0)
    check_bunch(b, 2000, 2, 2, all_classes_seen=False)
    region = (b.X[:, 0] > 0) & (b.X[:, 1] > 0)
    np.testing.assert_array_equal(b.bayes_pred, bayes_rule(region, q))
    np.testing.assert_array_equal(
        b.bayes_predict(np.array([[0.0, 1.0], [1e-9, 1e-9]])), bayes_rule(np.array([False, True]), q)
    )
    assert b.bayes_risk == min(q, 1 - q)


@pytest.mark.parametrize(
    "make,kwargs,p_region",
    [
        (make_gey_hypercube, dict(n_features=2), 0.5),
        (make_gey_hypercube, dict(n_features=3), 0.25),
        (make_gey_gaussian, {}, 0.25),
    ],
)
@pytest.mark.parametrize("q", [0.1, 0.3, 0.75])
def test_label_flip_rate_and_bayes_risk(make, kwargs, p_region, q):
    n = 200_000
    b = make(n_samples=n, q=q, random_state=7, **kwargs)
    if make is make_gey_hypercube:
        region = (b.X <= 0.5).all(axis=1) | (b.X > 0.5).all(axis=1)
    else:
        region = (b.X[:, 0] > 0) & (b.X[:, 1] > 0)
    assert abs(region.mean() - p_region) < binomial_tol(p_region, n)
    # Y = 1 with probability q on the region, 1 - q elsewhere.
    assert abs(b.y[region].mean() - q) < binomial_tol(q, region.sum())
    assert abs(b.y[~region].mean() - (1 - q)) < binomial_tol(1 - q, (~region).sum())
    # The empirical error of the Bayes rule estimates bayes_risk = min(q, 1 - q).
    err = np.mean(b.y != b.bayes_pred)
    assert abs(err - b.bayes_risk) < binomial_tol(b.bayes_risk, n)


@pytest.mark.parametrize(
    "make,kwargs,p_region",
    [
        (make_gey_hypercube, dict(n_features=1), 1.0),
        (make_gey_hypercube, dict(n_features=2), 0.5),
        (make_gey_hypercube, dict(n_features=4), 0.125),
        (make_gey_gaussian, {}, 0.25),
    ],
)
@pytest.mark.parametrize("q", [0.2, 0.6])
def test_excess_risk_closed_forms(make, kwargs, p_region, q):
    b = make(n_samples=100, q=q, random_state=0, **kwargs)
    assert excess_risk(b.bayes_predict, b) == 0.0
    # The constant classifier c disagrees with f* where f* != c; f* = 1 outside the
    # region when q < 1/2 (inside when q > 1/2); excess = |2q - 1| * P(disagree).
    p_one = (1 - p_region) if q < 0.5 else p_region
    n_test = 200_000
    for c, p_dis in ((0, p_one), (1, 1 - p_one)):
        got = excess_risk(lambda Z: np.full(Z.shape[0], c), b, n_test=n_test, random_state=1)
        expected = abs(2 * q - 1) * p_dis
        assert abs(got - expected) <= abs(2 * q - 1) * binomial_tol(p_dis, n_test) + 1e-12
    # Excess risk equals the difference of true risks, estimated on a huge labelled sample.
    big = make(n_samples=400_000, q=q, random_state=5, **kwargs)
    const_err = np.mean(big.y != 0) - np.mean(big.y != big.bayes_pred)
    assert abs(const_err - abs(2 * q - 1) * p_one) < 3 * binomial_tol(0.5, 400_000)


def test_holder_multiclass():
    b = make_holder_multiclass(n_samples=100_000, n_features=2, n_classes=4, smoothness=0.7, random_state=3)
    check_bunch(b, 100_000, 2, 4)
    p = b.bayes_proba(b.X)
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    # Bayes prediction = most probable class = nearest centre (softmax of -scale*dist^s).
    dist = np.linalg.norm(b.X[:, None, :] - b.centres[None], axis=2)
    np.testing.assert_array_equal(b.bayes_pred, dist.argmin(axis=1))
    np.testing.assert_array_equal(b.bayes_pred, p.argmax(axis=1))
    # Labels follow P(Y = k | x): class frequencies match the mean probabilities.
    for k in range(4):
        assert abs(np.mean(b.y == k) - p[:, k].mean()) < binomial_tol(p[:, k].mean(), b.X.shape[0])
    # bayes_risk = E[1 - max_k p_k(X)] (an independent estimate on fresh inputs).
    fresh = np.random.RandomState(99).random_sample((200_000, 2))
    est = np.mean(1 - b.bayes_proba(fresh).max(axis=1))
    assert abs(b.bayes_risk - est) < 0.005
    assert abs(np.mean(b.y != b.bayes_pred) - b.bayes_risk) < binomial_tol(b.bayes_risk, b.X.shape[0])
    # Excess risk: 0 for the Bayes rule, E[p_{f*}(X) - p_0(X)] for the constant 0.
    assert excess_risk(b.bayes_predict, b) == 0.0
    got = excess_risk(lambda Z: np.zeros(Z.shape[0], dtype=int), b, n_test=100_000, random_state=4)
    Z = np.random.RandomState(4).random_sample((100_000, 2))
    pz = b.bayes_proba(Z)
    assert got == pytest.approx(np.mean(pz.max(axis=1) - pz[:, 0]), rel=1e-9)


@pytest.mark.parametrize("name", ["gey_hypercube", "gey_gaussian", "holder_multiclass"])
def test_synthetic_through_load_is_deterministic(name):
    a = datasets.load(name, n_samples=300, random_state=11)
    b = datasets.load(name, n_samples=300, random_state=11)
    c = datasets.load(name, n_samples=300, random_state=12)
    assert a.X.shape[0] == 300 and a.X.dtype == np.float64 and a.y.dtype == np.int64
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.y, b.y)
    assert not np.array_equal(a.X, c.X)
    assert a.train_index is None and a.test_index is None
    assert a.source == f"synthetic: {name}"
    assert datasets.is_available(name) and datasets.fetch(name) is None


@pytest.mark.parametrize(
    "call,argument",
    [
        (lambda: make_gey_hypercube(q=1.5), "q"),
        (lambda: make_gey_hypercube(q=np.nan), "q"),
        (lambda: make_gey_hypercube(n_samples=0), "n_samples"),
        (lambda: make_gey_hypercube(n_samples=2.5), "n_samples"),
        (lambda: make_gey_hypercube(n_features=0), "n_features"),
        (lambda: make_gey_gaussian(q=-0.1), "q"),
        (lambda: make_holder_multiclass(smoothness=0.0), "smoothness"),
        (lambda: make_holder_multiclass(smoothness=1.5), "smoothness"),
        (lambda: make_holder_multiclass(n_classes=1), "n_classes"),
        (lambda: make_holder_multiclass(n_features=0), "n_features"),
        (lambda: excess_risk(lambda Z: Z[:, 0] > 0, datasets.load("iris")), "excess_risk"),
    ],
)
def test_synthetic_validation(call, argument):
    with pytest.raises(ValueError, match=argument):
        call()


def test_r_missing_numbers_become_quiet_nan():
    """R's NA_real_ (a signalling NaN, payload 1954) read from R data is
    replaced by numpy's quiet NaN, so sums over it raise no warning."""
    import warnings

    pd = pytest.importorskip("pandas")
    from prunus.datasets._debian import quiet_missing

    r_na = np.array([0x7FF00000000007A2], dtype=np.uint64).view(np.float64)[0]
    frame = pd.DataFrame({"x": [1.5, r_na, 2.0], "level": pd.Categorical(["a", "b", "a"]), "n": [1, 2, 3]})
    array = np.array([r_na, 0.25])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        quiet_missing(frame)
        quiet_missing(array)
        # scikit-learn's finiteness check sums X: no "invalid value" warning now.
        assert np.isnan(np.sum(frame["x"].to_numpy())) and np.isnan(np.sum(array))
    quiet = np.array([np.nan]).view(np.uint64)[0]
    assert frame["x"].to_numpy().view(np.uint64)[1] == quiet and array.view(np.uint64)[0] == quiet
    np.testing.assert_array_equal(frame["x"].to_numpy()[[0, 2]], [1.5, 2.0])
    assert list(frame["level"]) == ["a", "b", "a"] and list(frame["n"]) == [1, 2, 3]
