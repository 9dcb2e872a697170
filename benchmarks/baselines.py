"""Reference statistics passes the native engine is compared with: numpy + ml_dtypes (always) and
torch (only when it is importable; it is never installed for this).

Both compute what `Checkpoint.stats()` computes per tensor (NaN / +Inf / -Inf / zero counts, finite
min, max, sum and sum of squares -> mean / std, abs max, L2) in chunks of about 64 MB, reading the
same memory map through `Checkpoint.tensor()` (zero copy), converting each chunk to float32 and
accumulating in float64. They are written the way a careful user would write them: vectorised,
one conversion per chunk into reused buffers, non-finite filtering only when a chunk has
non-finite values.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

CHUNK_BYTES = 64 << 20


def _finish(acc: dict[str, Any], numel: int) -> dict[str, Any]:
    n = acc["finite"]
    mean = acc["sum"] / n if n else None
    var = max(acc["sumsq"] / n - mean * mean, 0.0) if n else None
    return {
        "numel": numel,
        "nan": acc["nan"],
        "posinf": acc["posinf"],
        "neginf": acc["neginf"],
        "zeros": acc["zeros"],
        "min": acc["min"] if n else None,
        "max": acc["max"] if n else None,
        "mean": mean,
        "std": math.sqrt(var) if n else None,
        "abs_max": max(abs(acc["min"]), abs(acc["max"])) if n else None,
        "l2": math.sqrt(acc["sumsq"]) if n else None,
    }


def _empty() -> dict[str, Any]:
    keys = ("nan", "posinf", "neginf", "zeros", "finite")
    acc: dict[str, Any] = dict.fromkeys(keys, 0)
    acc.update(min=math.inf, max=-math.inf, sum=0.0, sumsq=0.0)
    return acc


class _Buffers:
    """Scratch arrays reused across chunks and tensors: a fresh 64 MB float32 array per chunk
    would be a new mmap each time, and numpy would be charged for faulting it in."""

    def __init__(self, elems: int) -> None:
        self.f32 = np.empty(elems, dtype=np.float32)
        self.f64 = np.empty(elems, dtype=np.float64)
        self.mask = np.empty(elems, dtype=np.bool_)


def numpy_tensor_stats(array: np.ndarray, buffers: _Buffers | None = None) -> dict[str, Any]:
    """Stats of one tensor (any numpy / ml_dtypes dtype), chunk by chunk."""
    flat = array.reshape(-1)
    per = max(1, CHUNK_BYTES // max(1, flat.dtype.itemsize))
    buffers = buffers if buffers is not None and buffers.f32.size >= per else _Buffers(per)
    acc = _empty()
    for start in range(0, flat.size, per):
        chunk = flat[start : start + per]
        x = buffers.f32[: chunk.size]
        np.copyto(x, chunk, casting="unsafe")
        finite = np.isfinite(x, out=buffers.mask[: chunk.size])
        n_finite = int(np.count_nonzero(finite))
        if n_finite != x.size:
            acc["nan"] += int(np.count_nonzero(np.isnan(x)))
            acc["posinf"] += int(np.count_nonzero(np.isposinf(x)))
            acc["neginf"] += int(np.count_nonzero(np.isneginf(x)))
            x = x[finite]
        acc["zeros"] += x.size - int(np.count_nonzero(x))
        acc["finite"] += n_finite
        if x.size:
            acc["min"] = min(acc["min"], float(x.min()))
            acc["max"] = max(acc["max"], float(x.max()))
            acc["sum"] += float(x.sum(dtype=np.float64))
            x64 = buffers.f64[: x.size]
            np.copyto(x64, x)
            acc["sumsq"] += float(np.dot(x64, x64))
    return _finish(acc, flat.size)


def numpy_stats(ckpt: Any, names: list[str]) -> dict[str, dict[str, Any]]:
    """The numpy baseline over the named tensors of an opened `eagle3_inspect.Checkpoint`."""
    buffers = _Buffers(CHUNK_BYTES)
    return {name: numpy_tensor_stats(ckpt.tensor(name), buffers) for name in names}


def torch_available() -> bool:
    try:
        import torch  # noqa: F401
    except ImportError:
        return False
    return True


def torch_stats(ckpt: Any, names: list[str]) -> dict[str, dict[str, Any]]:
    """The same pass in torch (bf16 tensors are reinterpreted from their raw bytes)."""
    import torch

    out = {}
    for name in names:
        info = ckpt.tensors[name]
        raw = np.frombuffer(ckpt.raw_bytes(name), dtype=np.uint8)
        if info.dtype == "BF16":
            flat = torch.frombuffer(raw, dtype=torch.bfloat16) if raw.size else torch.empty(0)
        else:
            flat = torch.from_numpy(np.array(ckpt.tensor(name)).reshape(-1))
        per = max(1, CHUNK_BYTES // max(1, flat.element_size()))
        acc = _empty()
        for start in range(0, flat.numel(), per):
            x = flat[start : start + per].to(torch.float32)
            finite = torch.isfinite(x)
            n_finite = int(finite.sum())
            if n_finite != x.numel():
                acc["nan"] += int(torch.isnan(x).sum())
                acc["posinf"] += int(torch.isposinf(x).sum())
                acc["neginf"] += int(torch.isneginf(x).sum())
                x = x[finite]
            acc["zeros"] += x.numel() - int(torch.count_nonzero(x))
            acc["finite"] += n_finite
            if x.numel():
                acc["min"] = min(acc["min"], float(x.min()))
                acc["max"] = max(acc["max"], float(x.max()))
                x64 = x.to(torch.float64)
                acc["sum"] += float(x64.sum())
                acc["sumsq"] += float(torch.dot(x64, x64))
        out[name] = _finish(acc, flat.numel())
    return out
