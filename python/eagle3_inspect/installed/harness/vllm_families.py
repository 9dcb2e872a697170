"""vLLM as ground truth for every drafter family (issue 19): the serving method and draft
config as vLLM's own code derives them, then the model file the wheel's registry names,
exec'd unchanged over the stub layers, with its `load_weights`.

* method: a speculators-format config goes through the wheel's own
  `SpeculatorsConfig.extract_vllm_speculative_config` (peagle -> eagle3 + parallel drafting,
  dflash2 -> dflash); any other config gets the method a user passes in
  `--speculative-config` for its family (DFlash architectures -> "dflash", else "eagle3";
  P-EAGLE architectures add `parallel_drafting`), recorded as an assumption;
* config: `SpeculatorsConfig.from_pretrained` (exec'd; SpeculativeConfig does not re-wrap a
  SpeculatorsConfig) or vLLM's `get_config` (transformers AutoConfig, or the class the wheel's
  `_CONFIG_REGISTRY` names for the model type, e.g. kimi_k2 -> DeepseekV3Config) wrapped in
  `EAGLEConfig(method=...)` (exec'd);
* model: `_SPECULATIVE_DECODING_MODELS[arch]` -> module + class; the module and the base-model
  modules it subclasses (MODEL_DEPS) exec'd from the wheel, `__init__` and `load_weights` run;
* aux ids: every V1 runner reader (vllm_truth.runner_aux_ids) plus the V2 model runner's
  `get_eagle3_aux_layers_from_config` (v1/worker/gpu/spec_decode/eagle/eagle3_utils.py), exec'd.

Plain Llama EAGLE-3 drafters (method eagle3, no parallel drafting, not quantized, a model
type transformers reads itself, resolving to llama_eagle3) keep the original harness
(vllm_truth.run) unchanged; the V2 reader's ids are added to their record.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import torch

from . import quant_truth, vllm_truth, wheel_exec
from . import stub_families as F
from . import stub_imports as S
from .drafter import DrafterFiles
from .hf_config import build_config
from .layers import reset_log
from .outcome import load_error, loaded, refused
from .record import dropped_tensors
from .sources import EngineSource, cut
from .vllm_eagle3 import speculative_registry, unregistered
from .vllm_weights import WEIGHT_UTILS, logged_default_loader

if TYPE_CHECKING:
    from transformers import PretrainedConfig

MODELS = "vllm/model_executor/models/"
V2_AUX = "vllm/v1/worker/gpu/spec_decode/eagle/eagle3_utils.py"
V2_AUX_FN = "get_eagle3_aux_layers_from_config"
CONFIG_PY = "vllm/transformers_utils/config.py"
# vllm/envs.py is exec'd for real: model code branches on it (`envs.is_set(...)`), and an
# opaque placeholder would read as set and true.
ENVS = "vllm/envs.py"
# Modules every family run execs besides the model's own: the interfaces mixins the model
# classes inherit (as opaque placeholders their __getattr__ would answer every attribute).
COMMON_MODULES = ("interfaces", "interfaces_base")
# Base-model modules each draft module subclasses or builds layers from: exec'd from the wheel
# too, so their attention / MLP classes create the parameters (over the stub layers).
MODEL_DEPS = {
    "llama_eagle3": (),
    "qwen3_eagle3": ("qwen3", "qwen2"),
    "qwen3_dflash": ("qwen3", "qwen2"),
    "qwen3_dflash2": ("qwen3_dflash", "qwen3", "qwen2"),
    "laguna_dflash": ("qwen3_dflash", "qwen3", "qwen2"),
    "deepseek_eagle3": ("deepseek_v2",),
}


# SpeculativeConfig.__post_init__: `if self.method in ("dflash", ...): self.parallel_drafting
# = True` (config/speculative.py, every wheel with DFlash).
DFLASH_PARALLEL = "; config/speculative.py sets parallel_drafting for method dflash"


def serving_method(drafter: DrafterFiles) -> tuple[str, bool, int | None, str]:
    """(method, parallel_drafting, num_speculative_tokens, how it was decided)."""
    config = drafter.config
    if config.get("speculators_model_type") is not None:
        base = __import__(
            "vllm.transformers_utils.configs.speculators.base", fromlist=["SpeculatorsConfig"]
        )
        spec = base.SpeculatorsConfig.extract_vllm_speculative_config(dict(config))
        method = spec["method"]
        return (
            method,
            bool(spec.get("parallel_drafting", False)) or method == "dflash",
            spec.get("num_speculative_tokens"),
            "speculators/base.py SpeculatorsConfig.extract_vllm_speculative_config (exec'd)"
            + DFLASH_PARALLEL * (method == "dflash"),
        )
    arch = " ".join(config.get("architectures") or [])
    if "DFlash" in arch:
        block = config.get("block_size")
        return (
            "dflash",
            True,
            block - 1 if isinstance(block, int) else None,
            "assumed: --speculative-config method 'dflash', num_speculative_tokens = "
            "block_size - 1 (DFlash arch)" + DFLASH_PARALLEL,
        )
    parallel = "peagle" in arch.lower()
    how = "assumed: --speculative-config method 'eagle3'" + (
        " with parallel_drafting (P-EAGLE arch)" if parallel else ""
    )
    return "eagle3", parallel, None, how


@functools.cache
def _config_registry(wheel: EngineSource) -> dict[str, str]:
    """The wheel's `_CONFIG_REGISTRY = LazyConfigDict(model_type="ConfigClass", ...)` (ast)."""
    found: dict[str, str] = {}
    if wheel.has(CONFIG_PY):
        for node in ast.walk(ast.parse(wheel.read(CONFIG_PY))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "LazyConfigDict":
                for kw in node.keywords:
                    if (
                        kw.arg
                        and isinstance(kw.value, ast.Constant)
                        and isinstance(kw.value.value, str)
                    ):
                        found[kw.arg] = kw.value.value
    return found


def _config_registry_class(wheel: EngineSource, model_type: str | None) -> str | None:
    """The config class name the wheel's `_CONFIG_REGISTRY` gives `model_type`."""
    return _config_registry(wheel).get(model_type) if model_type else None


def draft_hf_config(
    drafter: DrafterFiles, wheel: EngineSource, method: str
) -> tuple[PretrainedConfig, str]:
    """The draft hf_config as SpeculativeConfig leaves it, and how it was built."""
    config = drafter.config
    if config.get("speculators_model_type") is not None:
        base = __import__(
            "vllm.transformers_utils.configs.speculators.base", fromlist=["SpeculatorsConfig"]
        )
        hf = base.SpeculatorsConfig.from_pretrained(str(drafter.path))
        rope = patch_rope(wheel, hf)
        return hf, (
            "speculators/base.py SpeculatorsConfig.from_pretrained -> algos.py "
            f"update_{config['speculators_model_type']} (exec'd)"
            + (f" -> {rope}" if rope else "")
            + "; a SpeculatorsConfig is not re-wrapped by SpeculativeConfig"
        )
    model_type = config.get("model_type")
    registered = _config_registry_class(wheel, model_type)
    if registered is not None:
        import transformers

        hf = getattr(transformers, registered).from_pretrained(str(drafter.path))
        how = f"{CONFIG_PY} _CONFIG_REGISTRY[{model_type!r}] = {registered}"
    else:
        hf = build_config(drafter.path)
        how = "transformers AutoConfig.from_pretrained"
    rope = patch_rope(wheel, hf)
    if rope:
        how += f" -> {rope}"
    eagle = __import__("vllm.transformers_utils.configs.eagle", fromlist=["EAGLEConfig"])
    wrapped = eagle.EAGLEConfig(hf, method=method, model_type="eagle")
    return wrapped, how + f" -> configs/eagle.py EAGLEConfig(method={method!r}) (exec'd)"


ROPE_HELPERS = (
    "patch_legacy_rope_type",
    "is_rope_parameters_nested",
    "patch_rope_parameters_dict",
    "patch_rope_parameters",
)
CONFIG_UTILS = "vllm/config/utils.py"


class _Logger:
    """The engine logger's methods (the cut functions log through it)."""

    def __getattr__(self, name: str) -> Callable[..., None]:
        return lambda *a, **k: None


def patch_rope(wheel: EngineSource, hf: PretrainedConfig) -> str | None:
    """vLLM get_config's `patch_rope_parameters(config)` (transformers_utils/config.py), cut
    from the wheel with its helpers and exec'd on the draft config: transformers-4 RoPE fields
    (rope_theta, rope_scaling) standardized into rope_parameters, as the engine does before
    any model code reads them. None when the wheel has no such function."""
    import typing

    from packaging.version import Version
    from transformers import PretrainedConfig

    source = wheel.read(CONFIG_PY)
    namespace: dict[str, Any] = {
        "__name__": "vllm.transformers_utils.config",
        "logger": _Logger(),
        "PretrainedConfig": PretrainedConfig,
        "PreTrainedConfig": PretrainedConfig,
        "Version": Version,
        **{name: getattr(typing, name) for name in ("Any", "Iterator", "Sequence", "Callable")},
    }
    wheel_exec.third_party_imports(source, namespace)
    if wheel.has(CONFIG_UTILS):
        helper = cut(wheel.read(CONFIG_UTILS), "getattr_iter")
        if helper is not None:
            wheel_exec.run_source(helper, CONFIG_UTILS, namespace)
    found = False
    for name in ROPE_HELPERS:
        text = cut(source, name)
        if text is not None:
            wheel_exec.run_source(text, CONFIG_PY, namespace)
            found = found or name == "patch_rope_parameters"
    if not found:
        return None
    if "getattr_iter" in source or "getattr_iter" in namespace:
        utils: Any = __import__("vllm.config.utils", fromlist=["getattr_iter"])
        if "getattr_iter" in namespace:
            utils.getattr_iter = namespace["getattr_iter"]
    namespace["patch_rope_parameters"](hf)
    return f"{CONFIG_PY} patch_rope_parameters (exec'd)"


def v2_aux_ids(wheel: EngineSource, hf: PretrainedConfig, method: str) -> object:
    """The V2 model runner's aux-id reader, exec'd (None = the target's default layers)."""
    if not wheel.has(V2_AUX):
        return "absent"
    source = cut(wheel.read(V2_AUX), V2_AUX_FN)
    if source is None:
        return "absent"
    namespace = wheel_exec.run_source(source, V2_AUX, {})
    spec = SimpleNamespace(draft_model_config=SimpleNamespace(hf_config=hf), method=method)
    try:
        value = namespace[V2_AUX_FN](spec)
    except Exception as exc:
        return f"error: {type(exc).__name__}: {exc}"
    return list(value) if value else None


def _with_v2(record: dict[str, Any], wheel: EngineSource, hf: PretrainedConfig) -> dict[str, Any]:
    """The V2 runner's ids beside the V1 runners'; in a wheel with no V1 reader (vLLM >= 0.34
    dropped gpu_model_runner.py) the V2 runner is the one that serves, so its ids are the ones
    the engine reads (`aux_layer_ids`)."""
    runners = record.setdefault("aux_layer_ids_by_runner", {})
    only_runner = not runners
    found = v2_aux_ids(wheel, hf, record.get("method", "eagle3"))
    if found != "absent":
        runners[V2_AUX] = found
        evidence = f"{V2_AUX} {V2_AUX_FN} (exec'd)"
        record.setdefault("evidence", {})["aux_layer_ids_v2"] = evidence
        if only_runner and not (isinstance(found, str) and found.startswith("error:")):
            record["aux_layer_ids"] = found
            record["evidence"]["aux_layer_ids"] = evidence
    return record


def run(drafter: DrafterFiles, wheel: EngineSource, version: str) -> dict[str, Any]:
    """The record for `drafter` under this vLLM wheel."""
    S.reset(*vllm_truth._real_modules(wheel))
    try:
        method, parallel, tokens, method_how = serving_method(drafter)
    except Exception as exc:
        record = {"engine": "vllm", "version": version, "evidence": {}}
        return refused(record, "config", exc, "vllm speculators config validation")
    quantized = quant_truth.declares_quantization(drafter)
    special_config = _config_registry_class(wheel, drafter.config.get("model_type"))
    if method == "eagle3" and not parallel and not quantized and special_config is None:
        record = vllm_truth.run(drafter, wheel, version)
        if record["verdict"] != "NOT-MODELLED":
            return _v2_for_legacy(record, drafter, wheel)
    return run_family(drafter, wheel, version, (method, parallel, tokens, method_how))


def _v2_for_legacy(
    record: dict[str, Any], drafter: DrafterFiles, wheel: EngineSource
) -> dict[str, Any]:
    """Adds the V2 runner's ids to a record of the original harness (its config rebuilt)."""
    if record["verdict"] == "REFUSED" and record["why"].get("stage") == "config":
        return record
    S.reset(*vllm_truth._real_modules(wheel))
    try:
        hf, _ = vllm_truth.draft_hf_config(drafter)
    except Exception:
        return record
    return _with_v2(record, wheel, hf)


def run_family(
    drafter: DrafterFiles,
    wheel: EngineSource,
    version: str,
    serving: tuple[str, bool, int | None, str],
) -> dict[str, Any]:
    """Method-aware path: config, registry, the named module exec'd, load."""
    method, parallel, tokens, method_how = serving
    record: dict[str, Any] = {
        "engine": "vllm",
        "version": version,
        "method": method,
        "parallel_drafting": parallel,
        "num_speculative_tokens": tokens,
        "evidence": {"method": method_how},
    }
    S.reset(*vllm_truth._real_modules(wheel))
    try:
        hf, how = draft_hf_config(drafter, wheel, method)
    except Exception as exc:
        return refused(record, "config", exc, "vllm transformers_utils config code")
    archs = vllm_truth.record_config(record, wheel, hf, how, "no V1 reader in this wheel")
    _with_v2(record, wheel, hf)
    registry = speculative_registry(wheel)
    arch = archs[0] if archs else None
    if arch not in registry:
        return record | unregistered(arch)
    module_name, class_name = registry[arch]
    record["evidence"]["architecture"] = (
        f"{vllm_truth.REGISTRY} _SPECULATIVE_DECODING_MODELS[{arch!r}] = {registry[arch]}"
    )
    if module_name not in MODEL_DEPS:
        return record | {
            "verdict": "NOT-MODELLED",
            "why": {
                "stage": "architecture",
                "exception": f"{arch} -> {module_name}.{class_name}: not exec'd by this harness",
                "decided_by": vllm_truth.REGISTRY,
            },
        }
    member = f"{MODELS}{module_name}.py"
    modules, packages = vllm_truth._real_modules(wheel)
    deps = MODEL_DEPS[module_name]
    if quant_truth.declares_quantization(drafter) and module_name == "llama_eagle3":
        deps = ("llama",)  # the real decoder layer, which hands quant_config to its linears
    for dep in (module_name, *deps, *COMMON_MODULES):
        path = f"{MODELS}{dep}.py"
        if wheel.has(path):
            modules[vllm_truth._module_name(path)] = wheel.read(path)
    for extra in (V2_AUX, ENVS):
        if wheel.has(extra):
            modules[vllm_truth._module_name(extra)] = wheel.read(extra)
    quant = quant_truth.vllm_quant_config(drafter, wheel, modules, packages)
    S.reset(modules, packages)
    F.install_vllm()
    weight_utils = wheel.read(WEIGHT_UTILS)
    S.RUNTIME["default_weight_loader"] = logged_default_loader(wheel)
    remap = cut(weight_utils, "maybe_remap_kv_scale_name")
    if remap is not None:  # load_weights calls it for every *scale* name (FP8 drafters)
        namespace = wheel_exec.run_source(remap, WEIGHT_UTILS, {"logger": _Logger()})
        S.RUNTIME["maybe_remap_kv_scale_name"] = namespace["maybe_remap_kv_scale_name"]
    vcfg = _vllm_config(hf, drafter, (method, parallel, tokens))
    S.RUNTIME["get_current_vllm_config"] = lambda: vcfg
    try:
        quant_config, quant_how = quant.build(object)
    except quant_truth.NotModelled as exc:
        return record | {
            "verdict": "NOT-MODELLED",
            "why": {"stage": "quantization", "exception": str(exc), "decided_by": quant.decided_by},
        }
    except Exception as exc:
        return refused(record, "quantization", exc, quant.decided_by)
    if quant_how:
        record["evidence"]["quantization"] = quant_how
        record["quant_method"] = type(quant_config).__name__ if quant_config else None
    F.QUANT["config"] = quant_config
    log = reset_log()
    try:
        module = __import__(vllm_truth._module_name(member), fromlist=[class_name])
        model = getattr(module, class_name)(vllm_config=vcfg, prefix="")
    except Exception as exc:
        return refused(record, "init", exc, f"{member} {class_name}.__init__")
    fc = getattr(getattr(model, "model", None), "fc", None)
    record["fc_in_features"] = getattr(fc, "in_features", getattr(fc, "input_size", None))
    record["evidence"]["fc_in_features"] = f"{member} __init__ (exec'd)"
    buffers = F.buffer_snapshot(model)
    where = f"{member} {class_name}.load_weights -> {vllm_truth.UTILS} AutoWeightsLoader"
    failed = load_error(model, drafter.tensors, record, where)
    if failed is not None:
        return failed | {"opaque_names": sorted(S.OPAQUE_USED)}
    into_buffers = F.tensors_copied_into_buffers(model, buffers, drafter.tensors)
    kept = [n for n in dropped_tensors(drafter.tensors, log) if n not in into_buffers]
    built_by = f"{member} {class_name}"
    result = loaded(record, model, log, kept, built_by, loaded_into_buffers=into_buffers)
    if quant_config is not None:
        result["quantized_params"] = quant_truth.quantized_params(model)
    return result


def _vllm_config(
    hf: PretrainedConfig, drafter: DrafterFiles, serving: tuple[str, bool, int | None]
) -> vllm_truth._Ns:
    method, parallel, tokens = serving
    draft = vllm_truth._Ns(hf_config=hf, model=str(drafter.path), revision=None)
    target_vocab = vllm_truth._target_vocab(drafter)
    return vllm_truth._Ns(
        speculative_config=vllm_truth._Ns(
            draft_model_config=draft,
            method=method,
            parallel_drafting=parallel,
            num_speculative_tokens=tokens,
        ),
        parallel_config=vllm_truth._Ns(
            tensor_parallel_size=1,
            pipeline_parallel_size=1,
            decode_context_parallel_size=1,
            prefill_context_parallel_size=1,
            dcp_q_replicate=False,
        ),
        model_config=vllm_truth._Ns(
            hf_config=hf,
            get_num_layers=lambda *_: vllm_truth.TARGET_LAYERS,
            get_total_num_hidden_layers=lambda *_: vllm_truth.TARGET_LAYERS,
            get_vocab_size=lambda: target_vocab,
            dtype=torch.float32,
        ),
    )
