"""Single-process stand-ins for vLLM's fused MoE layer (`layers/fused_moe`: `FusedMoE` /
`FusedMoEFactory` with its router, RoutedExperts and MoERunner; `GateLinear`;
`fused_moe_make_expert_params_mapping`), for the DeepSeek-V3 / Kimi-K2 target capture.

What is replaced is only what is fused or parallel: the grouped expert GEMM kernels and the
expert-parallel placement. The routing is the wheel's own `router/grouped_topk_router.py
grouped_topk` (exec'd unchanged into the session, `routing_from_wheel`), called with the
arguments the model file gave the layer; the experts are a plain loop, one SiLU-gated MLP per
selected expert weighted by its routing weight, which is the sum the fused kernel computes; the
shared experts (the model file's own DeepseekV2MLP) are added as MoERunner does
(`shared_output + fused_output`). `routed_scaling_factor` goes to the router, or to the routed
output when the layer was told `apply_routed_scale_to_output` (the factory then gives the router
1.0), as `fused_moe/layer.py` does. Parameters start as NaN like layers.py's."""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from eagle3_inspect.installed.harness import imports, layers

ROUTER = "vllm/model_executor/layers/fused_moe/router/grouped_topk_router.py"


def routing_from_wheel(session: imports.Session) -> None:
    """The wheel's `grouped_topk` (the native routing DeepSeek-V2/V3 layers use), exec'd
    unchanged with its decorator: `torch.compile(backend="eager")` over a process that runs with
    TORCHDYNAMO_DISABLE=1 (eager, like every harness run). Its namespace: not CUDA, no fused
    grouped-topk kernel (`VLLM_USE_FUSED_MOE_GROUPED_TOPK` False: that path is CUDA-only), no
    batch-invariant mode. Stored as `session.runtime["grouped_topk"]` for FusedMoE."""
    from eagle3_inspect.installed.harness.sources import cut

    text = cut(session.source.read(ROUTER), "grouped_topk")
    if text is None:
        raise RuntimeError(f"{ROUTER} has no grouped_topk")
    platform = SimpleNamespace(
        simple_compile_backend="eager", is_cuda=lambda: False, is_xpu=lambda: False
    )
    namespace: dict[str, Any] = {
        "torch": torch,
        "current_platform": platform,
        "maybe_disable_graph_partition": lambda backend: {},
        "envs": SimpleNamespace(VLLM_USE_FUSED_MOE_GROUPED_TOPK=False, VLLM_BATCH_INVARIANT=False),
    }
    imports.run_engine_text(text, ROUTER, namespace)
    session.runtime["grouped_topk"] = namespace["grouped_topk"]


class GateLinear(nn.Module):
    """GateLinear(input_size, output_size, ..., out_dtype=None): the router logits F.linear(x,
    weight) at TP=1, returned as (logits, None); `e_score_correction_bias` is set by the model."""

    def __init__(self, input_size: int, output_size: int, *a: Any, **k: Any) -> None:
        super().__init__()
        self.out_dtype = k.get("out_dtype")
        self.weight = layers.nan_param(output_size, input_size)
        self.weight.weight_loader = layers.plain_loader  # type: ignore[attr-defined]

    def set_out_dtype(self, dtype: torch.dtype) -> None:
        self.out_dtype = dtype

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, None]:
        out = F.linear(x, self.weight)
        return (out if self.out_dtype is None else out.to(self.out_dtype)), None


def expert_params_mapping(
    model: Any,
    ckpt_gate_proj_name: str,
    ckpt_down_proj_name: str,
    ckpt_up_proj_name: str,
    num_experts: int,
    num_redundant_experts: int = 0,
    *a: Any,
    **k: Any,
) -> list[tuple[str, str, int, str]]:
    """`fused_moe_make_expert_params_mapping` for FusedMoE below, no redundant experts:
    (param prefix, checkpoint name, expert id, shard) with the wheel's shard names (gate w1,
    up w3 into w13; down w2), as `RoutedExperts.build_expert_params_mapping` lays them out."""
    assert num_redundant_experts == 0, "no expert-parallel load balancing in one process"
    return [
        (
            "experts.w13_" if name in (ckpt_gate_proj_name, ckpt_up_proj_name) else "experts.w2_",
            f"experts.{expert}.{name}.",
            expert,
            shard,
        )
        for expert in range(num_experts)
        for shard, name in (
            ("w1", ckpt_gate_proj_name),
            ("w2", ckpt_down_proj_name),
            ("w3", ckpt_up_proj_name),
        )
    ]


class FusedMoE(nn.Module):
    """FusedMoE(...) / FusedMoEFactory(...) at TP = EP = 1, unquantized, SiLU-gated:
    w13_weight [E, 2I, H] (gate rows then up rows), w2_weight [E, H, I]."""

    def __init__(self, *a: Any, **k: Any) -> None:
        super().__init__()
        self.num_experts, self.top_k = int(k["num_experts"]), int(k["top_k"])
        hidden, inter = int(k["hidden_size"]), int(k["intermediate_size"])
        self.intermediate_size = inter
        self.renormalize = bool(k.get("renormalize", True))
        if not k.get("use_grouped_topk", False):
            raise NotImplementedError("only the grouped top-k router (DeepSeek-V2/V3) is run")
        if k.get("activation", "silu") != "silu" or k.get("n_shared_experts"):
            raise NotImplementedError("only SiLU experts with separate shared experts are run")
        self.num_expert_group = int(k.get("num_expert_group") or 0)
        self.topk_group = int(k.get("topk_group") or 0)
        self.scoring_func = str(k.get("scoring_func", "softmax"))
        scale = float(k.get("routed_scaling_factor", 1.0))
        on_output = bool(k.get("apply_routed_scale_to_output", False))
        self.router_scale, self.output_scale = (1.0, scale) if on_output else (scale, 1.0)
        self.e_score_correction_bias = k.get("e_score_correction_bias")
        self.gate = k.get("gate")
        self.shared_experts = k.get("shared_experts")
        self.routing: Callable[..., tuple[torch.Tensor, torch.Tensor]] = imports.active().runtime[
            "grouped_topk"
        ]  # type: ignore[assignment]
        self.w13_weight = layers.nan_param(self.num_experts, 2 * inter, hidden)
        self.w2_weight = layers.nan_param(self.num_experts, hidden, inter)
        for param in (self.w13_weight, self.w2_weight):
            param.weight_loader = self.weight_loader  # type: ignore[attr-defined]

    @property
    def is_internal_router(self) -> bool:
        """MoERunner.is_internal_router: the layer runs its gate itself when given one."""
        return self.gate is not None

    def weight_loader(
        self,
        param: torch.Tensor,
        loaded: torch.Tensor,
        weight_name: str,
        shard_id: str,
        expert_id: int,
        return_success: bool = False,
    ) -> bool | None:
        """One expert's gate (w1), up (w3) or down (w2) projection into its slot."""
        inter = self.intermediate_size
        rows = {"w1": slice(0, inter), "w3": slice(inter, 2 * inter), "w2": slice(None)}[shard_id]
        target = param.data[expert_id][rows]
        assert target.shape == loaded.shape, (
            f"expert {expert_id} {shard_id}: slot {tuple(target.shape)} "
            f"!= checkpoint {tuple(loaded.shape)}"
        )
        target.copy_(loaded)
        layers.LOG[0].mark(param, (expert_id, shard_id), loaded)
        return True if return_success else None

    def forward(self, hidden_states: torch.Tensor, router_logits: torch.Tensor) -> torch.Tensor:
        if self.gate is not None:
            router_logits, _ = self.gate(hidden_states)
        weights, ids = self.routing(
            hidden_states,
            router_logits,
            self.top_k,
            self.renormalize,
            self.num_expert_group,
            self.topk_group,
            self.scoring_func,
            self.router_scale,
            self.e_score_correction_bias,
        )
        routed = torch.zeros_like(hidden_states)
        for expert in range(self.num_experts):
            rows, slot = (ids == expert).nonzero(as_tuple=True)
            if rows.numel() == 0:
                continue
            gate_up = F.linear(hidden_states[rows], self.w13_weight[expert])
            gate, up = gate_up.chunk(2, dim=-1)
            out = F.linear(F.silu(gate) * up, self.w2_weight[expert])
            routed.index_add_(0, rows, out * weights[rows, slot, None].to(out.dtype))
        if self.output_scale != 1.0:
            routed = routed * self.output_scale
        if self.shared_experts is None:
            return routed
        return self.shared_experts(hidden_states) + routed
