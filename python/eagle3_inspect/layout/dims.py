"""Dimension inference: H, Ht, K, Vd, Vt, heads, kv heads, head_dim and intermediate from shapes."""

from __future__ import annotations

from eagle3_inspect.layout.bare import BareShapes
from eagle3_inspect.layout.model import Layout
from eagle3_inspect.layout.names import strip_model_prefix
from eagle3_inspect.reader.draft_config import DraftConfig, as_int

# Shapes by bare name (no `model.` prefix).
Shapes = BareShapes


def _dim(shapes: Shapes, name: str, axis: int, ndim: int) -> int | None:
    shape = shapes.get(name)
    if shape is None or len(shape) != ndim:
        return None
    return shape[axis]


def _block(layout: Layout, index: int, rest: str) -> str | None:
    prefix = layout.block_prefix(index)
    return None if prefix is None else strip_model_prefix(prefix) + rest


def _first(*values: int | None) -> int | None:
    return next((v for v in values if v is not None), None)


def _hidden(shapes: Shapes, layout: Layout) -> int | None:
    def b0(rest: str) -> str:
        return _block(layout, 0, rest) or ""

    return _first(
        _dim(shapes, "norm.weight", 0, 1),
        _dim(shapes, b0("post_attention_layernorm.weight"), 0, 1),
        _dim(shapes, b0("self_attn.o_proj.weight"), 0, 2),
        _dim(shapes, "fc.weight", 0, 2),
        _dim(shapes, "lm_head.weight", 1, 2),
    )


def _aux(shapes: Shapes, layout: Layout, config: DraftConfig) -> None:
    layout.fc_in = _dim(shapes, "fc.weight", 1, 2)
    fc_norms = [n for n in shapes.starting_with("fc_norm.") if n.endswith(".weight")]
    ht = _dim(shapes, fc_norms[0], 0, 1) if fc_norms else None
    if ht is None and as_int(config.target_hidden_size):
        ht = config.target_hidden_size
    if ht is None:
        ht = layout.H
    layout.Ht = ht
    if fc_norms:
        layout.K = len(fc_norms)
    elif layout.fc_in is not None and ht and layout.fc_in % ht == 0:
        layout.K = layout.fc_in // ht
    elif layout.fc_in is not None:
        layout.notes.append(f"fc input width {layout.fc_in} is not a multiple of Ht={ht}")


def _attention(shapes: Shapes, layout: Layout, config: DraftConfig) -> None:
    q_rows = _dim(shapes, _block(layout, 0, "self_attn.q_proj.weight") or "", 0, 2)
    k_rows = _dim(shapes, _block(layout, 0, "self_attn.k_proj.weight") or "", 0, 2)
    head_dim = _first(
        _dim(shapes, _block(layout, 0, "self_attn.q_norm.weight") or "", 0, 1),
        as_int(config.head_dim),
    )
    heads_cfg = as_int(config.num_attention_heads)
    if head_dim is None and q_rows is not None and heads_cfg and q_rows % heads_cfg == 0:
        head_dim = q_rows // heads_cfg
    if layout.mla:
        layout.heads = heads_cfg
        return
    layout.head_dim = head_dim
    if head_dim and q_rows is not None and q_rows % head_dim == 0:
        layout.heads = q_rows // head_dim
    if head_dim and k_rows is not None and k_rows % head_dim == 0:
        layout.kv_heads = k_rows // head_dim


def _qkv_inputs(shapes: Shapes, layout: Layout) -> None:
    for index in layout.blocks:
        for rest in (
            "self_attn.q_proj.weight",
            "self_attn.q_a_proj.weight",
            "self_attn.qkv_proj.weight",
            "self_attn.kv_a_proj_with_mqa.weight",
        ):
            width = _dim(shapes, _block(layout, index, rest) or "", 1, 2)
            if width is not None:
                layout.qkv_in[index] = width
                break


def infer_dims(shapes: Shapes, layout: Layout, config: DraftConfig) -> None:
    """Fill `layout`'s dimension fields from `shapes` (names already stripped of `model.`)."""
    layout.H = _hidden(shapes, layout)
    _aux(shapes, layout, config)
    layout.Vd = _first(_dim(shapes, "lm_head.weight", 0, 2), _dim(shapes, "d2t", 0, 1))
    layout.Vt = _first(_dim(shapes, "t2d", 0, 1), _dim(shapes, "embed_tokens.weight", 0, 2))
    layout.intermediate = _first(
        _dim(shapes, _block(layout, 0, "mlp.gate_proj.weight") or "", 0, 2),
        _dim(shapes, _block(layout, 0, "mlp.up_proj.weight") or "", 0, 2),
    )
    _attention(shapes, layout, config)
    _qkv_inputs(shapes, layout)
