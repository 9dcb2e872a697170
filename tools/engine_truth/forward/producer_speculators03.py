"""speculators 0.3's own training forward (`models/eagle3/core.py Eagle3DraftModel.forward`, the
TTT loop its trainer runs), on the drafter built and loaded as that release's trainer does.

0.3.0 predates transformers 5 and pydantic 2.14, so this runs in the overlay venv the corpus made
those drafters in (tests/corpus/README.md), as its own process: run_forward.py (producers venv)
saves the verifier run it computed there (`verifier.pt`: the same token ids and stream as every
other run) next to the perturbed drafter, runs

    OVERLAY/bin/python producer_speculators03.py WORK/NAME

and reads back `WORK/NAME/producer.pt`.

Differences from 0.9 that this follows, all in the 0.3.0 wheel:
- `Eagle3DraftModel.__init__(config, t2d, d2t)` takes the vocab maps as arguments, which its
  own `from_pretrained` cannot pass (SHIMS: built and loaded as its trainer does instead).
- The forward takes per-document `lengths` (default: one document of the whole sequence) instead
  of `document_ids`; position ids default to 1..T as `train/data.py shift_batch` leaves them.
- Aux states: its datagen (`data_generation/vllm_hidden_states_generator.py`) defaults to layer
  ids [2, N//2, N-3, N-1] and `data_generation/custom_worker.py` appends `hidden_states +
  residual` *after* running layer id (output-of: stream[id+1]); `train/data.py
  standardize_data_v1` concatenates all but the last as the aux, the last being the verifier's
  final state. The config's `eagle_aux_hidden_state_layer_ids` is null in both drafters, so the
  aux fed here is stream[id+1] for [2, N//2, N-3]. Pairing as `shift_batch`: token x[t+1] with
  the hidden state of position t.
- Tokens: teacher-forced (OFF_POLICY_TOKENS); `E3_SPEC03_ON_POLICY=1` runs the forward's own
  default instead (step s+1 reads the draft's argmax), which the chain cannot compare past
  step 0."""

from __future__ import annotations

import importlib.metadata
import os
import sys
from pathlib import Path

# Before torch: core.py's forward is @torch.compile, run eager like every other producer here.
os.environ.setdefault("TORCHDYNAMO_DISABLE", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from inputs import ROWS, STEPS, VerifierRun
from producer_run import ProducerRun, head_outputs, to_target

# Teacher forcing, as the chain (installed/harness/chain.py) and the other producers run every step:
# 0.3's TTT loop feeds step s+1 either the draft's own argmax (use_off_policy_tokens=False, the
# forward's and scripts/train.py's default) or the next true tokens (True, its option for
# regenerated data). The draft function is the same; only the tokens it reads differ, and the
# comparison needs the same tokens on both sides.
OFF_POLICY_TOKENS = os.environ.get("E3_SPEC03_ON_POLICY") != "1"


def datagen_layer_ids(num_layers: int) -> list[int]:
    """`VllmHiddenStatesGenerator.__init__`'s default `layer_ids` without the last (the target)."""
    return [2, num_layers // 2, num_layers - 3]


SHIMS = [
    "loading: 0.3.0's SpeculatorModel.from_pretrained cannot build an Eagle3DraftModel (model.py "
    "passes verifier= / verifier_attachment_mode= on to PreTrainedModel.from_pretrained, which "
    "hands them to Eagle3DraftModel.__init__(config, t2d, d2t): TypeError unexpected keyword "
    "'verifier'), so the drafter is built as its trainer builds it, Eagle3DraftModel(config, t2d, "
    "d2t) from Eagle3SpeculatorConfig.from_pretrained, and its weights loaded as "
    "train/checkpointer.py SingleGPUCheckpointer.load_model_state_dict loads a checkpoint "
    "(load_safetensors_state_dict, convert_float_dtype, load_state_dict(strict=False)) on 'cpu' "
    "where that method hard-codes 'cuda:0'",
    "attention: transformer_layer_config._attn_implementation = 'simple_flex_attention' (the "
    "flex attention models/eagle3/attention.py registers), set on the loaded config as the "
    "repository's scripts/train.py sets it on the config it builds (a private attribute no "
    "config.json keeps; 0.3's Eagle3DraftModel leaves it None, which LlamaAttention cannot run)",
]


def load(drafter_dir: Path) -> torch.nn.Module:
    """The drafter as 0.3's trainer builds and resumes it (see SHIMS)."""
    from speculators.models.eagle3 import Eagle3DraftModel, Eagle3SpeculatorConfig
    from speculators.train.checkpointer import convert_float_dtype, load_safetensors_state_dict

    config = Eagle3SpeculatorConfig.from_pretrained(str(drafter_dir), local_files_only=True)
    config.transformer_layer_config._attn_implementation = "simple_flex_attention"
    state = load_safetensors_state_dict(drafter_dir / "model.safetensors", "cpu")
    model = Eagle3DraftModel(config, t2d=state["t2d"], d2t=state["d2t"]).float()
    result = model.load_state_dict(convert_float_dtype(state, torch.float32), strict=False)
    # strict=False is the checkpointer's (the verifier head is never saved): nothing else missing
    if result.unexpected_keys or set(result.missing_keys) != {"verifier_lm_head.weight"}:
        raise RuntimeError(f"{drafter_dir}: state dict mismatch {result}")
    return model.eval()


def run(drafter_dir: Path, verifier: VerifierRun) -> ProducerRun:
    model = load(drafter_dir)
    if model.config.eagle_aux_hidden_state_layer_ids is not None:
        raise ValueError("speculators 0.3 drafter with aux ids: its datagen would not pick them")
    ids = datagen_layer_ids(verifier.num_layers)
    boundaries = [i + 1 for i in ids]  # output-of: custom_worker.py captures after layer i
    aux = verifier.aux(boundaries)
    tokens = verifier.tokens[1 : ROWS + 1][None]
    attn = model.config.transformer_layer_config._attn_implementation
    recorded = head_outputs(
        model,
        hidden_states=aux[None],
        input_ids=tokens,
        ttt_steps=STEPS,
        use_off_policy_tokens=OFF_POLICY_TOKENS,
    )
    return ProducerRun(
        "speculators",
        importlib.metadata.version("speculators"),
        recorded,
        [to_target(step.argmax(-1), model.d2t) for step in recorded],
        [ROWS - s for s in range(STEPS)],
        aux,
        boundaries,
        {
            "forward": "speculators/models/eagle3/core.py Eagle3DraftModel.forward (run, "
            f"{STEPS} TTT steps, use_off_policy_tokens={OFF_POLICY_TOKENS}, attention {attn}; "
            f"transformers {importlib.metadata.version('transformers')})",
            "aux": f"data_generation/vllm_hidden_states_generator.py default layer_ids {ids} "
            "(without the last, the target's), captured by data_generation/custom_worker.py "
            "after each layer (output-of)",
        },
        notes=list(SHIMS),
    )


def main(argv: list[str] | None = None) -> int:
    """`producer_speculators03.py WORK/NAME`: verifier.pt + the drafter there -> producer.pt."""
    (folder,) = [Path(a) for a in (argv if argv is not None else sys.argv[1:])]
    verifier = torch.load(folder / "verifier.pt", weights_only=False)
    torch.save(run(folder, verifier), folder / "producer.pt")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
