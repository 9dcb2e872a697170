"""Shared rendering pieces: consoles, byte and count formatting, the findings table."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from eagle3_inspect.findings import Finding, Severity

STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}


def stdout_console() -> Console:
    return Console(highlight=False, soft_wrap=False)


def stderr_console() -> Console:
    return Console(stderr=True, highlight=False)


def human_bytes(n: int) -> str:
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if size < 1024 or unit == "TiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.2f} {unit}"
        size /= 1024
    return f"{n} B"


def human_count(n: int) -> str:
    for unit, scale in (("T", 1e12), ("B", 1e9), ("M", 1e6), ("K", 1e3)):
        if n >= scale:
            return f"{n / scale:.2f}{unit}"
    return str(n)


def location(f: Finding) -> str:
    parts = []
    if f.file:
        parts.append(f.file.rsplit("/", 1)[-1])
    if f.tensor:
        parts.append(f.tensor)
    if f.config_key:
        parts.append(f"config:{f.config_key}")
    if f.offset is not None:
        parts.append(f"@{f.offset}")
    return " ".join(parts)


def findings_table(findings: list[Finding], title: str = "Findings") -> Table:
    table = Table(title=title, title_justify="left", expand=False)
    for column in ("code", "severity", "where", "message"):
        table.add_column(column, overflow="fold")
    ordered = sorted(findings, key=lambda f: (-f.severity.rank, f.code))
    for f in ordered:
        message = f.message if not f.hint else f"{f.message}\n[dim]fix: {f.hint}[/dim]"
        sev = f"[{STYLE[f.severity]}]{f.severity.value}[/]"
        engine = f" [{f.engine}]" if f.engine else ""
        table.add_row(f.code, sev + engine, location(f), message)
    return table
