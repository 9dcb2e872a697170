"""Synthetic EAGLE-3 drafters: small but realistic tensors + config for every dialect and style.

Used by `demo` and the test corpus. Weights are drawn like a trained model (scaled normal
matrices, norms near 1 with noise), `d2t` holds int64 offsets of a sorted random selection of
Vd ids out of Vt, and `t2d` the matching bool mask. The `mutate_*` functions reproduce the seed
story's three bugs. bf16 is written as raw bit patterns, so no ml_dtypes is needed.
"""

from __future__ import annotations

import copy
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from eagle3_inspect.reader.dtypes import TORCH_DTYPES
from eagle3_inspect.synthetic.drafter_configs import ConfigSpec, build_config
from eagle3_inspect.synthetic.writer import (
    RawTensor,
    TensorLike,
    numpy_dtype_to_st,
    write_safetensors,
    write_sharded,
)

_TORCH_DTYPE = {st: torch for torch, st in TORCH_DTYPES.items()}
# Model-Optimizer's MLA ranks, scaled down: (q_lora, kv_lora, qk_nope, qk_rope, v_head).
_MLA_DIMS = (32, 16, 16, 8, 16)


@dataclass
class Drafter:
    """A drafter checkpoint in memory: tensors by name and the config.json dict."""

    tensors: dict[str, TensorLike]
    config: dict[str, Any]
    meta: dict[str, Any] = field(default_factory=dict)

    def copy(self) -> Drafter:
        return Drafter(dict(self.tensors), copy.deepcopy(self.config), dict(self.meta))

    def write(self, directory: str | os.PathLike[str], shards: int | None = None) -> Path:
        """Write `config.json` and `model.safetensors` (or `shards` shards + index)."""
        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        (out / "config.json").write_text(json.dumps(self.config, indent=2) + "\n")
        if shards and shards > 1:
            write_sharded(out, self.tensors, shards)
        else:
            write_safetensors(out / "model.safetensors", self.tensors, {"format": "pt"})
        return out


def float_tensor(values: np.ndarray, dtype: str) -> TensorLike:
    """`values` (float32) stored as `dtype`: BF16 by round-to-nearest-even bit truncation."""
    values = np.ascontiguousarray(values, dtype=np.float32)
    if dtype == "BF16":
        bits = values.view(np.uint32).astype(np.uint64)
        rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
        return RawTensor.from_array(rounded.astype(np.uint16), "BF16")
    if dtype == "F16":
        return values.astype(np.float16)
    if dtype == "F32":
        return values
    raise ValueError(f"unsupported drafter dtype {dtype!r}")


class _Weights:
    """Draws weights with a fixed generator and stores them in one dtype."""

    def __init__(self, seed: int, dtype: str) -> None:
        self.rng = np.random.default_rng(seed)
        self.dtype = dtype

    def matrix(self, rows: int, cols: int, scale: float = 1.0) -> TensorLike:
        values = self.rng.standard_normal((rows, cols), dtype=np.float32)
        return float_tensor(values * (scale / np.sqrt(cols)), self.dtype)

    def norm(self, size: int) -> TensorLike:
        values = 1.0 + 0.05 * self.rng.standard_normal(size, dtype=np.float32)
        return float_tensor(values, self.dtype)


def _attention(w: _Weights, spec: ConfigSpec, in_width: int) -> dict[str, TensorLike]:
    H, hd = spec.H, spec.head_dim
    if spec.mla:
        q_lora, kv_lora, nope, rope, v_head = _MLA_DIMS
        return {
            "self_attn.q_a_proj.weight": w.matrix(q_lora, in_width),
            "self_attn.q_a_layernorm.weight": w.norm(q_lora),
            "self_attn.q_b_proj.weight": w.matrix(spec.heads * (nope + rope), q_lora),
            "self_attn.kv_a_proj_with_mqa.weight": w.matrix(kv_lora + rope, in_width),
            "self_attn.kv_a_layernorm.weight": w.norm(kv_lora),
            "self_attn.kv_b_proj.weight": w.matrix(spec.heads * (nope + v_head), kv_lora),
            "self_attn.o_proj.weight": w.matrix(H, spec.heads * v_head),
        }
    out = {
        "self_attn.q_proj.weight": w.matrix(spec.heads * hd, in_width),
        "self_attn.k_proj.weight": w.matrix(spec.kv_heads * hd, in_width),
        "self_attn.v_proj.weight": w.matrix(spec.kv_heads * hd, in_width),
        "self_attn.o_proj.weight": w.matrix(H, spec.heads * hd),
    }
    if spec.qwen3_norms:
        out["self_attn.q_norm.weight"] = w.norm(hd)
        out["self_attn.k_norm.weight"] = w.norm(hd)
    return out


def _layer(w: _Weights, spec: ConfigSpec, index: int) -> dict[str, TensorLike]:
    H, inter = spec.H, spec.I
    first = index == 0
    out = _attention(w, spec, 2 * H if first else H)
    out["mlp.gate_proj.weight"] = w.matrix(inter, H)
    out["mlp.up_proj.weight"] = w.matrix(inter, H)
    out["mlp.down_proj.weight"] = w.matrix(H, inter)
    out["post_attention_layernorm.weight"] = w.norm(H)
    # Layer 0 normalises both inputs; later layers follow their dialect's engine (reference A.8).
    if first or spec.dialect == "layers":
        out["input_layernorm.weight"] = w.norm(H)
    if first or spec.dialect == "midlayer":
        out["hidden_norm.weight"] = w.norm(H)
    return out


def _block_prefix(dialect: str, index: int, layers: int) -> str:
    if dialect == "layers":
        return f"layers.{index}."
    return "midlayer." if layers == 1 else f"midlayer.{index}."


def _vocab(rng: np.random.Generator, Vd: int, Vt: int) -> dict[str, TensorLike]:
    selected = np.sort(rng.choice(Vt, size=Vd, replace=False)).astype(np.int64)
    t2d = np.zeros(Vt, dtype=bool)
    t2d[selected] = True
    return {"d2t": selected - np.arange(Vd, dtype=np.int64), "t2d": t2d}


def build_drafter(
    *,
    dialect: str = "midlayer",
    H: int = 64,
    Ht: int | None = None,
    K: int = 3,
    Vd: int = 256,
    Vt: int = 1024,
    heads: int = 4,
    kv_heads: int = 2,
    head_dim: int | None = None,
    I: int = 128,  # noqa: E741 - the reference's name for the intermediate size
    layers: int = 1,
    config_style: str = "sglang",
    aux_layer_ids: list[int] | None = None,
    with_embed: bool | None = None,
    mla: bool = False,
    qwen3_norms: bool = False,
    eagle31: bool | str = False,
    seed: int = 0,
    dtype: str = "BF16",
    target_layers: int = 32,
) -> Drafter:
    """Build a drafter. `eagle31` is False, True/"input_norm" (norm_before_fc) or "fc_norm".

    `with_embed` defaults to True for speculators (it saves the frozen embedding) and whenever
    Ht != H (engines then cannot share the target's), else False. `aux_layer_ids` defaults to
    the style's own convention for a `target_layers`-layer target; for the original EAGLE
    style the default is no ids at all, as in the real template.
    """
    if dialect not in ("midlayer", "layers"):
        raise ValueError(f"dialect must be 'midlayer' or 'layers', not {dialect!r}")
    spec = ConfigSpec(
        dialect=dialect,
        H=H,
        Ht=Ht or H,
        K=K,
        Vd=Vd,
        Vt=Vt,
        heads=heads,
        kv_heads=kv_heads,
        head_dim=head_dim or H // heads,
        I=I,
        layers=layers,
        style=config_style,
        aux_layer_ids=aux_layer_ids,
        mla=mla,
        qwen3_norms=qwen3_norms,
        eagle31="input_norm" if eagle31 is True else (eagle31 or ""),
        torch_dtype=_TORCH_DTYPE[dtype],
        target_layers=target_layers,
    )
    if with_embed is None:
        with_embed = config_style == "speculators" or spec.Ht != H
    w = _Weights(seed, dtype)
    tensors: dict[str, TensorLike] = {"fc.weight": w.matrix(H, K * spec.Ht)}
    for index in range(layers):
        prefix = _block_prefix(dialect, index, layers)
        tensors.update({prefix + k: v for k, v in _layer(w, spec, index).items()})
    tensors["norm.weight"] = w.norm(H)
    tensors["lm_head.weight"] = w.matrix(Vd, H)
    if with_embed:
        tensors["embed_tokens.weight"] = w.matrix(Vt, H, scale=float(np.sqrt(H)) * 0.02)
    if spec.eagle31 == "input_norm":
        tensors["input_norm.weight"] = w.norm(K * spec.Ht)
    elif spec.eagle31 == "fc_norm":
        tensors.update({f"fc_norm.{i}.weight": w.norm(spec.Ht) for i in range(K)})
    if Vd < Vt:
        tensors.update(_vocab(w.rng, Vd, Vt))
    return Drafter(tensors, build_config(spec), {"spec": spec})


# --- the seed story's three bugs -------------------------------------------------------------


def mutate_layer_keys(drafter: Drafter, to: str = "layers") -> Drafter:
    """Bug 1: rename `midlayer.*` keys to `layers.0.*` (to="layers") or back (to="midlayer")."""
    old, new = ("midlayer.", "layers.0.") if to == "layers" else ("layers.0.", "midlayer.")
    out = drafter.copy()
    out.tensors = {
        (new + k[len(old) :] if k.startswith(old) else k): v for k, v in drafter.tensors.items()
    }
    return out


def mutate_d2t_absolute(drafter: Drafter) -> Drafter:
    """Bug 2: store absolute target ids (`d2t + arange`) in `d2t` instead of offsets."""
    out = drafter.copy()
    d2t = np.asarray(out.tensors["d2t"], dtype=np.int64)
    out.tensors["d2t"] = d2t + np.arange(d2t.shape[0], dtype=np.int64)
    return out


def mutate_fc_single_aux(drafter: Drafter, seed: int = 1) -> Drafter:
    """Bug 3: `fc` sized for one aux layer (`[H, 1*Ht]`) while the config declares K of them.

    Ht comes from the build spec, else from the current fc width over the configured aux count.
    """
    out = drafter.copy()
    fc = drafter.tensors["fc.weight"]
    rows, width = (int(d) for d in fc.shape)
    spec: ConfigSpec | None = drafter.meta.get("spec")
    if spec is not None:
        ht = spec.Ht
    else:
        ids = drafter.config.get("eagle_aux_hidden_state_layer_ids") or drafter.config.get(
            "eagle_config", {}
        ).get("eagle_aux_hidden_state_layer_ids")
        ht = width // (len(ids) if isinstance(ids, list) and ids else 3)
    dtype = fc.dtype if isinstance(fc, RawTensor) else numpy_dtype_to_st(fc.dtype)
    out.tensors["fc.weight"] = _Weights(seed, dtype).matrix(rows, ht)
    return out


def seed_story_drafters(**build_kwargs: Any) -> dict[str, Drafter]:
    """The seed story as drafters: a correct SGLang-style one, each bug alone, and all three."""
    correct = build_drafter(**build_kwargs)
    bug1 = mutate_layer_keys(correct)
    bug2 = mutate_d2t_absolute(correct)
    bug3 = mutate_fc_single_aux(correct)
    return {
        "correct": correct,
        "bug1-layers-keys": bug1,
        "bug2-d2t-absolute": bug2,
        "bug3-fc-one-aux": bug3,
        "all-three": mutate_fc_single_aux(mutate_d2t_absolute(bug1)),
    }
