"""Plots for the HTML report and notebook views, drawn by matplotlib (the `html` extra) as inline
SVG. matplotlib is imported inside the functions only, so `import eagle3_inspect` never loads it."""

from eagle3_inspect.html.plots.svg import plots_available, require_matplotlib

__all__ = ["plots_available", "require_matplotlib"]
