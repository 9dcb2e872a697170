"""Human rendering of a ValidateReport: the layout line, findings grouped by severity with their
fixes, and a verdict."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape

from eagle3_inspect.cli.render.common import STYLE, verdict_markup
from eagle3_inspect.cli.render.installed import installed_line
from eagle3_inspect.commands.validate import ValidateReport
from eagle3_inspect.findings import Finding, FindingRun, Severity, finding_runs, location

TITLES = {Severity.ERROR: "Errors", Severity.WARNING: "Warnings", Severity.INFO: "Info"}


def _layout_line(report: ValidateReport) -> str:
    lay = report.layout
    dims = ", ".join(
        f"{k}={v}"
        for k, v in (("H", lay.H), ("Ht", lay.Ht), ("K", lay.K), ("Vd", lay.Vd), ("Vt", lay.Vt))
        if v is not None
    )
    layers = len(lay.blocks)
    return f"layout: {lay.dialect} dialect, {layers} decoder layer(s), {dims or 'dims unknown'}"


def render_validate(report: ValidateReport, console: Console) -> None:
    console.print(f"[bold]{escape(report.path)}[/bold]")
    console.print(f"family: {report.family.title}")
    console.print(_layout_line(report))
    if report.vocab is not None and report.vocab.encoding != "absent":
        v = report.vocab
        console.print(f"d2t: {v.encoding} ({v.certainty}), Vd={v.vd}, Vt={v.vt}")
    if report.engines:
        console.print("engines: " + ", ".join(report.engines))
    for verdict in report.installed:
        console.print(escape(installed_line(verdict)))
    if report.target is not None:
        console.print(f"target: {report.target.path}")
    for severity in (Severity.ERROR, Severity.WARNING, Severity.INFO):
        group = [f for f in report.findings if f.severity is severity]
        if not group:
            continue
        console.print()
        console.print(f"[{STYLE[severity]}]{TITLES[severity]} ({len(group)})[/]")
        for run in finding_runs(group):
            if run.folded:
                _print_folded(console, severity, run)
            else:
                for f in run.members:
                    _print_one(console, severity, f)
    console.print()
    console.print(verdict_markup(report.summary, report.ok, report.fail_on.value))


def _print_one(console: Console, severity: Severity, f: Finding) -> None:
    # Messages, names and engines are text, not markup: `d2t[i] + i` and `[sglang@0.5.9]`
    # printed as given (rich read them as tags and dropped them).
    # The engine tag only when the message does not already start from it (concise's rule).
    engine = escape(f" [{f.engine}]") if f.engine and f.engine not in f.message else ""
    console.print(f"  [{STYLE[severity]}]{f.code}[/]{engine} {escape(f.message)}")
    where = location(f)
    if where:
        console.print(f"      [dim]at {escape(where)}[/dim]")
    if f.hint:
        console.print(f"      [green]fix:[/green] {escape(f.hint)}")


def _print_folded(console: Console, severity: Severity, run: FindingRun) -> None:
    _print_one(console, severity, run.first)
    console.print(f"      [dim]... {escape(run.same_for())} (--json lists every one)[/dim]")
