"""Many checkpoints in one run (`scan PATH...`, a glob, `--from-file LIST`): one scan report per
checkpoint as each finishes, then a summary; `resume` skips the ones a previous run already wrote.
Locally the checkpoints are scanned one after another; on a Ray cluster several at once (each
one's shards are read in parallel on their nodes either way)."""

from __future__ import annotations

import glob
import time
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any

from eagle3_inspect.commands.resume import SUMMARY_SCHEMA
from eagle3_inspect.commands.scan import scan
from eagle3_inspect.errors import InspectError
from eagle3_inspect.reader.opening import PathMap, RayOption, connect
from eagle3_inspect.reader.untrusted import read_regular
from eagle3_inspect.version import PRODUCER

ERROR_SCHEMA = "eagle3-inspect/scan-error/1"
GLOB_CHARS = frozenset("*?[")
# The largest --from-file list read (a million paths of 64 bytes fit).
LIST_CAP = 64 << 20
# Checkpoints discovered per round trip to the nodes in a cluster audit.
DISCOVERY_BATCH = 32
# How often a cluster audit with a free slot looks for newly discovered checkpoints.
POLL_SECONDS = 0.02


def expand(paths: Iterable[str], from_file: str | None = None) -> list[str]:
    """The checkpoints to scan: each path, a glob pattern's matches (sorted; a pattern matching
    nothing stays as given and fails as a path), then the lines of `from_file` (blank lines and
    `#` comments skipped). A path given twice is scanned once."""
    found: list[str] = []
    for path in paths:
        matches = sorted(glob.glob(path)) if GLOB_CHARS & set(path) else []
        found.extend(matches or [path])
    if from_file is not None:
        text = read_regular(from_file, LIST_CAP).decode("utf-8", "surrogateescape")
        lines = (line.strip() for line in text.splitlines())
        found.extend(line for line in lines if line and not line.startswith("#"))
    return list(dict.fromkeys(found))


def _scan_one(path: str, session: RayOption | None, options: dict[str, Any]) -> dict[str, Any]:
    try:
        return scan(path, ray=session, **options).to_dict()
    except (InspectError, OSError, ValueError) as exc:
        return {"schema": ERROR_SCHEMA, "path": path, "error": str(exc)}


def audit(
    paths: list[str],
    emit: Callable[[dict[str, Any]], None],
    *,
    skip: set[str] | None = None,
    ray: RayOption | None = None,
    ray_path_map: PathMap = None,
    **options: Any,
) -> dict[str, Any]:
    """Scans every path in `paths` not in `skip`, calling `emit(record)` with each report's JSON
    (or an error record) as it finishes; returns the summary record (also emitted).
    `options` are `scan`'s (filter, stats, hashes, threads)."""
    started = time.perf_counter()
    skip = skip or set()
    todo = [p for p in paths if p not in skip]
    session = None if ray is None else connect(ray, ray_path_map)
    counts = {"clean": 0, "with_errors": 0, "failed": 0}

    def done(record: dict[str, Any]) -> None:
        counts[_outcome(record)] += 1
        emit(record)

    if session is None:
        for path in todo:  # in this thread: Ctrl-C reaches the native pass
            done(_scan_one(path, None, options))
    else:
        _on_cluster(todo, session, options, done)
    summary = {
        "schema": SUMMARY_SCHEMA,
        "producer": PRODUCER,
        "checkpoints": len(paths),
        "scanned": len(todo),
        "skipped": len(paths) - len(todo),
        **counts,
        "seconds": round(time.perf_counter() - started, 3),
    }
    if session is not None:
        seconds = round(session.connect_seconds, 3)
        summary["cluster"] = {"address": session.address, "connect_seconds": seconds}
    emit(summary)
    return summary


def _on_cluster(
    todo: list[str], session: Any, options: dict[str, Any], done: Callable[[dict[str, Any]], None]
) -> None:
    """A checkpoint per node at a time, driven from threads (each mostly waits on Ray); Ctrl-C
    cancels every outstanding task of every checkpoint. Of the checkpoints already discovered,
    the largest starts first, so that the small ones overlap its pass instead of waiting behind
    it (the order of the records is the order they finish in, either way)."""
    workers = max(1, len(session.nodes))
    pool = ThreadPoolExecutor(max_workers=workers)
    pending: set[Future[dict[str, Any]]] = set()
    queue = list(todo)
    try:
        while queue or pending:
            ahead = session.prefetched()
            upcoming = queue[: 2 * DISCOVERY_BATCH]
            enough = sum(p in ahead for p in upcoming) >= DISCOVERY_BATCH
            if upcoming and not enough and not session.prefetch_running():
                # The next batch's holdings in one task per node, not one per checkpoint, asked
                # for while the current ones are scanned (one batch at a time).
                fresh = [p for p in upcoming if p not in ahead]
                if fresh:
                    session.prefetch(fresh[:DISCOVERY_BATCH], _computed_at_discovery(options))
            while queue and len(pending) < workers:
                path = _largest_discovered(queue[: 2 * DISCOVERY_BATCH], session)
                if path is None and pending:
                    break  # a free slot waits for the next answer, not for a blind pick
                path = path or queue[0]
                queue.remove(path)
                pending.add(pool.submit(_scan_one, path, session, options))
            # With slots free, look again soon: a batch may have answered meanwhile.
            timeout = POLL_SECONDS if queue and len(pending) < workers else None
            finished, pending = wait(pending, timeout=timeout, return_when=FIRST_COMPLETED)
            for future in finished:
                done(future.result())
    except BaseException:
        session.cancel_all()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown()


def _computed_at_discovery(options: dict[str, Any]) -> dict[str, bool] | None:
    """What the nodes may compute for small files while discovering them: the statistics pass
    (with or without hashes) when the scans ask for one; sending the statistics instead of the
    files is what keeps an audit of many small drafters as fast as a local one."""
    if not (options.get("stats") or options.get("hashes")):
        return None
    return {"hashes": bool(options.get("hashes"))}


def _largest_discovered(upcoming: list[str], session: Any) -> str | None:
    """The largest of `upcoming` whose holdings are known (the first of equals), else None."""
    sizes: dict[str, int] = session.discovered_sizes(upcoming)
    if not sizes:
        return None
    return max(sizes, key=lambda p: (sizes[p], -upcoming.index(p)))


def _outcome(record: dict[str, Any]) -> str:
    if record.get("schema") == ERROR_SCHEMA:
        return "failed"
    return "with_errors" if record["summary"]["errors"] else "clean"
