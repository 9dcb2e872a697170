"""`detect_family`: which drafter family and variant a checkpoint is, from its config first
(`speculators_model_type`, `architectures[0]`, family config keys) and its tensors otherwise;
"a target model" for a causal-LM checkpoint with many layers and no drafter markers, and "not a
drafter family this tool knows" for anything else."""

from __future__ import annotations

import re
from collections.abc import Mapping

from eagle3_inspect.layout import Layout
from eagle3_inspect.layout.bare import BareNames
from eagle3_inspect.reader.draft_config import DraftConfig, as_int, lookup
from eagle3_inspect.reader.target import read_target_config
from eagle3_inspect.reader.tensorinfo import TensorInfo
from eagle3_inspect.rules.family.known import SPECS
from eagle3_inspect.rules.family.model import Family
from eagle3_inspect.rules.family.names import TARGET, UNKNOWN
from eagle3_inspect.rules.family.spec import Facts, FamilySpec

# Classes a target checkpoint names (the transformers conventions for language models).
TARGET_CLASS = re.compile(r"(ForCausalLM|ForConditionalGeneration|LMHeadModel)$")
# A drafter has one to a few layers; a target this many or more.
TARGET_MIN_LAYERS = 2


def _named(spec: FamilySpec, facts: Facts, why: str) -> Family:
    return Family(
        name=spec.name,
        variant=spec.variant(facts),
        features=spec.features(facts),
        evidence=(why, *spec.tensor_markers(facts)),
    )


def _any_markers(facts: Facts) -> list[str]:
    return [m for spec in SPECS for m in spec.tensor_markers(facts)]


def _target(facts: Facts) -> Family | None:
    """A causal-LM class with several layers and nothing a drafter carries."""
    cfg, layout = facts.cfg, facts.layout
    arch = cfg.architecture or ""
    # A multimodal target (Kimi-K2.5, Qwen-VL, ...) keeps its layer count in its text model.
    layers = as_int(cfg.num_hidden_layers) or read_target_config(cfg.raw).num_hidden_layers
    blocks = len(layout.blocks)
    if not TARGET_CLASS.search(arch) or _any_markers(facts) or "fc.weight" in facts.names:
        return None
    if max(layers or 0, blocks) < TARGET_MIN_LAYERS:
        return None
    return Family(
        name=TARGET,
        evidence=(
            f"architectures[0] {arch!r} is a model class",
            f"{max(layers or 0, blocks)} layers, no fc / hidden_norm / midlayer / d2t / "
            "mask_hidden",
        ),
    )


def detect_family(tensors: Mapping[str, TensorInfo], cfg: DraftConfig, layout: Layout) -> Family:
    """The family of the checkpoint with these tensors, config and layout."""
    facts = Facts(layout=layout, names=BareNames(tensors), cfg=cfg)
    kind = cfg.raw.get("speculators_model_type")
    if isinstance(kind, str):
        for spec in SPECS:
            if kind in spec.speculators_types:
                return _named(spec, facts, f"speculators_model_type {kind!r}")
        return Family(
            name=UNKNOWN,
            evidence=(f"speculators_model_type {kind!r} is not a family this tool knows",),
        )
    arch = cfg.architecture
    for spec in SPECS:
        if arch in spec.architectures:
            return _named(spec, facts, f"architectures[0] {arch!r}")
    for spec in SPECS:
        keys = [key for key in spec.config_keys if lookup(cfg.raw, key)[0]]
        if keys:
            return _named(spec, facts, f"config key {keys[0]}")
    for spec in SPECS:
        if spec.tensor_markers(facts):
            return _named(spec, facts, "tensors")
    target = _target(facts)
    if target is not None:
        return target
    shown = repr(arch) if arch else "no architectures"
    return Family(name=UNKNOWN, evidence=(f"{shown}, no drafter tensors this tool knows",))
