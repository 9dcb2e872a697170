"""Planning a `fix`: from SRC and one engine profile to the exact list of changes (renames, drops,
d2t re-encoding, a generated t2d, config edits), or a refusal naming the finding that no
conversion can make right without guessing. Nothing is written here.

Every candidate (key dialect x config style) is run through `simulate` (validate's own checks);
the one with the fewest errors, then warnings, then changes wins.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from eagle3_inspect.commands.diff.config import key_path_diff
from eagle3_inspect.commands.fix import dflash
from eagle3_inspect.commands.fix.config import (
    Refusal,
    aux_ids_for,
    pick_architecture,
    place_aux_ids,
    set_path,
    to_hf_style,
    to_speculators_style,
)
from eagle3_inspect.commands.fix.contract import place_verifier, satisfy_contract
from eagle3_inspect.commands.fix.names import DIALECTS, rename_all
from eagle3_inspect.commands.fix.simulate import (
    UNFIXABLE,
    UNSCORED,
    errors,
    score,
    simulate,
    unfixable_for,
)
from eagle3_inspect.commands.fix.vocab import generate_t2d, needs_t2d, offsets_d2t, t2d_info
from eagle3_inspect.findings import Finding, Severity
from eagle3_inspect.layout import detect_layout
from eagle3_inspect.reader.checkpoint import Checkpoint
from eagle3_inspect.reader.draft_config import read_draft_config
from eagle3_inspect.reader.target import TargetInfo
from eagle3_inspect.reader.tensorinfo import TensorInfo
from eagle3_inspect.rules.en.capture import first_capturing_version
from eagle3_inspect.rules.en.conditions import draft_num_layers, holds
from eagle3_inspect.rules.en.configcheck import _intent, check_architecture
from eagle3_inspect.rules.en.forward_runs import as_trained_versions, flag_value
from eagle3_inspect.rules.en.profile import EngineProfile, FamilyProfile
from eagle3_inspect.rules.en.served import not_served
from eagle3_inspect.rules.family.detect import detect_family
from eagle3_inspect.rules.family.model import Family

DROPPED_CODES = {"EN001", "EN013"}
# The families a conversion is defined for (commands/fix/dflash.py for the DFlash ones).
CONVERTIBLE = ("eagle3", "peagle", "dflash", "dflash2")
DFLASH_FAMILIES = ("dflash", "dflash2")
# DFlash keys are only ever `layers.N.` without `model.` (both engines' loaders expect that).
DFLASH_DIALECTS = (("layers", ""),)


@dataclass
class Plan:
    """What `fix` will write. `names` maps every kept source tensor to its DST name."""

    engine: str
    names: dict[str, str]
    dropped: list[str]
    config: dict[str, Any] | None
    config_changes: dict[str, dict[str, Any]]
    d2t: np.ndarray | None = None
    t2d: np.ndarray | None = None
    notes: list[str] = field(default_factory=list)
    expected: list[Finding] = field(default_factory=list)
    suggestion: str | None = None
    # What validate's family, target and EN checks say about the planned drafter (EN folded).
    after: list[Finding] = field(default_factory=list)
    # The error codes no conversion of this source fixes (simulate.unfixable_for).
    unfixable: frozenset[str] = frozenset(UNFIXABLE)

    @property
    def renames(self) -> dict[str, str]:
        return {a: b for a, b in self.names.items() if a != b}

    @property
    def empty(self) -> bool:
        return not (
            self.renames
            or self.dropped
            or any(self.config_changes.values())
            or self.d2t is not None
            or self.t2d is not None
        )

    def changes(self) -> list[dict[str, Any]]:
        """Each planned change as one JSON object (`kind` plus its details)."""
        out: list[dict[str, Any]] = [
            {"kind": "rename", "from": a, "to": b} for a, b in sorted(self.renames.items())
        ]
        out += [{"kind": "drop", "tensor": name} for name in self.dropped]
        if self.d2t is not None:
            out.append({"kind": "d2t", "detail": "absolute target ids -> offsets"})
        if self.t2d is not None:
            out.append({"kind": "t2d", "detail": f"generated from d2t ({self.t2d.size} entries)"})
        diff = self.config_changes
        out += [
            {"kind": "config", "op": "add", "key": k, "to": v}
            for k, v in diff.get("added", {}).items()
        ]
        out += [
            {"kind": "config", "op": "remove", "key": k, "from": v}
            for k, v in diff.get("removed", {}).items()
        ]
        out += [
            {"kind": "config", "op": "change", "key": k, "from": v[0], "to": v[1]}
            for k, v in diff.get("changed", {}).items()
        ]
        return out


@dataclass(frozen=True)
class Verifier:
    """The verifier speculators loads: its name or path, and whether `--verifier` gave it
    (else it comes from `--target`, and a name the config already has is kept)."""

    name: str | None = None
    explicit: bool = False


def _config_for(
    profile: FamilyProfile,
    source: dict[str, Any],
    style: str,
    names: set[str],
    target: TargetInfo | None,
    d2t_len: int | None,
    verifier: Verifier,
) -> tuple[dict[str, Any], list[str], Refusal | None]:
    draft = read_draft_config(source)
    target_arch = target.architectures[0] if target and target.architectures else None
    verifier_archs = list(target.architectures) if target else []
    family = profile.family.partition(":")[0]
    if family in DFLASH_FAMILIES:
        config = (
            dflash.to_speculators(source, target, family)
            if style == "speculators"
            else dflash.to_zlab(source, target)
        )
        if d2t_len is not None and config.get("draft_vocab_size") is None:
            config["draft_vocab_size"] = d2t_len
        _refuse_headless_dflash_for_speculators(profile, source, config, names)
        return _held_to_contract(profile, config, source, verifier)
    config = (
        to_speculators_style(source, verifier_archs, family)
        if style == "speculators"
        else to_hf_style(source)
    )
    ids, _ = aux_ids_for(profile, draft, target_arch)
    if ids is not None and (profile.aux_layer_ids or profile.aux_layer_runners):
        place_aux_ids(profile, config, ids)
    if d2t_len is not None and config.get("draft_vocab_size") is None:
        config["draft_vocab_size"] = d2t_len
    if check_architecture(profile, config):
        arch = pick_architecture(profile, config)
        if arch is not None:
            config["architectures"] = [arch]
    for rule in profile.norm_flags:
        intent = _intent(rule.name, source, names)
        if rule.read and intent is not None and holds(config, rule.when):
            set_path(config, rule.read[0], intent[0])
    return _held_to_contract(profile, config, source, verifier)


def _refuse_headless_dflash_for_speculators(
    profile: FamilyProfile, source: dict[str, Any], config: dict[str, Any], names: set[str]
) -> None:
    """DF012: speculators' own DFlashDraftModel never loaded as trained a DFlash drafter
    converted from a config with no draft_vocab_size and no lm_head of its own (the
    Model-Optimizer form, which logits through the target's head): tools/engine_truth/
    fix_truth.json, d2t / t2d never loaded; with a verifier, a size mismatch loading the head.
    So no speculators config is written for one."""
    converted = "speculators_model_type" not in source  # speculators' own output loads
    headless = "lm_head.weight" not in names and config.get("draft_vocab_size") is None
    if profile.engine == "speculators" and converted and headless:
        raise Refusal(
            "DF012",
            f"{profile.label} cannot load this DFlash drafter as trained: it has no lm_head "
            "of its own and states no draft_vocab_size, so speculators' DFlashDraftModel "
            "builds a draft head and d2t / t2d (its default draft vocabulary) the checkpoint "
            "cannot fill (run: d2t / t2d never loaded; with a verifier, a size mismatch "
            "loading the head)",
        )


def _held_to_contract(
    profile: FamilyProfile, config: dict[str, Any], source: dict[str, Any], verifier: Verifier
) -> tuple[dict[str, Any], list[str], Refusal | None]:
    """`config` with the verifier placed and repaired against the engine's config contract,
    the repairs' notes, and the contract's refusal when a field has no trained value."""
    place_verifier(config, verifier.name, verifier.explicit)
    try:
        return config, satisfy_contract(profile, config, source), None
    except Refusal as refusal:
        # left for `simulate` to score: the contract finding (EN018) counts against this style
        return config, [], refusal


def _candidates(
    profile: FamilyProfile,
    ckpt: Checkpoint,
    target: TargetInfo | None,
    d2t_len: int | None,
    verifier: Verifier,
    refused: list[Refusal],
) -> Iterator[tuple[dict[str, Any] | None, tuple[list[str], Refusal | None], dict[str, str], int]]:
    """(config, (contract notes, contract refusal), names, style rank) per key dialect x config
    style; a style whose config cannot be written without guessing is skipped, its refusal
    kept in `refused`."""
    source = ckpt.config or {}
    layers = draft_num_layers(source)
    # Ties go to the engine's own format (speculators loads its own), else to the source's.
    native = "speculators" if "speculators_model_type" in source else "hf"
    first = "speculators" if profile.engine == "speculators" else native
    styles = [first, "hf" if first == "speculators" else "speculators"]
    for style_rank, style in enumerate(styles):
        try:
            config, notes, refusal = (
                _config_for(profile, source, style, set(ckpt.tensors), target, d2t_len, verifier)
                if ckpt.config
                else (None, [], None)
            )
        except Refusal as cannot:
            refused.append(cannot)
            continue
        dialects = DFLASH_DIALECTS if profile.family in DFLASH_FAMILIES else DIALECTS
        for dialect, prefix in dialects:
            names = rename_all(sorted(ckpt.tensors), dialect, prefix, layers)
            if names is not None:
                yield config, (notes, refusal), names, style_rank


def _infos(
    ckpt: Checkpoint, names: dict[str, str], extra: dict[str, TensorInfo]
) -> dict[str, TensorInfo]:
    out = {new: replace(ckpt.tensors[old], name=new) for old, new in names.items()}
    return out | extra


def served_family(engine: EngineProfile, ckpt: Checkpoint) -> tuple[FamilyProfile, Family]:
    """The drafter family of `ckpt` and the engine version's section for it, or `Refusal`:
    a checkpoint of no known drafter family, a family the version does not serve, or one no
    conversion is defined for."""
    cfg = read_draft_config(ckpt.config)
    family = detect_family(ckpt.tensors, cfg, detect_layout(ckpt.tensors, ckpt.config))
    if not family.is_drafter:
        code = "FM002" if family.name == "target" else "FM001"
        raise Refusal(code, f"{family.title} ({'; '.join(family.evidence)}): nothing to convert")
    profile = engine.family_profile(family.name, family.variant)
    if profile is None:
        refusal = not_served(engine, family.name)
        raise Refusal(refusal.code, refusal.message)
    if family.name not in CONVERTIBLE:  # pragma: no cover - every known family converts
        raise Refusal("EN004", f"no conversion is defined for {family.title} drafters")
    return profile, family


def _where(found: Finding) -> str:
    """` (in FILE, tensor T, at byte N)` for a finding of SRC's files, as far as it has them."""
    parts = [f"in {found.file}"] if found.file else []
    named = found.tensor and found.tensor not in found.message
    parts += [f"tensor {found.tensor}"] if named else []
    parts += [f"at byte {found.offset}"] if found.offset is not None else []
    return f" ({', '.join(parts)})" if parts else ""


def make_plan(
    engine: EngineProfile,
    ckpt: Checkpoint,
    target: TargetInfo | None = None,
    drop_unused: bool = False,
    verifier: Verifier = Verifier(),
) -> Plan:
    """The plan for serving `ckpt` with `engine`, or `Refusal`."""
    bad = [f for f in ckpt.findings if f.severity is Severity.ERROR]
    if bad:
        raise Refusal(bad[0].code, bad[0].message + _where(bad[0]))
    profile, family = served_family(engine, ckpt)
    d2t, d2t_note = offsets_d2t(ckpt, target)
    d2t_len = int(ckpt.tensors["d2t"].shape[0]) if "d2t" in ckpt.tensors else None
    cannot = unfixable_for(ckpt.config)
    unscored = frozenset(UNSCORED) | (cannot - UNFIXABLE)  # kept by every conversion
    best = None
    refused: list[Refusal] = []
    for config, contract, names, style_rank in _candidates(
        profile, ckpt, target, d2t_len, verifier, refused
    ):
        extra: dict[str, TensorInfo] = {}
        found, raw = simulate(profile, family, _infos(ckpt, names, extra), config, target)
        t2d = None
        draft = read_draft_config(config)
        if needs_t2d(found) and d2t_len and draft.vocab_size and "t2d" not in ckpt.tensors:
            extra = {"t2d": t2d_info(int(draft.vocab_size))}
            found, raw = simulate(profile, family, _infos(ckpt, names, extra), config, target)
            t2d = int(draft.vocab_size)
        changed = sum(a != b for a, b in names.items())
        key = (*score(raw, unscored), changed, style_rank)
        if best is None or key < best[0]:
            best = (key, config, names, found, t2d, extra, contract)
    if best is None:
        raise refused[0]
    _, config, names, found, t2d_size, extra, (config_notes, contract_refusal) = best
    dropped: list[str] = []
    if drop_unused:
        back = {new: old for old, new in names.items()}
        unused = {f.tensor for f in found if f.code in DROPPED_CODES and f.tensor}
        unused |= {n for n in back if any(re.search(p, n) for p in profile.skipped)}
        dropped = sorted(back[n] for n in unused if n in back)
        names = {a: b for a, b in names.items() if a not in dropped}
        # Leaving a tensor out changes nothing the engine computes, so an error its dropping
        # was (a trained tensor the engine discards) stays an error of the copy.
        lost = [f for f in errors(found) if f.code in DROPPED_CODES and f.tensor in unused]
        found, _ = simulate(profile, family, _infos(ckpt, names, extra), config, target)
        found = lost + found
    plan = Plan(
        engine=profile.label,
        names=names,
        dropped=dropped,
        config=config,
        config_changes=key_path_diff(ckpt.config, config) if ckpt.config else {},
        d2t=d2t if "d2t" in names else None,
        expected=[f for f in errors(found) if f.code in cannot],
        after=found,
        unfixable=cannot,
    )
    blocking = [f for f in errors(found) if f.code not in cannot]
    if blocking:
        if contract_refusal is not None and any(f.code == "EN018" for f in blocking):
            refusal = contract_refusal
        elif refused:
            refusal = refused[0]  # the form the engine would serve could not be written: say why
        else:
            refusal = Refusal(blocking[0].code, blocking[0].message)
        refusal.blocked = plan
        raise refusal
    if d2t_note and (plan.d2t is not None or d2t is None):
        plan.notes.append(d2t_note)
    plan.notes += config_notes
    if t2d_size is not None:
        plan.t2d = generate_t2d(ckpt, d2t, t2d_size)
    plan.suggestion = _suggest(profile, target, plan.expected, config or {})
    return plan


def _suggest(
    profile: FamilyProfile,
    target: TargetInfo | None,
    expected: list[Finding],
    config: Mapping[str, Any],
) -> str | None:
    """What to do about the findings no conversion fixes: the engine version that captures the
    target (EN006), the versions the forward runs show computing the flag as trained (EN023),
    the ids to write by hand (EN022 with none in the config)."""
    advice: list[str] = []
    if any(f.code == "EN022" for f in expected):
        advice.append(
            "the config gives no aux layer ids, so the engine feeds its default layers, which "
            "are not the ones the drafter was trained on: write those ids where "
            f"{profile.label} reads them ({', '.join(profile.aux_layer_ids) or 'nowhere'}), in "
            "its convention, then run fix again"
        )
    if any(f.code == "EN006" for f in expected) and target is not None and target.architectures:
        since = first_capturing_version(profile, target.architectures[0])
        if since is None:
            advice.append(
                f"no scanned {profile.engine} version captures aux states from this target"
            )
        else:
            advice.append(
                f"serve with {profile.engine}@{since} or newer (then run fix for that version)"
            )
    flags = sorted({f.config_key for f in expected if f.code == "EN023" and f.config_key})
    for flag in flags:
        stated = f"{flag}={flag_value(config, flag)}"
        versions = as_trained_versions(profile.engine, profile.family, config, flag)
        if versions:
            advice.append(
                f"the forward runs show {', '.join(versions)} computing {stated} as trained: "
                f"serve with {'it' if len(versions) == 1 else 'one of them'} (then run fix for "
                "that version), or retrain for this one"
            )
        else:
            advice.append(
                f"no {profile.engine} version the forward runs cover computes {stated} as "
                "trained: retrain, or serve with an engine the runs show doing so"
            )
    return "; ".join(advice) or None
