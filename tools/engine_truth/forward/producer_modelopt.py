"""Model-Optimizer's own training forward (`torch/speculative/plugins/hf_eagle.py
HFEagleModel.forward` in training mode: the base model run, the aux hidden states collected by
its forward hooks, then `eagle_ttt_steps` passes of `EagleModule`), on the tiny verifier converted
with the same `mtsp.convert(model, [("eagle", config)])` the corpus generator ran (config rebuilt
from the manifest's recorded overrides), the exported drafter's tensors loaded into
`eagle_module` by name (ModelOpt's export layout is its module layout:
`plugins/modeling_draft_checkpoint_compat.py`).

Aux states: `_collect_aux_hidden_states_forward_hook` on the layers whose index is in
`eagle_aux_hidden_state_layer_ids` records each layer's *output*, i.e. stream[id+1]; the tensor the
model really consumed is recorded too and compared by value."""

from __future__ import annotations

import copy
import importlib.metadata
from typing import Any

import torch
from inputs import ROWS, STEPS, VerifierRun
from producer_run import ProducerRun, to_target


def run(drafter: Any, verifier: VerifierRun, overrides: dict[str, Any]) -> ProducerRun:
    """`drafter`: the harness's DrafterFiles whose tensors are loaded into eagle_module."""
    import modelopt.torch.speculative as mtsp
    from modelopt.torch.speculative.config import EAGLE3_DEFAULT_CFG
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(str(verifier.path), dtype=torch.float32)
    config = copy.deepcopy(EAGLE3_DEFAULT_CFG["config"])
    config["eagle_architecture_config"].update(overrides)
    config["eagle_ttt_steps"] = STEPS
    # torch.compile only picks kernels (inductor C++ builds take minutes on CPU); the harness runs
    # eager, as TORCHDYNAMO_DISABLE=1 does for speculators' flex attention.
    config["eagle_use_torch_compile"] = False
    mtsp.convert(model, [("eagle", config)])
    model = model.float()
    state = {n: t.float() if t.is_floating_point() else t for n, t in drafter.tensors.items()}
    result = model.eagle_module.load_state_dict(state, strict=False)
    notes = []
    if result.unexpected_keys:
        notes.append(
            f"checkpoint tensors eagle_module has no place for: {sorted(result.unexpected_keys)}"
        )
    missing = [k for k in result.missing_keys if "rotary" not in k]
    if missing:
        raise ValueError(f"eagle_module parameters the export lacks: {missing}")
    recorded: list[torch.Tensor] = []
    aux_seen: list[torch.Tensor] = []
    eagle_forward = model._eagle_forward
    gather = model.pop_and_gather_aux_hiddens

    def _eagle_forward(*a: Any, **k: Any) -> Any:
        out = eagle_forward(*a, **k)
        recorded.append(out[2].detach()[0].float())
        return out

    def pop_and_gather() -> Any:
        out = gather()
        if out is not None:
            aux_seen.append(out.detach()[0].float())
        return out

    model._eagle_forward = _eagle_forward
    model.pop_and_gather_aux_hiddens = pop_and_gather
    model.train()
    with torch.no_grad():
        model(input_ids=verifier.tokens[None])
    ids = list(model.eagle_config.eagle_aux_hidden_state_layer_ids)
    boundaries = [i + 1 for i in ids]
    aux = aux_seen[0][:ROWS]
    expected = verifier.aux(boundaries)
    notes.append(
        f"aux consumed vs stream[id+1]: max |diff| {float((aux - expected).abs().max()):.3g}"
    )
    # Step s at sequence position p = t + s drafts for row t (hiddens rolled by one per step).
    logits = [step[s : s + ROWS] for s, step in enumerate(recorded)]
    d2t = getattr(model.eagle_module, "d2t", None)
    return ProducerRun(
        "modelopt",
        importlib.metadata.version("nvidia-modelopt"),
        logits,
        [to_target(step.argmax(-1), d2t) for step in logits],
        [ROWS] * STEPS,
        aux,
        boundaries,
        {
            "forward": "modelopt/torch/speculative/plugins/hf_eagle.py HFEagleModel.forward "
            f"(run, training mode, {STEPS} TTT steps) -> plugins/modeling_eagle.py EagleModule",
            "aux": "hf_eagle.py _collect_aux_hidden_states_forward_hook on layers "
            f"{ids} (output-of: stream[id+1])",
        },
        notes,
    )
