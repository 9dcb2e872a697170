"""Human rendering of the rule catalogue (`eagle3-inspect rules [CODE]`)."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from eagle3_inspect.cli.render.common import STYLE, print_table
from eagle3_inspect.registry import Rule


def render_rules(rules: list[Rule], console: Console) -> None:
    table = Table(title=f"{len(rules)} rules", title_justify="left")
    table.add_column("code", no_wrap=True)
    table.add_column("severity", no_wrap=True)
    table.add_column("summary")
    for r in rules:
        table.add_row(r.code, f"[{STYLE[r.severity]}]{r.severity.value}[/]", escape(r.summary))
    print_table(console, table)
    console.print("Explain one with: eagle3-inspect rules CODE")


def render_rule(r: Rule, console: Console) -> None:
    console.print(
        f"[bold]{r.code}[/bold] ([{STYLE[r.severity]}]{r.severity.value}[/]): {escape(r.summary)}"
    )
    console.print()
    # Catalogue text is plain text: `[id + 1]` or `[H, K*Ht]` are not markup.
    console.print(r.explanation, markup=False)
    if r.example:
        console.print()
        console.print(f"[bold]Example:[/bold] {escape(r.example)}")
    if r.hint:
        console.print(f"[bold]Fix:[/bold] {escape(r.hint)}")
    if r.evidence:
        console.print()
        console.print("[bold]Evidence[/bold] (engine versions, file and function that decide it):")
        for line in r.evidence:
            console.print(f"  - {line}", markup=False)
