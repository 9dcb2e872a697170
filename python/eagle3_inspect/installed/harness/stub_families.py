"""Stubs the family drivers add on top of stub_layers/stub_imports, per run (through
`stub_imports.RUNTIME`, so the original Llama EAGLE-3 runs see exactly the stubs they always
saw). Like stub_layers, nothing here decides anything: names, shapes and the attributes the
engines' model files read after loading.

* linear layers that carry `quant_method` (an `UnquantizedLinearMethod` stand-in unless a real,
  exec'd quantization config gives the layer a quantized method, see quant_truth.py) and
  accept `quant_config`, `params_dtype`, `return_bias`, `prefix`;
* `get_rope`: a rotary stand-in with the attributes DFlash's post-load KV fusion reads
  (`head_size`, `cos_sin_cache`, `is_neox_style`), recording the arguments it was built with;
* buffers: which checkpoint tensors a model's own `load_weights` copied into a buffer
  (`mask_hidden` in P-EAGLE), which the parameter load log cannot see.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import torch
from torch import nn

from . import stub_imports as S
from . import stub_layers as L

# The quantization config of the current run (None: unquantized), set by the drivers and read
# by the stub VllmConfig / linear layers.
QUANT: dict[str, object] = {"config": None}
ROPE_CALLS: list[dict[str, Any]] = []


class UnquantizedLinearMethod:
    """Stands for the engine's UnquantizedLinearMethod (no weights of its own)."""


class LinearBase(nn.Module):
    """Base class the stub linears share, so `isinstance(layer, LinearBase)` in an exec'd
    quantization config's `get_quant_method` sees them as linear layers. Set up by
    `configure`, which stub_layers' linears call at the end of __init__ with the engine's
    settings after `bias` (`quant_config`, `params_dtype`, `prefix`, ...)."""

    def configure(
        self, input_size: int, output_sizes: list[int], bias: bool, settings: dict[str, object]
    ) -> None:
        """The layer's quantization method (and quantized weights, when it has one)."""
        quant_config: Any = settings.get("quant_config")  # the engine's quantization config
        prefix = settings.get("prefix", "")
        params_dtype = settings.get("params_dtype")
        self.prefix = prefix
        self.quant_config = quant_config
        if not bias:
            self.register_parameter("bias", None)  # as the engines' linears do
        self.params_dtype = params_dtype or torch.float32
        method = None
        if quant_config is not None:
            method = quant_config.get_quant_method(self, prefix=prefix)
        if method is None or type(method).__name__ == "UnquantizedLinearMethod":
            self.quant_method = UnquantizedLinearMethod()
            return
        self.quant_method = method
        from . import quant_truth

        quant_truth.create_quantized_weights(self, method, input_size, output_sizes, bias)


class ReplicatedLinear(LinearBase, L.ReplicatedLinear):
    """ReplicatedLinear(input_size, output_size, bias, ..., quant_config=, prefix=)."""

    def configure(
        self, input_size: int, output_sizes: list[int], bias: bool, settings: dict[str, object]
    ) -> None:
        """`in_features` / `out_features` (read by the quantization code), then the method."""
        self.in_features, self.out_features = input_size, output_sizes[0]
        super().configure(input_size, output_sizes, bias, settings)


class RowParallelLinear(ReplicatedLinear):
    """RowParallelLinear at TP=1."""

    linear_kind = "row"


class ColumnParallelLinear(ReplicatedLinear):
    """ColumnParallelLinear(input_size, output_size, bias, gather_output, ...) at TP=1."""

    linear_kind = "column"
    after_bias = L.ColumnParallelLinear.after_bias


class QKVParallelLinear(LinearBase, L.QKVParallelLinear):
    """QKVParallelLinear(hidden_size, head_size, total_num_heads, total_num_kv_heads, bias,
    ..., quant_config=, prefix=)."""

    linear_kind = "qkv"

    def configure(
        self, input_size: int, output_sizes: list[int], bias: bool, settings: dict[str, object]
    ) -> None:
        """The q/k/v output sizes and head counts the quantization code reads, then the method."""
        self.output_sizes = output_sizes
        self.num_heads, self.head_size = settings["total_num_heads"], settings["head_size"]
        super().configure(input_size, output_sizes, bias, settings)


class MergedColumnParallelLinear(LinearBase, L.MergedColumnParallelLinear):
    """MergedColumnParallelLinear(input_size, output_sizes, bias, ..., quant_config=,
    prefix=)."""

    linear_kind = "merged"


class RMSNorm(L.RMSNorm):
    """RMSNorm(hidden_size, eps) with the `variance_epsilon` engines read back."""

    def __init__(self, hidden_size: int, eps: float = 1e-6, *a: object, **k: object) -> None:
        super().__init__(hidden_size, eps)
        self.variance_epsilon = eps


def get_rope(*args: object, **kwargs: object) -> SimpleNamespace:
    """A rotary embedding stand-in; the arguments are recorded (what RoPE the engine built)."""
    head_size = kwargs.get("head_size", args[0] if args else None)
    ROPE_CALLS.append({k: v for k, v in kwargs.items() if _plain(v)})
    return SimpleNamespace(
        head_size=head_size,
        rotary_dim=kwargs.get("rotary_dim", head_size),
        cos_sin_cache=torch.zeros(1),
        is_neox_style=bool(kwargs.get("is_neox_style", True)),
    )


def _plain(value: object) -> bool:
    return isinstance(value, (int, float, str, bool, type(None), dict, list, tuple))


def get_hf_file_bytes(file_name: str, model: object, revision: object = None) -> bytes | None:
    """vLLM's repo_utils.get_hf_file_bytes for a local model directory: the file's bytes, or
    None when the checkpoint does not ship it (no Hub access here)."""
    del revision
    path = Path(str(model)) / file_name
    return path.read_bytes() if path.is_file() else None


class VllmConfig:
    """vllm.config.VllmConfig as far as draft code calls it: the run's quantization config."""

    @staticmethod
    def get_quantization_config(*_: object, **__: object) -> object:
        return QUANT["config"]


VLLM_NAMES: dict[str, object] = {
    "ReplicatedLinear": ReplicatedLinear,
    "RowParallelLinear": RowParallelLinear,
    "ColumnParallelLinear": ColumnParallelLinear,
    "QKVParallelLinear": QKVParallelLinear,
    "MergedColumnParallelLinear": MergedColumnParallelLinear,
    "LinearBase": LinearBase,
    "UnquantizedLinearMethod": UnquantizedLinearMethod,
    "get_rope": get_rope,
    "RMSNorm": RMSNorm,
    "VllmConfig": VllmConfig,
    "get_hf_file_bytes": get_hf_file_bytes,
}


def install_vllm() -> None:
    """Serves the family stubs for a vLLM run (after stub_imports.reset); unmodelled names
    read as false (platform checks and feature flags off; vllm/envs.py itself is real)."""
    ROPE_CALLS.clear()
    QUANT["config"] = None
    S.RUNTIME.update(VLLM_NAMES)
    S.OPAQUE_FALSY["on"] = True


SGLANG_NAMES: dict[str, object] = {
    name: VLLM_NAMES[name]
    for name in (
        "ReplicatedLinear",
        "RowParallelLinear",
        "ColumnParallelLinear",
        "QKVParallelLinear",
        "MergedColumnParallelLinear",
        "LinearBase",
        "UnquantizedLinearMethod",
        "get_rope",
        "RMSNorm",
    )
}


class _Sizes:
    """A parallel state at world size 1: every `*_size` reads 1, every `*_rank` 0, flags
    (`*_enabled`) false; other attributes None, recorded as not modelled."""

    pp_group = SimpleNamespace(is_first_rank=True, is_last_rank=True, world_size=1)

    def __getattr__(self, name: str) -> object:
        if name.startswith("__"):
            raise AttributeError(name)
        if name.endswith(("_size", "world_size")):
            return 1
        if name.endswith("_rank"):
            return 0
        S.OPAQUE_USED.add(f"parallel state .{name} = None")
        return None


class _ServerArgs:
    """SGLang's server args as the draft model's __init__ reads them: the defaults of a
    plain single-GPU launch for the names listed, None (recorded) for the rest."""

    kv_cache_dtype = "auto"
    speculative_draft_window_size = None
    enable_dp_attention = False
    enable_dp_lm_head = False

    def __getattr__(self, name: str) -> object:
        if name.startswith("__"):
            raise AttributeError(name)
        S.OPAQUE_USED.add(f"server_args.{name} = None")
        return None


PARALLEL = _Sizes()
SERVER_ARGS = _ServerArgs()

# SGLang's parallel-state getters at TP=1 (attention TP, embedding TP kwargs, DP-attention).
SGLANG_NAMES.update(
    {
        "get_attention_tp_size": lambda *_: 1,
        "get_attention_tp_rank": lambda *_: 0,
        "get_attention_dp_size": lambda *_: 1,
        "get_attention_cp_size": lambda *_: 1,
        "get_embedding_tp_kwargs": lambda *_, **__: {},
        "is_dp_attention_enabled": lambda *_: False,
        "get_parallel": lambda: PARALLEL,
        "get_global_server_args": lambda: SERVER_ARGS,
    }
)


def install_sglang() -> None:
    """Serves the family stubs for an SGLang run (after stub_imports.reset); unmodelled
    names read as false (platform checks such as `is_npu()` and feature flags off)."""
    ROPE_CALLS.clear()
    QUANT["config"] = None
    S.RUNTIME.update(SGLANG_NAMES)
    S.OPAQUE_FALSY["on"] = True


def buffer_snapshot(model: nn.Module) -> dict[str, torch.Tensor]:
    """Every buffer's value before loading."""
    return {name: buf.detach().clone() for name, buf in model.named_buffers()}


def tensors_copied_into_buffers(
    model: nn.Module, before: dict[str, torch.Tensor], tensors: dict[str, torch.Tensor]
) -> dict[str, str]:
    """checkpoint tensor -> buffer, for buffers load_weights changed to exactly that tensor's
    values (the model's own code copies `mask_hidden` into a buffer, bypassing the loaders)."""
    found: dict[str, str] = {}
    for name, buf in model.named_buffers():
        old = before.get(name)
        if old is None or old.shape != buf.shape or torch.equal(old, buf):
            continue
        for tensor_name, tensor in tensors.items():
            if tensor.numel() == buf.numel() and torch.equal(
                tensor.reshape(buf.shape).to(buf.dtype), buf
            ):
                found[tensor_name] = name
    return found


def consumed_by_value(
    model: nn.Module, dropped: list[str], tensors: dict[str, torch.Tensor]
) -> dict[str, str]:
    """checkpoint tensor -> "param[rows a:b]", for tensors the model's own load_weights
    rebuilt before loading (SGLang's MLA draft concatenates q_a_proj and kv_a_proj_with_mqa
    into one fused weight), found as an exact row block of a loaded parameter. Only
    non-constant tensors of 2+ dims are matched, so an all-ones norm cannot match by chance."""
    found: dict[str, str] = {}
    params = [(n, p.detach()) for n, p in model.named_parameters() if p.dim() >= 2]
    for name in dropped:
        tensor = tensors[name]
        if (
            tensor.dim() < 2
            or not tensor.is_floating_point()
            or bool((tensor == tensor.flatten()[0]).all())
        ):
            continue
        for param_name, param in params:
            rows = tensor.shape[0]
            if param.shape[1:] != tensor.shape[1:] or param.shape[0] < rows:
                continue
            value = tensor.to(param.dtype)
            for start in range(param.shape[0] - rows + 1):
                if torch.equal(param[start : start + rows], value):
                    found[name] = f"{param_name}[rows {start}:{start + rows}]"
                    break
            if name in found:
                break
    return found
