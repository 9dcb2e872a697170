"""Human rendering of a FixReport: the plan (renames folded), the verification, the verdict."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape

from eagle3_inspect.cli.render.fix_records import change_subject, change_text, verdict
from eagle3_inspect.commands.fix import FixReport

# Renames beyond this many are folded into one line (--format json / jsonl / concise list all).
FOLD_AFTER = 6
COLOUR = {"fixed": "green", "planned": "cyan", "nothing-to-do": "green"}


def _verdict(report: FixReport) -> str:
    label, what = verdict(report)
    colour = "red" if report.blocked else COLOUR.get(report.status, "red")
    return f"[{colour}]{label}[/{colour}]: {what}"


def _change_line(change: dict[str, Any]) -> str:
    kind = change["kind"]
    subject = change.get("key") if kind == "config" else change_subject(change)
    shown = [subject] if subject and subject != kind else []
    return " ".join([f"{kind:<7}", *shown, change_text(change)])


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
        console.print(
            f"  ... and {len(renames) - FOLD_AFTER} more renames (--format concise lists all)"
        )
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
    console.print("\n" + _verdict(report))
