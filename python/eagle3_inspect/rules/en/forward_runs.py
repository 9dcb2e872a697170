"""What the forward harness (tools/engine_truth/forward/, issue 25) measured about aux states:
per engine version whose own target-model capture was run, and per config format, whether the
states it feeds are the ones that format's producers trained on (`forward_runs.toml`, generated
from the committed forward and capture truth). The aux-id rules consult it before guessing."""

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

# The target class the capture runs used (tests/corpus/verifiers/llama-8l).
RUN_TARGET = "LlamaForCausalLM"


@dataclass(frozen=True)
class AuxRun:
    """One measured case: `as-trained` or `one-layer-off`, over these corpus drafters."""

    verdict: str
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
def _runs() -> dict[str, Any]:
    text = (
        resources.files("eagle3_inspect.rules.en")
        .joinpath("forward_runs.toml")
        .read_text(encoding="utf-8")
    )
    return dict(tomllib.loads(text).get("runs", {}))


def config_format(config: Mapping[str, Any]) -> str:
    """`speculators` (a speculators_config: trained on vLLM's capture by speculators' datagen)
    or `hf` (SGLang / SpecForge / Model-Optimizer layout)."""
    return "speculators" if "speculators_config" in config else "hf"


def aux_run(
    label: str, config: Mapping[str, Any], key: str | None, target_architecture: str | None
) -> AuxRun | None:
    """The measured case for this engine version, this config's format and the location the
    engine read ids from (`key`; None: it found none); None when no run covers it (another
    target class, version, format, or an `hf` config with ids outside `eagle_config`, which no
    corpus producer writes)."""
    if target_architecture != RUN_TARGET:  # unknown (no --target) or another class: not run
        return None
    fmt = config_format(config)
    if key is not None and fmt == "hf" and not key.startswith("eagle_config."):
        return None
    item = _runs().get(label, {}).get(fmt, {}).get("ids" if key is not None else "default")
    if item is None:
        return None
    return AuxRun(
        str(item["verdict"]),
        tuple(item["drafters"]),
        str(item["top1_on_trained_inputs"]),
        tuple(item["capture"]),
    )
