"""scan's listing in the line formats: one line per tensor before the findings (`concise`: `file:
tensor: DTYPE [shape] bytes`, plus the statistics and hash a pass computed; `jsonl`: a
`tensor/1` object per tensor, then a `scan-summary/1` object last). scan's job is the listing:
piped or in CI it is printed as on a terminal. `github` prints annotations only. No rich here."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from eagle3_inspect.cli.render.concise import one_line
from eagle3_inspect.cli.render.records import display_path
from eagle3_inspect.commands.scan import ScanReport
from eagle3_inspect.units import human_bytes

TENSOR_SCHEMA = "eagle3-inspect/tensor/1"
SUMMARY_SCHEMA = "eagle3-inspect/scan-summary/1"
# The statistics a concise line shows (all of them are in the JSON forms).
SHOWN_STATS = ("min", "max", "mean", "std", "nan", "posinf", "neginf", "zeros")


def _number(value: Any) -> str:
    return f"{value:.6g}" if isinstance(value, float) else str(value)


def tensor_lines(report: ScanReport) -> Iterator[str]:
    """One concise line per listed tensor."""
    stats = report.stats
    for info in report.tensors:
        shape = "[" + ", ".join(map(str, info.shape)) + "]"
        size = human_bytes(info.nbytes)
        line = f"{display_path(info.file)}:{info.name}: {info.dtype} {shape} {size}"
        s = stats.get(info.name) if stats is not None else None
        if s is not None:
            d = s.to_dict()
            line += "".join(f" {k}={_number(d[k])}" for k in SHOWN_STATS if d.get(k) is not None)
            if d.get("hash"):
                line += f" hash={d['hash']}"
        yield one_line(line)


def tensor_objects(report: ScanReport) -> Iterator[dict[str, Any]]:
    """One `tensor/1` object per listed tensor: its scan/1 `tensors` entry."""
    for row in report._tensor_rows():
        yield {"schema": TENSOR_SCHEMA, **row}


def scan_summary_object(report: ScanReport) -> dict[str, Any]:
    """The last `jsonl` line: scan/1's `path`, `filter` and `summary`, plus `exit_code`."""
    return {
        "schema": SUMMARY_SCHEMA,
        "path": report.checkpoint.path,
        "filter": report.filter,
        **report.summary(),
        "exit_code": report.exit_code,
    }
