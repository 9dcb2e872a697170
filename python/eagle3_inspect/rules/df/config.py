"""A DFlash / DFlash2 drafter config in one shape, whatever wrote it.

Two styles exist. speculators (`speculators_model_type` `dflash` / `dflash2`): model fields in
`transformer_layer_config`, the target layers as top-level `aux_hidden_state_layer_ids` in the
*input-of* convention (vLLM's `update_dflash` turns them into `target_layer_ids = ids - 1`),
`mask_token_id` top-level, DFlash2's `conv_*` / `selector_*` top-level. z-lab style (SpecForge,
Model-Optimizer): a Qwen3 config with `dflash_config.target_layer_ids` in the *output-of*
convention (SpecForge `extract_context_feature` reads `hidden_states[id + 1]`; vLLM's V2 runner
captures `id + 1`), `dflash_config.mask_token_id`, `num_target_layers`, `block_size`.
`target_layer_ids` below is always the output-of form.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from eagle3_inspect.reader.draft_config import DraftConfig, as_int, lookup

SPECULATORS_IDS = "aux_hidden_state_layer_ids"
ZLAB_IDS = "dflash_config.target_layer_ids"
DFLASH2_FIELDS = ("conv_kernel_size", "conv_group_size", "selector_rank", "selector_top_k")


@dataclass(frozen=True)
class DFlashConfig:
    """What the DFlash rules read; None where the config does not say."""

    style: str
    target_layer_ids: list[int] | None
    ids_key: str | None
    ids_as_written: list[Any] | None
    mask_token_id: int | None
    mask_key: str | None
    block_size: int | None
    num_target_layers: int | None
    dflash2: dict[str, int | None]
    # Without ids: what SGLang and SpecForge build from num_target_layers (None: not known).
    default_ids: list[int] | None = None

    @property
    def convention(self) -> str:
        """How the ids are written: `input-of` (speculators) or `output-of` (z-lab)."""
        return "input-of" if self.ids_key == SPECULATORS_IDS else "output-of"


def default_target_layer_ids(num_target_layers: int, num_draft_layers: int) -> list[int] | None:
    """The output-of ids a config without any gets in SGLang (`dflash_utils.py
    build_target_layer_ids`) and SpecForge (`modeling/draft/dflash.py`, the same formula):
    the middle layer for one draft layer, else spread over 1..N-3. None where they raise."""
    if num_target_layers <= 0 or num_draft_layers <= 0:
        return None
    if num_draft_layers == 1:
        return [num_target_layers // 2]
    start, end = 1, num_target_layers - 3
    if end < start:
        return None
    span = end - start
    return [round(start + (i * span) / (num_draft_layers - 1)) for i in range(num_draft_layers)]


def _ints(value: Any) -> list[int] | None:
    if isinstance(value, list) and value and all(as_int(v) is not None for v in value):
        return list(value)
    return None


def _first(raw: dict[str, Any], *paths: str) -> tuple[Any, str | None]:
    for path in paths:
        found, value = lookup(raw, path)
        if found and value is not None:
            return value, path
    return None, None


def read_dflash_config(cfg: DraftConfig) -> DFlashConfig:
    raw = cfg.raw
    style = "speculators" if "speculators_model_type" in raw else "zlab"
    ids_value, ids_key = _first(raw, ZLAB_IDS, SPECULATORS_IDS)
    ids = _ints(ids_value)
    if ids is not None and ids_key == SPECULATORS_IDS:
        ids = [i - 1 for i in ids]
    mask, mask_key = _first(raw, "dflash_config.mask_token_id", "mask_token_id")
    block, _ = _first(raw, "block_size", "dflash_config.block_size")
    targets, _ = _first(raw, "num_target_layers", "dflash_config.num_target_layers")
    dflash2 = {
        name: as_int(_first(raw, name, f"dflash_config.{name}")[0]) for name in DFLASH2_FIELDS
    }
    targets_n, layers_n = as_int(targets), as_int(cfg.num_hidden_layers)
    default = (
        default_target_layer_ids(targets_n, layers_n)
        if ids_key is None and targets_n and layers_n
        else None
    )
    return DFlashConfig(
        style=style,
        target_layer_ids=ids,
        ids_key=ids_key,
        ids_as_written=ids_value if isinstance(ids_value, list) else None,
        mask_token_id=as_int(mask),
        mask_key=mask_key,
        block_size=as_int(block),
        num_target_layers=as_int(targets),
        dflash2=dflash2,
        default_ids=default,
    )
