"""Shared rendering pieces: consoles, byte and count formatting, the findings table, and printing
a table without breaking a name or code at any width."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.measure import Measurement
from rich.table import Table

from eagle3_inspect.findings import Finding, Severity, location

STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}


class _PipedConsole(Console):
    """A Console that leaves a closed pipe to `cli/broken_pipe.py`'s one rule (rich's own exits
    1 whatever was being printed)."""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        raise BrokenPipeError


def stdout_console() -> Console:
    # soft_wrap: text lines are never hard-wrapped (a tensor name in a message stays whole).
    return _PipedConsole(highlight=False, soft_wrap=True)


def print_table(console: Console, table: Table) -> None:
    """Prints `table` at least as wide as its minimum width: identifier columns are `no_wrap`, so
    names and codes are never cut; message columns wrap only at spaces. On a narrow console the
    lines get longer than the console instead (a terminal soft-wraps them; logs keep them)."""
    options = console.options.update(width=1 << 20)
    for column in table.columns:
        if column.no_wrap:  # rich would still shrink it with an ellipsis when space runs out
            cells = [column.header, *column.cells]
            widest = max(Measurement.get(console, options, c).maximum for c in cells)
            column.min_width = max(column.min_width or 0, widest)
    needed = Measurement.get(console, options, table).minimum
    width = console.width
    console.width = max(width, needed)
    try:
        console.print(table)
    finally:
        console.width = width


def stderr_console() -> Console:
    return Console(stderr=True, highlight=False)


def human_count(n: int) -> str:
    for unit, scale in (("T", 1e12), ("B", 1e9), ("M", 1e6), ("K", 1e3)):
        if n >= scale:
            return f"{n / scale:.2f}{unit}"
    return str(n)


def findings_table(findings: list[Finding], title: str = "Findings") -> Table:
    table = Table(title=title, title_justify="left", expand=False)
    for column in ("code", "severity", "where"):
        table.add_column(column, no_wrap=True)
    table.add_column("message")
    ordered = sorted(findings, key=lambda f: (-f.severity.rank, f.code))
    for f in ordered:
        # Text, not markup: a message's `d2t[i]` or an engine's `[sglang@0.5.9]` as given.
        text = escape(f.message)
        message = text if not f.hint else f"{text}\n[dim]fix: {escape(f.hint)}[/dim]"
        sev = f"[{STYLE[f.severity]}]{f.severity.value}[/]"
        engine = escape(f" [{f.engine}]") if f.engine and f.engine not in f.message else ""
        table.add_row(f.code, sev + engine, escape(location(f)), message)
    return table


def verdict_markup(counts: dict[str, int], ok: bool, fail_on: str) -> str:
    """`verdict_line` (scan's and validate's one verdict) with PASS green, FAIL red."""
    from eagle3_inspect.cli.render.concise import verdict_line

    verdict, rest = verdict_line(counts, ok, fail_on).split(":", 1)
    return f"[{'bold green' if ok else 'bold red'}]{verdict}[/]:{rest}"
