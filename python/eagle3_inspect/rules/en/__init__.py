"""Engine profiles: what SGLang, vLLM, TensorRT-LLM or speculators would silently do with a drafter.

`resolve_engines("sglang@0.5.9")` picks profiles (data files in `profiles/`; codes in
`codes.toml`); the `check_*` functions turn a checkpoint's tensor names and config into EN findings.
"""

from __future__ import annotations

from eagle3_inspect.rules.en.aux import check_aux_layer_ids
from eagle3_inspect.rules.en.capture import check_target_capture
from eagle3_inspect.rules.en.checks import check_all, check_engine
from eagle3_inspect.rules.en.loader import engines, load_profiles, resolve_engines
from eagle3_inspect.rules.en.profile import EngineProfile, FamilyProfile, ProfileError

__all__ = [
    "EngineProfile",
    "FamilyProfile",
    "ProfileError",
    "check_all",
    "check_aux_layer_ids",
    "check_engine",
    "check_target_capture",
    "engines",
    "load_profiles",
    "resolve_engines",
]
