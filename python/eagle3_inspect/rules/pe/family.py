"""The P-EAGLE family as detection sees it: EAGLE-3 layers plus `mask_hidden`; its rules are the
E3 rules and PE001-PE004."""

from __future__ import annotations

from eagle3_inspect.findings import Finding
from eagle3_inspect.layout import Layout
from eagle3_inspect.reader.draft_config import DraftConfig
from eagle3_inspect.reader.target import TargetInfo
from eagle3_inspect.rules.e3.check import check_drafter
from eagle3_inspect.rules.e3.family import eagle3_features, eagle3_variant
from eagle3_inspect.rules.e3.target import check_target
from eagle3_inspect.rules.family.model import Family
from eagle3_inspect.rules.family.names import PEAGLE
from eagle3_inspect.rules.family.spec import Facts, FamilySpec, Tensors
from eagle3_inspect.rules.pe.check import check_peagle, check_peagle_target

PEAGLE_ARCHITECTURES = frozenset(
    {"PEagleDraftModel", "PeagleLlamaForCausalLM", "PeagleQwen3ForCausalLM"}
)


def peagle_markers(facts: Facts) -> list[str]:
    return ["mask_hidden tensor"] if "mask_hidden" in facts.names else []


def _check(tensors: Tensors, cfg: DraftConfig, layout: Layout, family: Family) -> list[Finding]:
    return check_drafter(tensors, cfg, layout) + check_peagle(tensors, cfg, layout)


def _check_target(layout: Layout, cfg: DraftConfig, target: TargetInfo) -> list[Finding]:
    return check_target(layout, cfg, target) + check_peagle_target(cfg, target)


SPEC = FamilySpec(
    name=PEAGLE,
    speculators_types=frozenset({"peagle"}),
    architectures=PEAGLE_ARCHITECTURES,
    config_keys=("parallel_drafting", "ptd_token_id", "pard_token"),
    tensor_markers=peagle_markers,
    variant=eagle3_variant,
    features=eagle3_features,
    check=_check,
    check_target=_check_target,
)
