"""Aux-layer-id checks: where the engine reads the ids, what it does without them, and whether the
ids, under the engine's convention, address layers the target has.

Conventions (eagle3-formats.md §C.4): "output-of" ids are shifted by +1 into capture-before-layer
indices (SGLang Llama targets, TensorRT-LLM); "input-of" ids are used verbatim (vLLM,
speculators); "output-of-if-first-is-1" shifts only when the first id is 1 (SGLang DeepSeek-V2
family, PR #25454). SGLang captures inside its layer loop (index <= N-1); vLLM also records the
state after the last layer (index <= N).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from eagle3_inspect.findings import Finding
from eagle3_inspect.reader.draft_config import AUX_ID_LOCATIONS
from eagle3_inspect.rules.en.conditions import first_present
from eagle3_inspect.rules.en.emit import finding
from eagle3_inspect.rules.en.forward_runs import (
    AuxRun,
    aux_run,
    measured_aux_run,
    producer_default_ids,
)
from eagle3_inspect.rules.en.profile import FamilyProfile

KNOWN_LOCATIONS = AUX_ID_LOCATIONS


def convention_for(profile: FamilyProfile, target_architecture: str | None) -> str:
    """The id convention this engine applies for that target (per-target data when generated)."""
    if profile.capture is not None and target_architecture:
        return profile.capture.conventions.get(target_architecture, profile.aux_layer_convention)
    return profile.aux_layer_convention


def capture_indices(ids: Sequence[int], convention: str) -> list[int]:
    """Config ids -> capture-before-layer indices under `convention`."""
    shift = convention == "output-of" or (
        convention == "output-of-if-first-is-1" and bool(ids) and ids[0] == 1
    )
    return [i + 1 if shift else i for i in ids]


def _ids(value: Any) -> list[int] | None:
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, int) for v in value):
        return list(value)
    return None


GUESS = " (a guess: no forward run covers {label} for this config format and target)"


# What a no-ids config is fed, in the measured findings' messages.
NO_IDS = "no ids: its default layers"
# The no-target findings' frame: the classes measured are named, the user's own is not known.
UNKNOWN_TARGET = "{label} with the target unknown (no --target)"
CHECK_TARGET = "--target checks the target it will serve"


def _measured(profile: FamilyProfile, run: AuxRun, key: str | None, what: str) -> list[Finding]:
    """Nothing when the run showed the engine feeds the trained aux states, else EN022."""
    if run.verdict == "as-trained":
        return []
    return [
        finding(
            profile,
            "EN022",
            f"{profile.label} feeds every aux state one layer away from the one this format's "
            f"producers trained on ({what}): {run.evidence(profile.label)}",
            config_key=key,
        )
    ]


def _unknown_target(
    profile: FamilyProfile, run: AuxRun, key: str | None, what: str, guess: str
) -> list[Finding]:
    """Without a target class, where runs cover this engine version, format and case on every
    target class they measured (`run.targets`): EN012 (not checked) in place of the `guess`
    code when the engine's capture fed the trained states on all of them, the `guess` code
    (EN010 / EN011) stating the measurement when it fed them one layer off on all of them: a
    warning, not EN022, since the target may be of another class."""
    who = UNKNOWN_TARGET.format(label=profile.label)
    classes = ", ".join(run.targets)
    evidence = run.evidence(profile.label)
    if run.verdict == "as-trained":
        return [
            finding(
                profile,
                "EN012",
                f"{who}: which aux states it feeds ({what}) could not be checked; on the "
                f"measured target classes ({classes}) its own capture feeds the states this "
                f"format's producers trained on: {evidence}; {CHECK_TARGET}",
                config_key=key,
                hint="pass --target with the target model's directory",
            )
        ]
    return [
        finding(
            profile,
            guess,
            f"{who}: on every measured target class ({classes}) its own capture feeds every aux "
            f"state one layer away from the one this format's producers trained on ({what}): "
            f"{evidence}; {CHECK_TARGET}",
            config_key=key,
        )
    ]


def _first_ids(config: Mapping[str, Any]) -> tuple[str, list[int]] | None:
    """(location, ids) of the first known location holding a list of ids (KNOWN_LOCATIONS
    order), or None."""
    for location in KNOWN_LOCATIONS:
        value = first_present(config, [location])
        ids = _ids(value[1]) if value is not None else None
        if ids is not None:
            return location, ids
    return None


def _ignored_ids(
    profile: FamilyProfile,
    config: Mapping[str, Any],
    target_num_layers: int | None,
    target_architecture: str | None,
) -> list[Finding] | None:
    """Ids at a location the engine does not read, where a capture run measured the engine's
    default layers as this format's producers' default ones: nothing when the ids are those
    defaults, EN022 when the drafter was trained on other layers; None when no run covers it."""
    if target_num_layers is None:
        return _ignored_ids_unknown_target(profile, config)
    run = aux_run(profile.label, config, None, target_architecture)
    if run is None or run.verdict != "as-trained":
        return None
    stated = _first_ids(config)
    if stated is None:
        return None
    location, ids = stated
    default = producer_default_ids(config, target_num_layers)
    if ids == default:
        return []
    return [
        finding(
            profile,
            "EN022",
            f"{profile.label} reads none of this config's aux ids ({location}={ids}) and "
            f"feeds its default layers, which are the producers' default ids {default} for "
            f"a {target_num_layers}-layer target: the drafter was trained on other states "
            f"({run.evidence(profile.label)})",
            config_key=location,
        )
    ]


# Target depths searched for the one whose producers' default ids a config's ids are.
DEPTHS = range(4, 1025)


def _ignored_ids_unknown_target(
    profile: FamilyProfile, config: Mapping[str, Any]
) -> list[Finding] | None:
    """Ids at a location the engine does not read, with no target given: where runs measured
    the engine's default layers as this format's producers' default ones on every target class
    they ran, the ids are fed as trained exactly when they are those defaults for the target's
    depth, which the ids themselves fix (or no depth does). A warning saying which depth (the
    target may be of another class or depth); None when no run covers it."""
    run = measured_aux_run(profile.label, config, None)
    if run is None or run.verdict != "as-trained":
        return None
    stated = _first_ids(config)
    if stated is None:
        return None
    location, ids = stated
    depth = next((n for n in DEPTHS if producer_default_ids(config, n) == ids), None)
    fed = (
        f"these ids are that default only for a target of {depth} layers: with any other "
        "depth the drafter is fed other states than it was trained on"
        if depth is not None
        else "these ids are that default for no target depth: the drafter is fed other "
        "states than it was trained on"
    )
    return [
        finding(
            profile,
            "EN010",
            f"{UNKNOWN_TARGET.format(label=profile.label)}: it reads none of this config's "
            f"aux ids ({location}={ids}) and feeds its default layers, on every measured "
            f"target class ({', '.join(run.targets)}) the producers' default ids for the "
            f"target's depth ({run.evidence(profile.label)}); {fed}; {CHECK_TARGET}",
            config_key=location,
        )
    ]


def _stated(config: Mapping[str, Any], location: str) -> bool:
    """Whether the config has the key at `location` (a dotted path), whatever its value."""
    node: Any = config
    *parents, last = location.split(".")
    for key in parents:
        node = node.get(key) if isinstance(node, Mapping) else None
    return isinstance(node, Mapping) and last in node


def _location_findings(
    profile: FamilyProfile,
    config: Mapping[str, Any],
    target_architecture: str | None,
    target_num_layers: int | None = None,
) -> tuple[list[Finding], tuple[str, list[int]] | None]:
    findings: list[Finding] = []
    present = first_present(config, profile.aux_layer_ids)
    ids = _ids(present[1]) if present else None
    read = (present[0], ids) if present and ids else None
    every_reader = set(profile.aux_layer_ids)
    for runner in profile.aux_layer_runners:
        every_reader |= set(runner.read)
    for location in KNOWN_LOCATIONS:
        value = first_present(config, [location])
        if value is not None and location not in every_reader:
            findings.append(
                finding(
                    profile,
                    "EN003",
                    f"{profile.label} ignores {location}={value[1]!r}; it reads aux layer ids only "
                    f"from {', '.join(profile.aux_layer_ids) or 'nowhere in the draft config'}",
                    config_key=location,
                )
            )
    for runner in profile.aux_layer_runners:
        got = first_present(config, runner.read)
        if read is not None and (got is None or got[0] != read[0]):
            used = got[0] if got else f"the default ({profile.aux_default})"
            findings.append(
                finding(
                    profile,
                    "EN003",
                    f"{profile.label} on the {runner.name} does not read {read[0]}; it uses {used}",
                    config_key=read[0],
                )
            )
    if read is None:
        key = profile.aux_layer_ids[0] if profile.aux_layer_ids else None
        # With no ids anywhere in the config, the drafter was trained on its producer's default
        # layers; where a capture run covers this engine version, format and target, it shows
        # whether the engine's default feeds those (both engines' defaults are the producers'
        # defaults in every run so far). Ids at a location the engine does not read (EN003) are
        # not that case: the drafter was trained on them, and EN010 stays.
        elsewhere = any(first_present(config, [loc]) is not None for loc in KNOWN_LOCATIONS)
        # An explicit null (speculators 0.3 writes one; fix keeps it when converting) is not the
        # no-ids case: the drafter was trained on its writer release's own default layers, which
        # the runs measured only for the writer versions they name (`null`, with `writers`).
        stated = any(_stated(config, loc) for loc in KNOWN_LOCATIONS)
        if not stated:
            run = aux_run(profile.label, config, None, target_architecture)
            what = "no ids: its default layers"
        else:
            run = (
                None
                if elsewhere
                else aux_run(profile.label, config, None, target_architecture, case="null")
            )
            what = (
                f"ids stated null, as speculators {config.get('speculators_version')} writes "
                "them: its default layers"
            )
        if run is not None:
            return findings + _measured(profile, run, key, what), read
        # No target class (no --target): what the runs measured on the classes they ran (for
        # ids stated null, only for the writer versions a run covers, as with a target).
        unknown = None
        if target_architecture is None and not (stated and elsewhere):
            case = "null" if stated else "default"
            unknown = measured_aux_run(profile.label, config, None, case)
        if unknown is not None:
            return findings + _unknown_target(profile, unknown, key, what, "EN010"), read
        measured = (
            _ignored_ids(profile, config, target_num_layers, target_architecture)
            if elsewhere
            else None
        )
        if measured is not None:
            return findings + measured, read
        findings.append(
            finding(
                profile,
                "EN010",
                f"{profile.label} finds no aux layer ids it reads and falls back to "
                f"{profile.aux_default or 'its default layers'} (vLLM PR #50170: acceptance 1.2%)"
                + GUESS.format(label=profile.label),
                config_key=key,
            )
        )
    return findings, read


def _convention_hint(
    profile: FamilyProfile, key: str, ids: list[int], convention: str
) -> list[Finding]:
    if convention == "input-of" and ids[0] == 1:
        camp, effect = (
            "output-of (SpecForge / Model-Optimizer: [1, N//2-1, N-4])",
            "one layer early",
        )
    elif convention == "output-of" and ids[0] == 2:
        camp, effect = "input-of (vLLM / speculators: [2, N//2, N-3])", "one layer late"
    else:
        return []
    return [
        finding(
            profile,
            "EN011",
            f"{key}={ids} starts like the {camp} convention, but {profile.label} treats ids as "
            f"{convention}: if the drafter was trained the other way every aux state is {effect}"
            + GUESS.format(label=profile.label),
            config_key=key,
        )
    ]


def check_aux_layer_ids(
    profile: FamilyProfile,
    config: Mapping[str, Any] | None,
    target_num_layers: int | None,
    target_architecture: str | None = None,
) -> list[Finding]:
    """EN003/EN010 (location), EN011 (convention look-alike), EN005 (range against the target)."""
    config = config or {}
    if profile.aux_layer_ids_status == "family-rules":
        return _target_layer_shift(profile, config)
    if profile.aux_layer_ids_status == "unconfirmed":
        return [
            finding(
                profile,
                "EN012",
                f"{profile.label}: where this engine reads aux layer ids is UNCONFIRMED "
                f"(default {profile.aux_default})",
            )
        ]
    findings, read = _location_findings(profile, config, target_architecture, target_num_layers)
    if read is None:
        return findings
    key, ids = read
    convention = convention_for(profile, target_architecture)
    run = aux_run(profile.label, config, key, target_architecture)
    unknown = measured_aux_run(profile.label, config, key) if target_architecture is None else None
    hint = _convention_hint(profile, key, ids, convention)
    if run is not None:
        findings += _measured(profile, run, key, f"{key}={ids}")
    elif unknown is not None and (hint or unknown.verdict != "as-trained"):
        # No target class: EN012 replaces the look-alike guess where every measured class fed
        # the trained states; a one-layer-off measurement warns whatever the ids look like, as
        # EN022 does with --target.
        findings += _unknown_target(profile, unknown, key, f"{key}={ids}", "EN011")
    else:
        findings += hint
    if target_num_layers is None:
        return findings
    indices = capture_indices(ids, convention)
    top = target_num_layers if profile.aux_capture_max == "N" else target_num_layers - 1
    bad = [i for i in indices if i < 0 or i > top]
    if bad:
        findings.append(
            finding(
                profile,
                "EN005",
                f"{profile.label} turns {key}={ids} ({convention}) into capture indices {indices}; "
                f"{bad} fall outside 0..{top} for a {target_num_layers}-layer target, so those aux "
                "states are never captured",
                config_key=key,
            )
        )
    return findings


def engine_layer_ids(profile: FamilyProfile, config: Mapping[str, Any]) -> Any:
    """The layer ids this engine version's reader returns for `config`: the first present of
    `aux_layer_ids`, a z-lab `dflash_config.target_layer_ids` shifted by the version's
    `target_layer_ids_shift`; None when it reads none."""
    first = first_present(config, profile.aux_layer_ids)
    if first is None:
        return None
    key, value = first
    ids = _ids(value)
    shift = profile.target_layer_ids_shift
    if key == "dflash_config.target_layer_ids" and ids is not None and shift:
        return [i + shift for i in ids]
    return value


def _target_layer_shift(profile: FamilyProfile, config: Mapping[str, Any]) -> list[Finding]:
    """EN021: a z-lab DFlash config's output-of `dflash_config.target_layer_ids` captured as
    they are, before layer i, instead of before layer i + 1 (when the engine reads them: no
    top-level ids come first)."""
    if profile.target_layer_ids_shift != 0:
        return []
    first = first_present(config, profile.aux_layer_ids)
    if first is None or first[0] != "dflash_config.target_layer_ids" or not _ids(first[1]):
        return []
    ids = list(first[1])
    return [
        finding(
            profile,
            "EN021",
            f"{profile.label} captures dflash_config.target_layer_ids={ids} before layers {ids}, "
            f"not {[i + 1 for i in ids]}: they name layer outputs, so every context state the "
            "drafter gets is one layer early",
            config_key=first[0],
        )
    ]
