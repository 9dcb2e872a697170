"""EN findings from an installed engine's verdict, under the codes the profiles use (so
`rules CODE` explains them): EN008 it refuses the drafter, EN001 it drops a tensor the forward
pass reads, EN002 it leaves such a parameter at init, EN020 the target's default capture cannot
feed the fc it built, EN010 (warning) it reads none of the ids the config states, EN024 its
draft forward raises, EN012 (info) its code could not judge the drafter. What is harmless comes
from `harm`, as for the committed load truth."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from eagle3_inspect.findings import Finding
from eagle3_inspect.installed.harm import aux_fc_mismatch, harmful_names
from eagle3_inspect.installed.verdict import REFUSALS, InstalledVerdict
from eagle3_inspect.reader.draft_config import AUX_ID_LOCATIONS
from eagle3_inspect.registry import finding
from eagle3_inspect.rules.en.conditions import first_present

# Where a drafter states the target layers it was trained on (EAGLE-3 aux ids, DFlash's ids).
STATED_IDS = (*AUX_ID_LOCATIONS, "dflash_config.target_layer_ids")


def installed_findings(
    verdict: InstalledVerdict, config: Mapping[str, Any], tensors: Mapping[str, Any]
) -> list[Finding]:
    """The findings `verdict` carries for a drafter with this config and these tensor names."""
    label, tag = verdict.installed.label, verdict.tag
    where = f" (at {verdict.raised_at})" if verdict.raised_at else ""
    if verdict.outcome in REFUSALS:
        stage = "while loading" if verdict.outcome == "LOAD-ERROR" else "before loading"
        message = f"{tag} raises {stage}: {verdict.reason}{where}"
        return [finding("EN008", message, engine=label)]
    if verdict.outcome != "LOADED":
        message = f"{tag}: its own code could not judge this drafter: {verdict.reason}"
        return [finding("EN012", message, engine=label)]
    record = {**verdict.record, "fc_in_features": verdict.fc_in_features}
    dropped, unloaded = harmful_names(record, config, tensors)
    out = [
        finding("EN001", f"{tag} silently drops tensor {name}", tensor=name, engine=label)
        for name in dropped
    ]
    out += [
        finding("EN002", f"{tag} leaves parameter {name} at its init value", engine=label)
        for name in unloaded
    ]
    mismatch = aux_fc_mismatch(record, config)
    if mismatch is not None:
        out.append(finding("EN020", f"{tag}: {mismatch}", engine=label))
    stated = first_present(config, STATED_IDS) if verdict.aux_layer_ids is None else None
    if stated is not None and mismatch is None:
        reader = verdict.evidence.get("aux_layer_ids", "its runner's aux-id reader")
        message = (
            f"{tag} reads none of this config's aux ids ({stated[0]}={stated[1]}): its target "
            f"captures its own default layers instead ({reader})"
        )
        out.append(finding("EN010", message, config_key=stated[0], engine=label))
    forward = verdict.forward or {}
    # With EN020 the forward fails for that reason (fc fed another width): not a second finding.
    if forward.get("verdict") == "FORWARD-ERROR" and mismatch is None:
        why = forward.get("why") or {}
        at = f" (at {why['raised_at']})" if why.get("raised_at") else ""
        message = f"{tag}'s draft forward raises: {why.get('exception')}{at}"
        out.append(finding("EN024", message, engine=label))
    return out
