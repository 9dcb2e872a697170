"""What `validate` would say about a drafter that does not exist yet: the planned tensor names and
config run through the same E3, target and EN checks, so `fix` plans from validate's knowledge
instead of a second copy of it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from eagle3_inspect.commands.validate import SUPERSEDED_BY_ENGINES as SUPERSEDED
from eagle3_inspect.findings import Finding, Severity
from eagle3_inspect.layout import detect_layout
from eagle3_inspect.reader.draft_config import read_draft_config
from eagle3_inspect.reader.target import TargetInfo
from eagle3_inspect.reader.tensorinfo import TensorInfo
from eagle3_inspect.rules.en import check_all
from eagle3_inspect.rules.en.fold import REFUSALS, fold_under_refusal
from eagle3_inspect.rules.en.profile import FamilyProfile
from eagle3_inspect.rules.family.check import check_family, check_family_target
from eagle3_inspect.rules.family.model import Family

# Findings no conversion of the drafter can fix: the target class cannot capture aux states.
UNFIXABLE = {"EN006", "EN023"}
# Of those, the ones every conversion keeps, so no candidate is scored by them (EN023: the draft
# forward, measured, computes otherwise with a norm flag the engine has no switch for; a config
# style that only moves the flag out of the rules' sight would win the score otherwise).
UNSCORED = {"EN023"}


def unfixable_for(config: dict[str, Any] | None) -> frozenset[str]:
    """UNFIXABLE, and EN022 when the source config gives no aux ids (none, or stated null as
    speculators 0.3 writes them): fix moves ids between conventions, and with none there is
    nothing to move; the layers the drafter was trained on are its writer release's own default,
    which a config style that drops the writer's fields only hides from the runs."""
    if read_draft_config(config).aux_layer_ids is None:
        return frozenset(UNFIXABLE | {"EN022"})
    return frozenset(UNFIXABLE)


def simulate(
    profile: FamilyProfile,
    family: Family,
    tensors: Mapping[str, TensorInfo],
    config: dict[str, Any] | None,
    target: TargetInfo | None,
) -> tuple[list[Finding], list[Finding]]:
    """The family, target and EN findings validate would report for these names and this
    config, served as `family` (the source's: a plan never changes what the drafter is), EN
    findings folded under a refusal; and the same before folding (what `score` counts: a
    refusal must not hide how much else is wrong with a candidate)."""
    layout = detect_layout(tensors, config)
    cfg = read_draft_config(config)
    found = check_family(family, tensors, cfg, layout)
    if target is not None:
        found += check_family_target(family, layout, cfg, target)
    raw = check_all(profile, tensors, config, target, fold=False)
    folded = found + fold_under_refusal(raw)
    return (
        [f for f in folded if f.code not in SUPERSEDED],
        [f for f in found + raw if f.code not in SUPERSEDED],
    )


def errors(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if f.severity is Severity.ERROR]


def score(
    findings: list[Finding], unscored: frozenset[str] = frozenset(UNSCORED)
) -> tuple[int, int, int]:
    """(refused, errors, warnings) of unfolded findings, less `unscored` codes (those every
    conversion keeps): lower is a drafter the engine loads more faithfully. A refusal counts
    first: a form the engine cannot read is worse than any it reads, however many findings the
    refused one would otherwise have."""
    findings = [f for f in findings if f.code not in unscored]
    errs = errors(findings)
    return (
        int(any(f.code in REFUSALS for f in errs)),
        len(errs),
        sum(1 for f in findings if f.severity is Severity.WARNING),
    )
