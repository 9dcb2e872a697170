"""SGLang as ground truth: for one wheel, exec `srt/models/llama_eagle3.py` unchanged (its
`LlamaForCausalLMEagle3.__init__` and `load_weights`), over the stub layers, after resolving the
architecture against the wheel's own EntryClass registry, and record what happened."""

from __future__ import annotations

from typing import Any

from torch import nn

from . import stub_imports as S
from . import stub_layers as L
from .drafter import DrafterFiles
from .hf_config import build_config
from .layers import LoadLog, reset_log
from .outcome import load_error, loaded, refused
from .record import dropped_tensors
from .sglang_eagle3 import entry_classes
from .sources import EngineSource, cut, line_of

EAGLE3_MODULE = "sglang/srt/models/llama_eagle3.py"
# Where the model runner reads eagle_config's aux ids (moved to a component in newer wheels).
RUNNERS = (
    "sglang/srt/model_executor/model_runner.py",
    "sglang/srt/model_executor/model_runner_components/spec_aux_hidden_state.py",
)


def aux_ids(config: dict[str, Any]) -> tuple[object, str]:
    """The model runner: `eagle_config["eagle_aux_hidden_state_layer_ids"]` inside a bare try,
    any failure -> None (the target's default). Re-stated, not exec'd: it is inline in __init__."""
    try:
        return config["eagle_config"]["eagle_aux_hidden_state_layer_ids"], "eagle_config"
    except Exception:
        return None, "none (target default)"


def run(drafter: DrafterFiles, wheel: EngineSource, version: str) -> dict[str, Any]:
    """The record for `drafter` under this SGLang wheel."""
    src = wheel.read(EAGLE3_MODULE)
    ids, ids_from = aux_ids(drafter.config)
    runner, line = _aux_reader(wheel)
    record: dict[str, Any] = {
        "engine": "sglang",
        "version": version,
        "aux_layer_ids": ids,
        "aux_layer_ids_from": ids_from,
        "evidence": {
            "aux_layer_ids": f"{runner}:{line} (re-stated)"
            if line
            else "not found in this wheel's model runner"
        },
    }
    arch = (drafter.config.get("architectures") or [None])[0]
    registry = entry_classes(wheel)
    eagle3 = {n for n, m in registry.items() if "eagle3" in m}
    if arch not in registry:
        return record | {
            "verdict": "REFUSED",
            "why": {
                "stage": "architecture",
                "exception": f"architectures[0]={arch!r} is not an EntryClass of "
                "any sglang/srt/models module",
                "decided_by": "sglang/srt/models/registry.py ModelRegistry (EntryClass scan)",
            },
        }
    if arch != "LlamaForCausalLMEagle3":
        kind = (
            "an EAGLE-3 draft class not modelled by this harness"
            if arch in eagle3
            else "not an EAGLE-3 draft class (loads a plain target model)"
        )
        return record | {
            "verdict": "NOT-MODELLED" if arch in eagle3 else "REFUSED",
            "why": {
                "stage": "architecture",
                "exception": f"architectures[0]={arch!r} selects {registry[arch]}: {kind}",
                "decided_by": f"{registry[arch]} EntryClass",
            },
        }
    try:
        hf = build_config(drafter.path)
    except Exception as exc:
        return refused(
            record, "config", exc, "transformers AutoConfig (called by sglang get_config)"
        )
    S.reset({"sglang.srt.models.llama_eagle3": src})
    S.RUNTIME["default_weight_loader"] = L.logged_default_loader(
        cut(wheel.read("sglang/srt/model_loader/weight_utils.py"), "default_weight_loader")
    )
    log = reset_log()
    try:
        module = __import__("sglang.srt.models.llama_eagle3", fromlist=["LlamaForCausalLMEagle3"])
        model = module.LlamaForCausalLMEagle3(hf)
    except Exception as exc:
        return refused(record, "init", exc, f"{EAGLE3_MODULE} LlamaForCausalLMEagle3.__init__")
    record["fc_in_features"] = model.model.fc.in_features
    record["evidence"]["fc_in_features"] = f"{EAGLE3_MODULE} LlamaModel.__init__ (exec'd)"
    where = f"{EAGLE3_MODULE} LlamaForCausalLMEagle3.load_weights"
    failed = load_error(model, drafter.tensors, record, where)
    if failed is not None:
        return failed
    dropped, d2t = hot_token_dropped(model, drafter.tensors, log)
    return loaded(
        record, model, log, dropped, f"{EAGLE3_MODULE} LlamaForCausalLMEagle3", d2t_consumed_as=d2t
    )


def hot_token_dropped(
    model: nn.Module, tensors: dict[str, Any], log: LoadLog
) -> tuple[list[str], str | None]:
    """(the tensors no loader took, how d2t was consumed): SGLang's draft reads d2t into
    `hot_token_id = d2t + arange` in its own load_weights, outside the parameter loaders."""
    hot = getattr(model, "hot_token_id", None)
    dropped = dropped_tensors(tensors, log)
    if hot is None:
        return dropped, None
    return [n for n in dropped if "d2t" not in n], "hot_token_id = d2t + arange"


def _aux_reader(wheel: EngineSource) -> tuple[str | None, int | None]:
    """The runner file and line that read eagle_config["eagle_aux_hidden_state_layer_ids"]."""
    for member in RUNNERS:
        if wheel.has(member):
            line = line_of(wheel.read(member), '"eagle_aux_hidden_state_layer_ids"')
            if line:
                return member, line
    return None, None
