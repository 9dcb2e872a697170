"""`render_html`: one offline HTML document for a scan, validate or diff report. The page is the
report's view (`commands/views`) in the page shell (`html/page.py`): CSS inline, plots as inline
SVG drawn by matplotlib, no scripts and nothing fetched."""

from __future__ import annotations

import os

from eagle3_inspect.commands.diff import DiffReport
from eagle3_inspect.commands.scan import ScanReport
from eagle3_inspect.commands.validate import Report
from eagle3_inspect.commands.views.diff import diff_view
from eagle3_inspect.commands.views.scan import scan_view
from eagle3_inspect.commands.views.validate import validate_view
from eagle3_inspect.errors import InvalidArgumentError
from eagle3_inspect.html.page import document
from eagle3_inspect.html.plots import require_matplotlib


def _name(path: str) -> str:
    return os.path.basename(path.rstrip("/")) or path


def render_html(report: ScanReport | Report | DiffReport) -> str:
    """The report as one HTML document. Raises `MissingDependencyError` when matplotlib (the
    `html` extra) is missing, `InvalidArgumentError` for anything but the three reports."""
    require_matplotlib()
    if isinstance(report, Report):
        title = f"validate {_name(report.path)}: {'PASS' if report.ok else 'FAIL'}"
        return document(title, validate_view(report, plots=True))
    if isinstance(report, DiffReport):
        title = f"diff {_name(report.a.path)} vs {_name(report.b.path)}: {report.verdict()}"
        return document(title, diff_view(report, plots=True))
    if isinstance(report, ScanReport):
        return document(f"scan {_name(report.checkpoint.path)}", scan_view(report))
    raise InvalidArgumentError(
        f"render_html takes a scan, validate or diff report, not {type(report).__name__}"
    )
