"""Shared pieces of the producer-corpus generator: tiny dims, the synthetic token-frequency
table, the tiny verifier checkpoints the producers read, and manifest entries.

Runs only in the throwaway producer venv (it imports torch and transformers); never in CI.
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path
from typing import Any

CORPUS_DIR = Path(__file__).resolve().parent.parent
MANIFEST = CORPUS_DIR / "manifest.json"
SEED = 1234

# The tiny dims every drafter in the corpus is built with (issue 9, item 1).
HIDDEN = 64
TARGET_VOCAB = 1000
DRAFT_VOCAB = 200
INTERMEDIATE = 128
HEADS = 4
KV_HEADS = 2
HEAD_DIM = 16
VERIFIER_LAYERS = 8

TINY_DIMS = {
    "hidden_size": HIDDEN,
    "target_vocab_size": TARGET_VOCAB,
    "draft_vocab_size": DRAFT_VOCAB,
    "intermediate_size": INTERMEDIATE,
    "num_attention_heads": HEADS,
    "num_key_value_heads": KV_HEADS,
    "head_dim": HEAD_DIM,
    "verifier_num_hidden_layers": VERIFIER_LAYERS,
}


def work_dir(producer: str) -> Path:
    """A fixed scratch directory (so the verifier path the producers record is reproducible)."""
    path = Path("/tmp/eagle3-corpus") / producer
    path.mkdir(parents=True, exist_ok=True)
    return path


def seed_everything(seed: int = SEED) -> None:
    """Fixes every RNG a producer's init code may draw from, so regeneration is reproducible."""
    import numpy as np
    import torch

    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def token_frequencies() -> dict[int, int]:
    """A synthetic Zipf-like frequency table over 600 of the 1000 target ids.

    It includes high ids (as real special tokens are), so that the selected draft vocabulary
    is not just the lowest ids and `d2t` carries non-trivial offsets.
    """
    rng = random.Random(SEED)
    ids = rng.sample(range(TARGET_VOCAB), 600)
    for special in (TARGET_VOCAB - 1, TARGET_VOCAB - 2):
        if special not in ids:
            ids[-1 - (TARGET_VOCAB - 1 - special)] = special
    return {tid: 100_000 // (rank + 1) + rng.randrange(7) for rank, tid in enumerate(ids)}


def verifier_config(arch: str, layers: int = VERIFIER_LAYERS) -> dict[str, Any]:
    """The config of the tiny verifier (target) model the producers read."""
    config: dict[str, Any] = {
        "hidden_size": HIDDEN,
        "intermediate_size": INTERMEDIATE,
        "num_hidden_layers": layers,
        "num_attention_heads": HEADS,
        "num_key_value_heads": KV_HEADS,
        "head_dim": HEAD_DIM,
        "vocab_size": TARGET_VOCAB,
        "max_position_embeddings": 2048,
        "rms_norm_eps": 1e-6,
        "tie_word_embeddings": False,
        "bos_token_id": 1,
        "eos_token_id": TARGET_VOCAB - 1,
        "pad_token_id": 0,
    }
    config["model_type"] = "qwen3" if arch == "qwen3" else "llama"
    return config


def write_verifier(work: Path, arch: str = "llama", layers: int = VERIFIER_LAYERS) -> Path:
    """Writes a tiny random verifier with transformers' own `save_pretrained` (not committed)."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    out = work / f"verifier-{arch}-{layers}l"
    if (out / "config.json").exists():
        return out
    fields = verifier_config(arch, layers)
    config = AutoConfig.for_model(fields.pop("model_type"), **fields)
    seed_everything()
    model = AutoModelForCausalLM.from_config(config, torch_dtype=torch.bfloat16)
    model.save_pretrained(out)
    return out


def copy_outputs(src: Path, dest: Path, skip: tuple[str, ...] = ()) -> list[str]:
    """Copies what the producer wrote into the corpus drafter directory; returns the file names."""
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    names = []
    for item in sorted(src.iterdir()):
        if item.is_file() and item.name not in skip:
            shutil.copy2(item, dest / item.name)
            names.append(item.name)
    return names


def record(entries: list[dict[str, Any]]) -> None:
    """Adds or replaces manifest entries (keyed by drafter directory), keeping the file sorted."""
    manifest = json.loads(MANIFEST.read_text()) if MANIFEST.exists() else {"drafters": []}
    by_dir = {entry["dir"]: entry for entry in manifest["drafters"]}
    for entry in entries:
        by_dir[entry["dir"]] = entry
    manifest["schema_version"] = 1
    manifest["tiny_dims"] = TINY_DIMS
    manifest["seed"] = SEED
    manifest["verifiers"] = {"llama": "verifiers/llama-8l", "qwen3": "verifiers/qwen3-8l"}
    manifest["drafters"] = [by_dir[key] for key in sorted(by_dir)]
    MANIFEST.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")


def command_line(producer: str, variant: str) -> str:
    """The generator command that reproduces one drafter."""
    return f"python tests/corpus/generate.py --producer {producer} --variant {variant}"


def environment() -> dict[str, str]:
    """Versions of the libraries the producer ran on (recorded per drafter)."""
    from importlib.metadata import version

    return {name: version(name) for name in ("torch", "transformers", "safetensors")}
