"""Read a drafter's config.json in any of its three styles into one normalised `DraftConfig`.

Styles (reference C.1): SGLang/SpecForge (`LlamaForCausalLMEagle3`, aux ids nested in
`eagle_config`), speculators (`speculators_config`, model fields in `transformer_layer_config`,
aux ids top-level) and original EAGLE (`LlamaForCausalLM` + `draft_vocab_size`). Every value
remembers the key path it came from, so findings can point at it (`config_key`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from eagle3_inspect import _native

AUX_IDS = "eagle_aux_hidden_state_layer_ids"
# Every place a drafter config keeps its aux layer ids (top level, then nested).
AUX_ID_LOCATIONS = (AUX_IDS, f"eagle_config.{AUX_IDS}")
# Where each style keeps its aux ids, in the order the style's own engine reads them.
AUX_ID_KEYS = {
    "speculators": AUX_ID_LOCATIONS,
    "sglang": AUX_ID_LOCATIONS[::-1],
    "eagle": AUX_ID_LOCATIONS[::-1],
    "unknown": AUX_ID_LOCATIONS[::-1],
}
# Engines concatenate three aux hidden states when a config names neither ids nor a count.
DEFAULT_AUX_COUNT = 3
NORM_FLAGS = ("norm_before_residual", "norm_before_fc", "fc_norm", "norm_output")
# Model fields: speculators keeps them in transformer_layer_config, the others at the top level.
MODEL_FIELDS = (
    "hidden_size",
    "vocab_size",
    "num_hidden_layers",
    "num_attention_heads",
    "num_key_value_heads",
    "head_dim",
    "intermediate_size",
    "tie_word_embeddings",
    "model_type",
)
TOP_FIELDS = ("draft_vocab_size", "target_hidden_size", "torch_dtype", "num_aux_hidden_states")


@dataclass
class DraftConfig:
    """A drafter config in one shape, whatever style it was written in. Missing values are None."""

    style: str = "unknown"
    architectures: list[str] = field(default_factory=list)
    hidden_size: int | None = None
    target_hidden_size: int | None = None
    vocab_size: int | None = None
    draft_vocab_size: int | None = None
    num_hidden_layers: int | None = None
    num_attention_heads: int | None = None
    num_key_value_heads: int | None = None
    head_dim: int | None = None
    intermediate_size: int | None = None
    tie_word_embeddings: bool | None = None
    model_type: str | None = None
    torch_dtype: str | None = None
    num_aux_hidden_states: int | None = None
    aux_layer_ids: list[Any] | None = None
    aux_layer_ids_key: str | None = None
    aux_layer_id_sources: dict[str, Any] = field(default_factory=dict)
    use_aux_hidden_state: bool | None = None
    norm_flags: dict[str, Any] = field(default_factory=dict)
    keys: dict[str, str] = field(default_factory=dict)
    raw: dict[str, Any] = field(default_factory=dict)

    @property
    def present(self) -> bool:
        """True when a config was given at all."""
        return bool(self.raw)

    @property
    def architecture(self) -> str | None:
        return self.architectures[0] if self.architectures else None

    def aux_count(self) -> tuple[int, str]:
        """(K, where it came from): how many aux hidden states the drafter concatenates, from
        the aux layer ids, else `num_aux_hidden_states`, else the engine default of 3."""
        ids = self.aux_layer_ids
        if isinstance(ids, list) and ids:
            return len(ids), f"{len(ids)} aux layer ids at {self.aux_layer_ids_key}"
        count = as_int(self.num_aux_hidden_states)
        if count is not None and count > 0:
            return count, f"num_aux_hidden_states {count}"
        return DEFAULT_AUX_COUNT, "no aux layer ids configured, so the engine default of 3"

    def config_key(self, name: str) -> str:
        """The key path a field was read from (or the path it would have in this style)."""
        if name in self.keys:
            return self.keys[name]
        if self.style == "speculators" and name in MODEL_FIELDS:
            return f"transformer_layer_config.{name}"
        return name

    def to_dict(self) -> dict[str, Any]:
        data = {k: v for k, v in self.__dict__.items() if k != "raw"}
        data["keys"] = dict(self.keys)
        return data


def as_int(value: Any) -> int | None:
    """`value` when it is a real int (bools and floats are not dimensions)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def lookup(config: dict[str, Any], path: str) -> tuple[bool, Any]:
    """(found, value) for a dotted key path such as `eagle_config.use_aux_hidden_state`."""
    node: Any = config
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            return False, None
        node = node[part]
    return True, node


def architectures_of(config: dict[str, Any]) -> list[str]:
    """The string entries of `architectures` (empty when it is missing or not a list)."""
    archs = config.get("architectures")
    return [a for a in archs if isinstance(a, str)] if isinstance(archs, list) else []


def detect_style(config: dict[str, Any]) -> str:
    """`speculators`, `sglang`, `eagle` or `unknown`."""
    archs = architectures_of(config)
    if (
        "speculators_config" in config
        or "transformer_layer_config" in config
        or "speculators_model_type" in config
        or "Eagle3Speculator" in archs
    ):
        return "speculators"
    if "eagle_config" in config or any("eagle3" in a.lower() for a in archs):
        return "sglang"
    if "draft_vocab_size" in config or any(a.endswith("ForCausalLM") for a in archs):
        return "eagle"
    return "unknown"


def _model_paths(style: str, name: str) -> tuple[str, ...]:
    if style == "speculators":
        return (f"transformer_layer_config.{name}", name)
    return (name,)


def _read(cfg: DraftConfig, attr: str, paths: tuple[str, ...]) -> None:
    for path in paths:
        found, value = lookup(cfg.raw, path)
        if found and value is not None:
            setattr(cfg, attr, value)
            cfg.keys[attr] = path
            return


def read_draft_config(config: dict[str, Any] | None) -> DraftConfig:
    """Normalise a parsed config.json (None gives an empty DraftConfig with style `unknown`)."""
    if not config:
        return DraftConfig()
    if not isinstance(config, dict):
        raise TypeError(f"a drafter config must be a JSON object, not {type(config).__name__}")
    cfg = DraftConfig(style=detect_style(config), raw=config)
    cfg.architectures = architectures_of(config)
    cfg.keys["architectures"] = "architectures"
    for name in MODEL_FIELDS:
        _read(cfg, name, _model_paths(cfg.style, name))
    for name in TOP_FIELDS:
        _read(cfg, name, (name,))
    for path in AUX_ID_KEYS[cfg.style]:
        found, value = lookup(config, path)
        if found:
            cfg.aux_layer_id_sources[path] = value
            if cfg.aux_layer_ids is None and value is not None:
                cfg.aux_layer_ids = list(value) if isinstance(value, list | tuple) else value
                cfg.aux_layer_ids_key = path
                cfg.keys["aux_layer_ids"] = path
    _read(cfg, "use_aux_hidden_state", ("eagle_config.use_aux_hidden_state",))
    for flag in NORM_FLAGS:
        for path in (flag, f"eagle_config.{flag}"):
            found, value = lookup(config, path)
            if found:
                cfg.norm_flags[flag] = value
                cfg.keys[flag] = path
                break
    return cfg


def load_draft_config(path: str | os.PathLike[str]) -> DraftConfig:
    """Read `config.json` (a file, or the one inside a directory)."""
    from pathlib import Path  # here, not at module level: pathlib costs start-up time

    from eagle3_inspect.reader.untrusted import parse_object

    file = Path(path)
    if file.is_dir():
        file = file / "config.json"
    text = _native.read_config_text(str(file))
    return read_draft_config(parse_object(text, str(file), 16 << 20))
