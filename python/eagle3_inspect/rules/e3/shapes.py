"""E3 shape rules: fc against the aux layers, lm_head/embed against vocab sizes, layer shapes."""

from __future__ import annotations

from eagle3_inspect.reader.draft_config import as_int
from eagle3_inspect.rules.e3.context import E3Context


def target_width(ctx: E3Context) -> tuple[int | None, str]:
    """(Ht, where it came from): target_hidden_size, else hidden_size, else the tensors' H."""
    cfg = ctx.cfg
    ht = as_int(cfg.target_hidden_size)
    if ht:
        return ht, f"target_hidden_size {ht}"
    h = as_int(cfg.hidden_size) or ctx.layout.H
    return h, f"hidden_size {h} (no target_hidden_size)"


def check_fc(ctx: E3Context) -> None:
    """E3008, E3009 (seed bug 3), E3014, E3015."""
    shape, H = ctx.shape("fc.weight"), ctx.layout.H
    if shape is None or len(shape) != 2:
        return
    rows, width = shape
    if H is not None and rows != H:
        ctx.emit(
            "E3008", f"fc.weight is {list(shape)}: {rows} rows, hidden size {H}", tensor="fc.weight"
        )
    k, k_source = ctx.cfg.aux_count()
    ht, ht_source = target_width(ctx)
    if ht and width != k * ht:
        fc = "fc.weight"
        if width % ht == 0:
            ctx.emit(
                "E3009",
                f"fc.weight is {list(shape)}: built for {width // ht} aux layer(s) of width "
                f"{ht}, but the config gives {k_source}, so engines feed {k}*{ht} = {k * ht} "
                "features",
                tensor=fc,
                config_key=ctx.cfg.aux_layer_ids_key,
            )
        elif width % k == 0:
            ctx.emit(
                "E3014",
                f"fc.weight is {list(shape)}: with {k} aux layers it implies target hidden size "
                f"{width // k}, but the config gives {ht_source}",
                tensor=fc,
                config_key=ctx.cfg.config_key("target_hidden_size"),
            )
        else:
            ctx.emit(
                "E3009",
                f"fc.weight input width {width} is not {k_source} x {ht_source}",
                tensor=fc,
            )
    if ht and H and ht != H and not ctx.layout.has_embed:
        ctx.emit(
            "E3015",
            f"target hidden size {ht} != hidden_size {H} and no embed_tokens.weight: SGLang "
            "cannot share the target's embedding and keeps a random one",
            config_key=ctx.cfg.config_key("target_hidden_size"),
        )


def check_vocab_shapes(ctx: E3Context) -> None:
    """E3010 (lm_head vs draft_vocab_size) and E3011 (embed_tokens vs vocab_size)."""
    H, cfg = ctx.layout.H, ctx.cfg
    vd, vt = as_int(cfg.draft_vocab_size), as_int(cfg.vocab_size)
    head = ctx.shape("lm_head.weight")
    if head is not None and len(head) == 2:
        if vd is not None and head[0] != vd:
            ctx.emit(
                "E3010",
                f"lm_head.weight has {head[0]} rows, config draft_vocab_size is {vd}",
                tensor="lm_head.weight",
                config_key=cfg.config_key("draft_vocab_size"),
            )
        elif vd is None and vt is not None and head[0] != vt:
            ctx.emit(
                "E3010",
                f"lm_head.weight has {head[0]} rows but draft_vocab_size is missing: engines "
                f"assume the full vocabulary {vt} (SGLang loads the target's head instead)",
                tensor="lm_head.weight",
                config_key=cfg.config_key("draft_vocab_size"),
            )
        if H is not None and head[1] != H:
            ctx.emit(
                "E3010", f"lm_head.weight is {list(head)}, hidden size {H}", tensor="lm_head.weight"
            )
    embed = ctx.shape("embed_tokens.weight")
    if embed is not None and len(embed) == 2:
        if vt is not None and embed[0] != vt:
            ctx.emit(
                "E3011",
                f"embed_tokens.weight has {embed[0]} rows, config vocab_size is {vt}",
                tensor="embed_tokens.weight",
                config_key=cfg.config_key("vocab_size"),
            )
        if H is not None and embed[1] != H:
            ctx.emit(
                "E3011",
                f"embed_tokens.weight is {list(embed)}, hidden size {H}",
                tensor="embed_tokens.weight",
            )


def check_eagle31_shapes(ctx: E3Context) -> None:
    """E3027: input_norm is [K*Ht] (the fc input width), each fc_norm.N is [Ht]."""
    fc = ctx.shape("fc.weight")
    width = fc[1] if fc is not None and len(fc) == 2 else None
    shape = ctx.shape("input_norm.weight")
    if shape is not None and width is not None and shape != (width,):
        ctx.emit(
            "E3027",
            f"input_norm.weight is {list(shape)}, fc input width is {width}",
            tensor="input_norm.weight",
        )
    norms = [n for n in ctx.names.starting_with("fc_norm.") if n.endswith(".weight")]
    if norms and width is not None:
        expected = width // len(norms)
        for name in norms:
            if ctx.shape(name) != (expected,) or width % len(norms):
                ctx.emit(
                    "E3027",
                    f"{name} is {list(ctx.shape(name) or ())}; {len(norms)} fc_norms over fc "
                    f"input width {width} need [{expected}] each",
                    tensor=name,
                )
