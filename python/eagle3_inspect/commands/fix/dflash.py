"""The config half of a `fix` plan for DFlash / DFlash2 drafters: between the speculators style
(`speculators_model_type`, `transformer_layer_config`, input-of `aux_hidden_state_layer_ids`,
top-level `mask_token_id`, vLLM's `update_dflash` / speculators read it) and the z-lab style
(a flat Qwen3 config with `dflash_config.target_layer_ids` output-of and `mask_token_id`:
SGLang's `parse_dflash_draft_config`, vLLM's DFlash model, SpecForge and Model-Optimizer).

The conversion is defined where nothing has to be guessed: the ids move with their +1, the
mask token moves, and a z-lab config without ids gets the ids SGLang and SpecForge build from
`num_target_layers` written out (vLLM would otherwise capture the target's three EAGLE-3
default layers for an fc sized by the draft's layer count). It is refused where the form the
engine reads needs a value the source does not state (the mask token, or any target layers).
"""

from __future__ import annotations

import copy
from typing import Any

from eagle3_inspect.commands.fix.config import Refusal, to_hf_style
from eagle3_inspect.reader.draft_config import DraftConfig, read_draft_config
from eagle3_inspect.reader.target import TargetInfo
from eagle3_inspect.rules.df.config import (
    DFLASH2_FIELDS,
    SPECULATORS_IDS,
    DFlashConfig,
    read_dflash_config,
)

# speculators-format top-level keys of a DFlash config (the rest is transformer_layer_config).
SPECULATORS_TOP = (
    "architectures",
    "auto_map",
    "aux_hidden_state_layer_ids",
    "block_size",
    "draft_vocab_size",
    "dtype",
    "mask_token_id",
    "sample_from_anchor",
    "sliding_window_non_causal",
    "target_hidden_size",
    "tie_word_embeddings",
    "torch_dtype",
    "transformers_version",
    *DFLASH2_FIELDS,
)


def _ids(dcfg: DFlashConfig) -> list[int] | None:
    """The output-of target layers: stated, else the default the trainer built."""
    return dcfg.target_layer_ids if dcfg.target_layer_ids is not None else dcfg.default_ids


def to_zlab(source: dict[str, Any], target: TargetInfo | None) -> dict[str, Any]:
    """`source` in the z-lab style: flat model fields, `dflash_config` with the output-of
    `target_layer_ids`, `mask_token_id` and DFlash2's conv / selector sizes."""
    dcfg = read_dflash_config(read_draft_config(source))
    flat = to_hf_style(source)
    dflash = dict(flat.get("dflash_config") or {})
    ids = _ids(dcfg)
    if ids is not None:
        dflash["target_layer_ids"] = ids
    if dcfg.mask_token_id is not None:
        dflash["mask_token_id"] = dcfg.mask_token_id
    for name in DFLASH2_FIELDS:
        value = flat.pop(name, None)
        if value is not None:
            dflash[name] = value
    flat.pop(SPECULATORS_IDS, None)
    flat.pop("mask_token_id", None)
    flat["dflash_config"] = dflash
    if flat.get("num_target_layers") is None:
        # SGLang < 0.5.19 bounds the ids by num_target_layers, else by the draft's own layer
        # count; the target's depth when known, else the least value the ids need (what
        # SGLang >= 0.5.19 assumes itself: max(target_layer_ids) + 1).
        if target and target.num_hidden_layers:
            flat["num_target_layers"] = target.num_hidden_layers
        elif ids:
            flat["num_target_layers"] = max(ids) + 1
    return flat


def to_speculators(
    source: dict[str, Any], target: TargetInfo | None, family: str
) -> dict[str, Any]:
    """`source` in the speculators style of `family` (`dflash` / `dflash2`); refused without a
    mask token or target layers (vLLM's update_dflash reads both unconditionally)."""
    if "speculators_model_type" in source:
        return copy.deepcopy(source)
    draft: DraftConfig = read_draft_config(source)
    dcfg = read_dflash_config(draft)
    ids = _ids(dcfg)
    if ids is None:
        raise Refusal("DF004", "no target layer ids to write as aux_hidden_state_layer_ids")
    if dcfg.mask_token_id is None:
        raise Refusal(
            "DF005",
            "a speculators DFlash config needs mask_token_id (vLLM update_dflash), and the "
            "source states none: which token was the mask in training cannot be told",
        )
    flat = to_hf_style(source)
    dflash = flat.pop("dflash_config", None) or {}
    layer = {k: v for k, v in flat.items() if k not in SPECULATORS_TOP}
    for key in ("num_target_layers",):
        layer.pop(key, None)
    out: dict[str, Any] = {k: v for k, v in flat.items() if k in SPECULATORS_TOP}
    out["aux_hidden_state_layer_ids"] = [i + 1 for i in ids]
    out["mask_token_id"] = dcfg.mask_token_id
    for name in DFLASH2_FIELDS:
        if dflash.get(name) is not None:
            out[name] = dflash[name]
    out["transformer_layer_config"] = layer
    out["speculators_model_type"] = family
    verifier = list(target.architectures) if target else []
    out["speculators_config"] = {
        "algorithm": family,
        "default_proposal_method": "greedy",
        "proposal_methods": [
            {"proposal_type": "greedy", "speculative_tokens": max(1, (dcfg.block_size or 8) - 1)}
        ],
        "verifier": {"architectures": verifier, "name_or_path": None},
    }
    return out
