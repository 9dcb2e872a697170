"""One drafter x engine-version load record: the verdict and what the loader did with every
tensor and parameter, read from the load log after the engine's own `load_weights` ran."""

from __future__ import annotations

import traceback
from collections.abc import Iterable, Mapping
from typing import Any

import torch
from torch import nn

from .layers import LoadLog

# Shards a stacked parameter needs before it counts as loaded (None = loaded whole).
_STACKED: dict[str, set[object]] = {
    "qkv_proj": {"q", "k", "v"},
    "gate_up_proj": {0, 1},
    "fused_qkv_a_proj": {0, 1},  # SGLang's MLA drafts (the family drivers)
}


def unloaded_params(model: nn.Module, log: LoadLog) -> list[str]:
    """Parameters no checkpoint tensor was written into (fully), i.e. left at init."""
    missing = []
    for name, param in model.named_parameters():
        shards = log.loaded.get(id(param), set())
        if None in shards:
            continue
        need = next((s for k, s in _STACKED.items() if f".{k}." in f".{name}"), None)
        if need is not None and need <= shards:
            continue
        missing.append(
            name if not shards else f"{name} (shards loaded: {sorted(map(str, shards))})"
        )
    return missing


def dropped_tensors(
    tensors: Mapping[str, torch.Tensor], log: LoadLog, consumed: Iterable[str] = ()
) -> list[str]:
    """Checkpoint tensors that reached no parameter's loader (`consumed`: read another way, such
    as SGLang's d2t -> hot_token_id)."""
    skip = set(consumed)
    return sorted(n for n, t in tensors.items() if id(t) not in log.source_ids and n not in skip)


def error_record(
    stage: str,
    exc: BaseException,
    decided_by: str,
    *,
    engine_files: str = "<engine>/",
    shown_as: str = "",
) -> dict[str, Any]:
    """What to record when the engine's code raised: the exception and the last engine frame
    (a frame whose file name starts with `engine_files`, shown with that prefix replaced by
    `shown_as`), else the last frame."""
    frames = traceback.extract_tb(exc.__traceback__)
    engine_frames = [
        f"{shown_as}{f.filename.removeprefix(engine_files)}:{f.lineno} {f.name}"
        for f in frames
        if f.filename.startswith(engine_files)
    ]
    last = frames[-1] if frames else None
    raised_at = (
        engine_frames[-1]
        if engine_frames
        else (f"{last.filename}:{last.lineno} {last.name}" if last else "?")
    )
    return {
        "stage": stage,
        "exception": f"{type(exc).__name__}: {exc}"[:500],
        "raised_at": raised_at,
        "decided_by": decided_by,
    }


def load_error(
    model: nn.Module,
    tensors: Mapping[str, torch.Tensor],
    base: dict[str, Any],
    decided_by: str,
    *,
    engine_files: str = "<engine>/",
    shown_as: str = "",
) -> dict[str, Any] | None:
    """Runs the engine's own `load_weights` over every drafter tensor: `base` as LOAD-ERROR if
    it raised (frames named as in `error_record`), else None."""
    try:
        model.load_weights(iter(list(tensors.items())))
    except Exception as exc:
        why = error_record(
            "load_weights", exc, decided_by, engine_files=engine_files, shown_as=shown_as
        )
        return base | {"verdict": "LOAD-ERROR", "why": why}
    return None
