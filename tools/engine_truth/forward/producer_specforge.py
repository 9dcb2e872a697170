"""SpecForge's own training forward (`algorithms/eagle3/model.py OnlineEagle3Model.forward`, the
TTT loop of `OnlineEagle3Model`), on a draft model built by its own `AutoDraftModel.from_config`,
warm-started from the exported drafter by `training/model_loading.warm_start_draft_model` and given
the target embedding by `load_embedding`, as `build_eagle3_draft` does.

Aux states: SpecForge 0.2 captures through SGLang only (`config/schema.py target_backend:
Literal["sglang"]`; `offline_capture/sglang_backend/capture.py` calls the target's
`set_eagle3_layers_to_capture(ids)` with `resolve_eagle_capture_layers`: eagle_config ids, else
[1, N//2-1, N-4]), and SGLang captures before layer id+1, so the aux fed here is stream[id+1]."""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

import torch
from inputs import ROWS, STEPS, VerifierRun
from producer_run import ProducerRun, to_target


def capture_ids(config: dict, num_layers: int) -> list[int]:
    """`resolve_eagle_capture_layers` (model_providers.py) without a run override."""
    from types import SimpleNamespace

    from specforge.algorithms.model_providers import resolve_eagle_capture_layers

    cfg = SimpleNamespace(model=SimpleNamespace(aux_hidden_state_layer_ids=None))
    target = SimpleNamespace(num_hidden_layers=num_layers)
    return list(resolve_eagle_capture_layers(cfg, config, target))


SHIMS = [
    "triton: specforge/core/loss.py imports it at module level for its GPU loss kernel; an empty "
    "module with a pass-through `jit` stands in when it is not installed",
    "OnlineEagle3Model._acc_and_loss: returns zeros (the loss and accuracy metrics need that "
    "kernel; they are computed from the logits and never feed back into the forward)",
]


def _fake_triton() -> None:
    import importlib.util
    import sys
    import types

    if "triton" in sys.modules or importlib.util.find_spec("triton") is not None:
        return
    triton = types.ModuleType("triton")
    language = types.ModuleType("triton.language")
    triton.jit = lambda fn=None, **k: fn if fn is not None else (lambda f: f)  # type: ignore[attr-defined]
    triton.language = language  # type: ignore[attr-defined]
    language.constexpr = object  # type: ignore[attr-defined]
    sys.modules["triton"], sys.modules["triton.language"] = triton, language


def run(drafter_dir: Path, verifier: VerifierRun, config: dict) -> ProducerRun:
    _fake_triton()
    from specforge.algorithms.eagle3.model import OnlineEagle3Model
    from specforge.modeling.auto import AutoDraftModel
    from specforge.training.model_loading import warm_start_draft_model
    from transformers import AutoConfig

    draft_config = AutoConfig.from_pretrained(str(drafter_dir))
    draft = AutoDraftModel.from_config(
        draft_config, attention_backend="sdpa", torch_dtype=torch.float32
    )
    warm_start_draft_model(
        draft,
        str(drafter_dir),
        draft_config=draft_config,
        strategy="eagle3",
        allow_missing_embedding=True,
    )
    if not any("embed" in n for n in _names(drafter_dir)):
        draft.load_embedding(str(verifier.path))
    draft = draft.float().eval()
    ids = capture_ids(config, verifier.num_layers)
    boundaries = [i + 1 for i in ids]
    aux = verifier.aux(boundaries)
    recorded: list[torch.Tensor] = []
    original = draft.compute_logits

    def compute_logits(hidden: torch.Tensor) -> torch.Tensor:
        out = original(hidden)
        recorded.append(out.detach()[0].float())
        return out

    draft.compute_logits = compute_logits
    trainer = OnlineEagle3Model(draft, length=STEPS, attention_backend="sdpa")
    zero = torch.zeros(())
    trainer._acc_and_loss = lambda **k: (zero, zero, zero, zero, zero, zero, zero)
    tokens = verifier.tokens[1 : ROWS + 1][None]
    target = torch.randn(
        1, ROWS, verifier.embed.shape[0], generator=torch.Generator().manual_seed(1)
    )
    with torch.no_grad():
        trainer(
            input_ids=tokens,
            attention_mask=torch.ones_like(tokens),
            target=target,
            loss_mask=torch.ones(1, ROWS, 1),
            hidden_states=aux[None],
        )
    d2t = draft.d2t
    return ProducerRun(
        "specforge",
        importlib.metadata.version("specforge"),
        recorded,
        [to_target(step.argmax(-1), d2t) for step in recorded],
        [ROWS - s for s in range(STEPS)],
        aux,
        boundaries,
        {
            "forward": "specforge/algorithms/eagle3/model.py OnlineEagle3Model.forward (run, "
            f"{STEPS} TTT steps, sdpa) over modeling/draft/llama3_eagle.py LlamaForCausalLMEagle3",
            "aux": f"algorithms/model_providers.py resolve_eagle_capture_layers -> {ids}, captured "
            "by SGLang's set_eagle3_layers_to_capture (+1: before layer id+1)",
        },
        list(SHIMS),
    )


def _names(drafter_dir: Path) -> list[str]:
    from safetensors import safe_open

    names: list[str] = []
    for file in drafter_dir.glob("*.safetensors"):
        with safe_open(str(file), framework="pt") as f:
            names += list(f.keys())
    return names
