"""speculators 0.3.x drafters: that release's model class and its trainer checkpointer.

The 0.3 wheel ships no training CLI (its `scripts/train.py` lived only in the repository), so
the generator builds what that script built from the release's own classes: an
`Eagle3SpeculatorConfig` whose `transformer_layer_config` is a `LlamaConfig` taken from the
verifier, `build_vocab_mappings_from_distribution` for `d2t`/`t2d`, `Eagle3DraftModel(config,
t2d, d2t)` (which copies the verifier embedding and head), then
`SingleGPUCheckpointer.save_checkpoint` (bf16 `save_pretrained`).
Runs in an overlay venv with transformers 4.57 and pydantic 2.11 (0.3.0 predates both majors
of the main producer venv).
"""

from __future__ import annotations

from importlib.metadata import version
from pathlib import Path
from typing import Any

from producers import common

SIDE_FILES_NOT_COPIED = ("optimizer_state_dict.pt", "config.py")

# variant name -> (norm_before_residual, num layers, what it exercises)
VARIANTS: dict[str, tuple[bool, int, str]] = {
    "default": (False, 1, "Eagle3SpeculatorConfig defaults (norm_before_residual false)"),
    "nbr-true": (True, 1, "norm_before_residual true"),
}


def generate_one(name: str, work: Path) -> dict[str, Any]:
    """Writes one drafter into the corpus and returns its manifest entry."""
    import torch
    from speculators.config import SpeculatorsConfig, VerifierConfig
    from speculators.models.eagle3 import Eagle3DraftModel, Eagle3SpeculatorConfig
    from speculators.proposals import GreedyTokenProposalConfig
    from speculators.train.checkpointer import SingleGPUCheckpointer
    from speculators.train.vocab_mapping import build_vocab_mappings_from_distribution
    from transformers import AutoConfig, LlamaConfig

    norm_before_residual, layers, note = VARIANTS[name]
    verifier = common.write_verifier(work, "llama")
    target = AutoConfig.from_pretrained(verifier)
    layer_config = LlamaConfig(
        vocab_size=target.vocab_size,
        hidden_size=target.hidden_size,
        intermediate_size=target.intermediate_size,
        num_hidden_layers=layers,
        num_attention_heads=target.num_attention_heads,
        num_key_value_heads=target.num_key_value_heads,
        hidden_act=target.hidden_act,
        max_position_embeddings=target.max_position_embeddings,
        initializer_range=target.initializer_range,
        rms_norm_eps=target.rms_norm_eps,
        head_dim=target.head_dim,
        tie_word_embeddings=False,
    )
    d2t, t2d = build_vocab_mappings_from_distribution(
        common.token_frequencies(), common.DRAFT_VOCAB, common.TARGET_VOCAB
    )
    config = Eagle3SpeculatorConfig(
        transformer_layer_config=layer_config,
        draft_vocab_size=common.DRAFT_VOCAB,
        norm_before_residual=norm_before_residual,
        speculators_config=SpeculatorsConfig(
            algorithm="eagle3",
            proposal_methods=[GreedyTokenProposalConfig(speculative_tokens=3)],
            default_proposal_method="greedy",
            verifier=VerifierConfig.from_config(target, name_or_path=str(verifier)),
        ),
    )
    common.seed_everything()
    model = Eagle3DraftModel(config, t2d=t2d, d2t=d2t)
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad])
    save = work / f"save-{name}"
    SingleGPUCheckpointer(save).save_checkpoint(model, optimizer, 0)

    producer_version = version("speculators")
    dest_name = f"speculators-{producer_version}-{name}"
    files = common.copy_outputs(
        save / "0", common.CORPUS_DIR / dest_name, skip=SIDE_FILES_NOT_COPIED
    )
    return {
        "dir": dest_name,
        "producer": "speculators",
        "producer_version": producer_version,
        "variant": name,
        "variant_note": note,
        "options": {"norm_before_residual": norm_before_residual, "num_hidden_layers": layers},
        "functions_called": [
            "speculators.train.vocab_mapping.build_vocab_mappings_from_distribution",
            "speculators.models.eagle3.Eagle3SpeculatorConfig(...) (as scripts/train.py built it)",
            "speculators.models.eagle3.Eagle3DraftModel(config, t2d, d2t)",
            "speculators.train.checkpointer.SingleGPUCheckpointer.save_checkpoint(epoch=0)",
        ],
        "verifier": {"arch": "llama", "config": common.verifier_config("llama")},
        "files": files,
        "dropped_side_files": list(SIDE_FILES_NOT_COPIED),
        "engines": ["vllm", "speculators"],
        "stubs": [],
        "environment": common.environment(),
        "generator_command": common.command_line("speculators-0.3", name)
        + "  (in the overlay venv, see README)",
        **common.family_fields(
            "eagle3",
            config.transformer_layer_config.model_type,
            "speculators 0.3 Eagle3DraftModel; transformer_layer_config.model_type="
            f"{config.transformer_layer_config.model_type!r}",
            {"norm_before_residual": config.norm_before_residual},
        ),
    }


def generate(only: list[str] | None = None) -> list[dict[str, Any]]:
    """Writes every (or the named) speculators 0.3 variant; returns manifest entries."""
    entries = []
    work = common.work_dir("speculators-0.3")
    for name in only or list(VARIANTS):
        entries.append(generate_one(name, work))
        common.record(entries[-1:])
    return entries
