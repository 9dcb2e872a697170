"""The many-small-tensors case: one safetensors file whose header names N tiny tensors (1,000,000 by
default), timed and measured (wall seconds, CPU seconds, peak RSS of the process) for the reference
`safetensors.safe_open` + `keys()` and for `scan --json`, `validate --json` and
`scan --json --stats`, each in a fresh process, with the ratios to the reference.

    python benchmarks/many_tensors.py [--tensors N] [--data DIR] [--keep] [--json FILE]

`bench.py --many-tensors N` runs the same measurement after its other sections.
"""

from __future__ import annotations

import argparse
import json
import os
import struct
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

# Each tensor: F32 [2, 2], 16 bytes. Names look like a deep model's.
SHAPE = (2, 2)
NBYTES = 16

REFERENCE = (
    "import sys; from safetensors import safe_open\n"
    "with safe_open(sys.argv[1], 'np') as f: print(len(list(f.keys())))"
)


def write_file(path: Path, n: int) -> Path:
    """Writes the N-tensor file (header built as text: fast even for millions of entries)."""
    parts = ['{"__metadata__":{"format":"pt"}']
    for i in range(n):
        start = i * NBYTES
        parts.append(
            f',"model.layers.{i // 1000}.block.{i % 1000}.weight":'
            f'{{"dtype":"F32","shape":[2,2],"data_offsets":[{start},{start + NBYTES}]}}'
        )
    parts.append("}")
    header = "".join(parts).encode()
    header += b" " * (-len(header) % 8)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(header)))
        f.write(header)
        f.write(bytes(n * NBYTES))
    return path


def measure(argv: list[str]) -> dict[str, float]:
    """Wall seconds, CPU seconds (user + system, all threads) and peak RSS (bytes) of one child
    process; its output is discarded. On a loaded machine the CPU time is the steadier figure."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    stderr = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        raise RuntimeError(f"{argv} exited {code}: {stderr[-500:]}")
    return {
        "seconds": seconds,
        "cpu_seconds": usage.ru_utime + usage.ru_stime,
        "peak_rss_bytes": usage.ru_maxrss * 1024,
        "exit": code,
    }


def commands(path: Path) -> dict[str, list[str]]:
    cli = [sys.executable, "-m", "eagle3_inspect"]
    return {
        "reference safe_open + keys": [sys.executable, "-c", REFERENCE, str(path)],
        "scan --json": [*cli, "scan", str(path), "--json"],
        "validate --json": [*cli, "validate", str(path), "--json"],
        "scan --json --stats": [*cli, "scan", str(path), "--json", "--stats"],
    }


def measure_many(path: Path) -> dict[str, Any]:
    """Every command once (a fresh process each), in order, with ratios to the reference."""
    results = {name: measure(argv) for name, argv in commands(path).items()}
    ref = results["reference safe_open + keys"]
    for row in results.values():
        row["time_vs_reference"] = row["seconds"] / ref["seconds"]
        row["cpu_vs_reference"] = row["cpu_seconds"] / ref["cpu_seconds"]
        row["rss_vs_reference"] = row["peak_rss_bytes"] / ref["peak_rss_bytes"]
    return results


def format_rows(n: int, results: dict[str, Any]) -> str:
    lines = [
        f"{n:,} tensors of F32 {list(SHAPE)}, one file",
        f"{'command':<28} {'seconds':>8} {'CPU s':>7} {'peak RSS MB':>12} {'time x':>7} "
        f"{'CPU x':>6} {'RSS x':>6}",
    ]
    for name, r in results.items():
        lines.append(
            f"{name:<28} {r['seconds']:>8.2f} {r['cpu_seconds']:>7.2f} "
            f"{r['peak_rss_bytes'] / 1e6:>12.0f} {r['time_vs_reference']:>7.2f} "
            f"{r['cpu_vs_reference']:>6.2f} {r['rss_vs_reference']:>6.2f}"
        )
    return "\n".join(lines)


def run(n: int, data: Path, keep: bool) -> dict[str, Any]:
    path = data / f"many-{n}.safetensors"
    if not path.exists():
        t = time.perf_counter()
        write_file(path, n)
        print(
            f"wrote {path} ({path.stat().st_size / 1e6:.0f} MB) in {time.perf_counter() - t:.1f} s"
        )
    try:
        results = measure_many(path)
    finally:
        if not keep:
            path.unlink(missing_ok=True)
    print(format_rows(n, results))
    return {"tensors": n, "results": results}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--tensors", type=int, default=1_000_000)
    p.add_argument("--data", type=Path, default=Path("bench-data"))
    p.add_argument("--keep", action="store_true", help="keep the generated file")
    p.add_argument("--json", type=Path, help="also write the numbers as JSON to this file")
    args = p.parse_args(argv)
    report = run(args.tensors, args.data, args.keep)
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
