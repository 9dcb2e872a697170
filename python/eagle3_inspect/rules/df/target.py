"""DF1xx: a DFlash / DFlash2 drafter against its target: the target layers it reads (and their
+1 convention) against the target's layer count, fc's input width against the target's hidden
size, who owns the vocabulary head, and the mask token against the target vocabulary."""

from __future__ import annotations

from eagle3_inspect.findings import Finding
from eagle3_inspect.layout import Layout
from eagle3_inspect.reader.draft_config import DraftConfig, as_int
from eagle3_inspect.reader.target import TargetInfo
from eagle3_inspect.registry import finding
from eagle3_inspect.rules.df.config import DFlashConfig, read_dflash_config


def _layers(dcfg: DFlashConfig, target: TargetInfo) -> list[Finding]:
    ids, n = dcfg.target_layer_ids, target.num_hidden_layers
    if ids is None or n is None:
        return []
    bad = [i for i in ids if not 0 <= i < n]
    if not bad:
        return []
    written = dcfg.ids_as_written
    shown = (
        f"{dcfg.ids_key} = {written} (input-of, so target_layer_ids {ids})"
        if dcfg.convention == "input-of"
        else f"{dcfg.ids_key} = {ids}"
    )
    return [
        finding(
            "DF101",
            f"{shown}: output-of ids {bad} are not layers of the {n}-layer target (valid "
            f"0..{n - 1}); the engine captures fewer context features than fc expects "
            "(vllm PR #48113: a matmul shape error)",
            config_key=dcfg.ids_key,
        )
    ]


def _width(
    layout: Layout, cfg: DraftConfig, dcfg: DFlashConfig, target: TargetInfo
) -> list[Finding]:
    fc_in, ids, ht = layout.fc_in, dcfg.target_layer_ids, target.hidden_size
    if fc_in is None or ids is None or ht is None or fc_in == len(ids) * ht:
        return []
    return [
        finding(
            "DF102",
            f"fc.weight reads {fc_in} features; the target gives {len(ids)} layers x "
            f"{target.field_key('hidden_size')} {ht} = {len(ids) * ht} (vLLM "
            "combine_hidden_states / SGLang project_target_hidden raise on the mismatch)",
            tensor="fc.weight",
        )
    ]


def _head(layout: Layout, cfg: DraftConfig, target: TargetInfo) -> list[Finding]:
    vt, H = target.vocab_size, layout.H
    vd = as_int(cfg.draft_vocab_size) or as_int(cfg.vocab_size)
    out: list[Finding] = []
    if layout.has_lm_head:
        return out
    head = target.lm_head_shape or (target.embed_shape if target.tie_word_embeddings else None)
    if vd is not None and vt is not None and vd != vt:
        out.append(
            finding(
                "DF103",
                f"drafter has no lm_head but a draft vocabulary of {vd}, the target's is {vt}: "
                "the target's head cannot stand in for a reduced-vocabulary draft",
            )
        )
    elif head is not None and H is not None and len(head) == 2 and head[1] != H:
        out.append(
            finding(
                "DF103",
                f"drafter has no lm_head; the target's {target.lm_head_name or 'lm_head'} is "
                f"{list(head)}, the drafter's hidden size is {H}",
            )
        )
    elif head is not None and vd is not None and len(head) == 2 and head[0] != vd:
        out.append(
            finding(
                "DF103",
                f"drafter has no lm_head; the target's is {list(head)} (rows {head[0]}), the "
                f"drafter's vocab_size is {vd}: a padded target vocabulary (vllm PR #46435: "
                "acceptance 0 under the V2 runner)",
            )
        )
    return out


def _mask(dcfg: DFlashConfig, target: TargetInfo) -> list[Finding]:
    mask, vt = dcfg.mask_token_id, target.vocab_size
    if mask is None or vt is None or 0 <= mask < vt:
        return []
    return [
        finding(
            "DF104",
            f"{dcfg.mask_key} = {mask} is not an id of the target's {vt}-token vocabulary: the "
            "masked positions embed a token the target embedding does not have "
            "(Model-Optimizer PR #1621)",
            config_key=dcfg.mask_key,
        )
    ]


def check_dflash_target(layout: Layout, cfg: DraftConfig, target: TargetInfo) -> list[Finding]:
    dcfg = read_dflash_config(cfg)
    out = _layers(dcfg, target) + _width(layout, cfg, dcfg, target)
    return out + _head(layout, cfg, target) + _mask(dcfg, target)
