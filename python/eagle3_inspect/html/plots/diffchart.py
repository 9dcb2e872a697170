"""The diff chart: relative L2, cosine similarity and mismatched share per tensor, one panel each,
tensors grouped by decoder layer (one colour per group, groups in layer order)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from eagle3_inspect.html.markup import Markup
from eagle3_inspect.html.plots.svg import figure, label, to_svg

COLOURS = ("#0969da", "#bf3989", "#1a7f37", "#9a6700", "#8250df", "#cf222e", "#57606a")
PANELS = (
    ("rel_l2", "relative L2"),
    ("cosine", "cosine similarity"),
    ("mismatched", "mismatched share"),
)


@dataclass(frozen=True)
class ChartRow:
    """One compared tensor: its layer group, name, and metrics (None when not computed or not
    finite)."""

    group: str
    name: str
    rel_l2: float | None
    cosine: float | None
    mismatched: float | None


def finite(value: object) -> float | None:
    return float(value) if isinstance(value, (int, float)) and math.isfinite(value) else None


def diff_chart(rows: list[ChartRow], caption: str) -> Markup:
    """Horizontal bars, one row per tensor; rows arrive already grouped and ordered."""
    groups = list(dict.fromkeys(r.group for r in rows))
    colour = {g: COLOURS[i % len(COLOURS)] for i, g in enumerate(groups)}
    ys = list(range(len(rows)))[::-1]  # first row at the top
    with figure(10.0, 1.2 + 0.24 * len(rows)) as fig:
        axes = fig.subplots(1, len(PANELS), sharey=True)
        for ax, (field, title) in zip(axes, PANELS, strict=True):
            values = [getattr(r, field) for r in rows]
            ax.barh(
                ys,
                [v if v is not None else 0.0 for v in values],
                color=[colour[r.group] for r in rows],
                height=0.75,
            )
            missing = [y for y, v in zip(ys, values, strict=True) if v is None]
            ax.plot([0] * len(missing), missing, linestyle="none", marker="x", color="#57606a")
            ax.set_title(title)
            ax.grid(axis="x", alpha=0.3)
            for boundary in _group_boundaries(rows, ys):
                ax.axhline(boundary, color="#8c959f", linewidth=0.6)
        axes[0].set_yticks(ys, [label(r.name) for r in rows])
        axes[2].set_xlim(0, 1)
        handles = [_patch(colour[g]) for g in groups]
        fig.legend(
            handles,
            [label(g) for g in groups],
            loc="outside lower center",
            ncols=min(len(groups), 6),
            title="layer",
        )
        return to_svg(fig, caption)


def _group_boundaries(rows: list[ChartRow], ys: list[int]) -> list[float]:
    return [ys[i] + 0.5 for i in range(1, len(rows)) if rows[i].group != rows[i - 1].group]


def _patch(colour: str) -> Any:
    from matplotlib.patches import Patch

    return Patch(color=colour)
