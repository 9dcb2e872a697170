"""The small condition language of profile `when` lists, evaluated against a draft config.

A `when` list is a conjunction of terms; `!` negates a term:

* `cfg:A|B` -- the first of the dotted paths A, B that is present (not None) is truthy;
* `false:PATH` -- the value at PATH is exactly `false`;
* `eq:PATH=VALUE` -- the value at PATH, as a string, equals VALUE;
* `vocab_reduced` -- `draft_vocab_size` is set and differs from the target vocabulary size;
* `target_hidden_differs` -- `target_hidden_size` is set and differs from `hidden_size`;
* `multilayer` -- the draft has more than one decoder layer;
* `quantized` -- the config carries a `quantization_config` (Model-Optimizer / compressed
  tensors / fp8): engines that quantize drafts build their linears with scale parameters.

Shape facts (`hidden_size`, `vocab_size`, `num_hidden_layers`) fall back to the speculators-format
`transformer_layer_config` when absent at the top level.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from eagle3_inspect.reader.draft_config import read_draft_config

ATOMS = ("vocab_reduced", "target_hidden_differs", "multilayer", "quantized")
_MISSING = object()


def lookup(config: Mapping[str, Any] | None, path: str) -> Any:
    """The value at dotted `path`, or `_MISSING`."""
    node: Any = config or {}
    for part in path.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return _MISSING
        node = node[part]
    return node


def first_present(config: Mapping[str, Any] | None, paths: Sequence[str]) -> tuple[str, Any] | None:
    """`(path, value)` for the first of `paths` holding a non-None value."""
    for path in paths:
        value = lookup(config, path)
        if value is not _MISSING and value is not None:
            return path, value
    return None


def shape_fact(config: Mapping[str, Any] | None, key: str) -> Any:
    """`key` from the top level, else from `transformer_layer_config`; None when absent."""
    found = first_present(config, [key, f"transformer_layer_config.{key}"])
    return None if found is None else found[1]


def draft_num_layers(config: Mapping[str, Any] | None) -> int:
    value = shape_fact(config, "num_hidden_layers")
    return value if isinstance(value, int) and value > 0 else 1


def num_aux(config: Mapping[str, Any] | None) -> int:
    """How many aux states the drafter concatenates (the drafter config's own reading)."""
    return read_draft_config(dict(config) if config else None).aux_count()[0]


def validate_term(term: str) -> None:
    """Raise ValueError when `term` is not part of the language above."""
    body = term[1:] if term.startswith("!") else term
    if body in ATOMS:
        return
    if body.startswith("eq:") and "=" in body[3:] and body[3:].split("=", 1)[0]:
        return
    if body.startswith(("cfg:", "false:")) and body.split(":", 1)[1]:
        return
    raise ValueError(f"unknown condition term {term!r}")


def _atom(config: Mapping[str, Any] | None, body: str) -> bool:
    if body == "vocab_reduced":
        draft, target = lookup(config, "draft_vocab_size"), shape_fact(config, "vocab_size")
        return isinstance(draft, int) and isinstance(target, int) and draft != target
    if body == "target_hidden_differs":
        target, hidden = lookup(config, "target_hidden_size"), shape_fact(config, "hidden_size")
        return isinstance(target, int) and isinstance(hidden, int) and target != hidden
    if body == "multilayer":
        return draft_num_layers(config) > 1
    if body == "quantized":
        found = shape_fact(config, "quantization_config")
        return isinstance(found, Mapping) and bool(found)
    if body.startswith("cfg:"):
        found = first_present(config, body[4:].split("|"))
        return bool(found and found[1])
    if body.startswith("false:"):
        return lookup(config, body[6:]) is False
    path, expected = body[3:].split("=", 1)
    value = lookup(config, path)
    return value is not _MISSING and str(value) == expected


def holds(config: Mapping[str, Any] | None, when: Sequence[str]) -> bool:
    """True when every term of `when` holds for `config` (an empty list always holds)."""
    for term in when:
        negate = term.startswith("!")
        if _atom(config, term[1:] if negate else term) == negate:
            return False
    return True
