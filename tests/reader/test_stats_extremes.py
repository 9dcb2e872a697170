"""Statistics at each dtype's extremes (largest finite value, smallest subnormal, both signs, zeros)
against an exact rational reference (`fractions`), and the JSON form of a statistic whose true
value is outside float64's range."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import eagle3_inspect
from tests.conftest import raw_tensors
from tests.reader.test_stats_reference import FLOATS, INTS, pack

EPS = float(np.finfo(np.float64).eps)
# A few float64 subnormal steps: the grid spacing below 2.2e-308.
SUBNORMAL_SLACK = 4 * 5e-324


def extremes(dtype: str) -> list[float]:
    """The values at the edges of `dtype`'s range, both signs, as float64."""
    if dtype in INTS:
        info = np.iinfo(INTS[dtype])
        return [float(info.min), float(info.max), 0.0, 1.0, float(max(info.min, -1))]
    info = ml_dtypes.finfo(FLOATS[dtype])
    subnormal = float(getattr(info, "smallest_subnormal", info.tiny))
    edges = [float(info.max), float(info.tiny), subnormal, 1.0, 0.0]
    return edges + [-v for v in edges]


def sqrt_fraction(q: Fraction) -> float:
    """sqrt(q) to within an ulp, for any non-negative rational (inf when above float64's range)."""
    if q == 0:
        return 0.0
    k = (q.numerator.bit_length() - q.denominator.bit_length()) // 2
    root = math.sqrt(float(q / Fraction(4) ** k))
    try:
        return math.ldexp(root, k)
    except OverflowError:
        return math.inf


def exact(values: np.ndarray, reps: int) -> dict[str, float]:
    """Exact mean, std and L2 of `values` repeated `reps` times (finite ones only)."""
    finite = [Fraction(float(v)) for v in values.astype(np.float64) if math.isfinite(v)]
    n = len(finite)
    mean = sum(finite, Fraction(0)) / n
    var = sum(((x - mean) ** 2 for x in finite), Fraction(0)) / n
    sum_sq = reps * sum((x * x for x in finite), Fraction(0))
    scale = max(abs(float(x)) for x in finite)
    return {
        "mean": float(mean),
        "std": sqrt_fraction(var),
        "l2": sqrt_fraction(sum_sq),
        "scale": scale,
    }


def stored(dtype: str, values: list[float]) -> np.ndarray:
    """`values` as `dtype` (extremes are representable, so this is exact)."""
    if dtype in INTS:
        info = np.iinfo(INTS[dtype])
        return np.array([int(max(info.min, min(info.max, v))) for v in values], dtype=INTS[dtype])
    with np.errstate(over="ignore", invalid="ignore"):
        return np.array(values, dtype=np.float64).astype(FLOATS[dtype])


def assert_close(got: float | None, want: float, slack: float, what: str) -> None:
    assert got is not None, what
    if math.isinf(want):
        assert got == want, (what, got, want)
        return
    assert math.isfinite(got), (what, got, want)
    assert abs(got - want) <= 1e-12 * abs(want) + slack, (what, got, want)


PACKABLE = sorted(d for d in FLOATS if d != "F4" and not d.startswith("F6_")) + sorted(INTS)


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data(), dtype=st.sampled_from(PACKABLE))
def test_extreme_values_match_exact_rationals(tmp_path, data, dtype):
    picks = data.draw(st.lists(st.sampled_from(extremes(dtype)), min_size=1, max_size=24))
    reps = data.draw(st.sampled_from([1, 3, 400]))  # 400 crosses the kernels' 4096-value blocks
    base = stored(dtype, picks)
    array = np.tile(base, reps)
    path = raw_tensors(tmp_path / "x.safetensors", {"x": (dtype, array.shape, pack(dtype, array))})
    got = eagle3_inspect.open(path).stats()["x"]
    as_f64 = base.astype(np.float64)
    if not np.isfinite(as_f64).any():
        assert got.mean is None
        return
    want = exact(base, reps)
    # Sums of values of both signs cancel: the inherent float64 bound is a few ulps of the largest.
    slack = 64 * EPS * want["scale"] + SUBNORMAL_SLACK
    assert_close(got.mean, want["mean"], slack, f"{dtype} mean {picks} x{reps}")
    assert_close(got.std, want["std"], slack, f"{dtype} std {picks} x{reps}")
    assert_close(got.l2, want["l2"], slack * math.sqrt(len(array)), f"{dtype} l2 {picks} x{reps}")


@pytest.mark.parametrize(
    "values, mean, std",
    [
        ([1.7e308, 1.7e308, 1.7e308], 1.7e308, 0.0),
        ([1.7e308, -1.7e308], 0.0, 1.7e308),
        ([1e200, 1e200], 1e200, 0.0),
        ([1e-200, 3e-200], 2e-200, 1e-200),
    ],
)
def test_f64_edges_have_finite_mean_and_std(tmp_path, values, mean, std):
    array = np.array(values, dtype=np.float64)
    path = raw_tensors(tmp_path / "x.safetensors", {"x": ("F64", array.shape, array.tobytes())})
    got = eagle3_inspect.open(path).stats()["x"]
    assert got.mean == pytest.approx(mean, rel=1e-15, abs=1e-300)
    assert got.std == pytest.approx(std, rel=1e-15, abs=1e-300)
    want_l2 = sqrt_fraction(sum(Fraction(v) ** 2 for v in values))
    assert got.l2 == pytest.approx(want_l2, rel=1e-15)


def reject_constant(token: str) -> None:
    raise ValueError(f"non-standard JSON token {token}")


def test_json_of_an_out_of_range_l2_is_strict_json(tmp_path, run_cli):
    big = np.array([1.7e308, 1.7e308], dtype=np.float64)
    fine = np.array([1e200, 1e200], dtype=np.float64)
    path = raw_tensors(
        tmp_path / "x.safetensors",
        {"big": ("F64", big.shape, big.tobytes()), "fine": ("F64", fine.shape, fine.tobytes())},
    )
    code, out, err = run_cli("scan", str(path), "--json", "--stats")
    assert code == 0, err
    doc = json.loads(out, parse_constant=reject_constant)
    rows = {t["name"]: t["stats"] for t in doc["tensors"]}
    assert rows["big"]["l2"] == "inf"
    assert rows["big"]["mean"] == 1.7e308 and rows["big"]["std"] == 0.0
    assert rows["fine"]["l2"] == pytest.approx(math.sqrt(2) * 1e200, rel=1e-15)
    # The API keeps the float.
    assert eagle3_inspect.open(path).stats()["big"].l2 == math.inf
