"""The target model, read once into one typed `TargetInfo` that every rule uses (E31xx, EN).

`load_target` reads a target's config.json (`read_target_config` parses one: multimodal targets
nest the text model in `text_config`, `language_config` or `llm_config`) and, for a directory or
index, only the safetensors headers of the shards holding `embed_tokens` and `lm_head`.
What is read must look like a target (`require_target`): a Python file, `{}` or an empty folder
is refused as a config with a syntax error is, not checked against with every check skipped.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from eagle3_inspect import _native

if TYPE_CHECKING:
    from pathlib import Path

    from eagle3_inspect.reader.checkpoint import Checkpoint
    from eagle3_inspect.reader.remote.traffic import Traffic

TEXT_CONFIG_KEYS = ("text_config", "language_config", "llm_config")
TARGET_CONFIG_CAP = 16 << 20  # the native reader's cap on config.json


@dataclass
class TargetInfo:
    """What the cross-checks need from a target model; None where it could not be read."""

    path: str
    architectures: list[str] = field(default_factory=list)
    model_type: str | None = None
    hidden_size: int | None = None
    vocab_size: int | None = None
    num_hidden_layers: int | None = None
    torch_dtype: str | None = None
    tie_word_embeddings: bool | None = None
    text_config_key: str | None = None
    embed_name: str | None = None
    embed_shape: tuple[int, ...] | None = None
    lm_head_name: str | None = None
    lm_head_shape: tuple[int, ...] | None = None
    raw: dict[str, Any] = field(default_factory=dict)
    # What reading a remote target (hf://, https://) cost; None for a local one.
    remote: Traffic | None = field(default=None, repr=False, compare=False)

    def field_key(self, name: str) -> str:
        """Config key path of a text-model field (e.g. `text_config.hidden_size`)."""
        return f"{self.text_config_key}.{name}" if self.text_config_key else name


def _text_fields(info: TargetInfo, config: dict[str, Any]) -> None:
    info.raw = config
    archs = config.get("architectures")
    info.architectures = [a for a in archs if isinstance(a, str)] if isinstance(archs, list) else []
    text = config
    for key in TEXT_CONFIG_KEYS:
        nested = config.get(key)
        if isinstance(nested, dict) and ("hidden_size" in nested or "num_hidden_layers" in nested):
            info.text_config_key, text = key, nested
            break
    info.model_type = text.get("model_type") or config.get("model_type")
    for name in ("hidden_size", "vocab_size", "num_hidden_layers"):
        value = text.get(name, config.get(name))
        setattr(info, name, value if isinstance(value, int) else None)
    dtype = text.get("torch_dtype") or config.get("torch_dtype") or config.get("dtype")
    info.torch_dtype = str(dtype) if dtype else None
    tie = text.get("tie_word_embeddings", config.get("tie_word_embeddings"))
    info.tie_word_embeddings = tie if isinstance(tie, bool) else None


def read_target_config(config: dict[str, Any], path: str = "") -> TargetInfo:
    """The typed target from a parsed config.json (no weights read)."""
    info = TargetInfo(path=path)
    _text_fields(info, config)
    return info


def _pick(names: list[str], suffix: str) -> str | None:
    hits = [n for n in names if n == suffix or n.endswith("." + suffix)]
    return min(hits, key=lambda n: (n.count("."), n)) if hits else None


def _weights(info: TargetInfo, path: Path) -> None:
    """Shapes of the target's embedding and head, from the shards' headers (native reader)."""
    from eagle3_inspect.errors import InspectError
    from eagle3_inspect.reader.checkpoint import Checkpoint

    try:
        ckpt = Checkpoint(path)
    except InspectError:  # a config-only directory: nothing to read
        return
    weight_shapes(info, ckpt)


def weight_shapes(info: TargetInfo, ckpt: Checkpoint) -> None:
    """The embedding's and head's names and shapes, from an opened target's headers."""
    names = list(ckpt.tensors)
    for attr, suffix in (("embed", "embed_tokens.weight"), ("lm_head", "lm_head.weight")):
        name = _pick(names, suffix)
        if name is not None:
            setattr(info, f"{attr}_name", name)
            setattr(info, f"{attr}_shape", ckpt.tensors[name].shape)


TARGET_FORMS = "a model directory, its config.json, its index or a .safetensors shard"


def require_target(info: TargetInfo) -> TargetInfo:
    """`info`, if what was read could be a target model: a config naming its architecture,
    model type or a size, or an embedding / head tensor. Otherwise InvalidArgumentError (exit
    2): the cross-checks (EN006 among them) would all be skipped and the drafter would pass."""
    from eagle3_inspect.errors import InvalidArgumentError

    if (
        info.architectures
        or info.model_type
        or info.hidden_size is not None
        or info.num_hidden_layers is not None
        or info.embed_shape is not None
        or info.lm_head_shape is not None
    ):
        return info
    raise InvalidArgumentError(
        f"{info.path}: does not look like a target model (no config.json with architectures, "
        "model_type or hidden_size, no embed_tokens / lm_head tensor); --target takes "
        f"{TARGET_FORMS}"
    )


def load_target(path: str | os.PathLike[str]) -> TargetInfo:
    """Read a target from a model directory, its config.json, its index or a safetensors file,
    or from an `hf://` model or `http(s)://` URL (config and shard headers only)."""
    from eagle3_inspect.reader.remote import is_remote

    if is_remote(path):
        return require_target(_load_remote(str(path)))
    from pathlib import Path  # here, not at module level: pathlib costs start-up time

    from eagle3_inspect.errors import InvalidArgumentError

    given = Path(path)
    info = TargetInfo(path=str(given))
    if given.is_file() and given.suffix not in (".json", ".safetensors"):
        raise InvalidArgumentError(f"{given}: not a target model; --target takes {TARGET_FORMS}")
    root = given if given.is_dir() else given.parent
    config_file = root / "config.json"
    if given.is_file() and given.suffix == ".json" and not given.name.endswith(".index.json"):
        config_file = given
    if config_file.is_file():
        config_fields(info, str(config_file), _native.read_config_text(str(config_file)))
    elif not given.exists():
        raise FileNotFoundError(f"target not found: {given}")
    if given.is_dir() or given.name.endswith(".index.json") or given.suffix == ".safetensors":
        _weights(info, given)
    return require_target(info)


def _load_remote(path: str) -> TargetInfo:
    """A remote target (`hf://`, `http(s)://`): its config.json and shard headers, never a weight;
    the requests and bytes are counted on `remote`."""
    from eagle3_inspect.reader.checkpoint import Checkpoint
    from eagle3_inspect.reader.remote import Traffic, resolve

    traffic = Traffic(path)
    listing = resolve(path, traffic)
    info = TargetInfo(path=path, remote=traffic)
    if listing.config is not None:
        config_fields(info, f"{listing.root}/{listing.config[0]}", listing.config[1])
    if listing.files:
        weight_shapes(info, Checkpoint.from_source(listing))
    return info


def config_fields(info: TargetInfo, where: str, text: str) -> None:
    """Fills `info` from the text of the target's config.json (found at `where`, for messages):
    UntrustedInputError (a ValueError, one line) when it is not a bounded JSON object."""
    from eagle3_inspect.reader.untrusted import parse_object

    _text_fields(info, parse_object(text, f"{where} (target config)", TARGET_CONFIG_CAP))
