"""Stub infrastructure: the tiniest torch modules that reproduce the parameter names and shapes the
engines' layer classes create (QKV/merged/row/replicated linears, embeddings, RMSNorm, the base
Llama decoder layer and MLP) for the load drivers. No decision logic lives here: names, shapes and
the shard-shape check each engine's own weight_loader performs. The load log (which parameter
every checkpoint tensor was loaded into), the whole-tensor and shard loaders and the NaN
parameters are `layers`', shared with the forward harness."""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from .layers import copy_shard, logged, nan_param, plain_loader


def logged_default_loader(source: str | None, helpers: dict[str, Any] | None = None) -> object:
    """An engine's own `default_weight_loader` (its source text, exec'd unchanged) wrapped so
    that the load log records every tensor it writes (`source`: the cut function, None when the
    wheel has none; `helpers`: the engine's own functions it calls, vLLM >= 0.34's
    `copy_weight_`: `vllm_weights.copy_weight_namespace`)."""
    if source is None:
        raise LookupError("no default_weight_loader in the engine's model_loader/weight_utils.py")
    namespace: dict[str, Any] = {"torch": torch, **(helpers or {})}
    exec(source, namespace)
    return logged(namespace["default_weight_loader"])


def _add_weights(
    module: nn.Module, out_features: int, in_features: int, bias: bool, loader: object
) -> None:
    """`weight` [out, in] and, with `bias`, `bias` [out] on `module`, each loaded by `loader`."""
    module.weight = nan_param(out_features, in_features)
    module.weight.weight_loader = loader
    if bias:
        module.bias = nan_param(out_features)
        module.bias.weight_loader = loader


# What the engines' linears take after `bias`, in their positional order (read by stub_families).
AFTER_BIAS = ("skip_bias_add", "params_dtype", "quant_config", "prefix")


class _Configurable(nn.Module):
    """A linear that hands the engine's settings after `bias` (positional or keyword) to
    `configure` at the end of its __init__; here `configure` does nothing."""

    after_bias: tuple[str, ...] = AFTER_BIAS

    def _configured(
        self,
        input_size: int,
        output_sizes: list[int],
        bias: bool,
        a: tuple[object, ...],
        k: dict[str, object],
    ) -> None:
        settings = dict(zip(self.after_bias, a, strict=False)) | k  # fewer given: defaults
        self.configure(input_size, output_sizes, bias, settings)

    def configure(
        self, input_size: int, output_sizes: list[int], bias: bool, settings: dict[str, object]
    ) -> None:
        """Hook for stub_families' quantization-aware linears (nothing for the plain stubs)."""


class _Linear(_Configurable):
    def __init__(
        self, in_features: int, out_features: int, bias: bool = False, **_: object
    ) -> None:
        super().__init__()
        self.input_size, self.output_size = in_features, out_features
        _add_weights(self, out_features, in_features, bias, plain_loader)


class ReplicatedLinear(_Linear):
    """vLLM/SGLang ReplicatedLinear(input_size, output_size, bias)."""

    def __init__(
        self, input_size: int, output_size: int, bias: bool = True, *a: object, **k: object
    ) -> None:
        super().__init__(input_size, output_size, bias)
        self._configured(input_size, [output_size], bias, a, k)


class RowParallelLinear(ReplicatedLinear):
    """RowParallelLinear(input_size, output_size, bias) at TP=1."""


class ColumnParallelLinear(ReplicatedLinear):
    """ColumnParallelLinear(input_size, output_size, bias, gather_output) at TP=1."""

    after_bias = ("gather_output", *AFTER_BIAS)


class _StackedLinear(_Configurable):
    """A linear whose weight stacks shards along dim 0, each written by its own weight_loader
    call (or the fused tensor at once); `_rows(shard)` says where a shard goes."""

    def _rows(self, shard: object) -> slice:
        raise NotImplementedError

    def weight_loader(
        self, param: torch.Tensor, loaded: torch.Tensor, shard: object = None
    ) -> None:
        """Loads shard `shard` into its rows, or the fused tensor when there is no shard."""
        if shard is None:  # newer vLLM tags the tensor instead (WeightsMapper orig_to_new_stacked)
            shard = getattr(loaded, "shard_id", None)
        if shard is None:
            return plain_loader(param, loaded)
        copy_shard(param, loaded, self._rows(shard), shard)


class QKVParallelLinear(_StackedLinear):
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
        _add_weights(self, sum(self.sizes.values()), hidden_size, bias, self.weight_loader)
        heads = {"head_size": head_size, "total_num_heads": total_num_heads}
        self._configured(hidden_size, list(self.sizes.values()), bias, a, k | heads)

    def _rows(self, shard: Any) -> slice:  # the engine's shard id, as it passes it
        """Shard "q", "k" or "v"."""
        start = {"q": 0, "k": self.sizes["q"], "v": self.sizes["q"] + self.sizes["k"]}[shard]
        return slice(start, start + self.sizes[shard])


class MergedColumnParallelLinear(_StackedLinear):
    """MergedColumnParallelLinear(input_size, output_sizes, bias, gather_output): loaded by
    integer shard."""

    after_bias = ("gather_output", *AFTER_BIAS)

    def __init__(
        self, input_size: int, output_sizes: list[int], bias: bool = False, *a: object, **k: object
    ) -> None:
        super().__init__()
        self.input_size, self.output_sizes = input_size, list(output_sizes)
        _add_weights(self, sum(self.output_sizes), input_size, bias, self.weight_loader)
        self._configured(input_size, self.output_sizes, bias, a, k)

    def _rows(self, shard: Any) -> slice:  # the engine's shard id, as it passes it
        """Shard 0 (gate) or 1 (up)."""
        start = sum(self.output_sizes[: int(shard)])
        return slice(start, start + self.output_sizes[int(shard)])


class VocabParallelEmbedding(nn.Module):
    """VocabParallelEmbedding(num_embeddings, embedding_dim) at TP=1 (padding rows not modelled:
    the engine's loader checks the unpadded row count, as this one does)."""

    def __init__(self, num_embeddings: int, embedding_dim: int, *a: object, **k: object) -> None:
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.weight = nan_param(num_embeddings, embedding_dim)
        self.weight.weight_loader = plain_loader


class ParallelLMHead(VocabParallelEmbedding):
    """ParallelLMHead(num_embeddings, embedding_dim, bias=False)."""

    def __init__(
        self, num_embeddings: int, embedding_dim: int, bias: bool = False, *a: object, **k: object
    ) -> None:
        super().__init__(num_embeddings, embedding_dim)
        if bias:
            self.bias = nan_param(num_embeddings)
            self.bias.weight_loader = plain_loader


class RMSNorm(nn.Module):
    """RMSNorm(hidden_size, eps): one `weight`, no weight_loader attribute (as in the engines)."""

    def __init__(self, hidden_size: int, eps: float = 1e-6, *a: object, **k: object) -> None:
        super().__init__()
        self.weight = nan_param(hidden_size)


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

    def __init__(self, config: Any, hidden_size: int, prefix: str = "") -> None:
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
        config: Any = kwargs.get("config") or kwargs.get("vllm_config") or args[0]
        if not hasattr(config, "hidden_size"):
            config = config.model_config.hf_config
        self.hidden_size = config.hidden_size
        self.self_attn = LlamaAttention(config, config.hidden_size)
        inter: Any = getattr(config, "intermediate_size", None)  # None fails in the MLP
        self.mlp = LlamaMLP(
            config.hidden_size, inter, bias=bool(getattr(config, "mlp_bias", False))
        )
        self.input_layernorm = RMSNorm(config.hidden_size)
        self.post_attention_layernorm = RMSNorm(config.hidden_size)
