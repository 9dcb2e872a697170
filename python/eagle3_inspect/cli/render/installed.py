"""The installed engine's verdict as text (`--engine NAME@installed`): one line per engine, the
same in the rich view and the concise listing, and its `installed/1` jsonl object. Without rich."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from eagle3_inspect.cli.render.concise import one_line
from eagle3_inspect.installed.verdict import InstalledVerdict

INSTALLED_SCHEMA = "eagle3-inspect/installed/1"


def installed_line(verdict: InstalledVerdict) -> str:
    """`installed: sglang 0.5.25 at DIR (beside profile sglang@0.5.23): LOADED (...)`."""
    engine = verdict.installed
    head = f"installed: {engine.engine} {engine.version} at {engine.location}"
    beside = f" (beside profile {verdict.profile})" if verdict.profile else ""
    if verdict.outcome != "LOADED":
        return f"{head}{beside}: {verdict.outcome}: {verdict.reason}"
    ids = "none (target default)" if verdict.aux_layer_ids is None else list(verdict.aux_layer_ids)
    facts = [f"aux ids read {ids}"]
    if verdict.fc_in_features is not None:
        facts.append(f"fc input {verdict.fc_in_features}")
    if verdict.dropped:
        facts.append(f"dropped {len(verdict.dropped)}")
    if verdict.never_loaded:
        facts.append(f"left at init {len(verdict.never_loaded)}")
    forward = verdict.forward or {}
    if forward.get("verdict") == "RAN":
        finite = "finite" if forward.get("finite") else "NON-FINITE"
        facts.append(f"draft forward ran {forward.get('steps')} steps, {finite} logits")
    elif forward:
        facts.append(f"draft forward {forward.get('verdict')}")
    return f"{head}{beside}: LOADED ({'; '.join(facts)})"


def installed_lines(report: Any) -> Iterator[str]:
    """validate's concise listing: `PATH: installed: ...`, one per installed engine."""
    for verdict in report.installed:
        yield one_line(f"{report.path}: {installed_line(verdict)}")


def installed_objects(report: Any) -> Iterator[dict[str, Any]]:
    """validate's jsonl listing: one `installed/1` object (validate/1's `installed` entry)."""
    for verdict in report.installed:
        yield {"schema": INSTALLED_SCHEMA, "path": report.path, **verdict.to_dict()}
