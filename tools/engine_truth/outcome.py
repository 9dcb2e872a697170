"""One drafter x engine-version record: the verdict and what the loader did with each tensor and
parameter, collected from the load log after the engine's own code ran."""

from __future__ import annotations

import traceback

import stub_layers as L
from torch import nn

# Shards a stacked parameter needs before it counts as loaded (None = loaded whole).
_STACKED = {"qkv_proj": {"q", "k", "v"}, "gate_up_proj": {0, 1}, "fused_qkv_a_proj": {0, 1}}


def unloaded_params(model: nn.Module, log: L.LoadLog) -> list[str]:
    """Parameters no checkpoint tensor was written into (fully), i.e. left at init."""
    missing = []
    for name, param in model.named_parameters():
        shards = log.loaded.get(id(param), set())
        if None in shards:
            continue
        need = next((s for k, s in _STACKED.items() if f".{k}." in f".{name}"), None)
        if need is not None and need <= shards:
            continue
        if not shards:
            missing.append(name)
        else:
            missing.append(f"{name} (shards loaded: {sorted(map(str, shards))})")
    return missing


def dropped_tensors(tensors: dict, log: L.LoadLog) -> list[str]:
    """Checkpoint tensors that never reached any parameter's loader."""
    return sorted(n for n, t in tensors.items() if id(t) not in log.source_ids)


def error_record(stage: str, exc: BaseException, decided_by: str) -> dict:
    """What to record when the engine's code raised: the exception and where it came from."""
    frames = traceback.extract_tb(exc.__traceback__)
    engine_frames = [
        f"{f.filename}:{f.lineno} {f.name}" for f in frames if f.filename.startswith("<wheel>")
    ]
    return {
        "stage": stage,
        "exception": f"{type(exc).__name__}: {exc}"[:500],
        "raised_at": engine_frames[-1]
        if engine_frames
        else f"{frames[-1].filename}:{frames[-1].lineno} {frames[-1].name}",
        "decided_by": decided_by,
    }


def load_error(model: nn.Module, tensors: dict, record: dict, decided_by: str) -> dict | None:
    """Runs the engine's own `load_weights` over every drafter tensor: the LOAD-ERROR record if
    it raised, else None."""
    try:
        model.load_weights(iter(list(tensors.items())))
    except Exception as exc:
        return record | {
            "verdict": "LOAD-ERROR",
            "why": error_record("load_weights", exc, decided_by),
        }
    return None
