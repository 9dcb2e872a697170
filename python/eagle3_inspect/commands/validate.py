"""`validate`: every check for a drafter in one report.

ST/IX (file and index structure) + the drafter family's rules (FM: which family it is; E3
EAGLE-3, PE P-EAGLE, DF DFlash / DFlash2) + VM (d2t/t2d) + NUM (values, from one statistics
pass) + target cross-checks (`target=`: the family's and TG position / RoPE) + EN (engine
profiles for that family, `engine=`).

What one root cause explains is folded into it (`rules/follow_on.py`: a config.json that does not
parse, an fc built for another aux count; `rules/en/fold.py`: an engine's refusal, a key-dialect
rename). A target model given as the drafter is refused (exit 2), as a drafter given as
`--target` is.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from itertools import compress
from operator import attrgetter
from typing import Any

from eagle3_inspect.commands.report import ClusterSections, FindingsVerdict
from eagle3_inspect.commands.tensor_filter import require_match
from eagle3_inspect.errors import InvalidArgumentError
from eagle3_inspect.findings import (
    RANK_OF_VALUE,
    Finding,
    Severity,
    count_by_severity,
)
from eagle3_inspect.installed.findings import installed_findings
from eagle3_inspect.installed.probe import InstalledEngine
from eagle3_inspect.installed.verdict import InstalledVerdict
from eagle3_inspect.layout import Layout, detect_layout
from eagle3_inspect.reader.bulk import paused_gc
from eagle3_inspect.reader.checkpoint import Checkpoint
from eagle3_inspect.reader.draft_config import read_draft_config
from eagle3_inspect.reader.dtypes import FLOAT_DTYPES
from eagle3_inspect.reader.opening import PathMap, RayOption, connect, open_checkpoint
from eagle3_inspect.reader.records_json import findings_json
from eagle3_inspect.reader.remote import remote_section, traffic_of
from eagle3_inspect.reader.stats import ProgressCallback, TensorStats
from eagle3_inspect.reader.stats_map import StatsByName
from eagle3_inspect.reader.target import TargetInfo, load_target
from eagle3_inspect.reader.vocab import VocabMapping
from eagle3_inspect.rules.en.profile import EngineProfile
from eagle3_inspect.rules.family.check import (
    check_family,
    check_family_target,
    soften_zero_init,
)
from eagle3_inspect.rules.family.detect import detect_family
from eagle3_inspect.rules.family.model import Family
from eagle3_inspect.rules.family.names import TARGET
from eagle3_inspect.rules.follow_on import fold_follow_ons
from eagle3_inspect.rules.num import check_numbers
from eagle3_inspect.version import PRODUCER

SCHEMA = "eagle3-inspect/validate/1"
# E3033 is the version-less "layers.N keys under an SGLang config" warning, TG001 the
# version-less "shorter position range" one; with an engine profile the EN rules give the exact
# per-version verdict instead.
SUPERSEDED_BY_ENGINES = {"E3033", "TG001"}


@dataclass
class ValidateReport(FindingsVerdict):
    """The result of `validate`; `.to_dict()` is the `--json` form."""

    path: str
    layout: Layout
    findings: list[Finding]
    family: Family = field(default_factory=lambda: Family(name="unknown"))
    engines: list[str] = field(default_factory=list)
    target: TargetInfo | None = None
    vocab: VocabMapping | None = None
    fail_on: Severity = Severity.ERROR
    checkpoint: Checkpoint | None = field(default=None, repr=False)
    # `filter=`: the glob the reported tensor findings match (None: every tensor).
    filter: str | None = None
    # With `ray=`: the nodes used, bytes read and time per node (the only field a local run lacks).
    cluster: dict[str, Any] | None = None
    # With `engine="NAME@installed"`: what the installed engine's own code did.
    installed: list[InstalledVerdict] = field(default_factory=list)

    @property
    def summary(self) -> dict[str, int]:
        return count_by_severity(self.findings)

    def _repr_html_(self) -> str:
        """The notebook view: the HTML report's body (the d2t plot when matplotlib is there)."""
        from eagle3_inspect.html.page import fragment
        from eagle3_inspect.html.plots import plots_available
        from eagle3_inspect.html.views.validate import validate_view

        return fragment(validate_view(self, plots=plots_available()))

    def to_dict(self, *, stream: bool = False) -> dict[str, Any]:
        """The `--json` document. With `stream`, `findings` is a one-pass iterator of its records
        as JSON text (`EncodedRecords`, for the CLI's streaming writer: a million findings never
        held as dicts at once)."""
        layout = self.layout.to_dict()
        findings = findings_json(self.findings, stream=stream)
        doc = {
            "schema": SCHEMA,
            "producer": PRODUCER,
            "path": self.path,
            "ok": self.ok,
            "fail_on": self.fail_on.value,
            "engines": self.engines,
            "target": None if self.target is None else self.target.path,
            "family": self.family.to_dict(),
            "layout": layout,
            "vocab": None if self.vocab is None else self.vocab.to_dict(),
            "findings": findings,
            "summary": self.summary,
            **self.remote(),
        }
        if self.filter is not None:
            doc["filter"] = self.filter
        if self.cluster is not None:
            doc["cluster"] = self.cluster
        if self.installed:
            doc["installed"] = [v.to_dict() for v in self.installed]
        return doc

    def remote(self) -> dict[str, Any]:
        """`{"remote": {...}}` over the drafter and the target when either is remote, else {}."""
        target = None if self.target is None else self.target.remote
        section = remote_section([traffic_of(self.checkpoint), target])
        return {} if section is None else {"remote": section}

    def cluster_sections(self) -> ClusterSections:
        return [] if self.cluster is None else [(None, self.cluster)]


def _locate(findings: list[Finding], ckpt: Checkpoint) -> list[Finding]:
    """Every finding points at the file it is about: a tensor's its shard, a config key's
    config.json (an engine's parameter no tensor holds stays on the checkpoint)."""
    config_path, tensors = ckpt.config_path, ckpt.tensors
    out = []
    for f in findings:
        if f.file is None:
            info = tensors.get(f.tensor) if f.tensor else None
            if info is not None:
                f = replace(f, file=info.file)
            elif f.config_key and config_path:
                f = replace(f, file=config_path)
        out.append(f)
    return out


def _matching(findings: list[Finding], pattern: str | None) -> list[Finding]:
    """With `filter=`, the findings about a matching tensor and those about no tensor."""
    if pattern is None:
        return findings
    return [f for f in findings if f.tensor is None or fnmatch.fnmatchcase(f.tensor, pattern)]


def _float_names(ckpt: Checkpoint) -> list[str]:
    """The readable float tensors' names, in name order (read a column at a time at C speed:
    a million-tensor header)."""
    infos = ckpt.tensors.values()
    floats = map(FLOAT_DTYPES.__contains__, map(attrgetter("dtype"), infos))
    names = list(compress(ckpt.tensors, floats))
    if ckpt.unreadable:
        names = [n for n in names if n not in ckpt.unreadable]
    return names


def _statistics(
    ckpt: Checkpoint,
    names: list[str],
    given: bool | Mapping[str, TensorStats],
    threads: int | None,
    progress: ProgressCallback | None,
) -> Mapping[str, TensorStats]:
    """Statistics of `names`: from a pass, or from `given` with a pass over those it lacks."""
    if not isinstance(given, Mapping):
        return ckpt.stats(names, threads=threads, progress=progress)
    lacking = [n for n in names if n not in given]
    read = dict(ckpt.stats(lacking, threads=threads, progress=progress)) if lacking else {}
    return StatsByName.of({n: given[n] for n in names if n in given} | read)


def _matching_names(ckpt: Checkpoint, pattern: str) -> list[str]:
    return [n for n in ckpt.tensors if fnmatch.fnmatchcase(n, pattern)]


def _order(findings: list[Finding]) -> list[Finding]:
    rank = RANK_OF_VALUE  # `severity.rank` is a property: a sort key per finding of a large report
    return sorted(
        findings,
        key=lambda f: (-rank[f.severity._value_], f.code, f.tensor or "", f.engine or ""),
    )


def validate(
    path: str | os.PathLike[str] | Checkpoint,
    *,
    engine: str | None = None,
    target: str | os.PathLike[str] | None = None,
    stats: bool | Mapping[str, TensorStats] = True,
    fail_on: str | Severity = Severity.ERROR,
    threads: int | None = None,
    progress: ProgressCallback | None = None,
    ray: RayOption | None = None,
    ray_path_map: PathMap = None,
    filter: str | None = None,
) -> ValidateReport:
    """Validates the drafter at `path`. `engine` is "sglang", "vllm@0.20", "all", ...;
    `target` a target model directory, config.json or index, or an `hf://` / `http(s)://` path
    (headers and config only). `path` may be remote too (see `reader/remote`). With `ray` the
    drafter's and the target's files are read on the Ray nodes that hold them.

    `stats`: True runs the statistics pass for the NUM rules, False skips them; a mapping of
    statistics already taken of these very files (`fix` passes those of the bytes it read back
    while writing them) is used instead of a pass, which then reads only tensors it lacks.

    `filter`: a glob on tensor names; only findings about matching tensors (and those about no
    tensor: config, files) are reported, and the statistics pass reads only those tensors. A
    glob matching no tensor is InvalidArgumentError, as for scan and diff. A target model given
    as `path` is InvalidArgumentError too: validate checks a drafter."""
    with paused_gc():  # a finding per tensor of a large header: see reader/bulk.py
        session = None if ray is None else connect(ray, ray_path_map)
        ckpt = open_checkpoint(path, ray=session, ray_path_map=ray_path_map)
        target_info: str | os.PathLike[str] | TargetInfo | None = target
        if session is not None and target is not None:
            from eagle3_inspect.cluster.target import load_target_on_cluster

            target_info = load_target_on_cluster(target, session)
        if filter is not None:
            require_match(filter, len(_matching_names(ckpt, filter)), ckpt.path)
        report = _validate(ckpt, engine, target_info, stats, fail_on, threads, progress, filter)
        report.cluster = ckpt.cluster_summary()
        return report


def _validate(
    ckpt: Checkpoint,
    engine: str | None,
    target: str | os.PathLike[str] | TargetInfo | None,
    stats: bool | Mapping[str, TensorStats],
    fail_on: str | Severity,
    threads: int | None,
    progress: ProgressCallback | None,
    pattern: str | None = None,
) -> ValidateReport:
    profiles: list[EngineProfile] = []
    installed: list[tuple[InstalledEngine, EngineProfile]] = []
    if engine is not None:
        # Engine profiles (TOML data) are loaded only when asked for: a faster plain validate.
        from eagle3_inspect.installed.spec import installed_engines, split_spec
        from eagle3_inspect.rules.en import check_all, resolve_engines

        rest, installed_names = split_spec(engine)
        installed = installed_engines(installed_names)
        # An empty spec is resolve_engines' error; `NAME@installed` alone needs no other part.
        profiles = resolve_engines(rest) if rest or not installed_names else []
        labels = {p.label for p in profiles}
        profiles += [p for _, p in installed if p.label not in labels]
    target_info = (
        target if isinstance(target, TargetInfo) or target is None else load_target(target)
    )
    layout = detect_layout(ckpt.tensors, ckpt.config)
    draft_config = read_draft_config(ckpt.config)
    family = detect_family(ckpt.tensors, draft_config, layout)
    if family.name == TARGET:
        raise InvalidArgumentError(
            f"{ckpt.path}: this is a target model, not a drafter ({'; '.join(family.evidence)}); "
            "validate checks a drafter: give this model as --target"
        )
    findings = list(ckpt.findings)
    findings += check_family(family, ckpt.tensors, draft_config, layout)
    vocab = ckpt.vocab_mapping(
        target_vocab=(
            target_info.vocab_size if target_info and not draft_config.vocab_size else None
        )
    )
    findings += vocab.findings
    if target_info is not None:
        findings += check_family_target(family, layout, draft_config, target_info)
    if family.is_drafter:
        for profile in profiles:
            findings += check_all(
                profile, ckpt.tensors, ckpt.config, target_info, family.name, family.variant
            )
    verdicts = _judge_installed(installed, ckpt) if family.is_drafter else []
    for verdict in verdicts:
        findings += installed_findings(verdict, ckpt.config or {}, ckpt.tensors)
    if profiles:
        findings = [f for f in findings if f.code not in SUPERSEDED_BY_ENGINES]
    if stats is not False:
        names = _float_names(ckpt)
        if pattern is not None:
            names = [n for n in names if fnmatch.fnmatchcase(n, pattern)]
        before = len(ckpt.findings)
        findings += soften_zero_init(
            family,
            check_numbers(ckpt.tensors, _statistics(ckpt, names, stats, threads, progress)),
        )
        findings += ckpt.findings[before:]  # met by the data pass (IX011, or IX001 on a cluster)
    return ValidateReport(
        path=ckpt.path,
        layout=layout,
        findings=_order(
            _matching(fold_follow_ons(_locate(findings, ckpt), ckpt.config_path), pattern)
        ),
        family=family,
        engines=[p.label for p in profiles] if profiles else [],
        target=target_info,
        vocab=vocab,
        fail_on=Severity(fail_on),
        checkpoint=ckpt,
        filter=pattern,
        installed=verdicts,
    )


def _judge_installed(
    installed: list[tuple[InstalledEngine, EngineProfile]], ckpt: Checkpoint
) -> list[InstalledVerdict]:
    """Each installed engine's own verdict on the drafter (a worker subprocess each); none on a
    partial tensor set (a shard that does not parse, a tensor whose bytes are not there): the
    engine would be judged on tensors the checkpoint does not hold, and the file findings come
    first."""
    if not installed:
        return []
    from eagle3_inspect.installed.judge import judge
    from eagle3_inspect.installed.verdict import not_run

    broken = sorted(
        {
            f.code
            for f in ckpt.findings
            if f.code.startswith(("ST", "IX")) and f.severity is Severity.ERROR
        }
    )
    if broken or ckpt.unreadable:
        what = ", ".join(broken) or f"{len(ckpt.unreadable)} unreadable tensor(s)"
        reason = f"not run on a partial checkpoint ({what}): fix its files first"
        return [not_run(engine, 1, reason, profile.label) for engine, profile in installed]
    return [
        judge(engine, ckpt.config or {}, ckpt.tensors, profile=profile.label)
        for engine, profile in installed
    ]
