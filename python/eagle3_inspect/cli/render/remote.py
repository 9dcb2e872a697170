"""The one line the human formats print after a report that read remote checkpoints: the same
numbers as the JSON `remote` object."""

from __future__ import annotations

from eagle3_inspect.commands.report import CommandReport
from eagle3_inspect.units import human_bytes


def remote_line(report: CommandReport) -> str | None:
    """`remote: fetched 40.12 KiB (41083 bytes) in 12 requests (hf://org/name: ...)`, or None
    when every checkpoint of `report` is local."""
    section = report.remote().get("remote")
    if section is None:
        return None
    total = section["bytes_fetched"]
    line = f"remote: fetched {human_bytes(total)} ({total} bytes) in {section['requests']} requests"
    if len(section["sources"]) > 1:
        parts = [
            f"{s['path']}: {s['bytes_fetched']} bytes, {s['requests']} requests"
            for s in section["sources"]
        ]
        line += " (" + "; ".join(parts) + ")"
    return line
