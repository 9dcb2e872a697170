"""Grouping diff pairs by decoder layer for the chart: `layers.N.` and `midlayer[.N].` blocks in
layer order, everything else (fc, norm, lm_head, embeddings, d2t) after them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from eagle3_inspect.html.plots.diffchart import ChartRow, finite
from eagle3_inspect.layout.names import parse_block_key

OUTSIDE = "outside layers"
# A chart with more rows than this shows the most-changed tensors (by relative L2) only.
MAX_ROWS = 80


def layer_group(name: str) -> tuple[tuple[int, int], str]:
    """(sort key, label) of the decoder layer a tensor belongs to (the layout's key grammar)."""
    key = parse_block_key(name)
    if key is None:
        return (1, 0), OUTSIDE
    return (0, key.index), f"layer {key.index}"


def chart_rows(pairs: Iterable[tuple[str, Mapping[str, Any]]]) -> tuple[list[ChartRow], int]:
    """Chart rows for (name, metrics) pairs, grouped and ordered, and how many were left out."""
    rows = []
    for name, m in pairs:
        numel, mismatched = m.get("numel"), m.get("mismatched")
        mismatch_share = (
            mismatched / numel
            if isinstance(mismatched, int) and isinstance(numel, int) and numel
            else None
        )
        key, group = layer_group(name)
        row = ChartRow(
            group, name, finite(m.get("rel_l2")), finite(m.get("cosine")), finite(mismatch_share)
        )
        rows.append((key, row))
    left_out = max(0, len(rows) - MAX_ROWS)
    if left_out:
        rows = sorted(rows, key=lambda kr: -(kr[1].rel_l2 or 0.0))[:MAX_ROWS]
    rows.sort(key=lambda kr: (kr[0], kr[1].name))
    return [row for _, row in rows], left_out
