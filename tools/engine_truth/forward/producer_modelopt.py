"""Model-Optimizer's own training forward (`torch/speculative/plugins/hf_eagle.py
HFEagleModel.forward` in training mode: the base model run, the aux hidden states collected by
its forward hooks, then `eagle_ttt_steps` passes of `EagleModule`), on the tiny verifier converted
with the same `mtsp.convert(model, [("eagle", config)])` the corpus generator ran (config rebuilt
from the manifest's recorded overrides), the exported drafter's tensors loaded into
`eagle_module` by name (ModelOpt's export layout is its module layout:
`plugins/modeling_draft_checkpoint_compat.py`).

MLA drafters (`eagle_decoder_type` "kimik2"): the mode config the corpus generator built
(`kimik2_eagle_default_config` with the recorded overrides, `eagle_export_rope_scaling` as
recorded) over the DeepSeek-V3 verifier, with the generator's one shim (the manifest's `shims`):
`hf_eagle._setup_kimi_k2_decoder`, which snapshot_downloads moonshotai/Kimi-K2-Thinking's
`modeling_deepseek.py`, returns transformers' own `DeepseekV3DecoderLayer` instead.

Aux states: `_collect_aux_hidden_states_forward_hook` on the layers whose index is in
`eagle_aux_hidden_state_layer_ids` records each layer's *output*, i.e. stream[id+1]; the tensor the
model really consumed is recorded too and compared by value."""

from __future__ import annotations

import copy
import importlib.metadata
import traceback
from typing import Any

import torch
from inputs import ROWS, STEPS, VerifierRun
from producer_run import ProducerRun, to_target


def _draft_error(exc: BaseException) -> dict[str, str]:
    """Where the draft module's forward raised: the exception, the frame that raised it and the
    last Model-Optimizer frame above it (paths from site-packages)."""
    frames = traceback.extract_tb(exc.__traceback__)

    def shown(f: traceback.FrameSummary) -> str:
        return f"{f.filename.split('site-packages/')[-1]}:{f.lineno} {f.name}"

    modelopt = [f for f in frames if "site-packages/modelopt/" in f.filename]
    return {
        "stage": "producer draft forward",
        "exception": f"{type(exc).__name__}: {exc}"[:500],
        "raised_at": shown(frames[-1]) if frames else "?",
        "called_from": shown(modelopt[-1]) if modelopt else "?",
    }


KIMI_K2_SHIM = (
    "modelopt.torch.speculative.plugins.hf_eagle._setup_kimi_k2_decoder replaced by a function "
    "returning transformers.models.deepseek_v3.modeling_deepseek_v3.DeepseekV3DecoderLayer "
    "(as the corpus generator ran it: the original snapshot_downloads moonshotai/Kimi-K2-Thinking)"
)


def mode_config(options: dict[str, Any]) -> dict[str, Any]:
    """The `("eagle", config)` the corpus generator converted with, from the manifest's options."""
    from modelopt.torch.speculative.config import EAGLE3_DEFAULT_CFG, kimik2_eagle_default_config

    overrides = options["eagle_architecture_config_overrides"]
    if options.get("eagle_decoder_type", "llama") == "kimik2":
        import modelopt.torch.speculative.plugins.hf_eagle as hf_eagle
        from transformers.models.deepseek_v3.modeling_deepseek_v3 import DeepseekV3DecoderLayer

        hf_eagle._setup_kimi_k2_decoder = lambda: DeepseekV3DecoderLayer
        return {
            "eagle_decoder_type": "kimik2",
            "eagle_export_rope_scaling": options["eagle_export_rope_scaling"],
            "eagle_architecture_config": copy.deepcopy(kimik2_eagle_default_config) | overrides,
        }
    config = copy.deepcopy(EAGLE3_DEFAULT_CFG["config"])
    config["eagle_architecture_config"].update(overrides)
    return config


def run(drafter: Any, verifier: VerifierRun, options: dict[str, Any]) -> ProducerRun:
    """`drafter`: the harness's DrafterFiles whose tensors are loaded into eagle_module;
    `options`: the manifest entry's recorded options."""
    import modelopt.torch.speculative as mtsp
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(str(verifier.path), dtype=torch.float32)
    config = mode_config(options)
    kimik2 = config.get("eagle_decoder_type") == "kimik2"
    config["eagle_ttt_steps"] = STEPS
    # torch.compile only picks kernels (inductor C++ builds take minutes on CPU); the harness runs
    # eager, as TORCHDYNAMO_DISABLE=1 does for speculators' flex attention.
    config["eagle_use_torch_compile"] = False
    mtsp.convert(model, [("eagle", config)])
    model = model.float()
    state = {n: t.float() if t.is_floating_point() else t for n, t in drafter.tensors.items()}
    result = model.eagle_module.load_state_dict(state, strict=False)
    notes = [KIMI_K2_SHIM] if kimik2 else []
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
    draft_error = None
    try:
        with torch.no_grad():
            model(input_ids=verifier.tokens[None])
    except Exception as exc:
        if not aux_seen or recorded:
            raise  # failed before the aux states were gathered, or mid-way: nothing to split
        # The base model ran and its hooks gathered the aux states; the draft module raised.
        # The aux boundaries are still measured (by value, below); there are no logits.
        draft_error = _draft_error(exc)
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
    forward = (
        "modelopt/torch/speculative/plugins/hf_eagle.py HFEagleModel.forward "
        f"(run, training mode, {STEPS} TTT steps) -> plugins/modeling_eagle.py EagleModule"
    )
    if draft_error is not None:
        forward += " (raised: base model and aux hooks ran, the draft module did not)"
    return ProducerRun(
        "modelopt",
        importlib.metadata.version("nvidia-modelopt"),
        logits,
        [to_target(step.argmax(-1), d2t) for step in logits],
        [ROWS if logits else 0] * STEPS,
        aux,
        boundaries,
        {
            "forward": forward,
            "aux": "hf_eagle.py _collect_aux_hidden_states_forward_hook on layers "
            f"{ids} (output-of: stream[id+1])",
        },
        notes,
        draft_error,
    )
