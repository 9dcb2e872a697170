"""vLLM as ground truth: for one wheel, run its own config code (the speculators adapter
`SpeculatorsConfig.extract_vllm_speculative_config` + `update_eagle3`, then `EAGLEConfig`'s
architecture rewrite), resolve the class in the wheel's `_SPECULATIVE_DECODING_MODELS`, exec
`model_executor/models/llama_eagle3.py` (and `models/utils.py` for `AutoWeightsLoader`) unchanged
over the stub layers, and read the aux ids with each runner's own
`_get_eagle3_aux_layers_from_config`."""

from __future__ import annotations

import ast
import textwrap
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import torch

from . import stub_imports as S
from .drafter import DrafterFiles
from .hf_config import build_config
from .layers import reset_log
from .outcome import load_error, loaded, refused
from .record import dropped_tensors
from .sources import EngineSource
from .vllm_eagle3 import not_llama_eagle3, speculative_registry, unregistered
from .vllm_weights import logged_default_loader

if TYPE_CHECKING:
    from transformers import PretrainedConfig

EAGLE3_MODULE = "vllm/model_executor/models/llama_eagle3.py"
UTILS = "vllm/model_executor/models/utils.py"
REGISTRY = "vllm/model_executor/models/registry.py"
SPEC_DIR = "vllm/transformers_utils/configs/speculators/"
EAGLE_CFG = "vllm/transformers_utils/configs/eagle.py"
AUX_FN = "_get_eagle3_aux_layers_from_config"
TARGET_LAYERS = 32  # only used by vLLM to name the draft layer's KV-cache prefix


def _module_name(member: str) -> str:
    return member.removesuffix(".py").replace("/", ".").removesuffix(".__init__")


def _real_modules(wheel: EngineSource) -> tuple[dict[str, str], set[str]]:
    members = [
        m for m in [EAGLE3_MODULE, UTILS, EAGLE_CFG, *wheel.members(SPEC_DIR)] if wheel.has(m)
    ]
    packages = {_module_name(m) for m in members if m.endswith("__init__.py")}
    return {_module_name(m): wheel.read(m) for m in members}, packages


def draft_hf_config(drafter: DrafterFiles) -> tuple[PretrainedConfig, str]:
    """vLLM's get_config for the draft dir, then SpeculativeConfig's EAGLEConfig wrap (eagle3)."""
    config = drafter.config
    model_type = config.get("model_type")
    if model_type is None and config.get("speculators_config") is not None:
        model_type = "speculators"
    if model_type == "speculators":
        base = __import__(
            "vllm.transformers_utils.configs.speculators.base", fromlist=["SpeculatorsConfig"]
        )
        cls = base.SpeculatorsConfig
        # maybe_override_with_speculators validates first (`vllm serve <speculators dir>`).
        cls.extract_vllm_speculative_config(dict(config))
        hf = cls.from_pretrained(str(drafter.path))
        how = (
            "speculators/base.py SpeculatorsConfig.extract_vllm_speculative_config + "
            "from_pretrained -> algos.py update_eagle3 (exec'd)"
        )
    else:
        hf = build_config(drafter.path)
        how = "transformers AutoConfig.from_pretrained"
    eagle = __import__("vllm.transformers_utils.configs.eagle", fromlist=["EAGLEConfig"])
    wrapped = eagle.EAGLEConfig(hf, method="eagle3", model_type="eagle")
    return wrapped, how + " -> configs/eagle.py EAGLEConfig(method='eagle3') (exec'd)"


def runner_aux_ids(wheel: EngineSource, hf: PretrainedConfig) -> dict[str, object]:
    """Each runner's own `_get_eagle3_aux_layers_from_config`, exec'd unchanged (dedented) on a
    runner whose speculative_config carries `hf`. None = the target's default layers."""
    results: dict[str, object] = {}
    runner = SimpleNamespace(
        speculative_config=SimpleNamespace(draft_model_config=SimpleNamespace(hf_config=hf))
    )
    for member in wheel.members("vllm/v1/"):
        text = wheel.read(member)
        if f"def {AUX_FN}" not in text:
            continue
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef) and node.name == AUX_FN:
                namespace: dict[str, Any] = {}
                segment = ast.get_source_segment(text, node)
                assert segment is not None  # node was parsed from text
                src = textwrap.dedent(segment)
                exec(
                    compile(
                        "from __future__ import annotations\n" + src, f"<wheel>/{member}", "exec"
                    ),
                    namespace,
                )
                try:
                    value = namespace[AUX_FN](runner)
                    results[member] = list(value) if value else None
                except Exception as exc:
                    results[member] = f"error: {type(exc).__name__}: {exc}"
    return results


def record_config(
    record: dict[str, Any], wheel: EngineSource, hf: PretrainedConfig, how: str, no_reader: str
) -> list[str]:
    """Writes what vLLM's config code resolved into `record` (how the config was built, the
    architectures, each runner's aux ids; `no_reader` when the wheel has no runner reader)
    and returns the architectures."""
    record["evidence"]["config"] = how
    archs = list(getattr(hf, "architectures", None) or [])
    record["resolved_architectures"] = archs
    aux = runner_aux_ids(wheel, hf)
    record["aux_layer_ids_by_runner"] = aux
    record["aux_layer_ids"] = next(iter(aux.values()), None) if aux else None
    record["evidence"]["aux_layer_ids"] = ", ".join(f"{m} {AUX_FN} (exec'd)" for m in aux) or (
        f"{no_reader}: target default (get_eagle3_aux_hidden_state_layers)"
    )
    return archs


class _Ns(SimpleNamespace):
    """A config namespace whose unmodelled attributes read as None (each one is recorded)."""

    def __getattr__(self, name: str) -> None:
        if name.startswith("__"):
            raise AttributeError(name)
        S.OPAQUE_USED.add(f"vllm_config.*.{name} = None")
        return None


def _vllm_config(hf: PretrainedConfig, target_vocab: int | None) -> _Ns:
    draft = _Ns(hf_config=hf)
    return _Ns(
        speculative_config=_Ns(draft_model_config=draft, method="eagle3", parallel_drafting=False),
        model_config=_Ns(
            hf_config=hf,
            get_num_layers=lambda *_: TARGET_LAYERS,
            get_total_num_hidden_layers=lambda *_: TARGET_LAYERS,
            get_vocab_size=lambda: target_vocab,
            dtype=torch.float32,
        ),
    )


def run(drafter: DrafterFiles, wheel: EngineSource, version: str) -> dict[str, Any]:
    """The record for `drafter` under this vLLM wheel."""
    record: dict[str, Any] = {"engine": "vllm", "version": version, "evidence": {}}
    S.reset(*_real_modules(wheel))
    S.RUNTIME["default_weight_loader"] = logged_default_loader(wheel)
    try:
        hf, how = draft_hf_config(drafter)
    except Exception as exc:
        return refused(record, "config", exc, "vllm transformers_utils config code")
    archs = record_config(record, wheel, hf, how, "no reader in this wheel")
    registry = speculative_registry(wheel)
    arch = archs[0] if archs else None
    if arch not in registry:
        return record | unregistered(arch)
    module_name, class_name = registry[arch]
    if module_name != "llama_eagle3":
        return record | not_llama_eagle3(arch, registry[arch], ran="exec'd")
    record["evidence"]["architecture"] = (
        f"{REGISTRY} _SPECULATIVE_DECODING_MODELS[{arch!r}] = {registry[arch]}"
    )
    vcfg = _vllm_config(hf, _target_vocab(drafter))
    S.RUNTIME["get_current_vllm_config"] = lambda: vcfg
    log = reset_log()
    try:
        module = __import__(_module_name(EAGLE3_MODULE), fromlist=[class_name])
        model = getattr(module, class_name)(vllm_config=vcfg, prefix="")
    except Exception as exc:
        return refused(record, "init", exc, f"{EAGLE3_MODULE} {class_name}.__init__")
    fc = getattr(model.model, "fc", None)
    record["fc_in_features"] = getattr(fc, "in_features", getattr(fc, "input_size", None))
    record["evidence"]["fc_in_features"] = f"{EAGLE3_MODULE} LlamaModel.__init__ (exec'd)"
    where = f"{EAGLE3_MODULE} {class_name}.load_weights -> {UTILS} AutoWeightsLoader"
    failed = load_error(model, drafter.tensors, record, where)
    if failed is not None:
        return failed
    dropped = dropped_tensors(drafter.tensors, log)
    return loaded(record, model, log, dropped, f"{EAGLE3_MODULE} {class_name}")


def _target_vocab(drafter: DrafterFiles) -> int | None:
    """The target vocab size the drafter declares (top level or transformer_layer_config)."""
    cfg = drafter.config
    return cfg.get("vocab_size") or (cfg.get("transformer_layer_config") or {}).get("vocab_size")
