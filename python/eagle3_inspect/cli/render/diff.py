"""Human rendering of a DiffReport: the verdict first, then renames, added/removed tensors,
changed pairs with their metrics, metadata and config changes, and the vocab mapping."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from eagle3_inspect.cli.render.common import print_table
from eagle3_inspect.commands.diff.report import DiffReport, PairResult
from eagle3_inspect.units import cosine_text

STATUS_STYLE = {"equal": "green", "close": "cyan", "differ": "bold red", None: "yellow"}


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def _verdict(report: DiffReport) -> str:
    c = report.counts()
    style = "bold green" if report.ok else "bold red"
    parts = [f"{c['pairs']} matched"]
    if not report.structure_only:
        parts.append(f"{c['equal']} equal, {c['close']} close, {c['differ']} differ")
    parts.append(f"{c['renamed']} renamed, {c['added']} added, {c['removed']} removed")
    if report.config_changed:
        parts.append("config changed")
    if report.metadata_changed:
        parts.append("metadata changed")
    return f"[{style}]{report.verdict()}[/]: " + "; ".join(parts)


def _change(p: PairResult) -> str:
    d = p.to_dict()
    parts = []
    if d["dtype"]:
        parts.append(" -> ".join(d["dtype"]))
    if d["shape"]:
        parts.append(" -> ".join(str(s) for s in d["shape"]))
    return "; ".join(parts) or "values"


def _changed_table(pairs: list[PairResult], structure_only: bool) -> Table:
    """One row per changed pair. mean_abs and the flat index are in the JSON only, to keep the
    table readable at 80 columns."""
    table = Table(title="Changed tensors", title_justify="left")
    # Names and numbers are never cut (print_table widens the table instead).
    table.add_column("name", no_wrap=True)
    columns = ["status", "change"]
    if not structure_only:
        columns += ["max |a-b| @", "rel_l2", "cosine", "mismatched"]
    for column in columns:
        table.add_column(column, no_wrap=True)
    for p in pairs:
        d = p.to_dict()
        name = p.name if p.name_b == p.name else f"{p.name} -> {p.name_b}"
        style = STATUS_STYLE.get(p.status, "yellow") if not p.same_mapping else "cyan"
        # The d2t of the same mapping (the vocab line below says which encodings).
        status = "same mapping" if p.same_mapping else p.status or "structure"
        row = [name, f"[{style}]{status}[/]", _change(p)]
        if not structure_only:
            where = f" @{d['max_abs_at']}" if d["max_abs_at"] is not None else ""
            mismatched = "-" if d["mismatched"] is None else f"{d['mismatched']}/{d['numel']}"
            row += [
                _fmt(d["max_abs"]) + where,
                _fmt(d["rel_l2"]),
                cosine_text(d["cosine"]) if isinstance(d["cosine"], float) else _fmt(d["cosine"]),
                mismatched if p.note is None or p.same_mapping else p.note,
            ]
        table.add_row(*row)
    return table


def _keypath_table(title: str, diff: dict[str, Any]) -> Table:
    table = Table(title=title, title_justify="left")
    for column in ("key", "change"):
        table.add_column(column, no_wrap=True)
    table.add_column("A")
    table.add_column("B")
    for path, value in diff["removed"].items():
        table.add_row(path, "removed", _fmt(value), "")
    for path, value in diff["added"].items():
        table.add_row(path, "added", "", _fmt(value))
    for path, (old, new) in diff["changed"].items():
        table.add_row(path, "changed", _fmt(old), _fmt(new))
    return table


def render_diff(report: DiffReport, console: Console) -> None:
    console.print(_verdict(report))
    console.print(f"A: {report.a.path}\nB: {report.b.path}")
    for side, errors in report.file_errors().items():
        if errors:
            codes = ", ".join(sorted({f.code for f in errors}))
            path = report.a.path if side == "a" else report.b.path
            console.print(
                f"[bold red]{side.upper()} has {len(errors)} file error(s) ({codes}):[/] "
                f"run `eagle3-inspect scan {path}` for details"
            )
    for note in report.notes:
        console.print(f"[dim]note: {note}[/dim]")
    if report.matching.renamed:
        table = Table(title="Renamed", title_justify="left")
        for column in ("A", "B", "by"):
            table.add_column(column, no_wrap=True)
        for r in report.matching.renamed:
            table.add_row(r.source, r.target, r.by)
        print_table(console, table)
    if report.added or report.removed:
        table = Table(title="Added / removed", title_justify="left")
        for column in ("tensor", "change", "dtype", "shape"):
            table.add_column(column, no_wrap=True)
        for name, ckpt, change in [(n, report.a, "removed") for n in report.removed] + [
            (n, report.b, "added") for n in report.added
        ]:
            info = ckpt.tensors.get(name)
            dtype, shape = (info.dtype, str(list(info.shape))) if info else ("?", "?")
            table.add_row(name, change, dtype, shape)
        print_table(console, table)
    if report.changed:
        print_table(console, _changed_table(report.changed, report.structure_only))
    if report.metadata_changed:
        print_table(console, _keypath_table("__metadata__ changes", report.metadata))
    if report.config_changed:
        print_table(console, _keypath_table("config.json changes", report.config))
    if report.vocab is not None and (report.vocab["a"]["d2t"] or report.vocab["b"]["d2t"]):
        console.print(f"vocab mapping: {report.vocab['summary']}")
    console.print(f"{report.unchanged} tensor pair(s) unchanged")
