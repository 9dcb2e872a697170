"""`render_html`: one offline HTML document for a scan, validate or diff report. The page is the
report's view (`html/views`) in the page shell (`html/page.py`) with a footer naming the version,
the time and the command line (`html/provenance.py`): CSS inline, plots as inline SVG drawn by
matplotlib, no scripts and nothing fetched."""

from __future__ import annotations

import os
from datetime import datetime

from eagle3_inspect.cli.render.cluster import where_read_lines
from eagle3_inspect.commands.diff import DiffReport
from eagle3_inspect.commands.scan import ScanReport
from eagle3_inspect.commands.validate import ValidateReport
from eagle3_inspect.errors import InvalidArgumentError
from eagle3_inspect.html.markup import Markup, join, note, section
from eagle3_inspect.html.page import document
from eagle3_inspect.html.plots import require_matplotlib
from eagle3_inspect.html.provenance import Provenance
from eagle3_inspect.html.views.diff import diff_view
from eagle3_inspect.html.views.scan import scan_view
from eagle3_inspect.html.views.validate import validate_view


def _name(path: str) -> str:
    return os.path.basename(path.rstrip("/")) or path


def render_html(
    report: ScanReport | ValidateReport | DiffReport,
    *,
    command: str | None = None,
    written: datetime | None = None,
) -> str:
    """The report as one HTML document. `command` is the command line that made the report (the
    CLI passes its own; default: the API call its recorded options give), `written` the time the
    footer shows (default: now). Raises `MissingDependencyError` when matplotlib (the `html`
    extra) is missing, `InvalidArgumentError` for anything but the three reports."""
    require_matplotlib()
    if isinstance(report, ValidateReport):
        title = f"validate {_name(report.path)}: {'PASS' if report.ok else 'FAIL'}"
        body = validate_view(report, plots=True)
    elif isinstance(report, DiffReport):
        title = f"diff {_name(report.a.path)} vs {_name(report.b.path)}: {report.verdict()}"
        body = diff_view(report, plots=True)
    elif isinstance(report, ScanReport):
        title, body = f"scan {_name(report.checkpoint.path)}", scan_view(report)
    else:
        raise InvalidArgumentError(
            f"render_html takes a scan, validate or diff report, not {type(report).__name__}"
        )
    footer = Provenance.of(report, command, written).footer()
    return document(title, join([body, _where_read(report)]), footer)


def _where_read(report: ScanReport | ValidateReport | DiffReport) -> Markup:
    """The lines the text formats end with: what a cluster's nodes or a remote read cost."""
    lines = where_read_lines(report)
    if not lines:
        return Markup("")
    return section("Where the bytes were read", *(note(line) for line in lines))
