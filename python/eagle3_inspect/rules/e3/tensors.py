"""E3 tensor rules: required tensors, key dialect, q/k/v widths, layer shapes, dtypes."""

from __future__ import annotations

from eagle3_inspect.findings import Severity
from eagle3_inspect.reader.draft_config import as_int
from eagle3_inspect.reader.dtypes import from_torch_dtype
from eagle3_inspect.rules.e3.context import E3Context

ATTENTION_INPUTS = (
    "self_attn.q_proj.weight",
    "self_attn.k_proj.weight",
    "self_attn.v_proj.weight",
    "self_attn.qkv_proj.weight",
    "self_attn.q_a_proj.weight",
    "self_attn.kv_a_proj_with_mqa.weight",
)
MLA_REQUIRED = (
    "self_attn.kv_a_proj_with_mqa.weight",
    "self_attn.kv_a_layernorm.weight",
    "self_attn.kv_b_proj.weight",
    "self_attn.o_proj.weight",
)
MLP = ("mlp.gate_proj.weight", "mlp.up_proj.weight", "mlp.down_proj.weight")
FIRST_LAYER_NORMS = (
    "input_layernorm.weight",
    "hidden_norm.weight",
    "post_attention_layernorm.weight",
)


def _attention_required(ctx: E3Context, index: int) -> list[str]:
    def present(rest: str) -> bool:
        return ctx.has(ctx.block(index, rest) or "")

    if ctx.layout.mla:
        q = ["self_attn.q_proj.weight"]
        if present("self_attn.q_a_proj.weight") or not present("self_attn.q_proj.weight"):
            q = ["self_attn.q_a_proj.weight", "self_attn.q_a_layernorm.weight"]
            q.append("self_attn.q_b_proj.weight")
        return [*q, *MLA_REQUIRED]
    if present("self_attn.qkv_proj.weight"):
        return ["self_attn.qkv_proj.weight", "self_attn.o_proj.weight"]
    return [f"self_attn.{p}_proj.weight" for p in "qkvo"]


def _mlp_required(ctx: E3Context, index: int) -> tuple[str, ...]:
    if ctx.has(ctx.block(index, "mlp.gate_up_proj.weight") or ""):
        return ("mlp.gate_up_proj.weight", "mlp.down_proj.weight")
    return MLP


def check_required(ctx: E3Context) -> None:
    """E3001-E3003: the tensors every drafter needs, and at least one decoder block."""
    layout, cfg = ctx.layout, ctx.cfg
    top = ["norm.weight"]
    if cfg.use_aux_hidden_state is not False:
        top.insert(0, "fc.weight")
    for name in top:
        if not ctx.has(name):
            ctx.emit("E3001", f"{ctx.stored(name)} is missing", tensor=name)
    if not layout.blocks:
        ctx.emit("E3003", "no midlayer.* or layers.N.* keys: the decoder layer is absent")
    for index in layout.layer_indices:
        norms = FIRST_LAYER_NORMS if index == 0 else FIRST_LAYER_NORMS[2:]
        for rest in (*_attention_required(ctx, index), *_mlp_required(ctx, index), *norms):
            name = ctx.block(index, rest) or rest
            if not ctx.has(name):
                ctx.emit("E3001", f"{ctx.stored(name)} is missing", tensor=name)
    if not ctx.has("lm_head.weight"):
        _missing_lm_head(ctx)


def _missing_lm_head(ctx: E3Context) -> None:
    vd, vt = as_int(ctx.cfg.draft_vocab_size), as_int(ctx.cfg.vocab_size)
    reduced = vd is not None and (vt is None or vd < vt)
    detail = (
        f"draft_vocab_size {vd} < vocab_size {vt}: SGLang builds a random head (accept rate 0)"
        if reduced
        else "engines borrow the target's lm_head (full vocabulary)"
    )
    ctx.emit(
        "E3002",
        f"lm_head.weight is missing; {detail}",
        severity=Severity.ERROR if reduced else Severity.WARNING,
        tensor="lm_head.weight",
    )


def check_dialect(ctx: E3Context) -> None:
    """E3004, E3005, E3022, E3023, E3032: dialect mix, layout summary and variant warnings."""
    layout = ctx.layout
    if layout.mixed_dialect:
        ctx.emit("E3004", "mixed key dialects: " + "; ".join(layout.notes))
    if layout.blocks:
        variants = [
            v
            for v, on in (
                ("MLA attention", layout.mla),
                ("Qwen3 q_norm/k_norm", layout.qwen3_norms),
                ("Eagle 3.1 norms " + ", ".join(layout.eagle31_tensors), layout.eagle31),
                ("own embed_tokens", layout.has_embed),
            )
            if on
        ]
        count = len(layout.blocks)
        ctx.emit(
            "E3005",
            f"{layout.dialect} dialect, {count} decoder layer{'s' if count > 1 else ''}"
            + (f", {'; '.join(variants)}" if variants else ""),
        )
    if layout.qwen3_norms:
        name = ctx.block(0, "self_attn.k_norm.weight") or "self_attn.k_norm.weight"
        model_type = ctx.cfg.model_type
        if ctx.cfg.present and "qwen3" not in str(model_type).lower():
            ctx.emit(
                "E3022",
                f"q_norm/k_norm present but model_type is {model_type!r}: the Llama-style draft "
                "class has no such parameters and drops them",
                severity=Severity.ERROR,
                tensor=name,
                config_key=ctx.cfg.config_key("model_type"),
            )
        else:
            ctx.emit("E3022", "Qwen3-architecture attention norms (q_norm/k_norm)", tensor=name)
    if layout.multi_layer:
        ctx.emit("E3023", f"{len(layout.blocks)} decoder layers: {sorted(layout.blocks.values())}")
    if layout.key_prefix:
        ctx.emit("E3032", f"keys carry a leading {layout.key_prefix!r}")


def check_attention_widths(ctx: E3Context) -> None:
    """E3006/E3007: layer 0 projects 2H-wide inputs, later layers H-wide ones."""
    H = ctx.layout.H
    if H is None:
        return
    for index in ctx.layout.layer_indices:
        expected, code = (2 * H, "E3006") if index == 0 else (H, "E3007")
        for rest in ATTENTION_INPUTS:
            name = ctx.block(index, rest)
            shape = ctx.shape(name or "")
            if name and shape is not None and len(shape) == 2 and shape[1] != expected:
                ctx.emit(
                    code,
                    f"{ctx.stored(name)} is {list(shape)}: input width {shape[1]}, expected "
                    f"{expected} ({'2*' if index == 0 else ''}hidden_size {H})",
                    tensor=name,
                )


def check_dtypes(ctx: E3Context) -> None:
    """E3016/E3031: one float dtype across weights, matching config torch_dtype."""
    floats = ctx.layout.float_dtypes
    if len(floats) > 1:
        ctx.emit("E3016", f"weights mix float dtypes {floats}")
    wanted = from_torch_dtype(ctx.cfg.torch_dtype)
    if wanted and len(floats) == 1 and floats[0] != wanted:
        ctx.emit(
            "E3031",
            f"config torch_dtype is {ctx.cfg.torch_dtype} but the weights are {floats[0]}",
            config_key=ctx.cfg.config_key("torch_dtype"),
        )
