"""Which node reads which shard: every shard once, on a node that holds it, load spread by bytes.

Pure functions over the nodes' discovery reports, so the choice is deterministic (same holdings,
same placement) and testable without a cluster.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from eagle3_inspect.cluster.pathmap import NodeInfo


@dataclass
class PlacedFile:
    """One shard: its name and size, and the nodes that hold it, the chosen reader first (the
    others are the fallbacks when a node dies)."""

    name: str
    size: int
    holders: list[NodeInfo]
    local_paths: dict[str, str]  # node id -> the file's path on that node
    head: bytes = b""  # the first bytes (length prefix and header) when discovery sent them
    # Statistics the holder computed at discovery (see `tasks.node_discover`), else None.
    computed: dict[str, Any] | None = None


@dataclass
class Placement:
    """The checkpoint as the cluster holds it."""

    kind: str
    files: list[PlacedFile]
    index: tuple[str, str] | None
    config: tuple[str, str] | None
    # Names held with different sizes on different nodes: the majority copy is used.
    conflicts: list[str] = field(default_factory=list)
    # Names whose link leads outside the directory on the nodes that have them, held inside by
    # none: never read (IX010, as a local run).
    escaped: list[str] = field(default_factory=list)


def _majority_size(entries: list[tuple[NodeInfo, dict[str, Any]]]) -> int:
    counts: Counter[int] = Counter(e["size"] for _, e in entries)
    return max(counts, key=lambda size: (counts[size], size))


def place(reports: list[tuple[NodeInfo, dict[str, Any]]]) -> Placement:
    """One Placement from `(node, discover() result)` pairs, in a fixed node order."""
    reports = sorted(reports, key=lambda r: r[0].node_id)
    held = [(n, r) for n, r in reports if r["kind"] != "none"]
    kind = held[0][1]["kind"] if held else "none"
    by_name: dict[str, list[tuple[NodeInfo, dict[str, Any]]]] = {}
    for node, report in held:
        for entry in report["files"]:
            by_name.setdefault(entry["name"], []).append((node, entry))
    loads = {n.node_id: 0 for n, _ in reports}
    order = {n.node_id: i for i, (n, _) in enumerate(reports)}
    files, conflicts = [], []
    sizes = {name: _majority_size(entries) for name, entries in by_name.items()}
    for name in sorted(by_name, key=lambda n: (-sizes[n], n)):
        size = sizes[name]
        entries = by_name[name]
        if len({e["size"] for _, e in entries}) > 1:
            conflicts.append(name)
        holders = [n for n, e in entries if e["size"] == size]
        holders.sort(key=lambda n: (loads[n.node_id], order[n.node_id]))
        loads[holders[0].node_id] += size
        roots = {n.node_id: r["local_root"] for n, r in held}
        paths = {n.node_id: os.path.join(roots[n.node_id], name) for n in holders}
        chosen = next(e for n, e in entries if n is holders[0])
        head, computed = chosen.get("head", b""), chosen.get("computed")
        files.append(PlacedFile(name, size, holders, paths, head, computed))
    files.sort(key=lambda f: f.name)
    index = next((r["index"] for _, r in held if r["index"] is not None), None)
    config = next((r["config"] for _, r in held if r["config"] is not None), None)
    found = set(by_name) | {text[0] for text in (index, config) if text is not None}
    escaped = {name for _, r in held for name in r.get("escaped", ())} - found
    return Placement(kind, files, index, config, sorted(conflicts), sorted(escaped))
