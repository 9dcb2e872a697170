"""The work that runs on a node, next to the bytes: discovery, reads of byte ranges, and the
per-shard statistics and hashes through the same reader a local run uses. Plain functions that
return plain data; `session.py` wraps them in Ray tasks pinned to a node."""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Mapping
from typing import Any

from eagle3_inspect.cluster.discover import discover
from eagle3_inspect.reader.source import pread_exact


def node_discover(
    local_paths: list[str], whole_cap: int, compute: dict[str, bool] | None = None
) -> list[dict[str, Any]]:
    """`discover()` of each path on this node (one task for a batch of checkpoints). With
    `compute` (`{"hashes": bool}`: the audit's data pass is known ahead), a file of at most
    `whole_cap` bytes is not sent whole: its statistics are computed here, next to its bytes, and
    sent instead as `computed` (a few hundred bytes per tensor instead of the file)."""
    if compute is None:
        return [discover(p, whole_cap) for p in local_paths]
    from eagle3_inspect.errors import InspectError

    reports = [discover(p, 0) for p in local_paths]
    for report in reports:
        for entry in report["files"]:
            if entry["size"] > whole_cap:
                continue
            path = os.path.join(report["local_root"], entry["name"])
            try:
                found = node_shard_stats([(path, None)], compute["hashes"], True, 1)
            except (InspectError, OSError, ValueError):
                continue  # e.g. removed since it was listed: the open then reports it as usual
            entry["computed"] = {"hashes": compute["hashes"], **found}
    return reports


def node_pread(path: str, offset: int, length: int) -> bytes:
    """Exactly `length` bytes of the local file `path` from `offset`, or OSError."""
    return pread_exact(path, offset, length)


def node_shard_stats(
    pieces: list[tuple[str, list[str] | None]], hashes: bool, stats: bool, threads: int | None
) -> dict[str, Any]:
    """Statistics (or, without `stats`, content hashes only) of the tensors of local shards: each
    piece is (shard path, tensor names; None: every readable tensor of the shard)."""
    start = time.perf_counter()
    merged: dict[str, Any] = {"results": {}, "changed": [], "bytes": 0}
    for path, names in pieces:
        found = _shard_stats(path, names, hashes, stats, threads)
        merged["results"].update(found["results"])
        merged["changed"] += found["changed"]
        merged["bytes"] += found["bytes"]
    merged["seconds"] = time.perf_counter() - start
    return merged


def _shard_stats(
    path: str, names: list[str] | None, hashes: bool, stats: bool, threads: int | None
) -> dict[str, Any]:
    """The tensors `names` of the single local shard `path`, opened on its own: per-tensor
    results do not depend on which tensors share the pass or on the thread count, so they merge
    bit-identically. `changed` are IX011 findings (the file shrank during the pass); their
    tensors are left out of the results."""
    from eagle3_inspect.reader.checkpoint import Checkpoint
    from eagle3_inspect.reader.compare import content_hashes

    ckpt = Checkpoint(path)
    if names is None:
        names = [n for n in ckpt.tensors if n not in ckpt.unreadable]
    before = len(ckpt.findings)
    found: Mapping[str, Any]
    if stats:
        found = ckpt.stats(names, hashes=hashes, threads=threads)
    else:
        hashed = content_hashes(ckpt, names, threads=threads)
        for item in ckpt.changed(list(hashed)):
            hashed.pop(item.tensor or "", None)
        found = hashed
    changed = [f for f in ckpt.findings[before:] if f.code == "IX011"]
    nbytes = sum(ckpt.tensors[n].nbytes for n in names if n in ckpt.tensors)
    return {"results": found, "changed": changed, "bytes": nbytes}


def node_diff_pairs(
    a_path: str,
    b_files: list[dict[str, Any]],
    pairs: list[tuple[str, str]],
    options: dict[str, Any],
) -> dict[str, Any]:
    """On a node holding A's shard `a_path`: the metrics of `pairs`, B read as `b_files` say."""
    import ray

    from eagle3_inspect.reader.checkpoint import Checkpoint
    from eagle3_inspect.reader.compare import diff_pairs
    from eagle3_inspect.reader.source import SourceFile, SourceListing

    start = time.perf_counter()
    here = ray.get_runtime_context().get_node_id()
    pread = ray.remote(num_cpus=0, max_retries=0)(node_pread)

    def reader(spec: dict[str, Any]) -> Any:
        if here in spec["holders"]:
            return functools.partial(node_pread, spec["paths"][here])

        def read(offset: int, length: int) -> bytes:
            from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

            errors = []
            for node_id in spec["holders"]:
                strategy = NodeAffinitySchedulingStrategy(node_id, soft=False)
                task = pread.options(scheduling_strategy=strategy)
                try:
                    return ray.get(task.remote(spec["paths"][node_id], offset, length))
                except ray.exceptions.RayError as exc:
                    errors.append(f"node {node_id[:12]}: {type(exc).__name__}")
            raise OSError("no node could serve the read: " + "; ".join(errors))

        return read

    side_a = Checkpoint(a_path)
    files = [SourceFile(s["name"], s["size"], reader(s)) for s in b_files]
    side_b = Checkpoint.from_source(SourceListing("b", "b", files, None, None))
    found = diff_pairs(side_a, side_b, [(na, nb) for na, nb in pairs], **options)
    nbytes = sum(side_a.tensors[na].nbytes for na, _ in pairs)
    return {"results": found, "bytes": nbytes, "seconds": time.perf_counter() - start}
