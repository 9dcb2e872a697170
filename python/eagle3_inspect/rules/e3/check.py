"""`check_drafter`: runs every E30xx drafter-only rule (tensors.py, shapes.py, layers.py,
config.py) over one drafter's tensors and config."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from eagle3_inspect.findings import Finding
from eagle3_inspect.layout import Layout, detect_layout
from eagle3_inspect.reader.draft_config import DraftConfig, read_draft_config
from eagle3_inspect.reader.tensorinfo import TensorInfo
from eagle3_inspect.rules.e3 import config as e3_config
from eagle3_inspect.rules.e3 import layers as e3_layers
from eagle3_inspect.rules.e3 import shapes as e3_shapes
from eagle3_inspect.rules.e3 import tensors as e3_tensors
from eagle3_inspect.rules.e3.context import E3Context

TENSOR_RULES = (
    e3_tensors.check_required,
    e3_tensors.check_dialect,
    e3_tensors.check_attention_widths,
    e3_tensors.check_dtypes,
    e3_shapes.check_fc,
    e3_shapes.check_eagle31_shapes,
    e3_layers.check_layer_shapes,
)
CONFIG_RULES = (
    e3_shapes.check_vocab_shapes,
    e3_config.check_architecture_string,
    e3_config.check_layers_and_tie,
    e3_config.check_aux_ids,
    e3_config.check_norm_flags,
    e3_config.check_dialect_style,
)


def check_drafter(
    tensors: Mapping[str, TensorInfo],
    config: dict[str, Any] | DraftConfig | None,
    layout: Layout | None = None,
) -> list[Finding]:
    """Every E3 drafter rule over `tensors` and `config` (raw dict or DraftConfig).

    `layout` is computed when not given. Without a config only the tensor rules run (plus an
    E3030 info).
    """
    cfg = config if isinstance(config, DraftConfig) else read_draft_config(config)
    layout = layout if layout is not None else detect_layout(tensors, cfg)
    ctx = E3Context(tensors=tensors, cfg=cfg, layout=layout)
    for rule in TENSOR_RULES:
        rule(ctx)
    if cfg.present:
        for rule in CONFIG_RULES:
            rule(ctx)
    else:
        ctx.emit("E3030", "no config.json given: architecture, vocab and aux-id checks skipped")
    return ctx.findings
