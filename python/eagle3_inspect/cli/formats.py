"""The format a command prints (`--format`, its `--json` alias; the default `full` on a terminal,
`concise` otherwise), and the HTML guard that turns a missing `eagle3-inspect[html]` into one
line and exit 2 before any work is done. The options themselves are in `cli/options.py`."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable

import click

from eagle3_inspect.cli.options import Output

HTML_MISSING = (
    "HTML reports need eagle3-inspect[html] (matplotlib and the HTML renderer): "
    "pip install 'eagle3-inspect[html]'"
)


class FormatError(Exception):
    """A format cannot be produced here (the HTML extra is missing)."""


def chosen_format(output: Output, default: str | None = None) -> str:
    """The format `output` asks for (`default`, when given, instead of the terminal's)."""
    return resolve_format(output.output_format or default, output.as_json)


def report_format(output: Output) -> str:
    """`chosen_format`, having checked, before any work is done, that HTML can be made when it
    is asked for and that `--html FILE` may be written (absent, or an HTML report)."""
    fmt = chosen_format(output)
    if fmt == "html" or output.html_file is not None:
        html_renderer()
    if output.html_file is not None:
        from eagle3_inspect.writing import check_html_target

        check_html_target(output.html_file)
    return fmt


def resolve_format(output_format: str | None, as_json: bool) -> str:
    if as_json:
        if output_format not in (None, "json"):
            raise click.UsageError(f"--json conflicts with --format {output_format}")
        return "json"
    if output_format is not None:
        return output_format
    return "full" if sys.stdout.isatty() else "concise"


def html_renderer() -> Callable[..., str]:
    """`render_html(report, command=...) -> str` from the optional HTML renderer, or
    FormatError."""
    if importlib.util.find_spec("matplotlib") is None:
        raise FormatError(HTML_MISSING)
    try:
        module = importlib.import_module("eagle3_inspect.html.report")
    except ImportError as exc:
        raise FormatError(HTML_MISSING) from exc
    render: Callable[..., str] = module.render_html
    return render
