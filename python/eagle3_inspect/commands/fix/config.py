"""The config half of a `fix` plan: config style (speculators <-> HF/SGLang), aux layer ids moved
to where the engine reads them under its id convention, `architectures`, `draft_vocab_size` and
norm flags stated where the engine reads them.

Where the engine reads each key, and its id convention, come from the engine profile; the
producer's own id convention comes from the config style it was written in (speculators trains
with vLLM's input-of ids, SpecForge / Model-Optimizer with SGLang's output-of ids: the same two
camps EN011 names).
"""

from __future__ import annotations

import copy
from typing import Any

from eagle3_inspect.echo import json_text
from eagle3_inspect.reader.draft_config import (
    AUX_ID_LOCATIONS,
    NORM_FLAGS,
    DraftConfig,
)
from eagle3_inspect.rules.en.aux import capture_indices, convention_for
from eagle3_inspect.rules.en.profile import FamilyProfile

# The id convention each producer style trains with (eagle3-formats.md C.4).
STYLE_CONVENTION = {"speculators": "input-of", "sglang": "output-of", "eagle": "output-of"}
# Keys a speculators config keeps at its top level; the rest go in transformer_layer_config.
SPECULATORS_TOP = {
    "architectures",
    "auto_map",
    "draft_vocab_size",
    "dtype",
    "eagle_config",
    "embed_requires_grad",
    "eagle_aux_hidden_state_layer_ids",
    "speculators_config",
    "speculators_model_type",
    "speculators_version",
    "target_hidden_size",
    "tie_word_embeddings",
    "torch_dtype",
    "transformers_version",
    *NORM_FLAGS,
}


class Refusal(Exception):
    """The plan cannot be made without guessing: `code` names the finding, `reason` says why.
    `blocked` is the best plan there was when errors it cannot fix remained in it (what the
    conversion would have repaired; None when planning stopped before one was made)."""

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(f"{code}: {reason}")
        self.code = code
        self.reason = reason
        self.blocked: Any = None


def set_path(config: dict[str, Any], path: str, value: Any) -> None:
    node = config
    *parents, last = path.split(".")
    for part in parents:
        node = node.setdefault(part, {})
    node[last] = value


def pop_path(config: dict[str, Any], path: str) -> None:
    node: Any = config
    *parents, last = path.split(".")
    for part in parents:
        node = node.get(part) if isinstance(node, dict) else None
    if isinstance(node, dict):
        node.pop(last, None)


def to_hf_style(config: dict[str, Any]) -> dict[str, Any]:
    """A speculators config flattened into the HF/SGLang style (model fields at the top level,
    speculators metadata dropped). Other styles are returned as a copy."""
    if "transformer_layer_config" not in config and "speculators_config" not in config:
        return copy.deepcopy(config)
    out = copy.deepcopy(config.get("transformer_layer_config") or {})
    for key, value in config.items():
        if key in ("transformer_layer_config", "speculators_config", "auto_map") or key.startswith(
            "speculators_"
        ):
            continue
        if value is not None or key not in out:
            out[key] = copy.deepcopy(value)
    return out


def to_speculators_style(
    config: dict[str, Any], verifier_archs: list[str], family: str = "eagle3"
) -> dict[str, Any]:
    """An HF/SGLang-style config in the speculators format of `family` (`eagle3`, `peagle`:
    model fields nested, aux ids and norm flags top-level). Speculators configs are returned as
    a copy. A P-EAGLE config needs its mask token (vLLM's update_peagle reads mask_token_id
    unconditionally): without one the conversion is refused, as the token cannot be guessed."""
    if "speculators_model_type" in config:
        return copy.deepcopy(config)
    if family == "peagle" and not isinstance(config.get("mask_token_id"), int):
        raise Refusal(
            "PE003",
            "a speculators P-EAGLE config needs mask_token_id (vLLM update_peagle), and the "
            "source states none: which token was the mask in training cannot be told",
        )
    flat = to_hf_style(config)
    layer = {k: v for k, v in flat.items() if k not in SPECULATORS_TOP}
    out = {k: v for k, v in flat.items() if k in SPECULATORS_TOP}
    for key in ("vocab_size", "hidden_size"):
        if key in flat:
            layer[key] = flat[key]
    if family == "peagle":
        out["mask_token_id"] = config["mask_token_id"]
        layer.pop("mask_token_id", None)
    out["transformer_layer_config"] = layer
    out["speculators_model_type"] = family
    out["speculators_config"] = {
        "algorithm": family,
        "default_proposal_method": "greedy",
        "proposal_methods": [{"proposal_type": "greedy", "speculative_tokens": 3}],
        "verifier": {"architectures": verifier_archs, "name_or_path": None},
    }
    return out


def aux_ids_for(
    profile: FamilyProfile, draft: DraftConfig, target_arch: str | None
) -> tuple[list[int] | None, str]:
    """The aux ids in this engine's convention (None when the source declares none) and a note."""
    ids = draft.aux_layer_ids
    if ids is None:
        return None, "no aux layer ids declared: left to the engine default"
    if not (isinstance(ids, list) and all(isinstance(i, int) for i in ids) and ids):
        raise Refusal(
            "E3021", f"aux layer ids {json_text(ids)} at {draft.aux_layer_ids_key} are not ints"
        )
    declared = [v for v in draft.aux_layer_id_sources.values() if v is not None]
    if any(v != ids for v in declared):
        raise Refusal(
            "E3020",
            f"aux layer ids differ between {', '.join(draft.aux_layer_id_sources)}: "
            "which the drafter was trained with cannot be told",
        )
    source = STYLE_CONVENTION.get(draft.style, "output-of")
    wanted = capture_indices(ids, source)
    target = convention_for(profile, target_arch)
    for candidate in (wanted, [i - 1 for i in wanted]):
        if min(candidate) >= 0 and capture_indices(candidate, target) == wanted:
            how = "unchanged" if candidate == ids else f"{ids} -> {candidate}"
            return candidate, f"{source} ids as {target} ids ({how}), capture layers {wanted}"
    raise Refusal(
        "EN005",
        f"aux layer ids {ids} ({source}) capture layers {wanted}, which {profile.label}'s "
        f"{target} convention cannot express",
    )


def place_aux_ids(profile: FamilyProfile, config: dict[str, Any], ids: list[int]) -> None:
    """Writes `ids` where the engine (and each of its runners) reads them first, nowhere else."""
    for location in AUX_ID_LOCATIONS:
        pop_path(config, location)
    places = list(profile.aux_layer_ids[:1])
    places += [runner.read[0] for runner in profile.aux_layer_runners if runner.read]
    for place in dict.fromkeys(places):
        set_path(config, place, list(ids))
    if "eagle_config" in config and not config["eagle_config"]:
        del config["eagle_config"]


def model_type_of(config: dict[str, Any]) -> str:
    layer = config.get("transformer_layer_config")
    found = layer.get("model_type") if isinstance(layer, dict) else None
    return str(found or config.get("model_type") or "llama")


def pick_architecture(profile: FamilyProfile, config: dict[str, Any]) -> str | None:
    """The draft class this engine serves for the config's model type (None: any will do)."""
    served = sorted(profile.draft_architectures)
    if not served:
        return None
    kind = model_type_of(config).replace("_", "").lower()
    named = [a for a in served if kind in a.lower()]
    return (named or [a for a in served if "llama" in a.lower()] or served)[0]
