"""E3028: decoder-layer tensor shapes against H, the intermediate size and the head layout."""

from __future__ import annotations

from eagle3_inspect.reader.draft_config import as_int
from eagle3_inspect.rules.e3.context import E3Context


def _head_layout(ctx: E3Context) -> tuple[int | None, int | None, int | None]:
    """(heads, kv_heads, head_dim) from the config; head_dim defaults to H // heads (EAGLE)."""
    cfg, H = ctx.cfg, ctx.layout.H
    heads, kv = as_int(cfg.num_attention_heads), as_int(cfg.num_key_value_heads)
    head_dim = as_int(cfg.head_dim)
    if head_dim is None and heads and H and H % heads == 0:
        head_dim = H // heads
    return heads, kv if kv is not None else heads, head_dim


def _expect(ctx: E3Context, name: str | None, expected: tuple[int | None, ...], why: str) -> None:
    shape = ctx.shape(name or "")
    if name is None or shape is None:
        return
    wrong = len(shape) != len(expected) or any(
        e is not None and s != e for s, e in zip(shape, expected, strict=False)
    )
    if wrong:
        shown = [e if e is not None else "*" for e in expected]
        ctx.emit(
            "E3028",
            f"{ctx.stored(name)} is {list(shape)}, expected {shown} ({why})",
            tensor=name,
        )


def _attention(ctx: E3Context, index: int, H: int) -> None:
    heads, kv, hd = _head_layout(ctx)
    q_rows = heads * hd if heads and hd else None
    kv_rows = kv * hd if kv and hd else None
    why = f"heads {heads}, kv heads {kv}, head_dim {hd}"
    _expect(ctx, ctx.block(index, "self_attn.q_proj.weight"), (q_rows, None), why)
    for proj in ("k", "v"):
        _expect(ctx, ctx.block(index, f"self_attn.{proj}_proj.weight"), (kv_rows, None), why)
    _expect(ctx, ctx.block(index, "self_attn.o_proj.weight"), (H, q_rows), f"H {H}, {why}")
    for norm in ("q_norm", "k_norm"):
        _expect(ctx, ctx.block(index, f"self_attn.{norm}.weight"), (hd,), f"head_dim {hd}")


def check_layer_shapes(ctx: E3Context) -> None:
    """E3028 for every block, plus config hidden_size against the tensors' H."""
    H, cfg = ctx.layout.H, ctx.cfg
    if H is None:
        return
    cfg_h = as_int(cfg.hidden_size)
    if cfg_h is not None and cfg_h != H:
        ctx.emit(
            "E3028",
            f"config hidden_size {cfg_h}, tensors say {H} (norm.weight / layer norms)",
            config_key=cfg.config_key("hidden_size"),
        )
    inter = as_int(cfg.intermediate_size) or ctx.layout.intermediate
    _expect(ctx, "norm.weight", (H,), f"hidden size {H}")
    for index in ctx.layout.layer_indices:
        if ctx.layout.mla:
            _expect(ctx, ctx.block(index, "self_attn.o_proj.weight"), (H, None), f"H {H}")
        else:
            _attention(ctx, index, H)
        why = f"H {H}, intermediate_size {inter}"
        _expect(ctx, ctx.block(index, "mlp.gate_proj.weight"), (inter, H), why)
        _expect(ctx, ctx.block(index, "mlp.up_proj.weight"), (inter, H), why)
        _expect(ctx, ctx.block(index, "mlp.down_proj.weight"), (H, inter), why)
        for norm in ("input_layernorm", "hidden_norm", "post_attention_layernorm"):
            _expect(ctx, ctx.block(index, f"{norm}.weight"), (H,), f"hidden size {H}")
