"""The drafter part of the benchmark: header scan, raw-read floor, numpy / torch baselines and
`Checkpoint.stats()` with and without hashes, timed in interleaved best-of-N rounds on the same
warm files; then the diff phases (`diff_bench.py`)."""

from __future__ import annotations

import functools
import os
from pathlib import Path

import bench_data
import eagle3_inspect
from baselines import numpy_stats, torch_available, torch_stats
from diff_bench import measure_diffs
from floors import floor_ops, readable
from timing import Contention, Op, Row, meminfo_kib, run_interleaved, warm


def agreement(native: dict, reference: dict) -> float:
    """Largest relative difference of mean / std / min / max between two stats results."""
    worst = 0.0
    for name, ref in reference.items():
        got = native[name]
        for key in ("mean", "std", "min", "max"):
            a, b = getattr(got, key), ref[key]
            if a is None or b is None:
                continue
            worst = max(worst, abs(a - b) / max(abs(b), 1e-30))
    return worst


def measure_drafter(args, threads: list[int], report: dict) -> list[Row]:
    n = args.repeats
    path, reused = bench_data.ensure_drafter(args.data / f"drafter-{args.size}", args.size)
    if not reused:
        report["generated"].append(path)
    has_diff = hasattr(eagle3_inspect, "diff")
    copies: dict[str, Path] = {}
    for kind in bench_data.COPIES if has_diff else ():
        directory = args.data / f"{kind}-{args.size}"
        copies[kind], reused_other = bench_data.ensure_perturbed(directory, args.size, kind)
        if not reused_other:
            report["generated"].append(directory)
    bin_path, reused_bin = bench_data.ensure_torch_drafter(
        args.data / f"drafter-bin-{args.size}", args.size
    )
    if not reused_bin:
        report["generated"].append(bin_path)
    ckpt = eagle3_inspect.open(path)
    bin_ckpt = eagle3_inspect.open(bin_path)
    names = readable(ckpt)
    nbytes = sum(ckpt.tensors[x].nbytes for x in names)
    assert readable(bin_ckpt) == names and not any(
        f.code.startswith("PT0") and f.severity.value == "error" for f in bin_ckpt.findings
    )
    files = [f.path for f in ckpt.files] + [f.path for f in bin_ckpt.files]
    sizes = {f: os.path.getsize(f) for f in files + [str(c) for c in copies.values()]}
    mem = meminfo_kib()
    warm_s, warm_b = warm(files)
    fits = sum(sizes.values()) < mem["MemTotal"] * 1024
    print(
        f"checkpoint {path} ({'reused' if reused else 'generated'}): {len(names)} tensors, "
        f"{nbytes / 1e9:.3f} GB of tensor data"
    )
    for f, s in sizes.items():
        print(f"  {f}: {s / 1e9:.3f} GB")
    print(
        f"  total {sum(sizes.values()) / 2**30:.2f} GiB vs RAM {mem['MemTotal'] / 2**20:.1f} GiB "
        f"(available {mem['MemAvailable'] / 2**20:.1f} GiB): {'fits' if fits else 'DOES NOT fit'}"
        f"; each phase warms only its own files (drafter: {warm_b / 1e9:.2f} GB in {warm_s:.1f} s)"
    )
    report["checkpoint"] = {
        "path": str(path),
        "reused": reused,
        "files": sizes,
        "tensor_bytes": nbytes,
        "fits_in_ram": fits,
    }
    ops = [Op("scan", "header scan (open + scan)", None, lambda: scan_path(path), 0)]
    ops.append(
        Op("scan .bin", "header scan, torch .bin twin", None, lambda: scan_path(bin_path), 0)
    )
    ops += floor_ops(ckpt, "", threads)
    # The twin's own floor: the same bytes in other files can sit in the page cache in other
    # folio sizes (one run counted half as many minor faults on the .bin files as on the
    # safetensors ones), so each format is held to a read of its own files.
    ops += floor_ops(bin_ckpt, " (.bin twin)", threads, kept=False)
    for hashes in (False, True):
        for t in threads:
            op = "eagle3-inspect stats" + (" + hashes" if hashes else "")
            fn = functools.partial(ckpt.stats, threads=t, hashes=hashes)
            ops.append(Op(f"{op}:{t}", op, t, fn, nbytes, f"floor:{t}", "numpy"))
    for t in threads:
        # stats over the torch.save twin (zip, stored, 64-byte aligned: zero-copy), in the same
        # interleaved rounds, against a raw read of the twin's own files.
        op = "eagle3-inspect stats, torch .bin twin"
        fn = functools.partial(bin_ckpt.stats, threads=t)
        ops.append(Op(f"{op}:{t}", op, t, fn, nbytes, f"floor (.bin twin):{t}", "numpy"))
    if not has_diff:
        print("note: eagle3_inspect.diff is not available on this build; diff rows skipped")
    with Contention() as busy:
        by_key, results = run_interleaved(ops, n)
    print(f"timed rounds: {busy.describe()}")
    report["contention"] = {"wall_s": busy.wall, "other_cpu_s": busy.others}

    numpy_op = "numpy+ml_dtypes stats (f32 chunks, f64 sums)"
    base_ops = [Op("numpy", numpy_op, 1, lambda: numpy_stats(ckpt, names), nbytes)]
    if torch_available():
        torch_op = "torch stats (f32 chunks, f64 sums)"
        base_ops.append(Op("torch", torch_op, None, lambda: torch_stats(ckpt, names), nbytes))
        base_ops[-1].numpy_key = "numpy"
    else:
        print("note: torch is not importable; the torch baseline is skipped (not installed)")
    base_rows, base_results = run_interleaved(base_ops, 1)
    by_key.update(base_rows)
    ref = base_results["numpy"]
    worst = {t: agreement(results[f"eagle3-inspect stats:{t}"], ref) for t in threads}
    report["stats_vs_numpy_max_rel_diff"] = worst
    print(
        f"stats agree with numpy: max relative difference of mean/std/min/max "
        f"{max(worst.values()):.2e}"
    )
    order = measure_diffs(path, copies, threads, n, by_key, report) if has_diff else []
    own_floors = [
        k
        for k in by_key
        if k.startswith(("floor:", "floor (pages kept mapped):", "floor (.bin twin):"))
    ]
    head = ["scan", "scan .bin", *own_floors, *(k for k in ("numpy", "torch") if k in by_key)]
    head += [k for k in by_key if k.startswith("eagle3-inspect")]
    report["_by_key"] = by_key
    return [by_key[k] for k in head + order]


def scan_path(path: Path):
    return eagle3_inspect.scan(eagle3_inspect.open(path))
