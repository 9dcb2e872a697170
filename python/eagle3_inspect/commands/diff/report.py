"""`DiffReport`: the result of `eagle3_inspect.diff`, its verdict properties and its
`eagle3-inspect/diff/1` JSON form; `PairResult`: one matched pair."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from eagle3_inspect.commands.diff.config import is_empty
from eagle3_inspect.commands.diff.match import Matching
from eagle3_inspect.commands.report import ClusterSections
from eagle3_inspect.reader.remote import remote_section, traffic_of
from eagle3_inspect.version import PRODUCER

if TYPE_CHECKING:
    from eagle3_inspect.findings import Finding
    from eagle3_inspect.reader.checkpoint import Checkpoint

SCHEMA = "eagle3-inspect/diff/1"

METRICS = (
    "max_abs",
    "max_abs_index",
    "max_abs_at",
    "mean_abs",
    "rel_l2",
    "cosine",
    "mismatched",
    "nonfinite_mismatched",
    "numel",
    "rtol",
    "atol",
)


def _json_number(value: Any) -> Any:
    # JSON has no inf/nan (emit_json forbids them); an overflowing f64 difference says so in text.
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value


@dataclass
class PairResult:
    """One matched pair: A's name, B's name, dtypes, shapes, and the numeric comparison
    (`metrics` from the native engine, None in structure-only mode or when unreadable).
    `status` is `equal`, `close`, `differ`, or None when values were not compared."""

    name: str
    name_b: str
    dtype: tuple[str, str]
    shape: tuple[tuple[int, ...] | None, tuple[int, ...] | None]
    status: str | None = None
    metrics: Mapping[str, Any] | None = None
    note: str | None = None
    # The d2t pair when both sides hold the same draft-to-target mapping in other encodings
    # (offsets / absolute ids): its bytes differ, what it means does not; not a failure.
    same_mapping: bool = False

    @property
    def passes(self) -> bool:
        """Not a difference that fails the diff: equal, close, or the same mapping."""
        return self.status in ("equal", "close") or self.same_mapping

    @property
    def structure_changed(self) -> bool:
        return self.dtype[0] != self.dtype[1] or self.shape[0] != self.shape[1]

    @property
    def changed(self) -> bool:
        """Bytes differ in any way (a `close` pair too); in structure-only mode: dtype or shape."""
        if self.status is None:
            return self.structure_changed
        return self.status != "equal"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name}
        if self.name_b != self.name:
            out["renamed_to"] = self.name_b
        out["status"] = self.status
        out["dtype"] = list(self.dtype) if self.dtype[0] != self.dtype[1] else None
        shapes = [list(s) if s is not None else None for s in self.shape]
        out["shape"] = shapes if self.shape[0] != self.shape[1] else None
        metrics = self.metrics or {}
        for key in METRICS:
            out[key] = _json_number(metrics.get(key))
        if self.note:
            out["note"] = self.note
        return out


@dataclass
class DiffReport:
    """What `eagle3-inspect diff` prints; `.to_dict()` is its `--json` form."""

    a: Checkpoint
    b: Checkpoint
    matching: Matching
    pairs: list[PairResult]
    metadata: dict[str, Any]
    config: dict[str, Any]
    vocab: dict[str, Any] | None = None
    structure_only: bool = False
    renames: bool = True
    filter: str | None = None
    rtol: float | None = None
    atol: float | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def added(self) -> list[str]:
        return self.matching.added

    @property
    def removed(self) -> list[str]:
        return self.matching.removed

    @property
    def changed(self) -> list[PairResult]:
        return [p for p in self.pairs if p.changed]

    @property
    def unchanged(self) -> int:
        return len(self.pairs) - len(self.changed)

    @property
    def config_changed(self) -> bool:
        return not is_empty({k: self.config[k] for k in ("added", "removed", "changed")}) or (
            self.config["a_present"] != self.config["b_present"]
        )

    @property
    def metadata_changed(self) -> bool:
        return not is_empty(self.metadata)

    @property
    def ok(self) -> bool:
        """The exit-0 verdict: nothing added or removed, every pair `equal` or `close` (in
        structure-only mode: no dtype or shape change), and no config or metadata change.
        Renames alone are fine, and so is a d2t stored in another encoding of the same mapping
        (`PairResult.same_mapping`)."""
        if self.added or self.removed or self.config_changed or self.metadata_changed:
            return False
        if self.structure_only:
            return not any(p.structure_changed for p in self.pairs)
        return all(p.passes for p in self.pairs)

    @property
    def exit_code(self) -> int:
        return 0 if self.ok else 1

    @property
    def identical(self) -> bool:
        """`ok`, no renames, and every pair bitwise equal (structure-only: same headers)."""
        return self.ok and not self.matching.renamed and not self.changed

    def counts(self) -> dict[str, int]:
        statuses = [p.status for p in self.pairs]
        return {
            "pairs": len(self.pairs),
            "equal": statuses.count("equal"),
            "close": statuses.count("close"),
            "differ": statuses.count("differ"),
            "added": len(self.added),
            "removed": len(self.removed),
            "renamed": len(self.matching.renamed),
        }

    def verdict(self) -> str:
        if self.identical:
            return "identical" if not self.structure_only else "same structure"
        if self.ok and any(p.same_mapping for p in self.pairs):
            return "equivalent (within tolerance, renamed, or the same d2t mapping re-encoded)"
        if self.ok:
            return "equivalent (within tolerance, or renamed only)"
        return "different"

    def _repr_html_(self) -> str:
        """The notebook view: the HTML report's body (the chart when matplotlib is there)."""
        from eagle3_inspect.html.page import fragment
        from eagle3_inspect.html.plots import plots_available
        from eagle3_inspect.html.views.diff import diff_view

        return fragment(diff_view(self, plots=plots_available()))

    def to_dict(self, *, stream: bool = False) -> dict[str, Any]:
        """The `--json` document (`stream` changes nothing: a diff has no per-tensor list of
        every tensor)."""
        doc = {
            "schema": SCHEMA,
            "producer": PRODUCER,
            "a": self.a.path,
            "b": self.b.path,
            "verdict": self.verdict(),
            "ok": self.ok,
            "identical": self.identical,
            "structure_only": self.structure_only,
            "filter": self.filter,
            "rtol": self.rtol,
            "atol": self.atol,
            "added": list(self.added),
            "removed": list(self.removed),
            "renamed": [r.to_dict() for r in self.matching.renamed],
            "changed": [p.to_dict() for p in self.changed],
            "unchanged": self.unchanged,
            "counts": self.counts(),
            "metadata": self.metadata,
            "config": self.config,
            "vocab": self.vocab,
            "findings": {
                side: [f.to_dict() for f in errs] for side, errs in self.file_errors().items()
            },
            "notes": list(self.notes),
            **self.remote(),
        }
        # With `ray=`: what the cluster's nodes did for each side (a local run has no such key).
        sides = {"a": self.a.cluster_summary(), "b": self.b.cluster_summary()}
        if sides["a"] is not None or sides["b"] is not None:
            doc["cluster"] = sides
        return doc

    def cluster_sections(self) -> ClusterSections:
        sides = (("a", self.a.cluster_summary()), ("b", self.b.cluster_summary()))
        return [(side, section) for side, section in sides if section is not None]

    def remote(self) -> dict[str, Any]:
        """`{"remote": {...}}` with totals and one source per remote side (`side`: "a" / "b"),
        only when a side is remote."""
        sides = [("a", traffic_of(self.a)), ("b", traffic_of(self.b))]
        section = remote_section([t for _, t in sides])
        if section is None:
            return {}
        for source, side in zip(section["sources"], [s for s, t in sides if t], strict=True):
            source["side"] = side
        return {"remote": section}

    def file_errors(self) -> dict[str, list[Finding]]:
        """Each side's ST/IX error findings: a pair may differ because a file is damaged."""
        return {
            side: [f for f in ckpt.findings if f.severity.value == "error"]
            for side, ckpt in (("a", self.a), ("b", self.b))
        }
