"""One drafter x engine version forward: the engine's own config, __init__ and load_weights (from
the wheel, engine_code/), the worker's embedding / head sharing with the verifier, then the draft
chain (engine_code/chain.py) over the aux hidden states the producer was fed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch
from engine_code import chain, imports, sglang_eagle3, vllm_eagle3
from engine_code.drafter import DrafterFiles
from engine_code.record import error_record
from engine_code.sources import WheelSource, wheel_path
from inputs import STEPS, VerifierRun

DRIVERS = {"sglang": sglang_eagle3, "vllm": vllm_eagle3}


def run(
    engine: str,
    version: str,
    cache: Path,
    drafter: DrafterFiles,
    verifier: VerifierRun,
    aux: torch.Tensor,
) -> dict[str, Any]:
    """The engine's record (verdict, sharing, opaque names) plus per-step `logits` / `top1` when
    it loaded."""
    path = wheel_path(engine, version, cache)
    if path is None:
        return {"verdict": "NO-WHEEL", "why": f"no {engine}-{version} wheel in {cache}"}
    source = WheelSource(engine, version, path)
    driver = DRIVERS[engine]
    session = driver.session(source)
    with imports.session(session):
        if engine == "sglang":
            record, model = driver.load(drafter, source)
        else:
            record, model = driver.load(drafter, source, int(verifier.embed.shape[0]))
        if model is None:
            return record
        model = model.float().eval()
        record["sharing"] = driver.share_target(model, verifier.embed, verifier.head)
        try:
            out = chain.run_chain(
                driver.step_function(model), chain.ChainInputs(verifier.tokens, aux, STEPS)
            )
        except Exception as exc:
            record["verdict"] = "FORWARD-ERROR"
            record["why"] = error_record("forward", exc, f"{source.origin} draft forward")
            return record
    record["opaque_used"] = sorted(session.opaque_used)
    record["stubbed_third_party"] = sorted(session.stubbed_third_party)
    record["logits"], record["top1"] = out.logits, out.top1
    return record
