"""Differential tests of the statistics engine against numpy / ml_dtypes in float64: every dtype
numpy can represent, with NaN, +-Inf, +-0, subnormals, extremes, empty, scalar and multi-chunk
tensors. Counts must be equal; min/max/abs_max exact; mean/std/l2 within 1e-9 relative of the
exactly rounded values (math.fsum).

When +max and -max of a format both occur, the sum cancels catastrophically and no float64
summation (numpy's pairwise one included) keeps 1e-9 relative accuracy; there the bound is the
inherent one, 1e-9 relative plus a few ulps of sum(|x|)/n (test_ill_conditioned_sums)."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import eagle3_inspect
from tests.conftest import raw_tensors

FLOATS = {
    "F16": np.float16,
    "BF16": ml_dtypes.bfloat16,
    "F32": np.float32,
    "F64": np.float64,
    "F8_E4M3": ml_dtypes.float8_e4m3fn,
    "F8_E5M2": ml_dtypes.float8_e5m2,
    "F8_E8M0": ml_dtypes.float8_e8m0fnu,
    "F8_E4M3FNUZ": ml_dtypes.float8_e4m3fnuz,
    "F8_E5M2FNUZ": ml_dtypes.float8_e5m2fnuz,
    "F4": ml_dtypes.float4_e2m1fn,
    "F6_E2M3": ml_dtypes.float6_e2m3fn,
    "F6_E3M2": ml_dtypes.float6_e3m2fn,
}
INTS = {
    "U8": np.uint8,
    "I8": np.int8,
    "I16": np.int16,
    "U16": np.uint16,
    "I32": np.int32,
    "U32": np.uint32,
    "I64": np.int64,
    "U64": np.uint64,
}


def pack(dtype: str, array: np.ndarray) -> bytes:
    """Raw safetensors bytes: packed for F4 (low nibble first) and F6 (4 codes per 3 bytes)."""
    codes = np.ascontiguousarray(array).reshape(-1).view(np.uint8)
    if dtype == "F4":
        codes = codes & 0x0F
        return (codes[0::2] | (codes[1::2] << 4)).astype(np.uint8).tobytes()
    if dtype.startswith("F6_"):
        c = (codes & 0x3F).astype(np.uint32).reshape(-1, 4)
        word = c[:, 0] | (c[:, 1] << 6) | (c[:, 2] << 12) | (c[:, 3] << 18)
        out = np.stack([word & 0xFF, (word >> 8) & 0xFF, (word >> 16) & 0xFF], axis=1)
        return out.astype(np.uint8).tobytes()
    return np.ascontiguousarray(array).tobytes()


def all_bit_patterns(np_dtype) -> np.ndarray:
    """Every encoding of an 8-bit (or smaller) float, as that dtype."""
    bits = np.dtype(np_dtype).itemsize * 8
    n = 256 if bits == 8 else 2**16
    raw = np.arange(n, dtype=np.uint8 if bits == 8 else np.uint16)
    arr = raw.view(np_dtype)
    if np_dtype in (ml_dtypes.float4_e2m1fn,):
        arr = (raw[:16]).view(np_dtype)
    if np_dtype in (ml_dtypes.float6_e2m3fn, ml_dtypes.float6_e3m2fn):
        arr = (raw[:64]).view(np_dtype)
    return arr


def ldexp_or_inf(x: float, k: int) -> float:
    try:
        return math.ldexp(x, k)
    except OverflowError:
        return math.inf


def reference(array: np.ndarray) -> dict:
    with np.errstate(invalid="ignore"):
        x = np.asarray(array).astype(np.float64).reshape(-1)
    finite = x[np.isfinite(x)]
    out = {
        "numel": x.size,
        "nan": int(np.isnan(x).sum()),
        "posinf": int(np.isposinf(x).sum()),
        "neginf": int(np.isneginf(x).sum()),
        "zeros": int((x == 0).sum()),
    }
    if finite.size:
        # Sums over values scaled by a power of two (exact) so squares near float64's limits
        # neither overflow nor underflow; only a norm beyond the range comes out inf.
        k = math.frexp(float(np.abs(finite).max()))[1]
        scaled = np.ldexp(finite, -k)
        mean = math.fsum(scaled) / finite.size
        dev = scaled - mean
        out.update(
            min=finite.min(),
            max=finite.max(),
            abs_max=np.abs(finite).max(),
            mean=math.ldexp(mean, k),
            std=ldexp_or_inf(math.sqrt(math.fsum(dev * dev) / finite.size), k),
            l2=ldexp_or_inf(math.sqrt(math.fsum(scaled * scaled)), k),
            scale=float(np.abs(finite).mean()),
        )
    else:
        out.update(min=None, max=None, abs_max=None, mean=None, std=None, l2=None)
    return out


def assert_matches(got, want, name="", ulps_of_scale=0.0):
    for key in ("numel", "nan", "posinf", "neginf", "zeros"):
        assert getattr(got, key) == want[key], (name, key)
    for key in ("min", "max", "abs_max"):
        assert getattr(got, key) == want[key], (name, key, getattr(got, key), want[key])
    for key in ("mean", "std", "l2"):
        g, w = getattr(got, key), want[key]
        if w is None:
            assert g is None, (name, key)
        else:
            slack = ulps_of_scale * np.finfo(np.float64).eps * want["scale"] if key == "mean" else 0
            assert g == pytest.approx(w, rel=1e-9, abs=max(slack, 1e-300)), (name, key)


def stats_of(tmp_path, tensors: dict[str, tuple[str, np.ndarray]], threads=None):
    path = raw_tensors(
        tmp_path / "s.safetensors", {n: (d, a.shape, pack(d, a)) for n, (d, a) in tensors.items()}
    )
    ckpt = eagle3_inspect.open(path)
    assert ckpt.errors == []
    return ckpt.stats(threads=threads)


def test_every_bit_pattern_of_small_floats(tmp_path):
    tensors = {}
    for dtype, np_dtype in FLOATS.items():
        if np.dtype(np_dtype).itemsize <= 2 and dtype not in ("F32", "F64"):
            tensors[dtype] = (dtype, all_bit_patterns(np_dtype))
    got = stats_of(tmp_path, tensors)
    for name, (_, array) in tensors.items():
        assert_matches(got[name], reference(array), name)


def special_values(np_dtype, rng, n, both_extremes=False):
    info = ml_dtypes.finfo(np_dtype)
    subnormal = float(getattr(info, "smallest_subnormal", info.tiny))
    specials = [
        0.0,
        -0.0,
        float(info.max),
        -float(info.tiny),
        subnormal,
        -subnormal,
        np.nan,
        np.inf,
        -np.inf,
    ]
    if both_extremes:
        specials.append(float(info.min))
    base = rng.standard_normal(n) * 3
    base[: len(specials)] = specials
    rng.shuffle(base)
    return base.astype(np_dtype)


@pytest.mark.parametrize("dtype", ["F16", "BF16", "F32", "F64", "F8_E4M3", "F8_E5M2"])
def test_random_with_specials_across_chunks(tmp_path, dtype):
    rng = np.random.default_rng(1)
    np_dtype = FLOATS[dtype]
    n = (7 << 20) // np.dtype(np_dtype).itemsize + 12345  # more than one 6 MiB chunk
    big = special_values(np_dtype, rng, n)
    tensors = {
        "big": (dtype, big),
        "scalar": (dtype, np.array(1.5, dtype=np_dtype)),
        "empty": (dtype, np.zeros((0, 3), dtype=np_dtype)),
    }
    one = stats_of(tmp_path, tensors, threads=1)
    two = stats_of(tmp_path, tensors, threads=2)
    assert one == two  # bit-for-bit whatever the thread count
    for name, (_, array) in tensors.items():
        assert_matches(one[name], reference(array), f"{dtype}/{name}")


@pytest.mark.parametrize("dtype", ["F16", "BF16", "F32", "F8_E4M3", "F8_E5M2"])
def test_ill_conditioned_sums(tmp_path, dtype):
    rng = np.random.default_rng(7)
    array = special_values(FLOATS[dtype], rng, 1_000_003, both_extremes=True)
    got = stats_of(tmp_path, {"x": (dtype, array)})["x"]
    assert_matches(got, reference(array), dtype, ulps_of_scale=64)


def test_mean_much_larger_than_std(tmp_path):
    """Norm weights around 1 with tiny spread: naive E[x^2]-E[x]^2 would lose every digit."""
    rng = np.random.default_rng(2)
    array = (1.0 + 1e-4 * rng.standard_normal(3_000_001)).astype(np.float32)
    got = stats_of(tmp_path, {"norm": ("F32", array)})["norm"]
    assert_matches(got, reference(array))


@pytest.mark.parametrize("dtype", sorted(INTS))
def test_integers_exact(tmp_path, dtype):
    np_dtype = INTS[dtype]
    info = np.iinfo(np_dtype)
    rng = np.random.default_rng(3)
    array = rng.integers(info.min, info.max, size=100_003, dtype=np_dtype, endpoint=True)
    array[:3] = [info.min, info.max, 0]
    got = stats_of(tmp_path, {"x": (dtype, array)})["x"]
    as_int = [int(v) for v in array]
    assert (got.int_min, got.int_max, got.int_sum) == (min(as_int), max(as_int), sum(as_int))
    assert got.zeros == int((array == 0).sum())


def test_bool_counts(tmp_path):
    array = np.random.default_rng(4).random(10_001) < 0.3
    got = stats_of(tmp_path, {"m": ("BOOL", array)})["m"]
    assert got.true_count == int(array.sum())
    assert got.zeros == int((~array).sum())


def test_complex_is_summarised_by_magnitude(tmp_path):
    rng = np.random.default_rng(5)
    z = (rng.standard_normal(1001) + 1j * rng.standard_normal(1001)).astype(np.complex64)
    z[0] = np.nan
    z[1] = complex(np.inf, 0)
    z[2] = 0
    got = stats_of(tmp_path, {"z": ("C64", z)})["z"]
    mags = np.abs(z[3:].astype(np.complex128))
    assert (got.nan, got.posinf, got.zeros) == (1, 1, 1)
    assert got.mean == pytest.approx(np.concatenate([[0.0], mags]).mean(), rel=1e-9)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(dtype=st.sampled_from(sorted(FLOATS)), raw=st.binary(min_size=0, max_size=600))
def test_arbitrary_bit_patterns(tmp_path, dtype, raw):
    np_dtype = FLOATS[dtype]
    width = np.dtype(np_dtype).itemsize
    if dtype == "F4" or dtype.startswith("F6_"):
        codes = np.frombuffer(raw, dtype=np.uint8) & (0x0F if dtype == "F4" else 0x3F)
        codes = codes[: len(codes) - len(codes) % 4]
        array = codes.view(np_dtype)
    else:
        array = np.frombuffer(raw[: len(raw) - len(raw) % width], dtype=np_dtype)
    got = stats_of(tmp_path, {"x": (dtype, array)})["x"]
    assert_matches(got, reference(array), dtype)
