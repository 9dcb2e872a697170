"""EN004 for a drafter family an engine version has no section for: it registers no draft class
for that family at all (e.g. DFlash in SGLang before 0.5.11, P-EAGLE in SGLang)."""

from __future__ import annotations

from eagle3_inspect.findings import Finding
from eagle3_inspect.rules.en.emit import finding
from eagle3_inspect.rules.en.profile import EngineProfile
from eagle3_inspect.rules.family.names import family_title


def first_serving_version(engine: EngineProfile, family: str) -> str | None:
    """The oldest checked version of this engine whose profile serves `family`."""
    from eagle3_inspect.rules.en.loader import load_profiles

    for profile in load_profiles():
        if profile.engine == engine.engine and family in profile.families:
            return profile.checked_versions[0]
    return None


def not_served(engine: EngineProfile, family: str) -> Finding:
    since = first_serving_version(engine, family)
    later = (
        f"; {engine.engine} {since} is the first profiled version that does"
        if since is not None
        else f"; no profiled {engine.engine} version does"
    )
    return finding(
        engine,
        "EN004",
        f"{engine.label} does not serve {family_title(family)} drafters: it registers no draft "
        f"class for them{later}",
        config_key="architectures",
    )
