"""DF drafter rules: the tensors a DFlash / DFlash2 drafter needs, their widths, fc against the
target layers it concatenates, the vocabulary head, and the config fields engines require.

A DFlash layer reads H-wide inputs (the context K/V come from `fc` + `hidden_norm` applied to
the K concatenated target states, injected into every layer), unlike EAGLE-3's 2H layer 0."""

from __future__ import annotations

from eagle3_inspect.reader.draft_config import as_int
from eagle3_inspect.rules.df.config import DFlashConfig
from eagle3_inspect.rules.family.context import DrafterContext

TOP = ("fc.weight", "hidden_norm.weight", "norm.weight")
ATTENTION = tuple(f"self_attn.{p}_proj.weight" for p in "qkvo")
QK_NORMS = ("self_attn.q_norm.weight", "self_attn.k_norm.weight")
MLP = ("mlp.gate_proj.weight", "mlp.up_proj.weight", "mlp.down_proj.weight")
NORMS = ("input_layernorm.weight", "post_attention_layernorm.weight")
CONV = ("base_kernel", "kernel_projection.weight")
SELECTOR = (
    "candidate_selector.hidden_projection.weight",
    "candidate_selector.predecessor_codebook",
    "candidate_selector.successor_codebook",
)


def _layer_names(ctx: DrafterContext, index: int, dflash2: bool) -> list[str]:
    prefix = f"layers.{index}."
    rests = [*ATTENTION, *MLP, *NORMS]
    if ctx.layout.qwen3_norms or str(ctx.cfg.model_type or "qwen3").startswith("qwen3"):
        rests += QK_NORMS
    if dflash2:
        rests += [f"{conv}.{part}" for conv in ("attention_conv", "mlp_conv") for part in CONV]
    return [prefix + rest for rest in rests]


def check_required(ctx: DrafterContext, dcfg: DFlashConfig, dflash2: bool) -> None:
    """DF001: what every DFlash drafter loads (vLLM qwen3_dflash.py DFlashQwen3Model, SGLang
    dflash.py DFlashDraftModel)."""
    names = list(TOP)
    layers = ctx.layout.layer_indices or list(range(as_int(ctx.cfg.num_hidden_layers) or 0))
    for index in layers:
        names += _layer_names(ctx, index, dflash2)
    if dflash2 and dcfg.dflash2.get("selector_rank"):
        names += SELECTOR
    for name in names:
        if not ctx.has(name):
            ctx.emit("DF001", f"{ctx.stored(name)} is missing", tensor=name)


def check_widths(ctx: DrafterContext, dcfg: DFlashConfig) -> None:
    """DF002 (layer inputs are H wide) and DF003 (fc is [H, K*Ht])."""
    H = ctx.layout.H
    if H is None:
        return
    for index in ctx.layout.layer_indices:
        for rest in (
            "self_attn.q_proj.weight",
            "self_attn.k_proj.weight",
            "self_attn.v_proj.weight",
        ):
            name = f"layers.{index}.{rest}"
            shape = ctx.shape(name)
            if shape is not None and len(shape) == 2 and shape[1] != H:
                ctx.emit(
                    "DF002",
                    f"{ctx.stored(name)} is {list(shape)}: input width {shape[1]}, a DFlash layer "
                    f"reads hidden_size {H}"
                    + (" (2H is the EAGLE-3 layer-0 layout)" if shape[1] == 2 * H else ""),
                    tensor=name,
                )
    fc = ctx.shape("fc.weight")
    if fc is None or len(fc) != 2:
        return
    ht = as_int(ctx.cfg.target_hidden_size) or H
    ids = dcfg.target_layer_ids if dcfg.target_layer_ids is not None else dcfg.default_ids
    if fc[0] != H or (ids is not None and fc[1] != len(ids) * ht):
        source = dcfg.ids_key or "the default from num_target_layers"
        k = f"{len(ids)} target layers ({source})" if ids is not None else "?"
        ctx.emit(
            "DF003",
            f"fc.weight is {list(fc)}; a DFlash fc projects {k} x Ht {ht} into H {H}"
            + (f" = [{H}, {len(ids) * ht}]" if ids is not None else ""),
            tensor="fc.weight",
            config_key=dcfg.ids_key,
        )


def check_config(ctx: DrafterContext, dcfg: DFlashConfig) -> None:
    """DF004 (no target layer ids), DF005 (no mask token), DF011 (malformed ids)."""
    if dcfg.ids_key is None:
        if dcfg.style == "speculators":
            effect = "vLLM's speculators adapter (update_dflash) refuses the config"
            key = "aux_hidden_state_layer_ids"
        else:
            built = (
                f"{dcfg.default_ids} from num_target_layers {dcfg.num_target_layers}"
                if dcfg.default_ids is not None
                else "a default from the target's layer count"
            )
            effect = (
                f"SGLang builds {built}; vLLM captures the target's default EAGLE-3 aux layers "
                f"(three) while sizing fc for num_hidden_layers "
                f"{as_int(ctx.cfg.num_hidden_layers)} features"
            )
            key = "dflash_config.target_layer_ids"
        ctx.emit("DF004", f"no target layer ids: {effect}", config_key=key)
    elif (
        dcfg.target_layer_ids is None
        or len(set(dcfg.target_layer_ids)) != len(dcfg.target_layer_ids)
        or min(dcfg.target_layer_ids) < 0
    ):
        ctx.emit(
            "DF011",
            f"{dcfg.ids_key} = {dcfg.ids_as_written!r}: not distinct non-negative layer ids "
            f"(as target_layer_ids: {dcfg.target_layer_ids})",
            config_key=dcfg.ids_key,
        )
    if dcfg.mask_token_id is None:
        speculators = dcfg.style == "speculators"
        effect = (
            "vLLM's speculators adapter (update_dflash) refuses the config"
            if speculators
            else "SGLang looks up its default mask token in the tokenizer; vLLM has none"
        )
        ctx.emit(
            "DF005",
            f"no mask_token_id: {effect}",
            config_key="mask_token_id" if speculators else "dflash_config.mask_token_id",
        )


def check_head(ctx: DrafterContext) -> None:
    """DF007: lm_head rows against draft_vocab_size, and its width against H."""
    head, H = ctx.shape("lm_head.weight"), ctx.layout.H
    vd = as_int(ctx.cfg.draft_vocab_size)
    if head is None or len(head) != 2:
        return
    if vd is not None and head[0] != vd:
        ctx.emit(
            "DF007",
            f"lm_head.weight has {head[0]} rows, config draft_vocab_size is {vd}",
            tensor="lm_head.weight",
            config_key=ctx.cfg.config_key("draft_vocab_size"),
        )
    if H is not None and head[1] != H:
        ctx.emit(
            "DF007", f"lm_head.weight is {list(head)}, hidden size {H}", tensor="lm_head.weight"
        )


def check_dflash2(ctx: DrafterContext, dcfg: DFlashConfig) -> None:
    """DF008: the grouped-convolution and selector tensors against their config sizes."""
    H = ctx.layout.H
    kernel, group = dcfg.dflash2.get("conv_kernel_size"), dcfg.dflash2.get("conv_group_size")
    for index in ctx.layout.layer_indices:
        for conv in ("attention_conv", "mlp_conv"):
            name = f"layers.{index}.{conv}.base_kernel"
            shape = ctx.shape(name)
            if (
                shape is not None
                and kernel is not None
                and H is not None
                and (len(shape) != 3 or shape[0] != kernel or shape[2] != H)
            ):
                ctx.emit(
                    "DF008",
                    f"{ctx.stored(name)} is {list(shape)}, conv_kernel_size {kernel}, H {H}",
                    tensor=name,
                )
            name = f"layers.{index}.{conv}.kernel_projection.weight"
            shape = ctx.shape(name)
            if shape is not None and group is not None and H is not None and shape != (group, H):
                ctx.emit(
                    "DF008",
                    f"{ctx.stored(name)} is {list(shape)}, expected [{group}, {H}] "
                    "(conv_group_size, H)",
                    tensor=name,
                )
    rank = dcfg.dflash2.get("selector_rank")
    shape = ctx.shape("candidate_selector.hidden_projection.weight")
    if shape is not None and rank is not None and H is not None and shape != (rank, H):
        ctx.emit(
            "DF008",
            f"candidate_selector.hidden_projection.weight is {list(shape)}, expected "
            f"[{rank}, {H}] (selector_rank, H)",
            tensor="candidate_selector.hidden_projection.weight",
        )
