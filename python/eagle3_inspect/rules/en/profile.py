"""The engine-profile schema, written once: the dataclasses an EN check reads, each field with the
TOML key it comes from, how that key is parsed and what it means.

`schema.py` parses a profile file by walking these fields (unknown keys, bad REGEXES, unknown
condition terms and out-of-vocabulary choices are rejected), and `schema_doc.py` renders the
tables of `profiles/README.md` from them (a test keeps the README equal to that rendering).

A profile file is one engine version range: the engine-level keys, then one `[families.<name>]`
table per drafter family that version serves (`eagle3`, `peagle`, `dflash`, `dflash2`), each
saying which draft classes it registers, how its `load_weights` maps tensor names (`names`) and
which config fields it reads (`config`). A family a profile has no table for is not served.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from eagle3_inspect.rules.en.fields import (
    BOOLEAN,
    CAPTURE_MAX,
    CONDITIONS,
    CONVENTIONS,
    COUNT,
    MISSING_POLICIES,
    OPTIONAL_STRINGS,
    POSITION_POLICIES,
    REGEX,
    REGEXES,
    SHIFT,
    STR_MAP,
    STRING,
    STRINGS,
    UNKNOWN_POLICIES,
    VERSION,
    choice,
    spec,
    tables,
)
from eagle3_inspect.rules.en.versions import Version


class ProfileError(ValueError):
    """A profile data file does not follow the schema."""


@dataclass(frozen=True)
class Rule:
    """A regex plus the conditions under which it applies (and why, for findings)."""

    pattern: str = spec("the regex (`re.search` on the tensor name)", REGEX, required=True)
    when: tuple[str, ...] = spec("conditions, all of which must hold", CONDITIONS, default=())
    reason: str = spec("why, quoted in the finding", STRING, default="")
    replace: str = spec("`renames` only: the replacement (`re.sub`)", STRING, default="")


@dataclass(frozen=True)
class ConfigRule:
    """A config field the engine ignores (`key`), or a config it refuses (`when` only)."""

    pattern: str = spec("the dotted config key", STRING, default="", toml="key")
    when: tuple[str, ...] = spec("conditions, all of which must hold", CONDITIONS, default=())
    reason: str = spec("why, quoted in the finding", STRING, default="")


@dataclass(frozen=True)
class Reject:
    """A config the engine refuses to build (EN008)."""

    when: tuple[str, ...] = spec(
        "conditions under which the engine refuses", CONDITIONS, required=True
    )
    reason: str = spec("the engine's refusal", STRING, default="", toml="message")


@dataclass(frozen=True)
class Required:
    """Parameter names (templated by `{i}` layer and `{k}` aux index) that must be loaded."""

    names: tuple[str, ...] = spec(
        "parameter names; `{i}` layers, `{k}` aux states", STRINGS, required=True
    )
    when: tuple[str, ...] = spec("conditions, all of which must hold", CONDITIONS, default=())
    reason: str = spec("what the missing parameter does, quoted in the finding", STRING, default="")
    severity: str = spec(
        "`error` (EN002 / EN008) or `warning` (EN014)",
        choice(("error", "warning")),
        default="error",
    )


@dataclass(frozen=True)
class NormFlag:
    """Where an engine reads one norm flag and what it assumes when the flag is absent."""

    name: str = spec(
        "the flag (`norm_before_residual`, `norm_before_fc`, `fc_norm`, `norm_output`)",
        STRING,
        required=True,
    )
    read: tuple[str, ...] = spec(
        "dotted config paths read, first present wins", STRINGS, default=()
    )
    default: bool = spec("what the engine assumes when none is present", BOOLEAN, required=True)
    when: tuple[str, ...] = spec(
        "the first entry per flag whose conditions hold is used", CONDITIONS, default=()
    )


@dataclass(frozen=True)
class Runner:
    """Another code path of the engine that reads the aux ids in its own order."""

    name: str = spec("what the code path is (vLLM V2 model runner)", STRING, required=True)
    read: tuple[str, ...] = spec(
        "dotted config paths it reads, first present wins", STRINGS, required=True
    )


@dataclass(frozen=True)
class CaptureEntry:
    """Generated list of target architectures whose class implements aux-state capture."""

    version: str
    source: str
    target_architectures: frozenset[str]
    conventions: dict[str, str] = field(default_factory=dict)


# Tables of a family section: the flat FamilyProfile fields below say which one they live in.
NAMES, CONFIG = "names", "config"


@dataclass(frozen=True)
class FamilyProfile:
    """What one engine version does with one drafter family: the draft classes it registers for
    it (`[families.<name>]`), how its `load_weights` maps names (`[families.<name>.names]`) and
    which config fields it reads (`[families.<name>.config]`). EN checks read these fields,
    plus the engine-level ones through `owner` (label, verified, capture lists)."""

    # [families.<name>]
    draft_architectures: frozenset[str] = spec(
        "`config.architectures[0]` values served for this family (after the engine's rewrite); "
        "empty = not consulted",
        STRINGS,
        default=frozenset(),
    )
    unprofiled_draft_architectures: frozenset[str] = spec(
        "served too, but by a class whose loader is not modelled: name checks are skipped with "
        "an EN012 info",
        STRINGS,
        default=frozenset(),
    )
    architecture_prefix: str = spec(
        "vLLM: names not starting/ending with it get it prepended (`Eagle3`)", STRING, default=""
    )
    speculators_model_type: str = spec(
        "the `speculators_model_type` of this family's speculators-format configs "
        "(`eagle3`, `peagle`, `dflash`, `dflash2`); empty = speculators configs not read",
        STRING,
        default="",
    )
    speculators_architectures: dict[str, str] = spec(
        "for speculators-format configs of this family: `transformer_layer_config.model_type` "
        '-> class (`"*"` = any)',
        STR_MAP,
        default_factory=dict,
    )
    speculators_only: bool = spec(
        "the engine serves only speculators-format configs and never reads `architectures`",
        BOOLEAN,
        default=False,
    )
    notes: tuple[str, ...] = spec(
        "what was read for this family (files, classes, functions)", STRINGS, default=()
    )
    # [families.<name>.names] -- mirrors load_weights
    unknown: str = spec(
        "what happens to a name that lands nowhere: `silent-drop` (EN001), `error` (EN008), "
        "`warn` (EN013)",
        choice(UNKNOWN_POLICIES),
        default="silent-drop",
        table=NAMES,
    )
    missing: str = spec(
        "a required parameter no tensor reached: `random` (EN002) or `error` (EN008)",
        choice(MISSING_POLICIES),
        default="random",
        table=NAMES,
    )
    strip_for_required: tuple[str, ...] = spec(
        "regexes removed from a landed name before it is matched against `required`",
        REGEXES,
        default=(),
        table=NAMES,
    )
    renames: tuple[Rule, ...] = spec(
        "`[[...names.renames]] pattern, replace, when`: `re.sub` applied in order",
        tables(Rule),
        default=(),
        table=NAMES,
    )
    skipped: tuple[str, ...] = spec(
        "regexes the engine consumes without a parameter, harmlessly (`t2d`)",
        REGEXES,
        default=(),
        table=NAMES,
    )
    params: tuple[Rule, ...] = spec(
        "`[[...names.params]] pattern, when`: the renamed name lands on a parameter; named "
        "groups `(?P<layer>\\d+)` / `(?P<aux>\\d+)` must be below the draft's layer / aux count",
        tables(Rule),
        default=(),
        table=NAMES,
    )
    overridden: tuple[Rule, ...] = spec(
        "`[[...names.overridden]] pattern, when, reason`: landed, but replaced by the target's "
        "tensor at runtime (EN009)",
        tables(Rule),
        default=(),
        table=NAMES,
    )
    dropped_when: tuple[Rule, ...] = spec(
        "`[[...names.dropped_when]] pattern, when, reason`: consumed and discarded (EN001)",
        tables(Rule),
        default=(),
        table=NAMES,
    )
    required: tuple[Required, ...] = spec(
        "`[[...names.required]] names, when, reason, severity`: parameters that must be reached",
        tables(Required),
        default=(),
        table=NAMES,
    )
    # [families.<name>.config]
    aux_layer_ids: tuple[str, ...] = spec(
        "dotted config paths the engine reads aux layer ids from, first present wins",
        STRINGS,
        default=(),
        table=CONFIG,
    )
    aux_layer_ids_status: str = spec(
        "`verified`, `unconfirmed` (then only an EN012 info is emitted) or `family-rules` (the "
        "family's own rules check the layer ids, DF101; no EN aux-id checks)",
        choice(("verified", "unconfirmed", "family-rules")),
        default="verified",
        table=CONFIG,
    )
    aux_layer_runners: tuple[Runner, ...] = spec(
        "`[[...config.aux_layer_runners]] name, read`: another code path with a different read "
        "order (vLLM V2 runner)",
        tables(Runner),
        default=(),
        table=CONFIG,
    )
    aux_layer_convention: str = spec(
        "`output-of` (+1), `input-of` (verbatim), `output-of-if-first-is-1`; per-target "
        "overrides come from the capture file",
        choice(CONVENTIONS),
        default="input-of",
        table=CONFIG,
    )
    aux_capture_max: str = spec(
        "highest valid capture index: `N-1` (capture inside the layer loop) or `N`",
        choice(CAPTURE_MAX),
        default="N",
        table=CONFIG,
    )
    aux_default: str = spec(
        "what the engine uses without ids (text)", STRING, default="", table=CONFIG
    )
    reads: tuple[str, ...] = spec(
        "config fields the engine reads (documentation)", STRINGS, default=(), table=CONFIG
    )
    ignored: tuple[ConfigRule, ...] = spec(
        "`[[...config.ignored]] key, when, reason`: fields the engine never reads (EN003 when "
        "present)",
        tables(ConfigRule),
        default=(),
        table=CONFIG,
    )
    rejects: tuple[Reject, ...] = spec(
        "`[[...config.rejects]] when, message`: configs the engine refuses to build (EN008)",
        tables(Reject),
        default=(),
        table=CONFIG,
    )
    fc_aux_count: tuple[str, ...] | None = spec(
        "where this version reads the aux-state count fc is sized by (an int, or a list whose "
        "length counts), first hit wins, else 3; `[]` = always 3; absent = not checked (EN015)",
        OPTIONAL_STRINGS,
        default=None,
        table=CONFIG,
    )
    norm_flags: tuple[NormFlag, ...] = spec(
        "`[[...config.norm_flags]] name, read, default, when`: per flag, the first entry whose "
        "`when` holds says where the engine reads it and what it assumes when absent (EN007)",
        tables(NormFlag),
        default=(),
        table=CONFIG,
    )
    target_capture: str = spec(
        "which generated capture list says whether a target can feed this family: `eagle3` "
        "(`<engine>.capture.toml`: SGLang set_eagle3_layers_to_capture, vLLM SupportsEagle3) "
        "or `unchecked` (the family captures through another hook, e.g. SGLang's "
        "set_dflash_layers_to_capture: EN012 says it was not checked)",
        choice(("eagle3", "unchecked")),
        default="eagle3",
        table=CONFIG,
    )
    target_layer_ids_shift: int | None = spec(
        "what the engine adds to a z-lab `dflash_config.target_layer_ids` (output-of) before "
        "capturing before that layer: 1 is right; 0 (vLLM 0.20 / 0.21's V1 runner) captures "
        "every context state one layer early (EN021); absent = not checked",
        SHIFT,
        default=None,
        table=CONFIG,
    )
    capture_default_count: int | None = spec(
        "how many target states the engine captures when it reads no aux / target layer ids "
        "from `aux_layer_ids` (vLLM: its default EAGLE-3 aux layers, 3); an fc built for "
        "another count then cannot be fed (EN020); absent = not checked",
        COUNT,
        default=None,
        table=CONFIG,
    )
    draft_positions: str = spec(
        "what the engine does when the drafter's `max_position_embeddings` is below the "
        "target's: `draft` (the draft RoPE cache keeps the drafter's size, EN016), `target` "
        "(raised to the target's, EN017), `target-if-cache-only-rope` (raised unless a RoPE "
        "type derives frequencies from it; then the served context is limited, EN016), "
        "`refuse-longer-context` (the server refuses a longer context, EN016); absent = not "
        "checked",
        choice(POSITION_POLICIES),
        default="",
        table=CONFIG,
    )
    positions_source: str = spec(
        "the engine code behind `draft_positions` (file, function, versions)",
        STRING,
        default="",
        table=CONFIG,
    )
    # Set by the loader: the engine-level profile this family section belongs to.
    owner: EngineProfile | None = field(default=None, compare=False, repr=False)
    family: str = field(default="", compare=False)

    def _engine(self) -> EngineProfile:
        if self.owner is None:  # pragma: no cover - the loader always sets it
            raise ProfileError(f"family profile {self.family!r} has no engine profile")
        return self.owner

    @property
    def label(self) -> str:
        return self._engine().label

    @property
    def engine(self) -> str:
        return self._engine().engine

    @property
    def version(self) -> str:
        return self._engine().version

    @property
    def min_version(self) -> Version:
        return self._engine().min_version

    @property
    def max_version(self) -> Version | None:
        return self._engine().max_version

    @property
    def verified(self) -> bool:
        return self._engine().verified

    @property
    def path(self) -> str:
        return self._engine().path

    @property
    def capture(self) -> CaptureEntry | None:
        return self._engine().capture

    @property
    def capture_history(self) -> tuple[CaptureEntry, ...]:
        return self._engine().capture_history

    @property
    def checked_versions(self) -> tuple[str, ...]:
        return self._engine().checked_versions


@dataclass(frozen=True)
class EngineProfile:
    """Everything the EN checks need to know about one engine version range (one file)."""

    engine: str = spec("`sglang`, `vllm`, `trtllm`, `speculators`", STRING, required=True)
    min_version: Version = spec(
        "inclusive lower bound of the version range", VERSION, required=True
    )
    max_version: Version | None = spec(
        "exclusive upper bound; omit for open-ended", VERSION, default=None
    )
    checked_versions: tuple[str, ...] = spec(
        "versions whose code was actually read (the label uses the newest)", STRINGS, required=True
    )
    source: str = spec(
        "files, classes and functions the behaviour was read from", STRING, required=True
    )
    unconfirmed: tuple[str, ...] = spec("what could not be verified", STRINGS, default=())
    verified: bool = spec(
        "`false` marks a profile no engine code backs (no wheel could be read or run): its "
        "findings are capped at warnings",
        BOOLEAN,
        default=True,
    )
    families: dict[str, FamilyProfile] = spec(
        "`[families.<name>]`: one section per drafter family served (fields below); "
        '`[families."<name>:<variant>"]` for a variant with its own loader (`eagle3:mla`)',
        tables(FamilyProfile, keyed=True),
        default_factory=dict,
    )
    # Set by the loader / resolver, not read from the file.
    path: str = field(default="", compare=False)
    version: str = ""
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

    def family_profile(self, name: str, variant: str | None = None) -> FamilyProfile | None:
        """This version's section for drafter family `name`: the `<name>:<variant>` one when
        the variant has its own loader (`eagle3:mla`), else `<name>`; None when not served."""
        key = f"{name}:{variant}" if variant and f"{name}:{variant}" in self.families else name
        found = self.families.get(key)
        return None if found is None else replace(found, owner=self, family=key)
