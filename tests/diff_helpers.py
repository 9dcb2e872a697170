"""Helpers for the diff tests: writing single-file and sharded checkpoints, and the metrics of a
pair computed directly with numpy in float64 (the reference the native engine must match)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from eagle3_inspect.synthetic.writer import write_safetensors, write_sharded


def write(
    directory: Path,
    arrays: dict[str, np.ndarray],
    *,
    config: dict | None = None,
    metadata: dict[str, str] | None = None,
    shards: int = 1,
) -> Path:
    """Writes `arrays` into `directory` as one file or `shards` files with an index."""
    directory.mkdir(parents=True, exist_ok=True)
    if config is not None:
        (directory / "config.json").write_text(json.dumps(config))
    if shards == 1:
        write_safetensors(directory / "model.safetensors", arrays, metadata)
        return directory
    names = sorted(arrays)
    write_sharded(directory, arrays, lambda name: names.index(name) % shards, metadata)
    return directory


def reference(a: np.ndarray, b: np.ndarray, rtol: float, atol: float) -> dict:
    """max_abs (+ first flat index), mean_abs, rel_l2, cosine over places where both are finite,
    and the mismatched count by numpy.isclose (the same rule as torch.testing, NaN == NaN)."""
    x = np.asarray(a, dtype=np.float64).ravel()
    y = np.asarray(b, dtype=np.float64).ravel()
    finite = np.isfinite(x) & np.isfinite(y)
    d = np.where(finite, np.abs(np.where(finite, x - y, 0.0)), -1.0)
    fx, fy = x[finite], y[finite]
    out = {
        "max_abs": float(d.max()) if finite.any() else 0.0,
        "mean_abs": float(np.abs(fx - fy).mean()) if finite.any() else 0.0,
        "mismatched": int((~np.isclose(x, y, rtol=rtol, atol=atol, equal_nan=True)).sum()),
    }
    out["max_abs_index"] = int(np.argmax(d)) if out["max_abs"] > 0 else None
    na, nb = np.linalg.norm(fx), np.linalg.norm(fy)
    nd = np.linalg.norm(fx - fy)
    out["rel_l2"] = float(nd / na) if na > 0 else (0.0 if nd == 0 else None)
    if na > 0 and nb > 0:
        out["cosine"] = float(fx @ fy / (na * nb))
    else:
        out["cosine"] = 1.0 if na == nb == 0 else None
    return out


def assert_metrics(entry: dict, a: np.ndarray, b: np.ndarray) -> None:
    """The report entry matches the numpy reference (discrete fields exactly)."""
    want = reference(a, b, entry["rtol"], entry["atol"])
    assert entry["max_abs"] == want["max_abs"]
    assert entry["max_abs_index"] == want["max_abs_index"]
    if want["max_abs_index"] is not None:
        assert tuple(entry["max_abs_at"]) == np.unravel_index(want["max_abs_index"], a.shape)
    assert entry["mismatched"] == want["mismatched"]
    for key in ("mean_abs", "rel_l2", "cosine"):
        if want[key] is None:
            assert entry[key] is None
        else:
            assert entry[key] == pytest_approx(want[key])


def pytest_approx(value: float):
    import pytest

    return pytest.approx(value, rel=1e-9, abs=1e-12)
