"""Printing a report (or the rule catalogue) in the chosen format: `full` through the rich
renderers (imported only then), `json`, the line formats `concise`, `github` and `jsonl` without
rich, and `html` through the optional HTML renderer."""

from __future__ import annotations

from typing import Any

import click

from eagle3_inspect.cli.formats import html_renderer
from eagle3_inspect.cli.json_stream import encode_record, write_json
from eagle3_inspect.cli.render.cluster import where_read_lines
from eagle3_inspect.cli.render.concise import concise_line, summary_line
from eagle3_inspect.cli.render.github import github_line
from eagle3_inspect.cli.render.records import Record, finding_records
from eagle3_inspect.registry import Rule
from eagle3_inspect.version import PRODUCER


def echo(text: str) -> None:
    """One line on stdout; lone surrogates (undecodable path bytes) go out as the original bytes."""
    click.echo(text.encode("utf-8", "surrogateescape"))


def emit_json(data: dict[str, Any]) -> None:
    """Strict JSON on stdout, streamed in batches (`cli/json_stream.py`)."""
    write_json(data, lambda text: click.echo(text, nl=False))


def emit_records(records: list[Record], fmt: str, summary: str | None) -> None:
    """`concise`: a line per record and the summary; `github`: an annotation per record and the
    summary as plain log text; `jsonl`: a JSON object per record and nothing else."""
    for r in records:
        if fmt == "jsonl":
            click.echo(encode_record(r.data))
        else:
            echo(github_line(r) if fmt == "github" else concise_line(r))
    if summary is not None and fmt != "jsonl":
        echo(summary)


def _records(kind: str, report: Any) -> tuple[list[Record], str]:
    if kind == "scan":
        s = report.summary()
        verdict = "errors found" if s["errors"] else "no errors"
        return finding_records(report.findings, report.checkpoint.path), summary_line(s, verdict)
    if kind == "validate":
        verdict = "PASS" if report.ok else "FAIL"
        line = summary_line(report.summary, verdict)
        return finding_records(report.findings, report.path), (
            f"{line} (failing on {report.fail_on.value} and above)"
        )
    from eagle3_inspect.cli.render.diff_records import diff_records, diff_summary

    return diff_records(report), diff_summary(report)


def _render_full(kind: str, report: Any) -> None:
    from eagle3_inspect.cli.render.common import stdout_console

    console = stdout_console()
    if kind == "scan":
        from eagle3_inspect.cli.render.scan import render_scan

        render_scan(report, console)
    elif kind == "validate":
        from eagle3_inspect.cli.render.validate import render_validate

        render_validate(report, console)
    else:
        from eagle3_inspect.cli.render.diff import render_diff

        render_diff(report, console)


def emit_report(kind: str, report: Any, fmt: str, html_file: str | None = None) -> None:
    """Prints `report` (a scan, validate or diff report) as `fmt`; with `html_file`, also writes
    the HTML report there."""
    if html_file is not None:
        from eagle3_inspect.writing import check_html_target, write_replacing

        check_html_target(html_file)  # again: the work took a while
        write_replacing(html_file, html_renderer()(report))
    if fmt == "json":
        # scan and validate hand the writer record iterators: no million row dicts held at once.
        emit_json(report.to_dict(stream=True) if kind in ("scan", "validate") else report.to_dict())
    elif fmt == "full":
        _render_full(kind, report)
    elif fmt == "html":
        click.echo(html_renderer()(report))
    else:
        records, summary = _records(kind, report)
        emit_records(records, fmt, summary)
    if fmt in ("full", "concise", "github"):
        for line in where_read_lines(kind, report):
            echo(line)


def emit_rules(rules: list[Rule], fmt: str, single: bool) -> None:
    """The catalogue (or, `single`, one rule): `concise` and `github` print `CODE [severity]
    summary` per rule, `jsonl` one rule per line; `html` is refused before this is reached."""
    if fmt == "json":
        if single:
            emit_json(rules[0].to_dict())
        else:
            emit_json(
                {
                    "schema": "eagle3-inspect/rules/1",
                    "producer": PRODUCER,
                    "rules": [r.to_dict() for r in rules],
                }
            )
    elif fmt == "jsonl":
        for r in rules:
            click.echo(encode_record({"schema": "eagle3-inspect/rule/1", **r.to_dict()}))
    elif fmt in ("concise", "github"):
        for r in rules:
            echo(f"{r.code} [{r.severity.value}] {r.summary}")
    else:
        from eagle3_inspect.cli.render.common import stdout_console
        from eagle3_inspect.cli.render.rules import render_rule, render_rules

        if single:
            render_rule(rules[0], stdout_console())
        else:
            render_rules(rules, stdout_console())
