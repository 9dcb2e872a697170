"""Synthetic drafters of the families beside EAGLE-3, shaped like the producers' own output
(the layouts and config keys of tests/corpus): DFlash / DFlash2 in the speculators style
(`speculators_model_type`, `transformer_layer_config`, input-of `aux_hidden_state_layer_ids`)
or the z-lab style (SpecForge, Model-Optimizer: Qwen3 config with `dflash_config`, output-of
`target_layer_ids`), P-EAGLE (an EAGLE-3 drafter plus `mask_hidden`), and a small target model
checkpoint (what `validate` should call "a target model")."""

from __future__ import annotations

from typing import Any

from eagle3_inspect.synthetic.drafters import Drafter, _vocab, _Weights, build_drafter
from eagle3_inspect.synthetic.writer import RawTensor, TensorLike


def _reshaped(tensor: TensorLike, shape: tuple[int, ...]) -> TensorLike:
    """The same values under another shape (raw bf16 bytes or a numpy array)."""
    if isinstance(tensor, RawTensor):
        return RawTensor(tensor.dtype, shape, tensor.data)
    return tensor.reshape(shape)


def _dflash_layer(
    w: _Weights, H: int, heads: int, kv: int, hd: int, inter: int
) -> dict[str, TensorLike]:
    return {
        "self_attn.q_proj.weight": w.matrix(heads * hd, H),
        "self_attn.k_proj.weight": w.matrix(kv * hd, H),
        "self_attn.v_proj.weight": w.matrix(kv * hd, H),
        "self_attn.o_proj.weight": w.matrix(H, heads * hd),
        "self_attn.q_norm.weight": w.norm(hd),
        "self_attn.k_norm.weight": w.norm(hd),
        "mlp.gate_proj.weight": w.matrix(inter, H),
        "mlp.up_proj.weight": w.matrix(inter, H),
        "mlp.down_proj.weight": w.matrix(H, inter),
        "input_layernorm.weight": w.norm(H),
        "post_attention_layernorm.weight": w.norm(H),
    }


def _layer_config(
    H: int, layers: int, Vt: int, heads: int, kv: int, hd: int, inter: int
) -> dict[str, Any]:
    return {
        "model_type": "qwen3",
        "hidden_size": H,
        "intermediate_size": inter,
        "num_hidden_layers": layers,
        "num_attention_heads": heads,
        "num_key_value_heads": kv,
        "head_dim": hd,
        "vocab_size": Vt,
        "max_position_embeddings": 2048,
        "rms_norm_eps": 1e-6,
        "rope_parameters": {"rope_theta": 10000.0, "rope_type": "default"},
        "tie_word_embeddings": False,
    }


def build_dflash(
    *,
    style: str = "speculators",
    dflash2: bool = False,
    H: int = 64,
    layers: int = 2,
    Vt: int = 1000,
    Vd: int | None = 200,
    target_layer_ids: list[int] | None = None,
    mask_token_id: int | None = 0,
    heads: int = 4,
    kv_heads: int = 2,
    I: int = 128,  # noqa: E741 - the reference's name for the intermediate size
    seed: int = 0,
) -> Drafter:
    """A DFlash (or DFlash2) drafter. `target_layer_ids` are output-of ids (default [1, 3, 5];
    the speculators style writes them + 1 as `aux_hidden_state_layer_ids`); `Vd=None` is a full
    vocabulary (no lm_head, no d2t/t2d, as speculators and the z-lab exporters write it)."""
    if style not in ("speculators", "zlab"):
        raise ValueError(f"style must be 'speculators' or 'zlab', not {style!r}")
    ids = [1, 3, 5] if target_layer_ids is None else target_layer_ids
    hd = H // heads
    w = _Weights(seed, "BF16")
    tensors: dict[str, TensorLike] = {
        "fc.weight": w.matrix(H, len(ids) * H),
        "hidden_norm.weight": w.norm(H),
        "norm.weight": w.norm(H),
    }
    for index in range(layers):
        layer = _dflash_layer(w, H, heads, kv_heads, hd, I)
        if dflash2:
            for conv in ("attention_conv", "mlp_conv"):
                layer[f"{conv}.base_kernel"] = _reshaped(w.matrix(2, 2 * H), (2, 2, H))
                layer[f"{conv}.kernel_projection.weight"] = w.matrix(16, H)
        tensors.update({f"layers.{index}.{k}": v for k, v in layer.items()})
    if dflash2:
        tensors["candidate_selector.hidden_projection.weight"] = w.matrix(32, H)
        tensors["candidate_selector.predecessor_codebook"] = w.matrix(Vt, 32)
        tensors["candidate_selector.successor_codebook"] = w.matrix(Vt, 32)
    if Vd is not None and Vd < Vt:
        tensors["lm_head.weight"] = w.matrix(Vd, H)
        tensors.update(_vocab(w.rng, Vd, Vt))
    layer_cfg = _layer_config(H, layers, Vt, heads, kv_heads, hd, I)
    extra = (
        {"conv_kernel_size": 2, "conv_group_size": 16, "selector_rank": 32, "selector_top_k": 16}
        if dflash2
        else {}
    )
    name = "DFlash2DraftModel" if dflash2 else "DFlashDraftModel"
    config: dict[str, Any]
    if style == "speculators":
        config = {
            "architectures": [name],
            "speculators_model_type": "dflash2" if dflash2 else "dflash",
            "aux_hidden_state_layer_ids": [i + 1 for i in ids],
            "draft_vocab_size": Vd or Vt,
            "block_size": 8,
            "transformer_layer_config": layer_cfg,
            "speculators_config": {
                "algorithm": "dflash2" if dflash2 else "dflash",
                "proposal_methods": [{"proposal_type": "greedy", "speculative_tokens": 7}],
                "verifier": {"architectures": ["Qwen3ForCausalLM"], "name_or_path": "target"},
            },
            **extra,
        }
        if mask_token_id is not None:
            config["mask_token_id"] = mask_token_id
    else:
        dflash_config: dict[str, Any] = {"target_layer_ids": ids, **extra}
        if mask_token_id is not None:
            dflash_config["mask_token_id"] = mask_token_id
        config = {
            "architectures": [name],
            **layer_cfg,
            "block_size": 8,
            "num_target_layers": 8,
            "dflash_config": dflash_config,
        }
        if Vd is not None:
            config["draft_vocab_size"] = Vd
    return Drafter(tensors, config)


def build_peagle(
    *, style: str = "speculators", mask_token_id: int | None = 0, **kw: Any
) -> Drafter:
    """A P-EAGLE drafter: an EAGLE-3 `layers.N` drafter plus `mask_hidden` [1, 1, K*Ht];
    `style` `speculators` (speculators_model_type peagle) or `hf` (SpecForge's
    PEagleDraftModel config)."""
    base = build_drafter(
        dialect="layers", config_style="speculators" if style == "speculators" else "sglang", **kw
    )
    out = base.copy()
    spec = base.meta["spec"]
    w = _Weights(7, "BF16")
    out.tensors["mask_hidden"] = _reshaped(w.matrix(1, spec.K * spec.Ht), (1, 1, spec.K * spec.Ht))
    if style == "speculators":
        out.config["speculators_model_type"] = "peagle"
        out.config["architectures"] = ["PEagleDraftModel"]
        out.config["speculators_config"]["algorithm"] = "peagle"
    else:
        out.config["architectures"] = ["PEagleDraftModel"]
        out.config.pop("eagle_config", None)
    if mask_token_id is not None:
        out.config["mask_token_id"] = mask_token_id
    return out


def build_target_model(*, H: int = 64, layers: int = 4, Vt: int = 1000, seed: int = 0) -> Drafter:
    """A tiny Llama target checkpoint (`model.layers.N.*`, embed, lm_head) and its config."""
    w = _Weights(seed, "BF16")
    tensors: dict[str, TensorLike] = {"model.embed_tokens.weight": w.matrix(Vt, H)}
    for index in range(layers):
        prefix = f"model.layers.{index}."
        for name in ("q_proj", "k_proj", "v_proj", "o_proj"):
            tensors[f"{prefix}self_attn.{name}.weight"] = w.matrix(H, H)
        for name in ("gate_proj", "up_proj"):
            tensors[f"{prefix}mlp.{name}.weight"] = w.matrix(128, H)
        tensors[f"{prefix}mlp.down_proj.weight"] = w.matrix(H, 128)
        tensors[f"{prefix}input_layernorm.weight"] = w.norm(H)
        tensors[f"{prefix}post_attention_layernorm.weight"] = w.norm(H)
    tensors["model.norm.weight"] = w.norm(H)
    tensors["lm_head.weight"] = w.matrix(Vt, H)
    config = {
        "architectures": ["LlamaForCausalLM"],
        "model_type": "llama",
        "hidden_size": H,
        "num_hidden_layers": layers,
        "num_attention_heads": 4,
        "num_key_value_heads": 4,
        "vocab_size": Vt,
        "max_position_embeddings": 4096,
        "rope_theta": 10000.0,
        "torch_dtype": "bfloat16",
    }
    return Drafter(tensors, config)
