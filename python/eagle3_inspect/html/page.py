"""The page shell: a whole offline document for the HTML report, or a scoped fragment for a
notebook cell. The document's Content-Security-Policy forbids every network load and script."""

from __future__ import annotations

from eagle3_inspect.html.markup import Markup, esc
from eagle3_inspect.html.style import CSS
from eagle3_inspect.version import PRODUCER

# Inline styles only (matplotlib's SVG carries <style> blocks); no scripts, fonts or fetches.
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"


def document(title: object, body: Markup, footer: Markup) -> str:
    """One self-contained HTML document: every asset inline, nothing fetched; `footer` says what
    wrote it, when and from which command (`html/provenance.py`)."""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta name="generator" content="{esc(PRODUCER)}">'
        f"<title>{esc(title)}</title><style>{CSS}</style></head>\n"
        f'<body class="e3i">\n{body}\n{footer}\n</body></html>\n'
    )


def fragment(body: Markup) -> str:
    """A notebook view: the same pieces and style, scoped under one element."""
    return f'<div class="e3i"><style>{CSS}</style>{body}</div>'
