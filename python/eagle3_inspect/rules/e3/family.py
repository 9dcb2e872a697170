"""The EAGLE-3 family as detection sees it (Llama, Qwen3 and MLA layers; EAGLE 3.1 norms), and
the rules that describe it: the E30xx drafter rules and the E31xx target cross-checks."""

from __future__ import annotations

from eagle3_inspect.findings import Finding
from eagle3_inspect.layout import Layout
from eagle3_inspect.reader.draft_config import DraftConfig
from eagle3_inspect.rules.e3.check import check_drafter
from eagle3_inspect.rules.e3.config import EAGLE3_ARCHITECTURES, MLA_ARCHITECTURES
from eagle3_inspect.rules.e3.target import check_target
from eagle3_inspect.rules.family.model import Family
from eagle3_inspect.rules.family.names import EAGLE3
from eagle3_inspect.rules.family.spec import Facts, FamilySpec, Tensors

# The norm flags that make a drafter EAGLE 3.1 (speculators PR #610, SpecForge PR #568).
EAGLE31_FLAGS = ("fc_norm", "norm_before_fc", "norm_output")


def eagle3_markers(facts: Facts) -> list[str]:
    """Tensor evidence of an EAGLE-3 decoder: `midlayer` keys, a layer-0 `hidden_norm`, layer-0
    q/k/v reading 2H (the embedding and the fused aux state side by side), `d2t` / `t2d`."""
    layout, names = facts.layout, facts.names
    found = []
    if layout.dialect == "midlayer":
        found.append("midlayer.* keys")
    prefix = layout.block_prefix(0)
    bare0 = prefix.removeprefix("model.") if prefix else None
    if bare0 and f"{bare0}hidden_norm.weight" in names:
        found.append(f"{bare0}hidden_norm.weight")
    width = layout.qkv_in.get(0)
    if width is not None and layout.H and width == 2 * layout.H:
        found.append(f"layer-0 attention input width 2H = {width}")
    found += [n for n in ("d2t", "t2d") if n in names]
    return found


def eagle3_variant(facts: Facts) -> str:
    layout, cfg = facts.layout, facts.cfg
    if layout.mla or cfg.architecture in MLA_ARCHITECTURES:
        return "mla"
    if layout.qwen3_norms or "qwen3" in str(cfg.model_type or "").lower():
        return "qwen3"
    return "llama"


def eagle3_features(facts: Facts) -> tuple[str, ...]:
    layout, cfg = facts.layout, facts.cfg
    flags = any(cfg.norm_flags.get(flag) is True for flag in EAGLE31_FLAGS)
    found = []
    if layout.eagle31 or flags:
        found.append("eagle3.1")
    if layout.multi_layer:
        found.append("multi-layer")
    return tuple(found)


def check_eagle3(
    tensors: Tensors, cfg: DraftConfig, layout: Layout, family: Family
) -> list[Finding]:
    return check_drafter(tensors, cfg, layout)


SPEC = FamilySpec(
    name=EAGLE3,
    speculators_types=frozenset({"eagle3"}),
    architectures=frozenset(EAGLE3_ARCHITECTURES - {"PEagleDraftModel"}),
    config_keys=("eagle_config", "eagle_aux_hidden_state_layer_ids"),
    tensor_markers=eagle3_markers,
    variant=eagle3_variant,
    features=eagle3_features,
    check=check_eagle3,
    check_target=check_target,
)
