"""The config object an engine's draft model code reads, built from a drafter's config.json the
way the engine builds it, as far as the contract needs: what a dotted field reads as, and
whether that value comes from config.json, from a class default (transformers config classes,
speculators' pydantic models) or is missing.

* SGLang, and vLLM for an HF-style config: transformers' `AutoConfig` of config.json, so every
  top-level key is an attribute and the `model_type` class supplies defaults.
* vLLM for a speculators-format config: `transformer_layer_config` after the config adapter's
  own writes (the contract's `writes` of the algorithm's updater: copied fields, their
  defaults, copies made only when the source is not None / truthy), on a bare
  `PreTrainedConfig`.
* speculators: config.json under its pydantic config (field defaults, required fields), with
  `transformer_layer_config` as the transformers class of its model_type (Qwen3 by default).
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from eagle3_inspect.reader.draft_config import lookup
from eagle3_inspect.rules.en.contract.data import EngineContract, FieldWrite, config_classes

PRESENT, DEFAULT, MISSING, UNREACHABLE = "present", "default", "missing", "unreachable"
# A value the engine computes (not None, not known here).
COMPUTED = object()
REQUIRED = "<required>"


def literal(text: str | None) -> Any:
    """The value of a Python literal default, COMPUTED for anything else."""
    if text is None:
        return COMPUTED
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return COMPUTED


@dataclass
class ConfigView:
    """`data` as the engine's config object holds it; `defaults[prefix]` = what a missing
    field directly below `prefix` ("" = the top) reads as (Python text; REQUIRED = none)."""

    data: Mapping[str, Any]
    defaults: dict[str, Mapping[str, str]] = field(default_factory=dict)

    def lookup(self, path: str) -> tuple[str, Any]:
        """(PRESENT / DEFAULT / MISSING / UNREACHABLE, value) of the dotted field."""
        node: Any = self.data
        parts = path.split(".")
        for i, part in enumerate(parts):
            if not isinstance(node, Mapping):
                return UNREACHABLE, None
            if part in node:
                node = node[part]
                continue
            prefix = ".".join(parts[:i])
            level = self.defaults.get(prefix, {})
            if level is UNKNOWN_CLASS:
                return UNREACHABLE, None  # which config class fills it in is not known
            if i < len(parts) - 1:
                return UNREACHABLE, None  # the read of the missing parent reports it
            text = level.get(part)
            if text is None or text == REQUIRED:
                return MISSING, None
            return DEFAULT, literal(text)
        return PRESENT, node


# The defaults of a config class that is not known (no or an unscanned model_type).
UNKNOWN_CLASS: Mapping[str, str] = {}


def _class_defaults(model_type: Any) -> Mapping[str, str]:
    """The transformers class defaults for `model_type` (UNKNOWN_CLASS when none is scanned:
    AutoConfig would pick a class this table does not have)."""
    if not model_type:
        return UNKNOWN_CLASS
    return config_classes().get(str(model_type), UNKNOWN_CLASS)


def hf_view(config: Mapping[str, Any]) -> ConfigView:
    """transformers' AutoConfig of config.json (SGLang; vLLM for HF-style configs)."""
    return ConfigView(config, {"": _class_defaults(config.get("model_type"))})


def vllm_speculators_view(config: Mapping[str, Any], contract: EngineContract) -> ConfigView:
    """vLLM's SpeculatorsConfig for a speculators-format config: transformer_layer_config after
    the algorithm updater's writes."""
    layer = copy.deepcopy(dict(config.get("transformer_layer_config") or {}))
    algorithm = str(config.get("speculators_model_type"))
    updater = contract.for_algorithm("adapter", algorithm)
    for write in sorted(updater.writes if updater else (), key=lambda w: w.line):
        _apply(layer, config, write)
    return ConfigView(layer, {"": config_classes().get("base", {})})


def _apply(layer: dict[str, Any], raw: Mapping[str, Any], write: FieldWrite) -> None:
    parts = write.field.split(".")
    if write.root != "raw" or parts[0] != "transformer_layer_config" or len(parts) < 2:
        return
    if write.copy is not None:
        found, value = lookup(dict(raw), write.copy)
        if write.when == "not-none" and (not found or value is None):
            return
        if write.when == "truthy" and not value:
            return
        if not found:
            if write.default is None:
                return  # a KeyError the adapter's own read reports
            value = literal(write.default)
    elif write.literal is not None:
        value = literal(write.literal)
    else:
        value = COMPUTED
    node = layer
    for part in parts[1:-1]:
        child = node.get(part)
        if not isinstance(child, dict):
            return
        node = child
    node[parts[-1]] = value


def speculators_view(config: Mapping[str, Any], contract: EngineContract) -> ConfigView:
    """speculators' pydantic config of config.json."""
    defaults: dict[str, Mapping[str, str]] = {}
    algorithm = repr(str(config.get("speculators_model_type")))
    for model in contract.pydantic.values():
        if model.get("fields", {}).get("speculators_model_type") == algorithm:
            _pydantic_defaults(contract, model, "", defaults)
            break
    layer = config.get("transformer_layer_config")
    model_type = layer.get("model_type", "qwen3") if isinstance(layer, Mapping) else "qwen3"
    defaults["transformer_layer_config"] = _class_defaults(model_type)
    return ConfigView(config, defaults)


def _pydantic_defaults(
    contract: EngineContract,
    model: Mapping[str, Any],
    prefix: str,
    out: dict[str, Mapping[str, str]],
) -> None:
    out[prefix] = model.get("fields", {})
    for name, cls in model.get("nested", {}).items():
        nested = contract.pydantic.get(cls)
        if nested is not None:
            child = f"{prefix}.{name}" if prefix else name
            _pydantic_defaults(contract, nested, child, out)
