"""Times opening a checkpoint whose index has 1,000,000 entries over 50,000 shards that are all
missing but one (issue 10: quadratic reconciliation took 21 s for 50,000 missing shards and did
not finish at 1M entries). Prints seconds and the finding counts.

    python benchmarks/index_reconcile.py [--entries N] [--shards M] [--data DIR]
"""

from __future__ import annotations

import argparse
import collections
import json
import resource
import tempfile
import time
from pathlib import Path

import numpy as np

import eagle3_inspect
from eagle3_inspect.synthetic.writer import write_safetensors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=1_000_000)
    parser.add_argument("--shards", type=int, default=50_000)
    parser.add_argument("--data", type=Path, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.data) as tmp:
        root = Path(tmp)
        write_safetensors(root / "model-present.safetensors", {"t0": np.zeros(1, np.float32)})
        weight_map = {"t0": "model-present.safetensors"}
        for i in range(1, args.entries):
            weight_map[f"t{i}"] = f"model-{i % args.shards:05d}.safetensors"
        index = root / "model.safetensors.index.json"
        index.write_text(json.dumps({"weight_map": weight_map}))
        size = index.stat().st_size
        cpu = resource.getrusage(resource.RUSAGE_SELF)
        start = time.perf_counter()
        ckpt = eagle3_inspect.open(root)
        seconds = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_SELF)
        cpu_s = after.ru_utime + after.ru_stime - cpu.ru_utime - cpu.ru_stime
        counts = collections.Counter(f.code for f in ckpt.findings)
        print(
            f"{args.entries} entries, {args.shards} missing shards, index {size / 1e6:.1f} MB: "
            f"open + reconcile {seconds:.2f} s wall, {cpu_s:.2f} CPU-s; findings {dict(counts)}"
        )


if __name__ == "__main__":
    main()
