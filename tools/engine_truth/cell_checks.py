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
from typing import Any

# Run as a script or loaded by path: the shared harm module imports by name.
from harm import compared, engine_says_harm

NO_ENGINE = "no-engine"


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
    """None when the profile's fc model gives the width the engine built (or the engine built
    none: a refusal before __init__)."""
    from eagle3_inspect.rules.en.conditions import shape_fact
    from eagle3_inspect.rules.en.fcwidth import engine_aux_count

    built = result.get("fc_in_features")
    if not isinstance(built, int):
        return None
    hidden = shape_fact(config, "target_hidden_size") or shape_fact(config, "hidden_size")
    try:
        count, source = engine_aux_count(profile, config)
    except Exception as exc:  # a config layout the fc model does not read
        return f"profile fc model raised {type(exc).__name__}: {exc}"
    if isinstance(hidden, int) and count * hidden == built:
        return None
    return f"profile {count} x {hidden} ({source}) vs engine-built {built}"


def aux_ids_check(result: Mapping[str, Any], config: Mapping[str, Any], profile: Any) -> str | None:
    """None when the profile reads the aux ids the engine's reader returned (speculators rows
    are not checked, nor vLLM rows refused before its runners' readers ran: a config the
    engine rejects has no aux ids)."""
    from eagle3_inspect.rules.en.conditions import first_present

    if result["engine"] == "speculators":
        return None
    if result["engine"] == "vllm" and "aux_layer_ids_by_runner" not in result:
        return None
    found = first_present(config, profile.aux_layer_ids)
    read = found[1] if found else None
    if read == result.get("aux_layer_ids"):
        return None
    return f"profile reads {read} vs engine {result.get('aux_layer_ids')}"


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
