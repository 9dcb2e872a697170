"""Big indexes: what a 1,000,000-entry `model.safetensors.index.json` costs each command, against
reading the same index with Python's `json.load` (a fresh process each, best of `--rounds`,
interleaved; wall seconds, CPU seconds and peak RSS, with the ratios). Issue 22's target: within
2x of `json.load`. Three checkpoints:

- `lacking`: every entry puts its tensor in the one shard, which holds only the first (issue
  22's case: 51 s and 1.67 GB in scan on main, a million IX002 findings);
- `missing`: the entries spread over 16,000 shards that do not exist (and the one that does);
- `valid`: a real 1,000,000-tensor shard and the index naming every tensor in it; the row
  `scan --json FILE` (the shard alone, no index) shows what the index itself adds. (No diff
  row here: a structure diff of two million-tensor checkpoints is a diff benchmark, and took
  over 25 minutes on the loaded machine.)

    python benchmarks/index_reconcile.py [--entries N] [--rounds R] [--cases lacking,missing,valid]
                                         [--data DIR] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import struct
import sys
import tempfile
from pathlib import Path
from typing import Any

from many_tensors import measure, write_file

INDEX = "model.safetensors.index.json"
JSON_LOAD = "import json, sys; json.load(open(sys.argv[1]))"
_HEADER = b'{"t0":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}'
# The shard of `lacking` and `missing`: F32 [1] named t0, holding 1.0.
ONE_TENSOR = struct.pack("<Q", len(_HEADER)) + _HEADER + struct.pack("<f", 1.0)


def write_index(root: Path, weight_map: dict[str, str]) -> Path:
    index = root / INDEX
    index.write_text(json.dumps({"metadata": {"total_size": 4}, "weight_map": weight_map}))
    return index


def lacking(root: Path, n: int) -> Path:
    (root / "model.safetensors").write_bytes(ONE_TENSOR)
    write_index(root, {f"t{i}": "model.safetensors" for i in range(n)})
    return root


def missing(root: Path, n: int) -> Path:
    (root / "model-present.safetensors").write_bytes(ONE_TENSOR)
    weight_map = {"t0": "model-present.safetensors"}
    weight_map |= {f"t{i}": f"model-{i % 16_000:05d}.safetensors" for i in range(1, n)}
    write_index(root, weight_map)
    return root


def valid(root: Path, n: int) -> Path:
    shard = write_file(root / "model.safetensors", n)
    names = [
        f"model.layers.{i // 1000}.block.{i % 1000}.weight" for i in range(n)
    ]  # as write_file names them
    write_index(root, dict.fromkeys(names, shard.name))
    return root


def commands(root: Path) -> dict[str, list[str]]:
    cli = [sys.executable, "-m", "eagle3_inspect"]
    rows = {
        "json.load(index)": [sys.executable, "-c", JSON_LOAD, str(root / INDEX)],
        "scan --json": [*cli, "scan", str(root), "--json"],
        "validate --json": [*cli, "validate", str(root), "--json", "--no-stats"],
    }
    shard = root / "model.safetensors"
    if shard.exists() and shard.stat().st_size > len(ONE_TENSOR):
        rows["scan --json FILE (no index)"] = [*cli, "scan", str(shard), "--json"]
        rows["validate --json FILE (no index)"] = [*cli, "validate", str(shard), "--json"]
        rows["validate --json FILE (no index)"].append("--no-stats")
    else:
        rows["diff --structure-only"] = [*cli, "diff", str(root), str(root), "--structure-only"]
        rows["diff --structure-only"].append("--json")
    return rows


def best_of(root: Path, rounds: int) -> dict[str, dict[str, float]]:
    """Each command `rounds` times, interleaved; the fastest run of each."""
    best: dict[str, dict[str, float]] = {}
    for _ in range(rounds):
        for name, argv in commands(root).items():
            run = measure(argv)
            if name not in best or run["seconds"] < best[name]["seconds"]:
                best[name] = run
    ref = best["json.load(index)"]
    for row in best.values():
        row["time_vs_json_load"] = row["seconds"] / ref["seconds"]
        row["cpu_vs_json_load"] = row["cpu_seconds"] / ref["cpu_seconds"]
        row["rss_vs_json_load"] = row["peak_rss_bytes"] / ref["peak_rss_bytes"]
    return best


def table(case: str, size: int, rows: dict[str, dict[str, float]]) -> str:
    lines = [
        f"{case}: index {size / 1e6:.1f} MB",
        f"  {'command':<30} {'seconds':>8} {'CPU s':>7} {'peak MB':>8} {'time x':>7} {'CPU x':>6}"
        f" {'RSS x':>6}",
    ]
    for name, r in rows.items():
        lines.append(
            f"  {name:<30} {r['seconds']:>8.2f} {r['cpu_seconds']:>7.2f} "
            f"{r['peak_rss_bytes'] / 1e6:>8.0f} {r['time_vs_json_load']:>7.2f} "
            f"{r['cpu_vs_json_load']:>6.2f} {r['rss_vs_json_load']:>6.2f}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--entries", type=int, default=1_000_000)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--cases", default="lacking,missing,valid")
    p.add_argument("--data", type=Path, default=None, help="where to write (default: a temp dir)")
    p.add_argument("--json", type=Path, help="also write the numbers as JSON to this file")
    args = p.parse_args(argv)
    report: dict[str, Any] = {"entries": args.entries, "cases": {}}
    makers = {"lacking": lacking, "missing": missing, "valid": valid}
    for case in args.cases.split(","):
        make = makers[case]
        with tempfile.TemporaryDirectory(dir=args.data) as tmp:
            root = make(Path(tmp), args.entries)
            rows = best_of(root, args.rounds)
            size = (root / INDEX).stat().st_size
            print(table(case, size, rows), flush=True)
            report["cases"][case] = {"index_bytes": size, "rows": rows}
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
