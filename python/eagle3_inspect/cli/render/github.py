"""The `github` format: GitHub Actions workflow commands, one annotation per finding
(`::error file=...,title=CODE::message`). Escaping follows GitHub's toolkit: in the message
`%`, CR and LF; in property values also `:` and `,`."""

from __future__ import annotations

from eagle3_inspect.cli.render.records import Record

LEVEL = {"error": "error", "warning": "warning", "info": "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_line(r: Record) -> str:
    # The annotation's file is the tensor's shard (or config.json); the subject is named once.
    said = r.subject is None or r.subject.removeprefix("config:") in r.message
    message = r.message if said else f"{r.subject}: {r.message}"
    if r.hint:
        message = f"{message}\nfix: {r.hint}"
    props = f"file={escape_property(r.path)},title={escape_property(r.code)}"
    return f"::{LEVEL[r.severity]} {props}::{escape_data(message)}"
