"""vLLM's own weight-copy helpers that its `default_weight_loader` calls (0.34:
`model_executor/utils.py` `copy_weight_`, "`dst.copy_(src)` off integrated GPUs", and the
`_is_integrated_gpu` test it makes), cut from the same source and exec'd unchanged, so the
loader runs unchanged; and that loader, logged, as the load-truth drivers install it."""

from __future__ import annotations

import functools
from typing import Any

import torch

from . import stub_layers
from .sources import EngineSource, cut

UTILS = "vllm/model_executor/utils.py"
WEIGHT_UTILS = "vllm/model_executor/model_loader/weight_utils.py"
# In dependency order: copy_weight_ calls _is_integrated_gpu.
HELPERS = ("_is_integrated_gpu", "copy_weight_")


def copy_weight_namespace(source: EngineSource) -> dict[str, Any]:
    """The helpers as names for the loader's namespace; empty for a version without
    `copy_weight_` (<= 0.33)."""
    text = source.read(UTILS) if source.has(UTILS) else ""
    parts = [cut(text, name) for name in HELPERS] if text else [None]
    if parts[-1] is None:
        return {}
    # current_platform is consulted only for a CUDA destination (`device.type == "cuda" and
    # ...`); every tensor here is on CPU, so None is never read.
    namespace: dict[str, Any] = {"torch": torch, "functools": functools, "current_platform": None}
    exec("\n\n".join(part for part in parts if part is not None), namespace)
    return {name: namespace[name] for name in HELPERS if name in namespace}


def logged_default_loader(source: EngineSource) -> object:
    """vLLM's own `default_weight_loader` from `source`, with the helpers it calls, logged
    (`stub_layers.logged_default_loader`)."""
    loader = cut(source.read(WEIGHT_UTILS), "default_weight_loader")
    return stub_layers.logged_default_loader(loader, copy_weight_namespace(source))
