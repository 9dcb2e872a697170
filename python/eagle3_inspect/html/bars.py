"""Sparkline bars in plain CSS: a cell-sized track with a filled share, for tables of numbers."""

from __future__ import annotations

import math

from eagle3_inspect.html.markup import Markup, esc, tag


def share(part: float | None, whole: float | None) -> float | None:
    """`part / whole` clamped to [0, 1]; None when it cannot be computed."""
    if part is None or whole is None or not whole or not math.isfinite(part / whole):
        return None
    return min(max(part / whole, 0.0), 1.0)


def bar(fraction: float | None, label: object, *, kind: str = "value") -> Markup:
    """A bar filled to `fraction` (0..1) followed by `label`; `kind` picks the colour
    (`value`, `zero`, `bad`). An unknown fraction shows the label alone."""
    text = tag("span", label, class_="num")
    if fraction is None:
        return text
    width = f"width:{fraction * 100:.1f}%"
    fill = tag("span", "", class_=f"fill {kind}", style=width)
    return Markup(tag("span", fill, class_="bar", title=esc(label)) + text)
