"""Engine profiles: what SGLang, vLLM, TensorRT-LLM or speculators would silently do with a drafter.

`resolve_engines("sglang@0.5.9")` picks profiles (data files in `eagle3_inspect/profiles/`);
the `check_*` functions turn a checkpoint's tensor names and config into EN findings.
"""

from __future__ import annotations

from eagle3_inspect.engines.aux import check_aux_layer_ids
from eagle3_inspect.engines.capture import check_target_capture
from eagle3_inspect.engines.checks import check_all, check_engine
from eagle3_inspect.engines.profile import EngineProfile, ProfileError
from eagle3_inspect.engines.registry import engines, load_profiles, resolve_engines

__all__ = [
    "EngineProfile",
    "ProfileError",
    "check_all",
    "check_aux_layer_ids",
    "check_engine",
    "check_target_capture",
    "engines",
    "load_profiles",
    "resolve_engines",
]
