"""The benchmark data generator: valid safetensors files, finite values, reuse, sparse holes."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from safetensors.numpy import load_file

import eagle3_inspect

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import bench_data

TINY = bench_data.Dims(
    hidden=64, vocab=640, draft_vocab=100, intermediate=96, q_width=64, kv_width=16
)


@pytest.fixture
def tiny_sizes(monkeypatch):
    monkeypatch.setitem(bench_data.SIZES, "tiny", TINY)
    monkeypatch.setattr(bench_data, "CHUNK_BYTES", 1000)  # many chunks per tensor


def test_drafter_is_valid_and_finite(tmp_path, tiny_sizes):
    path, reused = bench_data.ensure_drafter(tmp_path / "d", "tiny")
    assert not reused
    ckpt = eagle3_inspect.open(path)
    assert not ckpt.errors
    specs = {s.name: s for s in bench_data.drafter_specs(TINY)}
    assert set(ckpt.tensors) == set(specs)
    loaded = {}
    for shard in sorted(path.glob("*.safetensors")):
        loaded.update(load_file(shard))
    assert set(loaded) == set(specs)
    for name, spec in specs.items():
        assert tuple(loaded[name].shape) == spec.shape
        if spec.dtype == "BF16":
            values = loaded[name].view(np.uint16).view(ml_dtypes.bfloat16).astype(np.float32)
            assert np.isfinite(values).all()
            assert np.array_equal(values, ckpt.tensor(name).astype(np.float32))
    d2t, t2d = loaded["d2t"], loaded["t2d"]
    targets = d2t + np.arange(len(d2t))
    assert np.array_equal(np.flatnonzero(t2d), targets)
    stats = ckpt.stats()
    assert all(s.nan == s.posinf == s.neginf == 0 for s in stats.values())


def test_drafter_is_reused_only_when_matching(tmp_path, tiny_sizes):
    directory = tmp_path / "d"
    bench_data.ensure_drafter(directory, "tiny")
    assert bench_data.ensure_drafter(directory, "tiny")[1]
    shard = next(directory.glob("*.safetensors"))
    with open(shard, "ab") as f:
        f.write(b"x")
    assert not bench_data.ensure_drafter(directory, "tiny")[1]


def test_perturbed_copy_changes_only_the_listed_tensors(tmp_path, tiny_sizes):
    base, _ = bench_data.ensure_drafter(tmp_path / "d", "tiny")
    other, _ = bench_data.ensure_perturbed(tmp_path / "p", "tiny")
    a, b = eagle3_inspect.open(base), eagle3_inspect.open(other)
    assert set(a.tensors) == set(b.tensors)
    for name in a.tensors:
        same = bytes(a.raw_bytes(name)) == bytes(b.raw_bytes(name))
        assert same == (name not in bench_data.PERTURBED), name


def test_step_copy_moves_every_bf16_magnitude_a_few_units(tmp_path, tiny_sizes):
    base, _ = bench_data.ensure_drafter(tmp_path / "d", "tiny")
    other, _ = bench_data.ensure_perturbed(tmp_path / "s", "tiny", "step")
    a, b = eagle3_inspect.open(base), eagle3_inspect.open(other)
    specs = {s.name: s for s in bench_data.drafter_specs(TINY)}
    moved_units = []
    for name, spec in specs.items():
        x = np.frombuffer(bytes(a.raw_bytes(name)), np.uint8)
        y = np.frombuffer(bytes(b.raw_bytes(name)), np.uint8)
        if spec.dtype != "BF16":
            assert np.array_equal(x, y), name
            continue
        x, y = x.view(np.uint16), y.view(np.uint16)
        assert np.array_equal(x & 0x8000, y & 0x8000), name
        units = np.abs((y & 0x7FFF).astype(np.int32) - (x & 0x7FFF).astype(np.int32))
        assert units.max() <= 8, name
        assert np.isfinite(y.view(ml_dtypes.bfloat16).astype(np.float32)).all(), name
        moved_units.append(units)
    units = np.concatenate(moved_units)
    # The shares STEP_UNITS defines, within sampling noise on this many elements.
    for value, share in [(0, 0.5), (1, 0.375), (2, 0.094)]:
        assert abs(np.mean(units == value) - share) < 0.02, (value, np.mean(units == value))
    assert 0.02 < np.mean(units >= 3) < 0.045
    again, reused = bench_data.ensure_perturbed(tmp_path / "s", "tiny", "step")
    assert reused and again == other


def test_sparse_file_is_a_hole_with_a_full_header(tmp_path):
    specs = bench_data.sparse_specs(5)
    path = tmp_path / "sparse.safetensors"
    size = bench_data.write_sparse(path, specs)
    assert size >= 5e9
    assert os.path.getsize(path) == size
    assert os.stat(path).st_blocks * 512 < 1 << 20
    ckpt = eagle3_inspect.open(path)
    assert not ckpt.errors
    assert sum(t.nbytes for t in ckpt.tensors.values()) == sum(s.nbytes for s in specs)
    twin = tmp_path / "twin.safetensors"
    bench_data.write_tiny_twin(twin, specs)
    assert set(eagle3_inspect.open(twin).tensors) == set(ckpt.tensors)


def test_numpy_baseline_matches_a_float64_reference(monkeypatch):
    import baselines

    monkeypatch.setattr(baselines, "CHUNK_BYTES", 4096)  # many chunks, and a partial last one
    rng = np.random.default_rng(3)
    values = rng.standard_normal(100_003).astype(np.float32) * 3 + 1
    values[[5, 70_000]] = np.nan
    values[9] = np.inf
    values[[11, 12, 13]] = -np.inf
    values[[20, 21]] = 0
    got = baselines.numpy_tensor_stats(values.astype(ml_dtypes.bfloat16))
    exact = values.astype(ml_dtypes.bfloat16).astype(np.float64)
    finite = exact[np.isfinite(exact)]
    assert (got["nan"], got["posinf"], got["neginf"]) == (2, 1, 3)
    assert got["zeros"] == np.count_nonzero(finite == 0)
    assert (got["min"], got["max"]) == (finite.min(), finite.max())
    assert got["abs_max"] == np.abs(finite).max()
    np.testing.assert_allclose(got["mean"], finite.mean(), rtol=1e-12)
    np.testing.assert_allclose(got["std"], finite.std(), rtol=1e-9)
    np.testing.assert_allclose(got["l2"], np.sqrt(np.dot(finite, finite)), rtol=1e-12)
