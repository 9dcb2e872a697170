"""SpecForge (0.2.x) drafters written through its real exporters (`specforge/export/`).

Per variant: the vocab mapping file from `data.preprocessing.generate_vocab_mapping_file`
(which calls `process_token_dict_to_mappings`) over a synthetic loss-masked sequence; the draft
config resolved by `training.model_loading.resolve_draft_config` with the algorithm's own
`DraftConfigProvider`; the draft built by the algorithm's provider (`build_eagle3_draft` /
`build_peagle_draft`, which load the mapping and the target embedding); the training
checkpoint payload filtered by the strategy's own `checkpoint_state_filter`, saved as
`training_state.pt` the way the controller does; then `export_to_sglang` and `export_to_hf`
(P-EAGLE: `export_to_hf` only, as `export_to_sglang` refuses it).
"""

from __future__ import annotations

import json
from importlib.metadata import version
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from producers import common

# variant name -> (strategy, extra draft-config fields, exporters, what it exercises)
VARIANTS: dict[str, tuple[str, dict[str, Any], tuple[str, ...], str]] = {
    "llama": ("eagle3", {}, ("sglang", "hf"), "Llama draft, default config"),
    "aux-ids": (
        "eagle3",
        {"eagle_config": {"eagle_aux_hidden_state_layer_ids": [1, 3, 6]}},
        ("sglang",),
        "custom aux layer ids in eagle_config",
    ),
    "fc-norm": ("eagle3", {"fc_norm": True}, ("sglang",), "per-layer fc_norm"),
    "norm-output-false": (
        "eagle3",
        {"norm_output": False},
        ("sglang",),
        "norm_output false (the model's default is true when the key is absent)",
    ),
    "norm-output-true": ("eagle3", {"norm_output": True}, ("sglang",), "norm_output true"),
    "peagle": ("peagle", {}, ("hf",), "P-EAGLE (4 layers); export_to_hf only"),
    "dflash": (
        "dflash",
        {},
        ("hf",),
        "DFlash, config shaped like SpecForge's configs/qwen3-8b-dflash.json (no dflash_config, "
        "no mask_token_id); export_to_hf only, as export_to_sglang refuses it",
    ),
    "qwen3-target": (
        "eagle3",
        {},
        ("sglang",),
        "Llama draft for the Qwen3 verifier (SpecForge's EAGLE-3 draft layer is Llama only)",
    ),
}

ARCHITECTURE = {
    "eagle3": "LlamaForCausalLMEagle3",
    "peagle": "PEagleDraftModel",
    "dflash": "DFlashDraftModel",
}
# The verifier each variant is trained against (DFlash drafts are Qwen3 layers for Qwen3 targets).
VERIFIER_ARCH = {"dflash": "qwen3", "qwen3-target": "qwen3"}
# Fields of SpecForge's shipped DFlash configs (configs/qwen3-8b-dflash.json) besides the
# target's dims: 5 full-attention layers, block 16, num_target_layers = the target's layers.
DFLASH_FIELDS: dict[str, Any] = {
    "auto_map": {"AutoModel": "modeling_dflash.DFlashDraftModel"},
    "block_size": 16,
    "num_hidden_layers": 5,
    "layer_types": ["full_attention"] * 5,
    "max_window_layers": 5,
    "num_target_layers": common.VERIFIER_LAYERS,
    "sliding_window": None,
    "use_sliding_window": False,
    "rope_scaling": None,
}


def _draft_config(strategy: str, extra: dict[str, Any], arch: str = "llama") -> dict[str, Any]:
    """The draft config JSON, shaped like SpecForge's `configs/*-eagle3.json` (or
    `*-dflash.json`), at tiny dims."""
    fields = common.verifier_config(arch)
    fields.update(
        architectures=[ARCHITECTURE[strategy]],
        num_hidden_layers=4 if strategy == "peagle" else 1,
        draft_vocab_size=common.DRAFT_VOCAB,
        hidden_act="silu",
        attention_bias=False,
        rope_theta=10000.0,
        torch_dtype="bfloat16",
        use_cache=True,
    )
    if strategy == "dflash":
        del fields["draft_vocab_size"]  # DFlash reads the target's head: no draft vocab
        fields.update(DFLASH_FIELDS)
    else:
        fields["model_type"] = "llama"  # SpecForge's EAGLE-3 draft layer is Llama
    fields.update(extra)
    return fields


def _vocab_mapping(work: Path) -> Path:
    """Runs SpecForge's own mapping code over a sequence with the synthetic frequencies."""
    import torch
    from specforge.data.preprocessing import generate_vocab_mapping_file

    freq = common.token_frequencies()
    ids = torch.tensor(sorted(freq), dtype=torch.long)
    counts = torch.tensor([freq[i] for i in sorted(freq)], dtype=torch.long)
    sequence = torch.repeat_interleave(ids, counts)
    dataset = {"input_ids": [sequence], "loss_mask": [torch.ones_like(sequence)]}
    cache = work / "vocab_mapping"
    path = generate_vocab_mapping_file(
        dataset, common.TARGET_VOCAB, common.DRAFT_VOCAB, cache_dir=str(cache)
    )
    return Path(path)


def _training_checkpoint(strategy: str, draft: Any, ckpt: Path) -> Path:
    """Writes `training_state.pt` with the payload keys the controller writes."""
    import torch
    from specforge.training.strategies import base

    wrapper = torch.nn.Module()
    wrapper.draft_model = draft  # the name OnlineEagle3Model / the P-EAGLE / DFlash models give it
    filter_fn = getattr(base, type_name(strategy))
    state = filter_fn.checkpoint_state_filter(
        SimpleNamespace(eagle3_model=wrapper), wrapper.state_dict()
    )
    ckpt.mkdir(parents=True, exist_ok=True)
    payload = {"draft_state_dict": state, "global_step": 0, "epoch": 0, "strategy": strategy}
    torch.save(payload, ckpt / "training_state.pt")
    return ckpt


def generate_one(name: str, work: Path) -> list[dict[str, Any]]:
    """Writes one variant (one drafter per exporter); returns the manifest entries."""
    from specforge.config.schema import Config
    from specforge.export import export_to_hf, export_to_sglang
    from specforge.training.model_loading import resolve_draft_config

    strategy, extra, exporters, note = VARIANTS[name]
    arch = VERIFIER_ARCH.get(name, "llama")
    verifier = common.write_verifier(work, arch)
    mapping = _vocab_mapping(work)
    config_path = work / f"draft-config-{name}.json"
    draft_json = _draft_config(strategy, extra, arch)
    config_path.write_text(json.dumps(draft_json, indent=2))
    cfg = Config.model_validate(
        {
            "model": {
                "target_model_path": str(verifier),
                "draft_model_config": str(config_path),
                "vocab_mapping_path": str(mapping),
            },
            "training": {"strategy": strategy, "attention_backend": "sdpa"},
            "data": {"hidden_states_path": str(work / "unused-hidden-states")},
        }
    )
    provider = _provider(strategy)
    draft_config = resolve_draft_config(cfg, provider=provider)
    common.seed_everything()
    draft = _build_draft(strategy, cfg, draft_config)
    ckpt = _training_checkpoint(strategy, draft, work / f"ckpt-{name}")

    producer_version = version("specforge")
    entries = []
    for exporter in exporters:
        out = work / f"export-{name}-{exporter}"
        if exporter == "sglang":
            export_to_sglang(str(ckpt), str(config_path), str(out))
            called = "specforge.export.to_sglang.export_to_sglang"
        else:
            export_to_hf(str(ckpt), str(config_path), str(out), embedding_source=str(verifier))
            called = "specforge.export.to_hf.export_to_hf(embedding_source=<verifier>)"
        dest_name = f"specforge-{producer_version}-{name}-{exporter}"
        files = common.copy_outputs(out, common.CORPUS_DIR / dest_name)
        entries.append(
            {
                "dir": dest_name,
                "producer": "specforge",
                "producer_version": producer_version,
                "variant": f"{name}-{exporter}",
                "variant_note": note,
                "options": {"strategy": strategy, "draft_config": draft_json},
                "functions_called": [
                    "specforge.data.preprocessing.generate_vocab_mapping_file"
                    " -> process_token_dict_to_mappings",
                    "specforge.training.model_loading.resolve_draft_config",
                    f"specforge.algorithms.model_providers.build_{strategy}_draft",
                    f"specforge.training.strategies.base.{type_name(strategy)}"
                    ".checkpoint_state_filter -> torch.save(training_state.pt)",
                    called,
                ],
                "verifier": {"arch": arch, "config": common.verifier_config(arch)},
                "files": files,
                "dropped_side_files": [],
                "engines": ["sglang", "vllm"],
                "stubs": [],
                "environment": common.environment(),
                "generator_command": common.command_line("specforge", name),
                **_family(strategy, draft),
            }
        )
    return entries


def _build_draft(strategy: str, cfg: Any, draft_config: Any) -> Any:
    """The algorithm's own draft builder (`build_dflash_draft` takes the kernels its provider
    resolves: None without liger)."""
    from specforge.algorithms import model_providers as providers

    if strategy == "dflash":
        from specforge.algorithms.dflash.providers import resolve_dflash_kernels

        return providers.build_dflash_draft(cfg, draft_config, resolve_dflash_kernels(cfg))
    return getattr(providers, f"build_{strategy}_draft")(cfg, draft_config)


def _family(strategy: str, draft: Any) -> dict[str, Any]:
    """The family record, read from the built draft module."""
    evidence = (
        f"SpecForge training.strategy={strategy!r} -> {type(draft).__name__} "
        f"(config_class {draft.config_class.__name__})"
    )
    variant = "qwen3" if strategy == "dflash" else "llama"
    flags: dict[str, bool] | None = None
    if strategy == "eagle3":
        flags = {"fc_norm": draft.fc_norm is not None, "norm_output": bool(draft.norm_output)}
    elif strategy == "peagle":
        flags = {"norm_before_residual": bool(draft.norm_before_residual)}
    return common.family_fields(strategy, variant, evidence, flags)


def type_name(strategy: str) -> str:
    """The SpecForge strategy class whose checkpoint filter a variant uses."""
    return {
        "eagle3": "Eagle3TrainStrategy",
        "peagle": "PEagleTrainStrategy",
        "dflash": "DFlashTrainStrategy",
    }[strategy]


def _provider(strategy: str) -> Any:
    """The algorithm's registered `DraftConfigProvider`."""
    from importlib import import_module

    module = import_module(f"specforge.algorithms.{strategy}.providers")
    return module.algorithm_providers().model.draft_config


def generate(only: list[str] | None = None) -> list[dict[str, Any]]:
    """Writes every (or the named) SpecForge variant; returns manifest entries."""
    entries = []
    work = common.work_dir("specforge")
    for name in only or list(VARIANTS):
        made = generate_one(name, work)
        common.record(made)
        entries += made
    return entries
