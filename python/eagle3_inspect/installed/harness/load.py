"""The load harness's one entry point: `run_load` judges one drafter directory with one engine's
own config and load code (`source`: a wheel, or the engine installed in this Python) and returns
the per-result record tools/engine_truth/run.py writes into engine_truth.json (after `scrub`).
run.py, refresh_profile.py and the installed-engine worker all load through it."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

from . import sglang_families, stub_imports, vllm_families
from .drafter import DrafterFiles, read_drafter
from .sources import EngineSource

# Each engine's driver: the family dispatchers, which keep the original Llama EAGLE-3 drivers
# (sglang_truth, vllm_truth) for the drafters those model (issue 19).
DRIVERS: dict[str, Callable[[DrafterFiles, EngineSource, str], dict[str, Any]]] = {
    "sglang": sglang_families.run,
    "vllm": vllm_families.run,
}


def run_load(
    drafter_dir: Path, source: EngineSource, tensors: dict[str, torch.Tensor] | None = None
) -> dict[str, Any]:
    """The engine's record for the drafter in `drafter_dir`: its config.json and every
    *.safetensors file there, or, with `tensors`, that config with these stand-in tensors
    instead of the files. The engine is `source.engine` (sglang or vllm) at `source.version`;
    the stub imports are installed first (idempotent). Machine paths are scrubbed from the
    record (`scrub`)."""
    driver = DRIVERS.get(source.engine)
    if driver is None:
        raise ValueError(f"no load driver for engine {source.engine!r} (known: {sorted(DRIVERS)})")
    stub_imports.install()
    if tensors is None:
        drafter = read_drafter(drafter_dir)
    else:
        config = json.loads((drafter_dir / "config.json").read_text())
        drafter = DrafterFiles(drafter_dir.name, drafter_dir, config, dict(tensors))
    return scrub(driver(drafter, source, source.version), drafter_dir)


def scrub(result: dict[str, Any], drafter_dir: Path) -> dict[str, Any]:
    """The result with machine-specific paths replaced: the drafter's directory by <drafter>,
    site-packages prefixes dropped (so the committed JSON does not depend on this machine)."""
    text = json.dumps(result, default=str).replace(str(drafter_dir), "<drafter>")
    text = re.sub(r"/[^\"' ]*?/site-packages/", "", text)
    text = re.sub(r" at 0x[0-9a-f]+>", ">", text)  # function reprs in engine messages
    scrubbed: dict[str, Any] = json.loads(text)
    return scrubbed
