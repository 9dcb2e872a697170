"""Writes the project's own drafters for the ground-truth run (run in the project's venv): the
`eagle3-inspect demo` pair (correct midlayer drafter and the seed's broken one) plus a few
single-variable variants from `eagle3_inspect.synthetic.drafters.build_drafter`, one directory each.

Usage: python tools/engine_truth/write_synthetic.py OUT_DIR
"""

from __future__ import annotations

import sys
from pathlib import Path

from eagle3_inspect.synthetic.demo import write_demo
from eagle3_inspect.synthetic.drafters import build_drafter

VARIANTS = {
    "sglang-midlayer": {},
    "sglang-layers": {"dialect": "layers"},
    "speculators-layers": {"dialect": "layers", "config_style": "speculators"},
    "eagle-midlayer": {"config_style": "eagle"},
    "sglang-2layer": {"dialect": "layers", "layers": 2},
    "sglang-aux4": {"K": 4, "aux_layer_ids": [1, 8, 16, 28]},
    "sglang-fc-norm": {"dialect": "layers", "eagle31": "fc_norm"},
    "sglang-input-norm": {"dialect": "layers", "eagle31": "input_norm"},
    "speculators-qwen3": {"dialect": "layers", "config_style": "speculators", "qwen3_norms": True},
}


def main(out: Path) -> None:
    """Writes demo/ and synthetic/<variant>/ under `out`."""
    write_demo(out / "demo")
    for name, kwargs in VARIANTS.items():
        build_drafter(**kwargs).write(out / "synthetic" / name)
    print(f"wrote demo and {len(VARIANTS)} variants under {out}")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
