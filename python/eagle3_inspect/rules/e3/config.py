"""E3 config rules: architecture string, layer count, tied head, aux layer ids, norm flags."""

from __future__ import annotations

from eagle3_inspect.echo import json_text
from eagle3_inspect.findings import Severity
from eagle3_inspect.reader.draft_config import as_int, lookup
from eagle3_inspect.rules.e3.context import E3Context

# architectures[0] values some engine serves as an EAGLE-3 drafter (reference C.2, A.7).
EAGLE3_ARCHITECTURES = frozenset(
    {
        "LlamaForCausalLMEagle3",
        "Eagle3LlamaForCausalLM",
        "EAGLE3LlamaForCausalLM",
        "Eagle3Speculator",
        "Eagle3Qwen3ForCausalLM",
        "Eagle3Qwen2_5vlForCausalLM",
        "Eagle3Qwen3vlForCausalLM",
        "Eagle3MiniMaxM2ForCausalLM",
        "PEagleDraftModel",
        *{"Eagle3DeepseekV2ForCausalLM", "Eagle3DeepseekV3ForCausalLM"},
        "Eagle3DeepSeekV3ForCausalLM",
    }
)
MLA_ARCHITECTURES = frozenset(
    {"Eagle3DeepseekV2ForCausalLM", "Eagle3DeepseekV3ForCausalLM", "Eagle3DeepSeekV3ForCausalLM"}
)
# Base-model classes that vLLM turns into Eagle3<arch> (original EAGLE releases use these).
BASE_ARCHITECTURES = frozenset({"LlamaForCausalLM", "Qwen3ForCausalLM"})


def check_architecture_string(ctx: E3Context) -> None:
    """E3017, E3018, E3024."""
    arch = ctx.cfg.architecture
    if arch in BASE_ARCHITECTURES:
        ctx.emit(
            "E3018",
            f"architectures[0] is the base class {arch!r}: vLLM maps it to Eagle3{arch}, "
            "SGLang needs LlamaForCausalLMEagle3",
            config_key="architectures",
        )
    elif arch not in EAGLE3_ARCHITECTURES and ctx.cfg.raw.get("speculators_model_type") != "eagle3":
        # A speculators-format config picks its class from speculators_model_type (vLLM's
        # speculators config adapter rewrites architectures; speculators' from_pretrained
        # dispatches on it), so architectures, written by save_pretrained from the class
        # name (Eagle3DraftModel), decides nothing there.
        shown = repr(arch) if arch else "missing"
        ctx.emit("E3017", f"architectures[0] is {shown}", config_key="architectures")
    if arch is None or not ctx.layout.blocks:
        return
    if ctx.layout.mla and arch not in MLA_ARCHITECTURES:
        ctx.emit(
            "E3024",
            f"MLA attention tensors with architecture {arch!r}: the Llama EAGLE-3 class drops them",
            config_key="architectures",
        )
    elif arch in MLA_ARCHITECTURES and not ctx.layout.mla:
        ctx.emit(
            "E3024",
            f"architecture {arch!r} expects MLA attention (q_a_proj, kv_a_proj_with_mqa) but "
            "the layer has standard q/k/v projections",
            config_key="architectures",
        )


def check_layers_and_tie(ctx: E3Context) -> None:
    """E3012 (num_hidden_layers vs blocks) and E3013 (tie_word_embeddings)."""
    declared, blocks = as_int(ctx.cfg.num_hidden_layers), len(ctx.layout.blocks)
    if declared is not None and blocks and declared != blocks:
        ctx.emit(
            "E3012",
            f"num_hidden_layers is {declared}, the weights hold {blocks} layer block(s)",
            config_key=ctx.cfg.config_key("num_hidden_layers"),
        )
    for key in ("tie_word_embeddings", "transformer_layer_config.tie_word_embeddings"):
        found, value = lookup(ctx.cfg.raw, key)
        if found and value is True:
            ctx.emit("E3013", f"{key} is true", config_key=key)


def check_aux_ids(ctx: E3Context) -> None:
    """E3019 (missing), E3020 (two locations disagree), E3021 (malformed)."""
    cfg = ctx.cfg
    sources = {k: v for k, v in cfg.aux_layer_id_sources.items() if v is not None}
    if not sources:
        if cfg.use_aux_hidden_state is not False:
            ctx.emit(
                "E3019",
                "no eagle_aux_hidden_state_layer_ids (top level or eagle_config): engines "
                "fall back to their own default capture layers",
                config_key=cfg.config_key("aux_layer_ids"),
            )
        return
    values = list(sources.items())
    for key, value in values[1:]:
        if value != values[0][1]:
            ctx.emit(
                "E3020",
                f"{values[0][0]} = {values[0][1]} but {key} = {value}",
                config_key=key,
            )
    for key, value in values:
        problem = _aux_problem(value)
        if problem:
            ctx.emit("E3021", f"{key} = {json_text(value)}: {problem}", config_key=key)


def _aux_problem(value: object) -> str | None:
    if not isinstance(value, list) or not value:
        return "not a non-empty list"
    if any(as_int(v) is None for v in value):
        return "not all integers"
    if any(v < -1 for v in value) or (-1 in value and len(value) > 1 and value[-1] != -1):
        return "negative layer index"
    if len(set(value)) != len(value):
        return "duplicate layer ids"
    return None


def check_norm_flags(ctx: E3Context) -> None:
    """E3025/E3026 (Eagle 3.1 weights vs flags) and E3029 (implicit norm_before_residual)."""
    flags, names = ctx.cfg.norm_flags, ctx.names
    pairs = (
        ("norm_before_fc", ["input_norm.weight"] if "input_norm.weight" in names else []),
        ("fc_norm", names.starting_with("fc_norm.")),
    )
    for flag, tensors in pairs:
        on = flags.get(flag) is True
        if tensors and not on and ctx.cfg.present:
            ctx.emit(
                "E3025",
                f"{', '.join(tensors)} present but {flag} is {flags.get(flag, 'absent')}",
                tensor=tensors[0],
                config_key=ctx.cfg.config_key(flag),
            )
        if on and not tensors:
            ctx.emit(
                "E3026",
                f"{flag} is true but no {'input_norm' if flag == 'norm_before_fc' else flag} "
                "weight is stored",
                config_key=ctx.cfg.config_key(flag),
            )
    if ctx.cfg.style == "speculators" and "norm_before_residual" not in flags:
        ctx.emit(
            "E3029",
            "norm_before_residual is not written: vLLM assumes true, SGLang false",
            config_key="norm_before_residual",
        )


def check_dialect_style(ctx: E3Context) -> None:
    """E3033: `layers.N` keys under an SGLang-style config (seed bug 1), or the reverse."""
    dialect, style = ctx.layout.dialect, ctx.cfg.style
    if dialect == "layers" and style == "sglang" and ctx.cfg.architecture not in MLA_ARCHITECTURES:
        ctx.emit(
            "E3033",
            f"layers.N.* keys with an SGLang-style config ({ctx.cfg.architecture}): SGLang up to "
            "0.5.11 expects midlayer.* and silently skips these, leaving the layer random",
            tensor=ctx.block(0, "self_attn.q_proj.weight"),
            config_key="architectures",
        )
    elif dialect == "midlayer" and style == "speculators":
        ctx.emit(
            "E3033",
            "midlayer.* keys with a speculators config: speculators expects layers.N.* "
            "(vLLM and TRT-LLM rename midlayer.)",
            severity=Severity.INFO,
            config_key="speculators_model_type",
        )
