"""Stub infrastructure: the tiniest torch modules that reproduce the parameter names and shapes the
engines' layer classes create (QKV/merged/row/replicated linears, embeddings, RMSNorm, the base
Llama decoder layer and MLP), plus the log that records which parameter every checkpoint tensor was
loaded into. No decision logic lives here: names, shapes and the shard-shape check each engine's
own weight_loader performs."""

from __future__ import annotations

import torch
from torch import nn


class LoadLog:
    """Which parameters were written (and which shards of stacked ones), by which tensor."""

    def __init__(self) -> None:
        self.loaded: dict[int, set] = {}
        self.source_ids: set[int] = set()

    def mark(self, param: torch.Tensor, shard: object, loaded_weight: torch.Tensor) -> None:
        """Record that `loaded_weight` was written into `param` (shard `shard`, None = whole)."""
        self.loaded.setdefault(id(param), set()).add(shard)
        self.source_ids.add(id(loaded_weight))


LOG = LoadLog()


def reset_log() -> LoadLog:
    """A fresh log for the next drafter x engine run."""
    global LOG
    LOG = LoadLog()
    return LOG


def _param(*shape: int, dtype: torch.dtype = torch.float32) -> nn.Parameter:
    # NaN-filled so a parameter left at init is visibly unloaded; tiny shapes keep this cheap.
    data = (
        torch.full(shape, float("nan"), dtype=dtype)
        if dtype.is_floating_point
        else torch.zeros(shape, dtype=dtype)
    )
    return nn.Parameter(data, requires_grad=False)


def _check_and_copy(param: torch.Tensor, loaded: torch.Tensor, rows: slice, shard: object) -> None:
    target = param.data[rows]
    # The engines' loaders assert this (vLLM: `assert param_data.shape == loaded_weight.shape`).
    assert target.shape == loaded.shape, (
        f"shard {shard!r}: parameter slice {tuple(target.shape)} "
        f"!= checkpoint {tuple(loaded.shape)}"
    )
    target.copy_(loaded)
    LOG.mark(param, shard, loaded)


def plain_loader(param: torch.Tensor, loaded: torch.Tensor, *_: object) -> None:
    """Whole-tensor loader with the size assertion every engine's default loader makes."""
    assert param.size() == loaded.size(), (
        f"Attempted to load weight ({loaded.size()}) into parameter ({param.size()})"
    )
    param.data.copy_(loaded)
    LOG.mark(param, None, loaded)


class _Linear(nn.Module):
    def __init__(
        self, in_features: int, out_features: int, bias: bool = False, **_: object
    ) -> None:
        super().__init__()
        self.input_size, self.output_size = in_features, out_features
        self.weight = _param(out_features, in_features)
        self.weight.weight_loader = plain_loader
        if bias:
            self.bias = _param(out_features)
            self.bias.weight_loader = plain_loader


class ReplicatedLinear(_Linear):
    """vLLM/SGLang ReplicatedLinear(input_size, output_size, bias)."""

    def __init__(
        self, input_size: int, output_size: int, bias: bool = True, *a: object, **k: object
    ) -> None:
        super().__init__(input_size, output_size, bias)


class RowParallelLinear(ReplicatedLinear):
    """RowParallelLinear(input_size, output_size, bias) at TP=1."""


class ColumnParallelLinear(ReplicatedLinear):
    """ColumnParallelLinear(input_size, output_size, bias) at TP=1."""


class QKVParallelLinear(nn.Module):
    """QKVParallelLinear(hidden_size, head_size, total_num_heads, total_num_kv_heads, bias): one
    stacked weight, loaded by shard "q"/"k"/"v"."""

    def __init__(
        self,
        hidden_size: int,
        head_size: int,
        total_num_heads: int,
        total_num_kv_heads: int | None = None,
        bias: bool = False,
        *a: object,
        **k: object,
    ) -> None:
        super().__init__()
        nkv = total_num_heads if total_num_kv_heads is None else total_num_kv_heads
        self.input_size = hidden_size
        self.sizes = {"q": total_num_heads * head_size, "k": nkv * head_size, "v": nkv * head_size}
        out = sum(self.sizes.values())
        self.weight = _param(out, hidden_size)
        self.weight.weight_loader = self.weight_loader
        if bias:
            self.bias = _param(out)
            self.bias.weight_loader = self.weight_loader

    def weight_loader(
        self, param: torch.Tensor, loaded: torch.Tensor, shard: object = None
    ) -> None:
        """Loads one of q/k/v (or the fused tensor when shard is None)."""
        if shard is None:  # newer vLLM tags the tensor instead (WeightsMapper orig_to_new_stacked)
            shard = getattr(loaded, "shard_id", None)
        if shard is None:
            return plain_loader(param, loaded)
        start = {"q": 0, "k": self.sizes["q"], "v": self.sizes["q"] + self.sizes["k"]}[shard]
        _check_and_copy(param, loaded, slice(start, start + self.sizes[shard]), shard)


class MergedColumnParallelLinear(nn.Module):
    """MergedColumnParallelLinear(input_size, output_sizes, bias): loaded by integer shard."""

    def __init__(
        self, input_size: int, output_sizes: list[int], bias: bool = False, *a: object, **k: object
    ) -> None:
        super().__init__()
        self.input_size, self.output_sizes = input_size, list(output_sizes)
        self.weight = _param(sum(self.output_sizes), input_size)
        self.weight.weight_loader = self.weight_loader
        if bias:
            self.bias = _param(sum(self.output_sizes))
            self.bias.weight_loader = self.weight_loader

    def weight_loader(
        self, param: torch.Tensor, loaded: torch.Tensor, shard: object = None
    ) -> None:
        """Loads shard `shard` (0 = gate, 1 = up) or the fused tensor."""
        if shard is None:  # newer vLLM tags the tensor instead (WeightsMapper orig_to_new_stacked)
            shard = getattr(loaded, "shard_id", None)
        if shard is None:
            return plain_loader(param, loaded)
        start = sum(self.output_sizes[: int(shard)])
        _check_and_copy(param, loaded, slice(start, start + self.output_sizes[int(shard)]), shard)


class VocabParallelEmbedding(nn.Module):
    """VocabParallelEmbedding(num_embeddings, embedding_dim) at TP=1 (padding rows not modelled:
    the engine's loader checks the unpadded row count, as this one does)."""

    def __init__(self, num_embeddings: int, embedding_dim: int, *a: object, **k: object) -> None:
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.weight = _param(num_embeddings, embedding_dim)
        self.weight.weight_loader = plain_loader


class ParallelLMHead(VocabParallelEmbedding):
    """ParallelLMHead(num_embeddings, embedding_dim, bias=False)."""

    def __init__(
        self, num_embeddings: int, embedding_dim: int, bias: bool = False, *a: object, **k: object
    ) -> None:
        super().__init__(num_embeddings, embedding_dim)
        if bias:
            self.bias = _param(num_embeddings)
            self.bias.weight_loader = plain_loader


class RMSNorm(nn.Module):
    """RMSNorm(hidden_size, eps): one `weight`, no weight_loader attribute (as in the engines)."""

    def __init__(self, hidden_size: int, eps: float = 1e-6, *a: object, **k: object) -> None:
        super().__init__()
        self.weight = _param(hidden_size)


class LlamaMLP(nn.Module):
    """LlamaMLP(hidden_size, intermediate_size, hidden_act, ...): gate_up_proj + down_proj."""

    def __init__(self, hidden_size: int, intermediate_size: int, *a: object, **k: object) -> None:
        super().__init__()
        self.gate_up_proj = MergedColumnParallelLinear(
            hidden_size, [intermediate_size] * 2, bias=bool(k.get("bias", False))
        )
        self.down_proj = RowParallelLinear(
            intermediate_size, hidden_size, bias=bool(k.get("bias", False))
        )


class _Opaque:
    def __getattr__(self, name: str) -> _Opaque:
        return _Opaque()

    def __setattr__(self, name: str, value: object) -> None:
        pass


class LlamaAttention(nn.Module):
    """The names the base Llama attention creates: qkv_proj, o_proj, head/kv counts, `attn`."""

    def __init__(self, config: object, hidden_size: int, prefix: str = "") -> None:
        super().__init__()
        nh = config.num_attention_heads
        nkv = getattr(config, "num_key_value_heads", None) or nh
        hd = getattr(config, "head_dim", None) or hidden_size // nh
        self.hidden_size, self.total_num_heads, self.total_num_kv_heads, self.head_dim = (
            hidden_size,
            nh,
            nkv,
            hd,
        )
        bias = bool(getattr(config, "attention_bias", False) or getattr(config, "bias", False))
        self.qkv_proj = QKVParallelLinear(hidden_size, hd, nh, nkv, bias=bias)
        self.o_proj = RowParallelLinear(nh * hd, hidden_size, bias=bias)
        object.__setattr__(self, "attn", _Opaque())


class LlamaDecoderLayer(nn.Module):
    """Base decoder layer of `models/llama.py` (both engines): self_attn, mlp, input_layernorm,
    post_attention_layernorm; subclasses in the EAGLE-3 modules override what they override."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__()
        # SGLang: (config, layer_id, ...); vLLM: (vllm_config, prefix=..., config=None).
        config = kwargs.get("config") or kwargs.get("vllm_config") or args[0]
        if not hasattr(config, "hidden_size"):
            config = config.model_config.hf_config
        self.hidden_size = config.hidden_size
        self.self_attn = LlamaAttention(config, config.hidden_size)
        inter = getattr(config, "intermediate_size", None)
        self.mlp = LlamaMLP(
            config.hidden_size, inter, bias=bool(getattr(config, "mlp_bias", False))
        )
        self.input_layernorm = RMSNorm(config.hidden_size)
        self.post_attention_layernorm = RMSNorm(config.hidden_size)
