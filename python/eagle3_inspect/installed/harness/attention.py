"""The reference attention that replaces an engine's attention backend (SGLang RadixAttention,
vLLM Attention): plain causal softmax attention over one sequence, with grouped KV heads, the
engine layer's own scaling, logit cap and sliding window, and a KV store per layer.

Which earlier keys a query row sees is the draft chain's tree (`Chain` in chain.py): row t of
step 0 sees step-0 keys 0..t; row t of step s >= 1 sees step-0 keys 0..t and its own chain's keys
of steps 1..s. That is exactly what a serving engine attends to when it drafts s tokens after
position t, done for every t at once."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import torch


@dataclass
class KeyRows:
    """The (position index t, chain step s) of every key row stored so far for one layer."""

    t: list[int] = field(default_factory=list)
    s: list[int] = field(default_factory=list)


@dataclass
class AttentionContext:
    """What the next attention calls are for: the rows' (t, s) tags and positions."""

    t: list[int] = field(default_factory=list)
    s: list[int] = field(default_factory=list)
    keys: dict[int, tuple[torch.Tensor, torch.Tensor, KeyRows]] = field(default_factory=dict)
    calls: int = 0

    def set_rows(self, t: list[int], s: list[int]) -> None:
        """The next forward's rows."""
        self.t, self.s = list(t), list(s)


CONTEXT: list[AttentionContext] = []


def current() -> AttentionContext:
    """The chain context engine attention calls attend under."""
    if not CONTEXT:
        raise RuntimeError("reference attention called outside a draft chain")
    return CONTEXT[-1]


def visible(
    q_t: torch.Tensor, q_s: torch.Tensor, k_t: torch.Tensor, k_s: torch.Tensor, window: int
) -> torch.Tensor:
    """[rows, keys] bool: which key each query row attends to (chain tree, sliding window as
    FlashAttention's `window_size=(window-1, 0)`: the `window` newest positions, itself
    included; window <= 0 means none)."""
    step0 = (k_s[None, :] == 0) & (k_t[None, :] <= q_t[:, None])
    own_chain = (
        (k_s[None, :] >= 1) & (k_t[None, :] == q_t[:, None]) & (k_s[None, :] <= q_s[:, None])
    )
    seen = step0 | own_chain
    if window > 0:
        q_pos = (q_t + q_s)[:, None]
        k_pos = (k_t + k_s)[None, :]
        seen &= (q_pos - k_pos) < window
    return seen


def reference_attention(
    layer_key: int,
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    num_heads: int,
    num_kv_heads: int,
    head_dim: int,
    scaling: float,
    window: int = 0,
    logit_cap: float = 0.0,
) -> torch.Tensor:
    """Attention output [rows, num_heads * head_dim] for this call's rows, after storing their
    keys and values under `layer_key`."""
    ctx = current()
    rows = q.shape[0]
    if len(ctx.t) != rows:
        raise RuntimeError(f"attention got {rows} rows, the chain declared {len(ctx.t)}")
    q = q.reshape(rows, num_heads, head_dim).float()
    k = k.reshape(rows, num_kv_heads, head_dim).float()
    v = v.reshape(rows, num_kv_heads, -1).float()
    old = ctx.keys.get(layer_key)
    tags = KeyRows() if old is None else old[2]
    keys = k if old is None else torch.cat([old[0], k])
    values = v if old is None else torch.cat([old[1], v])
    tags.t.extend(ctx.t)
    tags.s.extend(ctx.s)
    ctx.keys[layer_key] = (keys, values, tags)
    ctx.calls += 1
    mask = visible(
        torch.tensor(ctx.t), torch.tensor(ctx.s), torch.tensor(tags.t), torch.tensor(tags.s), window
    )
    group = num_heads // num_kv_heads
    keys_h = keys.repeat_interleave(group, dim=1)  # [K, H, d]
    values_h = values.repeat_interleave(group, dim=1)
    scores = torch.einsum("qhd,khd->hqk", q, keys_h) * scaling
    if logit_cap and logit_cap > 0:
        scores = logit_cap * torch.tanh(scores / logit_cap)
    scores = scores.masked_fill(~mask[None], float("-inf"))
    out = torch.einsum("hqk,khd->qhd", torch.softmax(scores, dim=-1), values_h)
    return out.reshape(rows, -1)


class RadixAttention(torch.nn.Module):
    """SGLang's RadixAttention(num_heads, head_dim, scaling, num_kv_heads, layer_id, logit_cap,
    v_head_dim, sliding_window_size, ...), backend replaced by `reference_attention`."""

    def __init__(
        self,
        num_heads: int,
        head_dim: int,
        scaling: float,
        num_kv_heads: int,
        layer_id: int = 0,
        logit_cap: float = 0.0,
        v_head_dim: int = -1,
        sliding_window_size: int = -1,
        *args: Any,
        **kwargs: Any,
    ) -> None:
        super().__init__()
        self.tp_q_head_num, self.tp_k_head_num = num_heads, num_kv_heads
        self.head_dim, self.scaling, self.layer_id = head_dim, scaling, layer_id
        self.logit_cap = logit_cap or 0.0
        self.sliding_window_size = sliding_window_size or -1

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, *a: Any, **kw: Any) -> Any:
        # SGLang's window_left counts the tokens before the query: window = left + 1.
        window = self.sliding_window_size + 1 if self.sliding_window_size >= 0 else 0
        return reference_attention(
            id(self),
            q,
            k,
            v,
            self.tp_q_head_num,
            self.tp_k_head_num,
            self.head_dim,
            self.scaling,
            window,
            self.logit_cap,
        )


class VllmAttention(torch.nn.Module):
    """vLLM's Attention(num_heads, head_size, scale, num_kv_heads, ..., logits_soft_cap,
    per_layer_sliding_window, ...), backend replaced by `reference_attention`."""

    def __init__(
        self,
        num_heads: int,
        head_size: int,
        scale: float,
        num_kv_heads: int | None = None,
        *args: Any,
        **kwargs: Any,
    ) -> None:
        super().__init__()
        self.num_heads, self.head_size, self.scale = num_heads, head_size, scale
        self.num_kv_heads = num_kv_heads or num_heads
        self.sliding_window = kwargs.get("per_layer_sliding_window") or 0
        self.logits_soft_cap = kwargs.get("logits_soft_cap") or 0.0

    def forward(
        self, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, *a: Any, **kw: Any
    ) -> Any:
        return reference_attention(
            id(self),
            query,
            key,
            value,
            self.num_heads,
            self.num_kv_heads,
            self.head_size,
            self.scale,
            int(self.sliding_window),
            float(self.logits_soft_cap),
        )


class VllmMLAAttention(torch.nn.Module):
    """vLLM's MLAAttention(num_heads, scale, qk_nope_head_dim, qk_rope_head_dim, v_head_dim,
    q_lora_rank, kv_lora_rank, ..., kv_b_proj, ...), backend replaced by `reference_attention`:
    what every MLA backend computes, written as its prefill (MHA) form. The latent
    `kv_c_normed` [T, kv_lora_rank] is expanded by the layer's own `kv_b_proj` into per-head
    k_nope and v; each head's key is k_nope followed by the shared rotated `k_pe` [T, 1, rope];
    the query [T, H, nope + rope] comes rotated from the model's MLA wrapper. Output
    [T, H * v_head_dim]."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()
        self.num_heads, self.scale = int(kwargs["num_heads"]), float(kwargs["scale"])
        self.qk_nope_head_dim = int(kwargs["qk_nope_head_dim"])
        self.qk_rope_head_dim = int(kwargs["qk_rope_head_dim"])
        self.v_head_dim = int(kwargs["v_head_dim"])
        self.kv_lora_rank = int(kwargs["kv_lora_rank"])
        # A plain attribute, not a submodule: the wrapper's model owns kv_b_proj's weight.
        self.__dict__["kv_b_proj"] = kwargs["kv_b_proj"]

    def forward(
        self, q: torch.Tensor, kv_c_normed: torch.Tensor, k_pe: torch.Tensor, *a: Any, **kw: Any
    ) -> torch.Tensor:
        rows, heads = q.shape[0], self.num_heads
        kv = self.kv_b_proj(kv_c_normed)[0].view(
            rows, heads, self.qk_nope_head_dim + self.v_head_dim
        )
        k_nope, v = kv.split([self.qk_nope_head_dim, self.v_head_dim], dim=-1)
        k = torch.cat([k_nope, k_pe.expand(rows, heads, self.qk_rope_head_dim)], dim=-1)
        return reference_attention(
            id(self),
            q.reshape(rows, -1),
            k.reshape(rows, -1),
            v.reshape(rows, -1),
            heads,
            heads,
            self.qk_nope_head_dim + self.qk_rope_head_dim,
            self.scale,
        )
