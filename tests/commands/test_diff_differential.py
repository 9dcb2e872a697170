"""Hypothesis differential test: the native diff metrics of random pairs of every common dtype,
with NaN/Inf injected and random tolerances, against numpy in float64."""

from __future__ import annotations

import tempfile
from pathlib import Path

import ml_dtypes
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import eagle3_inspect
from tests.diff_helpers import assert_metrics, write

DTYPES = [
    np.float32,
    np.float16,
    np.float64,
    ml_dtypes.bfloat16,
    ml_dtypes.float8_e4m3fn,
    ml_dtypes.float8_e5m2,
    np.int32,
    np.int64,
]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    dtype_a=st.sampled_from(DTYPES),
    dtype_b=st.sampled_from(DTYPES),
    n=st.integers(1, 3000),
    seed=st.integers(0, 2**32 - 1),
    noise=st.sampled_from([0.0, 1e-4, 1e-2, 1.0]),
    special=st.integers(0, 4),
    tolerance=st.sampled_from([None, (0.0, 0.0), (1e-3, 1e-3), (0.5, 0.1)]),
)
def test_metrics_match_numpy(dtype_a, dtype_b, n, seed, noise, special, tolerance):
    rng = np.random.default_rng(seed)
    base = rng.standard_normal(n) * 10
    a = base.astype(dtype_a)
    b = (base + rng.standard_normal(n) * noise).astype(dtype_b)
    if np.issubdtype(np.dtype(dtype_a), np.floating) or dtype_a in DTYPES[3:6]:
        for value in [np.nan, np.inf, -np.inf][: min(special, 3)]:
            a[rng.integers(n)] = value
    if special == 4 and dtype_b not in (np.int32, np.int64):
        b[rng.integers(n)] = np.nan
    rtol, atol = tolerance if tolerance else (None, None)
    with tempfile.TemporaryDirectory() as tmp:
        pa = write(Path(tmp) / "a", {"w": a})
        pb = write(Path(tmp) / "b", {"w": b})
        report = eagle3_inspect.diff(pa, pb, rtol=rtol, atol=atol)
        changed = report.to_dict()["changed"]
        if not changed:
            assert a.dtype == b.dtype and a.tobytes() == b.tobytes()
            return
        (entry,) = changed
        assert_metrics(entry, a, b)
        assert entry["status"] in ("close", "differ")
        assert (entry["status"] == "close") == (entry["mismatched"] == 0)
        if tolerance:
            assert (entry["rtol"], entry["atol"]) == tolerance
