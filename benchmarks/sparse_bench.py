"""The sparse part of the benchmark: a 200+ GB checkpoint whose data is a hole, its header-scan
time beside a tiny file with the same names, and `stats()` passes in a child process that reports
peak anonymous memory (memprobe.py)."""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import bench_data
from drafter_bench import scan_path
from timing import Op, Row, cpu_seconds, machine_busy_seconds, run_interleaved

HERE = Path(__file__).resolve().parent


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
    ops = [
        Op(label, f"header scan ({label})", None, functools.partial(scan_path, p), 0)
        for label, p in (("sparse 200+ GB", big), ("tiny twin, same names", tiny))
    ]
    rows = list(run_interleaved(ops, n)[0].values())
    report["sparse"] = {"declared_bytes": size, "tensors": len(specs), "disk_bytes": blocks}
    drafter = args.data / f"drafter-{args.size}"
    probes: list[tuple[str, Path, list[str]]] = [("drafter", drafter, [])]
    everywhere = args.data / f"everywhere-{args.size}" / "model.safetensors"
    if everywhere.exists():
        probes.append(("drafter diff vs everywhere copy", drafter, ["--diff", str(everywhere)]))
    fix_out = args.data / "fix-out"
    probes.append(("drafter fix", drafter, ["--fix", str(fix_out)]))
    if args.sparse_stats:
        probes.append(("sparse", big, []))
    for label, p, extra in probes:
        cmd = [sys.executable, str(HERE / "memprobe.py"), str(p), "--threads", "2", *extra]
        busy, own = machine_busy_seconds(), cpu_seconds()
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed:\n{done.stderr}")
        out = json.loads(done.stdout)
        # cpu_seconds() counts the waited-for child whole (imports and open too).
        busy = machine_busy_seconds() - busy - (cpu_seconds() - own)
        out["other_cpu_s_at_most"] = max(0.0, busy)
        report.setdefault("memory", {})[label] = out
        peak = out["peak_rss_anon_kib"] / 1024
        base = out["before_kib"]["RssAnon"] / 1024
        what = "stats over " + label if not extra else label
        print(
            f"{what} in a child: {out['bytes'] / 1e9:.1f} GB in "
            f"{out['seconds']:.1f} s; RssAnon before {base:.0f} MiB, peak {peak:.0f} MiB "
            f"({out['samples']} samples), VmHWM {out['after_kib']['VmHWM'] / 1024:.0f} MiB "
            f"(incl. file pages); target < 256 MiB: {'met' if peak < 256 else 'MISSED'}; "
            f"other processes used at most {out['other_cpu_s_at_most']:.1f} CPU-seconds meanwhile"
        )
        if label == "sparse":
            row = Row("stats over sparse (child)", 2, out["seconds"], out["bytes"], 1)
            row.cpu_seconds = out["cpu_seconds"]
            rows.append(row)
    shutil.rmtree(fix_out, ignore_errors=True)
    if args.sparse_stats:
        after = os.stat(big).st_blocks * 512
        print(f"  sparse file still allocates {after / 1024:.0f} KiB on disk after the pass")
    else:
        print("note: stats over the sparse file skipped (pass --sparse-stats to run it)")
    return rows
