"""The demo's checkpoints: a correct EAGLE-3 drafter and one with the seed's
three bugs (layers.0.* keys for a midlayer.* engine, d2t holding absolute target ids, fc sized for
one aux layer instead of three), plus a small multimodal target config; `cli/demo.py` runs the
commands on them. Needs neither torch nor ml_dtypes."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eagle3_inspect.synthetic.drafters import (
    build_drafter,
    mutate_d2t_absolute,
    mutate_fc_single_aux,
    mutate_layer_keys,
)
from eagle3_inspect.synthetic.targets import target_config, write_target

# Small, Kimi-K2.5-shaped in spirit: the target is multimodal and its text model has 61 layers.
DIMS: dict[str, Any] = {
    "H": 128,
    "Vd": 512,
    "Vt": 4096,
    "heads": 4,
    "kv_heads": 2,
    "I": 256,
    "target_layers": 61,
}
# The engine the seed's team served with: SGLang before 0.5.12 names its layer `midlayer`.
ENGINE = "sglang@0.5.11"
# SGLang 0.5.9 has KimiK25ForConditionalGeneration but cannot capture its aux hidden states.
CAPTURE_ENGINE = "sglang@0.5.9"
TARGET_ARCH = "KimiK25ForConditionalGeneration"
# The seed's three checkpoint bugs and the codes that name them.
SEED_BUGS = (
    ("layers.0.* keys where SGLang <= 0.5.11 wants midlayer.*", {"EN001", "EN002"}),
    ("d2t holding absolute target ids instead of offsets", {"VM006"}),
    ("fc sized for one aux hidden state instead of three", {"E3009"}),
)


@dataclass(frozen=True)
class DemoFiles:
    """Where the demo wrote its checkpoints."""

    root: Path
    correct: Path
    broken: Path
    target: Path
    # The two format bugs only (layers.0.* keys, absolute d2t): what `fix` can repair. The fc
    # width bug is a training bug; fix refuses it (E3009) rather than guess the aux layer.
    mislabelled: Path


def demo_target_config() -> dict[str, Any]:
    """The demo target's config.json: a multimodal target sized like the demo drafters."""
    return target_config(
        hidden_size=DIMS["H"],
        vocab_size=DIMS["Vt"],
        num_hidden_layers=DIMS["target_layers"],
        architecture=TARGET_ARCH,
        multimodal=True,
    )


def write_demo(out: str | os.PathLike[str]) -> DemoFiles:
    """Writes the drafter pair and the target into `out` (created; existing demo files replaced)."""
    root = Path(out)
    correct = build_drafter(dialect="midlayer", config_style="sglang", **DIMS)
    mislabelled = mutate_d2t_absolute(mutate_layer_keys(correct, to="layers"))
    broken = mutate_fc_single_aux(mislabelled)
    config = demo_target_config()
    return DemoFiles(
        root=root,
        correct=correct.write(root / "drafter-correct"),
        broken=broken.write(root / "drafter-broken"),
        target=write_target(root / "target-kimi-k25", config),
        mislabelled=mislabelled.write(root / "drafter-mislabelled"),
    )
