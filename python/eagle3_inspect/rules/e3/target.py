"""E31xx: drafter vs target cross-checks (hidden size, vocab, aux-id range, embed/head, dtype)."""

from __future__ import annotations

from eagle3_inspect.findings import Finding, Severity
from eagle3_inspect.layout import Layout
from eagle3_inspect.reader.draft_config import DraftConfig, as_int
from eagle3_inspect.reader.dtypes import from_torch_dtype
from eagle3_inspect.reader.target import TargetInfo
from eagle3_inspect.registry import finding


def _finding(
    code: str, message: str, severity: Severity | None = None, **where: str | None
) -> Finding:
    return finding(code, message, severity=severity, **where)


def _draft_ht(layout: Layout, cfg: DraftConfig) -> tuple[int | None, str | None]:
    """The target width the engine sizes fc for, and the config key it comes from."""
    ht = as_int(cfg.target_hidden_size)
    if ht:
        return ht, cfg.config_key("target_hidden_size")
    h = as_int(cfg.hidden_size)
    if h:
        return h, cfg.config_key("hidden_size")
    return layout.Ht, None


def _draft_vt(layout: Layout, cfg: DraftConfig) -> tuple[int | None, str]:
    if layout.Vt is not None:
        return layout.Vt, "t2d" if layout.has_t2d else "embed_tokens.weight"
    return as_int(cfg.vocab_size), cfg.config_key("vocab_size")


def _sizes(layout: Layout, cfg: DraftConfig, target: TargetInfo, out: list[Finding]) -> None:
    ht, ht_where = _draft_ht(layout, cfg)
    if target.hidden_size is None:
        out.append(_finding("E3108", "target hidden_size unknown: hidden-size check skipped"))
    elif ht is not None and ht != target.hidden_size:
        out.append(
            _finding(
                "E3101",
                f"target {target.field_key('hidden_size')} is {target.hidden_size}, the drafter "
                f"expects {ht} (from {ht_where or 'fc.weight'})",
                config_key=ht_where,
                tensor=None if ht_where else "fc.weight",
            )
        )
    vt, vt_where = _draft_vt(layout, cfg)
    if target.vocab_size is None:
        out.append(_finding("E3108", "target vocab_size unknown: vocabulary check skipped"))
    elif vt is not None and vt != target.vocab_size:
        tensor = vt_where if vt_where in ("t2d", "embed_tokens.weight") else None
        out.append(
            _finding(
                "E3102",
                f"target {target.field_key('vocab_size')} is {target.vocab_size}, the drafter's "
                f"vocabulary is {vt} (from {vt_where})",
                tensor=tensor,
                config_key=None if tensor else vt_where,
            )
        )


def _aux_range(cfg: DraftConfig, target: TargetInfo, out: list[Finding]) -> None:
    ids = cfg.aux_layer_ids
    if not isinstance(ids, list) or not ids:
        return
    n = target.num_hidden_layers
    if n is None:
        out.append(_finding("E3108", "target num_hidden_layers unknown: aux-id range skipped"))
        return
    bad = [i for i in ids if as_int(i) is None or not 0 <= i <= n]
    if bad:
        out.append(
            _finding(
                "E3103",
                f"aux layer ids {bad} (of {ids} at {cfg.aux_layer_ids_key}) are outside "
                f"[0, {n}] for a {n}-layer target",
                config_key=cfg.aux_layer_ids_key,
            )
        )


def _embed_head(layout: Layout, cfg: DraftConfig, target: TargetInfo, out: list[Finding]) -> None:
    H = layout.H
    vt, _ = _draft_vt(layout, cfg)
    vt = vt or target.vocab_size
    embed = target.embed_shape
    # A drafter without embed_tokens borrows the target's; one with its own keeps it unless the
    # widths agree, in which case SGLang overwrites it with the target's (reference C.2).
    shares = not layout.has_embed or (embed is not None and len(embed) == 2 and embed[1] == H)
    if embed is not None and H is not None and vt is not None and shares and embed != (vt, H):
        own = (
            "its own embed_tokens (replaced by the target's)"
            if layout.has_embed
            else ("no embed_tokens (borrows the target's)")
        )
        out.append(
            _finding(
                "E3104",
                f"target {target.embed_name} is {list(embed)}, the drafter has {own} and "
                f"needs {[vt, H]}",
                tensor="embed_tokens.weight" if layout.has_embed else None,
            )
        )
    head = target.lm_head_shape
    if head is None and target.tie_word_embeddings:
        head = target.embed_shape
    if not layout.has_lm_head and head is not None and H is not None:
        vd = as_int(cfg.draft_vocab_size) or vt
        if head != (vd, H):
            out.append(
                _finding(
                    "E3105",
                    f"drafter has no lm_head.weight; the target's is {list(head)}, the drafter "
                    f"needs [{vd}, {H}]",
                )
            )


def _dtype(layout: Layout, target: TargetInfo, out: list[Finding]) -> None:
    wanted = from_torch_dtype(target.torch_dtype)
    if wanted and len(layout.float_dtypes) == 1 and layout.float_dtypes[0] != wanted:
        out.append(
            _finding(
                "E3106",
                f"drafter weights are {layout.float_dtypes[0]}, target torch_dtype is "
                f"{target.torch_dtype}",
            )
        )


def check_target(layout: Layout, draft_config: DraftConfig, target: TargetInfo) -> list[Finding]:
    """Cross-check a drafter (layout + config) against its target model."""
    out: list[Finding] = []
    if target.text_config_key:
        archs = ", ".join(target.architectures) or "unknown architecture"
        out.append(
            _finding(
                "E3107",
                f"target {archs}: text model read from {target.text_config_key}",
            )
        )
    _sizes(layout, draft_config, target, out)
    _aux_range(draft_config, target, out)
    _embed_head(layout, draft_config, target, out)
    _dtype(layout, target, out)
    return out
