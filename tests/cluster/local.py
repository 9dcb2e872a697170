"""A simulated Ray cluster on this one machine (`ray.cluster_utils.Cluster`): one node per label,
one CPU each, no dashboard, each node labelled for the path map. The tests and the fleet benchmark
(`benchmarks/ray_bench.py`) start it the same way, so what the benchmark measures is what the
tests check."""

from __future__ import annotations

from typing import Any

from eagle3_inspect.cluster.pathmap import NODE_LABEL


def start_local_cluster(labels: tuple[str, ...]) -> tuple[Any, dict[str, Any]]:
    """Starts the cluster (the head node takes `labels[0]`) and waits for every node; returns it
    with each label's node handle (for `remove_node`)."""
    from ray.cluster_utils import Cluster

    cluster = Cluster(
        initialize_head=True,
        head_node_args={
            "num_cpus": 1,
            "labels": {NODE_LABEL: labels[0]},
            "include_dashboard": False,
        },
    )
    handles = {labels[0]: cluster.head_node}
    for label in labels[1:]:
        handles[label] = cluster.add_node(num_cpus=1, labels={NODE_LABEL: label})
    cluster.wait_for_nodes()
    return cluster, handles
