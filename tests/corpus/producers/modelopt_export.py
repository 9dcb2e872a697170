"""NVIDIA Model-Optimizer (nvidia-modelopt) EAGLE-3 drafters through its own export.

Per variant: the tiny verifier loaded with transformers; `mtsp.convert(model, [("eagle",
EAGLE3_DEFAULT_CFG["config"])])` with the draft dims overridden to the tiny ones; for a compressed
draft vocab, `calibrate_frequent_vocab` over the synthetic token stream (through a stub
tokenizer whose `apply_chat_template` returns that stream: the tokenizer is irrelevant to saving,
and the mapping code itself runs unchanged) and `load_draft_vocab_cache`; then
`export_speculative_decoding` (`EagleExporter.export`: `model.safetensors` + `config.json`).
"""

from __future__ import annotations

import copy
from importlib.metadata import version
from pathlib import Path
from typing import Any

from producers import common

TINY_DRAFT = {
    "intermediate_size": common.INTERMEDIATE,
    "num_attention_heads": common.HEADS,
    "num_key_value_heads": common.KV_HEADS,
    "head_dim": common.HEAD_DIM,
}

# variant name -> (eagle_architecture_config overrides, what it exercises)
VARIANTS: dict[str, tuple[dict[str, Any], str]] = {
    "default": ({}, "EAGLE3_DEFAULT_CFG at tiny dims: full vocab, no d2t, base lm_head copied"),
    "draft-vocab": ({"draft_vocab_size": common.DRAFT_VOCAB}, "draft vocab 200 (d2t only)"),
    "layers2": (
        {"draft_vocab_size": common.DRAFT_VOCAB, "num_hidden_layers": 2},
        "2 layers, draft vocab 200",
    ),
}


class StreamTokenizer:
    """Stands in for a tokenizer: `apply_chat_template` returns the synthetic token stream."""

    def __init__(self, ids: list[int]):
        self.ids = ids

    def apply_chat_template(self, conversations: Any, **_: Any) -> list[int]:
        del conversations
        return list(self.ids)


def _token_stream() -> list[int]:
    freq = common.token_frequencies()
    return [tid for tid in sorted(freq) for _ in range(freq[tid])]


def generate_one(name: str, work: Path) -> dict[str, Any]:
    """Writes one drafter into the corpus and returns its manifest entry."""
    import modelopt.torch.speculative as mtsp
    import torch
    from modelopt.torch.export import export_speculative_decoding
    from modelopt.torch.speculative.config import EAGLE3_DEFAULT_CFG
    from modelopt.torch.speculative.utils import calibrate_frequent_vocab
    from transformers import AutoModelForCausalLM

    overrides, note = VARIANTS[name]
    verifier = common.write_verifier(work, "llama")
    model = AutoModelForCausalLM.from_pretrained(verifier, dtype=torch.bfloat16)
    config = copy.deepcopy(EAGLE3_DEFAULT_CFG["config"])
    config["eagle_architecture_config"].update({**TINY_DRAFT, **overrides})
    common.seed_everything()
    mtsp.convert(model, [("eagle", config)])
    called = ['modelopt.torch.speculative.convert(model, [("eagle", EAGLE3_DEFAULT_CFG config)])']
    stubs = []
    if "draft_vocab_size" in overrides:
        d2t_path = work / f"d2t-{name}.pt"
        calibrate_frequent_vocab(
            StreamTokenizer(_token_stream()), [], overrides["draft_vocab_size"], str(d2t_path)
        )
        model.load_draft_vocab_cache(model, str(d2t_path))
        called += [
            "modelopt.torch.speculative.utils.calibrate_frequent_vocab",
            "HFEagleModel.load_draft_vocab_cache",
        ]
        stubs.append("tokenizer: apply_chat_template returns the synthetic token stream")
    out = work / f"export-{name}"
    export_speculative_decoding(model, export_dir=out)
    called.append("modelopt.torch.export.export_speculative_decoding -> EagleExporter.export")

    producer_version = version("nvidia-modelopt")
    dest_name = f"modelopt-{producer_version}-{name}"
    files = common.copy_outputs(out, common.CORPUS_DIR / dest_name)
    return {
        "dir": dest_name,
        "producer": "modelopt",
        "producer_version": producer_version,
        "variant": name,
        "variant_note": note,
        "options": {"eagle_architecture_config_overrides": {**TINY_DRAFT, **overrides}},
        "functions_called": called,
        "verifier": {"arch": "llama", "config": common.verifier_config("llama")},
        "files": files,
        "dropped_side_files": [],
        "engines": ["sglang", "vllm", "trtllm"],
        "stubs": stubs,
        "environment": common.environment(),
        "generator_command": common.command_line("modelopt", name),
    }


def generate(only: list[str] | None = None) -> list[dict[str, Any]]:
    """Writes every (or the named) Model-Optimizer variant; returns manifest entries."""
    entries = []
    work = common.work_dir("modelopt")
    for name in only or list(VARIANTS):
        entries.append(generate_one(name, work))
        common.record(entries[-1:])
    return entries
