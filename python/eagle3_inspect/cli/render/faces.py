"""Each report's faces in the text formats, in one table: its line records and summary line
(`concise`, `github`, `jsonl`), and its rich view (`full`). The HTML page is `html/report.py`'s.
`cli/emit.py` prints any report through this table; a new report adds its row here. The views
are imported when first used: the line formats start without rich, and validate's without fix's
modules (which import numpy)."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from eagle3_inspect.cli.render.concise import verdict_line
from eagle3_inspect.cli.render.records import Record, finding_records
from eagle3_inspect.commands.report import CommandReport

RENDER = "eagle3_inspect.cli.render"


def _later(module: str, name: str) -> Callable[..., Any]:
    """`module.name`, imported when first called."""

    def call(*args: Any) -> Any:
        return getattr(importlib.import_module(f"{RENDER}.{module}"), name)(*args)

    return call


@dataclass(frozen=True)
class Face:
    """How one kind of report prints in the text formats."""

    records: Callable[[Any], list[Record]]
    summary: Callable[[Any], str]
    full: Callable[[Any, Any], None]  # (report, rich Console)
    # jsonl's last object, after the records (None: the records only).
    summary_object: Callable[[Any], dict[str, Any]] | None = None
    # github: info records as `::notice` annotations (else as plain concise lines).
    notices: bool = True
    # What the report lists, before its records: concise lines and jsonl objects (scan's tensors).
    listing_lines: Callable[[Any], Iterable[str]] | None = None
    listing_objects: Callable[[Any], Iterable[dict[str, Any]]] | None = None


def _scan_summary(report: Any) -> str:
    return verdict_line(report.summary(), report.ok, report.fail_on.value)


def _validate_summary(report: Any) -> str:
    return verdict_line(report.summary, report.ok, report.fail_on.value)


# Report class name -> its face (by name: a report's module is imported only when it is used).
FACES: dict[str, Face] = {
    "ScanReport": Face(
        records=lambda r: finding_records(r.findings, r.checkpoint.path),
        summary=_scan_summary,
        full=_later("scan", "render_scan"),
        summary_object=_later("scan_records", "scan_summary_object"),
        listing_lines=_later("scan_records", "tensor_lines"),
        listing_objects=_later("scan_records", "tensor_objects"),
    ),
    "ValidateReport": Face(
        records=lambda r: finding_records(r.findings, r.path),
        summary=_validate_summary,
        full=_later("validate", "render_validate"),
        listing_lines=_later("installed", "installed_lines"),
        listing_objects=_later("installed", "installed_objects"),
    ),
    "DiffReport": Face(
        records=_later("diff_records", "diff_records"),
        summary=_later("diff_records", "diff_summary"),
        full=_later("diff", "render_diff"),
    ),
    "FixReport": Face(
        records=_later("fix_records", "fix_records"),
        summary=_later("fix_records", "fix_summary"),
        full=_later("fix", "render_fix"),
        summary_object=_later("fix_records", "fix_summary_object"),
        notices=False,
    ),
}


def face_of(report: CommandReport) -> Face:
    """The face of `report`'s kind."""
    return FACES[type(report).__name__]
