"""Human rendering of a FixReport: the plan (renames folded), the verification, the verdict."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape

from eagle3_inspect.commands.fix import FixReport

# Renames beyond this many are folded into one line (JSON lists all).
FOLD_AFTER = 6
VERDICT = {
    "fixed": "[green]FIXED[/green]: written and verified",
    "planned": "[cyan]PLAN[/cyan] (dry run: nothing written)",
    "nothing-to-do": "[green]NOTHING TO DO[/green]: the source already loads as trained; "
    "nothing written",
    "refused": "[red]REFUSED[/red]: nothing written",
    "unverified": "[red]NOT VERIFIED[/red]: the written copy failed its checks and was discarded",
}


def _change_line(change: dict) -> str:
    kind = change["kind"]
    if kind == "rename":
        return f"rename  {change['from']} -> {change['to']}"
    if kind == "drop":
        return f"drop    {change['tensor']}"
    if kind == "config":
        op = change["op"]
        shown = {"add": f"= {change.get('to')!r}", "remove": "(removed)"}.get(
            op, f"{change.get('from')!r} -> {change.get('to')!r}"
        )
        return f"config  {change['key']} {shown}"
    return f"{kind:<7} {change.get('detail', '')}"


def render_fix(report: FixReport, console: Console) -> None:
    console.print(f"[bold]{escape(report.source)}[/bold] -> {escape(report.destination)}")
    console.print(f"engine: {report.engine}")
    renames = [c for c in report.changes if c["kind"] == "rename"]
    others = [c for c in report.changes if c["kind"] != "rename"]
    if report.changes:
        console.print(f"\n[bold]Plan ({len(report.changes)} change(s))[/bold]")
    for change in renames[:FOLD_AFTER]:
        console.print("  " + escape(_change_line(change)))
    if len(renames) > FOLD_AFTER:
        console.print(f"  ... and {len(renames) - FOLD_AFTER} more renames (--json lists all)")
    for change in others:
        console.print("  " + escape(_change_line(change)))
    for note in report.notes:
        console.print(f"  note: {escape(note)}")
    if report.refusal:
        console.print(f"\n{report.refusal['code']}: {escape(report.refusal['reason'])}")
    for finding in report.expected:
        console.print(
            f"\n[yellow]no conversion can fix[/yellow] {finding['code']}: "
            f"{escape(finding['message'])}"
        )
    if report.suggestion:
        console.print(f"instead: {escape(report.suggestion)}")
    check = report.verification
    if check is not None:
        val, dif = check["validate"], check["diff"]
        console.print("\n[bold]Verification[/bold]")
        console.print(
            f"  validate {report.engine}: {'ok' if val['ok'] else 'FAILED'} "
            f"({val['summary']['errors']} error(s), {val['summary']['warnings']} warning(s))"
        )
        for err in val["errors"]:
            console.print(f"    {err['code']}: {escape(err['message'])}")
        console.print(
            f"  diff SRC DST: {'as planned' if dif['ok'] else 'FAILED'} "
            f"({dif['equal_tensors']} tensor(s) bit-equal)"
        )
        for problem in dif["problems"]:
            console.print(f"    {escape(problem)}")
    console.print("\n" + VERDICT[report.status])
