"""eagle3-inspect benchmark: stats, hashes, header scan and diff against the raw-read floor and a
numpy baseline, on one generated drafter-sized checkpoint, plus a 200+ GB sparse checkpoint.

    python benchmarks/bench.py [--data DIR] [--size full|small] [--keep] [--sparse-stats]
                               [--repeats N] [--json FILE]

See benchmarks/README.md for what each number means.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np

import bench_data
import eagle3_inspect
from baselines import numpy_stats, torch_available, torch_stats
from eagle3_inspect import _native
from timing import Row, best_of, format_table, meminfo_kib, ratio_vs, uptime, warm

HERE = Path(__file__).resolve().parent


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--data", type=Path, default=Path("bench-data"), help="data dir (./bench-data)")
    p.add_argument("--size", choices=sorted(bench_data.SIZES), default="full")
    p.add_argument("--keep", action="store_true", help="keep generated files for the next run")
    p.add_argument("--repeats", type=int, default=3, help="best-of-N for the fast operations")
    p.add_argument("--threads", default="1,2", help="thread counts to measure (1,2)")
    p.add_argument("--sparse-gb", type=float, default=200.0, help="sparse checkpoint size, GB")
    p.add_argument("--sparse-stats", action="store_true", help="run stats over the sparse file")
    p.add_argument("--json", type=Path, help="also write the numbers as JSON to this file")
    return p.parse_args(argv)


def readable(ckpt: eagle3_inspect.Checkpoint) -> list[str]:
    return [n for n in ckpt.tensors if n not in ckpt.unreadable]


def floor_rows(ckpt, label: str, threads: list[int], n: int, by_key: dict) -> list[Row]:
    names = readable(ckpt)
    nbytes = sum(ckpt.tensors[x].nbytes for x in names)
    rows = []
    for t in threads:
        for release, suffix in ((True, ""), (False, " (pages kept mapped)")):
            secs, _ = best_of(
                lambda t=t, r=release: _native.sum_words(
                    ckpt._native, names, threads=t, release_pages=r
                ),
                n,
            )
            row = Row(f"raw-read floor{label}{suffix}", t, secs, nbytes, n)
            rows.append(row)
            by_key.setdefault(f"floor{label}{suffix}:{t}", row)
    return rows


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
    other = None
    if has_diff:
        directory = args.data / f"perturbed-{args.size}"
        other, reused_other = bench_data.ensure_perturbed(directory, args.size)
        if not reused_other:
            report["generated"].append(directory)
    ckpt = eagle3_inspect.open(path)
    names = readable(ckpt)
    nbytes = sum(ckpt.tensors[x].nbytes for x in names)
    files = [f.path for f in ckpt.files] + ([str(other)] if other else [])
    sizes = {f: os.path.getsize(f) for f in files}
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
        f"; warm-up read {warm_b / 1e9:.2f} GB in {warm_s:.1f} s"
    )
    report["checkpoint"] = {
        "path": str(path),
        "reused": reused,
        "files": sizes,
        "tensor_bytes": nbytes,
        "fits_in_ram": fits,
    }
    by_key: dict[str, Row] = {}
    rows: list[Row] = []
    secs, _ = best_of(lambda: eagle3_inspect.scan(eagle3_inspect.open(path)), n)
    rows.append(Row("header scan (open + scan)", None, secs, 0, n))
    rows += floor_rows(ckpt, "", threads, n, by_key)

    secs, ref = best_of(lambda: numpy_stats(ckpt, names), 1)
    by_key["numpy"] = Row("numpy+ml_dtypes stats (f32 chunks, f64 sums)", 1, secs, nbytes, 1)
    rows.append(by_key["numpy"])
    if torch_available():
        secs, _ = best_of(lambda: torch_stats(ckpt, names), 1)
        rows.append(Row("torch stats", None, secs, nbytes, 1, numpy_key="numpy"))
    else:
        print("note: torch is not importable; the torch baseline is skipped (not installed)")
    for hashes in (False, True):
        for t in threads:
            secs, got = best_of(lambda t=t, h=hashes: ckpt.stats(threads=t, hashes=h), n)
            op = "eagle3-inspect stats" + (" + hashes" if hashes else "")
            rows.append(Row(op, t, secs, nbytes, n, f"floor:{t}", "numpy"))
            if not hashes:
                report.setdefault("stats_vs_numpy_max_rel_diff", {})[t] = agreement(got, ref)
    print(
        f"stats agree with numpy: max relative difference of mean/std/min/max "
        f"{max(report['stats_vs_numpy_max_rel_diff'].values()):.2e}"
    )
    if has_diff:
        rows += measure_diff(path, other, ckpt, threads, n, by_key)
    else:
        print("note: eagle3_inspect.diff is not available on this build; diff rows skipped")
    report["_by_key"] = by_key
    return rows


def measure_diff(path, other, ckpt, threads: list[int], n: int, by_key: dict) -> list[Row]:
    other_ckpt = eagle3_inspect.open(other)
    a_bytes = sum(ckpt.tensors[x].nbytes for x in readable(ckpt))
    b_bytes = sum(other_ckpt.tensors[x].nbytes for x in readable(other_ckpt))
    rows: list[Row] = []
    floor_rows(other_ckpt, " (perturbed copy)", threads, n, by_key)
    for t in threads:
        fa, fb = by_key[f"floor:{t}"], by_key[f"floor (perturbed copy):{t}"]
        by_key[f"floor2:{t}"] = Row("floor A+B", t, fa.seconds + fb.seconds, a_bytes + b_bytes, n)
        by_key[f"floor2self:{t}"] = Row("floor A+A", t, 2 * fa.seconds, 2 * a_bytes, n)
        rows += [by_key[f"floor2:{t}"]]
        for b, label, key in ((other, "perturbed copy", "floor2"), (path, "itself", "floor2self")):
            secs, res = best_of(lambda t=t, b=b: eagle3_inspect.diff(path, b, threads=t), n)
            nb = a_bytes + (b_bytes if b == other else a_bytes)
            extra = {"changed": len(getattr(res, "changed", []) or [])}
            rows.append(Row(f"diff vs {label}", t, secs, nb, n, f"{key}:{t}", extra=extra))
    return rows


def measure_sparse(args, n: int, report: dict) -> list[Row]:
    directory = args.data / "sparse"
    specs = bench_data.sparse_specs(args.sparse_gb)
    big, tiny = directory / "sparse.safetensors", directory / "tiny-twin.safetensors"
    size = bench_data.write_sparse(big, specs)
    bench_data.write_tiny_twin(tiny, specs)
    blocks = os.stat(big).st_blocks * 512
    print(
        f"sparse checkpoint {big}: {len(specs)} tensors, declares {size / 1e9:.1f} GB, "
        f"allocated on disk {blocks / 1024:.0f} KiB (st_blocks)"
    )
    rows = []
    for label, p in (("sparse 200+ GB", big), ("tiny twin, same names", tiny)):
        secs, _ = best_of(lambda p=p: eagle3_inspect.scan(eagle3_inspect.open(p)), n)
        rows.append(Row(f"header scan ({label})", None, secs, 0, n))
    report["sparse"] = {"declared_bytes": size, "tensors": len(specs), "disk_bytes": blocks}
    probes = [("drafter", args.data / f"drafter-{args.size}")]
    if args.sparse_stats:
        probes.append(("sparse", big))
    for label, p in probes:
        cmd = [sys.executable, str(HERE / "memprobe.py"), str(p), "--threads", "2"]
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed:\n{done.stderr}")
        out = json.loads(done.stdout)
        report.setdefault("memory", {})[label] = out
        peak = out["peak_rss_anon_kib"] / 1024
        base = out["before_kib"]["RssAnon"] / 1024
        print(
            f"stats over {label} in a child: {out['bytes'] / 1e9:.1f} GB in "
            f"{out['seconds']:.1f} s; RssAnon before {base:.0f} MiB, peak {peak:.0f} MiB "
            f"({out['samples']} samples), VmHWM {out['after_kib']['VmHWM'] / 1024:.0f} MiB "
            f"(incl. file pages); target < 256 MiB: {'met' if peak < 256 else 'MISSED'}"
        )
        if label == "sparse":
            rows.append(Row("stats over sparse (child)", 2, out["seconds"], out["bytes"], 1))
    if args.sparse_stats:
        after = os.stat(big).st_blocks * 512
        print(f"  sparse file still allocates {after / 1024:.0f} KiB on disk after the pass")
    else:
        print("note: stats over the sparse file skipped (pass --sparse-stats to run it)")
    return rows


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    threads = [int(t) for t in args.threads.split(",")]
    report: dict[str, Any] = {"uptime_start": uptime(), "size": args.size, "repeats": args.repeats}
    print(
        f"eagle3-inspect {eagle3_inspect.__version__}, numpy {np.__version__}, "
        f"{os.cpu_count()} CPUs\nload at start: {report['uptime_start']}"
    )
    report["generated"] = [args.data / "sparse"]
    try:
        rows = measure_drafter(args, threads, report)
        by_key = report.pop("_by_key")
        rows += measure_sparse(args, args.repeats, report)
    finally:
        if not args.keep:
            for directory in report.pop("generated"):
                shutil.rmtree(directory, ignore_errors=True)
            if args.data.is_dir() and not any(args.data.iterdir()):
                args.data.rmdir()
    report["uptime_end"] = uptime()
    print(
        f"\nbest of N (N shown per row); GB = 1e9 bytes; vs floor/numpy = throughput ratio\n"
        f"{format_table(rows, by_key)}\nload at end: {report['uptime_end']}"
    )
    report["rows"] = [
        {
            "operation": r.operation,
            "threads": r.threads,
            "repeats": r.repeats,
            "seconds": r.seconds,
            "bytes": r.nbytes,
            "gb_per_s": r.gb_per_s if r.nbytes else None,
            "vs_floor": ratio_vs(r, by_key, r.floor_key),
            "vs_numpy": ratio_vs(r, by_key, r.numpy_key),
            **r.extra,
        }
        for r in rows
    ]
    if args.json:
        args.json.write_text(json.dumps(report, indent=2, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
