"""speculators as an engine: load the drafter for real with `SpeculatorModel.from_pretrained`
(the installed speculators release, CPU torch), then compare every parameter with the
checkpoint: a checkpoint tensor whose name reaches no parameter is dropped, a parameter no
checkpoint tensor of the same name and value was copied into is left at init."""

from __future__ import annotations

import importlib.metadata

import torch

from eagle3_inspect.installed.harness.drafter import DrafterFiles
from eagle3_inspect.installed.harness.outcome import error_record

DECIDED_BY = (
    "speculators/model.py SpeculatorModel.from_pretrained -> models/eagle3/core.py "
    "Eagle3DraftModel (transformers PreTrainedModel.from_pretrained)"
)


def version() -> str:
    """The installed speculators release."""
    return importlib.metadata.version("speculators")


def run(drafter: DrafterFiles) -> dict:
    """The record for `drafter` loaded by speculators."""
    from speculators import SpeculatorModel  # lazily: only this engine needs it

    record: dict = {"engine": "speculators", "version": version(), "evidence": {}}
    try:
        model = SpeculatorModel.from_pretrained(str(drafter.path), local_files_only=True)
    except Exception as exc:
        # speculators' own format/config checks raise these deliberately; anything else is a crash.
        refused = isinstance(exc, (NotImplementedError, ValueError))
        return record | {
            "verdict": "REFUSED" if refused else "LOAD-ERROR",
            "why": error_record("from_pretrained", exc, DECIDED_BY),
        }
    state = model.state_dict()
    loaded = {
        n
        for n, t in drafter.tensors.items()
        if n in state and state[n].shape == t.shape and torch.equal(state[n].to(t.dtype), t)
    }
    fc = getattr(model, "fc", None)
    return record | {
        "verdict": "LOADED",
        "class": type(model).__name__,
        "dropped": sorted(set(drafter.tensors) - loaded),
        "never_loaded": sorted(
            n for n in state if n not in loaded and not n.startswith("verifier")
        ),
        "aux_layer_ids": getattr(model.config, "eagle_aux_hidden_state_layer_ids", None),
        "fc_in_features": getattr(fc, "in_features", None),
        "evidence": {
            "dropped": DECIDED_BY + " (run; compared by name and value)",
            "never_loaded": DECIDED_BY + " (run; compared by name and value)",
            "aux_layer_ids": "models/eagle3/core.py Eagle3DraftModel.from_pretrained "
            "resolve_target_layer_ids (run)",
        },
    }
