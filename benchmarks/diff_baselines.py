"""Reference numeric diffs the native `diff` is compared with, on the same pair in the same run:
numpy + ml_dtypes (in this process) and torch + safetensors (`torch_diff.py`, run as a subprocess
with an interpreter that has torch, e.g. the producers' venv).

Both compute, per matched tensor pair, what a careful user would write instead of this tool: the
largest |a - b| and its first flat index, the mean |a - b|, the mismatch count of
`|a - b| > atol + rtol * |b|` (torch.isclose / torch.allclose's rule, the same default
tolerances), ||a - b|| / ||a|| and the cosine, chunk by chunk (64 MB of each side at a time,
converted to float32 into reused buffers, the sums of squares in float64) so memory stays
bounded. The data is finite, so NaN handling is left out.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import numpy as np

from eagle3_inspect.reader.checkpoint import Checkpoint

CHUNK_BYTES = 64 << 20
HERE = Path(__file__).resolve().parent
# torch.testing.assert_close's defaults (and this tool's) per dtype; integers and BOOL exact.
TOLERANCE = {"BF16": (1.6e-2, 1e-5), "F16": (1e-3, 1e-5), "F32": (1.3e-6, 1e-5)}


def tolerance(dtype: str) -> tuple[float, float]:
    return TOLERANCE.get(dtype, (0.0, 0.0))


def _finish(acc: dict[str, Any]) -> dict[str, Any]:
    n = max(acc["n"], 1)
    norm_a, norm_b = math.sqrt(acc["sq_a"]), math.sqrt(acc["sq_b"])
    return {
        "max_abs": acc["max_abs"],
        "max_abs_index": acc["at"] if acc["max_abs"] > 0 else None,
        "mean_abs": acc["sum_abs"] / n,
        "mismatched": acc["bad"],
        "rel_l2": math.sqrt(acc["sq_d"]) / norm_a if norm_a > 0 else None,
        "cosine": acc["dot"] / (norm_a * norm_b) if norm_a > 0 and norm_b > 0 else None,
    }


def _empty() -> dict[str, Any]:
    return {"n": 0, "max_abs": 0.0, "at": 0, "sum_abs": 0.0, "bad": 0} | dict.fromkeys(
        ("sq_d", "sq_a", "sq_b", "dot"), 0.0
    )


def numpy_pair(a: np.ndarray, b: np.ndarray, tol: tuple[float, float], bufs: dict) -> dict:
    """The metrics of one pair of arrays (any numpy / ml_dtypes dtype), chunk by chunk."""
    fa, fb = a.reshape(-1), b.reshape(-1)
    per = max(1, CHUNK_BYTES // max(1, fa.dtype.itemsize))
    rtol, atol = tol
    acc = _empty()
    for start in range(0, fa.size, per):
        ca, cb = fa[start : start + per], fb[start : start + per]
        k = ca.size
        xa, xb, d, t = (bufs[key][:k] for key in ("a", "b", "d", "t"))
        np.copyto(xa, ca, casting="unsafe")
        np.copyto(xb, cb, casting="unsafe")
        np.subtract(xa, xb, out=d)
        np.abs(d, out=d)
        i = int(d.argmax())
        if float(d[i]) > acc["max_abs"]:
            acc["max_abs"], acc["at"] = float(d[i]), start + i
        acc["n"] += k
        acc["sum_abs"] += float(d.sum(dtype=np.float64))
        np.abs(xb, out=t)
        t *= rtol
        t += atol
        acc["bad"] += int(np.count_nonzero(d > t))
        a64, b64, d64 = bufs["a64"][:k], bufs["b64"][:k], bufs["d64"][:k]
        np.copyto(a64, xa)
        np.copyto(b64, xb)
        np.copyto(d64, d)
        acc["sq_d"] += float(np.dot(d64, d64))
        acc["sq_a"] += float(np.dot(a64, a64))
        acc["sq_b"] += float(np.dot(b64, b64))
        acc["dot"] += float(np.dot(a64, b64))
    return _finish(acc)


def numpy_diff(a: Checkpoint, b: Checkpoint, names: list[str]) -> dict[str, dict]:
    """The numpy baseline over tensors `names` present in both checkpoints."""
    elems = CHUNK_BYTES // 2
    bufs = {k: np.empty(elems, dtype=np.float32) for k in ("a", "b", "d", "t")}
    bufs |= {k: np.empty(elems, dtype=np.float64) for k in ("a64", "b64", "d64")}
    return {
        n: numpy_pair(a.tensor(n), b.tensor(n), tolerance(a.tensors[n].dtype), bufs) for n in names
    }


def torch_python() -> str | None:
    """An interpreter with torch and safetensors: $BENCH_TORCH_PYTHON, else the producers'
    venv when it exists; None when neither is there."""
    candidates = [os.environ.get("BENCH_TORCH_PYTHON"), "/work/venvs/producers/bin/python"]
    return next((c for c in candidates if c and Path(c).is_file()), None)


def torch_diff(python: str, a: Checkpoint, b: Checkpoint, names: list[str]) -> dict[str, Any]:
    """Runs `torch_diff.py` under `python` on the pairs; returns its JSON (the metrics per
    pair and `seconds`, timed inside the child after its imports) plus `wall` (the whole child)."""
    pairs = [
        {
            "name": n,
            "a": a.tensors[n].file,
            "b": b.tensors[n].file,
            "tol": tolerance(a.tensors[n].dtype),
        }
        for n in names
    ]
    start = time.perf_counter()
    done = subprocess.run(
        [python, str(HERE / "torch_diff.py")],
        input=json.dumps({"pairs": pairs, "chunk_bytes": CHUNK_BYTES}),
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"torch_diff.py failed:\n{done.stderr}")
    out = json.loads(done.stdout)
    out["wall"] = wall
    return out


def diff_agreement(native: Any, reference: dict[str, dict]) -> dict[str, float]:
    """How a native DiffReport's pairs compare with a baseline's: mismatch counts that differ
    (in float32 the bound rounds differently at a few boundary places), and the largest relative
    difference of max_abs, mean_abs, rel_l2 and cosine."""
    by_name = {p.name: p.metrics or {} for p in native.pairs}
    worst, counts = 0.0, 0
    for name, ref in reference.items():
        got = by_name.get(name, {})
        counts += abs((got.get("mismatched") or 0) - ref["mismatched"])
        for key in ("max_abs", "mean_abs", "rel_l2", "cosine"):
            x, y = got.get(key), ref[key]
            if x is None or y is None:
                continue
            worst = max(worst, abs(x - y) / max(abs(y), 1e-30))
    return {"max_rel_diff": worst, "mismatch_count_difference": counts}
