"""How the load drivers (sglang_truth, vllm_truth and the family dispatchers) record an engine's
failure: engine code runs there under `<wheel>/...` file names (stub_imports, wheel_exec), which
the records keep; what was loaded and dropped is read by `record`, shared with the forward
harness."""

from __future__ import annotations

from typing import Any

from torch import nn

from . import record
from . import stub_imports as S
from .layers import LoadLog
from .record import unloaded_params


def error_record(stage: str, exc: BaseException, decided_by: str) -> dict[str, Any]:
    """What to record when the engine's code raised: the exception and the last `<wheel>/`
    frame (else the last frame)."""
    return record.error_record(stage, exc, decided_by, engine_files="<wheel>/", shown_as="<wheel>/")


def load_error(
    model: nn.Module, tensors: dict[str, Any], base: dict[str, Any], decided_by: str
) -> dict[str, Any] | None:
    """Runs the engine's own `load_weights` over every drafter tensor: the LOAD-ERROR record if
    it raised, else None."""
    return record.load_error(
        model, tensors, base, decided_by, engine_files="<wheel>/", shown_as="<wheel>/"
    )


def refused(
    record: dict[str, Any], stage: str, exc: BaseException, decided_by: str
) -> dict[str, Any]:
    """`record` as REFUSED at `stage`: the engine's code raised `exc`."""
    return record | {"verdict": "REFUSED", "why": error_record(stage, exc, decided_by)}


def loaded(
    record: dict[str, Any],
    model: nn.Module,
    log: LoadLog,
    dropped: list[str],
    built_by: str,
    **facts: object,
) -> dict[str, Any]:
    """`record` as LOADED, with `facts`: the tensors no loader took (`dropped`), the parameters
    left at init and the unmodelled names the run used; `built_by` is the module and class
    whose `__init__` and `load_weights` ran."""
    return (
        record
        | facts
        | {
            "verdict": "LOADED",
            "dropped": dropped,
            "never_loaded": unloaded_params(model, log),
            "opaque_names": sorted(S.OPAQUE_USED),
            "evidence": record["evidence"]
            | {
                "dropped": f"{built_by}.load_weights (exec'd)",
                "never_loaded": f"{built_by}.__init__ + load_weights (exec'd)",
            },
        }
    )
