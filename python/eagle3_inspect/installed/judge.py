"""Running the installed engine's own code on a drafter: the stand-ins (`standin`) go to a worker
subprocess (`worker`) of this same Python, once for the load and, when it loaded, once more for
a short draft chain; the result files become an `InstalledVerdict`. The subprocess keeps torch,
the engine's stub modules and its custom ops out of the caller's process; a timeout bounds it;
no network (the Hub is switched off), no GPU."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from eagle3_inspect.installed.harm import DEFAULT_AUX_STATES
from eagle3_inspect.installed.probe import InstalledEngine
from eagle3_inspect.installed.standin import stand_in
from eagle3_inspect.installed.verdict import InstalledVerdict, from_record, not_run
from eagle3_inspect.reader.tensorinfo import TensorInfo

# Seconds for one worker run: importing torch and the harness takes a few; a stand-in loads in
# well under a minute even on a loaded machine.
TIMEOUT = 600.0
# Stand-in elements beyond which the worker is not started (sizes with no common factor keep
# the drafter's own shapes): 2**28 values are 1 GiB at float32.
MAX_ELEMENTS = 1 << 28
# The worker never reaches a network or a GPU.
WORKER_ENV = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "CUDA_VISIBLE_DEVICES": "",
    "TORCHDYNAMO_DISABLE": "1",
}


def judge(
    installed: InstalledEngine,
    config: Mapping[str, Any],
    tensors: Mapping[str, TensorInfo],
    *,
    profile: str | None = None,
    timeout: float = TIMEOUT,
) -> InstalledVerdict:
    """The installed engine's verdict on a drafter with this config and these tensors (only
    their names, shapes and dtypes are used). Never raises for what the engine or the harness
    does: that is the verdict (NOT-RUN with the reason when the harness could not run)."""
    standin = stand_in(config, {n: (t.shape, t.dtype) for n, t in tensors.items()})
    if standin.elements > MAX_ELEMENTS:
        reason = (
            f"the stand-in tensors would hold {standin.elements:,} elements (the config's sizes "
            f"share no power-of-two factor to shrink by); the limit is {MAX_ELEMENTS:,}"
        )
        return not_run(installed, standin.scale, reason, profile)
    request: dict[str, Any] = {
        "engine": installed.engine,
        "mode": "load",
        "config": standin.config,
        "tensors": {n: [list(shape), dtype] for n, (shape, dtype) in standin.shapes.items()},
    }
    doc = _run_worker(installed, request, timeout)
    if isinstance(doc, str):
        return not_run(installed, standin.scale, doc, profile)
    verdict = from_record(installed, standin.scale, doc, profile)
    if verdict.outcome != "LOADED":
        return verdict
    aux = verdict.aux_layer_ids
    request |= {"mode": "forward", "aux_states": DEFAULT_AUX_STATES if aux is None else len(aux)}
    forward = _run_worker(installed, request, timeout)
    if isinstance(forward, str):
        forward = {"verdict": "NOT-RUN", "reason": forward}
    return replace(verdict, forward=forward)


def _run_worker(
    installed: InstalledEngine, request: dict[str, Any], timeout: float
) -> dict[str, Any] | str:
    """The worker's result for `request`, or why there is none (one line)."""
    with tempfile.TemporaryDirectory(prefix="e3-installed-") as folder:
        result = Path(folder) / "result.json"
        command = [installed.python, "-m", "eagle3_inspect.installed.worker", str(result)]
        try:
            done = subprocess.run(
                command,
                input=json.dumps(request),
                capture_output=True,
                text=True,
                timeout=timeout,
                cwd=folder,
                env={**os.environ, **WORKER_ENV},
                check=False,
            )
        except subprocess.TimeoutExpired:
            return f"the worker did not finish within {timeout:g} s"
        if not result.is_file():
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            return f"the worker exited with status {done.returncode}: {last}"
        doc = json.loads(result.read_text())
    if "error" in doc:
        return f"the harness failed on this version: {doc['error']} ({doc.get('where', '')})"
    record: dict[str, Any] = doc["record"]
    return record
