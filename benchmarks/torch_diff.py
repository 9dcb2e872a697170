"""The torch baseline of the diff benchmark, run as a subprocess by `diff_baselines.torch_diff`
with an interpreter that has torch and safetensors (this package is not needed).

Reads `{"pairs": [{"name", "a", "b", "tol": [rtol, atol]}], "chunk_bytes": N}` on stdin and
prints `{"seconds": s, "threads": t, "pairs": {name: metrics}}`: per pair, through
`safetensors.safe_open(framework="pt")` and row slices of about `chunk_bytes`, what
`torch.isclose` / `torch.allclose` decide plus the largest and mean |a - b|, rel L2 and cosine
(float32 values, float64 sums), as `diff_baselines.numpy_pair` computes them.
"""

from __future__ import annotations

import json
import math
import sys
import time


def pair_metrics(fa, fb, name: str, tol: tuple[float, float], chunk_bytes: int) -> dict:
    import torch

    sa, sb = fa.get_slice(name), fb.get_slice(name)
    shape = sa.get_shape()
    rows = shape[0] if shape else 1
    row_elems = max(1, math.prod(shape[1:])) if shape else 1
    step = max(1, chunk_bytes // (2 * row_elems))
    rtol, atol = tol
    acc = {"n": 0, "max_abs": 0.0, "at": 0, "sum_abs": 0.0, "bad": 0}
    acc |= dict.fromkeys(("sq_d", "sq_a", "sq_b", "dot"), 0.0)
    for start in range(0, rows, step):
        if shape:
            a = sa[start : start + step].reshape(-1).to(torch.float32)
            b = sb[start : start + step].reshape(-1).to(torch.float32)
        else:
            a, b = fa.get_tensor(name).reshape(-1).float(), fb.get_tensor(name).reshape(-1).float()
        d = (a - b).abs_()
        i = int(d.argmax())
        if float(d[i]) > acc["max_abs"]:
            acc["max_abs"], acc["at"] = float(d[i]), start * row_elems + i
        acc["n"] += a.numel()
        acc["sum_abs"] += float(d.sum(dtype=torch.float64))
        acc["bad"] += int((~torch.isclose(a, b, rtol=rtol, atol=atol)).sum())
        a64, b64, d64 = a.double(), b.double(), d.double()
        acc["sq_d"] += float(torch.dot(d64, d64))
        acc["sq_a"] += float(torch.dot(a64, a64))
        acc["sq_b"] += float(torch.dot(b64, b64))
        acc["dot"] += float(torch.dot(a64, b64))
    n = max(acc["n"], 1)
    na, nb = math.sqrt(acc["sq_a"]), math.sqrt(acc["sq_b"])
    return {
        "max_abs": acc["max_abs"],
        "max_abs_index": acc["at"] if acc["max_abs"] > 0 else None,
        "mean_abs": acc["sum_abs"] / n,
        "mismatched": acc["bad"],
        "rel_l2": math.sqrt(acc["sq_d"]) / na if na > 0 else None,
        "cosine": acc["dot"] / (na * nb) if na > 0 and nb > 0 else None,
        "allclose": acc["bad"] == 0,
    }


def main() -> int:
    request = json.load(sys.stdin)
    import torch
    from safetensors import safe_open

    start = time.perf_counter()
    handles: dict[str, object] = {}

    def opened(path: str):
        if path not in handles:
            handles[path] = safe_open(path, framework="pt")
        return handles[path]

    out = {}
    for p in request["pairs"]:
        fa, fb = opened(p["a"]), opened(p["b"])
        out[p["name"]] = pair_metrics(fa, fb, p["name"], tuple(p["tol"]), request["chunk_bytes"])
    seconds = time.perf_counter() - start
    print(json.dumps({"seconds": seconds, "threads": torch.get_num_threads(), "pairs": out}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
