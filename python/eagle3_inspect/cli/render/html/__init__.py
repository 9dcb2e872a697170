"""The self-contained HTML report (`--html FILE`, `--format html`): `render_html(report)`."""

from eagle3_inspect.cli.render.html.report import render_html

__all__ = ["render_html"]
