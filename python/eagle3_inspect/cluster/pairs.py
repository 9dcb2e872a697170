"""diff's numeric comparisons on a cluster: each group of pairs runs on a node holding side A's
shard, which reads its own tensors locally and side B's bytes through Ray from B's holders (or
locally when it holds B's file too). Per-pair metrics depend only on the two tensors, so the
results are those of a local diff. A group no A holder could run falls back to the driver,
which reads both sides through the nodes."""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from typing import Any

from eagle3_inspect.cluster.session import Job

# Sides are ClusterCheckpoints (cluster/checkpoint.py, which imports this module).
ClusterCheckpoint = Any


def _b_files(b: ClusterCheckpoint, names: list[str]) -> list[dict[str, Any]]:
    """What a node needs to read B's files: name, size, holders' ids and local paths."""
    wanted = {os.path.basename(b.tensors[n].file) for n in names}
    return [
        {
            "name": f.name,
            "size": f.size,
            "holders": [h.node_id for h in f.holders],
            "paths": f.local_paths,
        }
        for f in b.placement.files
        if f.name in wanted
    ]


def remote_diff_pairs(
    a: ClusterCheckpoint,
    b: ClusterCheckpoint,
    pairs: Sequence[tuple[str, str]],
    fallback: Any,
    **options: Any,
) -> list[dict[str, Any]]:
    """One metrics dict per pair, in order (as `reader.compare.diff_pairs`)."""
    session = a.session
    progress = options.pop("progress", None)
    groups: dict[str, list[int]] = {}
    for i, (name_a, _) in enumerate(pairs):
        groups.setdefault(os.path.basename(a.tensors[name_a].file), []).append(i)
    jobs: list[Job] = []
    members_of: dict[int, list[int]] = {}
    for placed in a.placement.files:
        members = groups.get(placed.name)
        if not members:
            continue
        chosen = [pairs[i] for i in members]
        spec = _b_files(b, [nb for _, nb in chosen])
        submit = functools.partial(_submit, session, spec, chosen, options)
        nbytes = sum(a.tensors[na].nbytes + b.tensors[nb].nbytes for na, nb in chosen)
        members_of[len(jobs)] = members
        job = Job(len(jobs), [placed.name], placed.holders, placed.local_paths, submit, nbytes)
        jobs.append(job)
    done = session.run(jobs, a.usage, progress)
    results: list[dict[str, Any] | None] = [None] * len(pairs)
    for job in jobs:
        members = members_of[job.key]
        found = done.get(job.key)
        if found is None:  # no A holder could run it: the driver reads both sides
            found = {"results": fallback([pairs[i] for i in members], **options)}
        for i, result in zip(members, found["results"], strict=True):
            results[i] = result
    assert all(r is not None for r in results)
    return results  # type: ignore[return-value]


def _submit(
    session: Any,
    spec: list[dict[str, Any]],
    chosen: list[tuple[str, str]],
    options: dict[str, Any],
    node: Any,
    path: str,
) -> Any:
    return session.pinned(session.diff_remote, node).remote(path, spec, chosen, options)
