"""Grouping diff pairs by decoder layer for the chart, and the metrics each row carries."""

from __future__ import annotations

import math

from eagle3_inspect.html.views.layers import MAX_ROWS, OUTSIDE, chart_rows, layer_group


def test_groups_follow_the_layout_key_grammar():
    assert layer_group("layers.3.mlp.up_proj.weight") == ((0, 3), "layer 3")
    assert layer_group("midlayer.self_attn.q_proj.weight") == ((0, 0), "layer 0")
    assert layer_group("midlayer.1.hidden_norm.weight") == ((0, 1), "layer 1")
    assert layer_group("model.layers.2.input_layernorm.weight") == ((0, 2), "layer 2")
    assert layer_group("fc.weight") == ((1, 0), OUTSIDE)


def test_rows_are_in_layer_order_and_non_finite_metrics_are_missing():
    metrics = {"rel_l2": 0.5, "cosine": 0.9, "mismatched": 3, "numel": 12}
    rows, left_out = chart_rows(
        [
            ("fc.weight", {"rel_l2": math.inf, "cosine": math.nan, "mismatched": 1, "numel": 0}),
            ("layers.10.a", metrics),
            ("layers.2.b", metrics),
            ("layers.2.a", {}),
        ]
    )
    assert left_out == 0
    assert [r.name for r in rows] == ["layers.2.a", "layers.2.b", "layers.10.a", "fc.weight"]
    assert (rows[1].rel_l2, rows[1].cosine, rows[1].mismatched) == (0.5, 0.9, 0.25)
    assert (rows[3].rel_l2, rows[3].cosine, rows[3].mismatched) == (None, None, None)
    assert rows[0].rel_l2 is None


def test_long_diffs_keep_the_most_changed():
    pairs = [(f"layers.0.t{i:03d}", {"rel_l2": float(i)}) for i in range(MAX_ROWS + 7)]
    rows, left_out = chart_rows(pairs)
    assert left_out == 7 and len(rows) == MAX_ROWS
    assert min(r.rel_l2 for r in rows) == 7.0
