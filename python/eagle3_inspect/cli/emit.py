"""Printing a report (or the rule catalogue) in the chosen format, the same way for every report
(its face: `render/faces.py`): `json` its document, `full` its rich view (rich imported only
then), the line formats `concise`, `github` and `jsonl` from its line records without rich, and
`html` through the optional HTML renderer; `full`, `concise` and `github` end with where the
bytes were read (a cluster's nodes, a remote source)."""

from __future__ import annotations

from typing import Any

import click

from eagle3_inspect.cli.formats import html_renderer
from eagle3_inspect.cli.json_stream import write_json
from eagle3_inspect.cli.render.cluster import where_read_lines
from eagle3_inspect.cli.render.concise import concise_line
from eagle3_inspect.cli.render.github import github_line
from eagle3_inspect.commands.report import CommandReport
from eagle3_inspect.jsontext import encode_record
from eagle3_inspect.registry import Rule
from eagle3_inspect.version import PRODUCER

# `click.Context.meta` key: the command line as typed (`cli/main.py`), for the HTML footer.
COMMAND_LINE = "eagle3_inspect.command_line"


def echo(text: str) -> None:
    """One line on stdout; lone surrogates (undecodable path bytes) go out as the original bytes."""
    click.echo(text.encode("utf-8", "surrogateescape"))


def emit_json(data: dict[str, Any]) -> None:
    """Strict JSON on stdout, streamed in batches (`cli/json_stream.py`)."""
    write_json(data, lambda text: click.echo(text, nl=False))


def _html(report: CommandReport) -> str:
    """The HTML report, its footer naming the command line that made it."""
    ctx = click.get_current_context(silent=True)
    command = ctx.meta.get(COMMAND_LINE) if ctx is not None else None
    return html_renderer()(report, command=command)


def emit_report(report: CommandReport, fmt: str, html_file: str | None = None) -> None:
    """Prints `report` as `fmt`; with `html_file`, also writes its HTML report there."""
    from eagle3_inspect.cli.render.faces import face_of

    face = face_of(report)
    if html_file is not None:
        from eagle3_inspect.writing import check_html_target, write_replacing

        check_html_target(html_file)  # again: the work took a while
        write_replacing(html_file, _html(report))
    if fmt == "json":
        # Per-tensor lists come as record iterators: no million row dicts held at once.
        emit_json(report.to_dict(stream=True))
    elif fmt == "full":
        from eagle3_inspect.cli.render.common import stdout_console

        face.full(report, stdout_console())
    elif fmt == "html":
        click.echo(_html(report))
    elif fmt == "jsonl":
        for obj in face.listing_objects(report) if face.listing_objects else ():
            click.echo(encode_record(obj))
        for r in face.records(report):
            click.echo(encode_record(r.data))
        if face.summary_object is not None:
            click.echo(encode_record(face.summary_object(report)))
    else:
        if fmt == "concise" and face.listing_lines is not None:
            for line in face.listing_lines(report):
                echo(line)
        for r in face.records(report):
            annotate = fmt == "github" and (face.notices or r.severity != "info")
            echo(github_line(r) if annotate else concise_line(r))
        echo(face.summary(report))
    if fmt in ("full", "concise", "github"):
        for line in where_read_lines(report):
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
