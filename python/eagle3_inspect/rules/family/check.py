"""Running a family's rules: `check_family` (the family's drafter rules, or an FM finding when
the checkpoint is no drafter family this tool knows) and `check_family_target` (the family's
target cross-checks plus the TG checks every family gets)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace

from eagle3_inspect.findings import Finding, Severity
from eagle3_inspect.layout import Layout
from eagle3_inspect.reader.draft_config import DraftConfig
from eagle3_inspect.reader.target import TargetInfo
from eagle3_inspect.reader.tensorinfo import TensorInfo
from eagle3_inspect.registry import finding
from eagle3_inspect.rules.family.known import BY_NAME
from eagle3_inspect.rules.family.model import Family
from eagle3_inspect.rules.family.names import TARGET, family_title
from eagle3_inspect.rules.tg import check_positions_and_rope

# The layout summary of the EAGLE-3 rules, which gets the family's title in front.
SUMMARY_CODES = ("E3005",)
# The all-zeros value finding (rules/num).
ZERO_CODE = "NUM004"


def check_family(
    family: Family, tensors: Mapping[str, TensorInfo], cfg: DraftConfig, layout: Layout
) -> list[Finding]:
    """The rules of `family` (E3 for EAGLE-3, E3 + PE for P-EAGLE, DF for DFlash / DFlash2);
    FM002 for a target model, FM001 for anything else."""
    spec = BY_NAME.get(family.name)
    why = "; ".join(family.evidence)
    if spec is None and family.name == TARGET:
        return [
            finding(
                "FM002",
                f"this looks like a target model, not a drafter ({why}); no drafter rules ran",
                config_key="architectures",
            )
        ]
    if spec is None:
        return [
            finding(
                "FM001",
                f"not a drafter family this tool knows ({why}); only the file, index and value "
                "checks ran",
                config_key="architectures" if cfg.present else None,
            )
        ]
    return [
        replace(f, message=f"{family.title}: {f.message}") if f.code in SUMMARY_CODES else f
        for f in spec.check(tensors, cfg, layout, family)
    ]


def soften_zero_init(family: Family, findings: list[Finding]) -> list[Finding]:
    """NUM004 (all zeros) on a tensor the family's producers zero-initialise by design is a
    warning: the drafter was never trained there, the weight was not lost."""
    spec = BY_NAME.get(family.name)
    if spec is None or not spec.zero_init:
        return findings
    patterns = [re.compile(p) for p in spec.zero_init]
    return [
        replace(
            f,
            severity=Severity.WARNING,
            message=f"{f.message} ({family_title(family.name)} zero-initialises it: untrained?)",
        )
        if f.code == ZERO_CODE and f.tensor and any(p.search(f.tensor) for p in patterns)
        else f
        for f in findings
    ]


def check_family_target(
    family: Family, layout: Layout, cfg: DraftConfig, target: TargetInfo
) -> list[Finding]:
    """The family's cross-checks against `target`, and the position / RoPE ones (TG)."""
    spec = BY_NAME.get(family.name)
    if spec is None:
        return []
    found = spec.check_target(layout, cfg, target)
    return found + check_positions_and_rope(cfg.raw, target.raw)
