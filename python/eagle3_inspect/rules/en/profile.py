"""EngineProfile: one engine version range's loading behaviour, as plain frozen dataclasses.

Parsing and validation of the TOML data files live in `schema.py`; the schema itself is
documented in `eagle3_inspect/rules/en/profiles/README.md`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from eagle3_inspect.rules.en.versions import Version


class ProfileError(ValueError):
    """A profile data file does not follow the schema."""


@dataclass(frozen=True)
class Rule:
    """A regex plus the conditions under which it applies (and why, for findings)."""

    pattern: str
    when: tuple[str, ...] = ()
    reason: str = ""
    replace: str = ""


@dataclass(frozen=True)
class Required:
    """Parameter names (templated by `{i}` layer and `{k}` aux index) that must be loaded."""

    names: tuple[str, ...]
    when: tuple[str, ...] = ()
    reason: str = ""
    severity: str = "error"


@dataclass(frozen=True)
class NormFlag:
    """Where an engine reads one norm flag and what it assumes when the flag is absent."""

    name: str
    read: tuple[str, ...]
    default: bool
    when: tuple[str, ...] = ()


@dataclass(frozen=True)
class CaptureEntry:
    """Generated list of target architectures whose class implements aux-state capture."""

    version: str
    source: str
    target_architectures: frozenset[str]
    conventions: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class EngineProfile:
    """Everything the EN checks need to know about one engine version range."""

    engine: str
    min_version: Version
    max_version: Version | None
    checked_versions: tuple[str, ...]
    source: str
    path: str
    draft_architectures: frozenset[str]
    unprofiled_draft_architectures: frozenset[str] = frozenset()
    architecture_prefix: str = ""
    speculators_architectures: dict[str, str] = field(default_factory=dict)
    # True when the engine serves only speculators-format configs and never reads architectures
    # (speculators' own from_pretrained).
    speculators_only: bool = False
    unconfirmed: tuple[str, ...] = ()
    unknown: str = "silent-drop"
    missing: str = "random"
    strip_for_required: tuple[str, ...] = ()
    renames: tuple[Rule, ...] = ()
    skipped: tuple[str, ...] = ()
    params: tuple[Rule, ...] = ()
    dropped_when: tuple[Rule, ...] = ()
    overridden: tuple[Rule, ...] = ()
    required: tuple[Required, ...] = ()
    aux_layer_ids: tuple[str, ...] = ()
    aux_layer_ids_status: str = "verified"
    aux_layer_runners: tuple[tuple[str, tuple[str, ...]], ...] = ()
    aux_layer_convention: str = "input-of"
    aux_capture_max: str = "N"
    aux_default: str = ""
    reads: tuple[str, ...] = ()
    ignored: tuple[Rule, ...] = ()
    rejects: tuple[Rule, ...] = ()
    norm_flags: tuple[NormFlag, ...] = ()
    version: str = ""
    # False when no engine code backs this profile (no wheel could be read or run): its
    # findings are capped at warnings (`emit.finding`).
    verified: bool = True
    # Where this engine version reads the aux-state count it sizes fc by (an int, or a list
    # whose length counts), first hit wins, else 3; () = always 3; None = not checked.
    fc_aux_count: tuple[str, ...] | None = None
    capture: CaptureEntry | None = None
    capture_history: tuple[CaptureEntry, ...] = ()

    @property
    def label(self) -> str:
        """`"sglang@0.5.11"`: the engine and the version the checks speak for."""
        return f"{self.engine}@{self.version}"

    def range_text(self) -> str:
        low = ".".join(map(str, self.min_version))
        high = ".".join(map(str, self.max_version)) if self.max_version else ""
        return f">={low},<{high}" if high else f">={low}"
