"""A short draft chain through the engine's own draft forward, for `--engine NAME@installed`:
the Llama EAGLE-3 draft as `sglang_eagle3` / `vllm_eagle3` drive it for the forward truth (the
engine's config, `__init__`, `load_weights`, the worker's embedding / head sharing, its model
forward over the reference attention), on the stand-in drafter with seeded random target
states. There is no producer to compare with here, so what it shows is whether the engine's
forward runs on this drafter's structure (no shape error at the first draft steps) and gives
finite logits; anything but the Llama EAGLE-3 draft is `NOT-RUN` with the reason."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import torch

# transformers before any engine session, as tools/engine_truth/forward/engine_run.py does:
# imported under it, its optional-dependency probes would meet the session's stubs for
# uninstalled packages and read their version as 'N/A' (InvalidVersion in vLLM's config code).
import transformers  # noqa: F401
from transformers import AutoConfig, LlamaConfig  # noqa: F401

from . import chain, imports, sglang_eagle3, vllm_eagle3
from .drafter import DrafterFiles
from .record import error_record
from .sources import EngineSource

DRIVERS = {"sglang": sglang_eagle3, "vllm": vllm_eagle3}
# Positions of the one sequence and draft steps after each: enough to pass every code path of a
# step (step 0 reads the target's states, later steps the draft's own).
POSITIONS, STEPS = 6, 2


def _size(config: dict[str, Any], *keys: str) -> int | None:
    """The first of `keys` set at the top level or in `transformer_layer_config`."""
    nested = config.get("transformer_layer_config") or {}
    for key in keys:
        for where in (config, nested):
            if isinstance(where.get(key), int):
                return int(where[key])
    return None


def run_forward(
    drafter_dir: Path, source: EngineSource, tensors: dict[str, torch.Tensor], aux_states: int
) -> dict[str, Any]:
    """`{"verdict": "RAN", ...}` (steps, positions, whether every logit is finite),
    `FORWARD-ERROR` with `why`, or `NOT-RUN` with `reason` (the forward driver did not load
    the drafter: another draft family, or a refusal the load record already reports).
    `aux_states`: how many target states the engine's capture feeds (its aux ids, else 3)."""
    driver = DRIVERS[source.engine]
    config = json.loads((drafter_dir / "config.json").read_text())
    drafter = DrafterFiles(drafter_dir.name, drafter_dir, config, dict(tensors))
    vocab = _size(config, "vocab_size")
    target_hidden = _size(config, "target_hidden_size", "hidden_size")
    if vocab is None or target_hidden is None:
        return {"verdict": "NOT-RUN", "reason": "the config states no vocab_size / hidden_size"}
    with imports.session(driver.session(source)):
        if source.engine == "sglang":
            record, model = sglang_eagle3.load(drafter, source)
        else:
            record, model = vllm_eagle3.load(drafter, source, vocab)
        if model is None:
            why = (record.get("why") or {}).get("exception", record.get("verdict"))
            return {"verdict": "NOT-RUN", "reason": f"the forward driver did not load it: {why}"}
        model = model.float().eval()
        generator = torch.Generator().manual_seed(1)
        embed = torch.randn(model.model.embed_tokens.weight.shape, generator=generator)
        head = torch.randn(embed.shape, generator=generator)
        tokens = torch.randint(0, vocab, (POSITIONS + STEPS,), generator=generator)
        aux = torch.randn(POSITIONS, aux_states * target_hidden, generator=generator)
        try:
            sharing = driver.share_target(model, embed, head)
            out = chain.run_chain(
                driver.step_function(model), chain.ChainInputs(tokens, aux, STEPS)
            )
        except Exception as exc:
            where = f"{source.origin} draft forward"
            return {"verdict": "FORWARD-ERROR", "why": error_record("forward", exc, where)}
    return {
        "verdict": "RAN",
        "steps": STEPS,
        "positions": POSITIONS,
        "aux_states": aux_states,
        "sharing": sharing,
        "finite": all(bool(torch.isfinite(step).all()) for step in out.logits),
    }
