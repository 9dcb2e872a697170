"""Printing a FixReport in the format `fix --format` chose: `full` the rich view, `json` the
`fix/1` document, `concise` a line per change, note and finding then the summary line,
`github` a workflow annotation per refusal, warning or error (changes and notes as plain log
lines) then the summary, `jsonl` an object per record then a summary object. `html` is refused
before any work (`FIX_HTML`): a fix is an action, and its checks have their own HTML reports."""

from __future__ import annotations

import click

from eagle3_inspect.cli.emit import echo, emit_json
from eagle3_inspect.cli.json_stream import encode_record
from eagle3_inspect.cli.render.concise import concise_line
from eagle3_inspect.cli.render.fix_records import fix_records, fix_summary, fix_summary_object
from eagle3_inspect.cli.render.github import github_line
from eagle3_inspect.commands.fix import FixReport

FIX_HTML = (
    "--format html is not offered by fix: it reports an action, not a checkpoint "
    "(run validate --html or diff --html on DST for those reports)"
)


def emit_fix(report: FixReport, fmt: str) -> None:
    if fmt == "json":
        emit_json(report.to_dict())
        return
    if fmt == "full":
        from eagle3_inspect.cli.render.common import stdout_console
        from eagle3_inspect.cli.render.fix import render_fix

        render_fix(report, stdout_console())
        return
    for r in fix_records(report):
        if fmt == "jsonl":
            click.echo(encode_record(r.data))
        else:
            echo(github_line(r) if fmt == "github" and r.severity != "info" else concise_line(r))
    if fmt == "jsonl":
        click.echo(encode_record(fix_summary_object(report)))
    else:
        echo(fix_summary(report))
