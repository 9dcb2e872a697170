"""The d2t mapping drawn as draft id -> target id. A correct mapping is a rising curve under the
target vocabulary; absolute ids read as offsets, duplicates or out-of-range ids show at a glance."""

from __future__ import annotations

from collections.abc import Sequence

from eagle3_inspect.html.markup import Markup
from eagle3_inspect.html.plots.svg import figure, to_svg

# More points than this are thinned to every k-th draft id (the SVG stays small).
MAX_POINTS = 2000
POINTS = "#8250df"
ENGINE = "#fb8f44"


def d2t_plot(
    target_ids: Sequence[int],
    vt: int | None,
    caption: str,
    engine_ids: Sequence[int] | None = None,
) -> Markup:
    """`target_ids[i]` is the target token of draft id i; `vt` the target vocabulary size;
    `engine_ids[i]`, when given, the token an engine would use instead (a mis-encoded d2t)."""
    count = len(target_ids)
    step = max(1, -(-count // MAX_POINTS))
    xs = list(range(0, count, step))
    ys = [int(target_ids[i]) for i in xs]
    with figure(7.0, 3.2) as fig:
        ax = fig.add_subplot()
        ax.plot(
            xs,
            ys,
            linestyle="none",
            marker=".",
            markersize=2.5,
            color=POINTS,
            label="as the checkpoint means it",
        )
        if engine_ids is not None:
            wrong = [int(engine_ids[i]) for i in xs]
            ax.plot(
                xs,
                wrong,
                linestyle="none",
                marker=".",
                markersize=2.5,
                color=ENGINE,
                label="as engines read it (draft id + d2t)",
            )
            ax.legend(loc="lower right", markerscale=4)
        if vt:
            ax.axhline(vt, color="#cf222e", linewidth=0.8, linestyle="--")
            ax.annotate(
                f"target vocab {vt}",
                (0, vt),
                textcoords="offset points",
                xytext=(2, 3),
                color="#cf222e",
            )
        ax.set_xlabel("draft token id")
        ax.set_ylabel("target token id")
        thinned = f" (every {step}th id of {count})" if step > 1 else ""
        ax.set_title(f"d2t: draft id -> target id{thinned}")
        ax.grid(alpha=0.3)
        return to_svg(fig, caption)
