"""The three checks that hold the tool's rules to one engine-truth cell, in one place: the
differential test (`tests/rules/en/test_differential.py`) and `pending.py` both call them.
Each returns None when the rules match the engine, else what differs.

* errors: `validate --engine E@V` reports an error exactly when the engine's own code
  refuses, fails to load, or loads the drafter with harm (harm.engine_says_harm);
* fc_width: the profile's fc model (EN015 `engine_aux_count`) gives the fc width the engine's
  `__init__` built;
* aux_ids: the profile's aux-id location gives the ids the engine's reader returned;
* no engine (`validate` without `--engine`, cell "<drafter> no-engine"): no error for a drafter
  some engine version loads as trained.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from eagle3_inspect.installed.harm import compared, engine_says_harm

NO_ENGINE = "no-engine"
NO_SECTION = "no profile section for the drafter's family"


def family_section(key: str, path: Path) -> Any:
    """The profile section `validate --engine key` holds the drafter at `path` to: the one for
    its detected family and variant (None when that engine version serves no such family)."""
    from eagle3_inspect.layout import detect_layout
    from eagle3_inspect.reader.checkpoint import Checkpoint
    from eagle3_inspect.reader.draft_config import read_draft_config
    from eagle3_inspect.rules.en import resolve_engines
    from eagle3_inspect.rules.family.detect import detect_family

    ckpt = Checkpoint(path)
    family = detect_family(
        ckpt.tensors, read_draft_config(ckpt.config), detect_layout(ckpt.tensors, ckpt.config)
    )
    (engine,) = resolve_engines(key)
    return engine.family_profile(family.name, family.variant)


def errors_check(
    result: Mapping[str, Any],
    config: Mapping[str, Any],
    tensors: Mapping[str, Any],
    errors: Sequence[str],
) -> str | None:
    """None when validate's errors agree with the engine's verdict."""
    harmful, why = engine_says_harm(result, config, tensors)
    if harmful == bool(errors):
        return None
    kind = "FALSE ERROR" if errors else "MISSED"
    return f"{kind}: engine: {why}; validate errors: {tuple(errors)}"


def fc_width_check(
    result: Mapping[str, Any], config: Mapping[str, Any], profile: Any
) -> str | None:
    """None when the family section's fc model gives the width the engine built (or the engine
    built none: a refusal before __init__)."""
    from eagle3_inspect.rules.en.conditions import shape_fact
    from eagle3_inspect.rules.en.fcwidth import engine_aux_count

    built = result.get("fc_in_features")
    if not isinstance(built, int):
        return None
    if profile is None:
        return f"{NO_SECTION}, but the engine built fc ({built} inputs)"
    if profile.fc_aux_count is None:
        return f"the family section does not model fc (fc_aux_count absent); engine built {built}"
    hidden = shape_fact(config, "target_hidden_size") or shape_fact(config, "hidden_size")
    try:
        count, source = engine_aux_count(profile, config)
    except Exception as exc:  # a config layout the fc model does not read
        return f"profile fc model raised {type(exc).__name__}: {exc}"
    if isinstance(hidden, int) and count * hidden == built:
        return None
    return f"profile {count} x {hidden} ({source}) vs engine-built {built}"


def aux_ids_check(result: Mapping[str, Any], config: Mapping[str, Any], profile: Any) -> str | None:
    """None when the family section reads the aux ids the engine's reader returned, z-lab DFlash
    ids shifted as the version shifts them (speculators rows are not checked, nor vLLM rows
    refused before its runners' readers ran: a config the engine rejects has no aux ids)."""
    from eagle3_inspect.rules.en.aux import engine_layer_ids

    if result["engine"] == "speculators":
        return None
    if result["engine"] == "vllm" and "aux_layer_ids_by_runner" not in result:
        return None
    # An engine version with no section for the family registers no class for it: it reads none.
    read = None if profile is None else engine_layer_ids(profile, config)
    if read == result.get("aux_layer_ids"):
        return None
    where = NO_SECTION if profile is None else "profile reads"
    return f"{where} {read} vs engine {result.get('aux_layer_ids')}"


def no_engine_check(
    entry: Mapping[str, Any], config: Mapping[str, Any], errors: Sequence[str]
) -> str | None:
    """None unless some engine version loads the drafter as trained and `validate` without an
    engine still reports errors (it cannot know which engine serves it)."""
    loads = [
        key
        for key, result in entry["results"].items()
        if compared(result) and not engine_says_harm(result, config, entry["tensors"])[0]
    ]
    if not loads or not errors:
        return None
    return f"FALSE ERROR: {loads[0]} loads it as trained; validate errors: {tuple(errors)}"
