"""The numeric columns of a table with categorical ones become float64 with
every missing value (NaN, pandas' NA) one NaN, whatever their dtype."""

import numpy as np
import pytest

from prunus.tree._encoding import _numeric, fit_encoding

pd = pytest.importorskip("pandas")

DTYPES = ["float64", "float32", "int64", "int32", "uint8", "Int8", "Int32", "Int64", "UInt16", "Float32", "Float64"]


def _reference(values, missing):
    out = np.asarray(values, dtype=np.float64).copy()
    out[missing] = np.nan
    return out


@pytest.mark.parametrize("dtype", DTYPES)
def test_numeric_columns_of_every_dtype(dtype):
    rng = np.random.default_rng(0)
    values = rng.integers(0, 50, 40)
    missing = rng.random(40) < 0.25
    nullable = dtype[0].isupper()
    if dtype.startswith("float") or nullable:
        data = [None if m else v for v, m in zip(values.tolist(), missing)]
        col = pd.Series(data, dtype=dtype)
    else:
        missing[:] = False
        col = pd.Series(values, dtype=dtype)
    frame = pd.DataFrame({"x": col, "c": pd.Categorical(rng.choice(["a", "b"], 40))})
    encoding, out = fit_encoding(frame)
    assert encoding is not None and list(encoding.categorical) == [False, True]
    expected = _reference(np.where(missing, 0, values), missing)
    np.testing.assert_array_equal(out[:, 0], expected)
    np.testing.assert_array_equal(_numeric(col, "x"), expected)
    # The user's column is left as it was.
    assert col.isna().sum() == missing.sum()


def test_an_na_of_a_float_column_is_one_nan():
    col = pd.Series([1.0, np.nan, 2.5], dtype="float64")
    out = _numeric(col, "x")
    assert out.dtype == np.float64 and np.isnan(out[1])
    out[0] = 7.0
    assert col[0] == 1.0  # a copy, not a view of the column


def test_open_table_reads_a_frames_dtypes_once(monkeypatch):
    # Each read of DataFrame.dtypes builds a Series: the fit reads them once
    # and codes the table as fit_encoding alone does.
    from types import SimpleNamespace

    from prunus.tree._encoding import open_table

    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {"x": pd.array([1, None, 3, 4] * 5, dtype="Int32"), "c": pd.Categorical(rng.choice(["a", "b", "c"], 20))}
    )
    want_encoding, want = fit_encoding(frame)
    reads = []
    original = pd.DataFrame.dtypes

    def counted(self):
        reads.append(1)
        return original.fget(self)

    monkeypatch.setattr(pd.DataFrame, "dtypes", property(counted))
    estimator = SimpleNamespace(categorical_features="from_dtype")
    out = open_table(estimator, frame)
    assert len(reads) == 1
    np.testing.assert_array_equal(out, want)
    assert list(estimator._encoding.categorical) == list(want_encoding.categorical)
    assert [list(c) if c is not None else None for c in estimator._encoding.categories] == [None, ["a", "b", "c"]]
