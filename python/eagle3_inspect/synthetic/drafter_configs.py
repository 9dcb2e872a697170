"""config.json dicts for synthetic drafters, in the three real styles (reference C.1).

SGLang/SpecForge (`LlamaForCausalLMEagle3`, nested `eagle_config`), speculators
(`Eagle3Speculator`, `transformer_layer_config`, top-level aux ids) and original EAGLE
(`LlamaForCausalLM` + `draft_vocab_size`, no aux ids).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

MLA_CONFIG = {
    "q_lora_rank": 32,
    "kv_lora_rank": 16,
    "qk_nope_head_dim": 16,
    "qk_rope_head_dim": 8,
    "v_head_dim": 16,
}


@dataclass(frozen=True)
class ConfigSpec:
    """Everything a synthetic drafter's tensors and config are derived from."""

    dialect: str
    H: int
    Ht: int
    K: int
    Vd: int
    Vt: int
    heads: int
    kv_heads: int
    head_dim: int
    I: int  # noqa: E741 - the reference's name for the intermediate size
    layers: int
    style: str
    aux_layer_ids: list[int] | None
    mla: bool
    qwen3_norms: bool
    eagle31: str
    torch_dtype: str
    target_layers: int


def default_aux_ids(style: str, K: int, target_layers: int) -> list[int] | None:
    """Each trainer's default capture layers: output-of `[1, N//2-1, N-4]` for SpecForge,
    input-of `[2, N//2, N-3]` for speculators (reference C.4); none for original EAGLE."""
    n = target_layers
    if style == "eagle":
        return None
    base = [1, n // 2 - 1, n - 4] if style == "sglang" else [2, n // 2, n - 3]
    if K == 3:
        return base
    lo, hi = base[0], base[-1]
    step = (hi - lo) / max(K - 1, 1)
    return [round(lo + i * step) for i in range(K)]


def _model_fields(spec: ConfigSpec) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "attention_bias": False,
        "head_dim": spec.head_dim,
        "hidden_act": "silu",
        "hidden_size": spec.H,
        "intermediate_size": spec.I,
        "max_position_embeddings": 4096,
        "model_type": "qwen3" if spec.qwen3_norms else "llama",
        "num_attention_heads": spec.heads,
        "num_hidden_layers": spec.layers,
        "num_key_value_heads": spec.kv_heads,
        "rms_norm_eps": 1e-06,
        "rope_theta": 500000.0,
        "tie_word_embeddings": False,
        "vocab_size": spec.Vt,
    }
    if spec.mla:
        fields.update(MLA_CONFIG)
        fields["model_type"] = "kimi_k2"
    return fields


def _eagle31_flags(spec: ConfigSpec) -> dict[str, Any]:
    if spec.eagle31 == "input_norm":
        return {"norm_before_fc": True, "norm_output": True}
    if spec.eagle31 == "fc_norm":
        return {"fc_norm": True, "norm_output": True}
    return {}


def _architecture(spec: ConfigSpec) -> str:
    if spec.mla:
        return "Eagle3DeepseekV2ForCausalLM"
    if spec.style == "eagle":
        return "Qwen3ForCausalLM" if spec.qwen3_norms else "LlamaForCausalLM"
    return "LlamaForCausalLMEagle3"


def _sglang(spec: ConfigSpec, aux: list[int] | None) -> dict[str, Any]:
    config: dict[str, Any] = {"architectures": [_architecture(spec)], **_model_fields(spec)}
    config["draft_vocab_size"] = spec.Vd
    config["torch_dtype"] = spec.torch_dtype
    if spec.Ht != spec.H:
        config["target_hidden_size"] = spec.Ht
    eagle_config: dict[str, Any] = {}
    if aux is not None:
        eagle_config = {"eagle_aux_hidden_state_layer_ids": aux, "use_aux_hidden_state": True}
    eagle_config.update(_eagle31_flags(spec))
    if eagle_config:
        config["eagle_config"] = eagle_config
    return dict(sorted(config.items()))


def _speculators(spec: ConfigSpec, aux: list[int] | None) -> dict[str, Any]:
    flags = {"norm_before_fc": False, "fc_norm": False, "norm_output": False}
    flags.update(_eagle31_flags(spec))
    return {
        "architectures": ["Eagle3Speculator"],
        "auto_map": {"": "eagle3.Eagle3SpeculatorConfig"},
        "draft_vocab_size": spec.Vd,
        "eagle_aux_hidden_state_layer_ids": aux,
        "embed_requires_grad": False,
        **flags,
        "norm_before_residual": False,
        "speculators_config": {
            "algorithm": "eagle3",
            "default_proposal_method": "greedy",
            "proposal_methods": [
                {
                    "accept_tolerance": 0.0,
                    "proposal_type": "greedy",
                    "speculative_tokens": 3,
                    "verifier_accept_k": 1,
                }
            ],
            "verifier": {
                "architectures": ["LlamaForCausalLM"],
                "name_or_path": "synthetic/target-model",
            },
        },
        "speculators_model_type": "eagle3",
        "speculators_version": "0.3.0",
        "target_hidden_size": spec.Ht,
        "tie_word_embeddings": False,
        "torch_dtype": spec.torch_dtype,
        "transformer_layer_config": _model_fields(spec),
    }


def build_config(spec: ConfigSpec) -> dict[str, Any]:
    """The config.json dict of a synthetic drafter in `spec.style`."""
    aux = spec.aux_layer_ids
    if aux is None:
        aux = default_aux_ids(spec.style, spec.K, spec.target_layers)
    if spec.style == "speculators":
        return _speculators(spec, aux)
    if spec.style in ("sglang", "eagle"):
        return _sglang(spec, aux)
    raise ValueError(f"config_style must be 'sglang', 'speculators' or 'eagle', not {spec.style!r}")
