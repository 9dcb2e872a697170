"""A three-node Ray cluster on this machine (`ray.cluster_utils.Cluster`), one per test module
that asks for it, and checkpoints spread over per-node folders.

The simulated nodes share one filesystem, so each gets its own folder through the path map: node
`nI` (its `eagle3-inspect-node` label) sees the absolute path P under `tmp/nI`, i.e. at
`tmp/nI` + P. Files are hard links of a folder holding everything, which is what the local run
reads.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.cluster.local import start_local_cluster

NODES = ("n0", "n1", "n2")


@dataclass
class SimCluster:
    """The running cluster, its address, the per-node roots and the matching path map."""

    cluster: object
    address: str
    roots: dict[str, Path]
    handles: dict[str, object]  # label -> the Cluster's node object (for remove_node)

    @property
    def path_map(self) -> list[str]:
        return [f"{label}={root}" for label, root in self.roots.items()]

    def spread(self, source: Path, holdings: dict[str, list[str]]) -> None:
        """Hard-links `source`'s files into each node's view of the same path."""
        for label, names in holdings.items():
            view = Path(str(self.roots[label]) + str(source))
            view.mkdir(parents=True, exist_ok=True)
            for name in names:
                os.link(source / name, view / name)


@pytest.fixture(scope="module")
def sim_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SimCluster]:
    import ray

    cluster, handles = start_local_cluster(NODES)
    ray.init(address=cluster.address, logging_level="warning", log_to_driver=False)
    base = tmp_path_factory.mktemp("nodes")
    try:
        yield SimCluster(cluster, cluster.address, {n: base / n for n in NODES}, handles)
    finally:
        ray.shutdown()
        cluster.shutdown()


def shards_by_size(folder: Path) -> list[str]:
    """The folder's shard names, largest first."""
    shards = sorted(folder.glob("*.safetensors"), key=lambda p: (-p.stat().st_size, p.name))
    return [p.name for p in shards]
