"""The connection to the Ray cluster: alive nodes, tasks pinned to a node, per-node accounting
(bytes read, task time), fail-over to the next holder of a shard when a node dies, and
cancellation of every outstanding task on Ctrl-C."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from eagle3_inspect.cluster import discover as discover_module
from eagle3_inspect.cluster import tasks
from eagle3_inspect.cluster.pathmap import NODE_LABEL, NodeInfo, check_keys, node_path, root_for
from eagle3_inspect.cluster.placement import PlacedFile
from eagle3_inspect.cluster.require import require_ray
from eagle3_inspect.reader.stats import ProgressCallback

# How often the driver looks at finished tasks (and redraws progress) while waiting.
POLL_SECONDS = 0.1


@dataclass
class NodeUsage:
    """What one node did for this run."""

    bytes_read: int = 0
    seconds: float = 0.0
    tasks: int = 0
    files: set[str] = field(default_factory=set)


Usage = dict[str, NodeUsage]  # node id -> what it did


@dataclass
class Job:
    """One unit of pinned work with its fall-back holders. `submit(node, local_path)` starts it on
    a node (returning an ObjectRef); `nbytes` counts toward progress."""

    key: Any
    files: list[str]
    holders: list[NodeInfo]
    local_paths: dict[str, Any]  # node id -> what `submit` needs there (the files' paths)
    submit: Callable[[NodeInfo, str], Any]
    nbytes: int
    tried: list[tuple[str, str]] = field(default_factory=list)  # (node, why it failed)


class ClusterSession:
    """One driver's use of a Ray cluster; `address` is given to `ray.init` ("auto" joins the
    running cluster). A process already connected keeps its connection."""

    def __init__(self, address: str, path_map: dict[str, str] | None = None) -> None:
        self.ray = require_ray()
        started = time.perf_counter()
        if not self.ray.is_initialized():
            self.ray.init(address=address, logging_level="warning", log_to_driver=False)
        self.connect_seconds = time.perf_counter() - started
        self.address = address
        self.path_map = path_map or {}
        self.nodes = self._nodes(alive=True)
        # A node that died is still a known name (one node down must not stop an audit).
        check_keys(self.path_map, self._nodes(alive=False))
        self.dead: set[str] = set()
        # Set on Ctrl-C: every run() in any thread cancels its tasks and raises KeyboardInterrupt.
        self.cancelled = threading.Event()
        self._lock = threading.Lock()
        self._discovered: dict[str, _Discovery] = {}
        self._prefetching: list[_Discovery] = []
        remote = self.ray.remote
        self._discover = remote(num_cpus=0, max_retries=0)(tasks.node_discover)
        self._pread = remote(num_cpus=0, max_retries=0)(tasks.node_pread)
        self._shard = remote(num_cpus=1, max_retries=0)(tasks.node_shard_stats)
        self.diff_remote = remote(num_cpus=1, max_retries=0)(tasks.node_diff_pairs)

    def _nodes(self, alive: bool) -> list[NodeInfo]:
        """The cluster's alive nodes (or, not `alive`, every node it has known)."""
        nodes = [
            NodeInfo(n["NodeID"], n.get("NodeManagerAddress", ""), labels.get(NODE_LABEL))
            for n in self.ray.nodes()
            if (n.get("Alive") or not alive) and (labels := n.get("Labels") or {}) is not None
        ]
        return sorted(nodes, key=lambda n: n.node_id)

    def pinned(self, remote_fn: Any, node: NodeInfo) -> Any:
        """`remote_fn` scheduled on `node` only (never elsewhere: the bytes are there)."""
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        strategy = NodeAffinitySchedulingStrategy(node.node_id, soft=False)
        return remote_fn.options(scheduling_strategy=strategy)

    def node_path(self, node: NodeInfo, path: str) -> str:
        return node_path(path, root_for(node, self.path_map))

    def discover(self, path: str) -> list[tuple[NodeInfo, dict[str, Any]]]:
        """Every alive node's holdings of `path` (a node that fails to answer holds nothing);
        from the batch `prefetch` started when it holds `path`."""
        with self._lock:
            batch = self._discovered.pop(path, None)
        if batch is None:
            batch = self._discover_batch([path])
        return batch.result()[path]

    def prefetch(self, paths: list[str], compute: dict[str, bool] | None = None) -> None:
        """Starts discovering `paths` with one task per node (many checkpoints: one round trip);
        returns at once, `discover` waits for the answer. With `compute` (`{"hashes": bool}`),
        small files' statistics come computed with the answer instead of their bytes."""
        if not paths:
            return  # an empty batch would still cost a task per node
        batch = self._discover_batch(paths, compute)
        with self._lock:
            self._discovered.update(dict.fromkeys(paths, batch))
            self._prefetching.append(batch)

    def prefetch_running(self) -> bool:
        """A batch `prefetch` started has not fully answered yet (a second one in flight would
        make each node start another worker process, which costs far more than waiting)."""
        with self._lock:
            self._prefetching = [b for b in self._prefetching if not b.ready()]
            return bool(self._prefetching)

    def prefetched(self) -> set[str]:
        """Paths whose holdings `prefetch` asked for and no open has used yet."""
        with self._lock:
            return set(self._discovered)

    def discovered_sizes(self, paths: list[str]) -> dict[str, int]:
        """Bytes of shards held, for those of `paths` whose prefetched batch has fully answered
        (without waiting: the audit starts the largest of these first)."""
        with self._lock:
            batches = {p: self._discovered[p] for p in paths if p in self._discovered}
        sizes: dict[str, int] = {}
        for path, batch in batches.items():
            if batch.ready():
                sizes[path] = sum(e["size"] for _, r in batch.result()[path] for e in r["files"])
        return sizes

    def _discover_batch(
        self, paths: list[str], compute: dict[str, bool] | None = None
    ) -> _Discovery:
        refs = {
            n.node_id: self.pinned(self._discover, n).remote(
                [self.node_path(n, p) for p in paths], discover_module.WHOLE_CAP, compute
            )
            for n in self.nodes
            if n.node_id not in self.dead
        }
        return _Discovery(self, paths, refs)

    def new_usage(self) -> Usage:
        """A fresh per-node tally (one per checkpoint)."""
        return {n.node_id: NodeUsage() for n in self.nodes}

    def account(
        self,
        usage: Usage,
        node: NodeInfo,
        name: str,
        nbytes: int,
        seconds: float,
        task: bool = True,
    ) -> None:
        """Counts `nbytes` of file `name` that `node` read in `seconds` (in a task of its own
        unless not `task`: the header bytes discovery sent along)."""
        with self._lock:
            entry = usage[node.node_id]
            entry.files.add(name)
            entry.bytes_read += nbytes
            entry.seconds += seconds
            entry.tasks += task

    def pread(self, usage: Usage, placed: PlacedFile, offset: int, n: int) -> bytes:
        """`n` bytes at `offset` of a file, from the first holder that can serve them (the header
        comes with the listing: no round trip)."""
        if offset + n <= len(placed.head):
            self.account(usage, placed.holders[0], placed.name, n, 0.0, task=False)
            return placed.head[offset : offset + n]
        errors = []
        for node in placed.holders:
            if node.node_id in self.dead:
                continue
            started = time.perf_counter()
            try:
                path = placed.local_paths[node.node_id]
                ref = self.pinned(self._pread, node).remote(path, offset, n)
                data: bytes = self.ray.get(ref)
            except self.ray.exceptions.RayError as exc:
                errors.append(f"node {node.shown}: {_reason(exc)}")
                self._note_failure(node, exc)
                continue
            self.account(usage, node, placed.name, len(data), time.perf_counter() - started)
            return data
        raise OSError("no node could serve the read: " + ("; ".join(errors) or "no alive holder"))

    def _note_failure(self, node: NodeInfo, exc: Exception) -> None:
        """Marks `node` dead unless the task itself failed on a live node (a file problem). A
        worker stopped by its node going down can surface as a task error (SystemExit inside
        the task), so for those the cluster is asked whether the node is still alive."""
        if isinstance(exc, self.ray.exceptions.RayTaskError):
            cause = getattr(exc, "cause", None)
            if not isinstance(cause, (SystemExit, KeyboardInterrupt)) and self._alive(node):
                return
        self.dead.add(node.node_id)  # the node (or its worker) is gone, not the file

    def _alive(self, node: NodeInfo) -> bool:
        try:
            return any(n.node_id == node.node_id for n in self._nodes(alive=True))
        except Exception:  # the cluster cannot answer: do not guess that the node is gone
            return True

    def run(
        self, jobs: list[Job], usage: Usage, progress: ProgressCallback | None = None
    ) -> dict[Any, Any]:
        """Runs every job on its first alive holder, re-submitting a failed one to the next;
        returns `{key: result}` for those that finished and leaves the others' `tried` filled.
        Ctrl-C cancels every outstanding task and re-raises."""
        total = sum(j.nbytes for j in jobs)
        done_bytes = 0
        results: dict[Any, Any] = {}
        running: dict[Any, tuple[Job, NodeInfo]] = {}
        for job in jobs:
            self._start(job, running)
        try:
            while running:
                if self.cancelled.is_set():
                    raise KeyboardInterrupt
                ready, _ = self.ray.wait(list(running), num_returns=1, timeout=POLL_SECONDS)
                for ref in ready:
                    job, node = running.pop(ref)
                    try:
                        result = self.ray.get(ref)
                    except self.ray.exceptions.RayError as exc:
                        job.tried.append((node.shown, _reason(exc)))
                        self._note_failure(node, exc)
                        self._start(job, running)
                        continue
                    for name in job.files:
                        self.account(usage, node, name, 0, 0.0, task=False)
                    self.account(usage, node, job.files[0], result["bytes"], result["seconds"])
                    results[job.key] = result
                    done_bytes += job.nbytes
                if progress is not None:
                    progress(done_bytes, total)
        except BaseException:
            for ref in running:
                self.ray.cancel(ref, force=True)
            raise
        return results

    def cancel_all(self) -> None:
        """Stops every run() of this session (their outstanding tasks are cancelled)."""
        self.cancelled.set()

    def _start(self, job: Job, running: dict[Any, tuple[Job, NodeInfo]]) -> None:
        tried = {name for name, _ in job.tried}
        for node in job.holders:
            if node.node_id in self.dead or node.shown in tried:
                continue
            ref = job.submit(node, job.local_paths[node.node_id])
            running[ref] = (job, node)
            return

    def shard_task(self, node: NodeInfo, *args: Any) -> Any:
        return self.pinned(self._shard, node).remote(*args)

    def summary(self, usage: Usage) -> dict[str, Any]:
        """The report's `"cluster"` section: every node, what it read and for how long."""
        return {
            "address": self.address,
            "nodes": [
                {
                    "node": n.shown,
                    "node_id": n.node_id,
                    "address": n.address,
                    "files": sorted(usage[n.node_id].files),
                    "bytes_read": usage[n.node_id].bytes_read,
                    "seconds": round(usage[n.node_id].seconds, 6),
                    "tasks": usage[n.node_id].tasks,
                    "alive": n.node_id not in self.dead,
                }
                for n in self.nodes
            ],
        }


class _Discovery:
    """One discovery task per node for a batch of paths, answered once (by whoever asks first)."""

    def __init__(self, session: ClusterSession, paths: list[str], refs: dict[str, Any]) -> None:
        self.session, self.paths, self.refs = session, paths, refs
        self._lock = threading.Lock()
        self._found: dict[str, list[tuple[NodeInfo, Any]]] | None = None

    def ready(self) -> bool:
        """Every node's answer has arrived (or failed): `result` will not wait."""
        if self._found is not None:
            return True
        refs = list(self.refs.values())
        done, _ = self.session.ray.wait(refs, num_returns=len(refs), timeout=0, fetch_local=False)
        return len(done) == len(refs)

    def result(self) -> dict[str, list[tuple[NodeInfo, Any]]]:
        with self._lock:
            if self._found is None:
                self._found = self._collect()
            return self._found

    def _collect(self) -> dict[str, list[tuple[NodeInfo, Any]]]:
        session = self.session
        found: dict[str, list[tuple[NodeInfo, Any]]] = {p: [] for p in self.paths}
        for node in session.nodes:
            if node.node_id not in self.refs:
                continue
            try:
                reports = session.ray.get(self.refs[node.node_id])
            except session.ray.exceptions.RayError:
                session.dead.add(node.node_id)
                continue
            for path, report in zip(self.paths, reports, strict=True):
                found[path].append((node, report))
        return found


def _reason(exc: BaseException) -> str:
    """A failed task's cause in one line."""
    cause = getattr(exc, "cause", None)
    text = str(cause) if cause is not None else f"{type(exc).__name__}: {exc}"
    return " ".join(text.split())[:300]
