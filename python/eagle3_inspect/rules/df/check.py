"""`check_dflash`: every DF0xx drafter rule over one DFlash / DFlash2 drafter."""

from __future__ import annotations

from collections.abc import Mapping

from eagle3_inspect.findings import Finding
from eagle3_inspect.layout import Layout
from eagle3_inspect.reader.draft_config import DraftConfig
from eagle3_inspect.reader.tensorinfo import TensorInfo
from eagle3_inspect.rules.df import tensors as df
from eagle3_inspect.rules.df.config import read_dflash_config
from eagle3_inspect.rules.family.context import DrafterContext
from eagle3_inspect.rules.family.model import Family


def check_dflash(
    tensors: Mapping[str, TensorInfo],
    cfg: DraftConfig,
    layout: Layout,
    family: Family,
    *,
    dflash2: bool,
) -> list[Finding]:
    ctx = DrafterContext(tensors=tensors, cfg=cfg, layout=layout)
    dcfg = read_dflash_config(cfg)
    df.check_required(ctx, dcfg, dflash2)
    df.check_widths(ctx, dcfg)
    df.check_head(ctx)
    if dflash2:
        df.check_dflash2(ctx, dcfg)
    if cfg.present:
        df.check_config(ctx, dcfg)
    ids = dcfg.target_layer_ids
    if ids:
        layers = f"target layers {ids} (output-of, from {dcfg.ids_key})"
    elif dcfg.default_ids:
        layers = (
            f"no target layer ids (SGLang's default from num_target_layers: {dcfg.default_ids})"
        )
    else:
        layers = "no target layer ids"
    block = f", block size {dcfg.block_size}" if dcfg.block_size else ""
    mask = f", mask token {dcfg.mask_token_id}" if dcfg.mask_token_id is not None else ""
    ctx.emit("DF006", f"{family.title}: {len(layout.blocks)} layer(s), {layers}{block}{mask}")
    return ctx.findings
