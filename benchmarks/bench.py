"""eagle3-inspect benchmark: stats, hashes, header scan and diff against the raw-read floor and a
numpy baseline, and fix next to a plain copy, on one generated drafter-sized checkpoint, plus a
200+ GB sparse checkpoint.

    python benchmarks/bench.py [--data DIR] [--size full|small] [--keep] [--sparse-stats]
                               [--repeats N] [--many-tensors N] [--json FILE]
    python benchmarks/bench.py --startup [--repeats N] [--json FILE]   (CLI start-up only)

See benchmarks/README.md for what each number means.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import numpy as np

import bench_data
import eagle3_inspect
import many_tensors
from drafter_bench import measure_drafter
from fix_bench import measure_fix
from sparse_bench import measure_sparse
from timing import Row, format_table, ratio_vs, uptime


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--data", type=Path, default=Path("bench-data"), help="data dir (./bench-data)")
    p.add_argument("--size", choices=sorted(bench_data.SIZES), default="full")
    p.add_argument("--keep", action="store_true", help="keep generated files for the next run")
    p.add_argument("--repeats", type=int, default=3, help="best-of-N for the fast operations")
    p.add_argument("--threads", default="1,2", help="thread counts to measure (1,2)")
    p.add_argument("--sparse-gb", type=float, default=200.0, help="sparse checkpoint size, GB")
    p.add_argument("--sparse-stats", action="store_true", help="run stats over the sparse file")
    p.add_argument(
        "--many-tensors",
        type=int,
        default=0,
        metavar="N",
        help="also time scan/validate/scan --stats on a header of N tiny tensors (1000000)\n"
        "against safetensors.safe_open + keys (see many_tensors.py)",
    )
    p.add_argument("--json", type=Path, help="also write the numbers as JSON to this file")
    p.add_argument(
        "--startup", action="store_true", help="only the CLI start-up times (startup.py)"
    )
    return p.parse_args(argv)


def targets(by_key: dict[str, Row], report: dict[str, Any]) -> dict[str, Any]:
    """Issue 3's and issue 26's targets, checked and printed: stats at 2 threads >= 0.8x the
    floor and >= 20x numpy; stats + hashes >= 0.7x the floor; diff against the
    everywhere-changed copy >= 0.7x the floor of reading both; fix >= 0.8x a plain copy; peak
    anonymous memory of a stats pass < 256 MB."""
    out: dict[str, Any] = {}
    for key, name in (
        ("stats_2t", "eagle3-inspect stats:2"),
        ("hashes_2t", "eagle3-inspect stats + hashes:2"),
        ("diff_everywhere_2t", "diff vs everywhere-perturbed copy:2"),
        ("fix", "fix"),
    ):
        row = by_key.get(name)
        if row is not None:
            out[key + "_vs_floor"] = ratio_vs(row, by_key, row.floor_key)
    stats = by_key.get("eagle3-inspect stats:2")
    if stats is not None:
        out["stats_2t_vs_numpy"] = ratio_vs(stats, by_key, stats.numpy_key)
    peaks = [m["peak_rss_anon_kib"] * 1024 for m in report.get("memory", {}).values()]
    if peaks:
        out["peak_rss_anon_bytes"] = max(peaks)
    checks = (
        ("stats_2t_vs_floor", ">=", 0.8, "stats (2 threads) vs floor"),
        ("stats_2t_vs_numpy", ">=", 20.0, "stats (2 threads) vs numpy"),
        ("hashes_2t_vs_floor", ">=", 0.7, "stats + hashes (2 threads) vs floor"),
        ("diff_everywhere_2t_vs_floor", ">=", 0.7, "diff everywhere-changed (2 threads) vs floor"),
        ("fix_vs_floor", ">=", 0.8, "fix (plan + write + verify) vs plain copy"),
        ("peak_rss_anon_bytes", "<", 256e6, "peak RssAnon of a data pass, bytes"),
    )
    for key, op, want, label in checks:
        if out.get(key) is None:
            continue
        ok = out[key] >= want if op == ">=" else out[key] < want
        out[key + "_met"] = ok
        print(f"target {label}: {out[key]:.4g} (want {op} {want:g}): {'met' if ok else 'MISSED'}")
    return out


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.startup:
        import startup

        extra = ["--json", str(args.json)] if args.json else []
        return startup.main(["--repeats", str(max(args.repeats, 30)), *extra])
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
        fix_keys, fix_rows = measure_fix(
            Path(report["checkpoint"]["path"]), args.data, args.repeats, report
        )
        by_key.update(fix_keys)
        rows += fix_rows
        rows += measure_sparse(args, args.repeats, report)
    finally:
        generated = report.pop("generated")
        if not args.keep:
            for directory in generated:
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
            "cpu_seconds": r.cpu_seconds,
            "vs_floor": ratio_vs(r, by_key, r.floor_key),
            "vs_numpy": ratio_vs(r, by_key, r.numpy_key),
            **r.extra,
        }
        for r in rows
    ]
    report["targets"] = targets(by_key, report)
    if args.many_tensors:
        print()
        report["many_tensors"] = many_tensors.run(args.many_tensors, args.data, args.keep)
    if args.json:
        args.json.write_text(json.dumps(report, indent=2, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
