"""speculators (0.9.x) drafters written through the trainer's own path.

Each variant runs what `speculators train` runs before its training loop: the real config
resolution (`train.config.resolution.resolve` on a CLI argv, which applies the trainer's
defaults), `parse_vocab_mappings` (which calls `build_vocab_mappings_from_distribution` on a
`token_freq.pt`), `build_draft_model` (`Eagle3DraftModel.from_training_args`, which reads the
verifier config and weights), then the trainer's save path
`SingleGPUCheckpointer.save_checkpoint` (bf16 `save_pretrained` + `patch_config_dtype`).
Side files that are not copied are listed in SIDE_FILES_NOT_COPIED and in the manifest.
"""

from __future__ import annotations

import argparse
from importlib.metadata import version
from pathlib import Path
from typing import Any

from producers import common

# Written by the save path but not committed: the optimizer state is a training pickle, and
# config.py is speculators' own source, copied by transformers because of `auto_map`.
SIDE_FILES_NOT_COPIED = ("optimizer_state_dict.pt", "config.py")

# variant name -> (extra trainer CLI flags, verifier arch, what it exercises)
VARIANTS: dict[str, tuple[list[str], str, str]] = {
    "default": ([], "llama", "trainer defaults (norm_before_residual/fc/output all true)"),
    "nbr-false": (["--no-norm-before-residual"], "llama", "norm_before_residual false"),
    "classic": (
        ["--no-norm-before-residual", "--no-norm-before-fc", "--no-norm-output"],
        "llama",
        "every 3.1 flag off: the original EAGLE-3 computation",
    ),
    "no-norm-before-fc": (["--no-norm-before-fc"], "llama", "only norm_before_fc off"),
    "no-norm-output": (["--no-norm-output"], "llama", "only norm_output off"),
    "layers2": (["--num-layers", "2"], "llama", "2 decoder layers"),
    "qwen3-verifier": ([], "qwen3", "Qwen3 verifier, default llama draft"),
    "qwen3-draft": (["--draft-arch", "qwen3"], "qwen3", "Qwen3 verifier and Qwen3 draft"),
    "aux-ids": (["--target-layer-ids", "1", "3", "6"], "llama", "custom aux layer ids"),
    "aux4": (["--target-layer-ids", "1", "2", "4", "6"], "llama", "4 aux layers: fc is 4H"),
    "fc-norm": (["--fc-norm", "--no-norm-before-fc"], "llama", "per-layer fc_norm"),
    "full-vocab": ([], "llama", "no draft vocab (no token_freq): no d2t/t2d"),
    "dflash": (["--speculator-type", "dflash"], "qwen3", "DFlash trainer defaults"),
    "dflash-full-vocab": (["--speculator-type", "dflash"], "qwen3", "DFlash, full vocab"),
    "dflash2": (
        ["--speculator-type", "dflash2", "--selector-rank", str(common.SELECTOR_RANK)],
        "qwen3",
        "DFlash2 trainer defaults (full vocabulary, as DFlash2 requires; tiny selector rank)",
    ),
    "peagle": (
        ["--speculator-type", "peagle"],
        "llama",
        "P-EAGLE trainer defaults (the draft arch defaults to qwen3 for every type but eagle3)",
    ),
    "peagle-llama": (
        ["--speculator-type", "peagle", "--draft-arch", "llama"],
        "llama",
        "P-EAGLE with a Llama draft layer",
    ),
}

# Variants trained without a token_freq.pt (the full verifier vocabulary: no d2t/t2d). DFlash2
# requires it: dflash2/core.py DFlash2DraftModel.__init__ raises "DFlash2 currently requires
# the full verifier vocabulary" for a reduced one.
FULL_VOCAB = {"full-vocab", "dflash-full-vocab", "dflash2"}


def _train_argv(verifier: Path, data: Path, save: Path, extra: list[str], vocab: bool) -> list[str]:
    argv = [
        "--verifier-name-or-path",
        str(verifier),
        "--data-path",
        str(data),
        "--save-path",
        str(save),
        "--mask-token-id",
        "0",
    ]
    if vocab:
        argv += ["--draft-vocab-size", str(common.DRAFT_VOCAB)]
    return argv + extra


def generate_one(name: str, work: Path) -> dict[str, Any]:
    """Writes one drafter into the corpus and returns its manifest entry."""
    import torch
    from speculators.model import SpeculatorModel
    from speculators.train.checkpointer import SingleGPUCheckpointer
    from speculators.train.cli import build_draft_model, parse_vocab_mappings
    from speculators.train.config.resolution import resolve
    from speculators.train.config.schema import TrainConfig

    extra, arch, note = VARIANTS[name]
    vocab = name not in FULL_VOCAB
    verifier = common.write_verifier(work, arch)
    data = work / f"data-{name}"
    data.mkdir(parents=True, exist_ok=True)
    if vocab:
        torch.save(common.token_frequencies(), data / "token_freq.pt")
    save = work / f"save-{name}"
    argv = _train_argv(verifier, data, save, extra, vocab)
    cfg = resolve(TrainConfig, argv)
    args = argparse.Namespace(**cfg.flatten())
    common.seed_everything()
    d2t, t2d, draft_vocab_size = parse_vocab_mappings(args)
    model_class = SpeculatorModel.registry[args.speculator_type]
    model = build_draft_model(args, model_class, t2d, d2t, draft_vocab_size)
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad])
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
        "options": {"trainer_argv": _public_argv(argv)},
        "functions_called": [
            "speculators.train.config.resolution.resolve(TrainConfig, argv)",
            "speculators.train.cli.parse_vocab_mappings"
            + (
                " -> speculators.train.vocab_mapping.build_vocab_mappings_from_distribution"
                if vocab
                else " (no token_freq.pt: full verifier vocab)"
            ),
            "speculators.train.cli.build_draft_model -> Eagle3DraftModel.from_training_args",
            "speculators.train.checkpointer.SingleGPUCheckpointer.save_checkpoint(epoch=0)",
        ],
        "verifier": {"arch": arch, "config": common.verifier_config(arch)},
        "files": files,
        "dropped_side_files": list(SIDE_FILES_NOT_COPIED),
        "engines": ["vllm", "speculators"],
        "stubs": [],
        "environment": common.environment(),
        "generator_command": common.command_line("speculators", name),
        **_family(args.speculator_type, model),
    }


def _family(speculator_type: str, model: Any) -> dict[str, Any]:
    """The family record, read from the built model's own config."""
    config = model.config
    layer_type = config.transformer_layer_config.model_type
    flags = None
    if speculator_type in ("eagle3", "peagle"):
        flags = {name: getattr(config, name) for name in common.EAGLE3_FLAGS}
    return common.family_fields(
        speculator_type,
        layer_type,
        f"speculators SpeculatorModel.registry[{speculator_type!r}] -> "
        f"{type(model).__name__}; transformer_layer_config.model_type={layer_type!r}",
        flags,
    )


def _public_argv(argv: list[str]) -> list[str]:
    """The trainer argv with the machine-local paths replaced by placeholders."""
    out, skip_next = [], False
    for token in argv:
        if skip_next:
            skip_next = False
            continue
        if token in ("--verifier-name-or-path", "--data-path", "--save-path"):
            out += [token, f"<{token[2:]}>"]
            skip_next = True
            continue
        out.append(token)
    return out


def generate(only: list[str] | None = None) -> list[dict[str, Any]]:
    """Writes every (or the named) speculators trainer variant; returns manifest entries."""
    entries = []
    work = common.work_dir("speculators")
    for name in only or list(VARIANTS):
        entries.append(generate_one(name, work))
        common.record(entries[-1:])
    return entries
