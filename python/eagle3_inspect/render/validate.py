"""Human rendering of a validate Report: the layout line, findings grouped by severity with their
fixes, and a verdict."""

from __future__ import annotations

from rich.console import Console

from eagle3_inspect.findings import Severity
from eagle3_inspect.render.common import STYLE, location
from eagle3_inspect.validate import Report

TITLES = {Severity.ERROR: "Errors", Severity.WARNING: "Warnings", Severity.INFO: "Info"}


def _layout_line(report: Report) -> str:
    lay = report.layout
    dims = ", ".join(
        f"{k}={v}"
        for k, v in (("H", lay.H), ("Ht", lay.Ht), ("K", lay.K), ("Vd", lay.Vd), ("Vt", lay.Vt))
        if v is not None
    )
    layers = len(lay.blocks)
    return f"layout: {lay.dialect} dialect, {layers} decoder layer(s), {dims or 'dims unknown'}"


def render_validate(report: Report, console: Console) -> None:
    console.print(f"[bold]{report.path}[/bold]")
    console.print(_layout_line(report))
    if report.vocab is not None and report.vocab.encoding != "absent":
        v = report.vocab
        console.print(f"d2t: {v.encoding} ({v.certainty}), Vd={v.vd}, Vt={v.vt}")
    if report.engines:
        console.print("engines: " + ", ".join(report.engines))
    if report.target is not None:
        console.print(f"target: {report.target.path}")
    for severity in (Severity.ERROR, Severity.WARNING, Severity.INFO):
        group = [f for f in report.findings if f.severity is severity]
        if not group:
            continue
        console.print()
        console.print(f"[{STYLE[severity]}]{TITLES[severity]} ({len(group)})[/]")
        for f in group:
            engine = f" [{f.engine}]" if f.engine else ""
            where = location(f)
            console.print(f"  [{STYLE[severity]}]{f.code}[/]{engine} {f.message}")
            if where:
                console.print(f"      [dim]at {where}[/dim]")
            if f.hint:
                console.print(f"      [green]fix:[/green] {f.hint}")
    s = report.summary
    console.print()
    verdict = "[bold green]PASS[/]" if report.ok else "[bold red]FAIL[/]"
    console.print(
        f"{verdict}: {s['errors']} error(s), {s['warnings']} warning(s), {s['infos']} info(s)"
        f" (failing on {report.fail_on.value} and above)"
    )
