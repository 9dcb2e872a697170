"""Each report's faces in the text formats, in one table: its line records and summary line
(`concise`, `github`, `jsonl`), and its rich view (`full`, imported only when used: the line
formats start without rich). The HTML page is `html/report.py`'s. `cli/emit.py` prints any
report through this table; adding a report means adding its row here."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from eagle3_inspect.cli.render.concise import summary_line
from eagle3_inspect.cli.render.records import Record, finding_records
from eagle3_inspect.commands.report import CommandReport

if TYPE_CHECKING:
    from rich.console import Console

    from eagle3_inspect.commands.diff import DiffReport
    from eagle3_inspect.commands.fix import FixReport
    from eagle3_inspect.commands.scan import ScanReport
    from eagle3_inspect.commands.validate import ValidateReport


@dataclass(frozen=True)
class Face:
    """How one kind of report prints in the text formats."""

    records: Callable[[Any], list[Record]]
    summary: Callable[[Any], str]
    full: Callable[[Any, Console], None]
    # jsonl's last object, after the records (None: the records only).
    summary_object: Callable[[Any], dict[str, Any]] | None = None
    # github: info records as `::notice` annotations (else as plain concise lines).
    notices: bool = True


def _scan_summary(report: ScanReport) -> str:
    s = report.summary()
    return summary_line(s, "errors found" if s["errors"] else "no errors")


def _validate_summary(report: ValidateReport) -> str:
    line = summary_line(report.summary, "PASS" if report.ok else "FAIL")
    return f"{line} (failing on {report.fail_on.value} and above)"


def _diff_records(report: DiffReport) -> list[Record]:
    from eagle3_inspect.cli.render.diff_records import diff_records

    return diff_records(report)


def _diff_summary(report: DiffReport) -> str:
    from eagle3_inspect.cli.render.diff_records import diff_summary

    return diff_summary(report)


def _fix_records(report: FixReport) -> list[Record]:
    from eagle3_inspect.cli.render.fix_records import fix_records

    return fix_records(report)


def _fix_summary(report: FixReport) -> str:
    from eagle3_inspect.cli.render.fix_records import fix_summary

    return fix_summary(report)


def _fix_summary_object(report: FixReport) -> dict[str, Any]:
    from eagle3_inspect.cli.render.fix_records import fix_summary_object

    return fix_summary_object(report)


def _full_scan(report: ScanReport, console: Console) -> None:
    from eagle3_inspect.cli.render.scan import render_scan

    render_scan(report, console)


def _full_validate(report: ValidateReport, console: Console) -> None:
    from eagle3_inspect.cli.render.validate import render_validate

    render_validate(report, console)


def _full_diff(report: DiffReport, console: Console) -> None:
    from eagle3_inspect.cli.render.diff import render_diff

    render_diff(report, console)


def _full_fix(report: FixReport, console: Console) -> None:
    from eagle3_inspect.cli.render.fix import render_fix

    render_fix(report, console)


# Report class name -> its face (by name: the report modules are imported only when used).
FACES: dict[str, Face] = {
    "ScanReport": Face(
        records=lambda r: finding_records(r.findings, r.checkpoint.path),
        summary=_scan_summary,
        full=_full_scan,
    ),
    "ValidateReport": Face(
        records=lambda r: finding_records(r.findings, r.path),
        summary=_validate_summary,
        full=_full_validate,
    ),
    "DiffReport": Face(records=_diff_records, summary=_diff_summary, full=_full_diff),
    "FixReport": Face(
        records=_fix_records,
        summary=_fix_summary,
        full=_full_fix,
        summary_object=_fix_summary_object,
        notices=False,
    ),
}


def face_of(report: CommandReport) -> Face:
    """The face of `report`'s kind."""
    return FACES[type(report).__name__]
