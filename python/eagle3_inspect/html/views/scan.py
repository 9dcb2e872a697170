"""The scan view: the checkpoint summary, the anomalies the statistics show (all-zero tensors,
NaN/Inf) named at the top, its findings, and the tensor table (file and offset per tensor; with
statistics, sparkline bars for NaN/Inf, zeros and |max|, the hash when computed, anomalous rows
highlighted)."""

from __future__ import annotations

from eagle3_inspect.commands.scan import ScanReport
from eagle3_inspect.html.findings import counts_line, findings_table
from eagle3_inspect.html.markup import Markup, join, note, section, tag
from eagle3_inspect.html.views.checkpoint import anomalies, checkpoint_summary, tensor_table


def scan_view(report: ScanReport) -> Markup:
    """The report's body; the tensor table lists every tensor the scan selected."""
    ckpt = report.checkpoint
    title = "tensor statistics" if report.stats is not None else "tensors"
    return join(
        [
            tag("h1", "eagle3-inspect scan"),
            checkpoint_summary(ckpt.path, len(ckpt.files), report.tensors, ckpt.metadata),
            tag("p", counts_line(report.findings), class_="summary"),
            anomalies(report.tensors, report.stats) if report.stats is not None else "",
            note(f"Tensors matching {report.filter!r}.") if report.filter else "",
            section("Findings", findings_table(report.findings), class_="findings"),
            section(
                title.capitalize(), tensor_table(report.tensors, report.stats), class_="tensors"
            ),
            ""
            if report.stats is not None
            else note("Run scan with stats for per-tensor statistics."),
        ]
    )
