"""Quantized drafters (issue 19: FP8 from Model-Optimizer): whether a drafter declares a
quantization, the engine's own quantization config class built from it, and the quantized
weights that class's linear method creates on each layer.

Run unchanged (exec of the wheel's source): the engine's quantization config module
(SGLang `srt/layers/quantization/modelopt_quant.py`, vLLM
`model_executor/layers/quantization/modelopt.py`) with its base config and the parameter
classes (`srt/layers/parameter.py`, `model_executor/parameter.py`): `from_config`,
`get_quant_method` (which layers are quantized, which excluded) and the linear method's
`create_weights` (the weight, `weight_scale`, `input_scale` parameters). SGLang's
ModelConfig `_parse_quant_hf_config` / `_parse_modelopt_quant_config` (methods cut from
`configs/model_config.py` and exec'd on the draft config) name the method.

Re-stated (the stub linear layers' part): the dispatch a linear layer's `weight_loader_v2`
does for these parameters (`load_qkv_weight` / `load_merged_column_weight` /
`load_column_parallel_weight` / `load_row_parallel_weight`, the engines' own parameter
methods then do the copy), with the same shard offsets as the unquantized stubs.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Callable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import torch
from torch import nn

from . import layers, wheel_exec
from . import stub_imports as S
from .drafter import DrafterFiles
from .sources import EngineSource, cut

HF_QUANT_CONFIG = "hf_quant_config.json"
SGLANG_QUANT = "sglang/srt/layers/quantization/"
# (the package __init__ is read with ast, not exec'd: it imports every quantization method)
SGLANG_MODULES = (
    f"{SGLANG_QUANT}modelopt_quant.py",
    f"{SGLANG_QUANT}base_config.py",
    f"{SGLANG_QUANT}utils.py",
    "sglang/srt/layers/parameter.py",
)
SGLANG_MODEL_CONFIG = "sglang/srt/configs/model_config.py"
VLLM_QUANT = "vllm/model_executor/layers/quantization/"
VLLM_MODULES = (
    f"{VLLM_QUANT}modelopt.py",
    f"{VLLM_QUANT}base_config.py",
    f"{VLLM_QUANT}utils/quant_utils.py",
    "vllm/model_executor/parameter.py",
)


def declares_quantization(drafter: DrafterFiles) -> bool:
    """True when config.json has a quantization_config or hf_quant_config.json exists."""
    return (
        bool(drafter.config.get("quantization_config"))
        or (drafter.path / HF_QUANT_CONFIG).is_file()
    )


class NotModelled(Exception):
    """The engine's quantization path for this draft is not run by the harness."""


@dataclass
class QuantPlan:
    """How to build the engine's quantization config for one run (after the stub reset)."""

    build: Callable[[type], tuple[object, str | None]]  # (model class) -> (config, how)
    decided_by: str


def _none(_model_class: type) -> tuple[object, str | None]:
    return None, None


def _add_modules(
    wheel: EngineSource, members: tuple[str, ...], modules: dict[str, str], packages: set[str]
) -> None:
    for member in members:
        if wheel.has(member):
            name = member.removesuffix(".py").replace("/", ".").removesuffix(".__init__")
            modules[name] = wheel.read(member)
            if member.endswith("__init__.py"):
                packages.add(name)


def sglang_quant_config(
    drafter: DrafterFiles, wheel: EngineSource, modules: dict[str, str], packages: set[str]
) -> QuantPlan:
    """The plan for SGLang: the method name its ModelConfig parses from the draft config, then
    `QUANTIZATION_METHODS[name].from_config(quant_cfg)` as get_quant_config calls it."""
    if not declares_quantization(drafter):
        return QuantPlan(_none, "")
    _add_modules(wheel, SGLANG_MODULES, modules, packages)

    def build(model_class: type) -> tuple[object, str | None]:
        # ModelConfig._verify_quantization (run): _parse_quant_hf_config updates
        # hf_config.quantization_config in place (the flat quant_method / quant_algo) and the
        # methods' override_quantization_method name the method; get_quant_config then
        # deep-copies that dict, adds the model class's packed_modules_mapping
        # (model_loader/loader.py _get_quantization_config) and calls from_config.
        name, quant_cfg = _sglang_verify(drafter, wheel)
        if name is None:
            return None, f"{SGLANG_MODEL_CONFIG} ModelConfig._verify_quantization: no method"
        module_name, class_name = _sglang_method_class(wheel, name)
        cls = getattr(__import__(module_name, fromlist=[class_name]), class_name)
        quant_cfg["packed_modules_mapping"] = dict(
            getattr(model_class, "packed_modules_mapping", {}) or {}
        )
        config = cls.from_config(quant_cfg)
        return config, (
            f"{SGLANG_MODEL_CONFIG} ModelConfig._verify_quantization + _parse_quant_hf_config "
            f"(exec'd) -> quantization {name!r} -> {SGLANG_QUANT}__init__.py "
            "BASE_QUANTIZATION_METHODS -> "
            f"{type(config).__name__}.from_config (exec'd) with {model_class.__name__}."
            "packed_modules_mapping"
        )

    return QuantPlan(build, f"{SGLANG_MODEL_CONFIG} + {SGLANG_QUANT}modelopt_quant.py")


def _sglang_methods(wheel: EngineSource) -> dict[str, tuple[str, str]]:
    """name -> (module, class) of every QUANTIZATION_METHODS entry in the package __init__."""
    tree = ast.parse(wheel.read(f"{SGLANG_QUANT}__init__.py"))
    imported = {
        alias.asname or alias.name: node.module
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module
        for alias in node.names
    }
    found: dict[str, tuple[str, str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if (
                    isinstance(key, ast.Constant)
                    and isinstance(key.value, str)
                    and isinstance(value, ast.Name)
                ):
                    found.setdefault(key.value, (imported.get(value.id, ""), value.id))
    return found


def _sglang_method_class(wheel: EngineSource, name: str) -> tuple[str, str]:
    """(module, class) of BASE_QUANTIZATION_METHODS[name] in the package __init__ (ast)."""
    found = _sglang_methods(wheel).get(name)
    if found is None:
        raise LookupError(f"{name!r} not in {SGLANG_QUANT}__init__.py QUANTIZATION_METHODS")
    return found


class _Self:
    """A ModelConfig as far as its quantization methods read it; other attributes None."""

    # Set by _sglang_verify (the methods: the wheel's own, bound to this object).
    quantization: str | None
    is_draft_model: bool
    is_draft_quantization_explicit: bool
    hf_config: SimpleNamespace
    model_path: str
    _find_quant_modelslim_config: Callable[[], object]
    _parse_quant_hf_config: Callable[[], object]
    _verify_quantization: Callable[[], None]

    def __getattr__(self, name: str) -> object:
        if name.startswith("__"):
            raise AttributeError(name)
        S.OPAQUE_USED.add(f"ModelConfig.{name} = None")
        return None


def _sglang_verify(drafter: DrafterFiles, wheel: EngineSource) -> tuple[str | None, dict[str, Any]]:
    """ModelConfig._verify_quantization for the draft (quantization None: the target's
    default, server_args `speculative_draft_model_quantization = quantization`), with
    `_parse_quant_hf_config` / `_parse_modelopt_quant_config` / `_find_quant_modelslim_config`
    exec'd from the wheel. QUANTIZATION_METHODS holds the real ModelOpt classes; the other
    methods (named from the package __init__) never claim a config here (override -> None)."""
    import copy
    import logging
    from types import MethodType, SimpleNamespace

    source = wheel.read(SGLANG_MODEL_CONFIG)
    namespace: dict[str, Any] = {"os": __import__("os"), "json": json, "copy": copy}
    namespace["Path"] = __import__("pathlib").Path
    namespace["logger"] = logging.getLogger("sglang.model_config")
    namespace.update(wheel_exec.literal_constants(source))
    if "REQUANTIZATION_METHODS" in namespace:
        # base_config.py imports it back from model_config at call time (a stub module here)
        S.RUNTIME["REQUANTIZATION_METHODS"] = namespace["REQUANTIZATION_METHODS"]
    for helper in ("_quant_config_to_dict", "unwrap_modelopt_quantization_config"):
        text = cut(source, helper)
        if text is not None:
            wheel_exec.run_source(text, SGLANG_MODEL_CONFIG, namespace)
    stubs = __import__("sglang.srt.utils", fromlist=["is_hip"])
    namespace.update(
        envs=__import__("sglang.srt.environ", fromlist=["envs"]).envs,
        is_hip=lambda: False,
        is_sm100_supported=lambda *_: False,
        is_npu=lambda: False,
    )
    del stubs
    modelopt = __import__(f"{SGLANG_QUANT}modelopt_quant".replace("/", "."), fromlist=["x"])
    methods: dict[str, object] = {}
    for key, (module, cls_name) in _sglang_methods(wheel).items():
        real = getattr(modelopt, cls_name, None) if module.endswith("modelopt_quant") else None
        methods[key] = real or type(
            cls_name, (), {"override_quantization_method": classmethod(lambda *a: None)}
        )
    namespace["QUANTIZATION_METHODS"] = methods
    self = _Self()
    self.quantization = None
    self.is_draft_model = True
    self.is_draft_quantization_explicit = False
    self.hf_config = SimpleNamespace(
        quantization_config=copy.deepcopy(drafter.config.get("quantization_config"))
    )
    self.model_path = str(drafter.path)
    for method in (
        "_parse_quant_hf_config",
        "_parse_modelopt_quant_config",
        "_find_quant_modelslim_config",
        "_verify_quantization",
    ):
        text = wheel_exec.method_source(source, "ModelConfig", method)
        if text is None:
            if method == "_find_quant_modelslim_config":
                self._find_quant_modelslim_config = lambda: None
                continue
            raise LookupError(f"ModelConfig.{method} not in {SGLANG_MODEL_CONFIG}")
        wheel_exec.run_source(text, SGLANG_MODEL_CONFIG, namespace)
        setattr(self, method, MethodType(namespace[method], self))
    self._verify_quantization()
    parsed = self._parse_quant_hf_config()
    return self.quantization, copy.deepcopy(parsed) if isinstance(parsed, dict) else {}


def vllm_quant_config(
    drafter: DrafterFiles, wheel: EngineSource, modules: dict[str, str], packages: set[str]
) -> QuantPlan:
    """The plan for vLLM: ModelConfig._verify_quantization asks each method's
    `override_quantization_method` (ModelOptFp8Config says "modelopt" for quant_algo FP8),
    then get_quant_config calls `ModelOptFp8Config.from_config(quantization_config)`."""
    if not declares_quantization(drafter):
        return QuantPlan(_none, "")
    _add_modules(wheel, VLLM_MODULES, modules, packages)

    def build(model_class: type) -> tuple[object, str | None]:
        del model_class
        if "class ModelOptLinearMethod(" in wheel.read(f"{VLLM_QUANT}modelopt.py"):
            raise NotModelled(
                f"{VLLM_QUANT}modelopt.py ModelOptLinearMethod (the QuantSpec / SCHEME_FOR "
                "linear-scheme framework of vLLM >= 0.30) is not exec'd by this harness"
            )
        module = __import__(f"{VLLM_QUANT}modelopt".replace("/", "."), fromlist=["x"])
        quant_cfg, where = _vllm_normalize(drafter, wheel)
        if quant_cfg is None:
            return None, f"{where}: no quantization_config"
        # ModelConfig._verify_quantization asks each method's override; the ModelOpt ones
        # are the ones that claim a ModelOpt config (the others check their own formats).
        name = None
        claimed: Any = None  # the ModelOpt config class that claimed it
        for cls_name in ("ModelOptFp8Config", "ModelOptNvFp4Config"):
            cls = getattr(module, cls_name, None)
            if cls is not None and name is None:
                try:
                    name = cls.override_quantization_method(dict(quant_cfg), None)
                except TypeError:
                    name = cls.override_quantization_method(dict(quant_cfg), None, None)
                claimed = cls if name else None
        if name is None:
            name = quant_cfg.get("quant_method") or None
            if name is None:
                return None, f"{where} (exec'd): no quantization method"
            raise ValueError(f"quantization method {name!r} is not a ModelOpt one")
        config = claimed.from_config(dict(quant_cfg))
        return config, (
            f"{where} (exec'd) -> quant_method {quant_cfg.get('quant_method')!r} -> "
            f"{VLLM_QUANT}modelopt.py {claimed.__name__}.override_quantization_method -> "
            f"{name!r} -> from_config (exec'd)"
        )

    return QuantPlan(build, f"{VLLM_QUANT}modelopt.py ModelOptFp8Config")


VLLM_NORMALIZERS = (
    (
        "vllm/transformers_utils/model_arch_config_convertor.py",
        None,
        "_normalize_quantization_config",
    ),
    ("vllm/config/model.py", "ModelConfig", "_parse_quant_hf_config"),
)


def _vllm_normalize(
    drafter: DrafterFiles, wheel: EngineSource
) -> tuple[dict[str, Any] | None, str]:
    """The quantization config vLLM's model config derives from the draft config.json
    (ModelArchConfigConvertor._normalize_quantization_config, or ModelConfig.
    _parse_quant_hf_config in older wheels: producer "modelopt" -> quant_method "modelopt"),
    the method cut from the wheel and run."""
    import copy
    from types import SimpleNamespace

    hf = SimpleNamespace(
        quantization_config=copy.deepcopy(drafter.config.get("quantization_config"))
    )
    for member, class_name, method in VLLM_NORMALIZERS:
        if not wheel.has(member):
            continue
        source = wheel.read(member)
        text = wheel_exec.method_source(source, class_name, method)
        if text is None:
            continue
        namespace: dict[str, Any] = {"__name__": member, "PretrainedConfig": object}
        namespace["PreTrainedConfig"] = object
        namespace["logger"] = __import__("logging").getLogger(member)
        wheel_exec.run_source(text, member, namespace)
        found = namespace[method](SimpleNamespace(), hf)
        return (copy.deepcopy(found) if isinstance(found, dict) else None), f"{member} {method}"
    raise LookupError("no quantization-config normalizer in this wheel")


def create_quantized_weights(
    layer: nn.Module, method: Any, input_size: int, output_sizes: list[int], bias: bool
) -> None:
    """Replaces a stub linear's weight with the parameters the quantization method creates
    (its own `create_weights`, exec'd), loaded through `quantized_weight_loader`."""
    del bias
    if "weight" in layer._parameters:
        del layer._parameters["weight"]
    method.create_weights(
        layer,
        input_size,
        list(output_sizes),
        input_size,
        sum(output_sizes),
        layer.params_dtype,
        weight_loader=lambda param, loaded, shard=None: quantized_weight_loader(
            layer, param, loaded, shard
        ),
    )


def quantized_weight_loader(
    layer: nn.Module, param: torch.Tensor, loaded: torch.Tensor, shard: Any = None
) -> None:
    """A quantized linear's weight loader, as the engines' linear classes dispatch it to the
    parameter's own load method (SGLang srt/layers/linear.py / vLLM layers/linear.py
    weight_loader_v2; ReplicatedLinear.weight_loader): a 0-dim scale becomes shape (1,)."""
    if shard is None:
        shard = getattr(loaded, "shard_id", None)
    source = loaded  # the checkpoint tensor, before any reshape (the load log keys on it)
    kind = getattr(layer, "linear_kind", "replicated")
    sizes: Any = getattr(layer, "sizes", None)
    if kind == "qkv" and shard is not None:
        start = {"q": 0, "k": sizes["q"], "v": sizes["q"] + sizes["k"]}[shard]
        param.load_qkv_weight(
            loaded_weight=loaded,
            num_heads=1,
            shard_id=shard,
            shard_offset=start,
            shard_size=sizes[shard],
            tp_rank=0,
            use_presharded_weights=False,
        )
    elif kind == "merged" and shard is not None:
        index = int(shard)
        param.load_merged_column_weight(
            loaded_weight=loaded,
            shard_id=index,
            shard_offset=sum(layer.output_sizes[:index]),
            shard_size=layer.output_sizes[index],
            tp_rank=0,
            use_presharded_weights=False,
        )
    elif kind in ("row", "column"):
        if loaded.dim() == 0:
            loaded = loaded.reshape(1)
        load = getattr(param, f"load_{kind}_parallel_weight")
        try:
            load(loaded, tp_rank=0, use_presharded_weights=False)
        except TypeError:  # vLLM's parameters take no TP arguments
            load(loaded)
    else:  # ReplicatedLinear.weight_loader
        if loaded.dim() == 0:
            loaded = loaded.reshape(1)
        assert param.size() == loaded.size(), (
            f"Tried to load weights of size {loaded.size()} to a parameter of size {param.size()}"
        )
        param.data.copy_(loaded)
    layers.LOG[0].mark(param, shard, source)


def quantized_params(model: nn.Module) -> dict[str, str]:
    """Parameter name -> dtype for the parameters a quantization method created (8-bit
    weights and their scales)."""
    return {
        name: str(p.dtype).removeprefix("torch.")
        for name, p in model.named_parameters()
        if p.dtype.itemsize == 1 or name.endswith("_scale")
    }


__all__ = ["S"]
