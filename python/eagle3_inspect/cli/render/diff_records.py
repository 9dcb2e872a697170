"""A DiffReport as line records for `concise`, `github` and `jsonl`: each side's file errors,
then renamed, removed, added and changed tensors, then config.json and __metadata__ changes.
The record's code is the change kind; a change that makes `diff` exit 1 is an `error`."""

from __future__ import annotations

from typing import Any

from eagle3_inspect.cli.render.records import Record, display_path, finding_records
from eagle3_inspect.commands.diff.report import DiffReport, PairResult
from eagle3_inspect.echo import json_text
from eagle3_inspect.units import cosine_text

SCHEMA = "eagle3-inspect/diff-change/1"


def _fmt(value: Any) -> str:
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def _record(
    path: str, subject: str, kind: str, failing: bool, message: str, data: dict[str, Any]
) -> Record:
    return Record(
        path=display_path(path),
        subject=subject,
        code=kind,
        severity="error" if failing else "info",
        message=message,
        hint=None,
        data={"schema": SCHEMA, "kind": kind, "path": path, **data},
    )


def _tensor_file(report: DiffReport, side: str, name: str) -> str:
    ckpt = report.a if side == "a" else report.b
    info = ckpt.tensors.get(name)
    return info.file if info is not None else ckpt.path


def _pair_message(p: PairResult) -> str:
    d = p.to_dict()
    parts = []
    if p.name_b != p.name:
        parts.append(f"as {p.name_b}")
    if d["dtype"]:
        parts.append("dtype " + " -> ".join(d["dtype"]))
    if d["shape"]:
        parts.append("shape " + " -> ".join(str(s) for s in d["shape"]))
    for key in ("max_abs", "rel_l2"):
        if d.get(key) is not None:
            parts.append(f"{key}={_fmt(d[key])}")
    if isinstance(d.get("cosine"), float):
        parts.append(f"cosine={cosine_text(d['cosine'])}")
    if d.get("mismatched") is not None:
        parts.append(f"mismatched={d['mismatched']}/{d['numel']}")
    if p.note:
        parts.append(p.note)
    return "; ".join(parts) or "values changed"


def _pair_kind(p: PairResult) -> tuple[str, bool]:
    if p.status is None:
        return "changed", p.structure_changed
    return p.status, not p.passes


def _keypath_records(report: DiffReport, kind: str, diff: dict[str, Any]) -> list[Record]:
    path = report.b.path
    out = []
    for key, value in diff["removed"].items():
        out.append(
            _record(path, f"{kind}:{key}", kind, True, f"removed (was {json_text(value)})", {})
        )
    for key, value in diff["added"].items():
        out.append(_record(path, f"{kind}:{key}", kind, True, f"added: {json_text(value)}", {}))
    for key, (old, new) in diff["changed"].items():
        message = f"{json_text(old)} -> {json_text(new)}"
        out.append(_record(path, f"{kind}:{key}", kind, True, message, {}))
    return out


def diff_records(report: DiffReport) -> list[Record]:
    records: list[Record] = []
    for side, errors in report.file_errors().items():
        records += finding_records(errors, report.a.path if side == "a" else report.b.path)
    for r in report.matching.renamed:
        path = _tensor_file(report, "b", r.target)
        records.append(
            _record(path, r.source, "renamed", False, f"-> {r.target} (by {r.by})", r.to_dict())
        )
    for name in report.removed:
        records.append(
            _record(_tensor_file(report, "a", name), name, "removed", True, "only in A", {})
        )
    for name in report.added:
        records.append(
            _record(_tensor_file(report, "b", name), name, "added", True, "only in B", {})
        )
    for p in report.changed:
        kind, failing = _pair_kind(p)
        path = _tensor_file(report, "b", p.name_b)
        records.append(_record(path, p.name, kind, failing, _pair_message(p), p.to_dict()))
    if report.config_changed:
        records += _keypath_records(report, "config", report.config)
    if report.metadata_changed:
        records += _keypath_records(report, "metadata", report.metadata)
    return records


def diff_summary(report: DiffReport) -> str:
    c = report.counts()
    return (
        f"{report.verdict()}: {c['pairs']} matched, {c['equal']} equal, {c['close']} close, "
        f"{c['differ']} differ, {c['renamed']} renamed, {c['added']} added, "
        f"{c['removed']} removed"
    )
