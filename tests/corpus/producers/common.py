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
# DFlash2's candidate-selector rank (speculators default 256, which would make its two
# [vocab, rank] codebooks most of the corpus's bytes).
SELECTOR_RANK = 32

TINY_DIMS = {
    "hidden_size": HIDDEN,
    "target_vocab_size": TARGET_VOCAB,
    "draft_vocab_size": DRAFT_VOCAB,
    "intermediate_size": INTERMEDIATE,
    "num_attention_heads": HEADS,
    "num_key_value_heads": KV_HEADS,
    "head_dim": HEAD_DIM,
    "verifier_num_hidden_layers": VERIFIER_LAYERS,
    "dflash2_selector_rank": SELECTOR_RANK,
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


# MLA dims of the tiny DeepSeek-V3-style verifier and of the MLA drafter (q/kv LoRA ranks,
# the no-rope / rope / value head dims), with 4 routed experts of width 32 for the MoE layers.
TINY_MLA_DIMS = {
    "q_lora_rank": 32,
    "kv_lora_rank": 16,
    "qk_nope_head_dim": 16,
    "qk_rope_head_dim": 8,
    "v_head_dim": 16,
    "moe_intermediate_size": 32,
    "n_routed_experts": 4,
    "num_experts_per_tok": 2,
}
# Kimi-K2's RoPE and position range (moonshotai/Kimi-K2-Thinking config.json), which
# Model-Optimizer's kimik2_eagle_default_config also carries: the DeepSeek-V3-style verifier
# uses them, so the MLA drafter and its target agree as they do for the real pair.
KIMI_K2_ROPE = {
    "rope_theta": 50000.0,
    "rope_scaling": {
        "type": "yarn",
        "factor": 64.0,
        "original_max_position_embeddings": 4096,
        "beta_fast": 1.0,
        "beta_slow": 1.0,
        "mscale": 1.0,
        "mscale_all_dim": 1.0,
    },
    "max_position_embeddings": 262144,
}
# Where each verifier lives under tests/corpus/verifiers/.
VERIFIER_DIRS = {
    "llama": "llama-8l",
    "qwen3": "qwen3-8l",
    "deepseek_v3": "deepseek-v3-8l",
    "kimi_k2": "kimi-k2-8l",
}


def verifier_config(arch: str, layers: int = VERIFIER_LAYERS) -> dict[str, Any]:
    """The config of the tiny verifier (target) model the producers read."""
    if arch == "deepseek_v3":
        return _deepseek_v3_config(layers)
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


def _deepseek_v3_config(layers: int) -> dict[str, Any]:
    """A DeepSeek-V3 (MLA + MoE) target at tiny dims, with Kimi-K2's RoPE and positions."""
    return {
        "model_type": "deepseek_v3",
        "hidden_size": HIDDEN,
        "intermediate_size": INTERMEDIATE,
        "num_hidden_layers": layers,
        "num_attention_heads": HEADS,
        "num_key_value_heads": HEADS,
        "n_shared_experts": 1,
        "n_group": 1,
        "topk_group": 1,
        "first_k_dense_replace": 1,
        **TINY_MLA_DIMS,
        "vocab_size": TARGET_VOCAB,
        "rms_norm_eps": 1e-6,
        "tie_word_embeddings": False,
        "bos_token_id": 1,
        "eos_token_id": TARGET_VOCAB - 1,
        "pad_token_id": 0,
        **KIMI_K2_ROPE,
    }


def write_verifier(work: Path, arch: str = "llama", layers: int = VERIFIER_LAYERS) -> Path:
    """Writes a tiny random verifier with transformers' own `save_pretrained` (not committed)."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    out = work / f"verifier-{arch}-{layers}l"
    if (out / "config.json").exists():
        return out
    if arch == "kimi_k2":
        return _write_kimi_k2_layout(work, layers)
    fields = verifier_config(arch, layers)
    config = AutoConfig.for_model(fields.pop("model_type"), **fields)
    seed_everything()
    model = AutoModelForCausalLM.from_config(config, torch_dtype=torch.bfloat16)
    model.save_pretrained(out)
    return out


def _write_kimi_k2_layout(work: Path, layers: int) -> Path:
    """The DeepSeek-V3-style verifier's weights under a config in Kimi-K2's published layout:
    `model_type` "kimi_k2" with `auto_map` to the remote `configuration_deepseek.DeepseekV3Config`
    (transformers 5.8.1 has no `kimi_k2` type: it loads only with that remote code, or with the
    config read as `DeepseekV3Config`, which is what the engines do), and RoPE in the
    transformers-4 keys (`rope_theta`, `rope_scaling`) that Kimi-K2's config.json uses, with
    the same values as the DeepSeek-V3-style verifier's `rope_parameters`."""
    source = write_verifier(work, "deepseek_v3", layers)
    out = work / f"verifier-kimi_k2-{layers}l"
    out.mkdir(parents=True, exist_ok=True)
    for item in source.iterdir():
        if item.name != "config.json":
            shutil.copy2(item, out / item.name)
    written = json.loads((source / "config.json").read_text())
    written.pop("rope_parameters", None)
    written.update(
        model_type="kimi_k2",
        architectures=["DeepseekV3ForCausalLM"],
        auto_map={
            "AutoConfig": "configuration_deepseek.DeepseekV3Config",
            "AutoModel": "modeling_deepseek.DeepseekV3Model",
            "AutoModelForCausalLM": "modeling_deepseek.DeepseekV3ForCausalLM",
        },
        rope_theta=KIMI_K2_ROPE["rope_theta"],
        rope_scaling=KIMI_K2_ROPE["rope_scaling"],
    )
    (out / "config.json").write_text(json.dumps(written, indent=2, sort_keys=True) + "\n")
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
    manifest["verifiers"] = {arch: f"verifiers/{name}" for arch, name in VERIFIER_DIRS.items()}
    manifest["verifier_models"] = verifier_models()
    manifest["drafters"] = [by_dir[key] for key in sorted(by_dir)]
    MANIFEST.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")


# The drafter families the corpus holds (issue 19): the producer's own algorithm name, and
# the draft decoder layer it was built with.
FAMILIES = ("eagle3", "peagle", "dflash", "dflash2")
FAMILY_VARIANTS = ("llama", "qwen3", "mla")
EAGLE3_FLAGS = ("norm_before_residual", "norm_before_fc", "fc_norm", "norm_output")


def family_fields(
    family: str,
    variant: str,
    evidence: str,
    flags: dict[str, bool] | None = None,
    quantization: str | None = None,
) -> dict[str, Any]:
    """The manifest's family record: what the producer built, as its own code decided it.

    `family` is the producer's algorithm, `family_variant` the draft decoder layer,
    `eagle3_flags` the EAGLE-3.1-style switches the producer's model computes with (read from
    the built model, so defaults the config omits are included), `quantization` the
    weight format when the producer quantized the draft.
    """
    if family not in FAMILIES or variant not in FAMILY_VARIANTS:
        raise ValueError(f"unknown family {family!r} / variant {variant!r}")
    record: dict[str, Any] = {
        "family": family,
        "family_variant": variant,
        "family_evidence": evidence,
        "quantization": quantization,
    }
    if flags is not None:
        record["eagle3_flags"] = {name: bool(flags[name]) for name in EAGLE3_FLAGS if name in flags}
    return record


def verifier_models() -> dict[str, Any]:
    """Per committed verifier: its exact config.json and how it loads (for forward-pass
    harnesses: every one but kimi_k2 loads with AutoModelForCausalLM.from_pretrained)."""
    models: dict[str, Any] = {}
    for arch, name in VERIFIER_DIRS.items():
        path = CORPUS_DIR / "verifiers" / name / "config.json"
        if not path.exists():
            continue
        remote = arch == "kimi_k2"
        models[arch] = {
            "dir": f"verifiers/{name}",
            "config": json.loads(path.read_text()),
            "written_by": (
                "the deepseek-v3-8l weights with config.json re-keyed to Kimi-K2's layout "
                "(producers/common.py _write_kimi_k2_layout)"
                if remote
                else "transformers AutoModelForCausalLM.from_config(...).save_pretrained "
                f"(seed {SEED}, bfloat16)"
            ),
            "loads_with": (
                "DeepseekV3Config(**config minus model_type/auto_map) + "
                "DeepseekV3ForCausalLM (transformers has no kimi_k2 type)"
                if remote
                else "transformers AutoModelForCausalLM.from_pretrained"
            ),
        }
    return models


def command_line(producer: str, variant: str) -> str:
    """The generator command that reproduces one drafter."""
    return f"python tests/corpus/generate.py --producer {producer} --variant {variant}"


def environment() -> dict[str, str]:
    """Versions of the libraries the producer ran on (recorded per drafter)."""
    from importlib.metadata import version

    return {name: version(name) for name in ("torch", "transformers", "safetensors")}
