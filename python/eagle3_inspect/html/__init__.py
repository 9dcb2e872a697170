"""Every piece of HTML the package writes, in one face beside the CLI: the building blocks
(escaping, tables, bars, the findings table, the page shell, matplotlib SVG `plots/`), each
report's body (`views/`) and the self-contained report page (`report.py`: `render_html`). The
notebook hooks (`_repr_html_` of Checkpoint and of each report) import their view from here when
called. Nothing imports matplotlib at module level."""
