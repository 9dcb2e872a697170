"""`--format` (and its `--json` alias) and `--html FILE`: the shared click options, choosing
the default (`full` on a terminal, `concise` otherwise), and the HTML guard that turns a missing
`eagle3-inspect[html]` into one line and exit 2 before any work is done."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable
from typing import Any

import click

FORMATS = ("full", "concise", "json", "jsonl", "github", "html")
HTML_MISSING = (
    "HTML reports need eagle3-inspect[html] (matplotlib and the HTML renderer): "
    "pip install 'eagle3-inspect[html]'"
)


class FormatError(Exception):
    """A format cannot be produced here (missing extra, or not offered by this command)."""


def format_options(json_schema: str, html: bool = True) -> Callable[[Any], Any]:
    """`--format`, `--json` (alias of `--format json`) and, when `html`, `--html FILE`."""

    def decorate(command: Any) -> Any:
        if html:
            command = click.option(
                "--html",
                "html_file",
                type=click.Path(dir_okay=False, writable=True, path_type=str),
                metavar="FILE",
                help="Also write a self-contained HTML report to FILE.",
            )(command)
        command = click.option(
            "--json",
            "as_json",
            is_flag=True,
            help=f"Alias of --format json ({json_schema}).",
        )(command)
        return click.option(
            "--format",
            "output_format",
            type=click.Choice(FORMATS),
            help="Output format (default: full on a terminal, concise otherwise).",
        )(command)

    return decorate


def resolve_format(output_format: str | None, as_json: bool) -> str:
    if as_json:
        if output_format not in (None, "json"):
            raise click.UsageError(f"--json conflicts with --format {output_format}")
        return "json"
    if output_format is not None:
        return output_format
    return "full" if sys.stdout.isatty() else "concise"


def html_renderer() -> Callable[[Any], str]:
    """`render_html(report) -> str` from the optional HTML renderer, or FormatError."""
    if importlib.util.find_spec("matplotlib") is None:
        raise FormatError(HTML_MISSING)
    try:
        module = importlib.import_module("eagle3_inspect.cli.render.html")
    except ImportError as exc:
        raise FormatError(HTML_MISSING) from exc
    return module.render_html
