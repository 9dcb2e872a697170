"""The explicit answers the import hook gives engine code for names that are not run from the
engine's source: the single-process layers (layers.py), the reference attention (attention.py),
the custom-op base that dispatches to `forward_native`, platform probes (all False: CPU, no
CUDA/ROCm/NPU/XPU kernels), parallel state (one process), and a few decorators and helpers that
are identities here. This is the complete list of what the forward harness replaces (the
DeepSeek-V3 target capture adds moe.py's fused-MoE stand-ins and attention.py's
VllmMLAAttention: capture.py `_vllm_mla_moe_session`); anything else an engine file touches and
that is not run from its source is an opaque placeholder and is listed per run
(`Session.opaque_used`)."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

from torch import nn

from . import attention, layers
from .imports import opaque


class NativeOp(nn.Module):
    """Stands for SGLang's MultiPlatformOp / CustomOp / BaseFusedOp and vLLM's CustomOp /
    PluggableLayer: `forward` runs the subclass's own `forward_native` (the engines' CPU/native
    dispatch without the CUDA/ROCm/XPU branches); `register` decorators keep the class."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()
        self._forward_method = getattr(self, "forward_native", None)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return self.forward_native(*args, **kwargs)

    @classmethod
    def register(cls, *args: Any, **kwargs: Any) -> Any:
        return lambda op_cls: op_cls

    @classmethod
    def register_oot(cls, *args: Any, **kwargs: Any) -> Any:
        return lambda op_cls: op_cls

    @classmethod
    def enabled(cls) -> bool:
        return False


class Answers(SimpleNamespace):
    """A namespace whose unmodelled attributes read as falsy placeholders (recorded)."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return opaque(f"{type(self).__name__}.{name}")()


def identity_decorator(*a: Any, **k: Any) -> Any:
    """`@decorator` and `@decorator(...)` that keep what they decorate."""
    if len(a) == 1 and callable(a[0]) and not k:
        return a[0]
    return lambda obj: obj


def add_prefix(name: str, prefix: str) -> str:
    """The engines' `add_prefix` / `maybe_prefix`: `prefix.name`, or `name` with no prefix."""
    return name if not prefix else f"{prefix}.{name}"


@contextlib.contextmanager
def null_context(*a: Any, **k: Any) -> Iterator[None]:
    """A context manager that does nothing, whatever it is called with (`layer_stack`)."""
    yield


def _false(*a: Any, **k: Any) -> bool:
    return False


# The helpers and constants both harnesses answer alike (the load drivers' stub_imports too).
IDENTITIES: dict[str, object] = {
    "add_prefix": add_prefix,
    "maybe_prefix": add_prefix,
    "support_torch_compile": identity_decorator,
    "init_logger": logging.getLogger,
    "layer_stack": null_context,
    "DEFAULT_VOCAB_PADDING_SIZE": 64,
}

_GROUP = Answers(is_first_rank=True, is_last_rank=True, world_size=1, rank_in_group=0, rank=0)
PARALLEL = Answers(
    tp_size=1,
    tp_rank=0,
    pp_group=_GROUP,
    tp_group=_GROUP,
    attn_tp_size=1,
    attn_tp_rank=0,
    attn_dp_size=1,
    moe_ep_size=1,
    dp_size=1,
)

PLATFORM_PROBES = (
    "is_cuda",
    "is_hip",
    "is_npu",
    "is_cpu",
    "is_xpu",
    "is_musa",
    "is_cuda_alike",
    "is_mps",
    "is_flashinfer_available",
    "cpu_has_amx_support",
    "is_sm90_supported",
    "is_sm100_supported",
    "use_intel_amx_backend",
    "is_hpu",
    "is_gfx95_supported",
    "get_bool_env_var",
    "is_batch_invariant_mode_enabled",
    "is_in_piecewise_cuda_graph",
    "supports_custom_op",
)

COMMON: dict[str, object] = {
    "QKVParallelLinear": layers.QKVParallelLinear,
    "MergedColumnParallelLinear": layers.MergedColumnParallelLinear,
    "RowParallelLinear": layers.RowParallelLinear,
    "ReplicatedLinear": layers.ReplicatedLinear,
    "ColumnParallelLinear": layers.ColumnParallelLinear,
    "VocabParallelEmbedding": layers.VocabParallelEmbedding,
    "ParallelLMHead": layers.ParallelLMHead,
    "CustomOp": NativeOp,
    "MultiPlatformOp": NativeOp,
    "BaseFusedOp": NativeOp,
    "PluggableLayer": NativeOp,
    **IDENTITIES,
    "get_tensor_model_parallel_world_size": lambda *a: 1,
    "get_tensor_model_parallel_rank": lambda *a: 0,
    "get_pp_group": lambda *a: _GROUP,
    "get_tp_group": lambda *a: _GROUP,
    "get_parallel": lambda *a: PARALLEL,
    "get_attention_tp_size": lambda *a: 1,
    "get_attention_tp_rank": lambda *a: 0,
    "tensor_model_parallel_all_reduce": lambda x, *a, **k: x,
    "get_spec": lambda: Answers(speculative_draft_window_size=None),
    "publish_role": lambda *a: None,
    "get_exec": lambda *a: Answers(deterministic=Answers(rl_on_policy_target=None)),
    "get_global_server_args": lambda: Answers(speculative_draft_window_size=None),
    **{name: _false for name in PLATFORM_PROBES},
}

SGLANG: dict[str, object] = {
    **COMMON,
    "RadixAttention": attention.RadixAttention,
    "LogitsProcessor": layers.SglangLogitsProcessor,
}

VLLM: dict[str, object] = {
    **COMMON,
    "Attention": attention.VllmAttention,
    "EncoderOnlyAttention": attention.VllmAttention,
    "LogitsProcessor": layers.VllmLogitsProcessor,
    "without_trust_remote_code": lambda kwargs: {
        k: v for k, v in kwargs.items() if k != "trust_remote_code"
    },
    # layers/fusion/fused_act_quant.py: with no input-quant key on the consumer (unquantized
    # linears) it returns act_fn(x); its module drags in the FP8 kernels, so it is not run.
    "maybe_fused_act_quant": lambda act_fn, x, linear: act_fn(x),
}


def replaced(engine: str) -> list[str]:
    """The names this module answers for `engine`, for the results' shim list."""
    return sorted(SGLANG if engine == "sglang" else VLLM)
