"""Which engine code the contract reads, per engine: every draft model class the engine
registers for the EAGLE-3, P-EAGLE and DFlash families, and the config adapters that build the
config those classes receive, each with its config parameter bound.

* SGLang: every `srt/models/*.py` whose name contains `eagle3` or `dflash`, the classes in its
  `EntryClass` (the registry SGLang serves architectures from); the config object is the
  `transformers` config of the drafter's config.json (`root = "config"`).
* vLLM: every `_SPECULATIVE_DECODING_MODELS` entry whose module name contains `eagle3` or
  `dflash` (P-EAGLE names map onto llama_eagle3 / qwen3_eagle3), built from
  `vllm_config.speculative_config.draft_model_config.hf_config`; adapters: each speculators
  algorithm updater (`@register_speculator`), `SpeculatorsConfig`'s validation and conversion,
  which read the raw config.json dict (`root = "raw"`), and `EAGLEConfig.__init__`.
* speculators: every class registered with `@SpeculatorModel.register(...)`, built from the
  speculators config (`root = "raw"`: config.json as the pydantic config holds it).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from config_contract.model import Ref
from config_contract.sources import Module, Source, resolve
from config_contract.state import Val

FAMILY = re.compile(r"(eagle3|dflash)")
SGLANG_MODELS = "sglang.srt.models"
VLLM_MODELS = "vllm.model_executor.models"
VLLM_REGISTRY = "vllm.model_executor.models.registry"
VLLM_SPECULATORS = "vllm.transformers_utils.configs.speculators"
VLLM_EAGLE_CONFIG = "vllm.transformers_utils.configs.eagle"
SPECULATORS_BASE = ("SpeculatorsConfig", "validate_speculators_config")


@dataclass
class Entry:
    """One entry point: a draft class (`kind = "model"`, keyed by the architecture names that
    select it) or a config adapter function (`kind = "adapter"`)."""

    kind: str
    name: str  # the class / function qualname
    module: Module
    node: ast.AST
    binding: dict[str, Val]
    attrs: dict[str, Val] = field(default_factory=dict)  # `self` attributes set before __init__
    architectures: list[str] = field(default_factory=list)
    algorithm: str = ""  # speculators_model_type an adapter / speculators class handles


def _config_param(node: ast.ClassDef) -> str | None:
    init = next(
        (n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None
    )
    if init is None:
        return None
    names = [a.arg for a in (*init.args.args, *init.args.kwonlyargs)][1:]
    for name in ("config", "hf_config", "vllm_config"):
        if name in names:
            return name
    return names[0] if names else None


def _model_binding(node: ast.ClassDef) -> dict[str, Val]:
    param = _config_param(node)
    if param is None:
        return {}
    if param == "vllm_config":
        return {param: Val(kind="vllm")}
    return {param: Val(ref=Ref("config"))}


def sglang_entries(source: Source) -> list[Entry]:
    """SGLang's EAGLE-3 / DFlash draft classes, from each module's EntryClass."""
    entries = []
    prefix = SGLANG_MODELS.replace(".", "/") + "/"
    for path in source.members():
        stem = path.removeprefix(prefix).removesuffix(".py")
        if not path.startswith(prefix) or "/" in stem or not FAMILY.search(stem):
            continue
        module = source.module(f"{SGLANG_MODELS}.{stem}")
        if module is None:
            continue
        for name in _entry_class_names(module):
            found = resolve(source, module, name)
            if found is None or not isinstance(found[1], ast.ClassDef):
                continue
            cls_module, node = found[0], found[1]
            entries.append(
                Entry(
                    "model", node.name, cls_module, node, _model_binding(node), architectures=[name]
                )
            )
    return entries


def _entry_class_names(module: Module) -> list[str]:
    for node in module.tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "EntryClass" for t in node.targets
        ):
            values = (
                node.value.elts if isinstance(node.value, (ast.List, ast.Tuple)) else [node.value]
            )
            return [v.id for v in values if isinstance(v, ast.Name)]
    return []


def vllm_registry(source: Source) -> dict[str, tuple[str, str]]:
    """`_SPECULATIVE_DECODING_MODELS`: architecture -> (module, class), as written."""
    module = source.module(VLLM_REGISTRY)
    if module is None:
        return {}
    for node in module.tree.body:
        target = (
            node.target
            if isinstance(node, ast.AnnAssign)
            else (node.targets[0] if isinstance(node, ast.Assign) else None)
        )
        if isinstance(target, ast.Name) and target.id == "_SPECULATIVE_DECODING_MODELS":
            value = getattr(node, "value", None)
            if value is None:
                return {}
            return {k: (v[0], v[1]) for k, v in ast.literal_eval(value).items()}
    return {}


def vllm_entries(source: Source) -> list[Entry]:
    """vLLM's EAGLE-3 / P-EAGLE / DFlash draft classes and its speculators config adapters."""
    by_class: dict[tuple[str, str], Entry] = {}
    for arch, (mod_name, cls_name) in sorted(vllm_registry(source).items()):
        if not FAMILY.search(mod_name.rsplit(".", 1)[-1]):
            continue
        full = mod_name if mod_name.startswith("vllm.") else f"{VLLM_MODELS}.{mod_name}"
        module = source.module(full)
        found = resolve(source, module, cls_name) if module is not None else None
        if found is None or not isinstance(found[1], ast.ClassDef):
            continue
        cls_module, node = found[0], found[1]
        key = (cls_module.path, node.name)
        if key not in by_class:
            by_class[key] = Entry("model", node.name, cls_module, node, _model_binding(node))
        by_class[key].architectures.append(arch)
    return list(by_class.values()) + _vllm_adapters(source)


def _vllm_adapters(source: Source) -> list[Entry]:
    raw = {"config_dict": Val(ref=Ref("raw"))}
    layer = {"pre_trained_config": Val(ref=Ref("raw", ("transformer_layer_config",)))}
    entries: list[Entry] = []
    algos = source.module(f"{VLLM_SPECULATORS}.algos")
    if algos is not None:
        for node in algos.tree.body:
            name = _registered_name(node, "register_speculator")
            if name is not None:
                entries.append(
                    Entry("adapter", node.name, algos, node, raw | layer, algorithm=name)  # type: ignore[attr-defined]
                )
    base = source.module(f"{VLLM_SPECULATORS}.base")
    cls = base.defs.get("SpeculatorsConfig") if base is not None else None
    if base is not None and isinstance(cls, ast.ClassDef):
        for item in cls.body:
            if isinstance(item, ast.FunctionDef) and "config_dict" in [
                a.arg for a in item.args.args
            ]:
                entries.append(Entry("adapter", f"SpeculatorsConfig.{item.name}", base, item, raw))
    eagle = source.module(VLLM_EAGLE_CONFIG)
    cls = eagle.defs.get("EAGLEConfig") if eagle is not None else None
    if eagle is not None and isinstance(cls, ast.ClassDef):
        init = next(i for i in cls.body if isinstance(i, ast.FunctionDef) and i.name == "__init__")
        entries.append(
            Entry("adapter", "EAGLEConfig.__init__", eagle, init, {"model": Val(ref=Ref("config"))})
        )
    return entries


def _registered_name(node: ast.AST, decorator: str) -> str | None:
    """ "eagle3" for a def decorated `@<decorator>("eagle3")` (or `@X.<decorator>(...)`)."""
    for dec in getattr(node, "decorator_list", []):
        if isinstance(dec, ast.Call) and dec.args and isinstance(dec.args[0], ast.Constant):
            func = dec.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name == decorator:
                return str(dec.args[0].value)
    return None


def speculators_entries(source: Source) -> list[Entry]:
    """speculators' registered draft model classes (`@SpeculatorModel.register("eagle3")`)."""
    entries = []
    for path in source.members():
        if not path.startswith("speculators/models/"):
            continue
        name = path.removesuffix(".py").replace("/", ".").removesuffix(".__init__")
        module = source.module(name)
        if module is None:
            continue
        for node in module.tree.body:
            if not isinstance(node, ast.ClassDef):
                continue
            algorithm = _registered_name(node, "register")
            if algorithm is None or not any(
                getattr(b, "id", getattr(b, "attr", "")) in ("SpeculatorModel", "DraftVocabMixin")
                or "Model" in getattr(b, "id", "")
                for b in node.bases
            ):
                continue
            if not _is_model_class(node):
                continue
            config = Val(ref=Ref("raw"))
            entries.append(
                Entry(
                    "model",
                    node.name,
                    module,
                    node,
                    {_config_param(node) or "config": config},
                    attrs={"config": config},  # transformers' PreTrainedModel sets self.config
                    algorithm=algorithm,
                )
            )
    return entries


def _is_model_class(node: ast.ClassDef) -> bool:
    """A model (has __init__ taking a config, or a from_pretrained), not a config class."""
    return _config_param(node) is not None or any(
        isinstance(n, ast.FunctionDef) and n.name == "from_pretrained" for n in node.body
    )
