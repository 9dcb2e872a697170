"""`_native.sum_words`, the benchmarks' raw-read floor, against a numpy reference."""

from __future__ import annotations

import numpy as np
import pytest

import eagle3_inspect
from eagle3_inspect import _native
from tests.conftest import raw_tensors


def reference(buffers: list[bytes]) -> int:
    """Wrapping u64 sum of each buffer's little-endian words plus its trailing bytes."""
    total = 0
    for raw in buffers:
        cut = len(raw) - len(raw) % 8
        total += int(np.frombuffer(raw[:cut], dtype="<u8").sum(dtype=np.uint64))
        total += sum(raw[cut:])
    return total % (1 << 64)


@pytest.fixture
def ckpt(tmp_path):
    rng = np.random.default_rng(7)
    tensors = {
        "a": ("U8", (1237,), rng.integers(0, 256, 1237, dtype=np.uint8).tobytes()),
        "b": ("I64", (3, 5), rng.integers(-(2**63), 2**63 - 1, 15, dtype=np.int64).tobytes()),
        "c": ("BF16", (7,), rng.integers(0, 2**16, 7, dtype=np.uint16).tobytes()),
        "empty": ("F32", (0, 4), b""),
    }
    path = raw_tensors(tmp_path / "m.safetensors", tensors)
    return eagle3_inspect.open(path), {n: t[2] for n, t in tensors.items()}


@pytest.mark.parametrize("threads", [None, 1, 2, 3])
@pytest.mark.parametrize("release_pages", [True, False])
def test_sum_words_matches_numpy(ckpt, threads, release_pages):
    opened, raw = ckpt
    got = _native.sum_words(opened._native, threads=threads, release_pages=release_pages)
    assert got == reference(list(raw.values()))


def test_sum_words_selected_names(ckpt):
    opened, raw = ckpt
    assert _native.sum_words(opened._native, ["b", "c"]) == reference([raw["b"], raw["c"]])
    assert _native.sum_words(opened._native, []) == 0


def test_sum_words_errors(ckpt):
    opened, _ = ckpt
    with pytest.raises(KeyError):
        _native.sum_words(opened._native, ["missing"])
    with pytest.raises(ValueError):
        _native.sum_words(opened._native, threads=0)
