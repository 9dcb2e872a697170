"""Human rendering of a ScanReport: files, tensors, dtype totals, metadata, findings."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from eagle3_inspect.cli.render.common import (
    findings_table,
    human_count,
    print_table,
    verdict_markup,
)
from eagle3_inspect.commands.scan import ScanReport
from eagle3_inspect.units import human_bytes


def _fmt(value: float | int | None) -> str:
    if value is None:
        return "-"
    if isinstance(value, int):
        return str(value)
    return f"{value:.4g}"


def render_scan(report: ScanReport, console: Console) -> None:
    ckpt = report.checkpoint
    summary = report.summary()
    console.print(f"[bold]{ckpt.path}[/bold]  ({len(ckpt.files)} file(s), root {ckpt.root})")
    files = Table(title="Files", title_justify="left")
    for column in ("file", "format", "size", "tensors", "data offset"):
        files.add_column(column, no_wrap=True)
    for f in ckpt.files:
        files.add_row(f.path, f.format, human_bytes(f.bytes), str(f.tensors), _fmt(f.data_offset))
    print_table(console, files)
    tensors = Table(
        title="Tensors" + (f" matching {report.filter!r}" if report.filter else ""),
        title_justify="left",
    )
    # With statistics the value columns replace bytes and file (the JSON has everything).
    with_stats = report.stats is not None
    with_hash = with_stats and any(s.hash for s in report.stats.values())  # type: ignore[union-attr]
    columns = ["name", "dtype", "shape"]
    columns += (
        ["min", "max", "mean", "std", "nan", "inf", "zeros"] if with_stats else ["bytes", "file"]
    )
    columns += ["hash"] if with_hash else []
    for column in columns:
        tensors.add_column(column, no_wrap=True)
    for info in report.tensors:
        row = [info.name, info.dtype, str(list(info.shape))]
        if not with_stats:
            row += [human_bytes(info.nbytes), info.file.rsplit("/", 1)[-1]]
        else:
            s = report.stats.get(info.name) if report.stats else None
            if s is None:
                row += ["-"] * (8 if with_hash else 7)
            else:
                d = s.to_dict()
                row += [
                    _fmt(d.get("min")),
                    _fmt(d.get("max")),
                    _fmt(d.get("mean")),
                    _fmt(d.get("std")),
                    str(d.get("nan", 0)),
                    str(d.get("posinf", 0) + d.get("neginf", 0)),
                    str(d.get("zeros", 0)),
                ]
                row += [str(d.get("hash") or "-")] if with_hash else []
        tensors.add_row(*row)
    print_table(console, tensors)
    totals = Table(title="Totals by dtype", title_justify="left")
    for column in ("dtype", "tensors", "params", "bytes"):
        totals.add_column(column, no_wrap=True)
    for dtype, t in summary["dtypes"].items():
        totals.add_row(dtype, str(t["tensors"]), human_count(t["params"]), human_bytes(t["bytes"]))
    totals.add_row(
        "[bold]all[/bold]",
        str(summary["tensors"]),
        human_count(summary["params"]),
        human_bytes(summary["bytes"]),
    )
    print_table(console, totals)
    if ckpt.metadata:
        console.print("metadata: " + ", ".join(f"{k}={v}" for k, v in ckpt.metadata.items()))
    if report.findings:
        print_table(console, findings_table(report.findings))
    console.print(verdict_markup(summary, report.ok, report.fail_on.value))
