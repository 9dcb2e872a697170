"""Plain single-process stand-ins for the engines' parallel layers (tensor parallel size 1):
QKV / merged-column / row / column / replicated linears, vocab-parallel embedding, the LM head and
the logits processors. Each has the engine class's parameter names and shapes, the stacked
loaders' shard placement and shape assertion, and the plain forward the engine computes at TP=1
(`F.linear`, `F.embedding`). Parameters start as NaN, so one left at init is visible, and every
tensor a loader writes is recorded in the `LoadLog`."""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F
from torch import nn


class LoadLog:
    """Which parameters were written (and which shards of stacked ones), by which tensor."""

    def __init__(self) -> None:
        self.loaded: dict[int, set[object]] = {}
        self.source_ids: set[int] = set()

    def mark(self, param: torch.Tensor, shard: object, loaded_weight: torch.Tensor) -> None:
        """Record that `loaded_weight` was written into `param` (shard `shard`, None = whole)."""
        self.loaded.setdefault(id(param), set()).add(shard)
        self.source_ids.add(id(loaded_weight))


LOG: list[LoadLog] = [LoadLog()]


def reset_log() -> LoadLog:
    """A fresh log for the next drafter x engine run."""
    LOG[0] = LoadLog()
    return LOG[0]


def nan_param(*shape: int, dtype: torch.dtype | None = None) -> nn.Parameter:
    """A frozen parameter filled with NaN (zeros for integer dtypes), so one left at init shows."""
    dtype = dtype or torch.float32
    data = (
        torch.full(shape, float("nan"), dtype=dtype)
        if dtype.is_floating_point
        else torch.zeros(shape, dtype=dtype)
    )
    return nn.Parameter(data, requires_grad=False)


def plain_loader(param: torch.Tensor, loaded: torch.Tensor, *_: object) -> None:
    """Whole-tensor loader with the size assertion every engine's default loader makes."""
    assert param.size() == loaded.size(), (
        f"Attempted to load weight ({loaded.size()}) into parameter ({param.size()})"
    )
    param.data.copy_(loaded)
    LOG[0].mark(param, None, loaded)


def copy_shard(param: torch.Tensor, loaded: torch.Tensor, rows: slice, shard: object) -> None:
    """Writes shard `shard` of a stacked parameter (its `rows`), with the shape assertion the
    engines' loaders make (vLLM: `assert param_data.shape == loaded_weight.shape`)."""
    target = param.data[rows]
    assert target.shape == loaded.shape, (
        f"shard {shard!r}: parameter slice {tuple(target.shape)} "
        f"!= checkpoint {tuple(loaded.shape)}"
    )
    target.copy_(loaded)
    LOG[0].mark(param, shard, loaded)


def logged(loader: Any) -> Any:
    """An engine's own weight loader (exec'd from its source) wrapped to log what it writes."""

    def default_weight_loader(param: torch.Tensor, loaded_weight: torch.Tensor, *rest: Any) -> None:
        loader(param, loaded_weight, *rest)
        LOG[0].mark(param, None, loaded_weight)

    return default_weight_loader


class _Linear(nn.Module):
    """weight [out, in] (+ bias [out]); forward F.linear, returning (out, None) like the engines'
    parallel linears unless `return_bias=False`."""

    def __init__(self, in_features: int, out_features: int, bias: bool, **kw: Any) -> None:
        super().__init__()
        self.input_size, self.output_size = in_features, out_features
        self.return_bias = kw.get("return_bias", True)
        self.weight = nan_param(out_features, in_features, dtype=kw.get("params_dtype"))
        self.weight.weight_loader = self.weight_loader  # type: ignore[attr-defined]
        if bias:
            self.bias = nan_param(out_features, dtype=kw.get("params_dtype"))
            self.bias.weight_loader = self.weight_loader  # type: ignore[attr-defined]
        else:
            self.bias = None

    def weight_loader(self, param: torch.Tensor, loaded: torch.Tensor, *shard: object) -> None:
        """Loads the whole tensor."""
        plain_loader(param, loaded)

    def forward(self, x: torch.Tensor, *a: Any, **k: Any) -> Any:
        # Extra arguments (skip_all_reduce=, ...) only steer TP communication: none at TP=1.
        out = F.linear(x, self.weight, self.bias)
        return (out, None) if self.return_bias else out


class ReplicatedLinear(_Linear):
    """ReplicatedLinear(input_size, output_size, bias=True, ...)."""

    def __init__(
        self, input_size: int, output_size: int, bias: bool = True, *a: Any, **k: Any
    ) -> None:
        super().__init__(input_size, output_size, bias, **k)


class RowParallelLinear(ReplicatedLinear):
    """RowParallelLinear(input_size, output_size, bias) at TP=1."""


class ColumnParallelLinear(ReplicatedLinear):
    """ColumnParallelLinear(input_size, output_size, bias) at TP=1."""


class _StackedLinear(_Linear):
    """A linear whose weight stacks shards along dim 0, each written by its own weight_loader
    call (or the fused tensor at once); `_rows(shard)` says where a shard goes."""

    def _rows(self, shard: object) -> slice:
        raise NotImplementedError

    def weight_loader(self, param: torch.Tensor, loaded: torch.Tensor, *shard_arg: object) -> None:
        """Loads shard `shard`, or the fused tensor when there is none (newer vLLM tags the
        tensor instead: `loaded.shard_id`)."""
        shard = shard_arg[0] if shard_arg else None
        if shard is None:
            shard = getattr(loaded, "shard_id", None)
        if shard is None:
            plain_loader(param, loaded)
            return
        copy_shard(param, loaded, self._rows(shard), shard)


class QKVParallelLinear(_StackedLinear):
    """QKVParallelLinear(hidden_size, head_size, total_num_heads, total_num_kv_heads, bias):
    one stacked weight, loaded by shard "q" / "k" / "v"."""

    def __init__(
        self,
        hidden_size: int,
        head_size: int,
        total_num_heads: int,
        total_num_kv_heads: int | None = None,
        bias: bool = False,
        *a: Any,
        **k: Any,
    ) -> None:
        nkv = total_num_heads if total_num_kv_heads is None else total_num_kv_heads
        self.sizes = {"q": total_num_heads * head_size, "k": nkv * head_size, "v": nkv * head_size}
        super().__init__(hidden_size, sum(self.sizes.values()), bias, **k)
        self.head_size, self.total_num_heads, self.total_num_kv_heads = (
            head_size,
            total_num_heads,
            nkv,
        )

    def _rows(self, shard: object) -> slice:
        start = {"q": 0, "k": self.sizes["q"], "v": self.sizes["q"] + self.sizes["k"]}[str(shard)]
        return slice(start, start + self.sizes[str(shard)])


class MergedColumnParallelLinear(_StackedLinear):
    """MergedColumnParallelLinear(input_size, output_sizes, bias): loaded by integer shard."""

    def __init__(
        self, input_size: int, output_sizes: list[int], bias: bool = False, *a: Any, **k: Any
    ) -> None:
        self.output_sizes = list(output_sizes)
        super().__init__(input_size, sum(self.output_sizes), bias, **k)

    def _rows(self, shard: object) -> slice:
        index = int(shard)  # type: ignore[call-overload]
        start = sum(self.output_sizes[:index])
        return slice(start, start + self.output_sizes[index])


class VocabParallelEmbedding(nn.Module):
    """VocabParallelEmbedding(num_embeddings, embedding_dim) at TP=1: F.embedding."""

    def __init__(self, num_embeddings: int, embedding_dim: int, *a: Any, **k: Any) -> None:
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.org_vocab_size = num_embeddings
        self.weight = nan_param(num_embeddings, embedding_dim, dtype=k.get("params_dtype"))
        self.weight.weight_loader = plain_loader  # type: ignore[attr-defined]

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        return F.embedding(input_ids, self.weight)


class ParallelLMHead(VocabParallelEmbedding):
    """ParallelLMHead(num_embeddings, embedding_dim, bias=False): its weight is read by the
    logits processor, never called."""

    def __init__(
        self, num_embeddings: int, embedding_dim: int, bias: bool = False, *a: Any, **k: Any
    ) -> None:
        super().__init__(num_embeddings, embedding_dim, **k)
        self.bias = None
        if bias:
            self.bias = nan_param(num_embeddings)
            self.bias.weight_loader = plain_loader  # type: ignore[attr-defined]

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        raise RuntimeError("LMHead's weights should be used in the logits processor")


def head_logits(lm_head: nn.Module, hidden: torch.Tensor) -> torch.Tensor:
    """hidden @ lm_head.weight.T (+ bias): what both engines' logits processors compute at TP=1
    before scaling (an `nn.Linear` head too, as SGLang's tie_word_embeddings path uses the
    embedding module)."""
    return F.linear(hidden, lm_head.weight, getattr(lm_head, "bias", None))


class VllmLogitsProcessor(nn.Module):
    """vLLM LogitsProcessor(vocab_size, org_vocab_size=None, scale=1.0, ..., soft_cap=None):
    logits = head_logits * scale, soft-capped when set (`_get_logits` + `forward` at TP=1)."""

    def __init__(
        self,
        vocab_size: int,
        org_vocab_size: int | None = None,
        scale: float = 1.0,
        *a: Any,
        **k: Any,
    ) -> None:
        super().__init__()
        self.vocab_size, self.scale = vocab_size, scale
        self.soft_cap = k.get("soft_cap")

    def forward(self, lm_head: nn.Module, hidden: torch.Tensor, *a: Any, **k: Any) -> torch.Tensor:
        logits = head_logits(lm_head, hidden)[..., : self.vocab_size]
        if self.soft_cap is not None:
            logits = torch.tanh(logits / self.soft_cap) * self.soft_cap
        if self.scale != 1.0:
            logits = logits * self.scale
        return logits


class SglangLogitsProcessor(nn.Module):
    """SGLang LogitsProcessor(config): logits = head_logits, times config.logit_scale when set,
    soft-capped by config.final_logit_softcapping when set (`_get_logits` at TP=1)."""

    def __init__(self, config: Any, *a: Any, **k: Any) -> None:
        super().__init__()
        self.vocab_size = config.vocab_size
        self.logit_scale = getattr(config, "logit_scale", None)
        self.final_logit_softcapping = getattr(config, "final_logit_softcapping", None)

    def forward(self, lm_head: nn.Module, hidden: torch.Tensor) -> torch.Tensor:
        logits = head_logits(lm_head, hidden)[..., : self.vocab_size]
        if self.logit_scale is not None:
            logits = logits * self.logit_scale
        if self.final_logit_softcapping:
            cap = self.final_logit_softcapping
            logits = torch.tanh(logits / cap) * cap
        return logits
