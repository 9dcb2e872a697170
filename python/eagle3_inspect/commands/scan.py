"""`scan`: the header-level listing of a checkpoint (files, tensors, dtype totals, findings)."""

from __future__ import annotations

import fnmatch
import math
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any

from eagle3_inspect.commands.report import ClusterSections, FindingsVerdict
from eagle3_inspect.commands.tensor_filter import require_match
from eagle3_inspect.findings import Finding, Severity, count_by_severity
from eagle3_inspect.jsontext import EncodedRecords
from eagle3_inspect.reader.checkpoint import Checkpoint
from eagle3_inspect.reader.opening import PathMap, RayOption, open_checkpoint
from eagle3_inspect.reader.records_json import findings_json, tensor_texts
from eagle3_inspect.reader.remote import remote_section, traffic_of
from eagle3_inspect.reader.stats import ProgressCallback, TensorStats
from eagle3_inspect.reader.tensorinfo import TensorInfo
from eagle3_inspect.version import PRODUCER

SCHEMA = "eagle3-inspect/scan/1"


@dataclass
class ScanReport(FindingsVerdict):
    """What `eagle3-inspect scan` prints; `.to_dict()` is its `--json` form."""

    checkpoint: Checkpoint
    tensors: list[TensorInfo]
    findings: list[Finding]
    filter: str | None = None
    stats: Mapping[str, TensorStats] | None = field(default=None)
    # With `ray=`: the nodes used, bytes read and time per node (the only field a local run lacks).
    cluster: dict[str, Any] | None = field(default=None)
    fail_on: Severity = Severity.ERROR

    def dtype_totals(self) -> dict[str, dict[str, int]]:
        # Column by column at C speed (a million tensors), then grouped: most headers have one
        # or two dtypes.
        tensors = self.tensors
        dtypes = list(map(attrgetter("dtype"), tensors))
        numels = list(map(math.prod, map(attrgetter("shape"), tensors)))
        sizes = list(map(attrgetter("nbytes"), tensors))
        kinds = set(dtypes)
        if len(kinds) == 1:
            [dtype] = kinds
            return {dtype: {"tensors": len(dtypes), "params": sum(numels), "bytes": sum(sizes)}}
        totals: dict[str, dict[str, int]] = {}
        for dtype, numel, nbytes in zip(dtypes, numels, sizes, strict=True):
            entry = totals.setdefault(dtype, {"tensors": 0, "params": 0, "bytes": 0})
            entry["tensors"] += 1
            entry["params"] += numel
            entry["bytes"] += nbytes
        return dict(sorted(totals.items()))

    def summary(self) -> dict[str, Any]:
        dtypes = self.dtype_totals()
        return {
            "files": len(self.checkpoint.files),
            "tensors": len(self.tensors),
            "params": sum(d["params"] for d in dtypes.values()),
            "bytes": sum(d["bytes"] for d in dtypes.values()),
            "dtypes": dtypes,
            **count_by_severity(self.findings),
        }

    def _repr_html_(self) -> str:
        """The notebook view: the HTML report's body."""
        from eagle3_inspect.html.page import fragment
        from eagle3_inspect.html.views.scan import scan_view

        return fragment(scan_view(self))

    def _tensor_rows(self) -> Iterator[dict[str, Any]]:
        stats = self.stats
        for info in self.tensors:
            row = info.to_dict()
            if stats is not None and info.name in stats:
                row["stats"] = stats[info.name].to_dict()
            yield row

    def _tensor_texts(self) -> EncodedRecords:
        """`_tensor_rows` as JSON text, a record at a time (written natively from the stats
        pass's columns: see reader/records_json.py)."""
        return tensor_texts(self.tensors, self.stats)

    def to_dict(self, *, stream: bool = False) -> dict[str, Any]:
        """The `--json` document. With `stream`, `tensors` and `findings` are one-pass iterators
        of their records as JSON text (`EncodedRecords`, for the CLI's streaming writer: a million
        rows never held at once)."""
        ckpt = self.checkpoint
        tensors = self._tensor_texts() if stream else list(self._tensor_rows())
        findings = findings_json(self.findings, stream=stream)
        doc = {
            "schema": SCHEMA,
            "producer": PRODUCER,
            "path": ckpt.path,
            "root": ckpt.root,
            "index": ckpt.index_path,
            "config": ckpt.config_path,
            "filter": self.filter,
            "files": [
                {
                    "path": f.path,
                    "format": f.format,
                    "bytes": f.bytes,
                    "tensors": f.tensors,
                    "data_offset": f.data_offset,
                }
                for f in ckpt.files
            ],
            "metadata": ckpt.metadata,
            "tensors": tensors,
            "findings": findings,
            "summary": self.summary(),
            **self.remote(),
        }
        if self.cluster is not None:
            doc["cluster"] = self.cluster
        return doc

    def remote(self) -> dict[str, Any]:
        """`{"remote": {...}}` (bytes fetched, requests) when the checkpoint is remote, else {}:
        the key is only present for remote checkpoints."""
        section = remote_section([traffic_of(self.checkpoint)])
        return {} if section is None else {"remote": section}

    def cluster_sections(self) -> ClusterSections:
        return [] if self.cluster is None else [(None, self.cluster)]


def select(tensors: dict[str, TensorInfo], pattern: str | None) -> list[TensorInfo]:
    """Tensors whose name matches the glob `pattern` (all when None), in name order."""
    if pattern is None:
        return list(tensors.values())
    return [t for name, t in tensors.items() if fnmatch.fnmatchcase(name, pattern)]


def scan(
    path: str | os.PathLike[str] | Checkpoint,
    *,
    filter: str | None = None,
    stats: bool = False,
    hashes: bool = False,
    threads: int | None = None,
    progress: ProgressCallback | None = None,
    ray: RayOption | None = None,
    ray_path_map: PathMap = None,
    fail_on: str | Severity = Severity.ERROR,
) -> ScanReport:
    """Opens `path` (or takes an open Checkpoint) and lists it. Reads headers only, unless
    `stats` (or `hashes`) asks for a pass over the tensor data. With `ray` (an address, "auto",
    or a ClusterSession) the files are read on the Ray nodes that hold them (`cluster/`).
    `fail_on` (error or warning) is the severity that makes the report not `ok` (exit 1)."""
    ckpt = open_checkpoint(path, ray=ray, ray_path_map=ray_path_map)
    tensors = select(ckpt.tensors, filter)
    require_match(filter, len(tensors), ckpt.path)
    report = ScanReport(ckpt, tensors, list(ckpt.findings), filter, fail_on=Severity(fail_on))
    if stats or hashes:
        readable = [t.name for t in tensors if t.name not in ckpt.unreadable]
        before = len(ckpt.findings)
        report.stats = ckpt.stats(readable, hashes=hashes, threads=threads, progress=progress)
        report.findings.extend(ckpt.findings[before:])  # IX011 from the data pass
    report.cluster = ckpt.cluster_summary()
    return report
