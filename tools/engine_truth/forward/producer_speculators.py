"""speculators' own training forward (`models/eagle3/core.py Eagle3DraftModel.forward`, the TTT
loop `speculators train` runs), on a drafter loaded with its own `SpeculatorModel.from_pretrained`.

Aux states: speculators trains on hidden states that vLLM's datagen server captures at
`eagle_aux_hidden_state_layer_ids` (data_generation/vllm_client.py; ids are vLLM's input-of
boundaries, `resolve_target_layer_ids` defaults to [2, N//2, N-3]), so the aux fed here is
stream[id] for each id. Pairing as `models/eagle3/data.py shift_batch`: token x[t+1] with the
hidden state of position t."""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

import torch
from inputs import ROWS, STEPS, VerifierRun
from producer_run import ProducerRun, head_outputs, to_target


def run(drafter_dir: Path, verifier: VerifierRun) -> ProducerRun:
    from speculators import SpeculatorModel

    model = SpeculatorModel.from_pretrained(str(drafter_dir), local_files_only=True).float().eval()
    ids = list(model.config.eagle_aux_hidden_state_layer_ids)
    aux = verifier.aux(ids)
    tokens = verifier.tokens[1 : ROWS + 1][None]
    attn = model.config.transformer_layer_config._attn_implementation
    recorded = head_outputs(
        model,
        hidden_states=aux[None],
        input_ids=tokens,
        document_ids=torch.zeros_like(tokens),
        ttt_steps=STEPS,
    )
    d2t = getattr(model, "d2t", None)
    return ProducerRun(
        "speculators",
        importlib.metadata.version("speculators"),
        recorded,
        [to_target(step.argmax(-1), d2t) for step in recorded],
        [ROWS - s for s in range(STEPS)],
        aux,
        ids,
        {
            "forward": "speculators/models/eagle3/core.py Eagle3DraftModel.forward (run, "
            f"{STEPS} TTT steps, attention {attn})",
            "aux": "eagle_aux_hidden_state_layer_ids as resolved by "
            "Eagle3DraftModel.from_pretrained "
            "(models/utils.py resolve_target_layer_ids): vLLM datagen boundaries (input-of)",
        },
    )
