"""The draft config object the engines build from config.json: transformers' own
`AutoConfig.from_pretrained(<drafter dir>)` (what both engines call), offline, so defaults,
unknown model types and missing attributes behave as in the engines."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from transformers import PretrainedConfig

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def build_config(path: Path) -> PretrainedConfig:
    """transformers' config for the drafter directory `path` (raises as AutoConfig does)."""
    from transformers import AutoConfig  # lazily: only the engine drivers need transformers

    return AutoConfig.from_pretrained(str(path))
