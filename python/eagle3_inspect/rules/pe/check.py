"""PE001-PE004: `mask_hidden` and the mask token of a P-EAGLE drafter (on top of the E3 rules)."""

from __future__ import annotations

from collections.abc import Mapping

from eagle3_inspect.findings import Finding
from eagle3_inspect.layout import Layout
from eagle3_inspect.reader.draft_config import DraftConfig, lookup
from eagle3_inspect.reader.target import TargetInfo
from eagle3_inspect.reader.tensorinfo import TensorInfo
from eagle3_inspect.registry import finding
from eagle3_inspect.rules.family.context import DrafterContext

# Where P-EAGLE configs keep their mask token (speculators mask_token_id; vLLM's
# parallel-drafting readers also accept pard_token / ptd_token_id).
MASK_KEYS = ("mask_token_id", "pard_token", "ptd_token_id")


def mask_token(cfg: DraftConfig) -> tuple[int | None, str | None]:
    for key in MASK_KEYS:
        found, value = lookup(cfg.raw, key)
        if found and isinstance(value, int) and not isinstance(value, bool):
            return value, key
    return None, None


def check_peagle(
    tensors: Mapping[str, TensorInfo], cfg: DraftConfig, layout: Layout
) -> list[Finding]:
    ctx = DrafterContext(tensors=tensors, cfg=cfg, layout=layout)
    shape = ctx.shape("mask_hidden")
    if shape is None:
        ctx.emit(
            "PE002",
            "no mask_hidden: parallel drafting has no state for the masked positions (vLLM's "
            "Eagle3LlamaForCausalLM.load_weights raises when parallel_drafting is on)",
            tensor="mask_hidden",
        )
    elif layout.fc_in is not None:
        size = 1
        for d in shape:
            size *= d
        if size != layout.fc_in:
            ctx.emit(
                "PE001",
                f"mask_hidden is {list(shape)} ({size} values); it stands in for the "
                f"concatenated aux states, fc's input width {layout.fc_in}",
                tensor="mask_hidden",
            )
    if cfg.present and mask_token(cfg)[0] is None and "speculators_model_type" in cfg.raw:
        ctx.emit(
            "PE003",
            "no mask_token_id: vLLM's speculators adapter (update_peagle) reads it "
            "unconditionally and refuses the config",
            config_key="mask_token_id",
        )
    return ctx.findings


def check_peagle_target(cfg: DraftConfig, target: TargetInfo) -> list[Finding]:
    mask, key = mask_token(cfg)
    vt = target.vocab_size
    if mask is None or vt is None or 0 <= mask < vt:
        return []
    return [
        finding(
            "PE004",
            f"{key} = {mask} is not an id of the target's {vt}-token vocabulary",
            config_key=key,
        )
    ]
