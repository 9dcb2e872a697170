"""`ClusterCheckpoint`: a checkpoint whose shards live on Ray nodes.

The checkpoint is opened through the byte-source seam (`Checkpoint.from_source`), so ST/IX
findings come from the same code as a local run: each file's reads are served from the bytes its
holder sent with the listing (the header; a file of at most 1 MiB whole) or by a task pinned to a
holder. Statistics and content hashes run as per-shard tasks on the holders (or here, for files
that came whole) and merge into the dicts a local run returns; a shard no holder could read is
an IX001 finding naming the shard and the nodes that failed.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from eagle3_inspect.cluster.discover import shown_root
from eagle3_inspect.cluster.pairs import remote_diff_pairs
from eagle3_inspect.cluster.placement import PlacedFile, Placement, place
from eagle3_inspect.cluster.session import ClusterSession, Job, Usage
from eagle3_inspect.errors import (
    CheckpointNotFoundError,
    InvalidArgumentError,
    InvalidCheckpointError,
)
from eagle3_inspect.reader.checkpoint import Checkpoint
from eagle3_inspect.reader.remote import is_remote
from eagle3_inspect.reader.source import SourceFile, SourceListing
from eagle3_inspect.reader.stats import ProgressCallback, TensorStats
from eagle3_inspect.registry import finding

# Tensors of one shard are handed out in tasks of about this many bytes: finer progress, and a
# node that dies loses only its current piece.
TASK_BYTES = 512 << 20


class ClusterCheckpoint(Checkpoint):
    """A Checkpoint opened from the cluster's holdings (see `open_on_cluster`)."""

    session: ClusterSession
    placement: Placement
    usage: Usage

    def stats(
        self,
        names: Iterable[str] | None = None,
        *,
        hashes: bool = False,
        threads: int | None = None,
        progress: ProgressCallback | None = None,
    ) -> Mapping[str, TensorStats]:
        """Per-tensor statistics computed on the nodes holding each shard (same values as a
        local run: each tensor's statistics depend on its bytes only)."""
        if names is None:
            names = [n for n in self.tensors if n not in self.unreadable]
        return self._remote(list(names), hashes, True, threads, progress)

    def remote_content_hashes(
        self,
        names: Iterable[str],
        *,
        threads: int | None = None,
        progress: ProgressCallback | None = None,
    ) -> dict[str, str]:
        """`{name: content hash}` computed where the bytes are (diff's hash pass)."""
        return self._remote(list(names), True, False, threads, progress)

    def remote_diff_pairs(
        self, other: Checkpoint, pairs: Sequence[tuple[str, str]], fallback: Any, **options: Any
    ) -> list[dict[str, Any]]:
        """diff's numeric pass with this checkpoint as side A (see `cluster/pairs.py`)."""
        if not isinstance(other, ClusterCheckpoint):
            local: list[dict[str, Any]] = fallback(list(pairs), **options)
            return local
        return remote_diff_pairs(self, other, pairs, fallback, **options)

    def cluster_summary(self) -> dict[str, Any]:
        """The report's `"cluster"` section."""
        summary = self.session.summary(self.usage)
        if self.placement.conflicts:
            summary["conflicting_copies"] = self.placement.conflicts
        return summary

    def _remote(
        self,
        names: list[str],
        hashes: bool,
        stats: bool,
        threads: int | None,
        progress: ProgressCallback | None,
    ) -> dict[str, Any]:
        if threads is not None and threads < 1:
            raise ValueError(f"threads must be >= 1, got {threads}")
        merged = self._computed_at_discovery(names, hashes, stats)
        # Files that came whole with the listing are passed over here, from those bytes.
        whole = {f.name for f in self.placement.files if len(f.head) == f.size}
        left = [n for n in names if n not in merged]
        here = [n for n in left if os.path.basename(self.tensors[n].file) in whole]
        names_there = [n for n in left if n not in set(here)]
        near_bytes = sum(self.tensors[n].nbytes for n in merged)
        here_bytes = near_bytes + sum(self.tensors[n].nbytes for n in here)
        total = here_bytes + sum(self.tensors[n].nbytes for n in names_there)
        if progress is not None and near_bytes:
            progress(near_bytes, total)
        if here:
            found = Checkpoint.stats(
                self,
                here,
                hashes=hashes,
                threads=threads,
                progress=_shifted(progress, near_bytes, total),
            )
            merged.update(found if stats else {n: s.hash for n, s in found.items()})
        jobs: list[Job] = []
        for placed_files, chunk in _tasks(self.placement.files, names_there, self.tensors):
            submit = functools.partial(self._submit, chunk, hashes, stats, threads)
            paths = {
                n.node_id: [p.local_paths[n.node_id] for p in placed_files]
                for n in placed_files[0].holders
            }
            nbytes = sum(self.tensors[n].nbytes for piece in chunk for n in piece)
            files = [p.name for p in placed_files]
            jobs.append(Job(len(jobs), files, placed_files[0].holders, paths, submit, nbytes))
        results = self.session.run(jobs, self.usage, _shifted(progress, here_bytes, total))
        if progress is not None:
            progress(total, total)
        for job in jobs:
            result = results.get(job.key)
            if result is None:
                self._unread(job)
                continue
            merged.update(result["results"])
            for item in result["changed"]:
                self.add_finding(replace(item, file=self._shown(os.path.basename(item.file))))
        return {n: merged[n] for n in names if n in merged}

    def _computed_at_discovery(self, names: list[str], hashes: bool, stats: bool) -> dict[str, Any]:
        """The results of `names` that their holder already computed at discovery (an audit
        asks for them there: see `tasks.node_discover`), when computed for this pass. A tensor
        missing from them (its file changed under that pass) is read again by a task."""
        found: dict[str, Any] = {}
        usable = {
            f.name: f
            for f in self.placement.files
            if f.computed is not None and f.computed["hashes"] == hashes
        }
        if not usable:
            return found
        used: dict[str, tuple[PlacedFile, dict[str, Any]]] = {}
        for name in names:
            placed = usable.get(os.path.basename(self.tensors[name].file))
            computed = None if placed is None else placed.computed
            result = None if computed is None else computed["results"].get(name)
            if placed is not None and computed is not None and result is not None:
                found[name] = result if stats else result.hash
                used[placed.name] = (placed, computed)
        for placed, computed in used.values():
            nbytes, seconds = computed["bytes"], computed["seconds"]
            self.session.account(self.usage, placed.holders[0], placed.name, nbytes, seconds, False)
        return found

    def _submit(
        self,
        chunk: list[list[str]],
        hashes: bool,
        stats: bool,
        threads: int | None,
        node: Any,
        paths: list[str],
    ) -> Any:
        pieces = list(zip(paths, chunk, strict=True))
        return self.session.shard_task(node, pieces, hashes, stats, threads)

    def _shown(self, name: str) -> str:
        return next(f.path for f in self.files if os.path.basename(f.path) == name)

    def _unread(self, job: Job) -> None:
        """IX001 for each shard of a task no holder could run (its tensors get no results)."""
        why = "; ".join(f"node {node}: {reason}" for node, reason in job.tried) or "no alive node"
        for name in job.files:
            message = f"shard {name} could not be read on any node holding it: {why}"
            self.add_finding(finding("IX001", message, file=self._shown(name)))


def _shifted(progress: ProgressCallback | None, offset: int, total: int) -> Any:
    """`progress` for one part of a pass that starts `offset` bytes in, out of `total`."""
    if progress is None:
        return None
    return lambda done, _: progress(offset + done, total)


def _tasks(
    placed: list[PlacedFile], names: list[str], tensors: dict[str, Any]
) -> list[tuple[list[PlacedFile], list[list[str]]]]:
    """The data pass cut into tasks: shards with the same holders (in the same order) go
    together, their tensors in pieces of about TASK_BYTES. Each task is (its shards, the tensor
    names of each shard in it)."""
    by_file: dict[str, list[str]] = {}
    for name in names:
        by_file.setdefault(os.path.basename(tensors[name].file), []).append(name)
    groups: dict[tuple[str, ...], list[PlacedFile]] = {}
    for f in placed:
        if by_file.get(f.name):
            groups.setdefault(tuple(h.node_id for h in f.holders), []).append(f)
    found = []
    for files in groups.values():
        current: tuple[list[PlacedFile], list[list[str]]] = ([], [])
        size = 0
        for f in files:
            for name in by_file[f.name]:
                nbytes = tensors[name].nbytes
                if current[0] and size + nbytes > TASK_BYTES:
                    found.append(current)
                    current, size = ([], []), 0
                if not current[0] or current[0][-1] is not f:
                    current[0].append(f)
                    current[1].append([])
                current[1][-1].append(name)
                size += nbytes
        if current[0]:
            found.append(current)
    return found


def _source(session: ClusterSession, usage: Usage, placed: PlacedFile) -> SourceFile:
    read = functools.partial(session.pread, usage, placed)
    return SourceFile(placed.name, placed.size, read)


def open_on_cluster(path: str | os.PathLike[str], session: ClusterSession) -> ClusterCheckpoint:
    """Opens `path` as the cluster's nodes see it (see `cluster/pathmap.py`)."""
    path = os.fspath(path)
    if is_remote(path):
        raise InvalidArgumentError(
            f"{path}: --ray reads paths on the cluster's nodes; hf:// and http(s):// paths are "
            "read from this machine (without --ray)"
        )
    return open_placed(path, session, placement_of(path, session.discover(path)))


def placement_of(path: str, reports: list[tuple[Any, dict[str, Any]]]) -> Placement:
    """The placement of `path` from its discovery reports; an index or config that is not UTF-8
    and a Hugging Face cache folder are refused as a local run (or `--ray`) refuses them."""
    for _, report in reports:
        if report.get("not_text"):  # as a local run: the checkpoint cannot be opened
            name = os.path.join(shown_root(path, "dir"), report["not_text"])
            raise InvalidCheckpointError(f"{name}: is not valid UTF-8 text")
    placement = place(reports)
    if placement.kind == "hf-cache":
        raise InvalidArgumentError(
            f"{path}: Hugging Face cache folders are not offered with --ray; give the snapshot "
            "directory"
        )
    return placement


def open_placed(path: str, session: ClusterSession, placement: Placement) -> ClusterCheckpoint:
    """Opens `path` from its placement (see `open_on_cluster`)."""
    if not placement.files and placement.index is None:
        nodes = ", ".join(n.shown for n in session.nodes)
        raise CheckpointNotFoundError(f"{path}: no alive node holds it (nodes: {nodes})")
    usage = session.new_usage()
    listing = SourceListing(
        path=path,
        root=shown_root(path, placement.kind),
        files=[_source(session, usage, f) for f in placement.files],
        index=placement.index,
        config=placement.config,
    )
    ckpt = ClusterCheckpoint.from_source(listing)
    assert isinstance(ckpt, ClusterCheckpoint)
    ckpt.session, ckpt.placement, ckpt.usage = session, placement, usage
    for name in placement.escaped:  # as the local reader reports a link leaving the checkpoint
        message = f"the link {json.dumps(name)} leads outside the checkpoint; it was not opened"
        ckpt.add_finding(finding("IX010", message, file=f"{listing.root}/{name}"))
    return ckpt
