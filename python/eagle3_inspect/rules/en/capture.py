"""EN006: can this engine version capture the K aux hidden states from the target at all?"""

from __future__ import annotations

from collections.abc import Sequence

from eagle3_inspect.findings import Finding
from eagle3_inspect.rules.en.emit import finding
from eagle3_inspect.rules.en.profile import FamilyProfile
from eagle3_inspect.rules.en.versions import parse_version
from eagle3_inspect.rules.family.names import family_title


def first_capturing_version(profile: FamilyProfile, architecture: str) -> str | None:
    """The oldest scanned version of this engine whose capture list includes `architecture`."""
    for entry in profile.capture_history:
        if architecture in entry.target_architectures:
            return entry.version
    return None


def check_target_capture(
    profile: FamilyProfile, target_architectures: Sequence[str]
) -> list[Finding]:
    """Error when none of the target's architectures implements aux capture in this version."""
    if profile.target_capture == "unchecked":
        return [
            finding(
                profile,
                "EN012",
                f"{profile.label}: {family_title(profile.family)} targets capture through "
                "another hook than the generated capture lists cover, so whether this target "
                "can feed the drafter was not checked",
            )
        ]
    if profile.capture is None:
        return [
            finding(
                profile,
                "EN012",
                f"{profile.label}: no generated aux-capture list covers this version, so "
                "whether the target can feed the drafter was not checked",
            )
        ]
    if not target_architectures or any(
        arch in profile.capture.target_architectures for arch in target_architectures
    ):
        return []
    arch = target_architectures[0]
    since = first_capturing_version(profile, arch)
    upgrade = ""
    if since is not None and parse_version(since) > parse_version(profile.capture.version):
        upgrade = f"; {profile.engine} {since} is the first scanned version that captures it"
    return [
        finding(
            profile,
            "EN006",
            f"{profile.label} cannot capture aux hidden states from target {arch} (its class "
            f"does not implement capture in {profile.capture.version}): the drafter would get "
            "one H-wide state instead of the K concatenated ones, fc is skipped and acceptance "
            f"collapses, or the engine fails at startup{upgrade}",
            config_key="architectures",
            hint=f"serve this target with an engine version that lists it{upgrade}"
            if upgrade
            else None,
        )
    ]
