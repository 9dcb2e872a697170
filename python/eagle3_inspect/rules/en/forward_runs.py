"""What the forward harness (tools/engine_truth/forward/, issue 25) measured about aux states:
per engine version whose own target-model capture was run, and per config format, whether the
states it feeds are the ones that format's producers trained on; and per norm flag value, whether
the draft forward computes as trained with it (`forward_runs.toml`, generated from the committed
forward, capture and single-change truth). The aux-id and norm-flag rules consult it before
guessing."""

from __future__ import annotations

import functools
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised only on Python 3.10
    import tomli as tomllib

from eagle3_inspect.rules.en.versions import parse_version


@dataclass(frozen=True)
class AuxRun:
    """One measured case: `as-trained` or `one-layer-off` on every target class of `targets`
    (the table holds a case only when all its drafters agree), over these corpus drafters."""

    verdict: str
    targets: tuple[str, ...]
    drafters: tuple[str, ...]
    top1_on_trained_inputs: str
    capture: tuple[str, ...]

    def evidence(self, label: str) -> str:
        """One line naming the runs, for a finding's message."""
        return (
            f"{label}'s own target capture (tools/engine_truth/capture_truth.json "
            f"{', '.join(self.capture)}) over corpus drafters {', '.join(self.drafters)}; "
            f"on the trained aux states its draft forward agrees top-1 "
            f"{self.top1_on_trained_inputs} (forward_truth.json)"
        )


@functools.lru_cache(maxsize=1)
def _text() -> str:
    return (
        resources.files("eagle3_inspect.rules.en")
        .joinpath("forward_runs.toml")
        .read_text(encoding="utf-8")
    )


@functools.lru_cache(maxsize=1)
def _data() -> dict[str, Any]:
    return dict(tomllib.loads(_text()))


def _runs() -> dict[str, Any]:
    return dict(_data().get("runs", {}))


def config_format(config: Mapping[str, Any]) -> str:
    """`speculators` (a speculators_config: trained on vLLM's capture by speculators' datagen)
    or `hf` (SGLang / SpecForge / Model-Optimizer layout)."""
    return "speculators" if "speculators_config" in config else "hf"


def producer_default_ids(config: Mapping[str, Any], num_layers: int) -> list[int]:
    """The aux ids this config format's producers train on when given none, for a target of
    `num_layers` layers: SpecForge `algorithms/model_providers.py resolve_eagle_capture_layers`
    and Model-Optimizer [1, N//2-1, N-4] (output-of: stream[2, N//2, N-3]); speculators
    `models/utils.py resolve_target_layer_ids` [2, N//2, N-3] (input-of, the same stream)."""
    if config_format(config) == "speculators":
        return [2, num_layers // 2, num_layers - 3]
    return [1, num_layers // 2 - 1, num_layers - 4]


def aux_run(
    label: str,
    config: Mapping[str, Any],
    key: str | None,
    target_architecture: str | None,
    case: str = "default",
) -> AuxRun | None:
    """The measured case for this engine version, this config's format and the location the
    engine read ids from (`key`; None: it found none, then `case`: `default` for no ids key,
    `null` for ids stated null), when it covers `target_architecture`; None when no run covers
    it (no target class known, another target class, version, format, an `hf` config with ids
    outside `eagle_config`, which no corpus producer writes, or, for `null`, a writer version
    the runs did not cover: what a release trains on without ids is its own default)."""
    if target_architecture is None:  # no --target: measured_aux_run says what the runs showed
        return None
    run = measured_aux_run(label, config, key, case)
    if run is None or target_architecture not in run.targets:
        return None
    return run


def measured_aux_run(
    label: str, config: Mapping[str, Any], key: str | None, case: str = "default"
) -> AuxRun | None:
    """The measured case for this engine version, this config's format and id location (`case`
    as for `aux_run`), on whichever target classes were run (`AuxRun.targets`); None when no run
    covers it (another version, format, an `hf` config with ids outside `eagle_config`, a
    writer version no `null` run covers, or target classes whose runs disagree: the table then
    holds no case)."""
    fmt = run_format(config)
    if key is not None and fmt == "hf" and not key.startswith("eagle_config."):
        return None
    item = _runs().get(label, {}).get(fmt, {}).get("ids" if key is not None else case)
    if item is None:
        return None
    if "writers" in item and str(config.get("speculators_version")) not in item["writers"]:
        return None  # ids stated null by a release whose default layers no run measured
    return AuxRun(
        str(item["verdict"]),
        tuple(str(t) for t in item["targets"]),
        tuple(item["drafters"]),
        str(item["top1_on_trained_inputs"]),
        tuple(item["capture"]),
    )


@dataclass(frozen=True)
class FlagRun:
    """What the runs measured for one norm flag value on one engine version and config format:
    `differs` (a single-change re-run showed this value is what makes the draft compute
    something else) or `as-trained` (drafters with this value agree on every draft token)."""

    verdict: str
    drafters: tuple[str, ...]
    top1: tuple[str, ...]
    engine_code: tuple[str, ...]

    def evidence(self, label: str) -> str:
        """One line naming the runs, for a finding's message."""
        code = f"{label} {'; '.join(self.engine_code)}: " if self.engine_code else ""
        return f"{code}measured top-1 agreement {'; '.join(self.top1)}"


# The draft family the forward runs cover: the Llama EAGLE-3 draft (llama_eagle3.py).
RUN_FAMILY = "eagle3"
# Norm flags one producer's export writes and no engine reads, measured like the shared ones:
# Model-Optimizer's eagle_config.use_input_layernorm_in_first_layer (its first layer applies
# input_layernorm to the hidden states before hidden_norm; the engines apply hidden_norm alone).
PRODUCER_NORM_FLAGS = ("use_input_layernorm_in_first_layer",)


# Fields only speculators writes: an hf-layout config carrying one was converted from a
# speculators drafter (fix does that), whose norm flags mean what speculators means by them.
SPECULATORS_FIELDS = ("embed_requires_grad", "speculators_version", "speculators_model_type")


def run_format(config: Mapping[str, Any]) -> str:
    """The format the run tables are keyed by: `speculators`, `hf-from-speculators` (the hf
    layout with speculators' own fields, as fix converts a speculators drafter: no run covers
    it, its flags and ids mean what speculators means) or `hf` (SpecForge / Model-Optimizer)."""
    if "speculators_config" in config:
        return "speculators"
    return "hf-from-speculators" if any(f in config for f in SPECULATORS_FIELDS) else "hf"


def flag_value(config: Mapping[str, Any], flag: str) -> str:
    """The flag as the config states it (top level, else eagle_config): "true", "false" or
    "unset", the keys of forward_runs.toml's [flags] tables."""
    nested = config.get("eagle_config")
    for where in (config, nested if isinstance(nested, Mapping) else {}):
        if flag in where:
            return "true" if where[flag] else "false"
    return "unset"


def flag_run(label: str, family: str, config: Mapping[str, Any], flag: str) -> FlagRun | None:
    """The measured case for `flag` as this config states it on engine version `label`; None
    when no run covers it (another draft family, version, format or value)."""
    if family != RUN_FAMILY:
        return None
    flags = dict(_data().get("flags", {}))
    item = (
        flags.get(label, {}).get(run_format(config), {}).get(flag, {}).get(flag_value(config, flag))
    )
    if item is None:
        return None
    return FlagRun(
        str(item["verdict"]),
        tuple(item["drafters"]),
        tuple(item["top1"]),
        tuple(item.get("engine_code", ())),
    )


def as_trained_versions(
    engine: str, family: str, config: Mapping[str, Any], flag: str
) -> list[str]:
    """The run versions of `engine` (labels, oldest first) measured computing `flag` as this
    config states it as trained."""
    labels = [label for label in _data().get("flags", {}) if label.startswith(f"{engine}@")]
    found = [
        label
        for label in labels
        if (run := flag_run(label, family, config, flag)) is not None
        and run.verdict == "as-trained"
    ]
    return sorted(found, key=lambda label: parse_version(label.split("@", 1)[1]))
