"""SGLang's EAGLE-3 draft model (`srt/models/llama_eagle3.py`) run from the engine's own source:
its `LlamaForCausalLMEagle3.__init__` and `load_weights`, then its forward through `models/llama.py`
(decoder layer, attention, MLP), `layers/layernorm.py` RMSNorm, `layers/rotary_embedding` and
`layers/activation.py` (forward_native), with the stubs of stubs.py for parallel layers and the
attention backend.

Re-stated, not exec'd (they live in the worker, not the model file): the EAGLE worker sharing the
target's embedding (`set_embed`, or `set_embed_and_head` when `load_lm_head_from_target`), the
logits processor's head matmul, the draft loop feeding `logits_output.hidden_states` back with
`positions + 1`, and draft ids mapped to target ids through `hot_token_id`
(`speculative/eagle_worker.py draft_forward`)."""

from __future__ import annotations

import ast
import functools
from types import SimpleNamespace
from typing import Any

import torch

from . import imports, layers, stubs
from .chain import StepFn, StepResult
from .drafter import DrafterFiles
from .record import dropped_tensors, error_record, load_error, unloaded_params
from .sources import EngineSource, cut

MODELS = "sglang/srt/models/"
MODULE = "sglang/srt/models/llama_eagle3.py"
CLASS = "LlamaForCausalLMEagle3"
REAL = (
    "sglang.srt.models.llama_eagle3",
    "sglang.srt.models.llama",
    "sglang.srt.layers.layernorm",
    "sglang.srt.layers.rotary_embedding",
    "sglang.srt.layers.activation",
)


@functools.cache
def _entry_classes(source: EngineSource) -> dict[str, str]:
    found: dict[str, str] = {}
    for member in source.members(MODELS):
        text = source.read(member)
        if "EntryClass" not in text:
            continue
        for node in ast.parse(text).body:
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "EntryClass" for t in node.targets
            ):
                for el in ast.walk(node.value):
                    if isinstance(el, ast.Name):
                        found.setdefault(el.id, member)
    return found


def entry_classes(source: EngineSource) -> dict[str, str]:
    """Every architecture a model module lists in `EntryClass` -> its file (SGLang's registry)."""
    return _entry_classes(source)


def session(source: EngineSource) -> imports.Session:
    """The import world for SGLang's draft model files."""
    s = imports.Session(source, REAL, stubs.SGLANG)
    weight_utils = source.read("sglang/srt/model_loader/weight_utils.py")
    namespace: dict[str, Any] = {"torch": torch}
    text = cut(weight_utils, "default_weight_loader")
    if text is not None:
        imports.run_engine_text(text, "sglang/srt/model_loader/weight_utils.py", namespace)
        s.runtime["default_weight_loader"] = layers.logged(namespace["default_weight_loader"])
    return s


def architecture_refusal(source: EngineSource, config: dict[str, Any]) -> dict[str, Any] | None:
    """None when config.architectures[0] selects the Llama EAGLE-3 class, else the refusal (or
    the NOT-MODELLED record for another EAGLE-3 draft class)."""
    arch = (config.get("architectures") or [None])[0]
    registry = entry_classes(source)
    if arch == CLASS and arch in registry:
        return None
    if arch not in registry:
        return {
            "verdict": "REFUSED",
            "why": {
                "stage": "architecture",
                "exception": f"architectures[0]={arch!r} is not an EntryClass of any "
                "sglang/srt/models module",
                "decided_by": "sglang/srt/models/registry.py ModelRegistry (EntryClass scan)",
            },
        }
    eagle = "eagle3" in registry[arch]
    return {
        "verdict": "NOT-MODELLED" if eagle else "REFUSED",
        "why": {
            "stage": "architecture",
            "exception": f"architectures[0]={arch!r} selects {registry[arch]}: "
            + (
                "an EAGLE-3 draft class this harness does not run"
                if eagle
                else "not an EAGLE-3 draft class"
            ),
            "decided_by": f"{registry[arch]} EntryClass",
        },
    }


def load(drafter: DrafterFiles, source: EngineSource) -> tuple[dict[str, Any], Any]:
    """(record, model): the engine's own __init__ + load_weights over the drafter's tensors
    (model None when it refused or raised). Call inside `imports.session(session(source))`."""
    from transformers import AutoConfig

    record: dict[str, Any] = {"engine": "sglang", "version": source.version}
    refusal = architecture_refusal(source, drafter.config)
    if refusal is not None:
        return record | refusal, None
    try:
        hf = AutoConfig.from_pretrained(str(drafter.path))
    except Exception as exc:
        return record | {
            "verdict": "REFUSED",
            "why": error_record("config", exc, "transformers AutoConfig (sglang get_config)"),
        }, None
    log = layers.reset_log()
    try:
        module = imports.import_engine("sglang.srt.models.llama_eagle3")
        model = getattr(module, CLASS)(hf)
    except Exception as exc:
        return record | {
            "verdict": "REFUSED",
            "why": error_record("init", exc, f"{MODULE} {CLASS}.__init__"),
        }, None
    record["fc_in_features"] = model.model.fc.in_features
    failed = load_error(model, drafter.tensors, record, f"{MODULE} {CLASS}.load_weights")
    if failed is not None:
        return failed, None
    hot = getattr(model, "hot_token_id", None)
    consumed = [n for n in drafter.tensors if "d2t" in n] if hot is not None else []
    return record | {
        "verdict": "LOADED",
        "dropped": dropped_tensors(drafter.tensors, log, consumed),
        "never_loaded": unloaded_params(model, log),
        "d2t_consumed_as": "hot_token_id = d2t + arange" if hot is not None else None,
    }, model


def share_target(model: Any, embed: torch.Tensor, head: torch.Tensor) -> str:
    """The EAGLE worker's sharing, re-stated: `set_embed_and_head(target embed, target head)` when
    the draft set `load_lm_head_from_target`, else `set_embed(target embed)`; both methods are
    the engine's own (llama.py / llama_eagle3.py)."""
    embed_p = torch.nn.Parameter(embed.clone(), requires_grad=False)
    # set_embed* end in torch.cuda.synchronize(): a no-op on this CPU-only run.
    torch.cuda.synchronize = lambda *a, **k: None
    if getattr(model, "load_lm_head_from_target", False):
        model.set_embed_and_head(embed_p, torch.nn.Parameter(head.clone(), requires_grad=False))
        return "set_embed_and_head(target embed_tokens, target lm_head)"
    model.set_embed(embed_p)
    return "set_embed(target embed_tokens)"


def step_function(model: Any) -> StepFn:
    """One draft step through the engine's own `LlamaModel.forward`."""

    def step(
        ids: torch.Tensor, positions: torch.Tensor, hidden: torch.Tensor, s: int
    ) -> StepResult:
        batch = stubs.Answers(
            spec_info=SimpleNamespace(hidden_states=hidden),
            forward_mode=stubs.Answers(is_extend=lambda: s == 0, is_decode=lambda: s > 0),
            mm_input_embeds=None,
            contains_mm_inputs=lambda: False,
            mrope_positions=None,
        )
        with torch.no_grad():
            to_logits, aux = model.model(ids, positions, batch)
            logits = model.logits_processor(model.lm_head, to_logits)
        draft = logits.argmax(-1)
        hot = getattr(model, "hot_token_id", None)
        top1 = hot[draft] if hot is not None else draft
        return StepResult(logits, top1, aux[0])

    return step
