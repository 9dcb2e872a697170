"""vLLM's EAGLE-3 draft model (`model_executor/models/llama_eagle3.py`) run from the engine's own
source: the config path (`transformers_utils/configs/speculators/` `SpeculatorsConfig` +
`update_eagle3` for speculators-format configs, then `configs/eagle.py` `EAGLEConfig`), the
architecture lookup in `_SPECULATIVE_DECODING_MODELS`, `Eagle3LlamaForCausalLM.__init__` and
`load_weights` (with `models/utils.py` `AutoWeightsLoader`), then its forward through
`models/llama.py`, `layers/layernorm.py`, `layers/rotary_embedding` and `layers/activation.py`
(forward_native) over the stubs of stubs.py.

Re-stated, not exec'd (the proposer, not the model file): sharing the target's embed_tokens and
lm_head when the draft has none (`has_own_embed_tokens` / `has_own_lm_head`, set by the model's
own `process_eagle_weight`; before those flags existed, vLLM shared whenever the shapes matched),
`combine_hidden_states` before the first step, and the draft loop feeding the model's second
output back with `positions + 1`."""

from __future__ import annotations

import ast
import functools
from typing import Any

import torch

from . import imports, layers, stubs
from .chain import StepFn, StepResult
from .drafter import DrafterFiles
from .record import dropped_tensors, error_record, load_error, unloaded_params
from .sources import EngineSource, cut
from .vllm_weights import copy_weight_namespace

MODULE = "vllm/model_executor/models/llama_eagle3.py"
REGISTRY = "vllm/model_executor/models/registry.py"
EAGLE_CFG = "vllm/transformers_utils/configs/eagle.py"
TARGET_LAYERS = 32  # only names the draft layer's KV-cache prefix (layers.{i + 32})
REAL = (
    "vllm.model_executor.models.llama_eagle3",
    "vllm.model_executor.models.llama",
    "vllm.model_executor.models.utils",
    "vllm.model_executor.models.interfaces",
    "vllm.model_executor.layers.layernorm",
    "vllm.model_executor.layers.rotary_embedding",
    "vllm.model_executor.layers.activation",
    "vllm.ir",
    "vllm.transformers_utils.configs.speculators",
    "vllm.transformers_utils.configs.eagle",
)


@functools.cache
def _registry(source: EngineSource) -> dict[str, tuple[str, str]]:
    for node in ast.parse(source.read(REGISTRY)).body:
        target = (
            node.target
            if isinstance(node, ast.AnnAssign)
            else (node.targets[0] if isinstance(node, ast.Assign) else None)
        )
        if isinstance(target, ast.Name) and target.id == "_SPECULATIVE_DECODING_MODELS":
            value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
            assert value is not None
            return {k: tuple(v) for k, v in ast.literal_eval(value).items()}
    raise LookupError("no _SPECULATIVE_DECODING_MODELS in registry.py")


def speculative_registry(source: EngineSource) -> dict[str, tuple[str, str]]:
    """`_SPECULATIVE_DECODING_MODELS` as written in the engine: arch -> (module, class)."""
    return _registry(source)


def unregistered(arch: object) -> dict[str, Any]:
    """The refusal when the resolved architecture is not in `_SPECULATIVE_DECODING_MODELS`."""
    return {
        "verdict": "REFUSED",
        "why": {
            "stage": "architecture",
            "exception": f"resolved architecture {arch!r} not in _SPECULATIVE_DECODING_MODELS",
            "decided_by": f"{REGISTRY} _SPECULATIVE_DECODING_MODELS + {EAGLE_CFG} EAGLEConfig",
        },
    }


def not_llama_eagle3(arch: str, entry: tuple[str, str], ran: str = "run") -> dict[str, Any]:
    """The NOT-MODELLED record when `_SPECULATIVE_DECODING_MODELS[arch]` names another module
    than llama_eagle3 (`ran`: how the harness says it runs engine code)."""
    module_name, class_name = entry
    return {
        "verdict": "NOT-MODELLED",
        "why": {
            "stage": "architecture",
            "exception": f"{arch} -> {module_name}.{class_name}: "
            f"only llama_eagle3 is {ran} by this harness",
            "decided_by": REGISTRY,
        },
    }


def session(source: EngineSource) -> imports.Session:
    """The import world for vLLM's draft model files."""
    s = imports.Session(source, REAL, stubs.VLLM)
    text = cut(
        source.read("vllm/model_executor/model_loader/weight_utils.py"), "default_weight_loader"
    )
    if text is not None:
        namespace: dict[str, Any] = {"torch": torch, **copy_weight_namespace(source)}
        imports.run_engine_text(text, "vllm/model_executor/model_loader/weight_utils.py", namespace)
        s.runtime["default_weight_loader"] = layers.logged(namespace["default_weight_loader"])
    return s


def draft_hf_config(drafter: DrafterFiles) -> tuple[Any, str]:
    """vLLM's config for the draft dir (the speculators adapter for speculators-format configs,
    else transformers' AutoConfig), then SpeculativeConfig's EAGLEConfig wrap (eagle3)."""
    config = drafter.config
    model_type = config.get("model_type")
    if model_type is None and config.get("speculators_config") is not None:
        model_type = "speculators"
    if model_type == "speculators":
        base = imports.import_engine("vllm.transformers_utils.configs.speculators.base")
        cls = base.SpeculatorsConfig
        cls.extract_vllm_speculative_config(dict(config))
        hf = cls.from_pretrained(str(drafter.path))
        how = "speculators/base.py SpeculatorsConfig.from_pretrained -> algos.py update_eagle3"
    else:
        from transformers import AutoConfig

        hf = AutoConfig.from_pretrained(str(drafter.path))
        how = "transformers AutoConfig.from_pretrained"
    eagle = imports.import_engine("vllm.transformers_utils.configs.eagle")
    return eagle.EAGLEConfig(
        hf, method="eagle3", model_type="eagle"
    ), how + " -> configs/eagle.py EAGLEConfig"


def vllm_config(hf: Any, target_vocab: int) -> stubs.Answers:
    """The `vllm_config` the draft model reads: its hf_config, TARGET_LAYERS target layers, the
    target vocab size, float32, no quantization, no parallel drafting."""
    draft = stubs.Answers(hf_config=hf)
    model = stubs.Answers(
        hf_config=hf,
        get_num_layers=lambda *_: TARGET_LAYERS,
        get_total_num_hidden_layers=lambda *_: TARGET_LAYERS,
        get_vocab_size=lambda: target_vocab,
        dtype=torch.float32,
    )
    return stubs.Answers(
        speculative_config=stubs.Answers(
            draft_model_config=draft, method="eagle3", parallel_drafting=False
        ),
        model_config=model,
        quant_config=None,
        cache_config=None,
    )


def load(
    drafter: DrafterFiles, source: EngineSource, target_vocab: int
) -> tuple[dict[str, Any], Any]:
    """(record, model): the engine's own config code, __init__ and load_weights (model None when
    it refused or raised). Call inside `imports.session(session(source))`."""
    record: dict[str, Any] = {"engine": "vllm", "version": source.version}
    try:
        hf, how = draft_hf_config(drafter)
    except Exception as exc:
        return record | {
            "verdict": "REFUSED",
            "why": error_record("config", exc, "vllm transformers_utils config code"),
        }, None
    record["config_path"] = how
    archs = list(getattr(hf, "architectures", None) or [])
    record["resolved_architectures"] = archs
    registry = speculative_registry(source)
    arch = archs[0] if archs else None
    if arch not in registry:
        return record | unregistered(arch), None
    module_name, class_name = registry[arch]
    if module_name != "llama_eagle3":
        return record | not_llama_eagle3(arch, registry[arch]), None
    vcfg = vllm_config(hf, target_vocab)
    imports.active().runtime["get_current_vllm_config"] = lambda: vcfg
    log = layers.reset_log()
    try:
        module = imports.import_engine("vllm.model_executor.models.llama_eagle3")
        model = getattr(module, class_name)(vllm_config=vcfg, prefix="")
    except Exception as exc:
        return record | {
            "verdict": "REFUSED",
            "why": error_record("init", exc, f"{MODULE} {class_name}.__init__"),
        }, None
    fc = getattr(model.model, "fc", None)
    record["fc_in_features"] = getattr(fc, "input_size", getattr(fc, "in_features", None))
    failed = load_error(model, drafter.tensors, record, f"{MODULE} {class_name}.load_weights")
    if failed is not None:
        return failed, None
    return record | {
        "verdict": "LOADED",
        "dropped": dropped_tensors(drafter.tensors, log),
        "never_loaded": unloaded_params(model, log),
    }, model


def share_target(model: Any, embed: torch.Tensor, head: torch.Tensor) -> str:
    """The proposer's sharing, re-stated: the target's embed_tokens / lm_head replace the draft's
    when it has none of its own or an identical one (`has_own_*` flags); in versions without the
    flags, whenever the shapes match (eagle3: lm_head too)."""
    done = []
    flags = hasattr(model, "has_own_embed_tokens") or hasattr(model, "has_own_lm_head")
    own_embed = getattr(model, "has_own_embed_tokens", False)
    draft_embed = model.model.embed_tokens.weight
    if (
        (not own_embed or torch.equal(draft_embed, embed))
        if flags
        else draft_embed.shape == embed.shape
    ):
        model.model.embed_tokens.weight = torch.nn.Parameter(embed.clone(), requires_grad=False)
        done.append("embed_tokens")
    own_head = getattr(model, "has_own_lm_head", False)
    draft_head = model.lm_head.weight
    same_shape = draft_head.shape == head.shape
    if (same_shape and (not own_head or torch.equal(draft_head, head))) if flags else same_shape:
        model.lm_head.weight = torch.nn.Parameter(head.clone(), requires_grad=False)
        done.append("lm_head")
    return "shared from the target: " + (", ".join(done) or "nothing")


def step_function(model: Any) -> StepFn:
    """One draft step: `combine_hidden_states` first (step 0), then the model's forward;
    top-1 over `compute_logits` (target vocab when draft_id_to_target_id exists)."""

    def step(
        ids: torch.Tensor, positions: torch.Tensor, hidden: torch.Tensor, s: int
    ) -> StepResult:
        with torch.no_grad():
            if s == 0:
                hidden = model.combine_hidden_states(hidden)
            out = model(input_ids=ids, positions=positions, hidden_states=hidden)
            last, feed = out if isinstance(out, tuple) else (out, out)
            logits = model.logits_processor(model.lm_head, last)
            full = model.compute_logits(last)
        return StepResult(logits, full.argmax(-1), feed)

    return step
