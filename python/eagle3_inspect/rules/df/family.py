"""The DFlash and DFlash2 families as detection sees them, and the rules that describe them:
DF0xx drafter rules, DF1xx target cross-checks."""

from __future__ import annotations

from eagle3_inspect.findings import Finding
from eagle3_inspect.layout import Layout
from eagle3_inspect.reader.draft_config import DraftConfig
from eagle3_inspect.rules.df.check import check_dflash
from eagle3_inspect.rules.df.target import check_dflash_target
from eagle3_inspect.rules.family.model import Family
from eagle3_inspect.rules.family.names import DFLASH, DFLASH2
from eagle3_inspect.rules.family.spec import DrafterCheck, Facts, FamilySpec, Tensors

DFLASH_ARCHITECTURES = frozenset(
    {
        "DFlashDraftModel",
        "DFlashQwen3ForCausalLM",
        "DFlashLagunaForCausalLM",
        "MuseGlimmerAssistantModel",
        "DFlashMuseGlimmerAssistantModel",
    }
)
DFLASH2_ARCHITECTURES = frozenset({"DFlash2DraftModel", "MiniMaxDFlash2DraftModel"})


def dflash_markers(facts: Facts) -> list[str]:
    """A top-level `hidden_norm` beside `fc` and layers that read H-wide inputs."""
    names, layout = facts.names, facts.layout
    found = []
    if "hidden_norm.weight" in names and "fc.weight" in names:
        found.append("top-level hidden_norm.weight beside fc.weight")
    width = layout.qkv_in.get(0)
    if found and width is not None and layout.H and width == layout.H:
        found.append(f"layer-0 attention input width H = {width}")
    return found


def dflash2_markers(facts: Facts) -> list[str]:
    """The candidate selector, or layer 0's grouped convolutions (looked up by name: a header
    may hold a million tensors)."""
    names, found = facts.names, []
    if "candidate_selector.hidden_projection.weight" in names:
        found.append("candidate_selector tensors")
    first = facts.layout.layer_indices[:1]
    if any(f"layers.{i}.attention_conv.base_kernel" in names for i in first):
        found.append("layers.N.attention_conv / mlp_conv tensors")
    return found


def dflash_variant(facts: Facts) -> str:
    kind = str(facts.cfg.model_type or "qwen3").lower()
    if "laguna" in kind or facts.cfg.architecture == "DFlashLagunaForCausalLM":
        return "laguna"
    return "qwen3" if "qwen3" in kind else kind


def dflash_features(facts: Facts) -> tuple[str, ...]:
    return ("multi-layer",) if facts.layout.multi_layer else ()


def _check(dflash2: bool) -> DrafterCheck:
    def check(tensors: Tensors, cfg: DraftConfig, layout: Layout, family: Family) -> list[Finding]:
        return check_dflash(tensors, cfg, layout, family, dflash2=dflash2)

    return check


SPEC = FamilySpec(
    name=DFLASH,
    speculators_types=frozenset({"dflash"}),
    architectures=DFLASH_ARCHITECTURES,
    config_keys=("dflash_config",),
    tensor_markers=dflash_markers,
    variant=dflash_variant,
    features=dflash_features,
    check=_check(False),
    check_target=check_dflash_target,
)
SPEC2 = FamilySpec(
    name=DFLASH2,
    speculators_types=frozenset({"dflash2"}),
    architectures=DFLASH2_ARCHITECTURES,
    config_keys=(
        "dflash_config.conv_kernel_size",
        "dflash_config.selector_rank",
        "conv_kernel_size",
        "selector_rank",
    ),
    tensor_markers=dflash2_markers,
    variant=dflash_variant,
    features=dflash_features,
    check=_check(True),
    check_target=check_dflash_target,
    # speculators models/dflash2/model_definitions.py DFlashGroupedConv.reset_parameters zeroes
    # base_kernel and kernel_projection: an untrained export is all zeros there.
    zero_init=(r"\.(attention_conv|mlp_conv)\.(base_kernel|kernel_projection\.weight)$",),
)
