"""The fleet benchmark row (issue 14): an audit of many checkpoints (`scan --stats` of each: >= 20
synthetic demo drafters plus the 4.3 GB bench drafter) through a three-node local Ray cluster
against the same scans run locally, one after another.

The three nodes run on this machine (`ray.cluster_utils.Cluster`), each with its own folder of
hard links (no copies): the small drafters go round-robin to one node each, the big drafter's two
shards to n0 and n1 and its index and config to n2. The connection (`ray.init` of this driver) is
timed on its own line, and so is the first pass through the cluster (its worker processes start
then); the ratio compares the later, warm passes with the local ones (the issue's target: at most
1.15x). Local and cluster passes alternate, `--repeats` times each, best kept; load average is
printed at the start and the end.

    python benchmarks/ray_bench.py [--data DIR] [--drafter DIR] [--drafters N] [--repeats N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import bench_data

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' local cluster

from tests.cluster.local import start_local_cluster

from eagle3_inspect.commands.audit import audit
from eagle3_inspect.synthetic.demo import DIMS
from eagle3_inspect.synthetic.drafters import build_drafter, mutate_d2t_absolute
from timing import uptime

NODES = ("n0", "n1", "n2")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--data", type=Path, default=Path("/tmp/bench-data/ray"), help="work dir")
    p.add_argument(
        "--drafter",
        type=Path,
        default=Path("/tmp/bench-data/drafter-full"),
        help="the big drafter (made with bench_data when absent)",
    )
    p.add_argument("--drafters", type=int, default=24, help="how many small drafters (24)")
    p.add_argument("--repeats", type=int, default=7, help="passes of each kind, best kept (7)")
    return p.parse_args(argv)


def small_drafters(root: Path, count: int) -> list[Path]:
    """`count` demo-sized drafters, two shards each, every other one with an absolute d2t."""
    paths = []
    for i in range(count):
        path = root / f"drafter-{i:02d}"
        if not (path / "model.safetensors.index.json").exists():
            drafter = build_drafter(dialect="midlayer", config_style="sglang", seed=i, **DIMS)
            (mutate_d2t_absolute(drafter) if i % 2 else drafter).write(path, shards=2)
        paths.append(path)
    return paths


def spread(source: Path, nodes_root: Path, holdings: dict[str, list[str]]) -> None:
    """Hard-links `source`'s files into each node's view of the same (absolute) path."""
    for label, names in holdings.items():
        view = Path(str(nodes_root / label) + str(source.resolve()))
        view.mkdir(parents=True, exist_ok=True)
        for name in names:
            if not (view / name).exists():
                os.link(source / name, view / name)


def layout(args: argparse.Namespace) -> tuple[list[str], Path, int]:
    """Writes the drafters and node folders; returns the checkpoint paths, the node root and the
    total bytes the audit reads."""
    if not (args.drafter / "model.safetensors.index.json").exists():
        bench_data.ensure_drafter(args.drafter, "full")  # never rewrites an existing one
    nodes_root = args.data / "nodes"
    drafters = small_drafters(args.data / "drafters", args.drafters)
    for i, path in enumerate(drafters):
        names = sorted(p.name for p in path.iterdir())
        spread(path, nodes_root, {NODES[i % 3]: names})
    shards = sorted(p.name for p in args.drafter.glob("*.safetensors"))
    spread(
        args.drafter,
        nodes_root,
        {
            "n0": [shards[0]],
            "n1": shards[1:],
            "n2": ["model.safetensors.index.json"]
            + (["config.json"] if (args.drafter / "config.json").exists() else []),
        },
    )
    paths = [str(p.resolve()) for p in [*drafters, args.drafter]]
    total = sum(f.stat().st_size for p in paths for f in Path(p).glob("*.safetensors"))
    return paths, nodes_root, total


def timed_audit(paths: list[str], **options: object) -> tuple[float, dict]:
    records: list[dict] = []
    start = time.perf_counter()
    summary = audit(paths, records.append, stats=True, **options)
    seconds = time.perf_counter() - start
    bad = [r for r in records if r.get("schema") == "eagle3-inspect/scan-error/1"]
    if bad:
        raise SystemExit(f"audit could not scan: {bad[:2]}")
    return seconds, summary


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    import ray

    from eagle3_inspect.cluster.session import ClusterSession

    print(f"start: {uptime()}")
    paths, nodes_root, total = layout(args)
    print(
        f"{len(paths)} checkpoints ({len(paths) - 1} small drafters + {args.drafter}), "
        f"{total / 1e9:.2f} GB of shards"
    )
    started = time.perf_counter()
    cluster, _ = start_local_cluster(NODES)
    print(
        f"cluster start (3 local nodes, not part of any run): {time.perf_counter() - started:.2f} s"
    )
    try:
        path_map = {label: str(nodes_root / label) for label in NODES}
        session = ClusterSession(cluster.address, path_map)
        print(
            f"connection to the cluster (ray.init + node list, once): "
            f"{session.connect_seconds:.3f} s"
        )
        timed_audit(paths[-1:])  # warms the page cache for both kinds of run
        first, _ = timed_audit(paths, ray=session)
        print(f"first pass through the cluster (its worker processes start): {first:.3f} s")
        local_runs, ray_runs = [], []
        for _ in range(args.repeats):
            local_runs.append(timed_audit(paths)[0])
            ray_runs.append(timed_audit(paths, ray=session)[0])
        best_local, best_ray = min(local_runs), min(ray_runs)
        print("| audit (scan --stats of each) | runs, s | best, s | GB/s |")
        print("|---|---|---|---|")
        for label, runs, best in (
            ("local, one after another", local_runs, best_local),
            ("3-node local Ray cluster", ray_runs, best_ray),
        ):
            listed = " / ".join(f"{s:.2f}" for s in runs)
            print(f"| {label} | {listed} | {best:.2f} | {total / best / 1e9:.2f} |")
        print(
            f"cluster / local, beyond the connection: {best_ray / best_local:.3f}x "
            f"(target <= 1.15x): {'met' if best_ray <= 1.15 * best_local else 'MISSED'}"
        )
        median_ratio = statistics.median(ray_runs) / statistics.median(local_runs)
        print(f"median / median (for the noise): {median_ratio:.3f}x")
    finally:
        ray.shutdown()
        cluster.shutdown()
    print(f"end: {uptime()}")


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(__file__))
    main()
